// `dspc run` through the host runtime (dspc::Session): a graph, and a func with --session, which
// runs as a graph of one device call. This header names neither the IR's types nor
// <dspc/host.h>'s (both declare a dspc::Module), so the driver's other files and
// DriverSession.cpp each see only one of them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dspc {

// Tensors are numbered; a device step is one call of a device function (a func's checked
// entry, or a graph's group function: inputs then outputs), a host step calls host kernels one
// by one.
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
  std::vector<GraphRunCall> calls;  // a device step: one call, of its device function
};

struct GraphRun {
  std::string what;           // "--session" or "running a graph", for option errors
  std::string device_module;  // the target's .so
  std::string host_module;    // a host .so for @host calls; "" when there are none
  std::string target;         // a Hexagon target's name, or "host"
  std::string qemu;
  int timeout_seconds = 600;
  int start_timeout_seconds = 30;  // the device server's start-up (SessionOptions::start_deadline)
  int64_t vtcm_capacity = -1;
  int iterations = 1;
  bool lazy_calls = false;  // SessionOptions::lazy_calls for the device session
  std::vector<GraphRunTensor> tensors;
  std::vector<int> inputs, outputs;
  std::vector<std::vector<uint8_t>> input_bytes;  // per input
  std::vector<GraphRunStep> steps;
  std::function<void(int done, int total)> on_inference;  // after each inference (progress)
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

// Runs the steps `iterations` times and returns the outputs' bytes (in `run.outputs` order) of
// the last run. Each inference copies the inputs in, runs the steps in order, copying a tensor
// between host and device memory only when a step on the other side reads it, and copies the
// results out. No device session is opened when no step runs on the device. False with the
// device's message in `error` on failure (a kernel that failed, crashed or ran over the
// deadline, a server that died, a refused argument).
bool run_graph_in_session(const GraphRun& run, std::vector<std::vector<uint8_t>>& outputs, GraphRunStats& stats,
                          std::string& error);

// A tensor's size in the session's arena: rounded up to the guest's 64 KiB pages.
uint64_t guest_pages(uint64_t bytes);
// The arena a session gets for tensors of these sizes: their pages, and 64 MiB for VTCM, the
// control page and the runtime's own allocations.
uint64_t session_arena_bytes(const std::vector<uint64_t>& tensor_bytes);
// The largest arena a session takes (SessionOptions::arena_bytes, <dspc/host.h>: 2.75 GiB).
constexpr uint64_t kMaxSessionArenaBytes = 0xb0000000ull;

}  // namespace dspc
