#include "driver/Driver.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include <unistd.h>

#include <llvm/ADT/SmallVector.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Option/Arg.h>
#include <llvm/Option/ArgList.h>
#include <llvm/Option/OptTable.h>
#include <llvm/Option/Option.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/Error.h>
#include <llvm/IR/PassTimingInfo.h>
#include <llvm/Pass.h>
#include <llvm/Support/StringSaver.h>
#include <llvm/Support/Timer.h>
#include <llvm/Support/raw_ostream.h>

#include "codegen/Codegen.h"
#include "driver/Compile.h"
#include "driver/GraphJson.h"
#include "driver/Lower.h"
#include "driver/ModuleJson.h"
#include "driver/Process.h"
#include "driver/Progress.h"
#include "compiler/ir/Printer.h"

// runtime-support's folder relative to dspc's own, once installed (CMake sets it from the
// install layout: bin/ and lib/dspc/). No absolute path of the build is compiled in.
#ifndef DSPC_INSTALL_RUNTIME_REL
#define DSPC_INSTALL_RUNTIME_REL "../lib/dspc"
#endif
#ifndef DSPC_QEMU
#define DSPC_QEMU "qemu-hexagon"
#endif

namespace dspc {

namespace {

// Where runtime-support is, from dspc's own path: runtime-support/ beside dspc in a build tree
// (a folder with a CMakeCache.txt), else DSPC_INSTALL_RUNTIME_REL from an installed bin/dspc.
std::string default_runtime_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return DSPC_INSTALL_RUNTIME_REL;
  fs::path dir = exe.parent_path();
  if (fs::exists(dir / "CMakeCache.txt", ec) && fs::is_directory(dir / "runtime-support", ec))
    return (dir / "runtime-support").string();
  return (dir / DSPC_INSTALL_RUNTIME_REL).lexically_normal().string();
}

// The Hexagon targets by version, and the others, as the table has them.
std::pair<std::vector<Target>, std::vector<Target>> targets_by_kind() {
  std::vector<Target> hexagon, other;
  for (const std::string& name : target_names()) {
    Target t = *lookup_target(name);
    (t.arch == Arch::hexagon ? hexagon : other).push_back(t);
  }
  std::sort(hexagon.begin(), hexagon.end(),
            [](const Target& a, const Target& b) { return a.hexagon_version < b.hexagon_version; });
  return {hexagon, other};
}

// "hexagon-vNN (NN: 65, 66, 68, 69, 73) or host (default hexagon-v68)": every value is a whole
// target name, so the versions are not written as if "v66" were one.
std::string target_choices() {
  auto [hexagon, other] = targets_by_kind();
  std::string versions;
  for (const Target& t : hexagon) versions += (versions.empty() ? "" : ", ") + std::to_string(t.hexagon_version);
  std::string out = hexagon.empty() ? "" : "hexagon-vNN (NN: " + versions + ")";
  for (const Target& t : other) out += (out.empty() ? "" : " or ") + t.name;
  return out + " (default " + kDefaultTarget + ")";
}

// "hexagon-v65..v73, host"
std::string target_summary() {
  auto [hexagon, other] = targets_by_kind();
  std::vector<std::string> parts;
  if (!hexagon.empty()) {
    std::string range = hexagon.front().name;
    if (hexagon.size() > 1) range += "..v" + std::to_string(hexagon.back().hexagon_version);
    parts.push_back(range);
  }
  for (const Target& t : other) parts.push_back(t.name);
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

bool parse_int(const std::string& s, int64_t& out) {
  if (s.empty() || s.size() > 18) return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  return true;
}

// Splits NAME=FILE.
bool parse_binding(const std::string& s, std::pair<std::string, std::string>& out) {
  auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) return false;
  out = {s.substr(0, eq), s.substr(eq + 1)};
  return true;
}

// PASS or PASS:KIND for --inject-internal-error.
bool parse_injection(const std::string& v, LowerOptions& lo) {
  auto colon = v.find(':');
  std::string pass = v.substr(0, colon), kind = colon == std::string::npos ? "check" : v.substr(colon + 1);
  const auto& names = pass_names();
  if (pass == "codegen") {  // inside LLVM: codegen:crash (a SIGSEGV) or codegen:fatal
    if (kind == "crash") lo.inject_failure = InjectedFailure::Crash;
    else if (kind == "fatal") lo.inject_failure = InjectedFailure::Fatal;
    else return false;
    lo.inject_failure_pass = pass;
    return true;
  }
  if (std::find(names.begin(), names.end(), pass) == names.end()) return false;
  if (kind == "check") lo.inject_failure = InjectedFailure::Check;
  else if (kind == "make") lo.inject_failure = InjectedFailure::Make;
  else if (kind == "invalid-tir") lo.inject_failure = InjectedFailure::InvalidTir;
  else return false;
  lo.inject_failure_pass = pass;
  return true;
}

int usage_error(const std::string& msg) {
  std::cerr << "dspc: error: " << msg << "\n" << "run 'dspc --help' for usage\n";
  return 1;
}

// ---- The command line, parsed with LLVM's option library (llvm/Option) as clang and lld do.
// The table is driver/Options.td, turned into DriverOptions.inc by llvm-tblgen at build time.
// Parsing touches no global state (no llvm::cl option of LLVM's is read or set), so every call
// of driver_main starts from the defaults.

enum OptionID : unsigned {
  OPT_INVALID = 0,
#define OPTION(...) LLVM_MAKE_OPT_ID(__VA_ARGS__),
#include "DriverOptions.inc"
#undef OPTION
};

#define PREFIX(NAME, VALUE)                                    \
  constexpr llvm::StringLiteral NAME##_init[] = VALUE;         \
  constexpr llvm::ArrayRef<llvm::StringLiteral> NAME(NAME##_init, std::size(NAME##_init) - 1);
#include "DriverOptions.inc"
#undef PREFIX

using llvm::opt::DefaultVis;
constexpr llvm::opt::OptTable::Info kOptionInfo[] = {
#define OPTION(...) LLVM_CONSTRUCT_OPT_INFO(__VA_ARGS__),
#include "DriverOptions.inc"
#undef OPTION
};

class OptionTable : public llvm::opt::GenericOptTable {
 public:
  OptionTable() : GenericOptTable(kOptionInfo) {}
};

const char* kUsage =
    "dspc [options] FILE                compile a .dsp (or TIR) file, or an .onnx model\n"
    "       dspc run [options] FILE            compile, link, run on the simulator (or host) and show results\n"
    "       dspc [options] SOURCE.c... KERNELS.dsp... [-o PROGRAM]\n"
    "                                          compile C/C++ sources (with Clang, in-process) and\n"
    "                                          kernels, and link a program; 'dspc run' runs it";
const char* kUsageFoot = R"(
Input is a .dsp file, TIR as printed by --emit=tir, or an ONNX model (FILE.onnx, imported as a
.dsp graph of op-library calls: docs/onnx.md); FILE '-' reads standard input. .c files
are C, .cc/.cpp/.cxx files C++. @FILE reads more arguments from FILE (a response file).
)";

// `dspc --help`: the option table's help, the --target line from the target table.
std::string usage() {
  std::string text;
  llvm::raw_string_ostream os(text);
  OptionTable().printHelp(os, kUsage, "dspc, an ahead-of-time tensor compiler for Qualcomm Hexagon");
  os.flush();
  const std::string marker = "@TARGETS@";
  auto at = text.find(marker);
  if (at != std::string::npos) text.replace(at, marker.size(), target_choices());
  return text + kUsageFoot;
}

// The option as the user spelled it, without its value: "--emit", "-o", "-c".
std::string spelling_of(const llvm::opt::Arg& a) {
  std::string s = a.getSpelling().str();
  if (!s.empty() && s.back() == '=') s.pop_back();
  return s;
}

// @FILE arguments, replaced by the arguments FILE holds (GNU quoting, nested @FILEs too).
// A response file that cannot be read is an error, not a file name.
bool expand_response_files(llvm::StringSaver& saver, llvm::SmallVectorImpl<const char*>& args) {
  std::vector<std::string> unreadable;
  for (const char* a : args)
    if (a[0] == '@' && access(a + 1, R_OK) != 0) unreadable.push_back(a + 1);
  if (!unreadable.empty()) {
    usage_error("cannot read response file '" + unreadable[0] + "': " + std::strerror(errno));
    return false;
  }
  llvm::cl::ExpansionContext ec(saver.getAllocator(), llvm::cl::TokenizeGNUCommandLine);
  if (llvm::Error e = ec.expandResponseFiles(args)) {
    usage_error("in a response file: " + llvm::toString(std::move(e)));
    return false;
  }
  return true;
}

bool is_c_source(const std::string& path) {
  for (const char* ext : {".c", ".cc", ".cpp", ".cxx", ".C"}) {
    size_t n = std::strlen(ext);
    if (path.size() > n && path.compare(path.size() - n, n, ext) == 0) return true;
  }
  return false;
}

// What the option loop collects besides DriverOptions: options that only `dspc run` reads and
// the compile-only ones, as given (for the checks after the loop: an option the command ignores
// is an error, not silently dropped), and the input files.
struct ParseState {
  std::vector<std::string> run_only, compile_only, dsp_inputs;
  bool emit_given = false;
  bool plain_func = false;  // --func=NAME that is no instantiation
};

// --help, --version, --list-*: prints and returns 0; -1 for any other option.
int print_info(unsigned id) {
  switch (id) {
    case OPT_help: std::cout << usage(); return 0;
    case OPT_version:
      std::cout << "dspc " << DSPC_VERSION << " (LLVM " << LLVM_VERSION_STRING << ", targets: " << target_summary()
                << ")\n";
      return 0;
    case OPT_list_passes:
      for (const auto& p : pass_names()) std::cout << p << "\n";
      return 0;
    case OPT_list_targets:
      for (const auto& t : target_names()) std::cout << t << "\n";
      return 0;
    case OPT_list_onnx_ops: std::cout << onnx_supported_ops(); return 0;
    default: return -1;
  }
}

// The options without a value. False for any other option.
bool apply_flag(unsigned id, DriverOptions& o) {
  switch (id) {
    case OPT_print_after_all: o.lower.print_after_all = true; return true;
    case OPT_explain_schedule: o.lower.explain_schedule = true; return true;
    case OPT_verify_each: o.lower.verify_each = true; return true;
    case OPT_time_passes: o.time_passes = true; return true;
    case OPT_no_auto_hvx: o.auto_hvx = false; return true;
    case OPT_no_auto_schedule: o.lower.auto_schedule = false; return true;
    case OPT_no_vtcm_plan: o.lower.plan_vtcm = false; return true;
    case OPT_no_group_device_calls: o.lower.group_device_calls = false; return true;
    case OPT_no_fold_constant_stages: o.lower.fold_constant_stages = false; return true;
    case OPT_lazy_calls: o.lazy_calls = true; return true;
    case OPT_profile: o.profile = true; return true;
    case OPT_random_inputs: o.random_inputs = true; return true;
    case OPT_check: o.check = true; return true;
    case OPT_keep_temps: o.keep_temps = true; return true;
    case OPT_session: o.session = true; return true;
    case OPT_json: o.json = true; return true;
    case OPT_MD: o.depfile = true; return true;
    case OPT_quiet: o.quiet = true; return true;
    default: return false;
  }
}

// The options with a number. Returns -1 when applied (or not one of them), else an exit code.
int apply_number(unsigned id, const std::string& name, const std::string& v, DriverOptions& o) {
  int64_t n = 0;
  bool ok = parse_int(v, n);
  switch (id) {
    case OPT_seed_eq:
      if (!ok) return usage_error("--seed needs a whole number from 0 to 999999999999999999, got '" + v + "'");
      o.seed = static_cast<uint64_t>(n);
      return -1;
    case OPT_json_max_values_eq:
      if (!ok || n > 1000000000)
        return usage_error("--json-max-values needs a whole number from 0 to 1000000000, got '" + v + "'");
      o.json_max_values = n;
      o.json_max_values_given = true;
      return -1;
    case OPT_repeat_eq:
      if (!ok || n < 1 || n > 1000000) return usage_error("--repeat needs a count from 1 to 1000000, got '" + v + "'");
      o.repeat = static_cast<int>(n);
      return -1;
    case OPT_timeout_eq:
      if (!ok || n < 1 || n > 86400) return usage_error("--timeout needs seconds from 1 to 86400, got '" + v + "'");
      o.timeout_seconds = static_cast<int>(n);
      return -1;
    case OPT_start_timeout_eq:
      if (!ok || n < 1 || n > 86400)
        return usage_error("--start-timeout needs seconds from 1 to 86400, got '" + v + "'");
      o.start_timeout_seconds = static_cast<int>(n);
      o.start_timeout_given = true;
      return -1;
    case OPT_vtcm_capacity_eq:
    case OPT_sim_vtcm_capacity_eq:
      if (v.empty()) return usage_error("empty value for " + name);
      if (!ok || n > 0xffffffffLL)
        return usage_error("invalid byte count '" + v + "' for " + name + " (a whole number up to 4294967295)");
      (id == OPT_sim_vtcm_capacity_eq ? o.sim_vtcm_capacity : o.lower.vtcm_capacity) = n;
      return -1;
    default: return -1;
  }
}

// --func: a name, or an instantiation, which also goes with compiling.
int apply_func(const std::string& v, DriverOptions& o, ParseState& st) {
  o.func = v;
  if (v.find('<') == std::string::npos) {
    st.plain_func = true;
    return -1;
  }
  FuncInstance fi;
  std::string why;
  if (!parse_func_instance(v, fi, why))
    return usage_error("invalid --func='" + v + "': " + why + " (e.g. --func='conv2d<56,56,64,64>')");
  o.func = mangled_name(fi);
  o.instances.push_back(fi);
  st.run_only.pop_back();
  return -1;
}

// The options with a string value. Returns -1 to go on, else an exit code.
int apply_value(const llvm::opt::Arg& arg, const std::string& name, const std::string& v, DriverOptions& o,
                ParseState& st) {
  const unsigned id = arg.getOption().getID();
  bool numeric = id == OPT_seed_eq || id == OPT_json_max_values_eq || id == OPT_repeat_eq || id == OPT_timeout_eq ||
                 id == OPT_start_timeout_eq || id == OPT_vtcm_capacity_eq || id == OPT_sim_vtcm_capacity_eq;
  if (numeric) return apply_number(id, name, v, o);
  if (id == OPT_INPUT) {
    (is_c_source(v) ? o.c_sources : st.dsp_inputs).push_back(v);
    return -1;
  }
  if (id == OPT_input_shape || id == OPT_input_layout_eq || id == OPT_output_layout_eq) {
    std::string error;
    return parse_onnx_option(name, v, o, error) ? -1 : usage_error(error);
  }
  if (v.empty() && id != OPT_O && id != OPT_input && id != OPT_output)
    return usage_error("empty value for " + name);  // --func=, -o '': an error naming the option
  switch (id) {
    case OPT_I: {  // -I DIR or -IDIR
      std::error_code ec;
      if (!std::filesystem::is_directory(v, ec)) return usage_error("-I " + v + ": not a directory");
      o.import_dirs.push_back(v);
      return -1;
    }
    case OPT_MF: o.depfile_path = v; return -1;  // -MF FILE or -MFFILE, as clang and gcc take it
    case OPT_O:
      if (v.size() != 1 || v[0] < '0' || v[0] > '3')
        return usage_error("invalid optimisation level '-O" + v + "' (-O0, -O1, -O2 or -O3)");
      o.opt_level = v[0] - '0';
      return -1;
    case OPT_target_eq: o.target_name = v; return -1;
    case OPT_emit_eq:
      st.compile_only.push_back(name);
      if (v != "tir" && v != "llvm" && v != "asm" && v != "obj" && v != "exe" && v != "so" && v != "header" &&
          v != "json" && v != "graph-json" && v != "dsp")
        return usage_error("unknown --emit kind '" + v +
                           "' (tir, llvm, asm, obj, exe, so, header, json, graph-json, dsp)");
      o.emit = v;
      st.emit_given = true;
      return -1;
    case OPT_o:
      st.compile_only.push_back(name);
      o.output = v;
      return -1;
    case OPT_print_after_eq: {
      const auto& names = pass_names();
      if (std::find(names.begin(), names.end(), v) == names.end())
        return usage_error("unknown pass '" + v + "' in --print-after (see --list-passes)");
      o.lower.print_after.push_back(v);
      return -1;
    }
    case OPT_inject_internal_error_eq: {
      if (parse_injection(v, o.lower)) return -1;
      std::string names;
      for (const auto& p : pass_names()) names += (names.empty() ? "" : ", ") + p;
      return usage_error("expected PASS or PASS:check|make|invalid-tir, or codegen:crash|fatal, after "
                         "--inject-internal-error, got '" + v + "' (passes: " + names + ")");
    }
    case OPT_runtime_dir_eq: o.runtime_dir = v; return -1;
    case OPT_func_eq: return apply_func(v, o, st);
    case OPT_input:
    case OPT_output: {
      std::pair<std::string, std::string> b;
      if (!parse_binding(v, b)) return usage_error("expected NAME=FILE after " + name + ", got '" + v + "'");
      (id == OPT_input ? o.inputs : o.outputs).push_back(b);
      return -1;
    }
    case OPT_qemu_eq: o.qemu = v; return -1;
    default:  // an option of Options.td the driver does not handle: a bug here
      return usage_error("option '" + name + "' is not implemented");
  }
}

// The target named by --target, or a usage error listing the targets (with a guess).
int apply_target(DriverOptions& o) {
  auto t = lookup_target(o.target_name);
  if (t) {
    o.lower.target = *t;
    return -1;
  }
  std::string all;
  auto [hexagon, other] = targets_by_kind();
  for (const auto* kind : {&hexagon, &other})
    for (const Target& k : *kind) all += (all.empty() ? "" : ", ") + k.name;
  // "v68" (or "V68", "Hexagon-V68") for "hexagon-v68".
  std::string lower = o.target_name;
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  std::string hint;
  for (const std::string& guess : {lower, "hexagon-" + lower})
    if (hint.empty() && lookup_target(guess)) hint = "; did you mean '" + guess + "'?";
  return usage_error("unknown target '" + o.target_name + "' (" + all + ")" + hint);
}

// After the loop: the inputs, the target, the defaults found from dspc's own path, and the
// options that do not go with this command.
int finish_options(DriverOptions& o, ParseState& st) {
  if (st.dsp_inputs.empty()) return usage_error(o.c_sources.empty() ? "no input file" : "no .dsp input (the kernels)");
  if (o.c_sources.empty() && st.dsp_inputs.size() > 1)
    return usage_error("more than one input file ('" + st.dsp_inputs[0] + "' and '" + st.dsp_inputs[1] + "')");
  o.input = st.dsp_inputs[0];
  o.more_inputs.assign(st.dsp_inputs.begin() + 1, st.dsp_inputs.end());
  if (!o.c_sources.empty()) {
    // C and C++ sources make a program: the kernels' objects and the sources' linked together.
    if (st.emit_given && o.emit != "exe")
      return usage_error("C/C++ sources link into a program: --emit=" + o.emit + " does not go with '" +
                         o.c_sources[0] + "' (leave --emit out, or --emit=exe)");
    o.emit = "exe";
    for (const std::string& r : st.run_only)
      if (r != "--qemu" && r != "--timeout" && r != "--keep-temps")
        return usage_error(r + " does not go with C/C++ sources (the program reads no .npy inputs)");
  }
  if (int r = apply_target(o); r >= 0) return r;
  if (o.runtime_dir.empty()) o.runtime_dir = default_runtime_dir();
  if (std::string lib = library_dir(); !lib.empty()) o.import_dirs.push_back(lib);
  if (o.qemu.empty()) o.qemu = access(DSPC_QEMU, X_OK) == 0 ? DSPC_QEMU : "qemu-hexagon";
  if (o.run && (o.depfile || !o.depfile_path.empty())) return usage_error("-MD and -MF go with compiling, not 'dspc run'");
  if (!o.depfile_path.empty() && !o.depfile) return usage_error("-MF needs -MD");
  if (!o.run && !st.run_only.empty() && st.run_only[0] == "--func")
    return usage_error("--func=" + o.func + " picks the function or graph 'dspc run' runs; compiling compiles every "
                       "func of the file, and takes --func only to instantiate a generic func "
                       "(--func='NAME<A,B,...>')");
  if (!o.run && !st.run_only.empty()) return usage_error(st.run_only[0] + " goes with 'dspc run'");
  if (o.run && !st.compile_only.empty())
    return usage_error(st.compile_only[0] + " does not go with 'dspc run' (save results with --output NAME=FILE.npy)");
  if (o.json_max_values_given && !o.json) return usage_error("--json-max-values needs --json");
  if (o.onnx_options_given && !is_onnx_path(o.input))
    return usage_error("--input-shape, --input-layout and --output-layout go with an .onnx model, not '" + o.input + "'");
  return -1;
}

// Parses argv into `o`. Returns -1 to continue, or an exit code.
int parse_args(int argc, char** argv, DriverOptions& o) {
  llvm::BumpPtrAllocator alloc;
  llvm::StringSaver saver(alloc);
  llvm::SmallVector<const char*, 32> args(argv + 1, argv + argc);
  if (!expand_response_files(saver, args)) return 1;
  size_t first = 0;
  if (!args.empty() && llvm::StringRef(args[0]) == "run") {
    o.run = true;
    first = 1;
  }
  OptionTable table;
  unsigned missing_index = 0, missing_count = 0;
  llvm::opt::InputArgList parsed =
      table.ParseArgs(llvm::ArrayRef<const char*>(args).drop_front(first), missing_index, missing_count);
  ParseState st;
  for (const llvm::opt::Arg* arg : parsed) {
    const std::string name = spelling_of(*arg);
    const std::string v = arg->getNumValues() ? arg->getValue() : "";
    const unsigned id = arg->getOption().getID();
    const llvm::opt::Option group = arg->getOption().getGroup();
    if (group.isValid() && group.getID() == OPT_grp_run) st.run_only.push_back(name);
    if (int r = print_info(id); r >= 0) return r;
    if (apply_flag(id, o)) continue;
    if (id == OPT_UNKNOWN) {
      std::string unknown = arg->getAsString(parsed), nearest;
      std::string hint;
      if (table.findNearest(unknown, nearest) <= 2) hint = "; did you mean '" + nearest + "'?";
      return usage_error("unknown option '" + unknown + "'" + hint);
    }
    if (int r = apply_value(*arg, name, v, o, st); r >= 0) return r;
  }
  if (missing_count) return usage_error("missing value after " + std::string(args[first + missing_index]));
  return finish_options(o, st);
}

std::string stem_of(const std::string& path) {
  if (path == "-") return "out";
  auto slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  auto dot = base.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

bool write_output(const std::string& path, const std::string& data) {
  if (path == "-") {
    std::cout << data;
    return static_cast<bool>(std::cout.flush());
  }
  std::ofstream f(path, std::ios::binary);
  if (!f) {
    std::cerr << "dspc: error: cannot write '" << path << "': " << std::strerror(errno) << "\n";
    return false;
  }
  f << data;
  f.close();
  if (!f) {
    std::cerr << "dspc: error: cannot write '" << path << "'\n";
    return false;
  }
  return true;
}

}  // namespace

// Reads all of `in`, at most kMaxSourceBytes: a larger source is an error, not an endless read
// (dspc /dev/zero). Returns false with `why` set on a read error or an oversized input.
bool read_all(std::istream& in, std::string& text, std::string& why) {
  char buf[1 << 16];
  text.clear();
  // A directory opens, and reading it fails with EISDIR, which libstdc++'s filebuf reports by
  // throwing: catch it as any read error.
  try {
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
      text.append(buf, static_cast<size_t>(in.gcount()));
      if (text.size() > kMaxSourceBytes) {
        why = "larger than " + std::to_string(kMaxSourceBytes >> 20) + " MiB, the most dspc reads";
        return false;
      }
      if (!in) break;
    }
  } catch (const std::exception&) {
    int e = errno;
    why = e ? std::strerror(e) : "read error";
    return false;
  }
  if (in.bad()) {
    why = "read error";
    return false;
  }
  return true;
}

bool read_source(const std::string& path, SourceFile& out) {
  out.path = path == "-" ? "<stdin>" : path;
  std::string why;
  if (path == "-") {
    if (read_all(std::cin, out.text, why)) return true;
    std::cerr << "dspc: error: cannot read standard input: " << why << "\n";
    return false;
  }
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    std::cerr << "dspc: error: cannot read '" << path << "': it is a directory\n";
    return false;
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::cerr << "dspc: error: cannot open '" << path << "': " << std::strerror(errno) << "\n";
    return false;
  }
  if (read_all(f, out.text, why)) return true;
  std::cerr << "dspc: error: cannot read '" << path << "': " << why << "\n";
  return false;
}

// dspc vectorizes scheduled code itself; LLVM's loop vectoriser is used for HVX only when the
// automatic schedule is off.
CodegenOptions codegen_options(const DriverOptions& o) {
  CodegenOptions co;
  co.target = o.lower.target;
  co.opt_level = o.opt_level;
  co.auto_hvx = o.auto_hvx && !o.lower.auto_schedule;
  co.time_passes = o.time_passes;
  if (o.lower.inject_failure_pass == "codegen")
    co.inject_failure = o.lower.inject_failure == InjectedFailure::Crash ? "crash" : "fatal";
  return co;
}

// Compiles and writes the requested emit kind. Shared by the compile path and `run`.
namespace {

// A program is text: a .npy array or any other binary file is refused at its first byte that
// text never holds, without echoing the bytes (a diagnostic quotes the source line).
bool check_text(const SourceFile& source) {
  const std::string& t = source.text;
  if (t.rfind("\x93NUMPY", 0) == 0) {
    std::cerr << source.path << ":1:1: error: this is a NumPy array (.npy), not a program: dspc reads .dsp or TIR "
              << "text; give arrays to 'dspc run' as --input NAME=" << source.path << "\n";
    return false;
  }
  size_t line = 1, col = 1;
  for (unsigned char c : t) {
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') {
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02x", c);
      std::cerr << source.path << ":" << line << ":" << col << ": error: control byte " << byte
                << ": this is not a text file; dspc reads .dsp or TIR text\n";
      return false;
    }
    if (c == '\n') ++line, col = 1;
    else ++col;
  }
  return true;
}

}  // namespace

std::optional<Compilation> compile_input(const DriverOptions& o, SourceFile& source, Diagnostics& diag) {
  bool read = is_onnx_path(o.input) ? read_onnx_source(o, source) : read_source(o.input, source) && check_text(source);
  if (!read) return std::nullopt;
  progress_stage("compiling " + source.path);
  LowerOptions lo = o.lower;
  lo.trace = &std::cerr;  // traces are for people: stdout holds only the requested output
  return compile_source(source, lo, diag, o.instances, o.import_dirs, o.func);
}

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

namespace {

// Compiles the module to an object next to `out_path` (position-independent when `pic`), links
// it with `link` into `out_path`, and removes the object; times both steps into `timings`.
template <class Link>
bool compile_and_link(const DriverOptions& o, const Compilation& c, const std::string& out_path, bool pic,
                      const std::vector<EntryInfo>& entries, Diagnostics& diag, EmitTimings* timings, Link link) {
  EmitTimings local;
  EmitTimings& t = timings ? *timings : local;
  CodegenOptions co = codegen_options(o);
  co.pic = pic;
  std::string obj;
  auto t0 = std::chrono::steady_clock::now();
  bool emitted = emit_module(c.module, entries, EmitKind::Obj, co, obj, diag);
  t.codegen_ms = ms_since(t0);
  if (!emitted) return false;
  std::string obj_path = out_path + ".o";
  if (!write_output(obj_path, obj)) return false;
  t0 = std::chrono::steady_clock::now();
  bool ok = link(obj_path);
  t.link_ms = ms_since(t0);
  std::remove(obj_path.c_str());
  return ok;
}

}  // namespace

bool emit_executable(const DriverOptions& o, const Compilation& c, const std::string& out_path, Diagnostics& diag,
                     EmitTimings* timings) {
  auto entries = c.program ? entries_of(*c.program, c.module) : entries_of(c.module);
  return compile_and_link(o, c, out_path, false, entries, diag, timings, [&](const std::string& obj_path) {
    return link_executable({obj_path}, o.lower.target, o.runtime_dir, out_path, diag);
  });
}

bool emit_shared(const DriverOptions& o, const Compilation& c, const std::string& out_path, Diagnostics& diag,
                 EmitTimings* timings) {
  auto entries = c.program ? entries_of(*c.program, c.module) : entries_of(c.module);
  bool ok = compile_and_link(o, c, out_path, true, entries, diag, timings, [&](const std::string& obj_path) {
    return link_shared(obj_path, o.lower.target, o.runtime_dir, out_path, diag);
  });
  if (!ok) return false;
  std::string name = out_path.substr(out_path.find_last_of('/') + 1);
  return write_output(out_path + ".json", module_json(c.module, entries, o.lower.target, name));
}

bool describe_module(const DriverOptions& o, const Compilation& c, std::string& out, Diagnostics& diag) {
  // The code size is that of the object --emit=obj writes with the same options.
  std::string obj;
  if (!emit_module(c.module, {}, EmitKind::Obj, codegen_options(o), obj, diag)) return false;
  ObjectCodeSize size;
  std::string error;
  if (!object_code_size(obj, size, error)) {
    diag.internal_error("codegen", "cannot read the object back: " + error);
    return false;
  }
  ModuleJsonExtras extras;
  extras.source = o.input;
  extras.opt_level = o.opt_level;
  for (const std::string& p : pass_names())
    if (c.program || (p != "schedule-ops" && p != "group-device-calls")) extras.passes.push_back(p);  // TIR: after them
  extras.text_bytes = size.text_bytes;
  extras.function_bytes = size.functions;
  auto entries = c.program ? entries_of(*c.program, c.module) : entries_of(c.module);
  out = module_json(c.module, entries, o.lower.target, "", &extras);
  return true;
}

int failure_status(const Diagnostics& diag) { return diag.has_internal_errors() ? 2 : 1; }

namespace {

// A path in a depfile: Make's escapes, which Ninja reads too.
std::string depfile_escape(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#') out += '\\';
    if (c == '$') out += '$';
    out += c;
  }
  return out;
}

// -MD: "OUT: INPUT [RUNTIME]", the files this compile read. Standard input is no file.
bool write_depfile(const DriverOptions& o, const std::string& out, const std::vector<std::string>& imported) {
  std::string path = o.depfile_path;
  if (path.empty()) {
    auto slash = out.find_last_of('/');
    auto dot = out.find_last_of('.');
    path = (dot == std::string::npos || (slash != std::string::npos && dot < slash) ? out : out.substr(0, dot)) + ".d";
  }
  std::vector<std::string> deps;
  if (o.input != "-") deps.push_back(o.input);
  deps.insert(deps.end(), imported.begin(), imported.end());
  for (const std::string& in : o.more_inputs)
    if (in != "-") deps.push_back(in);
  deps.insert(deps.end(), o.c_sources.begin(), o.c_sources.end());
  // The libraries link_executable and link_shared read (codegen/Link.cpp).
  std::string rt = o.runtime_dir + "/" + o.lower.target.name + "/";
  if (o.emit == "exe") deps.push_back(rt + "libdspc_rt.a");
  if (o.emit == "so" && o.lower.target.arch == Arch::hexagon) deps.push_back(rt + "libdspc_builtins.a");
  std::string text = depfile_escape(out) + ":";
  for (const std::string& d : deps) text += " \\\n  " + depfile_escape(d);
  return write_output(path, text + "\n");
}

int compile_outputs(const DriverOptions& o, const std::string& out, std::vector<std::string>& imported) {
  SourceFile source;
  Diagnostics diag(std::cerr);
  auto c = compile_input(o, source, diag);
  for (const SourceFile& f : diag.imported()) imported.push_back(f.path);
  if (!c) return failure_status(diag);

  if (o.emit == "tir") return write_output(out, print_module(c->module)) ? 0 : 1;
  if (o.emit == "dsp") return write_output(out, source.text) ? 0 : 1;
  if (o.emit == "header") return write_output(out, emit_c_header(c->module)) ? 0 : 1;
  if (o.emit == "graph-json") {
    if (!c->program || c->program->graphs.empty()) return usage_error("--emit=graph-json needs a .dsp file with a graph");
    return write_output(out, graph_json(*c->program, c->module)) ? 0 : 1;
  }
  if (o.emit == "json") {
    std::string json;
    if (!describe_module(o, *c, json, diag)) return failure_status(diag);
    return write_output(out, json) ? 0 : 1;
  }
  progress_stage("generating code for " + o.lower.target.name);
  if (o.emit == "exe") {
    if (out == "-") return usage_error("--emit=exe needs an output file");
    return emit_executable(o, *c, out, diag) ? 0 : failure_status(diag);
  }
  if (o.emit == "so") {
    if (out == "-") return usage_error("--emit=so needs an output file");
    return emit_shared(o, *c, out, diag) ? 0 : failure_status(diag);
  }
  progress_stage("generating code for " + o.lower.target.name);
  CodegenOptions co = codegen_options(o);
  EmitKind kind = o.emit == "llvm" ? EmitKind::LLVM : o.emit == "asm" ? EmitKind::Asm : EmitKind::Obj;
  std::string data;
  if (!emit_module(c->module, {}, kind, co, data, diag)) return failure_status(diag);
  return write_output(out, data) ? 0 : 1;
}

int compile_command(const DriverOptions& o) {
  bool text = o.emit == "tir" || o.emit == "llvm" || o.emit == "asm" || o.emit == "header" || o.emit == "json" ||
              o.emit == "graph-json" || o.emit == "dsp";
  std::string out = o.output;
  if (out.empty() && !o.c_sources.empty()) out = program_default_output(o);
  if (out.empty()) out = text ? "-" : stem_of(o.input) + (o.emit == "exe" ? ".elf" : o.emit == "so" ? ".so" : ".o");
  if (o.depfile && out == "-") return usage_error("-MD needs an output file (-o FILE): a depfile names it");
  DriverOptions program = o;
  program.output = out;
  std::vector<std::string> imported;  // the files `import` read, for the depfile
  int status = o.c_sources.empty() ? compile_outputs(o, out, imported) : program_command(program, &imported);
  if (status == 0 && o.depfile && !write_depfile(o, out, imported)) return 1;
  return status;
}

// --time-passes: a timer per dspc pass (through LowerOptions::observer), and LLVM's own pass
// timing (llvm::TimePassesIsEnabled, which the legacy pass manager of code generation and
// Clang read; the new pass manager's optimisation pipeline is timed by codegen, see
// CodegenOptions::time_passes). The reports go to standard error when the compile is done.
class PassTimers : public PassObserver {
 public:
  PassTimers() : group_("dspc", "dspc passes") { llvm::TimePassesIsEnabled = true; }
  ~PassTimers() override {
    // Reset after printing: reportAndResetTimings prints every timer group that has run, and
    // would print this one a second time.
    group_.print(llvm::errs(), /*ResetAfterPrint=*/true);
    llvm::reportAndResetTimings(&llvm::errs());
    llvm::TimePassesIsEnabled = false;
  }
  void before_pass(const char* name) override {
    auto& t = timers_[name];
    if (!t) t = std::make_unique<llvm::Timer>(name, name, group_);
    t->startTimer();
  }
  void after_pass(const char* name) override { timers_[name]->stopTimer(); }

 private:
  llvm::TimerGroup group_;
  std::map<std::string, std::unique_ptr<llvm::Timer>> timers_;
};

}  // namespace

int driver_main(int argc, char** argv) {
  // The last line of defence of "no input crashes the compiler": the parser, each pass and
  // codegen catch their own failures, so reaching these handlers is itself a bug.
  try {
    DriverOptions o;
    int r = parse_args(argc, argv, o);
    if (r >= 0) return r;
    install_interrupt_cleanup();
    std::optional<PassTimers> timers;
    if (o.time_passes) o.lower.observer = &timers.emplace();
    ProgressScope progress(progress_wanted(o.quiet));  // ends before the timers report
    int status = o.run ? (o.c_sources.empty() ? run_command(o) : program_command(o)) : compile_command(o);
    // After a crash inside LLVM that emit_module recovered, what LLVM had allocated is lost:
    // exit at once, so that a leak checker does not turn the internal error into its own.
    if (llvm_crash_recovered()) {
      std::cout.flush();
      std::cerr.flush();
      std::_Exit(status);
    }
    return status;
  } catch (const std::bad_alloc&) {
    std::cerr << "dspc: internal error: out of memory\n";
  } catch (const std::exception& e) {
    std::cerr << "dspc: internal error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "dspc: internal error: an unknown exception\n";
  }
  return 2;
}

}  // namespace dspc
