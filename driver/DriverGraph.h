// `dspc run` on a graph (README "Running a graph"): the IR side. It compiles the device module
// (and a host one for @host calls), makes the inputs, runs the graph through sessions
// (DriverSession.cpp), prints or saves the results, checks them against the reference
// interpreter run node by node, and reports the device round trips.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "compiler/interp/Interpreter.h"
#include "driver/Compile.h"
#include "driver/Driver.h"

namespace dspc {

// The graph `dspc run` runs: the one --func names, or the file's only graph when --func is not
// given; null to run a func.
const Graph* pick_graph(const Compilation& c, const std::string& func);

// Runs `g`. `report` is the --json report so far; `finish(status, error)` prints it.
int run_graph(const DriverOptions& o, const Compilation& c, const Graph& g, const SourceFile& source,
              nlohmann::ordered_json& report, const std::function<void(const std::string&, const std::string&)>& finish);

// From DriverRun.cpp, shared with the graph runner.
int64_t compare_tensors(const std::string& name, const Tensor& got, const Tensor& want, std::ostream& out);
nlohmann::ordered_json tensor_element_json(const Tensor& t, int64_t i);
std::string make_temp_dir(bool keep, std::string& error);  // "" on failure
void remove_temp_dir(const std::string& path);

}  // namespace dspc
