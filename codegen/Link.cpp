// link_executable: in-process lld, as
//   ld.lld -static -e _start --gc-sections -o OUT OBJECTS... RUNTIME_DIR/TARGET/libdspc_rt.a
// link_shared: the same for a shared module (see Codegen.h), without libdspc_rt.a.
//
// 1. check that every input exists, so a missing runtime build is a clear error, not lld's;
// 2. run lld's ELF driver with its output captured in strings;
// 3. turn each "error:" lld prints into a diagnostic (with its ">>> referenced by" lines).
#include <lld/Common/Driver.h>
#include <llvm/Support/raw_ostream.h>

#include <filesystem>
#include <sstream>

#include "codegen/Codegen.h"
#include "codegen/CodegenLLVM.h"

LLD_HAS_DRIVER(elf)

namespace dspc {

namespace {

// lld's diagnostics: "ld.lld: error: msg" lines, each followed by ">>> detail" lines.
void report_lld_errors(const std::string& text, Diagnostics& diag) {
  std::istringstream in(text);
  std::string line, current;
  bool any = false;
  auto flush = [&] {
    if (current.empty()) return;
    diag.error("link: " + current);
    any = true;
    current.clear();
  };
  while (std::getline(in, line)) {
    size_t at = line.find("error: ");
    if (at != std::string::npos) {
      flush();
      current = line.substr(at + 7);
      continue;
    }
    if (!current.empty() && line.rfind(">>>", 0) == 0) current += "\n" + line;
  }
  flush();
  if (!any) diag.error("link: lld failed" + (text.empty() ? std::string() : ": " + text));
}

}  // namespace

namespace {

bool run_lld(const std::vector<const char*>& args, Diagnostics& diag) {
  std::string out_text, err_text;
  llvm::raw_string_ostream out(out_text), err(err_text);
  lld::Result r = lld::lldMain(args, out, err, {{lld::Gnu, &lld::elf::link}});
  // lld resets every LLVM option to its default as it parses its own
  // (cl::ResetAllOptionOccurrences): dspc's settings (no small data, no duplexes, ...) are put
  // back for the compilations after this link (unit test Codegen.AnInProcessLinkKeepsDspcsLlvmOptions).
  codegen::configure_llvm_options();
  out.flush();
  err.flush();
  if (r.retCode == 0) return true;
  report_lld_errors(err_text, diag);
  if (!r.canRunAgain) diag.error("link: lld cannot run again in this process");
  return false;
}

}  // namespace

bool link_shared(const std::string& object_path, const Target& target, const std::string& runtime_dir,
                 const std::string& out_path, Diagnostics& diag) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(object_path, ec)) {
    diag.error("object file not found: " + object_path);
    return false;
  }
  std::vector<const char*> args = {"ld.lld", "-shared", "-Bsymbolic", "--exclude-libs=ALL",
                                   "-o",     out_path.c_str(), object_path.c_str()};
  std::string builtins = (fs::path(runtime_dir) / target.name / "libdspc_builtins.a").string();
  if (target.arch == Arch::hexagon) {
    if (!fs::is_regular_file(builtins, ec)) {
      diag.error("runtime-support builtins for " + target.name + " not found: " + builtins);
      return false;
    }
    args.push_back(builtins.c_str());
  }
  return run_lld(args, diag);
}

bool link_executable(const std::vector<std::string>& object_paths, const Target& target,
                     const std::string& runtime_dir, const std::string& out_path, Diagnostics& diag) {
  namespace fs = std::filesystem;
  std::string runtime = (fs::path(runtime_dir) / target.name / "libdspc_rt.a").string();
  std::error_code ec;
  if (!fs::is_regular_file(runtime, ec)) {
    diag.error("runtime-support library for " + target.name + " not found: " + runtime);
    return false;
  }
  for (const std::string& o : object_paths) {
    if (!fs::is_regular_file(o, ec)) {
      diag.error("object file not found: " + o);
      return false;
    }
  }
  std::vector<const char*> args = {"ld.lld", "-static",       "-e", "_start", "--gc-sections",
                                   "-o",     out_path.c_str()};
  for (const std::string& o : object_paths) args.push_back(o.c_str());
  args.push_back(runtime.c_str());
  return run_lld(args, diag);
}

}  // namespace dspc
