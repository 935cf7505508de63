// A stage's loops after its schedule, as Halide's ScheduleFunctions sees them: the loop
// dimensions innermost first, each with its kind, and the split records that say how the
// stage's index variables are computed from them. The frontend applies the primitives one by
// one to check them (each error comes back with the span to report); schedule-ops applies
// the same primitives to build the loop nest, so both read the schedule the same way.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/ir/IR.h"

namespace dspc {

struct LoopDim {
  std::string name;
  ForKind kind = ForKind::Serial;
};

// `old_var` becomes `outer` * factor + `inner` (or the remainder forms of
// StageLoopNest.h). A split loop's kind passes to both new loops, as in Halide.
struct LoopSplit {
  std::string old_var, outer, inner;
  int64_t factor = 1;
};

struct ScheduleError {
  Span span;
  std::string message;
};

// The largest split factor: loop bounds are i32.
inline constexpr int64_t kMaxSplitFactor = INT32_MAX;

class LoopSchedule {
 public:
  // `index_vars`: the stage's pure index variables, first outermost. `reduction_vars`: the
  // names of its reduction axes, which no primitive may name yet. `taken`: other names a new
  // loop may not take (the function's tensors).
  LoopSchedule(std::string stage, const std::vector<std::string>& index_vars,
               std::set<std::string> reduction_vars = {}, std::set<std::string> taken = {});

  // Applies one primitive. Loop primitives change the loops; set_scope, compute_inline and
  // compute_at (which places this stage, not its loops) change nothing here. On an error
  // nothing changes.
  std::optional<ScheduleError> apply(const SchedulePrimitive& p);

  // nullopt if `name` is a loop now; else why not (unknown, split away, reduction axis).
  std::optional<ScheduleError> check_loop(const std::string& name, Span span) const;

  const std::vector<LoopDim>& dims() const { return dims_; }        // innermost first
  const std::vector<LoopSplit>& splits() const { return splits_; }  // in the order applied
  // Whether any primitive changed the loops (split, tile, reorder, vectorize, unroll, parallel).
  bool has_loop_primitives() const { return loop_primitives_ > 0; }

 private:
  std::optional<ScheduleError> apply_loop(const SchedulePrimitive& p);
  std::optional<size_t> find(const std::string& name, Span span, std::optional<ScheduleError>& error) const;
  std::optional<ScheduleError> split(const std::string& old_var, Span old_span, const std::string& outer,
                                     Span outer_span, const std::string& inner, Span inner_span,
                                     int64_t factor, Span factor_span, const char* what);
  std::optional<ScheduleError> reorder(const std::vector<std::string>& vars, const std::vector<Span>& spans,
                                       const char* what);
  std::optional<ScheduleError> check_new_name(const std::string& name, Span span,
                                              const std::string& reusable) const;

  std::string stage_;
  std::vector<LoopDim> dims_;
  std::vector<LoopSplit> splits_;
  std::set<std::string> names_;  // every loop name so far, split away or not
  std::set<std::string> reduction_vars_, taken_;
  int loop_primitives_ = 0;
};

// The loops of `stage` after its whole schedule (which the frontend has checked).
LoopSchedule loop_schedule_of(const Stage& stage);

}  // namespace dspc
