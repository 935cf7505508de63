// Internal errors: compiler bugs, as opposed to the user's mistakes.
//
// DSPC_CHECK(cond, message) is an invariant check that stays on in every build (unlike
// assert, which the Release build CI runs compiles out), as Halide's internal_assert. A failed
// check throws InternalError. Every InternalError, including an IRError from an ill-typed
// make(), is caught at the boundary of the pass (or parser, or codegen) it escaped from and
// reported as `dspc: internal error in pass NAME: ...` with exit code 2, never an abort.
#pragma once

#include <stdexcept>
#include <string>

namespace dspc {

class InternalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws InternalError("FILE:LINE: check failed: CONDITION: MESSAGE").
[[noreturn]] void fail_check(const char* file, int line, const char* condition, const std::string& message);

}  // namespace dspc

#define DSPC_CHECK(cond, message)                                 \
  do {                                                            \
    if (!(cond)) ::dspc::fail_check(__FILE__, __LINE__, #cond, (message)); \
  } while (0)
