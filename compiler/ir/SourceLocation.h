// A position in a source file. Kept apart from IR.h so that the lexer and the diagnostics,
// which only need locations, do not pull in the whole IR.
#pragma once

#include <cstdint>

namespace dspc {

// A position in a source file (1-based); line 0 means "no location". `file` is 0 for the
// file being compiled and k for the k-th file it imports (Diagnostics keeps their names).
struct Span {
  uint32_t line = 0;
  uint32_t col = 0;
  uint32_t file = 0;
  bool valid() const { return line != 0; }
};

}  // namespace dspc
