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

namespace dspc {

// `dspc run` on a graph (DriverGraph.cpp describes it; run_graph_in_session runs it). Tensors
// are numbered as in the graph; a device step is one call of its group function (inputs then
// outputs), a host step calls host kernels one by one.
struct GraphRunTensor {
  std::string name;
  uint8_t type_code = 0, bits = 8;  // dspc_runtime.h's codes
  std::vector<int64_t> shape;
  uint64_t nbytes = 0;
};

struct GraphRunCall {
  std::string func;
  std::vector<int> args;  // tensors: inputs then outputs
  size_t num_inputs = 0;
};

struct GraphRunStep {
  bool device = true;
  std::vector<GraphRunCall> calls;  // a device step: one call, of its group function
};

struct GraphRun {
  std::string device_module;  // the target's .so (group functions)
  std::string host_module;    // a host .so for @host calls; "" when there are none
  std::string target;         // a Hexagon target's name, or "host"
  std::string qemu;
  int timeout_seconds = 600;
  int64_t vtcm_capacity = -1;
  int iterations = 1;
  bool lazy_calls = false;  // SessionOptions::lazy_calls for the device session
  std::vector<GraphRunTensor> tensors;
  std::vector<int> inputs, outputs;
  std::vector<std::vector<uint8_t>> input_bytes;  // per graph input
  std::vector<GraphRunStep> steps;
};

struct GraphRunStats {
  uint64_t setup_round_trips = 0;   // opening the session, allocations, loading, lookups
  uint64_t inference_round_trips = 0;  // all inferences together
  uint64_t teardown_round_trips = 0;   // frees, unload, shutdown
  uint64_t device_calls = 0;           // per inference
  uint64_t host_calls = 0;             // per inference
  uint64_t crossings = 0;              // tensor copies between host and device memory, per inference
  uint64_t crossing_bytes = 0;         // per inference
  double inference_ms = 0;             // all inferences together (wall time)
};

// Runs the graph `iterations` times and returns the outputs' bytes (graph result order) of the
// last run. Each inference copies the inputs in, runs the steps in order, copying a tensor
// between host and device memory only when a step on the other side reads it, and copies the
// results out. False with `error` on failure.
bool run_graph_in_session(const GraphRun& run, std::vector<std::vector<uint8_t>>& outputs, GraphRunStats& stats,
                          std::string& error);

}  // namespace dspc
