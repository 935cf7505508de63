// The .dsp frontend: the examples of docs/language.md, the typing rules, every diagnostic with its
// location, and robustness against malformed input.
#include <gtest/gtest.h>

#include <new>
#include <random>
#include <sstream>

#include "compiler/ir/IRVisitor.h"
#include "compiler/frontend/Parser.h"
#include "compiler/frontend/ParserCommon.h"
#include "compiler/ir/LoopSchedule.h"
#include "compiler/ir/Printer.h"

namespace dspc {
namespace {

struct Parsed {
  std::optional<TensorProgram> program;
  std::string errors;
};

Parsed parse(const std::string& text) {
  SourceFile src{"test.dsp", text};
  std::ostringstream out;
  Diagnostics diag(out, &src);
  Parsed p;
  p.program = parse_dsp(src, diag);
  p.errors = out.str();
  EXPECT_EQ(p.program.has_value(), !diag.has_errors()) << p.errors;
  return p;
}

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t pos = s.find(what); pos != std::string::npos; pos = s.find(what, pos + 1)) ++n;
  return n;
}

// Parses a program and returns its only function.
TensorFunc parse_one(const std::string& text) {
  Parsed p = parse(text);
  EXPECT_TRUE(p.program.has_value()) << p.errors;
  if (!p.program || p.program->funcs.size() != 1) return {};
  return p.program->funcs[0];
}

// The body of the last stage of `func f(A: DT[16], ...) -> (...)` style programs.
Expr body_of(const std::string& text, size_t stage = 0) {
  TensorFunc f = parse_one(text);
  if (f.stages.size() <= stage) return Expr();
  return f.stages[stage].body;
}

struct Collect : IRVisitor {
  std::vector<const Load*> loads;
  std::vector<const Reduce*> reduces;
  void visit_Load(const Load* op) override {
    loads.push_back(op);
    IRVisitor::visit_Load(op);
  }
  void visit_Reduce(const Reduce* op) override {
    reduces.push_back(op);
    IRVisitor::visit_Reduce(op);
  }
};

const char* kAllocVtcm = R"(# Elementwise add with both operands staged in VTCM.
func alloc_vtcm(A: i8[2048], B: i8[2048]) -> (C: i8[2048]) {
  A_buf[i: 2048] = A[i]
  B_buf[i: 2048] = B[i]
  C[i] = A_buf[i] + B_buf[i]
  schedule {
    A_buf.set_scope("local.vtcm")
    B_buf.set_scope("local.vtcm")
  }
}
)";

const char* kDense = R"(# Reduction: reduction variables and their extents follow the body.
func dense(A: u8[64, 256], B: u8[256, 128]) -> (C: i32[64, 128]) {
  C[m, n] = sum(i32(A[m, k]) * i32(B[k, n]), k: 256)
}
)";

const char* kConv = R"(# Clamped neighbourhood access, casts, shifts, clamp.
func conv3x3(I: u8[256, 1024], K: i8[3, 3]) -> (O: u8[256, 1024]) {
  O[y, x] = u8(clamp(sum(i16(I[clamp(y + r - 1, 0, 255), clamp(x + s - 1, 0, 1023)]) * i16(K[r, s]), r: 3, s: 3) >> 4, 0, 255))
}
)";

// ---------------------------------------------------------------- docs/language.md examples

TEST(DspParser, AllocVtcmExample) {
  TensorFunc f = parse_one(kAllocVtcm);
  EXPECT_EQ(f.name, "alloc_vtcm");
  ASSERT_EQ(f.inputs.size(), 2u);
  ASSERT_EQ(f.outputs.size(), 1u);
  ASSERT_EQ(f.stages.size(), 3u);
  EXPECT_EQ(f.inputs[0]->name, "A");
  EXPECT_EQ(f.inputs[0]->dtype, DataType::i8());
  EXPECT_EQ(f.inputs[0]->shape, std::vector<int64_t>{2048});
  EXPECT_EQ(f.inputs[0]->scope, StorageScope::Global);
  const Stage& a_buf = f.stages[0];
  EXPECT_EQ(a_buf.out->name, "A_buf");
  EXPECT_EQ(a_buf.out->scope, StorageScope::Vtcm);
  EXPECT_EQ(a_buf.out->dtype, DataType::i8());
  EXPECT_EQ(a_buf.out->shape, std::vector<int64_t>{2048});
  EXPECT_FALSE(a_buf.is_result);
  EXPECT_EQ(a_buf.span.line, 3u);
  EXPECT_EQ(a_buf.span.col, 3u);
  ASSERT_EQ(a_buf.index_vars.size(), 1u);
  EXPECT_EQ(a_buf.index_vars[0]->dtype, DataType::i32());
  // The read of A uses the parameter's Buffer object and the stage's own index variable.
  const Load* la = a_buf.body.as<Load>();
  ASSERT_NE(la, nullptr);
  EXPECT_EQ(la->buffer, f.inputs[0]);
  EXPECT_EQ(la->indices[0].get(), static_cast<const ExprNode*>(a_buf.index_vars[0].get()));
  EXPECT_EQ(f.stages[1].out->scope, StorageScope::Vtcm);
  // The result stage writes the very Buffer of the signature and reads the earlier stages'.
  const Stage& c = f.stages[2];
  EXPECT_TRUE(c.is_result);
  EXPECT_EQ(c.out, f.outputs[0]);
  EXPECT_NE(c.index_vars[0], a_buf.index_vars[0]);  // fresh per stage
  const Binary* add = c.body.as<Binary>();
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->op, BinaryOp::Add);
  EXPECT_EQ(add->dtype, DataType::i8());
  EXPECT_EQ(add->a.as<Load>()->buffer, a_buf.out);
  EXPECT_EQ(add->b.as<Load>()->buffer, f.stages[1].out);
  EXPECT_EQ(add->span.line, 5u);
  EXPECT_EQ(add->span.col, 19u);
}

TEST(DspParser, DenseExample) {
  TensorFunc f = parse_one(kDense);
  ASSERT_EQ(f.stages.size(), 1u);
  EXPECT_EQ(f.outputs[0]->dtype, DataType::i32());
  EXPECT_EQ(f.outputs[0]->shape, (std::vector<int64_t>{64, 128}));
  const Reduce* r = f.stages[0].body.as<Reduce>();
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->op, ReduceOp::Sum);
  EXPECT_EQ(r->dtype, DataType::i32());
  ASSERT_EQ(r->axes.size(), 1u);
  EXPECT_EQ(r->axes[0].var->name, "k");
  EXPECT_EQ(r->axes[0].var->dtype, DataType::i32());
  EXPECT_EQ(r->axes[0].extent, 256);
  Collect c;
  c.visit(f.stages[0].body);
  ASSERT_EQ(c.loads.size(), 2u);
  // Both reads index with the reduction's own variable k.
  EXPECT_EQ(c.loads[0]->indices[1].get(), static_cast<const ExprNode*>(r->axes[0].var.get()));
  EXPECT_EQ(c.loads[1]->indices[0].get(), static_cast<const ExprNode*>(r->axes[0].var.get()));
}

TEST(DspParser, Conv3x3Example) {
  TensorFunc f = parse_one(kConv);
  ASSERT_EQ(f.stages.size(), 1u);
  const Expr& body = f.stages[0].body;
  ASSERT_NE(body.as<Cast>(), nullptr);
  EXPECT_EQ(body.dtype(), DataType::u8());
  Collect c;
  c.visit(body);
  ASSERT_EQ(c.reduces.size(), 1u);
  EXPECT_EQ(c.reduces[0]->dtype, DataType::i16());
  EXPECT_EQ(c.reduces[0]->axes.size(), 2u);
  EXPECT_EQ(c.loads.size(), 2u);
  // clamp(x, lo, hi) is min(max(x, lo), hi), with the bounds in x's dtype.
  std::string printed = print_expr(body);
  EXPECT_NE(printed.find("min(max(y + r - 1, 0), 255)"), std::string::npos) << printed;
  EXPECT_NE(printed.find(">> 4i16, 0i16), 255i16)"), std::string::npos) << printed;
}

TEST(DspParser, AllExamplesInOneFile) {
  Parsed p = parse(std::string(kAllocVtcm) + kDense + kConv);
  ASSERT_TRUE(p.program.has_value()) << p.errors;
  ASSERT_EQ(p.program->funcs.size(), 3u);
  EXPECT_EQ(p.program->funcs[2].name, "conv3x3");
  EXPECT_EQ(p.errors, "");
}

TEST(DspParser, SemicolonsScopesAndAliases) {
  TensorFunc f = parse_one(
      "func f(A: f32[4, 8]) -> (C: f32[4, 8]) { T[i: 4, j: 8] = A[i, j] * 2.0; U[i: 4, j: 8] = T[i, j]; "
      "C[i: 4, j: 8] = U[i, j] schedule { T.set_scope(\"global.vtcm\"); U.set_scope(\"global\") } }");
  ASSERT_EQ(f.stages.size(), 3u);
  EXPECT_EQ(f.stages[0].out->scope, StorageScope::Vtcm);
  EXPECT_EQ(f.stages[1].out->scope, StorageScope::Global);
  EXPECT_EQ(f.stages[0].out->shape, (std::vector<int64_t>{4, 8}));
  EXPECT_TRUE(f.stages[2].is_result);  // extents equal to the signature are allowed
}

// Every primitive is kept on its stage, in source order, with its arguments normalised by
// kind and each argument's location; chained calls are separate primitives.
TEST(DspParser, ScheduleIsDataOnEachStageInSourceOrder) {
  TensorFunc f = parse_one(
      "func f(A: u8[64, 300]) -> (C: u8[64, 300]) {\n"
      "  T[y: 64, x: 300] = A[y, x]\n"
      "  P[y: 64, x: 300] = T[y, x] + 1\n"
      "  C[y, x] = P[y, x]\n"
      "  schedule {\n"
      "    T.set_scope(\"local.vtcm\").split(x, xo, xi, 128).vectorize(xi)\n"
      "    C.tile(x, y, xo, yo, xi, yi, 32, 8).reorder(yi, xi)\n"
      "    T.unroll(y, 4)\n"
      "    P.compute_inline()\n"
      "  }\n"
      "}\n");
  ASSERT_EQ(f.stages.size(), 3u);
  const auto& t = f.stages[0].schedule;
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].kind, ScheduleKind::SetScope);
  EXPECT_EQ(t[0].scope, StorageScope::Vtcm);
  EXPECT_EQ(t[1].kind, ScheduleKind::Split);
  EXPECT_EQ(t[1].stage, "T");
  EXPECT_EQ(t[1].vars, (std::vector<std::string>{"x"}));
  EXPECT_EQ(t[1].new_names, (std::vector<std::string>{"xo", "xi"}));
  EXPECT_EQ(t[1].factors, (std::vector<int64_t>{128}));
  EXPECT_EQ(t[1].span.line, 6u);
  EXPECT_EQ(t[1].span.col, 31u);
  EXPECT_EQ(t[1].factor_spans[0].col, 48u);
  EXPECT_EQ(t[2].kind, ScheduleKind::Vectorize);
  EXPECT_EQ(t[2].vars, (std::vector<std::string>{"xi"}));
  EXPECT_TRUE(t[2].new_names.empty());
  EXPECT_EQ(t[3].kind, ScheduleKind::Unroll);
  EXPECT_EQ(t[3].new_names, (std::vector<std::string>{"y_u"}));
  EXPECT_EQ(t[3].factors, (std::vector<int64_t>{4}));
  ASSERT_EQ(f.stages[1].schedule.size(), 1u);
  EXPECT_EQ(f.stages[1].schedule[0].kind, ScheduleKind::ComputeInline);
  EXPECT_TRUE(f.stages[1].is_inlined());
  const auto& c = f.stages[2].schedule;
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].kind, ScheduleKind::Tile);
  EXPECT_EQ(c[0].vars, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(c[0].new_names, (std::vector<std::string>{"xo", "yo", "xi", "yi"}));
  EXPECT_EQ(c[0].factors, (std::vector<int64_t>{32, 8}));
  EXPECT_EQ(c[1].kind, ScheduleKind::Reorder);
  EXPECT_EQ(c[1].vars, (std::vector<std::string>{"yi", "xi"}));
}

// The loops a schedule gives, innermost first, with the split records that define them.
TEST(DspParser, LoopScheduleFollowsHalide) {
  TensorFunc f = parse_one(
      "func f(A: u8[64, 300]) -> (C: u8[64, 300]) {\n"
      "  C[y, x] = A[y, x]\n"
      "  schedule { C.tile(x, y, xo, yo, xi, yi, 32, 8).reorder(yi, xi).vectorize(yi, 4) }\n"
      "}\n");
  LoopSchedule s = loop_schedule_of(f.stages[0]);
  std::string dims;
  for (const auto& d : s.dims()) dims += d.name + ":" + for_kind_name(d.kind) + " ";
  EXPECT_EQ(dims, "yi_v:vectorized yi:range xi:range xo:range yo:range ");
  ASSERT_EQ(s.splits().size(), 3u);
  EXPECT_EQ(s.splits()[2].old_var, "yi");
  EXPECT_EQ(s.splits()[2].outer, "yi");
  EXPECT_EQ(s.splits()[2].inner, "yi_v");
  EXPECT_EQ(s.splits()[2].factor, 4);
}

// ---------------------------------------------------------------- typing

std::string body_text(const std::string& sig, const std::string& body) {
  Expr e = body_of("func f(" + sig + ") -> (R: i32[16]) { T[i: 16] = " + body + "\n R[i] = 0 }");
  return e ? print_expr(e) + " : " + e.dtype().str() : "<error>";
}

TEST(DspParser, LiteralTakesTheOtherOperandsDtype) {
  EXPECT_EQ(body_text("A: i8[16]", "A[i] + 1"), "A[i] + 1i8 : i8");
  EXPECT_EQ(body_text("A: i8[16]", "1 - A[i]"), "1i8 - A[i] : i8");
  EXPECT_EQ(body_text("A: i8[16]", "A[i] + -128"), "A[i] + -128i8 : i8");
  EXPECT_EQ(body_text("A: u16[16]", "A[i] << 3"), "A[i] << 3u16 : u16");
  EXPECT_EQ(body_text("A: f32[16]", "A[i] * 2"), "A[i] * 2.0f32 : f32");  // an int literal may become a float
  EXPECT_EQ(body_text("A: f64[16]", "A[i] + 0.5"), "A[i] + 0.5f64 : f64");
  EXPECT_EQ(body_text("A: u8[16]", "A[i] < 7"), "A[i] < 7u8 : bool");
  EXPECT_EQ(body_text("A: i16[16]", "min(A[i], 3)"), "min(A[i], 3i16) : i16");
  EXPECT_EQ(body_text("A: i16[16]", "max(4, A[i])"), "max(4i16, A[i]) : i16");
  EXPECT_EQ(body_text("A: i16[16]", "clamp(A[i], 0, 255)"), "min(max(A[i], 0i16), 255i16) : i16");
  EXPECT_EQ(body_text("A: i8[16]", "select(A[i] > 0, A[i], 0)"), "select(A[i] > 0i8, A[i], 0i8) : i8");
  EXPECT_EQ(body_text("A: i8[16]", "abs(A[i]) + -(5)"), "abs(A[i]) + -5i8 : i8");
  EXPECT_EQ(body_text("A: i8[16]", "-A[i]"), "-A[i] : i8");
  EXPECT_EQ(body_text("A: i8[16]", "~A[i] & 15"), "~A[i] & 15i8 : i8");
}

TEST(DspParser, LoneLiterals) {
  EXPECT_EQ(body_text("A: i8[16]", "7"), "7 : i32");
  EXPECT_EQ(body_text("A: i8[16]", "1.5"), "1.5f32 : f32");
  EXPECT_EQ(body_text("A: i8[16]", "2 + 3"), "2 + 3 : i32");
  EXPECT_EQ(body_text("A: i8[16]", "true"), "true : bool");
  EXPECT_EQ(body_text("A: i8[16]", "i + 1"), "i + 1 : i32");
  // A cast of a literal the dtype can hold is a literal of that dtype.
  EXPECT_EQ(body_text("A: i8[16]", "u8(200)"), "200u8 : u8");
  EXPECT_EQ(body_text("A: i8[16]", "f64(0.1)"), "0.10000000000000001f64 : f64");
  // Any other literal is read at 64 bits and converted like a value (wrapping, saturating).
  EXPECT_EQ(body_text("A: i8[16]", "i32(1.5)"), "i32(1.5f64) : i32");
  EXPECT_EQ(body_text("A: i8[16]", "u8(-1)"), "u8(-1i64) : u8");
  EXPECT_EQ(body_text("A: i8[16]", "i8(300)"), "i8(300i64) : i8");
  EXPECT_EQ(body_text("A: i8[16]", "i64(18446744073709551615)"), "i64(18446744073709551615u64) : i64");
  // A lone literal as a result body takes the result's dtype.
  TensorFunc f = parse_one("func f() -> (C: u8[4], D: f64[4]) { C[i] = 255\n D[i] = 1 }");
  ASSERT_EQ(f.stages.size(), 2u);
  EXPECT_EQ(print_expr(f.stages[0].body), "255u8");
  EXPECT_EQ(print_expr(f.stages[1].body), "1.0f64");
}

TEST(DspParser, CastsComparisonsAndBools) {
  EXPECT_EQ(body_text("A: i8[16], B: i16[16]", "i16(A[i]) + B[i]"), "i16(A[i]) + B[i] : i16");
  EXPECT_EQ(body_text("A: i8[16], B: i8[16]", "A[i] == B[i] && !(A[i] < 0)"),
            "A[i] == B[i] && !(A[i] < 0i8) : bool");
  EXPECT_EQ(body_text("A: bool[16], B: bool[16]", "A[i] ^ B[i] || false"), "A[i] ^ B[i] || false : bool");
  EXPECT_EQ(body_text("A: u8[16]", "f32(A[i]) / 255.0"), "f32(A[i]) / 255.0f32 : f32");
  EXPECT_EQ(body_text("A: u64[16]", "A[i] + 18446744073709551615"), "A[i] + 18446744073709551615u64 : u64");
  EXPECT_EQ(body_text("A: i32[16]", "A[i] / 0 + A[i] % 0"),
            "A[i] / 0 + A[i] % 0 : i32");  // x/0 == 0: allowed
}

// The tree shape, independent of how the printer places parentheses.
std::string shape(const Expr& e) {
  if (const auto* b = e.as<Binary>())
    return std::string("(") + binary_op_symbol(b->op) + " " + shape(b->a) + " " + shape(b->b) + ")";
  if (const auto* u = e.as<Unary>())
    return std::string("(") + unary_op_symbol(u->op) + " " + shape(u->value) + ")";
  if (const auto* l = e.as<Load>()) return l->buffer->name;
  return print_expr(e);
}

TEST(DspParser, OperatorPrecedenceAndAssociativity) {
  auto tree = [](const std::string& body) {
    Expr e =
        body_of("func f(A: i32[16], B: bool[16]) -> (R: i32[16]) { T[i: 16] = " + body + "\n R[i] = 0 }");
    return e ? shape(e) : "<error>";
  };
  // Loosest to tightest: || && | ^ & (== !=) (< <= > >=) (<< >>) (+ -) (* / %) unary.
  EXPECT_EQ(tree("A[i] + 2 * 3 << 1"), "(<< (+ A (* 2 3)) 1)");
  EXPECT_EQ(tree("(A[i] + 2) * 3"), "(* (+ A 2) 3)");
  EXPECT_EQ(tree("A[i] - (2 - 3)"), "(- A (- 2 3))");
  EXPECT_EQ(tree("A[i] - 2 - 3"), "(- (- A 2) 3)");
  EXPECT_EQ(tree("A[i] / 2 % 3 * 4"), "(* (% (/ A 2) 3) 4)");
  EXPECT_EQ(tree("A[i] | 1 ^ 2 & 3"), "(| A (^ 1 (& 2 3)))");
  EXPECT_EQ(tree("B[i] & 1 == 1"), "(& B (== 1 1))");  // as in C: == binds tighter than &
  EXPECT_EQ(tree("A[i] << 1 < 2 == true"), "(== (< (<< A 1) 2) true)");
  EXPECT_EQ(tree("B[i] || B[i] && !B[i]"), "(|| B (&& B (! B)))");
  EXPECT_EQ(tree("-A[i] * ~2"), "(* (- A) (~ 2))");
  EXPECT_EQ(tree("A[i] >> 1 >> 2"), "(>> (>> A 1) 2)");
  EXPECT_EQ(tree("A[i] < 1 != A[i] >= 2"), "(!= (< A 1) (>= A 2))");
}

TEST(DspParser, ReductionsAndMinMax) {
  Expr e = body_of("func f(A: i8[16, 4]) -> (R: i8[16]) { R[i] = min(A[i, k], k: 4) }");
  ASSERT_TRUE(e);
  ASSERT_NE(e.as<Reduce>(), nullptr);
  EXPECT_EQ(e.as<Reduce>()->op, ReduceOp::Min);
  e = body_of("func f(A: i8[16, 4]) -> (R: i8[16]) { R[i] = max(A[i, 0], A[i, 3]) }");
  ASSERT_NE(e.as<Binary>(), nullptr);
  EXPECT_EQ(e.as<Binary>()->op, BinaryOp::Max);
  e = body_of("func f(A: f32[16, 4, 2]) -> (R: f32[16]) { R[i] = max(A[i, k, j] * 2, k: 4, j: 2) }");
  ASSERT_NE(e.as<Reduce>(), nullptr);
  EXPECT_EQ(e.as<Reduce>()->axes.size(), 2u);
  EXPECT_EQ(e.dtype(), DataType::f32());
}

TEST(DspParser, IndexBoundsUseIntervals) {
  // In range through arithmetic, floor div/mod, min/max, select, casts, and small tensors.
  const char* ok[] = {
      "R[i] = A[i / 2 + 8]",
      "R[i] = A[(i + 5) % 16]",
      "R[i] = A[15 - i]",
      "R[i] = A[select(i > 3, i - 4, i)]",
      "R[i] = A[i32(u8(i))]",
      "R[i] = A[clamp(i * 3 - 7, 0, 15)]",
      "R[i] = A[B[i] >> 4]",
      "R[i] = A[B[i] & 15]",
      "R[i] = sum(A[k * 2 + j], k: 8, j: 2)",
      "R[i] = A[i / 0]",
      "R[i] = A[abs(i - 15)]",
      "R[i] = select(i > 0, A[i - 1], 0)",
      "R[i] = select(i == 0 || i >= 17, 0, A[i + 16])",
      "R[i] = select(!(i < 15), A[i + 16], A[i])",
      "R[i] = select(0 < i && i <= 31 - 16, A[i + 16], select(i > 0, A[i - 1], 0))",
      "R[i] = A[select(i > 3, i - 4, i + 16)]",
  };
  for (const char* body : ok) {
    Parsed p = parse(std::string("func f(A: i8[32], B: u8[16]) -> (R: i8[16]) { ") + body + " }");
    EXPECT_TRUE(p.program.has_value()) << body << "\n" << p.errors;
  }
  const char* bad[] = {
      "R[i] = A[i + 17]",
      "R[i] = A[i - 1]",
      "R[i] = A[i * 3]",
      "R[i] = A[B[i]]",
      "R[i] = A[i32(B[i])]",
      "R[i] = A[i32(A[i])]",
      "R[i] = A[(i + 17) % 40]",
      "R[i] = A[i << 2]",
      "R[i] = A[-i]",
      "R[i] = sum(A[k + i], k: 32)",
      "R[i] = select(i >= 0, A[i - 1], 0)",
      "R[i] = select(i > 0 || i < 4, A[i - 1], 0)",
  };
  for (const char* body : bad) {
    Parsed p = parse(std::string("func f(A: i8[32], B: u8[16]) -> (R: i8[16]) { ") + body + " }");
    EXPECT_FALSE(p.program.has_value()) << body;
    EXPECT_NE(p.errors.find("index of A may be out of bounds"), std::string::npos) << body << "\n"
                                                                                   << p.errors;
  }
  // Overflow of i32 arithmetic is unbounded, not wrapped into range.
  Parsed p = parse("func f(A: i8[16]) -> (R: i8[16]) { R[i] = A[(i + 2147483647) % 16] }");
  EXPECT_TRUE(p.program.has_value()) << p.errors;  // % 16 of anything is in [0, 15]
  p = parse("func f(A: i8[16]) -> (R: i8[16]) { R[i] = A[(i + 2147483647) / 134217728] }");
  EXPECT_NE(p.errors.find("ranges over [-16, 15]"), std::string::npos) << p.errors;
}

// ---------------------------------------------------------------- diagnostics

struct DiagCase {
  const char* name;
  const char* source;
  const char* expected;  // "line:col: error: message"
};

const DiagCase kDiagCases[] = {
    {"syntax", "func f(A: i8[4]) -> (C: i8[4]) {\n  C[i] = A[i] + )\n}",
     "2:17: error: expected expression, found ')'"},
    {"syntax_signature", "func f(A i8[4]) -> (C: i8[4]) { C[i] = A[i] }",
     "1:10: error: expected ':', found 'i8'"},
    {"missing_brace", "func f(A: i8[4]) -> (C: i8[4]) {\n  C[i] = A[i]\n",
     "3:1: error: expected '}', found end of file"},
    {"not_func", "fun f() {}", "1:1: error: expected 'func', 'graph' or 'import', found 'fun'"},
    {"unknown_tensor", "func f(A: i8[4]) -> (C: i8[4]) {\n  C[i] = X[i]\n}",
     "2:10: error: unknown tensor 'X'"},
    {"unknown_variable", "func f(A: i8[4]) -> (C: i8[4]) {\n  C[i] = A[j]\n}",
     "2:12: error: unknown variable 'j'"},
    {"tensor_without_index", "func f(A: i8[4]) -> (C: i8[4]) { C[i] = A }",
     "1:41: error: tensor 'A' needs indices, e.g. A[i]"},
    {"wrong_index_count", "func f(A: i8[4, 4]) -> (C: i8[4]) {\n  C[i] = A[i]\n}",
     "2:10: error: tensor 'A' has 2 dimensions but 1 index was given"},
    {"result_index_count", "func f(A: i8[4]) -> (C: i8[4]) {\n  C[i, j] = A[i]\n}",
     "2:3: error: result 'C' has 1 dimension but the stage has 2 indices"},
    {"dtype_mismatch", "func f(A: i8[4], B: i16[4]) -> (C: i16[4]) {\n  C[i] = A[i] + B[i]\n}",
     "2:15: error: operands of '+' have different dtypes: i8 and i16 (use a cast, e.g. i16(...))"},
    {"min_mismatch", "func f(A: i8[4], B: f32[4]) -> (C: f32[4]) { C[i] = min(A[i], B[i]) }",
     "1:53: error: arguments of 'min' have different dtypes: i8 and f32 (use a cast, e.g. f32(...))"},
    {"result_dtype", "func f(A: i8[4]) -> (C: i16[4]) {\n  C[i] = A[i]\n}",
     "2:10: error: result 'C' has dtype i16 but its expression has dtype i8 (use a cast, e.g. i16(...))"},
    {"float_literal_int", "func f(A: i8[4]) -> (C: i8[4]) { C[i] = A[i] * 1.5 }",
     "1:48: error: float literal 1.5 cannot have integer dtype i8"},
    {"missing_extent", "func f(A: i8[4]) -> (C: i8[4]) {\n  T[i] = A[i]\n  C[i] = T[i]\n}",
     "2:5: error: missing extent for index 'i' of intermediate stage 'T'"},
    // A tensor without elements has no index in bounds.
    {"zero_extent", "func f(A: i8[0]) -> (C: i8[4]) { C[i] = A[i] }",
     "1:43: error: index of A may be out of bounds: dimension 0 has extent 0 but the index ranges over [0, 3]"},
    {"result_extent", "func f(A: i8[4]) -> (C: i8[4]) { C[i: 5] = A[i] }",
     "1:39: error: extent 5 does not match the extent 4 of result 'C' in dimension 0"},
    {"reads_later", "func f(A: i8[4]) -> (C: i8[4]) {\n  T[i: 4] = U[i]\n  U[i: 4] = A[i]\n  C[i] = T[i]\n}",
     "2:13: error: stage 'T' reads 'U', which is computed later"},
    {"reads_itself", "func f(A: i8[4]) -> (C: i8[4]) {\n  C[i] = C[i] + A[i]\n}",
     "2:10: error: stage 'C' reads itself"},
    {"unknown_scope",
     "func f(A: i8[4]) -> (C: i8[4]) {\n  T[i: 4] = A[i]\n  C[i] = T[i]\n  schedule { T.set_scope(\"vtcm\") "
     "}\n}",
     "4:26: error: unknown scope 'vtcm' (expected \"global\" or \"local.vtcm\")"},
    {"set_scope_args",
     "func f(A: i8[4]) -> (C: i8[4]) {\n  T[i: 4] = A[i]\n  C[i] = T[i]\n  schedule { T.set_scope() }\n}",
     "4:25: error: set_scope expects one string argument, e.g. set_scope(\"local.vtcm\")"},
    {"unknown_primitive",
     "func f(A: i8[4]) -> (C: i8[4]) {\n  T[i: 4] = A[i]\n  C[i] = T[i]\n  schedule { T.tilt(2) }\n}",
     "4:16: error: unknown schedule primitive 'tilt'"},
    {"unknown_schedule_stage",
     "func f(A: i8[4]) -> (C: i8[4]) {\n  C[i] = A[i]\n  schedule { X.set_scope(\"global\") }\n}",
     "3:14: error: unknown stage 'X' in schedule"},
    {"set_scope_param",
     "func f(A: i8[4]) -> (C: i8[4]) {\n  C[i] = A[i]\n  schedule { A.set_scope(\"local.vtcm\") }\n}",
     "3:14: error: cannot set the scope of parameter 'A'"},
    {"set_scope_result",
     "func f(A: i8[4]) -> (C: i8[4]) {\n  C[i] = A[i]\n  schedule { C.set_scope(\"local.vtcm\") }\n}",
     "3:14: error: cannot set the scope of result 'C'"},
    {"duplicate_param", "func f(A: i8[4], A: i8[4]) -> (C: i8[4]) { C[i] = A[i] }",
     "1:18: error: duplicate parameter 'A'"},
    {"duplicate_param_result", "func f(A: i8[4]) -> (A: i8[4], C: i8[4]) { C[i] = A[i] }",
     "1:22: error: duplicate parameter 'A'"},
    {"duplicate_stage",
     "func f(A: i8[4]) -> (C: i8[4]) {\n  T[i: 4] = A[i]\n  T[i: 4] = A[i]\n  C[i] = T[i]\n}",
     "3:3: error: 'T' is already computed by an earlier stage"},
    {"duplicate_func", "func f() -> (C: i8[4]) { C[i] = 1 }\nfunc f() -> (C: i8[4]) { C[i] = 2 }",
     "2:6: error: duplicate function 'f'"},
    {"duplicate_index", "func f(A: i8[4]) -> (C: i8[4, 4]) { C[i, i] = A[i] }",
     "1:42: error: duplicate index variable 'i'"},
    {"reduction_shadows_index", "func f(A: i8[4]) -> (C: i32[4]) { C[i] = sum(i32(A[i]), i: 4) }",
     "1:57: error: reduction variable 'i' shadows index variable 'i'"},
    {"reduction_shadows_reduction",
     "func f(A: i8[4]) -> (C: i32[4]) { C[i] = sum(sum(i32(A[k]), k: 4), k: 4) }",
     "1:61: error: reduction variable 'k' shadows an enclosing reduction variable"},
    {"duplicate_reduction_var", "func f(A: i8[4]) -> (C: i32[4]) { C[i] = sum(i32(A[k]), k: 4, k: 2) }",
     "1:63: error: duplicate reduction variable 'k'"},
    {"literal_range", "func f(A: i8[4]) -> (C: i8[4]) {\n  C[i] = A[i] + 300\n}",
     "2:17: error: integer literal 300 does not fit in i8"},
    {"negative_literal_range", "func f(A: i8[4]) -> (C: i8[4]) {\n  C[i] = -129 + A[i]\n}",
     "2:10: error: integer literal -129 does not fit in i8"},
    {"unsigned_negative", "func f(A: u8[4]) -> (C: u8[4]) { C[i] = A[i] - -1 }",
     "1:48: error: integer literal -1 does not fit in u8"},
    {"lone_literal_i32", "func f() -> (C: i64[4]) { T[i: 4] = 5000000000\n C[i] = i64(T[i]) }",
     "1:37: error: integer literal 5000000000 does not fit in i32"},
    {"assign_input", "func f(A: i8[4]) -> (C: i8[4]) {\n  A[i] = 1\n  C[i] = A[i]\n}",
     "2:3: error: cannot assign to input 'A'"},
    {"result_not_computed", "func f(A: i8[4]) -> (C: i8[4], D: i8[4]) {\n  C[i] = A[i]\n}",
     "1:32: error: result 'D' is not computed by any stage"},
    {"out_of_bounds", "func f(A: i8[2048]) -> (C: i8[2048]) {\n  C[i] = A[i + 1]\n}",
     "2:12: error: index of A may be out of bounds: dimension 0 has extent 2048 but the index ranges over "
     "[1, 2048]"},
    {"out_of_bounds_dim1", "func f(A: i8[4, 8]) -> (C: i8[4, 8]) { C[y, x] = A[y, x - 1] }",
     "1:55: error: index of A may be out of bounds: dimension 1 has extent 8 but the index ranges over [-1, "
     "6]"},
    {"f16", "func f(A: f16[4]) -> (C: f32[4]) { C[i] = 0.0 }", "1:11: error: f16 is not supported yet"},
    {"f16_cast", "func f(A: f32[4]) -> (C: f32[4]) { C[i] = f32(f16(A[i])) }",
     "1:47: error: f16 is not supported yet"},
    {"unknown_dtype", "func f(A: i7[4]) -> (C: i8[4]) { C[i] = 0 }", "1:11: error: unknown dtype 'i7'"},
    {"integer_too_large", "func f(A: i64[4]) -> (C: i64[4]) { C[i] = A[i] + 99999999999999999999 }",
     "1:50: error: integer literal too large"},
    {"tensor_too_large", "func f(A: i8[65536, 65536]) -> (C: i8[4]) { C[i] = 0 }",
     "1:8: error: tensor 'A' is too large: more than 2^31 elements"},
    {"stage_too_large", "func f() -> (C: i8[4]) { T[i: 4294967296] = 0\n C[i] = 0 }",
     "1:26: error: tensor 'T' is too large: more than 2^31 elements"},
    {"too_many_bytes", "func f(A: i32[600000000]) -> (C: i8[4]) { C[i] = 0 }",
     "1:8: error: tensor 'A' needs 2400000000 bytes, more than the limit of 2147483647"},
    {"too_many_bytes_u8", "func f(A: u8[2147483648]) -> (C: u8[4]) { C[i] = A[i] }",
     "1:8: error: tensor 'A' needs 2147483648 bytes, more than the limit of 2147483647"},
    {"result_too_many_bytes", "func f() -> (C: f64[16384, 16384]) { C[y, x] = 0.0 }",
     "1:14: error: tensor 'C' needs 2147483648 bytes, more than the limit of 2147483647"},
    {"stage_too_many_bytes", "func f() -> (C: i8[4]) {\n  T[i: 1073741824] = 0i16\n  C[i] = i8(T[i])\n}",
     "2:3: error: tensor 'T' needs 2147483648 bytes, more than the limit of 2147483647"},
    {"reduction_extent_too_large",
     "func f(A: i8[4]) -> (C: i32[4]) { C[i] = sum(i32(A[k % 4]), k: 2147483648) }",
     "1:61: error: reduction variable 'k' has extent 2147483648, more than the limit of 2147483647"},
    {"unknown_function", "func f(A: f32[4]) -> (C: f32[4]) { C[i] = sqrt(A[i]) }",
     "1:43: error: unknown function 'sqrt'"},
    {"arity", "func f(A: f32[4]) -> (C: f32[4]) { C[i] = min(A[i]) }",
     "1:43: error: 'min' takes 2 arguments, got 1"},
    {"select_condition", "func f(A: i8[4]) -> (C: i8[4]) { C[i] = select(A[i], A[i], 0) }",
     "1:48: error: condition of 'select' must be bool, got i8"},
    {"float_index", "func f(A: i8[4]) -> (C: i8[4]) { C[i] = A[f32(i)] }",
     "1:43: error: index of 'A' must be an integer, got f32"},
    {"logical_on_int", "func f(A: i8[4]) -> (C: bool[4]) { C[i] = A[i] && A[i] }",
     "1:48: error: operands of '&&' must be bool, got i8"},
    {"sum_without_axis", "func f(A: i8[4]) -> (C: i8[4]) { C[i] = sum(A[i]) }",
     "1:49: error: expected ',', found ')'"},
    // An empty reduction reads nothing, but its body is typed as any other.
    {"reduction_extent_zero", "func f(A: i8[4]) -> (C: i32[4]) { C[i] = sum(A[k] + 1.5, k: 0) }",
     "1:53: error: float literal 1.5 cannot have integer dtype i8"},
    {"unterminated_string",
     "func f(A: i8[4]) -> (C: i8[4]) {\n  T[i: 4] = A[i]\n  C[i] = T[i]\n  schedule { "
     "T.set_scope(\"local.vtcm) }\n}",
     "4:26: error: unterminated string"},
    {"unexpected_char", "func f(A: i8[4]) -> (C: i8[4]) { C[i] = A[i] $ 2 }",
     "1:46: error: unexpected character '$'"},
    {"nul_byte", "(replaced by a NUL byte in the test)", "1:41: error: unexpected byte 0x00"},
    {"empty", "", "1:1: error: empty program: expected 'func'"},
    {"only_comments", "# nothing here\n// nor here\n", "1:1: error: empty program: expected 'func'"},
};

TEST(DspParser, EveryDiagnosticWithItsLocation) {
  for (const DiagCase& c : kDiagCases) {
    std::string source = c.source;
    if (std::string(c.name) == "nul_byte")
      source = std::string("func f(A: i8[4]) -> (C: i8[4]) { C[i] = \0 }", 43);
    Parsed p = parse(source);
    EXPECT_FALSE(p.program.has_value()) << c.name;
    EXPECT_NE(p.errors.find(std::string("test.dsp:") + c.expected + "\n"), std::string::npos)
        << c.name << ": want " << c.expected << "\ngot:\n"
        << p.errors;
    EXPECT_EQ(count(p.errors, ": error: "), 1) << c.name << ":\n" << p.errors;
  }
}

// Every tensor holds at most 2^31-1 bytes, whatever its dtype, whether a parameter, a result
// or an intermediate stage (whose dtype comes from its body).
TEST(DspParser, SizeLimitIsExactForEveryDtype) {
  const std::pair<const char*, int64_t> kDtypes[] = {{"i8", 1},  {"u8", 1},  {"bool", 1}, {"i16", 2},
                                                     {"u16", 2}, {"i32", 4}, {"u32", 4},  {"f32", 4},
                                                     {"i64", 8}, {"u64", 8}, {"f64", 8}};
  for (const auto& [dt, bytes] : kDtypes) {
    const int64_t most = 2147483647 / bytes;
    std::string t = dt;
    for (int64_t n : {most, most + 1}) {
      std::string limit_error =
          "needs " + std::to_string(n * bytes) + " bytes, more than the limit of 2147483647";
      std::string param = "func f(A: " + t + "[" + std::to_string(n) + "]) -> (C: i8[4]) { C[i] = 0 }";
      Parsed p = parse(param);
      if (n == most) {
        ASSERT_TRUE(p.program.has_value()) << t << ": " << p.errors;
        EXPECT_EQ(p.program->funcs[0].inputs[0]->shape, std::vector<int64_t>{most}) << t;
      } else {
        EXPECT_EQ(p.errors.rfind("test.dsp:1:8: error: tensor 'A' " + limit_error + "\n", 0), 0u)
            << t << ": " << p.errors;
      }
      std::string stage = "func f(A: i8[4]) -> (C: i8[4]) {\n  T[i: " + std::to_string(n) + "] = " + t +
                          "(A[0])\n  C[i] = i8(T[i])\n}";
      p = parse(stage);
      if (n == most) {
        ASSERT_TRUE(p.program.has_value()) << t << ": " << p.errors;
        EXPECT_EQ(p.program->funcs[0].stages[0].out->shape, std::vector<int64_t>{most}) << t;
        EXPECT_EQ(p.program->funcs[0].stages[0].out->dtype.str(), t);
      } else {
        EXPECT_EQ(p.errors.rfind("test.dsp:2:3: error: tensor 'T' " + limit_error + "\n", 0), 0u)
            << t << ": " << p.errors;
      }
    }
  }
  // The product of the extents counts, not each extent.
  EXPECT_TRUE(parse("func f() -> (C: i32[65536, 8191]) { C[y, x] = 0 }").program.has_value());
  Parsed p = parse("func f() -> (C: i32[65536, 8192]) { C[y, x] = 0 }");
  EXPECT_NE(
      p.errors.find("1:14: error: tensor 'C' needs 2147483648 bytes, more than the limit of 2147483647"),
      std::string::npos)
      << p.errors;
}

TEST(DspParser, ReductionExtentFitsI32) {
  TensorFunc f = parse_one("func f(A: i8[4]) -> (C: i32[4]) { C[i] = sum(i32(A[k % 4]), k: 2147483647) }");
  ASSERT_EQ(f.stages.size(), 1u);
  Collect c;
  c.visit(f.stages[0].body);
  ASSERT_EQ(c.reduces.size(), 1u);
  EXPECT_EQ(c.reduces[0]->axes[0].extent, 2147483647);
  // Checked at every nesting level, at the axis's name.
  Parsed p =
      parse("func f(A: i8[4]) -> (C: i32[4]) {\n  C[i] = sum(sum(i32(A[k % 4]), k: 4294967296), j: 2)\n}");
  EXPECT_EQ(
      p.errors.rfind("test.dsp:2:33: error: reduction variable 'k' has extent 4294967296, more than the "
                     "limit of 2147483647\n",
                     0),
      0u)
      << p.errors;
}

TEST(DspParser, DiagnosticShowsLineAndCaret) {
  Parsed p = parse("func f(A: i8[4]) -> (C: i8[4]) {\n  C[i] = X[i]\n}");
  EXPECT_EQ(p.errors, "test.dsp:2:10: error: unknown tensor 'X'\n  C[i] = X[i]\n         ^\n");
}

TEST(DspParser, IndependentErrorsAreAllReportedInOrder) {
  Parsed p = parse(
      "func f(A: i8[4], B: i16[4]) -> (C: i8[4]) {\n"
      "  T[i: 4] = A[i] + B[i]\n"  // mismatch
      "  U[i: 4] = T[i] + 1\n"     // reads a failed stage: no second error
      "  V[i: 4] = A[i] + + )\n"   // syntax error, then recovery at the next stage
      "  W[i: 4] = Q[i]\n"         // unknown tensor
      "  C[i] = A[i] + 300\n"      // literal range
      "}\n"
      "func g(A: i8[4]) -> (C: i8[4]) { C[i] = A[i + 1] }\n");  // an error in the next func too
  EXPECT_EQ(count(p.errors, ": error: "), 5) << p.errors;
  size_t a = p.errors.find("test.dsp:2:18:"), b = p.errors.find("test.dsp:4:20:"),
         c = p.errors.find("test.dsp:5:13:"), d = p.errors.find("test.dsp:6:17:"),
         e = p.errors.find("test.dsp:8:43:");
  ASSERT_NE(a, std::string::npos) << p.errors;
  ASSERT_NE(b, std::string::npos) << p.errors;
  ASSERT_NE(c, std::string::npos) << p.errors;
  ASSERT_NE(d, std::string::npos) << p.errors;
  ASSERT_NE(e, std::string::npos) << p.errors;
  EXPECT_TRUE(a < b && b < c && c < d && d < e) << p.errors;
}

TEST(DspParser, NoCascadeAfterBadDeclarations) {
  // A bad parameter or result is not reported again where it is used.
  Parsed p = parse("func f(A: f16[4]) -> (C: i8[4], D: i9[4]) {\n  C[i] = i8(A[i])\n  D[i] = C[i]\n}");
  EXPECT_EQ(count(p.errors, ": error: "), 2) << p.errors;
  p = parse("func f(A: i8[4]) -> (C: i8[4]) {\n  C[i] = A[i] +\n}");
  EXPECT_EQ(count(p.errors, ": error: "), 1) << p.errors;
}

// ---------------------------------------------------------------- robustness

std::string mutate(std::string s, std::mt19937& rng) {
  int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    size_t pos = rng() % s.size();
    switch (rng() % 5) {
      case 0: s[pos] = static_cast<char>(rng() % 256); break;                    // byte flip
      case 1: s.erase(pos, 1 + rng() % 8); break;                                // deletion
      case 2: s.insert(pos, s.substr(rng() % s.size(), 1 + rng() % 24)); break;  // duplication
      case 3: {
        static const std::string kChars = "()[]{},:;=+-*/%<>!~&|^#\"0123456789 \nabcxyz";
        s[pos] = kChars[rng() % kChars.size()];
        break;
      }
      default: s.insert(pos, 1, "([{-!"[rng() % 5]); break;
    }
  }
  return s;
}

TEST(DspParser, SurvivesMutatedAndRandomInput) {
  std::mt19937 rng(12345);
  const std::string seeds[] = {kAllocVtcm, kDense, kConv};
  int accepted = 0, rejected = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text;
    if (i % 10 == 9) {
      text.resize(rng() % 300);
      for (char& c : text) c = static_cast<char>(rng() % 256);
    } else {
      text = mutate(seeds[i % 3], rng);
    }
    SourceFile src{"fuzz.dsp", text};
    std::ostringstream out;
    Diagnostics diag(out, &src);
    std::optional<TensorProgram> p;
    ASSERT_NO_THROW(p = parse_dsp(src, diag)) << text;
    // A failure always says why; a success has no errors.
    EXPECT_EQ(p.has_value(), out.str().empty()) << text << "\n" << out.str();
    EXPECT_FALSE(diag.has_internal_errors()) << text << "\n" << out.str();
    (p ? accepted : rejected)++;
    SourceFile tir{"fuzz.tir", "prim_func " + text};
    std::ostringstream out2;
    Diagnostics diag2(out2, &tir);
    ASSERT_NO_THROW(parse_tir(tir, diag2)) << text;
    EXPECT_FALSE(diag2.has_internal_errors()) << text << "\n" << out2.str();
  }
  EXPECT_GT(accepted, 50);  // the mutations are not all fatal: the test reaches the checker
  EXPECT_GT(rejected, 1000);
}

TEST(DspParser, DeepNestingAndHugeInputsAreErrors) {
  std::string deep = "func f(A: i8[4]) -> (C: i8[4]) { C[i] = " + std::string(100000, '(') + "A[i]" +
                     std::string(100000, ')') + " }";
  Parsed p = parse(deep);
  EXPECT_NE(p.errors.find("error: expression is too deeply nested"), std::string::npos);
  std::string chain = "func f(A: i8[4]) -> (C: i8[4]) { C[i] = A[i]";
  for (int k = 0; k < 50000; ++k) chain += " + A[i]";
  p = parse(chain + " }");
  EXPECT_NE(p.errors.find("error: expression is too deeply nested"), std::string::npos);
  std::string negs = "func f(A: i8[4]) -> (C: i8[4]) { C[i] = " + std::string(100000, '-') + "A[i] }";
  p = parse(negs);
  EXPECT_NE(p.errors.find("error: expression is too deeply nested"), std::string::npos);
  std::string reads = "func f(A: i32[4]) -> (C: i32[4]) { C[i] = ";
  for (int k = 0; k < 5000; ++k) reads += "A[";
  p = parse(reads + "i" + std::string(5000, ']') + " }");
  EXPECT_NE(p.errors.find("error: expression is too deeply nested"), std::string::npos);
  // Moderate nesting is fine.
  p = parse("func f(A: i8[4]) -> (C: i8[4]) { C[i] = " + std::string(100, '(') + "A[i]" +
            std::string(100, ')') + " }");
  EXPECT_TRUE(p.program.has_value()) << p.errors;
  // Many errors stop early instead of flooding.
  std::string many = "func f(A: i8[4]) -> (C: i8[4]) {\n";
  for (int k = 0; k < 1000; ++k) many += "  T" + std::to_string(k) + "[i: 4] = X[i]\n";
  p = parse(many + "}");
  EXPECT_LE(count(p.errors, ": error: "), 60);
  EXPECT_GE(count(p.errors, ": error: "), 20);
}

// A parser bug is not the user's error: it is reported as an internal error in the parser,
// after what the parse found before it, and nothing escapes.
TEST(DspParser, ExceptionInAParseIsAnInternalError) {
  SourceFile src{"test.dsp", "func f() {}\n"};
  std::ostringstream out;
  Diagnostics diag(out, &src);
  auto result = frontend::run_parser(src, diag, [](frontend::ErrorLog& log) -> std::optional<int> {
    log.error(Span{1, 6}, "something the parse found");
    throw std::bad_alloc();
  });
  EXPECT_FALSE(result.has_value());
  EXPECT_TRUE(diag.has_internal_errors());
  EXPECT_EQ(out.str(),
            "test.dsp:1:6: error: something the parse found\nfunc f() {}\n     ^\n"
            "dspc: internal error in the parser: test.dsp: out of memory\n");
}

TEST(DspParser, FailureWithoutADiagnosticIsAnInternalError) {
  SourceFile src{"test.dsp", ""};
  std::ostringstream out;
  Diagnostics diag(out, &src);
  auto result = frontend::run_parser(src, diag, [](frontend::ErrorLog&) -> std::optional<int> { return {}; });
  EXPECT_FALSE(result.has_value());
  EXPECT_TRUE(diag.has_internal_errors());
  EXPECT_EQ(out.str(), "dspc: internal error in the parser: test.dsp: no diagnostic for a failure\n");
}

TEST(DspParser, UserErrorsAreNotInternal) {
  SourceFile src{"test.dsp", "func f(A: i8[4]) -> (C: i8[4]) {\n  C[i] = X[i]\n}\n"};
  std::ostringstream out;
  Diagnostics diag(out, &src);
  EXPECT_FALSE(parse_dsp(src, diag).has_value());
  EXPECT_TRUE(diag.has_errors());
  EXPECT_FALSE(diag.has_internal_errors());
}

}  // namespace
}  // namespace dspc
