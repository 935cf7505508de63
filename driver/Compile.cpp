#include "driver/Compile.h"

#include "driver/Lower.h"
#include "compiler/frontend/Parser.h"

namespace dspc {

std::optional<Compilation> compile_source(const SourceFile& source, const LowerOptions& options,
                                          Diagnostics& diag) {
  diag.set_source(&source);
  Compilation c;
  if (looks_like_tir(source.text)) {
    auto m = parse_tir(source, diag);
    if (!m || diag.has_errors()) return std::nullopt;
    auto lowered = lower_tir(*m, options, diag);
    if (!lowered) return std::nullopt;
    c.module = std::move(*lowered);
    return c;
  }
  auto p = parse_dsp(source, diag);
  if (!p || diag.has_errors()) return std::nullopt;
  auto lowered = lower(*p, options, diag);
  if (!lowered) return std::nullopt;
  c.program = std::move(*p);
  c.module = std::move(*lowered);
  return c;
}

}  // namespace dspc
