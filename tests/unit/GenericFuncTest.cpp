// Generic funcs through the C++ API (README "Generic funcs"): compile_source instantiates
// the funcs it is asked for, under their mangled names; parse_func_instance reads the
// command line's form.
#include <gtest/gtest.h>

#include <sstream>

#include "compiler/frontend/Parser.h"
#include "driver/Compile.h"

namespace dspc {
namespace {

const char* kSource =
    "func add<N>(A: u8[N], B: u8[N]) -> (C: u8[N]) {\n"
    "  C[i] = A[i] + B[i]\n"
    "  schedule {\n"
    "    if (N >= 128) { C.vectorize(i, 128) }\n"
    "  }\n"
    "}\n"
    "func plain(A: u8[4]) -> (B: u8[4]) {\n"
    "  B[i] = A[i]\n"
    "}\n";

std::vector<std::string> names(const Compilation& c) {
  std::vector<std::string> out;
  for (const TensorFunc& f : c.program->funcs) out.push_back(f.name);
  return out;
}

TEST(GenericFunc, CompileSourceInstantiatesUnderMangledNames) {
  SourceFile src{"add.dsp", kSource};
  std::ostringstream err;
  Diagnostics diag(err);
  auto c = compile_source(src, LowerOptions{}, diag, {{"add", {300}}, {"add", {3}}, {"add", {300}}});
  ASSERT_TRUE(c) << err.str();
  EXPECT_EQ(names(*c), (std::vector<std::string>{"plain", "add_300", "add_3"}));
  ASSERT_EQ(c->program->generics.size(), 1u);
  EXPECT_EQ(c->program->generics[0].name, "add");
  EXPECT_EQ(c->program->generics[0].params, std::vector<std::string>{"N"});
  EXPECT_EQ(c->program->funcs[1].outputs[0]->shape, std::vector<int64_t>{300});
  EXPECT_EQ(c->program->funcs[2].inputs[1]->shape, std::vector<int64_t>{3});
}

TEST(GenericFunc, CompileSourceWithoutInstancesCompilesThePlainFuncs) {
  SourceFile src{"add.dsp", kSource};
  std::ostringstream err;
  Diagnostics diag(err);
  auto c = compile_source(src, LowerOptions{}, diag);
  ASSERT_TRUE(c) << err.str();
  EXPECT_EQ(names(*c), std::vector<std::string>{"plain"});
}

TEST(GenericFunc, BadInstancesAreLocatedErrors) {
  SourceFile src{"add.dsp", kSource};
  for (const FuncInstance& fi : std::vector<FuncInstance>{{"add", {1, 2}}, {"plain", {4}}, {"nope", {4}}}) {
    std::ostringstream err;
    Diagnostics diag(err);
    EXPECT_FALSE(compile_source(src, LowerOptions{}, diag, {fi}));
    EXPECT_NE(err.str().find("add.dsp"), std::string::npos) << err.str();
  }
}

// An extent 0 is a tensor without elements: add<0> compiles, to a function without loops.
TEST(GenericFunc, ZeroExtentInstanceCompiles) {
  SourceFile src{"add.dsp", kSource};
  std::ostringstream err;
  Diagnostics diag(err);
  auto c = compile_source(src, LowerOptions{}, diag, {{"add", {0}}});
  ASSERT_TRUE(c) << err.str();
  EXPECT_EQ(names(*c), (std::vector<std::string>{"plain", "add_0"}));
  EXPECT_EQ(c->program->funcs[1].outputs[0]->shape, std::vector<int64_t>{0});
}

TEST(GenericFunc, MangledNameAndParse) {
  EXPECT_EQ(mangled_name({"conv2d", {56, 56, 64, 64}}), "conv2d_56_56_64_64");
  FuncInstance fi;
  std::string why;
  ASSERT_TRUE(parse_func_instance("conv2d< 56,56 ,64,64>", fi, why)) << why;
  EXPECT_EQ(fi.name, "conv2d");
  EXPECT_EQ(fi.args, (std::vector<int64_t>{56, 56, 64, 64}));
  for (const char* bad : {"f<-1>", "f<x>", "f<>", "f<1,>", "f<4", "<4>", "f<2147483648>", "1f<2>"})
    EXPECT_FALSE(parse_func_instance(bad, fi, why)) << bad;
  ASSERT_TRUE(parse_func_instance("f<2147483647>", fi, why)) << why;
  // 0 is an argument (a padding of 0, say, or an extent 0: a tensor without elements).
  ASSERT_TRUE(parse_func_instance("pad<0, 7>", fi, why)) << why;
  EXPECT_EQ(mangled_name(fi), "pad_0_7");
}

// Schedule `if` blocks nest like expressions: deep nesting and long `else if` chains are an
// error, never a stack overflow (the declaration and the instantiation both check).
TEST(GenericFunc, DeeplyNestedScheduleIfsAreAnError) {
  std::string nested = "func f<N>(A: u8[N]) -> (B: u8[N]) {\n B[i] = A[i]\n schedule {\n";
  for (int i = 0; i < 20000; ++i) nested += "if (N > 1) {";
  nested += std::string(20000, '}') + "\n}\n}\n";
  std::string chain = "func f<N>(A: u8[N]) -> (B: u8[N]) {\n B[i] = A[i]\n schedule {\n if (N > 1) {}";
  for (int i = 0; i < 20000; ++i) chain += " else if (N > 2) {}";
  chain += "\n}\n}\n";
  for (const std::string& text : {nested, chain}) {
    SourceFile src{"deep.dsp", text};
    std::ostringstream err;
    Diagnostics diag(err);
    EXPECT_FALSE(parse_dsp(src, diag, {{"f", {4}}}));
    EXPECT_NE(err.str().find("schedule 'if' blocks are nested too deeply"), std::string::npos)
        << err.str().substr(0, 300);
  }
}

}  // namespace
}  // namespace dspc
