// Fuzz target: the .dsp parser and type checker (parse_dsp: lexing, parsing, typing, index
// bounds, schedule checks). Input: the text of a .dsp file.
#include <exception>

#include "compiler/frontend/Parser.h"
#include "FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dspc;
  SourceFile source{"fuzz.dsp", std::string(reinterpret_cast<const char*>(data), size)};
  std::ostringstream out;
  Diagnostics diag(out, &source);
  bool ok = false;
  try {
    ok = parse_dsp(source, diag).has_value();
  } catch (const std::exception& e) {
    fuzz::finding(std::string("exception escaped parse_dsp: ") + e.what(), out.str());
  }
  fuzz::check_outcome(ok, diag, out);
  fuzz::report(ok, out);
  return 0;
}
