// `dspc run` on a graph (README "Running a graph"), and the session set-up funcs share with it:
// a func with --session runs as a graph of one device call (DriverSession.h).
#pragma once

#include <string>
#include <vector>

#include "driver/Compile.h"
#include "driver/Driver.h"
#include "driver/DriverSession.h"
#include "driver/RunSteps.h"

namespace dspc {

// The graph `dspc run` runs: the one --func names, or the file's only graph when --func is not
// given; null to run a func.
const Graph* pick_graph(const Compilation& c, const std::string& func);

// Runs `g`: compiles the device module (and a host one for @host calls), runs the plan's steps
// in sessions --repeat times, prints or saves the results, checks them against the reference
// interpreter run node by node in the plan's order, and reports the device round trips.
int run_graph(const DriverOptions& o, const Compilation& c, const Graph& g, const SourceFile& source,
              RunReport& report);

// A session run with the options of `o` (target, simulator, deadline, VTCM, --repeat,
// --lazy-calls) and no tensors or steps yet. `what` names it in option errors ("--session").
GraphRun session_run(const DriverOptions& o, const std::string& what, const std::string& device_module);
// A tensor of a session run.
GraphRunTensor session_tensor(const std::string& name, DataType dtype, const std::vector<int64_t>& shape);

// Runs `run` (inputs: `inputs`) and gives the outputs as tensors of the signature's types.
bool execute_in_session(GraphRun& run, const RunSignature& sig, const std::vector<Tensor>& inputs,
                        std::vector<Tensor>& outputs, GraphRunStats& stats, std::string& error);

}  // namespace dspc
