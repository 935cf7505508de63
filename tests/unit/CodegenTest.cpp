// Codegen: the lowered seed example on Hexagon and the host (IR, asm, object symbols), the C
// header, the runner table, linking, and the arithmetic semantics of generated code checked
// against compiler/arith/Semantics.h by running it (natively, and under qemu-hexagon when
// runtime-support is built).
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <thread>

#include "codegen/Codegen.h"
#include "driver/Compile.h"
#include "compiler/ir/Externs.h"
#include "compiler/interp/Npy.h"
#include "compiler/arith/Semantics.h"

namespace dspc {
namespace {

// qemu-hexagon and its -cpu, as CMake found and set them (top-level CMakeLists.txt).
constexpr const char* kQemuLauncher = DSPC_QEMU_LAUNCHER;

namespace fs = std::filesystem;

const char* kLlvmBin = "/usr/lib/llvm-19/bin";

// ---------------------------------------------------------------- helpers

struct RunResult {
  int status = -1;
  std::string out;
};

RunResult run(const std::string& cmd) {
  RunResult r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

fs::path scratch_root() {
  return fs::temp_directory_path() / ("dspc-codegen-" + std::to_string(getpid()));
}

// Removes this process's scratch files when the tests are done.
struct ScratchCleanup {
  ~ScratchCleanup() {
    std::error_code ec;
    fs::remove_all(scratch_root(), ec);
  }
} scratch_cleanup;

fs::path scratch_dir(const std::string& name) {
  fs::path d = scratch_root() / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void write_file(const fs::path& p, const std::string& data) {
  std::ofstream f(p, std::ios::binary);
  f << data;
}

// The build directory: the test binary lives in <build>/tests.
fs::path build_dir() {
  return fs::read_symlink("/proc/self/exe").parent_path().parent_path();
}

Target target(const char* name) {
  auto t = lookup_target(name);
  EXPECT_TRUE(t.has_value()) << name;
  return *t;
}

bool emit(const Module& m, const std::vector<EntryInfo>& entries, EmitKind kind, const char* tname,
          std::string& out, std::string* errors = nullptr, int opt_level = 2) {
  std::ostringstream diag_text;
  Diagnostics diag(diag_text);
  CodegenOptions o;
  o.target = target(tname);
  o.opt_level = opt_level;
  bool ok = emit_module(m, entries, kind, o, out, diag);
  if (errors)
    *errors = diag_text.str();
  else
    EXPECT_TRUE(ok) << diag_text.str();
  return ok;
}

Expr load(const Buffer& b, const VarRef& i) {
  return Load::make(b, {var_expr(i)});
}

// ---------------------------------------------------------------- the seed example, lowered

// The context parameter of the hand-built functions below (one variable, each function binds it).
const VarRef& test_ctx() {
  static const VarRef ctx = VarNode::make("ctx", DataType::handle());
  return ctx;
}

Stmt free_vtcm(const VarRef& v) {
  return Evaluate::make(Call::make(CallKind::Extern, kFreeVtcm, {var_expr(v), var_expr(test_ctx())}));
}
Stmt throw_last_error() {
  return Evaluate::make(Call::make(CallKind::Intrinsic, "throw_last_error", {}));
}
Expr is_null(const VarRef& v) {
  return Call::make(CallKind::Intrinsic, "isnullptr", {var_expr(v)});
}
Expr alloc_vtcm(int64_t n) {
  return Call::make(CallKind::Extern, kAllocateVtcm, {make_i32(n), make_i32(2048), var_expr(test_ctx())});
}

Stmt copy_loop(const Buffer& dst, const Buffer& src) {
  auto i = VarNode::make("i");
  return For::make(i, make_i32(0), make_i32(dst->num_elements()), ForKind::Serial,
                   Store::make(dst, {var_expr(i)}, load(src, i)));
}

// What lower-vtcm-alloc makes of the example `alloc_vtcm` (examples/alloc_vtcm.dsp).
PrimFunc seed_lowered() {
  DataType i8 = DataType::i8();
  Buffer A = BufferNode::make("A", i8, {2048}), B = BufferNode::make("B", i8, {2048}),
         C = BufferNode::make("C", i8, {2048});
  Buffer A_buf = BufferNode::make("A_buf", i8, {2048}, StorageScope::Vtcm);
  Buffer B_buf = BufferNode::make("B_buf", i8, {2048}, StorageScope::Vtcm);
  auto i = VarNode::make("i");
  Stmt compute =
      For::make(i, make_i32(0), make_i32(2048), ForKind::Serial,
                Store::make(C, {var_expr(i)}, Binary::make(BinaryOp::Add, load(A_buf, i), load(B_buf, i))));
  Stmt inner =
      DeclBuffer::make(B_buf, Seq::make({Seq::make({copy_loop(B_buf, B), compute}), free_vtcm(B_buf->data)}));
  Stmt b_alloc = LetStmt::make(
      B_buf->data, alloc_vtcm(2048),
      IfThenElse::make(is_null(B_buf->data), Seq::make({free_vtcm(A_buf->data), throw_last_error()}), inner));
  Stmt outer =
      DeclBuffer::make(A_buf, Seq::make({Seq::make({copy_loop(A_buf, A), b_alloc}), free_vtcm(A_buf->data)}));
  Stmt body = LetStmt::make(A_buf->data, alloc_vtcm(2048),
                            IfThenElse::make(is_null(A_buf->data), throw_last_error(), outer));
  return PrimFunc{"alloc_vtcm", {A, B}, {C}, body, {}, test_ctx()};
}

Module seed_module() {
  return Module{{seed_lowered()}};
}

// ---------------------------------------------------------------- structure

TEST(Codegen, SeedHexagonLlvmIr) {
  std::string ir;
  ASSERT_TRUE(emit(seed_module(), {}, EmitKind::LLVM, "hexagon-v68", ir));
  EXPECT_NE(ir.find("target triple = \"hexagon-unknown-linux-musl\""), std::string::npos) << ir;
  EXPECT_NE(ir.find("\"target-cpu\"=\"hexagonv68\""), std::string::npos) << ir;
  EXPECT_NE(ir.find("+hvxv68"), std::string::npos) << ir;
  EXPECT_NE(ir.find("call ptr @HexagonBackendAllocateVTCM(i32 2048, i32 2048, ptr %ctx)"), std::string::npos) << ir;
  EXPECT_NE(ir.find("@HexagonBackendFreeVTCM(ptr"), std::string::npos) << ir;
}

TEST(Codegen, SeedUnoptimisedIrShowsTheAbi) {
  std::string ir;
  ASSERT_TRUE(emit(seed_module(), {}, EmitKind::LLVM, "hexagon-v68", ir, nullptr, 0));
  // Inputs then outputs, all 128-byte aligned, non-aliasing, 2048 bytes; inputs read-only; then
  // the context, passed on to the runtime.
  EXPECT_NE(
      ir.find(
          "define i32 @alloc_vtcm(ptr noalias noundef nonnull readonly align 128 dereferenceable(2048) %A, "
          "ptr noalias noundef nonnull readonly align 128 dereferenceable(2048) %B, "
          "ptr noalias noundef nonnull align 128 dereferenceable(2048) %C, ptr %ctx)"),
      std::string::npos)
      << ir;
  EXPECT_NE(ir.find("%A_buf = call ptr @HexagonBackendAllocateVTCM(i32 2048, i32 2048, ptr %ctx)"), std::string::npos)
      << ir;
  EXPECT_NE(ir.find("icmp eq ptr %A_buf, null"), std::string::npos) << ir;
  EXPECT_NE(ir.find("ret i32 -1"), std::string::npos) << ir;
  EXPECT_NE(ir.find("ret i32 0"), std::string::npos) << ir;
  EXPECT_NE(ir.find("load i8, ptr"), std::string::npos) << ir;
}

constexpr const char* kSeedSource =
    "func alloc_vtcm(A: i8[2048], B: i8[2048]) -> (C: i8[2048]) {\n"
    "  A_buf[i: 2048] = A[i]\n"
    "  B_buf[i: 2048] = B[i]\n"
    "  C[i] = A_buf[i] + B_buf[i]\n"
    "  schedule {\n"
    "    A_buf.set_scope(\"local.vtcm\")\n"
    "    B_buf.set_scope(\"local.vtcm\")\n"
    "  }\n"
    "}\n";

// The seed program through the whole pipeline (the automatic schedule vectorizes it), then
// to Hexagon assembly or a host object with `o`.
bool compile_seed(const CodegenOptions& o, EmitKind kind, std::string& out) {
  std::ostringstream d;
  Diagnostics diag(d);
  SourceFile src{"seed.dsp", kSeedSource};
  LowerOptions lo;
  lo.target = o.target;
  auto c = compile_source(src, lo, diag);
  if (!c) return false;
  return emit_module(c->module, {}, kind, o, out, diag);
}

TEST(Codegen, SeedHexagonAsmCallsTheRuntime) {
  CodegenOptions o;
  o.target = target("hexagon-v68");
  std::string s;
  ASSERT_TRUE(compile_seed(o, EmitKind::Asm, s));
  EXPECT_NE(s.find("call HexagonBackendAllocateVTCM"), std::string::npos) << s;
  EXPECT_NE(s.find("call HexagonBackendFreeVTCM"), std::string::npos) << s;
  // dspc's vectorize pass: the 2048-element add is done with 128-byte HVX vectors.
  EXPECT_NE(s.find("vmem("), std::string::npos) << s;
  EXPECT_NE(s.find(".b = vadd("), std::string::npos) << s;
}

// The assembly's instruction counts (name -> count), a summary that does not depend on the
// order of commutative operands, which LLVM's Hexagon backend varies with addresses.
std::map<std::string, int> instruction_counts(const std::string& s) {
  std::map<std::string, int> counts;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) {
    size_t open = line.find('(');
    if (open == std::string::npos) continue;
    size_t start = line.find_last_of(" \t=", open);
    counts[line.substr(start == std::string::npos ? 0 : start + 1, open - start - 1)]++;
  }
  return counts;
}

// LLVM's options are set once per process: compilations for two targets can run at once, on
// two threads, each getting what it gets alone.
TEST(Codegen, TwoTargetsCompileAtOnce) {
  CodegenOptions hex, host;
  hex.target = target("hexagon-v68");
  host.target = target("host");
  std::string hex_alone, host_alone;
  ASSERT_TRUE(compile_seed(hex, EmitKind::Asm, hex_alone));
  ASSERT_TRUE(compile_seed(host, EmitKind::Asm, host_alone));
  for (int round = 0; round < 3; ++round) {
    std::string hex_out, host_out;
    bool hex_ok = false, host_ok = false;
    std::thread a([&] { hex_ok = compile_seed(hex, EmitKind::Asm, hex_out); });
    std::thread b([&] { host_ok = compile_seed(host, EmitKind::Asm, host_out); });
    a.join();
    b.join();
    ASSERT_TRUE(hex_ok && host_ok);
    EXPECT_EQ(instruction_counts(hex_out), instruction_counts(hex_alone));
    EXPECT_EQ(instruction_counts(host_out), instruction_counts(host_alone));
    EXPECT_GT(instruction_counts(hex_out)["vadd"], 0);
  }
}

TEST(Codegen, AutoHvxCanBeTurnedOff) {
  std::ostringstream d;
  Diagnostics diag(d);
  CodegenOptions o;
  o.target = target("hexagon-v68");
  o.auto_hvx = false;
  std::string s;
  ASSERT_TRUE(emit_module(seed_module(), {}, EmitKind::Asm, o, s, diag)) << d.str();
  EXPECT_EQ(s.find(".b = vadd("), std::string::npos) << s;
}

// Symbols of an object file as "TYPE NAME" lines, by llvm-nm.
std::string symbols(const std::string& object, const std::string& name) {
  fs::path dir = scratch_dir(name);
  write_file(dir / "k.o", object);
  RunResult r = run(std::string(kLlvmBin) + "/llvm-nm --format=just-symbols --undefined-only " +
                    (dir / "k.o").string() + " && echo --- && " + kLlvmBin +
                    "/llvm-nm --format=just-symbols --defined-only " + (dir / "k.o").string());
  EXPECT_EQ(r.status, 0) << r.out;
  return r.out;
}

TEST(Codegen, SeedHexagonObjectLeavesRuntimeUndefined) {
  std::string obj;
  ASSERT_TRUE(emit(seed_module(), entries_of(seed_module()), EmitKind::Obj, "hexagon-v68", obj));
  ASSERT_GT(obj.size(), 64u);
  EXPECT_EQ(obj.substr(0, 4),
            "\x7f"
            "ELF");
  EXPECT_EQ(static_cast<uint8_t>(obj[4]), 1);     // ELFCLASS32
  EXPECT_EQ(static_cast<uint8_t>(obj[18]), 164);  // EM_HEXAGON
  std::string syms = symbols(obj, "hexagon-obj");
  std::string undefined = syms.substr(0, syms.find("---"));
  std::string defined = syms.substr(syms.find("---"));
  EXPECT_NE(undefined.find("HexagonBackendAllocateVTCM\n"), std::string::npos) << syms;
  EXPECT_NE(undefined.find("HexagonBackendFreeVTCM\n"), std::string::npos) << syms;
  for (const char* s : {"alloc_vtcm\n", "__dspc_packed_alloc_vtcm\n", "__dspc_funcs\n", "__dspc_num_funcs\n"})
    EXPECT_NE(defined.find(s), std::string::npos) << s << syms;
}

TEST(Codegen, HostEmitsX86_64Object) {
  std::string obj;
  ASSERT_TRUE(emit(seed_module(), {}, EmitKind::Obj, "host", obj));
  ASSERT_GT(obj.size(), 64u);
  EXPECT_EQ(static_cast<uint8_t>(obj[4]), 2);    // ELFCLASS64
  EXPECT_EQ(static_cast<uint8_t>(obj[18]), 62);  // EM_X86_64
  std::string ir;
  ASSERT_TRUE(emit(seed_module(), {}, EmitKind::LLVM, "host", ir));
  EXPECT_NE(ir.find("x86_64-unknown-linux-gnu"), std::string::npos);
}

TEST(Codegen, EveryOptLevelGivesValidCode) {
  for (int level = 0; level <= 3; ++level) {
    std::string obj;
    EXPECT_TRUE(
        emit(seed_module(), entries_of(seed_module()), EmitKind::Obj, "hexagon-v68", obj, nullptr, level))
        << level;
    EXPECT_GT(obj.size(), 64u) << level;
  }
}

TEST(Codegen, VtcmAllocateReachingCodegenIsAnInternalError) {
  Buffer A = BufferNode::make("A", DataType::i8(), {16});
  Buffer T = BufferNode::make("T", DataType::i8(), {16}, StorageScope::Vtcm);
  PrimFunc f{"f", {}, {A}, Allocate::make(T, copy_loop(A, T)), {}};
  std::string out, errors;
  EXPECT_FALSE(emit(Module{{f}}, {}, EmitKind::LLVM, "hexagon-v68", out, &errors));
  EXPECT_NE(errors.find("internal error"), std::string::npos) << errors;
  EXPECT_NE(errors.find("local.vtcm"), std::string::npos) << errors;
}

// A runtime allocation with alignment 0 gets the runtime's default: for VTCM the target's
// vtcm_alignment (the runtime is built from the same table); for the workspace, no claim.
TEST(Codegen, DefaultAllocationAlignmentComesFromTheTarget) {
  Buffer A = BufferNode::make("A", DataType::i8(), {16});
  auto allocated = [&](const char* fn, const char* free_fn, StorageScope scope) {
    Buffer T = BufferNode::make("T", DataType::i8(), {16}, scope);
    Expr alloc = Call::make(CallKind::Extern, fn, {make_i32(16), make_i32(0), var_expr(test_ctx())});
    Stmt use = DeclBuffer::make(
        T, Seq::make({copy_loop(T, A), Evaluate::make(Call::make(CallKind::Extern, free_fn,
                                                                 {var_expr(T->data), var_expr(test_ctx())}))}));
    return PrimFunc{
        "f",
        {},
        {A},
        LetStmt::make(T->data, alloc, IfThenElse::make(is_null(T->data), throw_last_error(), use)),
        {},
        test_ctx()};
  };
  CodegenOptions o;
  o.target = target("hexagon-v68");
  o.target.vtcm_alignment = 4096;  // not the table's value, so that the claim's source shows
  o.opt_level = 0;
  std::ostringstream d;
  Diagnostics diag(d);
  std::string ir;
  ASSERT_TRUE(emit_module(Module{{allocated(kAllocateVtcm, kFreeVtcm, StorageScope::Vtcm)}}, {},
                          EmitKind::LLVM, o, ir, diag))
      << d.str();
  EXPECT_NE(ir.find("\"align\"(ptr %T, i32 4096)"), std::string::npos) << ir;
  ir.clear();
  ASSERT_TRUE(emit_module(Module{{allocated(kWorkspaceAlloc, kWorkspaceFree, StorageScope::Global)}}, {},
                          EmitKind::LLVM, o, ir, diag))
      << d.str();
  EXPECT_EQ(ir.find("\"align\"(ptr %T"), std::string::npos) << ir;
}

TEST(Codegen, AllocateOnTheStack) {
  // global: aligned for HVX; local: to its elements.
  Buffer A = BufferNode::make("A", DataType::i16(), {64});
  Buffer G = BufferNode::make("G", DataType::i16(), {64}, StorageScope::Global);
  Buffer L = BufferNode::make("L", DataType::i16(), {64}, StorageScope::Local);
  Stmt body =
      Allocate::make(G, Allocate::make(L, Seq::make({copy_loop(G, A), copy_loop(L, G), copy_loop(A, L)})));
  std::string ir;
  ASSERT_TRUE(
      emit(Module{{PrimFunc{"f", {}, {A}, body, {}}}}, {}, EmitKind::LLVM, "hexagon-v68", ir, nullptr, 0));
  EXPECT_NE(ir.find("%G = alloca [64 x i16], align 128"), std::string::npos) << ir;
  EXPECT_NE(ir.find("%L = alloca [64 x i16], align 2"), std::string::npos) << ir;
}

TEST(Codegen, AlignmentFollowsTheIndex) {
  // C[i*64] is 128-byte aligned (i16), C[i*2+1] only 2-byte; C[0] gets the parameter's 128.
  Buffer C = BufferNode::make("C", DataType::i16(), {4096});
  auto i = VarNode::make("i");
  Expr i64x = Binary::make(BinaryOp::Mul, var_expr(i), make_i32(64));
  Expr odd = Binary::make(BinaryOp::Add, Binary::make(BinaryOp::Mul, var_expr(i), make_i32(2)), make_i32(1));
  Expr v = IntImm::make(DataType::i16(), 7);
  Stmt body = Seq::make({For::make(i, make_i32(0), make_i32(8), ForKind::Serial,
                                   Seq::make({Store::make(C, {i64x}, v), Store::make(C, {odd}, v)})),
                         Store::make(C, {make_i32(0)}, v), Store::make(C, {make_i32(4)}, v)});
  std::string ir;
  ASSERT_TRUE(emit(Module{{PrimFunc{"f", {}, {C}, body, {}}}}, {}, EmitKind::LLVM, "host", ir, nullptr, 0));
  size_t exit = ir.find("i.exit:");
  ASSERT_NE(exit, std::string::npos) << ir;
  size_t c0 = ir.find("store i16 7", exit);
  EXPECT_EQ(ir.find("align 128", c0), ir.find("\n", c0) - 9) << ir;  // C[0]
  size_t c4 = ir.find("store i16 7", c0 + 1);
  EXPECT_EQ(ir.find("align 8", c4), ir.find("\n", c4) - 7) << ir;  // C[4]
  size_t loop = ir.find("i.body:");
  ASSERT_NE(loop, std::string::npos) << ir;
  std::string body_ir = ir.substr(loop);
  size_t first = body_ir.find("store i16 7");
  EXPECT_NE(body_ir.find("align 128", first), std::string::npos) << body_ir;
  EXPECT_NE(body_ir.find("align 2", first), std::string::npos) << body_ir;
}

TEST(Codegen, HeaderHasPrototypesAndShapes) {
  std::string h = emit_c_header(seed_module());
  EXPECT_NE(h.find("#ifndef DSPC_KERNELS_ALLOC_VTCM_H"), std::string::npos) << h;
  EXPECT_NE(h.find("#include <stdint.h>"), std::string::npos) << h;
  EXPECT_NE(h.find("int32_t alloc_vtcm(const int8_t* A, const int8_t* B, int8_t* C, dspc_context* ctx);"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("A: i8[2048] (input)"), std::string::npos) << h;
  EXPECT_NE(h.find("C: i8[2048] (output)"), std::string::npos) << h;
  EXPECT_NE(h.find("128"), std::string::npos) << h;
  // The header is valid C.
  fs::path dir = scratch_dir("header");
  write_file(dir / "k.h", h);
  write_file(dir / "use.c",
             "#include \"k.h\"\n"
             "int32_t (*p)(const int8_t*, const int8_t*, int8_t*, dspc_context*) = alloc_vtcm;\n");
  RunResult r =
      run(std::string(kLlvmBin) + "/clang -std=c11 -Wall -Werror -fsyntax-only " + (dir / "use.c").string());
  EXPECT_EQ(r.status, 0) << r.out;
  // With the runtime's header, in either order: one dspc_context type, complete.
  for (const char* order : {"#include \"k.h\"\n#include \"dspc_runtime.h\"\n",
                            "#include \"dspc_runtime.h\"\n#include \"k.h\"\n"}) {
    write_file(dir / "both.c", std::string(order) +
                                   "int32_t run(const int8_t* a, const int8_t* b, int8_t* c) {\n"
                                   "  dspc_context ctx;\n  dspc_context_init(&ctx);\n"
                                   "  return alloc_vtcm(a, b, c, &ctx);\n}\n");
    r = run(std::string(kLlvmBin) + "/clang -std=c99 -Wall -Werror -pedantic -fsyntax-only -I" DSPC_SOURCE_DIR
            "/runtime-support/device/include " + (dir / "both.c").string());
    EXPECT_EQ(r.status, 0) << r.out;
  }
}

TEST(Codegen, EntriesOfModuleAndProgram) {
  auto e = entries_of(seed_module());
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].name, "alloc_vtcm");
  ASSERT_EQ(e[0].params.size(), 3u);
  EXPECT_EQ(e[0].params[2].name, "C");
  EXPECT_TRUE(e[0].params[2].is_output);
  EXPECT_FALSE(e[0].params[0].is_output);
  EXPECT_EQ(e[0].params[0].shape, std::vector<int64_t>{2048});

  TensorFunc tf;
  tf.name = "dense";
  tf.inputs = {BufferNode::make("A", DataType::u8(), {64, 256})};
  tf.outputs = {BufferNode::make("C", DataType::i32(), {64, 128})};
  auto pe = entries_of(TensorProgram{{tf}});
  ASSERT_EQ(pe.size(), 1u);
  EXPECT_EQ(pe[0].params[0].shape, (std::vector<int64_t>{64, 256}));
  EXPECT_EQ(pe[0].params[1].dtype, DataType::i32());
  EXPECT_TRUE(pe[0].params[1].is_output);
}

TEST(Codegen, LinkWithoutRuntimeIsAClearError) {
  std::ostringstream d;
  Diagnostics diag(d);
  fs::path dir = scratch_dir("no-runtime");
  EXPECT_FALSE(link_executable({(dir / "k.o").string()}, target("hexagon-v68"), (dir / "rt").string(),
                               (dir / "prog").string(), diag));
  EXPECT_NE(d.str().find((dir / "rt" / "hexagon-v68" / "libdspc_rt.a").string()), std::string::npos)
      << d.str();
}

// ---------------------------------------------------------------- semantics, by running the code
//
// A suite is a module of small kernels `for i: C_j[i] = A[i] op B[i]` (or op a constant, a
// cast, a unary op) over edge values, with the outputs compiler/arith/Semantics.h computes. A
// harness (C, compiled for the target) reads every buffer from an arena file, calls each
// kernel through the runner table (__dspc_funcs), prints the table and the statuses, and
// writes the arena back; the test compares the outputs element by element.

struct TestKernel {
  PrimFunc func;
  std::vector<std::vector<Value>> inputs;    // per input buffer
  std::vector<std::vector<Value>> expected;  // per output buffer
};

std::vector<Value> int_values(DataType t) {
  std::vector<int64_t> raw = {0,      1,          2,   3,   7, -1, -2, -7, t.min_int(), t.min_int() + 1,
                              t.bits, t.bits + 1, 100, -100};
  if (t.is_int()) raw.push_back(t.max_int_signed()), raw.push_back(t.max_int_signed() - 1);
  std::vector<Value> out;
  for (int64_t v : raw) {
    int64_t w = wrap_to(t, v);
    bool seen = false;
    for (const Value& o : out) seen |= o.i == w;
    if (!seen) out.push_back(Value::of_int(w));
  }
  return out;
}

std::vector<Value> float_values(DataType t) {
  std::vector<double> raw = {0.0,
                             -0.0,
                             1.0,
                             -1.0,
                             2.5,
                             -2.5,
                             0.5,
                             -7.25,
                             3.0,
                             1e10,
                             -1e10,
                             HUGE_VAL,
                             -HUGE_VAL,
                             NAN,
                             127.5,
                             -128.5,
                             255.9,
                             65536.0,
                             3e9,
                             -3e9,
                             1e19,
                             -1e19,
                             1e300 * (t.bits == 64)};
  std::vector<Value> out;
  for (double v : raw) out.push_back(Value::of_float(round_to_float(t, v)));
  return out;
}

std::vector<Value> values_of(DataType t) {
  if (t.is_bool()) return {Value::of_int(0), Value::of_int(1)};
  return t.is_float() ? float_values(t) : int_values(t);
}

// Loops over the flat buffers, `lanes` elements at a time (vector loads/stores of ramps).
Stmt elementwise(int64_t n, int lanes, const std::function<std::vector<Stmt>(const Expr& index)>& stores) {
  auto i = VarNode::make("i");
  Expr index = var_expr(i);
  if (lanes > 1)
    index = Ramp::make(Binary::make(BinaryOp::Mul, var_expr(i), make_i32(lanes)), make_i32(1), lanes);
  return For::make(i, make_i32(0), make_i32(n / lanes), ForKind::Serial, Seq::make(stores(index)));
}

int64_t round_up(int64_t n, int lanes) {
  return (n + lanes - 1) / lanes * lanes;
}

// C[k] = A[k] op B[k] over all pairs of edge values.
TestKernel binary_kernel(const std::string& name, BinaryOp op, DataType t, int lanes = 1) {
  std::vector<Value> vals = values_of(t), a, b;
  for (const Value& x : vals)
    for (const Value& y : vals) a.push_back(x), b.push_back(y);
  int64_t n = round_up(a.size(), lanes);
  for (size_t k = 0; a.size() < static_cast<size_t>(n); ++k) a.push_back(a[k]), b.push_back(b[k]);
  Buffer A = BufferNode::make("A", t, {n}), B = BufferNode::make("B", t, {n});
  DataType rt = Binary::make(op, make_const(t, 0), make_const(t, 0)).dtype();
  Buffer C = BufferNode::make("C", rt, {n});
  Stmt body = elementwise(n, lanes, [&](const Expr& i) {
    return std::vector<Stmt>{Store::make(C, {i}, Binary::make(op, Load::make(A, {i}), Load::make(B, {i})))};
  });
  TestKernel k{PrimFunc{name, {A, B}, {C}, body, {}}, {a, b}, {{}}};
  for (int64_t j = 0; j < n; ++j) k.expected[0].push_back(eval_binary(op, t, a[j], b[j]));
  return k;
}

// C_j[k] = A[k] op c_j: a constant right operand takes codegen's constant paths.
TestKernel const_kernel(const std::string& name, BinaryOp op, DataType t,
                        const std::vector<int64_t>& consts) {
  std::vector<Value> a = values_of(t);
  int64_t n = a.size();
  Buffer A = BufferNode::make("A", t, {n});
  std::vector<Buffer> outs;
  for (size_t j = 0; j < consts.size(); ++j)
    outs.push_back(BufferNode::make("C" + std::to_string(j), t, {n}));
  Stmt body = elementwise(n, 1, [&](const Expr& i) {
    std::vector<Stmt> st;
    for (size_t j = 0; j < consts.size(); ++j)
      st.push_back(
          Store::make(outs[j], {i}, Binary::make(op, Load::make(A, {i}), IntImm::make(t, consts[j]))));
    return st;
  });
  TestKernel k{PrimFunc{name, {A}, outs, body, {}}, {a}, {}};
  for (int64_t c : consts) {
    k.expected.emplace_back();
    for (const Value& x : a) k.expected.back().push_back(eval_binary(op, t, x, Value::of_int(wrap_to(t, c))));
  }
  return k;
}

TestKernel unary_kernel(const std::string& name, UnaryOp op, DataType t) {
  std::vector<Value> a = values_of(t);
  int64_t n = a.size();
  Buffer A = BufferNode::make("A", t, {n}), C = BufferNode::make("C", t, {n});
  Stmt body = elementwise(n, 1, [&](const Expr& i) {
    return std::vector<Stmt>{Store::make(C, {i}, Unary::make(op, Load::make(A, {i})))};
  });
  TestKernel k{PrimFunc{name, {A}, {C}, body, {}}, {a}, {{}}};
  for (const Value& x : a) k.expected[0].push_back(eval_unary(op, t, x));
  return k;
}

TestKernel cast_kernel(const std::string& name, DataType to, DataType from) {
  std::vector<Value> a = values_of(from);
  int64_t n = a.size();
  Buffer A = BufferNode::make("A", from, {n}), C = BufferNode::make("C", to, {n});
  Stmt body = elementwise(n, 1, [&](const Expr& i) {
    return std::vector<Stmt>{Store::make(C, {i}, Cast::make(to, Load::make(A, {i})))};
  });
  TestKernel k{PrimFunc{name, {A}, {C}, body, {}}, {a}, {{}}};
  for (const Value& x : a) k.expected[0].push_back(eval_cast(to, from, x));
  return k;
}

// C[k] = A[2k]: a strided vector load (gather), plus a broadcast of A[1].
TestKernel gather_kernel(const std::string& name, DataType t, int lanes) {
  std::vector<Value> vals = values_of(t), a;
  int64_t n = round_up(vals.size(), lanes);
  for (int64_t j = 0; j < 2 * n; ++j) a.push_back(vals[j % vals.size()]);
  Buffer A = BufferNode::make("A", t, {2 * n}), C = BufferNode::make("C", t, {n}),
         D = BufferNode::make("D", t, {n});
  auto i = VarNode::make("i");
  Expr base = Binary::make(BinaryOp::Mul, var_expr(i), make_i32(lanes));
  Expr out = Ramp::make(base, make_i32(1), lanes);
  Expr in = Ramp::make(Binary::make(BinaryOp::Mul, base, make_i32(2)), make_i32(2), lanes);
  Expr splat = Broadcast::make(Load::make(A, {make_i32(1)}), lanes);
  Stmt body =
      For::make(i, make_i32(0), make_i32(n / lanes), ForKind::Vectorized,
                Seq::make({Store::make(C, {out}, Load::make(A, {in})),
                           Store::make(D, {out}, Binary::make(BinaryOp::Max, Load::make(A, {out}), splat))}));
  TestKernel k{PrimFunc{name, {A}, {C, D}, body, {}}, {a}, {{}, {}}};
  for (int64_t j = 0; j < n; ++j) {
    k.expected[0].push_back(a[2 * j]);
    k.expected[1].push_back(eval_binary(BinaryOp::Max, t, a[j], a[1]));
  }
  return k;
}

const DataType kInts[] = {DataType::i8(), DataType::i16(), DataType::i32(), DataType::i64(),
                          DataType::u8(), DataType::u16(), DataType::u32(), DataType::u64()};
const DataType kFloats[] = {DataType::f32(), DataType::f64()};

std::string op_name(BinaryOp op) {
  switch (op) {
#define DSPC_N(N, S, P) \
  case BinaryOp::N: return #N;
    DSPC_BINARY_OPS(DSPC_N)
#undef DSPC_N
  }
  return "op";
}

enum class Group { Signed, Unsigned, FloatAndBool, All };

std::vector<TestKernel> semantic_kernels(int vector_bytes, Group group = Group::All, bool with_f16 = false) {
  std::vector<TestKernel> ks;
  const BinaryOp int_ops[] = {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div, BinaryOp::Mod,
                              BinaryOp::Min, BinaryOp::Max, BinaryOp::Shl, BinaryOp::Shr, BinaryOp::BitXor,
                              BinaryOp::LT,  BinaryOp::GE,  BinaryOp::NE};
  for (DataType t : kInts) {
    if (group != Group::All && group != (t.is_int() ? Group::Signed : Group::Unsigned)) continue;
    std::string ts = t.str();
    for (BinaryOp op : int_ops) ks.push_back(binary_kernel(op_name(op) + "_" + ts, op, t));
    // Vector forms of the guarded operations, as wide as the target's vectors.
    int lanes = std::max(4, vector_bytes / t.bytes());
    for (BinaryOp op : {BinaryOp::Div, BinaryOp::Mod, BinaryOp::Shl, BinaryOp::Shr})
      ks.push_back(binary_kernel("vec" + op_name(op) + "_" + ts, op, t, lanes));
    ks.push_back(gather_kernel("gather_" + ts, t, lanes));
    std::vector<int64_t> divisors = {-1, 1, 2, 3, 7, 8, -2, -3, -8, 64, t.min_int(), t.max_int_signed(), 0};
    ks.push_back(const_kernel("cdiv_" + ts, BinaryOp::Div, t, divisors));
    ks.push_back(const_kernel("cmod_" + ts, BinaryOp::Mod, t, divisors));
    std::vector<int64_t> amounts = {0, 1, 3, t.bits - 1, t.bits, t.bits + 1, -1, 200};
    ks.push_back(const_kernel("cshl_" + ts, BinaryOp::Shl, t, amounts));
    ks.push_back(const_kernel("cshr_" + ts, BinaryOp::Shr, t, amounts));
    ks.push_back(unary_kernel("neg_" + ts, UnaryOp::Neg, t));
    ks.push_back(unary_kernel("abs_" + ts, UnaryOp::Abs, t));
    for (DataType to : kInts) ks.push_back(cast_kernel("cast_" + to.str() + "_" + ts, to, t));
    for (DataType to : kFloats) ks.push_back(cast_kernel("cast_" + to.str() + "_" + ts, to, t));
    ks.push_back(cast_kernel("cast_bool_" + ts, DataType::boolean(), t));
    ks.push_back(cast_kernel("cast_" + ts + "_bool", t, DataType::boolean()));
  }
  if (group != Group::All && group != Group::FloatAndBool) return ks;
  const BinaryOp float_ops[] = {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div,
                                BinaryOp::Mod, BinaryOp::Min, BinaryOp::Max, BinaryOp::LT,
                                BinaryOp::LE,  BinaryOp::EQ,  BinaryOp::NE};
  std::vector<DataType> floats(std::begin(kFloats), std::end(kFloats));
  if (with_f16) floats.push_back(DataType::f16());
  for (DataType t : floats) {
    std::string ts = t.str();
    for (BinaryOp op : float_ops) ks.push_back(binary_kernel(op_name(op) + "_" + ts, op, t));
    ks.push_back(unary_kernel("neg_" + ts, UnaryOp::Neg, t));
    ks.push_back(unary_kernel("abs_" + ts, UnaryOp::Abs, t));
    for (DataType to : kInts) ks.push_back(cast_kernel("cast_" + to.str() + "_" + ts, to, t));
    for (DataType to : floats) ks.push_back(cast_kernel("cast_" + to.str() + "_" + ts, to, t));
    ks.push_back(cast_kernel("cast_bool_" + ts, DataType::boolean(), t));
  }
  if (with_f16)
    for (DataType from : kInts) ks.push_back(cast_kernel("cast_f16_" + from.str(), DataType::f16(), from));
  for (BinaryOp op : {BinaryOp::And, BinaryOp::Or, BinaryOp::BitXor, BinaryOp::EQ, BinaryOp::LT})
    ks.push_back(binary_kernel(op_name(op) + "_bool", op, DataType::boolean()));
  ks.push_back(unary_kernel("not_bool", UnaryOp::Not, DataType::boolean()));
  return ks;
}

// Where every buffer of the suite lives in the arena (128-byte aligned), in table order.
struct Layout {
  std::vector<size_t> offsets;
  size_t size = 0;
};

Layout layout_of(const Module& m) {
  Layout l;
  for (const PrimFunc& f : m.funcs) {
    for (const auto* list : {&f.inputs, &f.outputs}) {
      for (const Buffer& b : *list) {
        l.offsets.push_back(l.size);
        l.size += (b->size_bytes() + 127) / 128 * 128;
      }
    }
  }
  return l;
}

const char* kHarness = R"(#include <stdint.h>
#include "dspc_runtime.h"
#ifdef DSPC_HOSTED
#include <fcntl.h>
#include <unistd.h>
static int open_read(const char* p) { return open(p, O_RDONLY); }
static int open_write(const char* p) { return open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644); }
static long rd(int fd, void* b, unsigned long n) { return read(fd, b, n); }
static long wr(int fd, const void* b, unsigned long n) { return write(fd, b, n); }
#define ENTRY int main(int argc, char** argv)
#else
#include "platform.h"
static int open_read(const char* p) { return dspc_platform_open_read(p); }
static int open_write(const char* p) { return dspc_platform_open_write(p); }
static long rd(int fd, void* b, unsigned long n) { return dspc_platform_read(fd, b, n); }
static long wr(int fd, const void* b, unsigned long n) { return dspc_platform_write(fd, b, n); }
#define ENTRY int dspc_main(int argc, char** argv)
#endif
static _Alignas(128) uint8_t arena[ARENA_SIZE];
static const uint32_t offsets[] = {OFFSETS};
static char text[1 << 16];
static unsigned long used;
static void flush(void) { wr(1, text, used); used = 0; }
static void put(const char* s) { while (*s) { if (used == sizeof text) flush(); text[used++] = *s++; } }
static void put_int(int64_t v) {
  char b[24]; int n = 0; uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  do { b[n++] = (char)('0' + u % 10); u /= 10; } while (u);
  if (v < 0) b[n++] = '-';
  char s[26]; int k = 0; s[k++] = ' '; while (n) s[k++] = b[--n]; s[k] = 0; put(s);
}
ENTRY {
  if (argc != 3) return 2;
  int fd = open_read(argv[1]);
  if (fd < 0) return 3;
  for (unsigned long got = 0; got < ARENA_SIZE;) { long r = rd(fd, arena + got, ARENA_SIZE - got); if (r <= 0) return 4; got += r; }
  put("funcs"); put_int(__dspc_num_funcs); put("\n");
  uint32_t k = 0;
  for (uint32_t f = 0; f < __dspc_num_funcs; ++f) {
    const dspc_func_desc* d = &__dspc_funcs[f];
    void* args[64];
    put("func "); put(d->name); put_int(d->num_params); put("\n");
    for (uint32_t p = 0; p < d->num_params; ++p) {
      const dspc_param_desc* q = &d->params[p];
      put("param "); put(q->name); put_int(q->type_code); put_int(q->bits); put_int(q->is_output); put_int(q->ndim);
      for (uint32_t i = 0; i < q->ndim; ++i) put_int(q->shape[i]);
      put("\n");
      args[p] = arena + offsets[k++];
    }
    put("status"); put_int(d->packed(args, 0)); put("\n");  /* NULL: the default context */
  }
  flush();
  fd = open_write(argv[2]);
  if (fd < 0) return 5;
  for (unsigned long done = 0; done < ARENA_SIZE;) { long r = wr(fd, arena + done, ARENA_SIZE - done); if (r <= 0) return 6; done += r; }
  return 0;
}
)";

std::string harness_source(const Layout& l) {
  std::string offs;
  for (size_t o : l.offsets) offs += std::to_string(o) + ",";
  std::string src = kHarness;
  auto replace = [&](const std::string& key, const std::string& v) {
    for (size_t at; (at = src.find(key)) != std::string::npos;) src.replace(at, key.size(), v);
  };
  replace("ARENA_SIZE", std::to_string(l.size) + "ul");
  replace("OFFSETS", offs);
  return src;
}

// How a suite's program is built and run.
enum class Runner { HostedHost, RuntimeHost, RuntimeHexagon };

fs::path runtime_dir() {
  return build_dir() / "runtime-support";
}

bool runtime_available(const char* target_name) {
  return fs::exists(runtime_dir() / target_name / "libdspc_rt.a");
}

// The harness's table dump, for comparison with the entries.
std::string expected_table(const std::vector<EntryInfo>& entries) {
  std::string s = "funcs " + std::to_string(entries.size()) + "\n";
  for (const EntryInfo& e : entries) {
    s += "func " + e.name + " " + std::to_string(e.params.size()) + "\n";
    for (const ParamInfo& p : e.params) {
      int code = p.dtype.is_int() ? 0 : p.dtype.is_uint() ? 1 : p.dtype.is_float() ? 2 : 3;
      s += "param " + p.name + " " + std::to_string(code) + " " +
           std::to_string(p.dtype.is_bool() ? 8 : p.dtype.bits) + " " + std::to_string(p.is_output) + " " +
           std::to_string(p.shape.size());
      for (int64_t d : p.shape) s += " " + std::to_string(d);
      s += "\n";
    }
    s += "status 0\n";
  }
  return s;
}

bool same_value(DataType t, Value want, Value got) {
  if (!t.is_float()) return want.i == got.i;
  if (std::isnan(want.f) || std::isnan(got.f)) return std::isnan(want.f) && std::isnan(got.f);
  return std::memcmp(&want.f, &got.f, sizeof(double)) == 0;  // -0.0 differs from 0.0
}

std::string show(DataType t, Value v) {
  if (t.is_float()) return std::to_string(v.f);
  return t.is_uint() ? std::to_string(v.u()) : std::to_string(v.i);
}

// Compiles `kernels` for `target_name`, runs them through the harness, compares everything.
void check_kernels(const std::vector<TestKernel>& kernels, const char* target_name, Runner runner,
                   int opt_level, const std::string& name) {
  Module m;
  for (const TestKernel& k : kernels) m.funcs.push_back(k.func);
  std::vector<EntryInfo> entries = entries_of(m);
  std::string obj;
  ASSERT_TRUE(emit(m, entries, EmitKind::Obj, target_name, obj, nullptr, opt_level));
  fs::path dir = scratch_dir(name);
  write_file(dir / "kernels.o", obj);
  Layout layout = layout_of(m);
  write_file(dir / "harness.c", harness_source(layout));
  std::string arena(layout.size, '\0');
  size_t slot = 0;
  for (const TestKernel& k : kernels) {
    for (size_t j = 0; j < k.func.inputs.size(); ++j, ++slot)
      for (size_t e = 0; e < k.inputs[j].size(); ++e)
        store_value(
            k.func.inputs[j]->dtype, k.inputs[j][e],
            reinterpret_cast<uint8_t*>(&arena[layout.offsets[slot] + e * k.func.inputs[j]->dtype.bytes()]));
    slot += k.func.outputs.size();
  }
  write_file(dir / "in.bin", arena);

  std::string clang = std::string(kLlvmBin) + "/clang";
  std::string includes =
      " -I" DSPC_SOURCE_DIR "/runtime-support/device/include -I" DSPC_SOURCE_DIR "/runtime-support/device ";
  fs::path prog = dir / "prog";
  std::string cmd_prefix;
  if (runner == Runner::HostedHost) {
    RunResult r = run(clang + " -O1 -no-pie -DDSPC_HOSTED" + includes + (dir / "harness.c").string() + " " +
                      (dir / "kernels.o").string() + " -lm -o " + prog.string());
    ASSERT_EQ(r.status, 0) << r.out;
  } else {
    bool hex = runner == Runner::RuntimeHexagon;
    std::string flags = hex ? " --target=hexagon-unknown-linux-musl -mcpu=hexagonv68 -G0"
                            : " --target=x86_64-unknown-linux-gnu";
    RunResult r = run(clang + flags + " -O1 -ffreestanding -fno-builtin -c" + includes +
                      (dir / "harness.c").string() + " -o " + (dir / "harness.o").string());
    ASSERT_EQ(r.status, 0) << r.out;
    std::ostringstream d;
    Diagnostics diag(d);
    ASSERT_TRUE(link_executable({(dir / "kernels.o").string(), (dir / "harness.o").string()},
                                target(target_name), runtime_dir().string(), prog.string(), diag))
        << d.str();
    if (hex) cmd_prefix = kQemuLauncher;
  }
  RunResult r =
      run(cmd_prefix + prog.string() + " " + (dir / "in.bin").string() + " " + (dir / "out.bin").string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, expected_table(entries));

  std::ifstream f(dir / "out.bin", std::ios::binary);
  std::string out((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_EQ(out.size(), layout.size);
  int failures = 0, checked = 0;
  slot = 0;
  for (const TestKernel& k : kernels) {
    slot += k.func.inputs.size();
    for (size_t j = 0; j < k.func.outputs.size(); ++j, ++slot) {
      DataType t = k.func.outputs[j]->dtype;
      for (size_t e = 0; e < k.expected[j].size(); ++e, ++checked) {
        Value got =
            load_value(t, reinterpret_cast<const uint8_t*>(&out[layout.offsets[slot] + e * t.bytes()]));
        if (same_value(t, k.expected[j][e], got)) continue;
        if (++failures > 40) continue;
        std::string operands;
        for (size_t in = 0; in < k.inputs.size(); ++in)
          operands += " " + show(k.func.inputs[in]->dtype, k.inputs[in][e % k.inputs[in].size()]);
        ADD_FAILURE() << k.func.name << " " << k.func.outputs[j]->name << "[" << e << "] inputs" << operands
                      << ": want " << show(t, k.expected[j][e]) << ", got " << show(t, got);
      }
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(checked, 10000);
}

TEST(CodegenRun, HostSemanticsO2) {
  check_kernels(semantic_kernels(16), "host", Runner::HostedHost, 2, "host-o2");
}

TEST(CodegenRun, HostSemanticsO0) {
  check_kernels(semantic_kernels(16), "host", Runner::HostedHost, 0, "host-o0");
}

TEST(CodegenRun, HostSemanticsWithRuntime) {
  if (!runtime_available("host")) FAIL() << "runtime-support (a build dependency of this test) is missing for host not built at " << runtime_dir();
  check_kernels(semantic_kernels(16), "host", Runner::RuntimeHost, 2, "host-rt");
}

// Split so that each test compiles in well under a minute (HVX vectorisation of the guarded
// divisions dominates).
TEST(CodegenRun, HexagonSemanticsSigned) {
  if (!runtime_available("hexagon-v68"))
    FAIL() << "runtime-support (a build dependency of this test) is missing for hexagon-v68 not built at " << runtime_dir();
  check_kernels(semantic_kernels(128, Group::Signed), "hexagon-v68", Runner::RuntimeHexagon, 2,
                "hexagon-signed");
}

TEST(CodegenRun, HexagonSemanticsUnsigned) {
  if (!runtime_available("hexagon-v68"))
    FAIL() << "runtime-support (a build dependency of this test) is missing for hexagon-v68 not built at " << runtime_dir();
  check_kernels(semantic_kernels(128, Group::Unsigned), "hexagon-v68", Runner::RuntimeHexagon, 2,
                "hexagon-unsigned");
}

TEST(CodegenRun, HexagonSemanticsFloatAndBool) {
  if (!runtime_available("hexagon-v68"))
    FAIL() << "runtime-support (a build dependency of this test) is missing for hexagon-v68 not built at " << runtime_dir();
  check_kernels(semantic_kernels(128, Group::FloatAndBool, true), "hexagon-v68", Runner::RuntimeHexagon, 2,
                "hexagon-float");
}

// lld, run in the process, resets every LLVM option to its default as it parses its own
// (cl::ResetAllOptionOccurrences); dspc's (configure_llvm_options: no small data, no
// duplexes, ...) hold for the compilations after a link too. With the small-data default back,
// the i64 division's constants went to .sdata (CONST64), which lld cannot relocate for Hexagon.
TEST(Codegen, AnInProcessLinkKeepsDspcsLlvmOptions) {
  const char* source =
      "func k(A: i64[64]) -> (B: i64[64]) {\n"
      "  B[i] = A[i] / 7 + 81985529216486895\n"
      "}\n";
  auto compile = [&](std::string& out) {
    std::ostringstream d;
    Diagnostics diag(d);
    LowerOptions lo;
    lo.target = target("hexagon-v68");
    auto c = compile_source(SourceFile{"k64.dsp", source}, lo, diag);
    CodegenOptions o;
    o.target = lo.target;
    return c && emit_module(c->module, {}, EmitKind::Asm, o, out, diag);
  };
  std::string before, after;
  ASSERT_TRUE(compile(before));
  // CONST64 loads a constant from small data (.sdata, GP-relative).
  EXPECT_EQ(before.find("CONST64"), std::string::npos);
  if (!runtime_available("host")) FAIL() << "runtime-support for host is missing at " << runtime_dir();
  std::string obj;
  ASSERT_TRUE(emit(seed_module(), entries_of(seed_module()), EmitKind::Obj, "host", obj));
  fs::path dir = scratch_dir("link-keeps-options");
  write_file(dir / "k.o", obj);
  std::ostringstream d;
  Diagnostics diag(d);
  ASSERT_TRUE(link_executable({(dir / "k.o").string()}, target("host"), runtime_dir().string(),
                              (dir / "prog").string(), diag))
      << d.str();
  ASSERT_TRUE(compile(after));
  EXPECT_EQ(after.find("CONST64"), std::string::npos);
  EXPECT_TRUE(after == before) << "the same module compiles to other code after a link";
}

// ---------------------------------------------------------------- the seed with the real runner

// Links the seed kernel with runtime-support's runner and runs it on .npy files.
void run_seed(const char* target_name, const std::string& name) {
  if (!runtime_available(target_name))
    FAIL() << "runtime-support (a build dependency of this test) is missing for " << target_name << " not built at " << runtime_dir();
  std::string obj;
  ASSERT_TRUE(emit(seed_module(), entries_of(seed_module()), EmitKind::Obj, target_name, obj));
  fs::path dir = scratch_dir(name);
  write_file(dir / "k.o", obj);
  std::ostringstream d;
  Diagnostics diag(d);
  ASSERT_TRUE(link_executable({(dir / "k.o").string()}, target(target_name), runtime_dir().string(),
                              (dir / "prog").string(), diag))
      << d.str();
  Tensor a = random_tensor(DataType::i8(), {2048}, 1), b = random_tensor(DataType::i8(), {2048}, 2);
  std::string error;
  ASSERT_TRUE(write_npy((dir / "A.npy").string(), a, error)) << error;
  ASSERT_TRUE(write_npy((dir / "B.npy").string(), b, error)) << error;
  std::string launcher = target(target_name).arch == Arch::hexagon ? kQemuLauncher : "";
  std::string args =
      " A=" + (dir / "A.npy").string() + " B=" + (dir / "B.npy").string() + " C=" + (dir / "C.npy").string();
  RunResult r = run(launcher + (dir / "prog").string() + args);
  ASSERT_EQ(r.status, 0) << r.out;
  Tensor c;
  ASSERT_TRUE(read_npy((dir / "C.npy").string(), c, error)) << error;
  ASSERT_EQ(c.data.size(), 2048u);
  for (size_t i = 0; i < 2048; ++i)
    ASSERT_EQ(static_cast<int8_t>(c.data[i]), static_cast<int8_t>(a.data[i] + b.data[i])) << i;

  // With room for one buffer only, the second allocation fails: the kernel frees the first,
  // returns non-zero, and the runner reports the runtime's message.
  r = run(launcher + (dir / "prog").string() + " --vtcm-capacity=3072" + args);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("VTCM allocation of 2048 bytes failed"), std::string::npos) << r.out;
}

TEST(CodegenRun, SeedOnHexagonWithRunner) {
  run_seed("hexagon-v68", "seed-hexagon");
}

TEST(CodegenRun, SeedOnHostWithRunner) {
  run_seed("host", "seed-host");
}

TEST(Codegen, LinkReportsUndefinedSymbols) {
  // A runtime archive without the VTCM pool: lld's error comes back through Diagnostics.
  fs::path dir = scratch_dir("undefined");
  fs::create_directories(dir / "rt" / "hexagon-v68");
  write_file(dir / "start.c",
             "int alloc_vtcm(void*, void*, void*);\nvoid _start(void) { alloc_vtcm(0, 0, 0); }\n");
  RunResult r = run(std::string(kLlvmBin) + "/clang --target=hexagon-unknown-linux-musl -c " +
                    (dir / "start.c").string() + " -o " + (dir / "start.o").string() + " && " + kLlvmBin +
                    "/llvm-ar rcs " + (dir / "rt" / "hexagon-v68" / "libdspc_rt.a").string() + " " +
                    (dir / "start.o").string());
  ASSERT_EQ(r.status, 0) << r.out;
  std::string obj;
  ASSERT_TRUE(emit(seed_module(), {}, EmitKind::Obj, "hexagon-v68", obj));
  write_file(dir / "k.o", obj);
  std::ostringstream d;
  Diagnostics diag(d);
  EXPECT_FALSE(link_executable({(dir / "k.o").string()}, target("hexagon-v68"), (dir / "rt").string(),
                               (dir / "prog").string(), diag));
  EXPECT_NE(d.str().find("error: link: undefined symbol: HexagonBackendAllocateVTCM"), std::string::npos)
      << d.str();
  EXPECT_NE(d.str().find(">>> referenced by"), std::string::npos) << d.str();
  // lld can link again in the same process afterwards.
  EXPECT_FALSE(link_executable({(dir / "k.o").string()}, target("hexagon-v68"), (dir / "rt").string(),
                               (dir / "prog").string(), diag));
}

}  // namespace
}  // namespace dspc
