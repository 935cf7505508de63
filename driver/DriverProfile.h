// `dspc run --profile` on a graph (docs/cli.md): each node's packets on the Hexagon target,
// printed like TVM's debug executor, each set against its op's resource bound.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen/Codegen.h"
#include "driver/Compile.h"
#include "driver/Driver.h"

namespace dspc {

// A call's resource bound in packets: the fewest packets HVX needs for its work, counted with
// one 128-byte load, one 128-byte store and two other vector instructions per packet (bench/README.md,
// "The resource bound"), and how it is counted.
struct ResourceBound {
  double packets = 0;
  std::string counts;
};
// `generic` is the called func's generic name ("" for a plain func), `args` its template arguments,
// `params` its inputs then results.
ResourceBound resource_bound(const std::string& generic, const std::vector<int64_t>& args,
                             const std::vector<ParamInfo>& params, int vector_bytes);

// Profiles graph `g` of `c` (compiled for o's Hexagon target): links the module with the runner
// into `tmp`, runs each distinct kernel once on random inputs under qemu-hexagon with one packet
// per translation block, counts its function's packets, and prints one row per node in the plan's
// order (standard error) and, with --json, `report["profile"]`. False with `error` set.
bool profile_graph(const DriverOptions& o, const Compilation& c, const Graph& g, const GraphPlan& plan,
                   const std::string& tmp, nlohmann::ordered_json& report, std::string& error);

}  // namespace dspc
