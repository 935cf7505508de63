// The steps `dspc run` takes for a func and for a graph alike (README "dspc run"):
//
//   1. check the --input/--output names against the signature, and that the tensors fit
//      everywhere they must go (host memory, the temporary folder, the simulated DSP's address
//      space, a session's arena) before anything is generated;
//   2. build (a runner executable, or shared modules) in a temporary folder;
//   3. read or generate the inputs, execute, and print or save the outputs;
//   4. with --check, compare them bit for bit with the reference interpreter.
//
// What differs between a func and a graph (steps 2, 3's execution and 4's reference) comes in
// as RunHooks; DriverRun.cpp (funcs: runner or session) and DriverGraph.cpp (graphs) give them.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/interp/Interpreter.h"
#include "driver/Driver.h"

namespace dspc {

struct RunTensor {
  std::string name;
  DataType dtype;
  std::vector<int64_t> shape;
  uint64_t bytes() const;
};

// What runs: a function's or a graph's inputs and results, in order.
struct RunSignature {
  std::string kind;  // "function" or "graph"
  std::string name;
  std::vector<RunTensor> inputs, outputs;
  // Tensors the reference interpreter holds besides inputs and outputs (a graph's others).
  uint64_t reference_extra_bytes = 0;
};

// How the signature runs: a runner on the simulator, or sessions.
enum class RunMode { Runner, Session, Graph };

// The `dspc run --json` report (README "dspc run --json"), filled in as the run goes; finish()
// prints it (with --json) exactly once.
class RunReport {
 public:
  explicit RunReport(const DriverOptions& o);
  nlohmann::ordered_json& json() { return j_; }
  void time(const char* step, double ms) { j_["timings_ms"][step] = ms; }
  void finish(const std::string& status, const std::string& error = "");
  // "dspc: error: MSG" on stderr, and a report with the error. Returns 1.
  int fail(const std::string& msg);
  // For failures whose diagnostics are on stderr already. Returns `status`.
  int fail_after_diagnostics(const std::string& summary, int status);

 private:
  bool enabled_;
  bool finished_ = false;
  nlohmann::ordered_json j_;
};

struct RunHooks {
  RunMode mode = RunMode::Runner;
  bool needs_qemu = true;  // a Hexagon target with something to run on the device
  // Builds what runs into the folder `dir`. Returns -1 to go on, else the exit status (the
  // report is finished).
  std::function<int(const std::string& dir)> build;
  // Runs on the inputs; fills the outputs (in the signature's order).
  std::function<bool(const std::string& dir, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                     std::string& error)>
      execute;
  // The reference interpreter's outputs for the inputs.
  std::function<bool(const std::vector<Tensor>& inputs, std::vector<Tensor>& want, std::string& error)> reference;
};

// Steps 1 to 4. Returns the exit status; the report is finished.
int run_signature(const DriverOptions& o, const RunSignature& sig, const RunHooks& hooks, RunReport& report);

// Why the tensors cannot run as `mode` asks, naming the limit, or "" when they fit.
std::string check_room(const DriverOptions& o, const RunSignature& sig, RunMode mode);

// The time since t0 in milliseconds.
double ms_since(std::chrono::steady_clock::time_point t0);

// "1 element", "6 elements".
std::string elements_text(int64_t n);

}  // namespace dspc
