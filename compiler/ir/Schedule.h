// Schedule primitives as data: what a `.dsp` schedule block says about one stage, in source
// order, as Halide's StageSchedule keeps it. IR.h includes this header (a Stage carries its
// primitives); LoopSchedule.h turns a stage's loop primitives into its loop dimensions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/SourceLocation.h"
#include "compiler/ir/StorageScope.h"

namespace dspc {

// The primitives, one row each in SchedulePrimitives.def.
enum class ScheduleKind : uint8_t {
#define DSPC_SCHEDULE_PRIMITIVE(e, name, role, forms, usage) e,
#include "compiler/ir/SchedulePrimitives.def"
};

// What a primitive changes (SchedulePrimitives.def explains each).
enum class ScheduleRole : uint8_t { Loop, Place, Storage, Rewrite, Hint };

// Every primitive, in the table's order.
const std::vector<ScheduleKind>& schedule_kinds();
// The primitive's name in .dsp: "split", "compute_inline", ...
const char* schedule_kind_name(ScheduleKind k);
// The primitive named `name`, if .dsp has one.
std::optional<ScheduleKind> schedule_kind_named(const std::string& name);
// Whether `name` is a Halide primitive that .dsp does not have yet.
bool schedule_primitive_not_yet(const std::string& name);
ScheduleRole schedule_role(ScheduleKind k);
// The argument lists the primitive accepts ('|'-separated; SchedulePrimitives.def) and the
// error text for arguments that fit none.
const char* schedule_forms(ScheduleKind k);
const char* schedule_usage(ScheduleKind k);
// Whether the primitive changes the stage's loops: a stage with one has a written loop
// schedule and no automatic one.
inline bool is_loop_primitive(ScheduleKind k) { return schedule_role(k) == ScheduleRole::Loop; }

// One primitive applied to one stage, its arguments normalised by kind (each name and factor
// keeps the span of the argument it came from, for diagnostics):
//
//   kind           vars              new_names                 factors     scope
//   set_scope      -                 -                         -           the scope
//   split          {x}               {xo, xi}                  {F}
//   tile           {x, y}            {xo, yo, xi, yi}          {Fx, Fy}      (6-argument form:
//                                                                            xo = x, yo = y)
//   reorder        {v1, v2, ...}     -                         -             (innermost first)
//   vectorize      {v}               - , or {v_v} with F       - , or {F}
//   unroll         {v}               - , or {v_u} with F       - , or {F}
//   parallel       {v}               -                         -
//   compute_inline -                 -                         -
//   compute_at     {v} (a loop of the consumer stage, named in `consumer`)
//   store_at       {v} (a loop of the consumer stage, named in `consumer`)
//   storage_align  -                 -                         {dim, F}    (dim: the index of
//                                                                            the dimension)
//   prefetch       {v} (a loop of this stage)                  {distance}  (the tensor in
//                                                                            `tensor`)
struct SchedulePrimitive {
  ScheduleKind kind = ScheduleKind::SetScope;
  std::string stage;
  Span span;        // the primitive's name
  Span stage_span;  // the stage's name before the dot
  std::vector<std::string> vars;
  std::vector<Span> var_spans;
  std::vector<std::string> new_names;
  std::vector<Span> new_name_spans;
  std::vector<int64_t> factors;
  std::vector<Span> factor_spans;
  StorageScope scope = StorageScope::Global;
  std::string consumer;  // compute_at, store_at: the stage in whose loop this one is computed, stored
  Span consumer_span;
  std::string tensor;  // prefetch: the input or stage whose reads are fetched ahead
  Span tensor_span;
};

// The shape a stage's buffer is allocated with: `shape`, with each storage_align(dim, F) in
// `schedule` making dimension dim's stride (the elements between rows of dim) a multiple of F
// by rounding up the extent of dimension dim + 1 (inner dimensions first). Indices keep their
// logical ranges; only the strides change.
std::vector<int64_t> aligned_shape(const std::vector<int64_t>& shape,
                                   const std::vector<SchedulePrimitive>& schedule);

// The name of the inner loop that `vectorize(v, F)` and `unroll(v, F)` split off: v_v, v_u.
std::string shorthand_inner_name(ScheduleKind k, const std::string& var);

}  // namespace dspc
