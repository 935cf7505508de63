// The .dsp schedule checks (DspSchedule.h). Loop primitives are applied to a LoopSchedule per
// stage, which reports their errors; compute_inline and compute_at are checked here against
// the stages and each other.
#include "compiler/frontend/DspSchedule.h"

#include <algorithm>

#include "compiler/ir/IRVisitor.h"
#include "compiler/ir/LoopSchedule.h"

namespace dspc::frontend {

namespace {

class ScheduleChecker {
 public:
  ScheduleChecker(const std::vector<SchedCall>& calls, const std::set<size_t>& scope_calls,
                  const ScheduleScope& scope, std::vector<Stage>& stages, ErrorLog& log)
      : calls_(calls), scope_calls_(scope_calls), scope_(scope), stages_(stages), log_(log) {}

  // cache_read and cache_write rewrite the stage list as they come, so that later lines can
  // schedule the stages they add: the checker keeps its own copy of the function's names.

  // The other primitives need the stages' variables: they are checked after the stages, in
  // source order, and every primitive is attached to its stage. After an error in one stage's
  // schedule, its later primitives are not checked (one mistake, one error).
  void run() {
    std::map<std::string, LoopSchedule> loops;
    loops_ = &loops;
    // A stage's loops as its schedule so far makes them: built on first use, then kept up to
    // date by the primitives applied to it.
    auto loops_of = [&](const Stage& st) -> LoopSchedule& {
      auto it = loops.find(st.out->name);
      if (it == loops.end()) it = loops.emplace(st.out->name, loop_schedule(st)).first;
      return it->second;
    };
    std::set<std::string> failed;
    for (size_t n = 0; n < calls_.size(); ++n) {
      SchedCall c = calls_[n];
      std::optional<ScheduleKind> kind = schedule_kind_named(c.prim);
      if (kind && schedule_role(*kind) == ScheduleRole::Rewrite) {
        if (!failed.count(c.target) && !cache(c)) failed.insert(c.target);
        continue;
      }
      // After C.cache_write(...), C's loop primitives schedule the stage that computes it.
      // Placement primitives are refused there: cache_write is for a stage stored whole.
      if (kind != ScheduleKind::SetScope)
        if (auto w = computed_in_.find(c.target); w != computed_in_.end()) {
          if (kind && schedule_role(*kind) == ScheduleRole::Place) {
            if (!failed.count(w->second))
              log_.error(c.prim_span, "cannot " + c.prim + " '" + c.target + "': it is computed in '" + w->second +
                                          "' by cache_write, which stores it whole");
            failed.insert(w->second);
            continue;
          }
          c.target = w->second;
        }
      auto at = scope_.stage_index.find(c.target);
      if (kind == ScheduleKind::SetScope) {
        if (scope_calls_.count(n) && at != scope_.stage_index.end()) {
          SchedulePrimitive p = primitive_head(c, ScheduleKind::SetScope);
          p.scope = *parse_storage_scope(c.args[0].tok.text);  // set_scope checked it
          stages_[at->second].schedule.push_back(std::move(p));
        }
        continue;
      }
      std::optional<SchedulePrimitive> p = primitive(c);
      if (!p) {
        failed.insert(c.target);
        continue;
      }
      if (at == scope_.stage_index.end() || failed.count(c.target)) continue;
      Stage& st = stages_[at->second];
      LoopSchedule& st_loops = loops_of(st);
      if (!check_inline(c, *p, st, st_loops) || !check_compute_at(c, *p, st) || !check_align(c, *p, st) ||
          !check_prefetch(c, *p, st)) {
        failed.insert(c.target);
        continue;
      }
      if (auto e = st_loops.apply(*p)) {
        log_.error(e->span, e->message);
        failed.insert(c.target);
        continue;
      }
      st.schedule.push_back(std::move(*p));
    }
    // A prefetch names a loop of its stage's final schedule, not a vectorized one.
    for (const auto& st : stages_) {
      if (failed.count(st.out->name)) continue;
      for (const auto& p : st.schedule) {
        if (p.kind != ScheduleKind::Prefetch) continue;
        const LoopSchedule& st_loops = loops_of(st);
        if (auto e = st_loops.check_loop(p.vars[0], p.var_spans[0])) {
          log_.error(e->span, e->message);
          break;
        }
        if (auto t = scope_.stage_index.find(p.tensor); t != scope_.stage_index.end() && stages_[t->second].is_inlined()) {
          log_.error(p.tensor_span, "cannot prefetch '" + p.tensor + "' in '" + st.out->name +
                                        "': it is computed inline, so it is never in memory");
          break;
        }
        if (auto t = scope_.stage_index.find(p.tensor); t != scope_.stage_index.end() && stages_[t->second].stored_at()) {
          log_.error(p.tensor_span, "cannot prefetch '" + p.tensor + "' in '" + st.out->name +
                                        "': it is stored at '" + st.out->name +
                                        "', so its storage lives only inside one loop iteration");
          break;
        }
        for (const auto& d : st_loops.dims())
          if (d.name == p.vars[0] && d.kind == ForKind::Vectorized) {
            log_.error(p.var_spans[0], "cannot prefetch at vectorized loop '" + p.vars[0] + "' of '" +
                                           st.out->name + "': prefetch at a loop around it");
            break;
          }
      }
    }
    // A compute_at names a loop of its consumer's final schedule, whatever the order.
    for (const auto& st : stages_) {
      const SchedulePrimitive* p = st.computed_at();
      if (!p || failed.count(st.out->name) || failed.count(p->consumer)) continue;
      const Stage& consumer = stages_[scope_.stage_index.at(p->consumer)];
      if (auto e = loops_of(consumer).check_loop(p->vars[0], p->var_spans[0])) {
        log_.error(e->span, e->message);
        continue;
      }
      if (consumer.is_inlined() || consumer.computed_at())
        log_.error(p->consumer_span,
                   "cannot compute '" + st.out->name + "' at '" + p->consumer + "': '" + p->consumer +
                       "' is itself computed " +
                       (consumer.is_inlined() ? "inline" : "at another stage (not supported yet)"));
    }
    // A store_at names the loop its stage is computed at: storage local to one iteration of
    // that loop. Storage at a loop further out (Halide's sliding windows) is not supported yet.
    for (const auto& st : stages_) {
      const SchedulePrimitive* s = st.stored_at();
      if (!s || failed.count(st.out->name) || failed.count(s->consumer)) continue;
      const SchedulePrimitive* p = st.computed_at();
      if (!p) {
        log_.error(s->span, "store_at needs a compute_at: '" + st.out->name + "' is stored at '" + s->consumer +
                                "' but not computed there (add " + st.out->name + ".compute_at(" + s->consumer +
                                ", " + s->vars[0] + "))");
        continue;
      }
      // A loop the consumer does not have is reported as such, whatever the compute_at says.
      if (auto c = scope_.stage_index.find(s->consumer); c != scope_.stage_index.end()) {
        if (auto e = loops_of(stages_[c->second]).check_loop(s->vars[0], s->var_spans[0])) {
          log_.error(e->span, e->message);
          continue;
        }
      }
      if (p->consumer != s->consumer || p->vars[0] != s->vars[0])
        log_.error(s->var_spans[0], "store_at(" + s->consumer + ", " + s->vars[0] + ") must name the loop '" +
                                        st.out->name + "' is computed at (" + p->consumer + ", " + p->vars[0] +
                                        "): storage at another loop is not supported yet");
    }
  }

  // prefetch(T, v, distance): T is an input or an earlier stage that this stage reads; the
  // distance is at least 1; not on an inlined stage (it has no loops).
  bool check_prefetch(const SchedCall& c, const SchedulePrimitive& p, const Stage& st) {
    auto fail = [&](Span span, std::string message) {
      log_.error(span, std::move(message));
      return false;
    };
    if (p.kind == ScheduleKind::ComputeInline) {
      for (const auto& q : st.schedule)
        if (q.kind == ScheduleKind::Prefetch)
          return fail(c.prim_span, "cannot compute_inline '" + c.target + "': it prefetches '" + q.tensor + "'");
      return true;
    }
    if (p.kind != ScheduleKind::Prefetch) return true;
    if (st.is_inlined()) return fail(c.prim_span, "cannot prefetch in '" + c.target + "': it is computed inline");
    struct ReadsNamed : IRVisitor {
      std::string name;
      bool found = false;
      void visit_Load(const Load* op) override {
        found = found || op->buffer->name == name;
        IRVisitor::visit_Load(op);
      }
    } r;
    r.name = p.tensor;
    r.visit(st.body);
    if (!r.found) {
      if (!scope_.tensors.count(p.tensor) && !scope_.stage_names.count(p.tensor))
        return fail(p.tensor_span, "unknown tensor '" + p.tensor + "' in prefetch");
      if (auto copy = copies_.find({c.target, p.tensor}); copy != copies_.end())
        return fail(p.tensor_span, "cannot prefetch '" + p.tensor + "' in '" + c.target + "', which does not read it: " +
                                       "cache_read made it read the copy '" + copy->second + "' instead");
      return fail(p.tensor_span, "cannot prefetch '" + p.tensor + "' in '" + c.target + "', which does not read it");
    }
    if (p.factors[0] < 1) return fail(p.factor_spans[0], "prefetch distance must be at least 1");
    if (p.factors[0] > INT32_MAX) return fail(p.factor_spans[0], "prefetch distance is above 2^31 - 1");
    return true;
  }

  // compute_at: one consumer, later, the only reader; not for results; once per stage.
  bool check_compute_at(const SchedCall& c, const SchedulePrimitive& p, const Stage& st) {
    auto fail = [&](Span span, std::string message) {
      log_.error(span, std::move(message));
      return false;
    };
    if (p.kind == ScheduleKind::ComputeInline && st.computed_at())
      return fail(c.prim_span, "cannot compute_inline '" + c.target + "': it is computed at '" +
                                   st.computed_at()->consumer + "'");
    if (p.kind == ScheduleKind::ComputeInline && st.stored_at())
      return fail(c.prim_span, "cannot compute_inline '" + c.target + "': it is stored at '" +
                                   st.stored_at()->consumer + "'");
    if (p.kind != ScheduleKind::ComputeAt && p.kind != ScheduleKind::StoreAt) return true;
    bool store = p.kind == ScheduleKind::StoreAt;
    std::string verb = store ? "store" : "compute";
    if (st.is_result)
      return fail(c.target_span,
                  "cannot " + c.prim + " result '" + c.target + "': results are always stored whole");
    if (const SchedulePrimitive* q = store ? st.stored_at() : st.computed_at())
      return fail(c.prim_span,
                  "stage '" + c.target + "' is already " + verb + "d at '" + q->consumer + "'");
    auto consumer = scope_.stage_index.find(p.consumer);
    if (consumer == scope_.stage_index.end()) {
      if (scope_.stage_names.count(p.consumer)) return false;  // its own error explains it
      return fail(p.consumer_span, "unknown stage '" + p.consumer + "' in " + c.prim);
    }
    if (p.consumer == c.target)
      return fail(p.consumer_span, "stage '" + c.target + "' cannot be " + verb + "d at itself");
    if (!reads(stages_[consumer->second], st.out))
      return fail(p.consumer_span,
                  "cannot " + verb + " '" + c.target + "' at '" + p.consumer + "', which does not read it");
    for (const auto& other : stages_) {
      if (!reads(other, st.out)) continue;
      if (other.out->name != p.consumer)
        return fail(p.consumer_span, "cannot " + verb + " '" + c.target + "' at '" + p.consumer + "': stage '" +
                                         other.out->name + "' reads it too");
    }
    return true;
  }

  // cache_read(A, scope) and cache_write(scope): checks the call and rewrites the stages at
  // once (a new copy stage before C); false after an error.
  bool cache(const SchedCall& c) {
    auto fail = [&](Span span, std::string message) {
      log_.error(span, std::move(message));
      return false;
    };
    bool read = schedule_kind_named(c.prim) == ScheduleKind::CacheRead;
    if (scope_.inputs.count(c.target))
      return fail(c.target_span,
                  "cannot " + c.prim + " input '" + c.target + "': only stages can be scheduled");
    if (!scope_.stage_names.count(c.target))
      return fail(c.target_span, "unknown stage '" + c.target + "' in schedule");
    std::string usage = schedule_usage(read ? ScheduleKind::CacheRead : ScheduleKind::CacheWrite);
    size_t want = read ? 2 : 1;
    if (c.args.size() != want) {
      Span at = c.args.size() < want ? (c.args.empty() ? c.lparen_span : c.args.back().tok.span)
                                     : c.args[want].tok.span;
      return fail(at, usage);
    }
    if (read && (c.args[0].tok.kind != Tok::Ident || c.args[0].negative))
      return fail(c.args[0].tok.span, usage);
    const SchedArg& scope_arg = c.args[want - 1];
    if (scope_arg.tok.kind != Tok::String || scope_arg.negative) return fail(scope_arg.tok.span, usage);
    auto scope = parse_storage_scope(scope_arg.tok.text);
    if (!scope || !is_schedulable_scope(*scope))
      return fail(scope_arg.tok.span,
                  "unknown scope '" + scope_arg.tok.text + "' (expected " + schedulable_scope_names() + ")");
    auto at = scope_.stage_index.find(c.target);
    if (at == scope_.stage_index.end()) return false;  // the stage's own error explains it
    if (auto w = computed_in_.find(c.target); w != computed_in_.end())
      return fail(c.prim_span,
                  "stage '" + c.target + "' is already computed in '" + w->second + "' by cache_write");
    Stage& st = stages_[at->second];
    if (read) return cache_read(c, st, *scope);
    if (st.is_inlined())
      return fail(c.prim_span, "cannot cache_write '" + c.target + "': it is computed inline");
    if (st.computed_at())
      return fail(c.prim_span, "cannot cache_write '" + c.target + "': it is computed at '" +
                                   st.computed_at()->consumer + "'");
    if (st.stored_at())
      return fail(c.prim_span, "cannot cache_write '" + c.target + "': it is stored at '" +
                                   st.stored_at()->consumer + "'");
    cache_write(c, at->second, *scope);
    return true;
  }

  bool cache_read(const SchedCall& c, Stage& st, StorageScope scope) {
    const Token& a = c.args[0].tok;
    if (!scope_.tensors.count(a.text)) {
      log_.error(a.span, "unknown tensor '" + a.text + "' in cache_read");
      return false;
    }
    Buffer source;
    struct Find : IRVisitor {
      std::string name;
      Buffer found;
      void visit_Load(const Load* op) override {
        if (op->buffer->name == name) found = op->buffer;
        IRVisitor::visit_Load(op);
      }
    } find;
    find.name = a.text;
    find.visit(st.body);
    if (!find.found) {
      log_.error(a.span, "cannot cache_read '" + a.text + "' for '" + c.target + "', which does not read it");
      return false;
    }
    if (auto p = scope_.stage_index.find(a.text); p != scope_.stage_index.end()) {
      const Stage& producer = stages_[p->second];
      if (producer.computed_at() || producer.stored_at()) {
        const SchedulePrimitive* q = producer.computed_at() ? producer.computed_at() : producer.stored_at();
        log_.error(a.span, "cannot cache_read '" + a.text + "': it is " +
                               (producer.computed_at() ? "computed" : "stored") + " at '" + q->consumer + "'");
        return false;
      }
    }
    for (const auto& q : st.schedule)
      if (q.kind == ScheduleKind::Prefetch && q.tensor == a.text) {
        log_.error(c.prim_span, "cannot cache_read '" + a.text + "' for '" + c.target + "': '" + c.target +
                                    "' prefetches '" + a.text + "' (at " + std::to_string(q.span.line) + ":" +
                                    std::to_string(q.span.col) + "), and after cache_read it reads the copy '" + fresh(a.text, scope) +
                                    "' instead, so the prefetch would fetch nothing; drop the prefetch");
        return false;
      }
    source = find.found;
    Stage copy;
    copy.out = BufferNode::make(fresh(a.text, scope), source->dtype, source->shape, scope, c.prim_span);
    copy.span = c.prim_span;
    std::vector<Expr> indices;
    for (size_t d = 0; d < source->shape.size(); ++d) {
      std::string var = "ax" + std::to_string(d);
      while (scope_.tensors.count(var)) var += "_";  // a loop does not share a tensor's name
      copy.index_vars.push_back(VarNode::make(var, DataType::i32(), c.prim_span));
      indices.push_back(var_expr(copy.index_vars.back()));
    }
    copy.body = Load::make(source, std::move(indices), c.prim_span);
    copy.schedule.push_back(scope_primitive(c, copy.out->name, scope));
    struct Swap : IRMutator {
      const BufferNode* from;
      Buffer to;
      Buffer mutate_buffer(const Buffer& b) override { return b.get() == from ? to : b; }
    } swap;
    swap.from = source.get();
    swap.to = copy.out;
    st.body = swap.mutate(st.body);
    copies_[{c.target, a.text}] = copy.out->name;
    insert(scope_.stage_index.at(c.target), std::move(copy));
    return true;
  }

  // C becomes a copy of a new stage C_<scope>, which takes C's body and its loop primitives
  // (those given so far and, through computed_in_, those given later).
  void cache_write(const SchedCall& c, size_t index, StorageScope scope) {
    Stage& st = stages_[index];
    Stage compute;
    compute.out = BufferNode::make(fresh(c.target, scope), st.out->dtype, st.out->shape, scope, c.prim_span);
    compute.span = st.span;
    compute.index_vars = st.index_vars;
    compute.body = st.body;
    compute.schedule.push_back(scope_primitive(c, compute.out->name, scope));
    std::vector<SchedulePrimitive> kept;
    for (auto& p : st.schedule) {
      if (p.kind == ScheduleKind::SetScope) {
        kept.push_back(p);
        continue;
      }
      p.stage = compute.out->name;
      compute.schedule.push_back(p);
    }
    st.schedule = std::move(kept);
    std::vector<VarRef> vars;
    std::vector<Expr> indices;
    for (const auto& v : st.index_vars) {
      vars.push_back(VarNode::make(v->name, v->dtype, v->span));
      indices.push_back(var_expr(vars.back()));
    }
    st.index_vars = std::move(vars);
    st.body = Load::make(compute.out, std::move(indices), c.prim_span);
    std::string name = compute.out->name;
    for (auto& other : stages_)
      for (auto& p : other.schedule)
        if ((p.kind == ScheduleKind::ComputeAt || p.kind == ScheduleKind::StoreAt) && p.consumer == c.target)
          p.consumer = name;
    if (auto it = loops_->find(c.target); it != loops_->end()) {
      loops_->emplace(name, std::move(it->second));
      loops_->erase(it);
    }
    computed_in_[c.target] = name;
    insert(index, std::move(compute));
  }

  SchedulePrimitive scope_primitive(const SchedCall& c, const std::string& stage, StorageScope scope) const {
    SchedulePrimitive p = primitive_head(c, ScheduleKind::SetScope);
    p.stage = stage;
    p.scope = scope;
    return p;
  }

  // A_vtcm, A_global, then A_vtcm_2, ... if taken.
  std::string fresh(const std::string& base, StorageScope scope) const {
    std::string name = base + (scope == StorageScope::Global ? "_global" : "_vtcm");
    std::string candidate = name;
    for (int k = 2; scope_.tensors.count(candidate); ++k) candidate = name + "_" + std::to_string(k);
    return candidate;
  }

  void insert(size_t index, Stage st) {
    std::string name = st.out->name;
    for (auto& [n, i] : scope_.stage_index)
      if (i >= index) ++i;
    stages_.insert(stages_.begin() + static_cast<std::ptrdiff_t>(index), std::move(st));
    scope_.stage_index[name] = index;
    scope_.stage_names.insert(name);
    scope_.tensors.insert(name);
  }

  // storage_align(dim, F): an intermediate stage, stored; dim names or numbers a dimension
  // other than the innermost (whose stride is 1); 0 < F <= 2^31 - 1; once per dimension; the
  // aligned buffer stays under 2^31 bytes. Normalises `p` to factors {dim, F}.
  bool check_align(const SchedCall& c, SchedulePrimitive& p, const Stage& st) {
    auto fail = [&](Span span, std::string message) {
      log_.error(span, std::move(message));
      return false;
    };
    if (p.kind != ScheduleKind::StorageAlign) return true;
    if (st.is_result)
      return fail(c.target_span, "cannot storage_align result '" + c.target +
                                     "': storage_align applies to intermediate stages");
    if (st.is_inlined())
      return fail(c.prim_span, "stage '" + c.target + "' is computed inline, so it has no storage to align");
    int64_t rank = static_cast<int64_t>(st.index_vars.size());
    Span dim_span = c.args[0].tok.span;
    int64_t dim = -1;
    if (!p.vars.empty()) {
      for (int64_t d = 0; d < rank; ++d)
        if (st.index_vars[d]->name == p.vars[0]) dim = d;
      if (dim < 0)
        return fail(dim_span, "'" + p.vars[0] + "' is not an index variable of stage '" + c.target + "'");
      p.vars.clear();
      p.var_spans.clear();
      p.factors.insert(p.factors.begin(), dim);
      p.factor_spans.insert(p.factor_spans.begin(), dim_span);
    }
    dim = p.factors[0];
    if (c.args[0].negative || dim < 0 || dim >= rank - 1)
      return fail(
          dim_span,
          "storage_align dimension " + std::string(c.args[0].negative ? "-" : "") + c.args[0].tok.text +
              " is out of range for '" + c.target + "': " +
              (rank == 1 ? std::string("a 1-D stage has only the innermost dimension, whose stride is 1")
                         : "expected 0 to " + std::to_string(rank - 2) +
                               " (the innermost dimension's stride is 1)"));
    int64_t factor = p.factors[1];
    if (factor <= 0) return fail(p.factor_spans[1], "storage_align factor must be positive");
    if (factor > INT32_MAX) return fail(p.factor_spans[1], "storage_align factor is above 2^31 - 1");
    for (const auto& q : st.schedule)
      if (q.kind == ScheduleKind::StorageAlign && q.factors[0] == dim)
        return fail(c.prim_span,
                    "dimension " + std::to_string(dim) + " of '" + c.target + "' is already aligned");
    std::vector<SchedulePrimitive> all = st.schedule;
    all.push_back(p);
    std::vector<int64_t> shape = aligned_shape(st.out->shape, all);
    double bytes = st.out->dtype.bytes();
    for (int64_t e : shape) bytes *= static_cast<double>(e);
    if (bytes >= 2147483648.0)
      return fail(p.factor_spans[1], "storage_align makes '" + c.target + "' too large (2^31 bytes or more)");
    return true;
  }

  static bool reads(const Stage& reader, const Buffer& b) {
    struct Reads : IRVisitor {
      const BufferNode* b;
      bool found = false;
      void visit_Load(const Load* op) override {
        found = found || op->buffer.get() == b;
        IRVisitor::visit_Load(op);
      }
    } r;
    r.b = b.get();
    r.visit(reader.body);
    return r.found;
  }

  LoopSchedule loop_schedule(const Stage& st) const {
    struct Axes : IRVisitor {
      std::set<std::string> names;
      void visit_Reduce(const Reduce* op) override {
        for (const auto& a : op->axes) names.insert(a.var->name);
        IRVisitor::visit_Reduce(op);
      }
    } axes;
    axes.visit(st.body);
    std::set<std::string> tensors = scope_.tensors;
    std::vector<std::string> vars;
    for (const auto& v : st.index_vars) vars.push_back(v->name);
    return LoopSchedule(st.out->name, vars, std::move(axes.names), std::move(tensors));
  }

  // compute_inline and loop primitives exclude each other; results and VTCM stages are stored.
  bool check_inline(const SchedCall& c, const SchedulePrimitive& p, const Stage& st,
                    const LoopSchedule& loops) {
    if (p.kind != ScheduleKind::ComputeInline) {
      if (!st.is_inlined()) return true;
      if (p.kind == ScheduleKind::ComputeAt || p.kind == ScheduleKind::StoreAt)
        log_.error(c.prim_span, "stage '" + c.target + "' is computed inline, so it cannot be " +
                                    (p.kind == ScheduleKind::StoreAt ? "stored" : "computed") + " at '" +
                                    p.consumer + "'");
      else
        log_.error(c.prim_span,
                   "stage '" + c.target + "' is computed inline, so it has no loops to " + c.prim);
      return false;
    }
    if (st.is_result) {
      log_.error(c.target_span, "cannot compute_inline result '" + c.target + "': results are always stored");
      return false;
    }
    if (st.out->scope != StorageScope::Global) {
      log_.error(c.prim_span, "cannot compute_inline '" + c.target + "': set_scope places it in " +
                                  storage_scope_name(st.out->scope));
      return false;
    }
    for (const auto& q : st.schedule)
      if (q.kind == ScheduleKind::StorageAlign) {
        log_.error(c.prim_span, "cannot compute_inline '" + c.target + "': storage_align sets its storage");
        return false;
      }
    if (loops.has_loop_primitives()) {
      log_.error(c.prim_span, "cannot compute_inline '" + c.target + "': its loops are already scheduled");
      return false;
    }
    return true;
  }

  SchedulePrimitive primitive_head(const SchedCall& c, ScheduleKind kind) const {
    SchedulePrimitive p;
    p.kind = kind;
    p.stage = c.target;
    p.span = c.prim_span;
    p.stage_span = c.target_span;
    return p;
  }

  // The primitive `c` names, its target and its arguments checked; nullopt after an error.
  std::optional<SchedulePrimitive> primitive(const SchedCall& c) {
    std::optional<ScheduleKind> kind = schedule_kind_named(c.prim);
    if (!kind && schedule_primitive_not_yet(c.prim)) {
      log_.error(c.prim_span, "schedule primitive '" + c.prim + "' is not supported yet");
      return std::nullopt;
    }
    if (!kind) {
      log_.error(c.prim_span, "unknown schedule primitive '" + c.prim + "'");
      return std::nullopt;
    }
    if (scope_.inputs.count(c.target)) {
      log_.error(c.target_span,
                 "cannot " + c.prim + " input '" + c.target + "': only stages can be scheduled");
      return std::nullopt;
    }
    if (!scope_.stage_names.count(c.target)) {
      log_.error(c.target_span, "unknown stage '" + c.target + "' in schedule");
      return std::nullopt;
    }
    return arguments(c, *kind);
  }

  // Checks the number and kinds of `c`'s arguments against the forms of `kind`.
  std::optional<SchedulePrimitive> arguments(const SchedCall& c, ScheduleKind kind) {
    // The forms (SchedulePrimitives.def): N a loop name, F a factor, D a dimension; "N+" is
    // one name or more.
    std::vector<std::string> forms;
    std::string all = schedule_forms(kind);
    for (size_t start = 0;;) {
      size_t bar = all.find('|', start);
      forms.push_back(all.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
      if (bar == std::string::npos) break;
      start = bar + 1;
    }
    for (auto& f : forms)
      if (f == "N+") f = std::string(std::max<size_t>(c.args.size(), 1), 'N');
    std::string usage = schedule_usage(kind);
    const std::string* form = nullptr;
    for (const auto& f : forms)
      if (f.size() == c.args.size()) form = &f;
    if (!form) {
      size_t fewest = forms.front().size();
      for (const auto& f : forms) fewest = std::min(fewest, f.size());
      Span at = c.args.size() < fewest || c.args.empty() ? c.lparen_span : c.args.back().tok.span;
      for (const auto& f : forms)
        if (f.size() < c.args.size()) at = c.args[f.size()].tok.span;
      log_.error(at, usage);
      return std::nullopt;
    }
    SchedulePrimitive p = primitive_head(c, kind);
    for (size_t k = 0; k < form->size(); ++k) {
      const SchedArg& a = c.args[k];
      bool name = (*form)[k] == 'N' || ((*form)[k] == 'D' && a.tok.kind == Tok::Ident);
      bool ok = name ? a.tok.kind == Tok::Ident && !a.negative : a.tok.kind == Tok::Int && !a.tok.suffix;
      if (!ok) {
        log_.error(a.tok.span, usage);
        return std::nullopt;
      }
      if (name) continue;
      uint64_t magnitude = std::min<uint64_t>(a.tok.int_value, INT64_MAX);
      p.factors.push_back(a.negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude));
      p.factor_spans.push_back(a.tok.span);
    }
    auto name = [&](size_t k) { return c.args[k].tok.text; };
    auto span = [&](size_t k) { return c.args[k].tok.span; };
    auto add_vars = [&](size_t from, size_t to) {
      for (size_t k = from; k < to; ++k) {
        p.vars.push_back(name(k));
        p.var_spans.push_back(span(k));
      }
    };
    auto add_new = [&](std::initializer_list<size_t> ks) {
      for (size_t k : ks) {
        p.new_names.push_back(name(k));
        p.new_name_spans.push_back(span(k));
      }
    };
    switch (kind) {
      case ScheduleKind::Split:
        add_vars(0, 1);
        add_new({1, 2});
        break;
      case ScheduleKind::Tile:
        add_vars(0, 2);
        if (c.args.size() == 8)
          add_new({2, 3, 4, 5});
        else
          add_new({0, 1, 2, 3});
        break;
      case ScheduleKind::Reorder: add_vars(0, c.args.size()); break;
      case ScheduleKind::Vectorize:
      case ScheduleKind::Unroll:
      case ScheduleKind::Parallel:
        add_vars(0, 1);
        if (c.args.size() == 2) {
          p.new_names.push_back(shorthand_inner_name(kind, name(0)));
          p.new_name_spans.push_back(c.prim_span);
        }
        break;
      case ScheduleKind::ComputeAt:
      case ScheduleKind::StoreAt:
        p.consumer = name(0);
        if (auto w = computed_in_.find(p.consumer); w != computed_in_.end()) p.consumer = w->second;
        p.consumer_span = span(0);
        add_vars(1, 2);
        break;
      case ScheduleKind::StorageAlign:
        if (c.args[0].tok.kind == Tok::Ident) add_vars(0, 1);
        break;
      case ScheduleKind::Prefetch:
        p.tensor = name(0);
        p.tensor_span = span(0);
        add_vars(1, 2);
        break;
      case ScheduleKind::ComputeInline:
      case ScheduleKind::SetScope:
      case ScheduleKind::CacheRead:
      case ScheduleKind::CacheWrite: break;
    }
    return p;
  }

 private:
  const std::vector<SchedCall>& calls_;
  const std::set<size_t>& scope_calls_;
  ScheduleScope scope_;
  std::vector<Stage>& stages_;
  std::map<std::string, std::string> computed_in_;  // cache_write: stage -> the stage computing it
  // cache_read: (reader, tensor) -> the copy the reader reads instead.
  std::map<std::pair<std::string, std::string>, std::string> copies_;
  std::map<std::string, LoopSchedule>* loops_ = nullptr;
  ErrorLog& log_;
};

}  // namespace

void check_schedule(const std::vector<SchedCall>& calls, const std::set<size_t>& scope_calls,
                    const ScheduleScope& scope, std::vector<Stage>& stages, ErrorLog& log) {
  ScheduleChecker(calls, scope_calls, scope, stages, log).run();
}

}  // namespace dspc::frontend
