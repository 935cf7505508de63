// Index bounds: interval arithmetic over the ranges of index and reduction variables, which
// the .dsp frontend uses to prove every tensor read inside its extents.
//
// What it proves: given each known variable's range, `of(e)` returns an interval holding every
// value the integer expression `e` can take, with the wrapping semantics of the brief: once a
// bound leaves its dtype's range, the result is the dtype's whole range. Inside a select
// branch, `narrow` tightens the variables to where the condition holds, so a padded read such
// as select(x > 0, A[x - 1], 0) is proved in bounds.
//
// Limits (all on the safe side: a read it accepts is in bounds, but "may be out of bounds" can
// be a false alarm):
// - not relational: i - i is [lo - hi, hi - lo], not 0; a variable used twice is two values;
// - a vector's interval holds every lane's value (a broadcast: its value's);
// - loads, floats, unknown variables and most bitwise operators give the dtype's whole range;
// - only comparisons of a known variable with anything, !, && (branch taken) and || (not
//   taken) narrow;
// - work is budgeted (nested selects would otherwise cost exponential time); once the budget
//   is spent every result is its dtype's whole range, until `refuel`.
#pragma once

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler/ir/IR.h"

namespace dspc {

using i128 = __int128;

// Both ends included.
struct Interval {
  i128 lo, hi;
};

// Decimal text of a 128-bit integer (for messages).
std::string format_i128(i128 v);

class IndexBounds {
 public:
  // Saved ranges to put back: how to leave a branch entered with `narrow`.
  using Undo = std::vector<std::pair<const VarNode*, Interval>>;

  // `v` takes the values in `r` (an index variable of extent n: {0, n - 1}).
  void set(const VarNode* v, Interval r) { vars_[v] = r; }
  // Restores the work budget; call once per stage.
  void refuel() { fuel_ = kFuel; }
  // The values `e` can take.
  Interval of(const Expr& e);
  // Tightens the variables to where `cond` is `taken`, recording in `undo` what to put back.
  void narrow(const Expr& cond, bool taken, Undo& undo);
  // Puts back the ranges recorded in `undo` after position `mark`.
  void restore(Undo& undo, size_t mark);

 private:
  static constexpr int64_t kFuel = 1 << 20;

  Interval binary(const Binary* op);

  std::unordered_map<const VarNode*, Interval> vars_;
  int64_t fuel_ = kFuel;
};

}  // namespace dspc
