// The compile half of run_model.cpp: dspc::compile_model and dspc::emit_shared.
#pragma once

#include <string>

// Compiles the ONNX model at `model_path` for `target` into the shared module `so_path`; returns
// the name of the graph's device group function (the one call per inference), or "" after
// printing the errors.
std::string compile_step(const std::string& model_path, const std::string& target, const std::string& so_path);
