#include "driver/Compile.h"

#include <filesystem>

#ifndef DSPC_INSTALL_LIBRARY_REL
#define DSPC_INSTALL_LIBRARY_REL "../share/dspc/schedules"
#endif

#include "driver/Lower.h"
#include "compiler/frontend/Parser.h"

namespace dspc {

std::string uninstantiated_message(const GenericFuncInfo& g) {
  std::string params, example;
  for (size_t i = 0; i < g.params.size(); ++i) {
    params += (i ? ", " : "") + g.params[i];
    example += (i ? "," : "") + std::string("64");
  }
  return "'" + g.name + "' is a generic func <" + params +
         ">; instantiate it with its parameters, e.g. --func='" + g.name + "<" + example +
         ">' (or call it from a graph)";
}

std::string library_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  fs::path dir = exe.parent_path();
  if (fs::exists(dir / "CMakeCache.txt", ec) && fs::is_directory(dir / "schedules", ec))
    return (dir / "schedules").string();
  fs::path installed = (dir / DSPC_INSTALL_LIBRARY_REL).lexically_normal();
  return fs::is_directory(installed, ec) ? installed.string() : "";
}

std::optional<Compilation> compile_source(const SourceFile& source, const LowerOptions& options,
                                          Diagnostics& diag, const std::vector<FuncInstance>& instances,
                                          const std::vector<std::string>& import_dirs) {
  diag.set_source(&source);
  Compilation c;
  if (!instances.empty() && looks_like_tir(source.text)) {
    diag.error("'" + instances[0].name + "<...>' instantiates a generic func, but " + source.path +
               " is TIR");
    return std::nullopt;
  }
  if (looks_like_tir(source.text)) {
    auto m = parse_tir(source, diag);
    if (!m || diag.has_errors()) return std::nullopt;
    auto lowered = lower_tir(*m, options, diag);
    if (!lowered) return std::nullopt;
    c.module = std::move(*lowered);
    return c;
  }
  auto p = parse_dsp(source, diag, instances, import_dirs);
  if (!p || diag.has_errors()) return std::nullopt;
  if (p->funcs.empty() && p->graphs.empty() && !p->generics.empty()) {
    diag.error(p->generics[0].span, "nothing to compile: " + uninstantiated_message(p->generics[0]));
    return std::nullopt;
  }
  auto lowered = lower(*p, options, diag);
  if (!lowered) return std::nullopt;
  c.program = std::move(*p);
  c.module = std::move(*lowered);
  return c;
}

}  // namespace dspc
