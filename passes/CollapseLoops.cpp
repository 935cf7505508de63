// collapse-loops (CollapseLoops.h).
//
// The rule: `for y in [ymin, ymin + H): for x in [xmin, xmin + N): S`, both serial loops of
// constant extent, the inner one the outer one's whole body, S straight-line code (no loop, no
// allocation) that stores at least one vector and loads nothing it stores. Every expression of S that mentions y or x is
// affine in them, or built of such affine pieces: a sum of integer terms, each a product of
// constants and at most one of y and x, whose coefficients cy and cx satisfy cy = N cx. Such a
// piece is cx (N (y - ymin) + (x - xmin)) + (cy ymin + cx xmin + the rest): with
// t = N (y - ymin) + (x - xmin), which runs over [0, H N) in the nest's order, it is the same
// piece with y := ymin and x := xmin + t, exactly (integer arithmetic modulo 2^bits is a ring,
// so this holds where the index arithmetic wraps too). So S with those substitutions, over
// `for t in [0, H N)`, does what the nest did in the same order. A piece that is not of that
// form (y alone, y / 2, a product of y by a variable, a row stride that is not N cx: the rows
// are not contiguous, an edge box of a partitioned stage) leaves the nest as it is. An inner
// loop of one iteration needs no such form: y := ymin + t and x := xmin.
//
// Why: LLVM unrolls and software-pipelines the innermost loop, and its prologue and epilogue
// run once per run of the loop: for a pointwise stage over rows of 1024 i16, 16 vectors per
// row, they cost as much as the row's loop itself (mulhi_rnd_i16: 19 packets of prologue and
// epilogue around 16 of steady state per row). Nests of three or more loops collapse pair by
// pair from the inside.
#include "passes/CollapseLoops.h"

#include <climits>
#include <set>

#include "compiler/arith/Simplify.h"
#include "compiler/ir/IRVisitor.h"
#include "passes/support/StageLoopNest.h"

namespace dspc {

namespace {

// Straight-line code that stores a vector and reads nothing it stores: no loop, no
// allocation, no state carried from one iteration to the next (a reduction's accumulators,
// which LLVM keeps in registers across a loop it unrolls whole: hist16_u8's bins, 64,576
// packets per 128 outputs with their rows of 8 vectors, 70,720 collapsed).
bool straight_vector_code(const Stmt& s) {
  struct Check : IRVisitor {
    bool loop = false, vector_store = false;
    std::set<const BufferNode*> stored, loaded;
    void visit_For(const For*) override { loop = true; }
    void visit_Allocate(const Allocate*) override { loop = true; }
    void visit_Store(const Store* op) override {
      vector_store |= !op->value.dtype().is_scalar();
      stored.insert(op->buffer.get());
      IRVisitor::visit_Store(op);
    }
    void visit_Load(const Load* op) override {
      loaded.insert(op->buffer.get());
      IRVisitor::visit_Load(op);
    }
  } c;
  c.visit(s);
  for (const BufferNode* b : c.stored)
    if (c.loaded.count(b)) return false;
  return !c.loop && c.vector_store;
}

// Rewrites the pieces of a loop body that are affine in (y, x) with cy = N cx; `ok` turns
// false at the first use of y or x in any other form.
class Collapser : public IRMutator {
 public:
  Collapser(const VarNode* y, const VarNode* x, int64_t n, Expr y_value, Expr x_value)
      : y_(y), x_(x), n_(n), values_{{y, std::move(y_value)}, {x, std::move(x_value)}} {}
  bool ok = true;

  using IRMutator::mutate;
  Expr mutate(const Expr& e) override {
    if (!ok || !e || (!mentions(e, y_) && !mentions(e, x_))) return e;
    int64_t cy = 0, cx = 0;
    if (e.dtype().is_scalar() && e.dtype().is_integer() && affine(e, cy, cx)) {
      if (cy != n_ * cx) {
        ok = false;
        return e;
      }
      return simplify_expr(substitute(e, values_));
    }
    return IRMutator::mutate(e);
  }

 private:
  // e = cy y + cx x + (terms without y and x), through +, - and products by a constant.
  bool affine(const Expr& e, int64_t& cy, int64_t& cx) {
    if (const auto* v = e.as<VarNode>()) {
      cy = v == y_;
      cx = v == x_;
      return true;
    }
    if (!mentions(e, y_) && !mentions(e, x_)) {
      cy = cx = 0;
      return true;
    }
    const auto* b = e.as<Binary>();
    if (!b) return false;
    int64_t ay, ax, by, bx;
    switch (b->op) {
      case BinaryOp::Add:
      case BinaryOp::Sub: {
        if (!affine(b->a, ay, ax) || !affine(b->b, by, bx)) return false;
        int64_t s = b->op == BinaryOp::Add ? 1 : -1;
        return !__builtin_add_overflow(ay, s * by, &cy) && !__builtin_add_overflow(ax, s * bx, &cx);
      }
      case BinaryOp::Mul: {
        const IntImm* k = as_int(b->b);
        const Expr* other = &b->a;
        if (!k) {
          k = as_int(b->a);
          other = &b->b;
        }
        if (!k || !affine(*other, ay, ax)) return false;
        return !__builtin_mul_overflow(ay, k->value, &cy) && !__builtin_mul_overflow(ax, k->value, &cx);
      }
      default:
        return false;
    }
  }

  const VarNode* y_;
  const VarNode* x_;
  int64_t n_;
  std::map<const VarNode*, Expr> values_;
};

class CollapseLoops : public IRMutator {
 public:
  Stmt mutate_For(const For* op, const Stmt& self) override {
    Stmt s = IRMutator::mutate_For(op, self);
    const For* outer = s.as<For>();
    const For* inner = outer ? outer->body.as<For>() : nullptr;
    if (!inner || outer->for_kind != ForKind::Serial || inner->for_kind != ForKind::Serial) return s;
    const IntImm* h = as_int(outer->extent);
    const IntImm* n = as_int(inner->extent);
    if (!h || !n || h->value < 1 || n->value < 1 || h->value > INT32_MAX / n->value) return s;
    const VarNode* y = outer->var.get();
    const VarNode* x = inner->var.get();
    if (mentions(inner->min, y) || !straight_vector_code(inner->body)) return s;
    VarRef t = VarNode::make(outer->var->name + "_" + inner->var->name, DataType::i32(), outer->var->span);
    Stmt body;
    if (n->value == 1) {
      // One iteration of x: y := ymin + t, x := xmin, whatever the body does with them.
      Expr y_value = simplify_expr(Binary::make(BinaryOp::Add, outer->min, var_expr(t)));
      body = simplify_stmt(substitute(inner->body, {{y, y_value}, {x, inner->min}}));
    } else {
      Expr x_value = simplify_expr(Binary::make(BinaryOp::Add, inner->min, var_expr(t)));
      Collapser c(y, x, n->value, outer->min, x_value);
      body = c.mutate(inner->body);
      if (!c.ok) return s;
    }
    if (mentions(body, y) || mentions(body, x)) return s;
    return For::make(t, make_i32(0), make_i32(h->value * n->value), ForKind::Serial, body, outer->span);
  }
};

}  // namespace

Module collapse_loops(const Module& m, const LowerOptions&) { return mutate_module<CollapseLoops>(m); }

}  // namespace dspc
