// The compile half of run_model.cpp, through dspc's embedding API (driver/Compile.h).
#include "examples/onnx-api/compile_step.h"

#include <cstdio>
#include <iostream>

#include "driver/Compile.h"
#include "driver/Driver.h"

std::string compile_step(const std::string& model_path, const std::string& target, const std::string& so_path) {
  dspc::DriverOptions o;
  o.lower.target = *dspc::lookup_target(target);
  o.runtime_dir = DSPC_EXAMPLE_RUNTIME_DIR;
  dspc::Diagnostics diag(std::cerr);
  dspc::SourceFile imported;  // the imported .dsp program, which diagnostics point into
  auto c = dspc::compile_model(model_path, {}, o.lower, diag, imported, {DSPC_EXAMPLE_LIBRARY_DIR});
  if (!c || !dspc::emit_shared(o, *c, so_path, diag)) return "";
  const dspc::GraphPlan& plan = c->module.graph_plans.at(0);
  std::printf("compiled %s: %zu calls in %d device group (%s)\n", model_path.c_str(), plan.order.size(),
              plan.device_groups(), plan.steps.at(0).func.c_str());
  return plan.steps.at(0).func;
}
