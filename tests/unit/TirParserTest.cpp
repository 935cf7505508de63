// The TIR parser: print -> parse -> print is the identity on hand-built IR with every node
// kind; names are scoped; errors are located.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <sstream>

#include "compiler/frontend/Parser.h"
#include "compiler/ir/Externs.h"
#include "compiler/ir/Printer.h"
#include "compiler/ir/Verifier.h"

namespace dspc {
namespace {

struct Parsed {
  std::optional<Module> module;
  std::string errors;
};

Parsed parse(const std::string& text) {
  SourceFile src{"test.tir", text};
  std::ostringstream out;
  Diagnostics diag(out, &src);
  Parsed p;
  p.module = parse_tir(src, diag);
  p.errors = out.str();
  EXPECT_EQ(p.module.has_value(), !diag.has_errors()) << p.errors;
  return p;
}

// Prints `m`, parses it back and expects the identical text.
void expect_round_trip(const Module& m) {
  std::string text = print_module(m);
  Parsed p = parse(text);
  ASSERT_TRUE(p.module.has_value()) << p.errors << "\n" << text;
  EXPECT_EQ(print_module(*p.module), text);
}

Expr v(const VarRef& x) {
  return var_expr(x);
}
Expr bin(BinaryOp op, Expr a, Expr b) {
  return Binary::make(op, std::move(a), std::move(b));
}
Expr i32(int64_t x) {
  return make_i32(x);
}

// One function using every expression and statement kind.
Module every_node_kind() {
  Buffer A = BufferNode::make("A", DataType::i8(), {16});
  Buffer B = BufferNode::make("B", DataType::f32(), {4, 4});
  Buffer H = BufferNode::make("H", DataType::u64(), {8});
  Buffer C = BufferNode::make("C", DataType::i32(), {16});
  Buffer T = BufferNode::make("T", DataType::i16(), {4, 8}, StorageScope::Vtcm);
  VarRef i = VarNode::make("i"), j = VarNode::make("j"), k = VarNode::make("k"), x = VarNode::make("x");
  VarRef y = VarNode::make("y", DataType::f64());
  VarRef h = VarNode::make("h_buf", DataType::handle());
  VarRef b = VarNode::make("b", DataType::boolean());

  std::vector<Stmt> body;
  // allocate + nested loops of every kind + a store of a cast.
  Stmt fill = Store::make(T, {v(i), v(j)},
                          Cast::make(DataType::i16(), Load::make(A, {bin(BinaryOp::Add, v(i), v(j))})));
  body.push_back(Allocate::make(T, For::make(i, i32(0), i32(4), ForKind::Parallel,
                                             For::make(j, i32(0), i32(8), ForKind::Unrolled, fill))));
  // A let in the middle of a sequence, with statements after it inside and outside its scope.
  Stmt s1 = Store::make(C, {i32(0)}, bin(BinaryOp::Mul, bin(BinaryOp::Add, v(x), i32(1)), i32(-3)));
  Stmt s2 = Store::make(C, {i32(1)}, bin(BinaryOp::Sub, v(x), bin(BinaryOp::Sub, i32(2), v(x))));
  body.push_back(Store::make(C, {i32(15)}, i32(std::numeric_limits<int32_t>::min())));
  body.push_back(LetStmt::make(x, i32(5), Seq::make({s1, s2})));
  body.push_back(Store::make(C, {i32(2)}, Unary::make(UnaryOp::Neg, Unary::make(UnaryOp::Neg, i32(-7)))));
  // Floats of both widths and the special values; a let of f64.
  Expr fsum =
      bin(BinaryOp::Add, FloatImm::make(DataType::f64(), -0.0), FloatImm::make(DataType::f64(), 1e-300));
  Stmt fstore = Store::make(
      B, {i32(0), i32(1)},
      Select::make(bin(BinaryOp::LT, v(y), FloatImm::make(DataType::f64(), INFINITY)),
                   FloatImm::make(DataType::f32(), 0.1), FloatImm::make(DataType::f32(), -INFINITY)));
  Stmt nan_store =
      Store::make(B, {i32(3), i32(3)},
                  bin(BinaryOp::Mod, Load::make(B, {i32(0), i32(0)}), FloatImm::make(DataType::f32(), NAN)));
  body.push_back(LetStmt::make(y, fsum, Seq::make({fstore, nan_store})));
  // Nested ifs, one without else; a bool let; unsigned 64-bit literals.
  Stmt inner_if =
      IfThenElse::make(bin(BinaryOp::And, v(b), Unary::make(UnaryOp::Not, bin(BinaryOp::GE, v(i), i32(3)))),
                       Store::make(H, {i32(0)}, IntImm::make(DataType::u64(), -1)));
  Stmt outer_if = IfThenElse::make(
      bin(BinaryOp::Or, v(b), bin(BinaryOp::NE, v(i), i32(0))), inner_if,
      Store::make(H, {i32(1)},
                  bin(BinaryOp::Shr, Load::make(H, {i32(2)}), IntImm::make(DataType::u64(), 7))));
  Stmt loop =
      For::make(i, i32(0), i32(16), ForKind::Serial,
                LetStmt::make(b, bin(BinaryOp::EQ, bin(BinaryOp::BitAnd, v(i), i32(1)), i32(0)), outer_if));
  body.push_back(loop);
  // Vectors: ramp, broadcast, vector cast, vectorized loop.
  Expr ramp = Ramp::make(bin(BinaryOp::Mul, v(i), i32(4)), i32(1), 4);
  Stmt vec = Store::make(C, {ramp},
                         bin(BinaryOp::Add, Cast::make(DataType::i32().with_lanes(4), Load::make(A, {ramp})),
                             Broadcast::make(i32(9), 4)));
  body.push_back(For::make(i, i32(0), i32(4), ForKind::Vectorized, vec));
  // Vector reductions: to one lane, and to partial results.
  Expr four = Cast::make(DataType::i32().with_lanes(4), Load::make(A, {Ramp::make(i32(0), i32(1), 4)}));
  body.push_back(Store::make(C, {i32(0)}, VectorReduce::make(ReduceOp::Max, four, 1)));
  body.push_back(Store::make(C, {Ramp::make(i32(2), i32(1), 2)}, VectorReduce::make(ReduceOp::Sum, four, 2)));
  // A reduction, abs, ~, and the shift / bitwise precedence cases.
  Expr red = Reduce::make(ReduceOp::Sum, Cast::make(DataType::i32(), Load::make(A, {v(k)})), {{k, 16}});
  Expr bits = bin(BinaryOp::BitOr, bin(BinaryOp::BitXor, v(i), bin(BinaryOp::BitAnd, v(i), i32(3))),
                  bin(BinaryOp::Shl, v(i), bin(BinaryOp::Add, v(i), i32(1))));
  body.push_back(For::make(i, i32(0), i32(16), ForKind::Serial,
                           Store::make(C, {v(i)},
                                       bin(BinaryOp::Max, bin(BinaryOp::Min, red, bits),
                                           Unary::make(UnaryOp::Abs, Unary::make(UnaryOp::BitNot, v(i)))))));
  // count_leading_zeros and popcount, printed and parsed as calls.
  body.push_back(For::make(i, i32(0), i32(16), ForKind::Serial,
                           Store::make(C, {v(i)},
                                       bin(BinaryOp::Add, Unary::make(UnaryOp::Clz, v(i)),
                                           Unary::make(UnaryOp::Popcount, bin(BinaryOp::Sub, v(i), i32(1)))))));
  // VTCM-style lowering: let handle, if isnullptr, decl_buffer not last in its block.
  Buffer V = BufferNode::make_with_data(h, DataType::i8(), {16}, StorageScope::Vtcm);
  Stmt use = For::make(i, i32(0), i32(16), ForKind::Serial,
                       Store::make(V, {v(i)}, IntImm::make(DataType::i8(), -128)));
  VarRef ctx = VarNode::make("ctx", DataType::handle());
  Stmt free = Evaluate::make(Call::make(CallKind::Extern, kFreeVtcm, {v(h), v(ctx)}));
  Stmt lowered = IfThenElse::make(Call::make(CallKind::Intrinsic, "isnullptr", {v(h)}),
                                  Evaluate::make(Call::make(CallKind::Intrinsic, "throw_last_error", {})),
                                  Seq::make({DeclBuffer::make(V, use), free}));
  body.push_back(
      LetStmt::make(h, Call::make(CallKind::Extern, kAllocateVtcm, {i32(16), i32(2048), v(ctx)}), lowered));
  // Expression statements, one starting with '-' right after a store.
  body.push_back(Store::make(C, {i32(3)}, i32(1)));
  body.push_back(Evaluate::make(Unary::make(UnaryOp::Neg, Load::make(C, {i32(3)}))));
  body.push_back(Evaluate::make(i32(-5)));

  PrimFunc f{"every_node", {A, B, H}, {C}, Seq::make(body), {}, ctx};

  // A second function: a literal of every dtype, at both ends of its range, and a let that
  // is the last statement of the function (no block of its own).
  std::vector<Buffer> outs;
  std::vector<Stmt> stores;
  for (DataType t : {DataType::i8(), DataType::i16(), DataType::i32(), DataType::i64(), DataType::u8(),
                     DataType::u16(), DataType::u32(), DataType::u64(), DataType::f16(), DataType::f32(),
                     DataType::f64(), DataType::boolean()}) {
    Buffer o = BufferNode::make("O_" + t.str(), t, {2});
    outs.push_back(o);
    Expr lo = t.is_float() ? FloatImm::make(t, -2.5) : IntImm::make(t, t.min_int());
    Expr hi = t.is_float() ? FloatImm::make(t, 65504.0)
                           : IntImm::make(t, t.is_uint() && t.bits == 64 ? -1 : t.max_int_signed());
    stores.push_back(Store::make(o, {i32(0)}, lo));
    stores.push_back(
        Store::make(o, {i32(1)}, t.is_bool() ? bin(BinaryOp::And, lo, hi) : bin(BinaryOp::Sub, hi, lo)));
  }
  VarRef last = VarNode::make("last", DataType::i64());
  stores.push_back(LetStmt::make(
      last, IntImm::make(DataType::i64(), 42),
      Store::make(outs[3], {i32(0)}, bin(BinaryOp::Div, v(last), IntImm::make(DataType::i64(), -2)))));
  PrimFunc g{"literals", {}, outs, Seq::make(stores), {}};
  return Module{{f, g}};
}

TEST(TirParser, RoundTripsEveryNodeKind) {
  Module m = every_node_kind();
  std::string text = print_module(m);
  // The printer's output holds the cases this test is about.
  for (const char* s : {"allocate T: i16[4, 8] scope \"local.vtcm\"",
                        "for i in parallel(0, 4)",
                        "unrolled(0, 8)",
                        "vectorized(0, 4)",
                        "let x: i32 = 5",
                        "decl_buffer h_buf: i8[16] scope \"local.vtcm\"",
                        "-(-7)",
                        "-2147483648",
                        "(x + 1) * -3",
                        "x - (2 - x)",
                        "i << (i + 1)",
                        "-inff32",
                        "nanf32",
                        "-0.0f64",
                        "18446744073709551615u64",
                        "7u64",
                        "-128i8",
                        "i32x4(A[ramp(i * 4, 1, 4)])",
                        "broadcast(9, 4)",
                        "C[0] = vector_max(i32x4(A[ramp(0, 1, 4)]), 1)",
                        "vector_sum(i32x4(A[ramp(0, 1, 4)]), 2)",
                        "sum(i32(A[k]), k: 16)",
                        "abs(~i)",
                        "} else {",
                        "throw_last_error()",
                        "call_extern(\"HexagonBackendFreeVTCM\", h_buf, ctx)",
                        "\n  -C[3]\n",
                        "\n  -5\n"})
    EXPECT_NE(text.find(s), std::string::npos) << s << "\n" << text;
  expect_round_trip(m);
}

TEST(TirParser, ScopesResolveToTheRightObjects) {
  Module m = every_node_kind();
  Parsed p = parse(print_module(m));
  ASSERT_TRUE(p.module.has_value()) << p.errors;
  ASSERT_EQ(p.module->funcs.size(), 2u);
  const PrimFunc& f = p.module->funcs[0];
  EXPECT_EQ(f.name, "every_node");
  ASSERT_EQ(f.inputs.size(), 3u);
  EXPECT_EQ(f.inputs[1]->dtype, DataType::f32());
  EXPECT_EQ(f.inputs[1]->shape, (std::vector<int64_t>{4, 4}));
  // The last top-level statement before the expression statements is the VTCM let; its
  // decl_buffer is over the let's own variable, and the loop stores into that buffer.
  const Seq* seq = f.body.as<Seq>();
  ASSERT_NE(seq, nullptr);
  const LetStmt* let = nullptr;
  for (const Stmt& s : seq->stmts)
    if (const auto* l = s.as<LetStmt>(); l && l->var->dtype.is_handle()) let = l;
  ASSERT_NE(let, nullptr);
  const IfThenElse* ite = let->body.as<IfThenElse>();
  ASSERT_NE(ite, nullptr);
  const Seq* else_seq = ite->else_case.as<Seq>();
  ASSERT_NE(else_seq, nullptr);
  const DeclBuffer* decl = else_seq->stmts[0].as<DeclBuffer>();
  ASSERT_NE(decl, nullptr);
  EXPECT_EQ(decl->buffer->data, let->var);
  EXPECT_EQ(decl->buffer->scope, StorageScope::Vtcm);
  const For* loop = decl->body.as<For>();
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->body.as<Store>()->buffer, decl->buffer);
  const Call* free = else_seq->stmts[1].as<Evaluate>()->value.as<Call>();
  ASSERT_NE(free, nullptr);
  EXPECT_EQ(free->call_kind, CallKind::Extern);
  EXPECT_EQ(free->args[0].get(), static_cast<const ExprNode*>(let->var.get()));
  // Parameters' loads use the parameter buffers.
  const Allocate* alloc = seq->stmts[0].as<Allocate>();
  ASSERT_NE(alloc, nullptr);
  EXPECT_EQ(alloc->buffer->scope, StorageScope::Vtcm);
}

TEST(TirParser, ScopeAliasPrintsAsItsCanonicalName) {
  Parsed p = parse(
      "prim_func f() -> (C: i8[4]) {\n  allocate T: i8[4] scope \"global.vtcm\" {\n    T[0] = 1i8\n"
      "    C[0] = T[0]\n  }\n}");
  ASSERT_TRUE(p.module.has_value()) << p.errors;
  const Allocate* alloc = p.module->funcs[0].body.as<Allocate>();
  ASSERT_NE(alloc, nullptr);
  EXPECT_EQ(alloc->buffer->scope, StorageScope::Vtcm);
  EXPECT_NE(print_module(*p.module).find("allocate T: i8[4] scope \"local.vtcm\" {"), std::string::npos);
}

TEST(TirParser, AllBinaryOperatorsWithMixedPrecedence) {
  // Random trees over every operator; the printer adds exactly the parentheses needed.
  std::mt19937 rng(7);
  VarRef a = VarNode::make("a"), b = VarNode::make("b"), c = VarNode::make("c");
  VarRef p = VarNode::make("p", DataType::boolean());
  const BinaryOp int_ops[] = {BinaryOp::Add,   BinaryOp::Sub,    BinaryOp::Mul, BinaryOp::Div,
                              BinaryOp::Mod,   BinaryOp::Min,    BinaryOp::Max, BinaryOp::BitAnd,
                              BinaryOp::BitOr, BinaryOp::BitXor, BinaryOp::Shl, BinaryOp::Shr};
  const BinaryOp cmp_ops[] = {BinaryOp::EQ, BinaryOp::NE, BinaryOp::LT,
                              BinaryOp::LE, BinaryOp::GT, BinaryOp::GE};
  std::function<Expr(bool, int)> gen = [&](bool boolean, int depth) -> Expr {
    int pick = static_cast<int>(rng() % (depth > 0 ? 8 : 3));
    if (boolean) {
      switch (pick) {
        case 0: return v(p);
        case 1: return IntImm::make(DataType::boolean(), rng() % 2);
        case 2: return bin(cmp_ops[rng() % 6], gen(false, depth - 1), gen(false, depth - 1));
        case 3: return bin(BinaryOp::And, gen(true, depth - 1), gen(true, depth - 1));
        case 4: return bin(BinaryOp::Or, gen(true, depth - 1), gen(true, depth - 1));
        case 5: return Unary::make(UnaryOp::Not, gen(true, depth - 1));
        case 6:
          return bin(rng() % 2 ? BinaryOp::EQ : BinaryOp::BitXor, gen(true, depth - 1), gen(true, depth - 1));
        default: return bin(cmp_ops[rng() % 6], gen(false, depth - 1), gen(false, depth - 1));
      }
    }
    switch (pick) {
      case 0: return v(rng() % 2 ? a : b);
      case 1: return i32(static_cast<int64_t>(rng() % 21) - 10);
      case 2: return v(c);
      case 3: return Unary::make(rng() % 2 ? UnaryOp::Neg : UnaryOp::BitNot, gen(false, depth - 1));
      case 4: return Select::make(gen(true, depth - 1), gen(false, depth - 1), gen(false, depth - 1));
      default: return bin(int_ops[rng() % 12], gen(false, depth - 1), gen(false, depth - 1));
    }
  };
  Buffer R = BufferNode::make("R", DataType::i32(), {1});
  Buffer Q = BufferNode::make("Q", DataType::boolean(), {1});
  std::vector<Stmt> stmts;
  for (int n = 0; n < 400; ++n) stmts.push_back(Store::make(R, {i32(0)}, gen(false, 5)));
  for (int n = 0; n < 200; ++n) stmts.push_back(Store::make(Q, {i32(0)}, gen(true, 5)));
  // The named cases.
  stmts.push_back(Store::make(R, {i32(0)}, bin(BinaryOp::Mul, bin(BinaryOp::Add, v(a), v(b)), v(c))));
  stmts.push_back(Store::make(R, {i32(0)}, bin(BinaryOp::Sub, v(a), bin(BinaryOp::Sub, v(b), v(c)))));
  stmts.push_back(Store::make(R, {i32(0)}, Unary::make(UnaryOp::Neg, v(a))));
  stmts.push_back(Store::make(R, {i32(0)}, bin(BinaryOp::Shl, v(a), bin(BinaryOp::Add, v(b), v(c)))));
  Stmt body = Seq::make(stmts);
  body = LetStmt::make(p, bin(BinaryOp::LT, v(a), v(b)), body);
  body = LetStmt::make(c, i32(3), body);
  body = LetStmt::make(b, i32(2), body);
  body = LetStmt::make(a, i32(1), body);
  Module m{{PrimFunc{"ops", {}, {R, Q}, body, {}}}};
  std::string text = print_module(m);
  for (const char* s : {"(a + b) * c", "a - (b - c)", "-a", "a << (b + c)"})
    EXPECT_NE(text.find(s), std::string::npos) << s;
  expect_round_trip(m);
}

// The printer parenthesizes and the parser climbs by one operator table (DSPC_BINARY_OPS):
// every well-typed nesting of two infix operators, on either side, parses back to the tree
// that was printed.
TEST(TirParser, PrinterAndParserAgreeOnEveryOperatorPair) {
  std::vector<BinaryOp> infix;
#define DSPC_INFIX(N, S, P) \
  if (P > 0) infix.push_back(BinaryOp::N);
  DSPC_BINARY_OPS(DSPC_INFIX)
#undef DSPC_INFIX
  ASSERT_EQ(infix.size(), 18u);
  Buffer ints = BufferNode::make("A", DataType::i32(), {3});
  Buffer bools = BufferNode::make("P", DataType::boolean(), {3});
  auto leaf = [&](DataType t, int i) { return Load::make(t.is_bool() ? bools : ints, {i32(i)}); };
  auto operand_type = [](BinaryOp op) { return is_logical(op) ? DataType::boolean() : DataType::i32(); };
  int pairs = 0;
  for (BinaryOp outer : infix) {
    for (BinaryOp inner : infix) {
      for (bool inner_on_left : {true, false}) {
        Expr e;
        try {
          Expr in = bin(inner, leaf(operand_type(inner), 0), leaf(operand_type(inner), 1));
          Expr other = leaf(in.dtype(), 2);
          e = inner_on_left ? bin(outer, in, other) : bin(outer, other, in);
        } catch (const IRError&) {
          continue;  // ill-typed, e.g. (a < b) + c
        }
        Buffer out = BufferNode::make("C", e.dtype(), {1});
        Module m{{PrimFunc{"f", {ints, bools}, {out}, Store::make(out, {i32(0)}, e), {}}}};
        std::string text = print_module(m);
        Parsed p = parse(text);
        ASSERT_TRUE(p.module.has_value()) << p.errors << "\n" << text;
        EXPECT_TRUE(structural_equal(m, *p.module)) << text;
        ++pairs;
      }
    }
  }
  EXPECT_GE(pairs, 450);  // 496 today
}

TEST(TirParser, BareLiteralsTakeTheOtherOperandsDtype) {
  Parsed p = parse(
      "prim_func f(A: i8[4]) -> (C: i8[4], D: f32[1]) {\n"
      "  let x: u16 = 7\n"
      "  C[0] = A[1] + 5\n"
      "  C[x % 4] = 3\n"
      "  D[0] = 2\n"
      "  C[2] = i8(5 + 6)\n"
      "}\n");
  ASSERT_TRUE(p.module.has_value()) << p.errors;
  EXPECT_EQ(print_module(*p.module),
            "prim_func f(A: i8[4]) -> (C: i8[4], D: f32[1]) context(ctx: handle) {\n"
            "  let x: u16 = 7u16\n"
            "  C[0] = A[1] + 5i8\n"
            "  C[x % 4u16] = 3i8\n"
            "  D[0] = 2.0f32\n"
            "  C[2] = i8(5 + 6)\n"
            "}\n");
}

TEST(TirParser, ParsesPassOutputShape) {
  // What lower-vtcm-alloc prints, written by hand, and a second function after a blank line.
  const char* text =
      "// comment\n"
      "prim_func alloc_vtcm(A: i8[2048]) -> (C: i8[2048]) context(ctx: handle) {\n"
      "  let A_buf: handle = call_extern(\"HexagonBackendAllocateVTCM\", 2048, 2048, ctx)\n"
      "  if isnullptr(A_buf) {\n"
      "    throw_last_error()\n"
      "  } else {\n"
      "    decl_buffer A_buf: i8[2048] scope \"local.vtcm\"\n"
      "    for i in range(0, 2048) {\n"
      "      A_buf[i] = A[i]\n"
      "    }\n"
      "    for i in range(0, 2048) {\n"
      "      C[i] = A_buf[i] + -3i8\n"
      "    }\n"
      "    call_extern(\"HexagonBackendFreeVTCM\", A_buf, ctx)\n"
      "  }\n"
      "}\n"
      "\n"
      "prim_func empty(A: i8[1]) -> () context(ctx: handle) {\n"
      "}\n";
  Parsed p = parse(text);
  ASSERT_TRUE(p.module.has_value()) << p.errors;
  EXPECT_EQ(p.module->funcs.size(), 2u);
  EXPECT_FALSE(p.module->funcs[1].body);
  EXPECT_EQ(print_module(*p.module), std::string(text).substr(11));
}

struct TirDiag {
  const char* name;
  const char* source;
  const char* expected;
};

const TirDiag kTirDiags[] = {
    {"unknown_variable", "prim_func f() -> (C: i32[4]) {\n  C[0] = q\n}",
     "2:10: error: unknown variable 'q'"},
    {"unknown_buffer", "prim_func f() -> (C: i32[4]) {\n  X[0] = 1\n}", "2:3: error: unknown buffer 'X'"},
    {"out_of_scope",
     "prim_func f() -> (C: i32[4]) {\n  for i in range(0, 4) {\n    C[i] = 0\n  }\n  C[i] = 1\n}",
     "5:5: error: unknown variable 'i'"},
    {"let_scope_ends_with_block",
     "prim_func f() -> (C: i32[4]) {\n  {\n    let x: i32 = 1\n    C[0] = x\n  }\n  C[1] = x\n}",
     "6:10: error: unknown variable 'x'"},
    {"let_last", "prim_func f() -> (C: i32[4]) {\n  C[0] = 1\n  let x: i32 = 1\n}",
     "3:3: error: let must be followed by statements in its block"},
    {"let_type", "prim_func f() -> (C: i32[4]) {\n  let x: i8 = 1.5\n  C[0] = 1\n}",
     "2:3: error: let x has type i8 but its value has type f32"},
    {"unknown_extern", "prim_func f() -> (C: i32[4]) {\n  call_extern(\"nope\", 1)\n}",
     "2:3: error: unknown extern function 'nope'"},
    {"extern_args", "prim_func f() -> (C: i32[4]) {\n  call_extern(\"HexagonBackendFreeVTCM\", 1, ctx)\n}",
     "2:3: error: argument 1 of 'HexagonBackendFreeVTCM' must be handle, got i32"},
    {"loop_kind", "prim_func f() -> (C: i32[4]) {\n  for i in sometimes(0, 4) {\n    C[i] = 0\n  }\n}",
     "2:12: error: unknown loop kind 'sometimes'"},
    {"syntax", "prim_func f() -> (C: i32[4]) {\n  C[0] = (1 +\n}",
     "3:1: error: expected expression, found '}'"},
    {"store_type", "prim_func f(A: i8[4]) -> (C: i32[4]) {\n  C[0] = A[0]\n}",
     "2:3: error: storing i8 into buffer C of i32"},
    {"decl_non_handle",
     "prim_func f() -> (C: i32[4]) {\n  let h: i32 = 0\n  decl_buffer h: i8[4] scope \"global\"\n  C[0] = "
     "0\n}",
     "3:15: error: decl_buffer h needs a handle variable, but it has dtype i32"},
    {"empty", "// nothing\n", "1:1: error: empty module: expected 'prim_func'"},
    {"not_prim_func", "func f() -> (C: i32[4]) {}", "1:1: error: expected 'prim_func', found 'func'"},
    {"duplicate_function", "prim_func f() -> () {\n}\nprim_func f() -> () {\n}",
     "3:11: error: duplicate function 'f'"},
    {"empty_loop", "prim_func f() -> (C: i32[4]) {\n  for i in range(0, 4) {\n  }\n}",
     "2:3: error: empty block"},
    {"param_too_many_bytes", "prim_func f(A: i32[600000000]) -> (C: i32[4]) {\n  C[0] = 0\n}",
     "1:13: error: buffer 'A' needs 2400000000 bytes, more than the limit of 2147483647"},
    {"result_too_many_elements", "prim_func f() -> (C: i8[65536, 65536]) {\n  C[0, 0] = 0i8\n}",
     "1:19: error: buffer 'C' is too large: more than 2^31 elements"},
    {"allocate_too_many_bytes",
     "prim_func f() -> (C: i32[4]) {\n  allocate T: i16[1073741824] scope \"global\" {\n    T[0] = 1i16\n  "
     "}\n}",
     "2:12: error: buffer 'T' needs 2147483648 bytes, more than the limit of 2147483647"},
    {"decl_buffer_too_many_bytes",
     "prim_func f() -> (C: i32[4]) {\n  let h: handle = call_extern(\"HexagonBackendAllocateVTCM\", 2048, "
     "2048, ctx)\n"
     "  decl_buffer h: f32[600000000] scope \"local.vtcm\"\n  C[0] = 0\n}",
     "3:15: error: buffer 'h' needs 2400000000 bytes, more than the limit of 2147483647"},
    {"unknown_scope",
     "prim_func f() -> (C: i32[4]) {\n  allocate T: i8[4] scope \"shared\" {\n    T[0] = 1i8\n  }\n}",
     "2:12: error: unknown storage scope 'shared'"},
    {"loop_extent_too_large",
     "prim_func f() -> (C: i32[4]) {\n  for i in range(0, 2147483648) {\n    C[0] = 0\n  }\n}",
     "2:21: error: loop extent 2147483648 is more than the limit of 2147483647"},
    {"loop_end_too_large",
     "prim_func f() -> (C: i32[4]) {\n  for i in range(5, 2147483643) {\n    C[0] = 0\n  }\n}",
     "2:21: error: loop 'i' ends at 2147483648 (min + extent), more than the limit of 2147483647"},
};

TEST(TirParser, LocatedErrors) {
  for (const TirDiag& c : kTirDiags) {
    Parsed p = parse(c.source);
    EXPECT_FALSE(p.module.has_value()) << c.name;
    EXPECT_NE(p.errors.find(std::string("test.tir:") + c.expected + "\n"), std::string::npos)
        << c.name << ": want " << c.expected << "\ngot:\n"
        << p.errors;
    EXPECT_EQ(p.errors.find(": error: "), p.errors.rfind(": error: ")) << c.name << ": one error\n"
                                                                       << p.errors;
  }
}

// Buffers hold at most 2^31-1 bytes; literal loop bounds end within i32.
TEST(TirParser, SizeLimitsAreExact) {
  auto with_param = [](const std::string& decl) {
    return parse("prim_func f(" + decl + ") -> (C: i32[4]) {\n  C[0] = 0\n}");
  };
  Parsed p = with_param("A: f64[268435455]");
  ASSERT_TRUE(p.module.has_value()) << p.errors;
  EXPECT_EQ(p.module->funcs[0].inputs[0]->shape, std::vector<int64_t>{268435455});
  p = with_param("A: f64[268435456]");
  EXPECT_NE(
      p.errors.find("1:13: error: buffer 'A' needs 2147483648 bytes, more than the limit of 2147483647"),
      std::string::npos)
      << p.errors;
  EXPECT_TRUE(with_param("A: bool[2147483647]").module.has_value());
  EXPECT_NE(with_param("A: bool[2147483648]").errors.find("error: buffer 'A' needs 2147483648 bytes"),
            std::string::npos);
  EXPECT_TRUE(with_param("A: i16[32768, 32767]").module.has_value());
  EXPECT_NE(with_param("A: i16[32768, 32768]").errors.find("error: buffer 'A' needs 2147483648 bytes"),
            std::string::npos);
  // A zero extent is a buffer without elements; a huge extent next to it is still too large.
  EXPECT_TRUE(with_param("A: i8[0, 4]").module.has_value());
  EXPECT_NE(
      with_param("A: i8[0, 99999999999]").errors.find("1:13: error: buffer 'A' is too large: more than 2^31 elements"),
      std::string::npos);

  auto with_loop = [](const std::string& bounds) {
    return parse("prim_func f() -> (C: i32[4]) {\n  let m: i32 = 7\n  for i in range(" + bounds +
                 ") {\n    C[0] = i\n  }\n}");
  };
  for (const char* ok :
       {"0, 2147483647", "2147483646, 1", "-5, 2147483647", "m, 2147483647", "2147483647, m"}) {
    p = with_loop(ok);
    EXPECT_TRUE(p.module.has_value()) << ok << ": " << p.errors;
  }
  p = with_loop("2147483647, 1");
  EXPECT_NE(p.errors.find(
                "3:30: error: loop 'i' ends at 2147483648 (min + extent), more than the limit of 2147483647"),
            std::string::npos)
      << p.errors;
  p = with_loop("m, 4294967296");
  EXPECT_NE(p.errors.find("3:21: error: loop extent 4294967296 is more than the limit of 2147483647"),
            std::string::npos)
      << p.errors;
}

TEST(TirParser, ErrorInOneFunctionDoesNotHideTheNext) {
  Parsed p =
      parse("prim_func f() -> (C: i32[4]) {\n  C[0] = q\n}\nprim_func g() -> (C: i32[4]) {\n  C[0] = r\n}\n");
  EXPECT_NE(p.errors.find("test.tir:2:10: error: unknown variable 'q'"), std::string::npos) << p.errors;
  EXPECT_NE(p.errors.find("test.tir:5:10: error: unknown variable 'r'"), std::string::npos) << p.errors;
}

TEST(TirParser, LooksLikeTir) {
  EXPECT_TRUE(looks_like_tir("prim_func f() -> () {}"));
  EXPECT_TRUE(looks_like_tir("// a comment\n# another\n  prim_func f"));
  EXPECT_FALSE(looks_like_tir("func f(A: i8[4]) -> (C: i8[4]) { C[i] = A[i] }"));
  EXPECT_FALSE(looks_like_tir("# prim_func in a comment\nfunc"));
  EXPECT_FALSE(looks_like_tir("prim_funcs"));
  EXPECT_FALSE(looks_like_tir(""));
}

TEST(TirParser, DeepNestingIsAnError) {
  std::string deep = "prim_func f() -> (C: i32[4]) {\n";
  for (int k = 0; k < 5000; ++k) deep += "{\n";
  deep += "C[0] = 1\n";
  for (int k = 0; k < 5000; ++k) deep += "}\n";
  Parsed p = parse(deep + "}\n");
  EXPECT_NE(p.errors.find("error: statements are too deeply nested"), std::string::npos)
      << p.errors.substr(0, 300);
  std::string lets = "prim_func f() -> (C: i32[4]) {\n";
  for (int k = 0; k < 5000; ++k) lets += "let x: i32 = 1\n";
  p = parse(lets + "C[0] = x\n}\n");
  EXPECT_NE(p.errors.find("error: statements are too deeply nested"), std::string::npos)
      << p.errors.substr(0, 300);
  p = parse("prim_func f() -> (C: i32[4]) {\n  C[0] = " + std::string(20000, '(') + "1" +
            std::string(20000, ')') + "\n}\n");
  EXPECT_NE(p.errors.find("error: expression is too deeply nested"), std::string::npos);
}

TEST(TirParser, SurvivesMutatedPrintedModules) {
  std::string text = print_module(every_node_kind());
  std::mt19937 rng(99);
  for (int n = 0; n < 1000; ++n) {
    std::string s = text;
    for (int e = 0; e < 3; ++e) {
      size_t pos = rng() % s.size();
      switch (rng() % 3) {
        case 0: s[pos] = static_cast<char>(rng() % 256); break;
        case 1: s.erase(pos, 1 + rng() % 16); break;
        default: s.insert(pos, s.substr(rng() % s.size(), 1 + rng() % 32)); break;
      }
    }
    SourceFile src{"fuzz.tir", s};
    std::ostringstream out;
    Diagnostics diag(out, &src);
    std::optional<Module> m;
    ASSERT_NO_THROW(m = parse_tir(src, diag)) << s;
    EXPECT_EQ(m.has_value(), out.str().empty()) << s << "\n" << out.str();
    if (m) {
      // Whatever parses prints and parses back to the same text.
      std::string printed = print_module(*m);
      Parsed again = parse(printed);
      ASSERT_TRUE(again.module.has_value()) << again.errors << "\n" << printed;
      EXPECT_EQ(print_module(*again.module), printed);
    }
  }
}

}  // namespace
}  // namespace dspc

namespace dspc {
namespace {

// At the nesting limits (statements and expressions together) nothing overflows the stack.
TEST(TirParser, DeepestAcceptedInputParses) {
  std::string text = "prim_func f() -> (C: i32[4]) {\n";
  for (int k = 0; k < 1000; ++k) text += "for i" + std::to_string(k) + " in range(0, 1) {\n";
  std::string e = "1";
  for (int k = 0; k < 1000; ++k) e = "(" + e + " - 1)";
  text += "C[0] = 1 - " + e + "\n";
  for (int k = 0; k < 1000; ++k) text += "}\n";
  text += "}\n";
  Parsed p = parse(text);
  ASSERT_TRUE(p.module.has_value()) << p.errors.substr(0, 500);
  EXPECT_EQ(print_module(*p.module), print_module(*parse(print_module(*p.module)).module));
}

// The context parameter: declared with `context(NAME: handle)` (any name), or added as `ctx`
// (`ctx_1` when a parameter is named ctx) when hand-written TIR leaves it out.
TEST(TirParser, ContextParameter) {
  Parsed p = parse(
      "prim_func f() -> (C: i32[4]) context(dev: handle) {\n"
      "  let h: handle = call_extern(\"HexagonBackendAllocateVTCM\", 16, 2048, dev)\n"
      "  C[0] = 0\n"
      "}\n");
  ASSERT_TRUE(p.module.has_value()) << p.errors;
  EXPECT_EQ(p.module->funcs[0].ctx->name, "dev");
  EXPECT_NE(print_module(*p.module).find("context(dev: handle)"), std::string::npos);
  Parsed implicit = parse("prim_func f(ctx: i8[4]) -> (C: i32[4]) {\n  C[0] = 0\n}\n");
  ASSERT_TRUE(implicit.module.has_value()) << implicit.errors;
  EXPECT_EQ(implicit.module->funcs[0].ctx->name, "ctx_1");
  EXPECT_EQ(print_module(*implicit.module),
            "prim_func f(ctx: i8[4]) -> (C: i32[4]) context(ctx_1: handle) {\n  C[0] = 0\n}\n");
  Parsed wrong = parse("prim_func f() -> (C: i32[4]) context(ctx: i32) {\n  C[0] = 0\n}\n");
  EXPECT_FALSE(wrong.module.has_value());
  EXPECT_NE(wrong.errors.find("test.tir:1:43: error: the context parameter must be handle, got i32"), std::string::npos)
      << wrong.errors;
  Parsed clash = parse("prim_func f(ctx: i8[4]) -> (C: i32[4]) context(ctx: handle) {\n  C[0] = 0\n}\n");
  EXPECT_FALSE(clash.module.has_value());
  EXPECT_NE(clash.errors.find("duplicate parameter 'ctx'"), std::string::npos) << clash.errors;
}

}  // namespace
}  // namespace dspc
