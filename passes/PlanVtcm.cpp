// plan-vtcm
//  1. Lifetimes: walk the body in execution order, numbering the leaf statements (stores,
//     evaluates). An access to a VTCM buffer at position p makes it live at p; if the access
//     is inside loops that are themselves inside the buffer's `allocate`, the outermost such
//     loop's whole span is live (the loop repeats).
//  2. Packing: largest buffer first (ties: earliest lifetime); its offset is the lowest
//     multiple of the alignment, among 0 and the aligned ends of placed buffers whose
//     lifetimes overlap its own, that overlaps none of those buffers.
//  3. Check the arena against the capacity, then rewrite (two or more buffers): the arena
//     `allocate` around the body, a `let` of handle_add(arena, offset) + `decl_buffer` for
//     each buffer, after a memory_barrier() where the buffer reuses bytes of an earlier one.
#include "passes/PlanVtcm.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "compiler/ir/Externs.h"
#include "compiler/ir/IRVisitor.h"

namespace dspc {

namespace {

int64_t align_up(int64_t v, int64_t a) {
  return a > 1 ? (v + a - 1) / a * a : v;
}

class Lifetimes : public IRVisitor {
 public:
  struct Info {
    Buffer buffer;
    size_t loop_depth = 0;  // loops open at its allocate
    int64_t first = INT64_MAX, last = -1;
  };
  std::vector<const VarNode*> order;  // allocates in program order
  std::map<const VarNode*, Info> info;
  bool has_lowered_vtcm = false;  // a VTCM allocation call is already there: leave the function

  void visit_Allocate(const Allocate* op) override {
    if (op->buffer->scope == StorageScope::Vtcm) {
      const VarNode* v = op->buffer->data.get();
      order.push_back(v);
      info[v] = Info{op->buffer, loop_ids_.size()};
    }
    IRVisitor::visit_Allocate(op);
  }
  void visit_For(const For* op) override {
    visit(op->min);
    visit(op->extent);
    size_t id = spans_.size();
    spans_.push_back({pos_ + 1, -1});
    loop_ids_.push_back(id);
    visit(op->body);
    spans_[id].second = pos_;
    loop_ids_.pop_back();
  }
  void visit_Store(const Store* op) override {
    ++pos_;
    touch(op->buffer->data.get());
    IRVisitor::visit_Store(op);
  }
  void visit_Evaluate(const Evaluate* op) override {
    ++pos_;
    IRVisitor::visit_Evaluate(op);
  }
  void visit_LetStmt(const LetStmt* op) override {
    if (const ExternFunction* fn = called_allocator(op->value); fn && fn->pool == AllocPool::Vtcm)
      has_lowered_vtcm = true;
    ++pos_;
    IRVisitor::visit_LetStmt(op);
  }
  void visit_IfThenElse(const IfThenElse* op) override {
    ++pos_;
    IRVisitor::visit_IfThenElse(op);
  }
  void visit_Load(const Load* op) override {
    touch(op->buffer->data.get());
    IRVisitor::visit_Load(op);
  }
  void visit_Var(const VarNode* op) override { touch(op); }

  // Applies the loop spans recorded with each access.
  void finish() {
    for (auto& [v, loop] : pending_) {
      Info& i = info[v];
      i.first = std::min(i.first, spans_[loop].first);
      i.last = std::max(i.last, spans_[loop].second);
    }
  }

 private:
  void touch(const VarNode* v) {
    auto it = info.find(v);
    if (it == info.end()) return;
    Info& i = it->second;
    i.first = std::min(i.first, pos_);
    i.last = std::max(i.last, pos_);
    // The outermost loop inside the allocate that holds this access.
    if (loop_ids_.size() > i.loop_depth) pending_.insert({v, loop_ids_[i.loop_depth]});
  }

  int64_t pos_ = 0;
  std::vector<std::pair<int64_t, int64_t>> spans_;
  std::vector<size_t> loop_ids_;
  std::set<std::pair<const VarNode*, size_t>> pending_;
};

bool overlap(const VtcmPlan::Slot& a, const VtcmPlan::Slot& b) {
  if (a.last < a.first || b.last < b.first) return false;
  return a.first <= b.last && b.first <= a.last;
}

class Rewriter : public IRMutator {
 public:
  Rewriter(const VtcmPlan& plan, VarRef arena) : arena_(std::move(arena)) {
    for (const auto& s : plan.slots) {
      offsets_[s.buffer->data.get()] = s.offset;
      for (const auto& o : plan.slots)
        if (o.last >= o.first && o.last < s.first && o.offset < s.offset + s.buffer->size_bytes() &&
            s.offset < o.offset + o.buffer->size_bytes())
          reuses_.insert(s.buffer->data.get());
    }
  }
  Stmt mutate_Allocate(const Allocate* op, const Stmt& self) override {
    auto it = offsets_.find(op->buffer->data.get());
    if (it == offsets_.end()) return IRMutator::mutate_Allocate(op, self);
    Span s = op->span;
    Expr at = Call::make(CallKind::Intrinsic, kHandleAdd, {var_expr(arena_), make_i32(it->second)}, s);
    Stmt let = LetStmt::make(op->buffer->data, at, DeclBuffer::make(op->buffer, mutate(op->body), s), s);
    if (!reuses_.count(op->buffer->data.get())) return let;
    // The buffer reuses bytes of one that is dead now. Its first store must not share a packet
    // with the old buffer's last one: LLVM 19 packs two stores to one address into a packet,
    // and qemu-hexagon then keeps the old (HVX) store's bytes (found by tools/difftest.py,
    // tests/difftest/regressions/vtcm_reuse_packet.dsp).
    Stmt barrier = Evaluate::make(Call::make(CallKind::Intrinsic, kMemoryBarrier, {}, s), s);
    return Seq::make({barrier, let}, s);
  }

 private:
  VarRef arena_;
  std::map<const VarNode*, int64_t> offsets_;
  std::set<const VarNode*> reuses_;
};

}  // namespace

bool vtcm_plannable(const Stmt& body) {
  Lifetimes probe;
  probe.visit(body);
  return !probe.order.empty() && !probe.has_lowered_vtcm;
}

VtcmPlan plan_vtcm_layout(const Stmt& body, int64_t alignment) {
  Lifetimes lt;
  lt.visit(body);
  lt.finish();
  VtcmPlan plan;
  for (const VarNode* v : lt.order) {
    const auto& i = lt.info[v];
    plan.slots.push_back({i.buffer, 0, i.last < 0 ? 0 : i.first, i.last});
  }
  std::vector<size_t> by_size(plan.slots.size());
  for (size_t k = 0; k < by_size.size(); ++k) by_size[k] = k;
  std::stable_sort(by_size.begin(), by_size.end(), [&](size_t a, size_t b) {
    int64_t sa = plan.slots[a].buffer->size_bytes(), sb = plan.slots[b].buffer->size_bytes();
    return sa != sb ? sa > sb : plan.slots[a].first < plan.slots[b].first;
  });
  std::vector<size_t> placed;
  for (size_t k : by_size) {
    VtcmPlan::Slot& s = plan.slots[k];
    int64_t size = s.buffer->size_bytes();
    std::vector<int64_t> candidates = {0};
    for (size_t p : placed)
      if (overlap(s, plan.slots[p]))
        candidates.push_back(align_up(plan.slots[p].offset + plan.slots[p].buffer->size_bytes(), alignment));
    std::sort(candidates.begin(), candidates.end());
    for (int64_t at : candidates) {
      bool free = true;
      for (size_t p : placed) {
        const VtcmPlan::Slot& o = plan.slots[p];
        if (overlap(s, o) && at < o.offset + o.buffer->size_bytes() && o.offset < at + size) free = false;
      }
      if (free) {
        s.offset = at;
        break;
      }
    }
    placed.push_back(k);
    plan.arena_bytes = std::max(plan.arena_bytes, s.offset + size);
  }
  return plan;
}

Module plan_vtcm(const Module& m, const LowerOptions& options, Diagnostics& diag) {
  if (!options.plan_vtcm) return m;
  Module out = m;
  std::string source = options.vtcm_capacity >= 0 ? "set by --vtcm-capacity" : options.target.name;
  int64_t capacity = options.effective_vtcm_capacity();
  for (auto& f : out.funcs) {
    if (!vtcm_plannable(f.body)) continue;
    VtcmPlan plan = plan_vtcm_layout(f.body, options.target.vtcm_alignment);
    if (plan.arena_bytes > capacity) {
      const VtcmPlan::Slot* end = &plan.slots[0];
      for (const auto& s : plan.slots)
        if (s.offset + s.buffer->size_bytes() >= end->offset + end->buffer->size_bytes()) end = &s;
      diag.error(end->buffer->span, "the VTCM plan of " + f.name + " needs " + std::to_string(plan.arena_bytes) +
                                        " bytes, over the capacity of " + std::to_string(capacity) + " bytes (" +
                                        source + "): " + end->buffer->name + " ends the arena, " +
                                        std::to_string(end->buffer->size_bytes()) + " bytes at offset " +
                                        std::to_string(end->offset));
      for (const auto& s : plan.slots)
        if (&s != end)
          diag.note(s.buffer->span, s.buffer->name + " uses " + std::to_string(s.buffer->size_bytes()) +
                                        " bytes of VTCM at offset " + std::to_string(s.offset));
      continue;
    }
    if (plan.slots.size() < 2) continue;
    std::string name = "vtcm_arena";
    for (int k = 2; std::any_of(plan.slots.begin(), plan.slots.end(), [&](const auto& s) { return s.buffer->name == name; }); ++k)
      name = "vtcm_arena_" + std::to_string(k);
    Buffer arena = BufferNode::make(name, DataType::u8(), {plan.arena_bytes}, StorageScope::Vtcm);
    Rewriter rw(plan, arena->data);
    f.body = Allocate::make(arena, rw.mutate(f.body));
  }
  return out;
}

}  // namespace dspc
