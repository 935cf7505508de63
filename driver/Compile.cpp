#include "driver/Compile.h"

#include <filesystem>
#include <set>

#ifndef DSPC_INSTALL_LIBRARY_REL
#define DSPC_INSTALL_LIBRARY_REL "../share/dspc/schedules"
#endif

#include "driver/Lower.h"
#include "passes/FoldConstantStages.h"
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

namespace {

// A function's name is its symbol in the object (and the table's, and the C header's). The
// names dspc generates begin with "__dspc_", the runtime-support library's with "dspc_",
// "Dspc" or "HexagonBackend", and the runtime defines or calls a few C library functions;
// a func with one of those names would clash with them at link time, or silently replace
// them. Returns why `name` is refused, or "" when it is free.
std::string reserved_symbol(const std::string& name) {
  static const std::set<std::string> c_library = {
      "memcpy", "memmove", "memset", "memcmp", "strlen", "strcmp", "floor", "floorf",
      "fmod", "fmodf", "sqrt", "sqrtf", "malloc", "calloc", "realloc", "free", "abort", "exit",
      "open", "close", "read", "write", "mmap", "munmap", "getenv", "strerror"};
  if (name.rfind('_', 0) == 0) return "names that begin with '_' are reserved (for dspc's own symbols, and by C)";
  for (const char* prefix : {"dspc_", "Dspc", "HexagonBackend"})
    if (name.rfind(prefix, 0) == 0)
      return std::string("names that begin with '") + prefix + "' are reserved for dspc's runtime";
  if (name == "main") return "it is the entry point of the programs dspc links";
  if (c_library.count(name)) return "it is a C library function that dspc's runtime defines or calls";
  return "";
}

// A graph's device group, as group-device-calls names it (passes/GroupDeviceCalls.h):
// `__dspc_group_<graph>_<k>`. --emit=tir prints these, so TIR input takes them back.
bool is_group_function(const std::string& name) {
  const std::string prefix = "__dspc_group_";
  auto underscore = name.find_last_of('_');
  if (name.rfind(prefix, 0) != 0 || underscore <= prefix.size() || underscore + 1 == name.size()) return false;
  return name.find_first_not_of("0123456789", underscore + 1) == std::string::npos;
}

bool check_symbols(const std::vector<std::pair<std::string, Span>>& funcs, const char* what, Diagnostics& diag) {
  bool ok = true;
  for (const auto& [name, span] : funcs) {
    std::string why = reserved_symbol(name);
    if (why.empty()) continue;
    diag.error(span, std::string(what) + " '" + name + "' cannot be compiled under that name: " + why +
                         "; rename it");
    ok = false;
  }
  return ok;
}

}  // namespace

std::optional<Compilation> compile_source(const SourceFile& source, const LowerOptions& options,
                                          Diagnostics& diag, const std::vector<FuncInstance>& instances,
                                          const std::vector<std::string>& import_dirs,
                                          const std::string& wanted) {
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
    std::vector<std::pair<std::string, Span>> names;
    for (const auto& f : m->funcs)
      if (!is_group_function(f.name)) names.emplace_back(f.name, f.span);
    if (!check_symbols(names, "prim_func", diag)) return std::nullopt;
    auto lowered = lower_tir(*m, options, diag);
    if (!lowered) return std::nullopt;
    c.module = std::move(*lowered);
    return c;
  }
  auto p = parse_dsp(source, diag, instances, import_dirs);
  if (!p || diag.has_errors()) return std::nullopt;
  if (p->funcs.empty() && p->graphs.empty() && !p->generics.empty()) {
    const GenericFuncInfo* g = &p->generics[0];
    for (const auto& candidate : p->generics)
      if (candidate.name == wanted) g = &candidate;
    diag.error(g->span, "nothing to compile: " + uninstantiated_message(*g));
    return std::nullopt;
  }
  std::vector<std::pair<std::string, Span>> names;
  for (const auto& f : p->funcs) names.emplace_back(f.name, f.span);
  if (!check_symbols(names, "func", diag)) return std::nullopt;
  if (options.fold_constant_stages) {
    std::set<std::string> keep;
    for (const FuncInstance& i : instances) keep.insert(mangled_name(i));
    c.folded_from = fold_constant_stages(*p, keep);
  }
  auto lowered = lower(*p, options, diag);
  if (!lowered) return std::nullopt;
  c.program = std::move(*p);
  c.module = std::move(*lowered);
  return c;
}

}  // namespace dspc
