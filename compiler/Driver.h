// The dspc command-line driver (see README "CLI reference").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/Options.h"

namespace dspc {

struct DriverOptions {
  std::string input;  // path, or "-" for stdin
  std::string emit = "obj";
  std::string output;  // -o; empty: default for the emit kind
  std::string target_name = kDefaultTarget;
  LowerOptions lower;
  int opt_level = 2;
  bool auto_hvx = true;
  std::string runtime_dir;  // where runtime-support/<target>/libdspc_rt.a live
  // dspc run
  bool run = false;
  std::string func;
  std::vector<std::pair<std::string, std::string>> inputs;   // NAME=FILE
  std::vector<std::pair<std::string, std::string>> outputs;  // NAME=FILE
  bool random_inputs = false;
  uint64_t seed = 1;
  bool check = false;
  int64_t sim_vtcm_capacity = -1;
  std::string qemu;
  int timeout_seconds = 600;
  bool keep_temps = false;
};

int driver_main(int argc, char** argv);

// Runs a compiled executable for `run`: `dspc run` and tests use it. Returns the exit status,
// or -1 if it could not be started / timed out (message in `error`).
int run_process(const std::vector<std::string>& argv, int timeout_seconds, std::string& captured_stderr,
                std::string& error);

int run_command(const DriverOptions& o);

}  // namespace dspc
