// verify-vtcm-limit
//  1. Walk each function keeping a stack of the enclosing VTCM allocations (an `allocate`
//     with scope "local.vtcm", or a let of HexagonBackendAllocateVTCM with a constant size).
//  2. At each VTCM allocation, live bytes = its size + the sizes on the stack.
//  3. The first time live bytes exceed the capacity in a function, report an error at that
//     allocation and a note at each other live one; keep walking without reporting again.
#include "passes/VerifyVtcmLimit.h"

#include <string>
#include <vector>

#include "compiler/ir/Externs.h"
#include "compiler/ir/IRVisitor.h"
#include "passes/PlanVtcm.h"

namespace dspc {

namespace {

struct LiveVtcm {
  std::string name;
  int64_t bytes;
  Span span;
};

class VtcmLimitChecker : public IRVisitor {
 public:
  VtcmLimitChecker(int64_t capacity, std::string capacity_source, Diagnostics& diag)
      : capacity_(capacity), capacity_source_(std::move(capacity_source)), diag_(diag) {}

  void visit_Allocate(const Allocate* op) override {
    if (op->buffer->scope != StorageScope::Vtcm) {
      IRVisitor::visit_Allocate(op);
      return;
    }
    enter({op->buffer->name, op->buffer->size_bytes(), op->span});
    IRVisitor::visit_Allocate(op);
    live_.pop_back();
  }

  void visit_LetStmt(const LetStmt* op) override {
    const ExternFunction* alloc = called_allocator(op->value);
    const IntImm* bytes = alloc && alloc->pool == AllocPool::Vtcm
                              ? as_int(op->value.as<Call>()->args[alloc->bytes_arg])
                              : nullptr;
    if (!bytes) {
      IRVisitor::visit_LetStmt(op);
      return;
    }
    enter({op->var->name, bytes->value, op->span});
    IRVisitor::visit_LetStmt(op);
    live_.pop_back();
  }

 private:
  void enter(LiveVtcm alloc) {
    live_.push_back(std::move(alloc));
    int64_t total = 0;
    for (const auto& a : live_) total += a.bytes;
    if (reported_ || total <= capacity_) return;
    reported_ = true;
    const LiveVtcm& last = live_.back();
    diag_.error(last.span, "allocating " + std::to_string(last.bytes) + " bytes of VTCM for " + last.name +
                               " brings live VTCM use to " + std::to_string(total) +
                               " bytes, over the capacity of " + std::to_string(capacity_) + " bytes (" +
                               capacity_source_ + ")");
    for (size_t i = 0; i + 1 < live_.size(); ++i)
      diag_.note(live_[i].span,
                 live_[i].name + " uses " + std::to_string(live_[i].bytes) + " bytes of VTCM here");
  }

  int64_t capacity_;
  std::string capacity_source_;
  Diagnostics& diag_;
  std::vector<LiveVtcm> live_;
  bool reported_ = false;
};

}  // namespace

Module verify_vtcm_limit(const Module& m, const LowerOptions& options, Diagnostics& diag) {
  std::string source = options.vtcm_capacity >= 0 ? "set by --vtcm-capacity" : options.target.name;
  for (const auto& f : m.funcs) {
    // With the plan, plan-vtcm checks the arena it lays out, which is what runs.
    if (options.plan_vtcm && vtcm_plannable(f.body)) continue;
    VtcmLimitChecker checker(options.effective_vtcm_capacity(), source, diag);
    checker.visit(f.body);
  }
  return m;
}

}  // namespace dspc
