// The .dsp schedule block (a part of the .dsp frontend, DspParser.cpp): the calls as the
// syntax gives them, and their checks once the stages are checked.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/frontend/ParserCommon.h"

namespace dspc::frontend {

struct SchedArg {
  Token tok;
  bool negative = false;  // an integer written with a minus sign
};

// One primitive call; `T.split(...).vectorize(...)` gives one per call in the chain.
struct SchedCall {
  std::string target, prim;
  Span target_span, prim_span, lparen_span;
  std::vector<SchedArg> args;
};

// What the checks need to know of the function.
struct ScheduleScope {
  std::set<std::string> inputs;               // input parameters
  std::set<std::string> tensors;              // every parameter and stage name
  std::set<std::string> stage_names;          // every stage written, checked or not
  std::map<std::string, size_t> stage_index;  // the checked stages, by name, in `stages`
};

// Checks every call but set_scope (which the parser checks before the stages, as their
// buffers need the scope; `scope_calls` are the indices of those that passed) and attaches
// each primitive to its stage in `stages`, in source order, set_scope included. Primitives
// need the stages' variables, so this runs after the stages. After an error in one stage's
// schedule, its later primitives are not checked (one mistake, one error); primitives of a
// stage that failed its own checks are skipped quietly.
void check_schedule(const std::vector<SchedCall>& calls, const std::set<size_t>& scope_calls,
                    const ScheduleScope& scope, std::vector<Stage>& stages, ErrorLog& log);

}  // namespace dspc::frontend
