// What the compiler's fuzz targets share: the libFuzzer entry point, and the rule that a
// finding is a crash. Every target aborts (so libFuzzer saves the input) when dspc reports an
// internal error or lets an exception escape: a bug, whatever the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "compiler/ir/Diagnostics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
// Defined by replay_main.c only: prints an input's outcome for the regression tests.
extern "C" void dspc_fuzz_report(const char* outcome) __attribute__((weak));

namespace dspc::fuzz {

[[noreturn]] inline void finding(const std::string& what, const std::string& diagnostics) {
  std::fprintf(stderr, "dspc fuzz finding: %s\n%s\n", what.c_str(), diagnostics.c_str());
  std::fflush(stderr);
  std::abort();
}

inline void report(const std::string& outcome) {
  if (dspc_fuzz_report) dspc_fuzz_report(outcome.c_str());
}

// What the user would see: the first line of the diagnostics, or "ok".
inline void report(bool ok, const std::ostringstream& out) {
  std::string text = out.str();
  report(ok ? "ok" : text.substr(0, text.find('\n')));
}

// After a parse or compile: an internal error is a finding, and so is a failure with no error.
inline void check_outcome(bool ok, const Diagnostics& diag, const std::ostringstream& out) {
  if (diag.has_internal_errors()) finding("internal error", out.str());
  if (!ok && !diag.has_errors()) finding("failed without reporting an error", out.str());
  if (ok && diag.has_errors()) finding("succeeded but reported an error", out.str());
}

}  // namespace dspc::fuzz
