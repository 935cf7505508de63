// The pass registry (Passes.def): every pass of the pipeline with its name, its function, what
// it does and the options that change it, in pipeline order. The driver runs it; nothing else
// lists the passes.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/Diagnostics.h"
#include "compiler/ir/IR.h"
#include "passes/support/PassOptions.h"

namespace dspc {

// What a pass may read besides the module it transforms.
struct PassContext {
  const LowerOptions& options;
  Diagnostics& diag;
  // The checked .dsp program (Program passes only; null for TIR input).
  const TensorProgram* program = nullptr;
  // The module the Tir passes started from (before flatten-buffers): make-packed-api checks
  // the shapes callers declared, which are its shapes.
  const Module* tir_input = nullptr;
};

enum class PassInput { Program, Tir };

struct PassInfo {
  const char* name;  // the CLI's name: --print-after=NAME
  Module (*run)(const Module&, const PassContext&);
  PassInput input;
  const char* description;
  const char* options;  // the CLI options that change what the pass does, comma-separated
};

// Every pass, in pipeline order.
const std::vector<PassInfo>& passes();

}  // namespace dspc
