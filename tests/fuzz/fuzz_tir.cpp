// Fuzz target: the TIR parser (parse_tir), which reads what `dspc --emit=tir` prints. A module
// it accepts is verified (verify_module: a module the parser builds must be valid TIR) and
// printed (the printer must handle whatever the parser builds).
// Input: TIR text.
#include <exception>

#include "compiler/frontend/Parser.h"
#include "compiler/ir/Printer.h"
#include "compiler/ir/Verifier.h"
#include "FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dspc;
  SourceFile source{"fuzz.tir", std::string(reinterpret_cast<const char*>(data), size)};
  std::ostringstream out;
  Diagnostics diag(out, &source);
  try {
    auto m = parse_tir(source, diag);
    fuzz::check_outcome(m.has_value(), diag, out);
    fuzz::report(m.has_value(), out);
    if (m) {
      std::string error;
      if (!verify_module(*m, error)) fuzz::finding("parse_tir accepted TIR the verifier refuses: " + error, out.str());
      (void)print_module(*m);
    }
  } catch (const std::exception& e) {
    fuzz::finding(std::string("exception escaped parse_tir: ") + e.what(), out.str());
  }
  return 0;
}
