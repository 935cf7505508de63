// Fuzz target: the whole pipeline down to LLVM IR, as `dspc FILE --emit=llvm --verify-each`
// for hexagon-v68: parse (.dsp, or TIR when the input starts with prim_func), check, every
// pass with the TIR verifier after each, then codegen, LLVM's verifier and the -O2 pipeline.
// No object is emitted. Input: a .dsp or TIR file.
#include <exception>

#include "codegen/Codegen.h"
#include "driver/Compile.h"
#include "FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dspc;
  SourceFile source{"fuzz.dsp", std::string(reinterpret_cast<const char*>(data), size)};
  std::ostringstream out;
  Diagnostics diag(out, &source);
  LowerOptions options;
  options.target = *lookup_target("hexagon-v68");
  options.verify_each = true;
  try {
    auto c = compile_source(source, options, diag);
    fuzz::check_outcome(c.has_value(), diag, out);
    if (!c) {
      fuzz::report(false, out);
      return 0;
    }
    CodegenOptions co;
    co.target = options.target;
    co.opt_level = 2;
    std::string ir;
    bool ok = emit_module(c->module, {}, EmitKind::LLVM, co, ir, diag);
    fuzz::check_outcome(ok, diag, out);
    fuzz::report(ok, out);
  } catch (const std::exception& e) {
    fuzz::finding(std::string("exception escaped the pipeline: ") + e.what(), out.str());
  }
  return 0;
}
