// `dspc run --session`: running a compiled shared module through dspc::Session instead of a
// linked runner. This header names neither the IR's types nor <dspc/host.h>'s (both declare a
// dspc::Module), so DriverRun.cpp and DriverSession.cpp each see only one of them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dspc {

struct SessionRun {
  std::string module_path;  // a .so from --emit=so
  std::string func;
  std::string target;  // a Hexagon target's name, or "host"
  std::string qemu;    // "" : the one the build found
  int timeout_seconds = 600;
  int64_t vtcm_capacity = -1;  // -1: the target's
  std::vector<std::vector<uint8_t>> inputs;  // the inputs' bytes, in parameter order
};

// Opens a session, loads the module, copies the inputs in, calls `func` and returns the outputs'
// bytes (in result order) in `outputs`. On failure returns false with the message in `error`
// (the device's text for a kernel that crashed, ran over the deadline or refused an argument).
bool run_in_session(const SessionRun& run, std::vector<std::vector<uint8_t>>& outputs, std::string& error);

}  // namespace dspc
