// A host shared module from `dspc --emit=so --target=host`, loaded with dlopen() and called
// through its checked entries. This process provides the runtime-support symbols the module
// imports (errors, the VTCM pool, the workspace, dspc_report_bad_arg), exported with -rdynamic.
#include <dlfcn.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/interp/Interpreter.h"
#include "driver/Compile.h"
#include "dspc_runtime.h"
#include "tests/so/HostModule.h"

namespace dspc {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// An aligned buffer with room to misalign it on purpose.
struct Buf {
  std::vector<uint8_t> storage;
  uint8_t* data;
  explicit Buf(size_t n) : storage(n + 256) {
    data = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(storage.data()) + 127) & ~uintptr_t(127));
  }
};

class PackedCall : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string error;
    ASSERT_TRUE(module_.load("two_funcs", error)) << error;
    source_path_ = module_.source();
  }
  static void TearDownTestSuite() { module_.unload(); }

  dspc_call_fn entry(const char* name) {
    auto fn = module_.entry(name);
    EXPECT_NE(fn, nullptr) << name;
    return fn;
  }

  static inline std::string source_path_;
  static inline testing::HostModule module_;
};

TEST_F(PackedCall, TableListsTheCheckedEntries) {
  auto* num = static_cast<const uint32_t*>(module_.symbol("__dspc_num_funcs"));
  auto* funcs = static_cast<const dspc_func_desc*>(module_.symbol("__dspc_funcs"));
  ASSERT_NE(num, nullptr);
  ASSERT_NE(funcs, nullptr);
  ASSERT_EQ(*num, 2u);
  EXPECT_STREQ(funcs[0].name, "first");
  EXPECT_STREQ(funcs[1].name, "second");
  EXPECT_EQ(reinterpret_cast<void*>(funcs[0].call), module_.symbol("__dspc_call_first"));
  EXPECT_EQ(reinterpret_cast<void*>(funcs[1].call), module_.symbol("__dspc_call_second"));
  ASSERT_EQ(funcs[1].num_params, 3u);
  EXPECT_STREQ(funcs[1].params[2].name, "C");
  EXPECT_EQ(funcs[1].params[2].ndim, 2);
  EXPECT_EQ(funcs[1].params[2].shape[0], 64);
  EXPECT_EQ(funcs[1].params[2].shape[1], 128);
  EXPECT_EQ(funcs[1].params[2].is_output, 1);
}

// Correct arguments: the result is the interpreter's, bit for bit.
TEST_F(PackedCall, CorrectArgumentsMatchTheInterpreter) {
  SourceFile src{source_path_, read_text(source_path_)};
  std::ostringstream diag_text;
  Diagnostics diag(diag_text);
  auto c = compile_source(src, LowerOptions{}, diag);
  ASSERT_TRUE(c && c->program) << diag_text.str();
  for (const TensorFunc& f : c->program->funcs) {
    std::vector<Tensor> inputs, expected;
    uint64_t seed = 7;
    for (const Buffer& b : f.inputs) inputs.push_back(random_tensor(b->dtype, b->shape, seed++));
    std::string error;
    ASSERT_TRUE(interpret(f, inputs, expected, error)) << error;
    std::vector<Buf> bufs;
    std::vector<Tensor*> all;
    for (Tensor& t : inputs) all.push_back(&t);
    for (Tensor& t : expected) all.push_back(&t);
    for (Tensor* t : all) bufs.emplace_back(t->data.size());
    std::vector<dspc_arg> args;
    for (size_t i = 0; i < all.size(); ++i) {
      bool is_output = i >= inputs.size();
      if (!is_output) std::memcpy(bufs[i].data, all[i]->data.data(), all[i]->data.size());
      if (is_output) std::memset(bufs[i].data, 0xA5, all[i]->data.size());
      DataType t = all[i]->dtype;
      args.push_back({bufs[i].data, all[i]->shape.data(), static_cast<int32_t>(all[i]->shape.size()),
                      static_cast<uint8_t>(t.is_int() ? 0 : t.is_uint() ? 1 : t.is_float() ? 2 : 3),
                      static_cast<uint8_t>(t.is_bool() ? 8 : t.bits), 0});
    }
    dspc_call_fn fn = entry(("__dspc_call_" + f.name).c_str());
    ASSERT_NE(fn, nullptr);
    dspc_context ctx;
    dspc_context_init(&ctx);
    ASSERT_EQ(fn(args.data(), static_cast<int32_t>(args.size()), &ctx), DSPC_OK) << dspc_get_last_error(&ctx);
    dspc_context_release(&ctx);
    for (size_t o = 0; o < expected.size(); ++o) {
      size_t i = inputs.size() + o;
      EXPECT_EQ(std::memcmp(bufs[i].data, expected[o].data.data(), expected[o].data.size()), 0)
          << f.name << ": output " << o << " differs from the interpreter";
    }
  }
}

// first(A: u8[64, 128], B: u8[64, 128]) -> (C: u8[64, 128]) with one thing wrong at a time:
// the call fails with DSPC_ERR_BAD_ARGUMENT and this message, and never writes C.
struct BadCase {
  const char* what;
  std::string message;  // a prefix when it ends in '*'
};

TEST_F(PackedCall, WrongArgumentsAreRejectedWithAMessage) {
  dspc_call_fn fn = entry("__dspc_call_first");
  ASSERT_NE(fn, nullptr);
  const size_t n = 64 * 128;
  Buf a(n), b(n), c(n);
  int64_t shape[2] = {64, 128}, short_shape[2] = {64, 127}, flat[1] = {8192};
  auto good = [&] {
    std::vector<dspc_arg> args = {{a.data, shape, 2, DSPC_TYPE_UINT, 8, 0},
                                  {b.data, shape, 2, DSPC_TYPE_UINT, 8, 0},
                                  {c.data, shape, 2, DSPC_TYPE_UINT, 8, 0}};
    return args;
  };
  struct Case {
    const char* what;
    std::function<void(std::vector<dspc_arg>&, int32_t&)> edit;
    std::string message;
  };
  std::vector<Case> cases = {
      {"count", [](auto&, int32_t& num) { num = 2; }, "first: expected 3 arguments, got 2"},
      {"null", [](auto& args, int32_t&) { args[0].data = nullptr; }, "first: argument 0 (A): data pointer is null"},
      {"misaligned", [&](auto& args, int32_t&) { args[1].data = b.data + 1; },
       "first: argument 1 (B): data pointer 0x*"},
      {"dtype", [](auto& args, int32_t&) { args[1].type_code = DSPC_TYPE_INT; },
       "first: argument 1 (B): expected dtype u8[64, 128], got i8[64, 128]"},
      {"bits", [](auto& args, int32_t&) { args[0].bits = 16; },
       "first: argument 0 (A): expected dtype u8[64, 128], got u16[64, 128]"},
      {"rank", [&](auto& args, int32_t&) { args[2].ndim = 1, args[2].shape = flat; },
       "first: argument 2 (C): expected rank 2 u8[64, 128], got u8[8192]"},
      {"extent", [&](auto& args, int32_t&) { args[1].shape = short_shape; },
       "first: argument 1 (B): expected shape u8[64, 128], got u8[64, 127]"},
      {"null shape", [](auto& args, int32_t&) { args[2].shape = nullptr; },
       "first: argument 2 (C): expected shape u8[64, 128], got u8[null shape]"},
  };
  dspc_context ctx;
  dspc_context_init(&ctx);
  for (const Case& k : cases) {
    std::vector<dspc_arg> args = good();
    int32_t num = 3;
    k.edit(args, num);
    std::memset(c.data, 0x5A, n);
    dspc_set_last_error("", &ctx);
    EXPECT_EQ(fn(args.data(), num, &ctx), DSPC_ERR_BAD_ARGUMENT) << k.what;
    std::string got = dspc_get_last_error(&ctx);
    if (k.message.back() == '*') {
      EXPECT_EQ(got.rfind(k.message.substr(0, k.message.size() - 1), 0), 0u) << k.what << ": " << got;
      EXPECT_NE(got.find("is not aligned to 128 bytes"), std::string::npos) << got;
    } else {
      EXPECT_EQ(got, k.message) << k.what;
    }
    bool untouched = true;
    for (size_t i = 0; i < n; ++i) untouched = untouched && c.data[i] == 0x5A;
    EXPECT_TRUE(untouched) << k.what << ": the kernel ran";
  }
  // A null args array with the right count is the count's error, not a crash.
  EXPECT_EQ(fn(nullptr, 3, &ctx), DSPC_ERR_BAD_ARGUMENT);
  EXPECT_STREQ(dspc_get_last_error(&ctx), "first: expected 3 arguments, got 3 with a null argument array");
  // A null context is the default context: the message lands there, not in ctx.
  dspc_set_last_error("", &ctx);
  dspc_set_last_error("", dspc_context_default());
  EXPECT_EQ(fn(nullptr, 3, nullptr), DSPC_ERR_BAD_ARGUMENT);
  EXPECT_STREQ(dspc_get_last_error(dspc_context_default()),
               "first: expected 3 arguments, got 3 with a null argument array");
  EXPECT_STREQ(dspc_get_last_error(&ctx), "");
  // And the good arguments still work afterwards.
  std::vector<dspc_arg> args = good();
  EXPECT_EQ(fn(args.data(), 3, &ctx), DSPC_OK) << dspc_get_last_error(&ctx);
  dspc_context_release(&ctx);
}

}  // namespace
}  // namespace dspc
