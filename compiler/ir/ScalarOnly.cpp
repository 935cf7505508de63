#include "compiler/ir/ScalarOnly.h"

#include "compiler/ir/IRVisitor.h"

namespace dspc {

bool must_stay_scalar(const Stmt& body, bool hexagon) {
  struct Finder : IRVisitor {
    using IRVisitor::visit;
    bool hexagon = false;
    bool found = false;
    void visit(const Expr& e) override {
      if (found || !e) return;
      if (hexagon && (e.dtype().is_float() || (e.dtype().bits == 64 && !e.dtype().is_handle()))) {
        found = true;
        return;
      }
      IRVisitor::visit(e);
    }
    void visit_Binary(const Binary* op) override {
      if ((op->op == BinaryOp::Div || op->op == BinaryOp::Mod) && op->dtype.is_integer() && !as_int(op->b))
        found = true;
      IRVisitor::visit_Binary(op);
    }
  } f;
  f.hexagon = hexagon;
  f.visit(body);
  return f.found;
}

bool computes_64bit(const Stmt& body) {
  struct Finder : IRVisitor {
    using IRVisitor::visit;
    bool found = false;
    void visit(const Expr& e) override {
      if (found || !e) return;
      if (e.dtype().bits == 64 && !e.dtype().is_handle()) {
        found = true;
        return;
      }
      IRVisitor::visit(e);
    }
  } f;
  f.visit(body);
  return f.found;
}

}  // namespace dspc
