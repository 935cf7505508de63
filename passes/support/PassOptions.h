// Options passed explicitly down the pipeline (no environment knobs).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "targets/Target.h"

namespace dspc {

struct LowerOptions {
  Target target = *lookup_target(kDefaultTarget);
  // VTCM bytes available to one function; negative means the target's capacity.
  int64_t vtcm_capacity = -1;
  // Run the verifier after every pass (always on in debug builds).
  bool verify_each = false;
  // Print the TIR after these passes (kebab-case names), or after all of them.
  std::vector<std::string> print_after;
  bool print_after_all = false;
  std::ostream* trace = nullptr;  // where printed TIR goes; null: nowhere

  int64_t effective_vtcm_capacity() const { return vtcm_capacity >= 0 ? vtcm_capacity : target.vtcm_capacity; }
};

}  // namespace dspc
