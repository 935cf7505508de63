#include "compiler/ir/LoopSchedule.h"

#include <algorithm>

namespace dspc {

namespace {

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

}  // namespace

LoopSchedule::LoopSchedule(std::string stage, const std::vector<std::string>& index_vars,
                           std::set<std::string> reduction_vars, std::set<std::string> taken)
    : stage_(std::move(stage)), reduction_vars_(std::move(reduction_vars)), taken_(std::move(taken)) {
  for (auto it = index_vars.rbegin(); it != index_vars.rend(); ++it) {
    dims_.push_back({*it, ForKind::Serial});
    names_.insert(*it);
  }
}

std::optional<ScheduleError> LoopSchedule::apply(const SchedulePrimitive& p) {
  if (!is_loop_primitive(p.kind)) return std::nullopt;
  LoopSchedule before = *this;
  auto error = apply_loop(p);
  if (error) {
    *this = std::move(before);
    return error;
  }
  ++loop_primitives_;
  return std::nullopt;
}

std::optional<ScheduleError> LoopSchedule::apply_loop(const SchedulePrimitive& p) {
  DSPC_CHECK(p.vars.size() == p.var_spans.size() && p.new_names.size() == p.new_name_spans.size() &&
                 p.factors.size() == p.factor_spans.size(),
             "one span per schedule argument");
  auto arity = [&](size_t vars, size_t new_names, size_t factors) {
    DSPC_CHECK(p.vars.size() == vars && p.new_names.size() == new_names && p.factors.size() == factors,
               std::string("malformed ") + schedule_kind_name(p.kind));
  };
  switch (p.kind) {
    case ScheduleKind::Split:
      arity(1, 2, 1);
      return split(p.vars[0], p.var_spans[0], p.new_names[0], p.new_name_spans[0], p.new_names[1],
                   p.new_name_spans[1], p.factors[0], p.factor_spans[0], "split");
    case ScheduleKind::Tile: {
      arity(2, 4, 2);
      if (p.vars[0] == p.vars[1])
        return ScheduleError{p.var_spans[1], quoted(p.vars[1]) + " is named twice in tile"};
      if (auto e = split(p.vars[0], p.var_spans[0], p.new_names[0], p.new_name_spans[0], p.new_names[2],
                         p.new_name_spans[2], p.factors[0], p.factor_spans[0], "tile"))
        return e;
      if (auto e = split(p.vars[1], p.var_spans[1], p.new_names[1], p.new_name_spans[1], p.new_names[3],
                         p.new_name_spans[3], p.factors[1], p.factor_spans[1], "tile"))
        return e;
      const auto& n = p.new_names;
      const auto& s = p.new_name_spans;
      return reorder({n[2], n[3], n[0], n[1]}, {s[2], s[3], s[0], s[1]}, "tile");
    }
    case ScheduleKind::Reorder:
      DSPC_CHECK(!p.vars.empty() && p.new_names.empty() && p.factors.empty(), "malformed reorder");
      return reorder(p.vars, p.var_spans, "reorder");
    case ScheduleKind::Vectorize:
    case ScheduleKind::Unroll:
    case ScheduleKind::Parallel: {
      DSPC_CHECK(p.vars.size() == 1 && p.new_names.size() == p.factors.size() && p.factors.size() <= 1,
                 std::string("malformed ") + schedule_kind_name(p.kind));
      std::string target = p.vars[0];
      if (!p.factors.empty()) {
        if (auto e = check_new_name(p.new_names[0], p.new_name_spans[0], ""))
          return ScheduleError{e->span, std::string(schedule_kind_name(p.kind)) + "(" + p.vars[0] +
                                            ", F) names its inner loop " + quoted(p.new_names[0]) + ": " +
                                            e->message};
        if (auto e = split(p.vars[0], p.var_spans[0], p.vars[0], p.var_spans[0], p.new_names[0],
                           p.new_name_spans[0], p.factors[0], p.factor_spans[0], schedule_kind_name(p.kind)))
          return e;
        target = p.new_names[0];
      }
      std::optional<ScheduleError> error;
      auto d = find(target, p.var_spans[0], error);
      if (!d) return error;
      dims_[*d].kind = p.kind == ScheduleKind::Vectorize ? ForKind::Vectorized
                       : p.kind == ScheduleKind::Unroll  ? ForKind::Unrolled
                                                         : ForKind::Parallel;
      return std::nullopt;
    }
    default: break;
  }
  DSPC_CHECK(false, std::string("loop primitive ") + schedule_kind_name(p.kind) + " has no case in LoopSchedule");
  return std::nullopt;
}

std::optional<size_t> LoopSchedule::find(const std::string& name, Span span,
                                         std::optional<ScheduleError>& error) const {
  for (size_t d = 0; d < dims_.size(); ++d)
    if (dims_[d].name == name) return d;
  if (reduction_vars_.count(name)) {
    error = ScheduleError{span, quoted(name) + " is a reduction variable of stage " + quoted(stage_) +
                                    "; reduction loops cannot be scheduled yet"};
    return std::nullopt;
  }
  for (auto it = splits_.rbegin(); it != splits_.rend(); ++it) {
    if (it->old_var != name) continue;
    error =
        ScheduleError{span, "loop " + quoted(name) + " of stage " + quoted(stage_) +
                                " was already split into " + quoted(it->outer) + " and " + quoted(it->inner)};
    return std::nullopt;
  }
  error = ScheduleError{span, "stage " + quoted(stage_) + " has no loop " + quoted(name)};
  return std::nullopt;
}

std::optional<ScheduleError> LoopSchedule::check_loop(const std::string& name, Span span) const {
  std::optional<ScheduleError> error;
  find(name, span, error);
  return error;
}

std::optional<ScheduleError> LoopSchedule::check_new_name(const std::string& name, Span span,
                                                          const std::string& reusable) const {
  if (name == reusable) return std::nullopt;
  if (names_.count(name) || reduction_vars_.count(name))
    return ScheduleError{span, "name " + quoted(name) + " already exists in stage " + quoted(stage_)};
  if (taken_.count(name))
    return ScheduleError{span, "name " + quoted(name) + " is already the name of a tensor"};
  return std::nullopt;
}

std::optional<ScheduleError> LoopSchedule::split(const std::string& old_var, Span old_span,
                                                 const std::string& outer, Span outer_span,
                                                 const std::string& inner, Span inner_span, int64_t factor,
                                                 Span factor_span, const char* what) {
  std::optional<ScheduleError> error;
  auto d = find(old_var, old_span, error);
  if (!d) return error;
  if (auto e = check_new_name(outer, outer_span, old_var)) return e;
  if (inner == outer)
    return ScheduleError{inner_span, "name " + quoted(inner) + " already exists in stage " + quoted(stage_)};
  if (auto e = check_new_name(inner, inner_span, old_var)) return e;
  if (factor <= 0)
    return ScheduleError{factor_span, std::string(what) + " factor must be a positive integer, got " +
                                          std::to_string(factor)};
  if (factor > kMaxSplitFactor)
    return ScheduleError{factor_span, std::string(what) + " factor " + std::to_string(factor) +
                                          " is too large (at most " + std::to_string(kMaxSplitFactor) + ")"};
  // Innermost first: the inner loop takes the old loop's place, the outer one goes just outside.
  LoopDim old = dims_[*d];
  dims_[*d] = {inner, old.kind};
  dims_.insert(dims_.begin() + static_cast<std::ptrdiff_t>(*d) + 1, LoopDim{outer, old.kind});
  names_.insert(outer);
  names_.insert(inner);
  splits_.push_back({old_var, outer, inner, factor});
  return std::nullopt;
}

std::optional<ScheduleError> LoopSchedule::reorder(const std::vector<std::string>& vars,
                                                   const std::vector<Span>& spans, const char* what) {
  std::vector<size_t> positions;
  for (size_t k = 0; k < vars.size(); ++k) {
    for (size_t j = 0; j < k; ++j)
      if (vars[j] == vars[k]) return ScheduleError{spans[k], quoted(vars[k]) + " is named twice in " + what};
    std::optional<ScheduleError> error;
    auto d = find(vars[k], spans[k], error);
    if (!d) return error;
    positions.push_back(*d);
  }
  // The listed loops keep the set of places they held; the first listed takes the innermost.
  std::vector<LoopDim> listed;
  for (size_t p : positions) listed.push_back(dims_[p]);
  std::sort(positions.begin(), positions.end());
  for (size_t k = 0; k < positions.size(); ++k) dims_[positions[k]] = listed[k];
  return std::nullopt;
}

LoopSchedule loop_schedule_of(const Stage& stage) {
  std::vector<std::string> names;
  for (const auto& v : stage.index_vars) names.push_back(v->name);
  LoopSchedule s(stage.out->name, names);
  for (const auto& p : stage.schedule) {
    auto error = s.apply(p);
    DSPC_CHECK(!error, "schedule of stage '" + stage.out->name + "': " + (error ? error->message : ""));
  }
  return s;
}

}  // namespace dspc
