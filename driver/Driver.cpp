#include "driver/Driver.h"

#include <sys/stat.h>

#include <algorithm>
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

#include "codegen/Codegen.h"
#include "driver/Compile.h"
#include "driver/GraphJson.h"
#include "driver/Lower.h"
#include "driver/ModuleJson.h"
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

// The usage text around the --target line, which comes from the target table.
const char* kUsageHead = R"(usage: dspc FILE [options]          compile a .dsp (or TIR) file
       dspc run FILE [options]      compile, link, run on the simulator (or host) and show results

Input is a .dsp file, or TIR as printed by --emit=tir. FILE '-' reads standard input.

Compile options:
)";
const char* kUsageTail = R"(  --emit=KIND            tir, llvm, asm, obj, exe, so, header, json or graph-json (default
                         obj). json describes the module: functions, parameters, results,
                         VTCM bytes, the passes in order, code size (see the README);
                         graph-json the file's graphs, as TVM's graph JSON with placements
                         and device groups
  -o FILE                output file ('-' for standard output). Default: standard output for
                         tir/llvm/asm/header/json, FILE's stem + .o for obj, + .elf for exe,
                         + .so for so (a shared module with checked entries); graph-json: standard output
  -O0 -O1 -O2 -O3        LLVM optimisation level (default -O2)
  --no-auto-schedule     leave stages without a schedule as serial loop nests (no automatic
                         vectorization, partitioning or inlining)
  --no-auto-hvx          keep LLVM's loop vectoriser off (it runs only with
                         --no-auto-schedule, and never writes HVX code)
  --no-group-device-calls  run a graph's calls in source order, one device call per device
                         node (the baseline for group-device-calls)
  --no-vtcm-plan         one HexagonBackendAllocateVTCM call per VTCM buffer, checked by
                         summing the live ones, instead of plan-vtcm's one arena per function
  --print-after=PASS     print the TIR after PASS (repeatable); see --list-passes
  --print-after-all      print the TIR after every pass
  --verify-each          verify the TIR after every pass
  --vtcm-capacity=BYTES  VTCM available to a function at compile time (default: the target's)
  --runtime-dir=DIR      runtime-support's per-target libraries (default: found from dspc's
                         own location: ../lib/dspc when installed, runtime-support/ beside
                         dspc in a build tree)
  -MD                    also write a depfile (Makefile syntax, for Ninja and Make) naming
                         the output and every file the compile read: FILE, and the
                         runtime-support library it links for exe and so. Written next to
                         the output with its extension replaced by .d, or to -MF's file
  -MF FILE               the depfile's path (goes with -MD)
  --inject-internal-error=PASS[:check|make|invalid-tir]
                         for testing dspc itself: make PASS fail like a compiler bug
                         (exit code 2, "dspc: internal error in pass PASS: ...")
  --list-passes          list the passes in pipeline order
  --list-targets         list the targets
  --help, --version

Run options (dspc run):
  --func=NAME            the function to run (needed when FILE has several)
  --input NAME=FILE.npy  an input (repeat for each input)
  --output NAME=FILE.npy save an output instead of printing it
  --random-inputs        make the inputs not given with --input from --seed (default 1)
  --seed=N
  --check                compare every output with the reference interpreter, bit for bit
  --sim-vtcm-capacity=BYTES  the VTCM pool's capacity while running
  --timeout=SECONDS      stop the program after this long (default 600)
  --qemu=PATH            the simulator (default: the one found at build time if it is still
                         there, else qemu-hexagon on the PATH)
  --keep-temps           keep the temporary directory and print its path
  --session              run through the host runtime instead of a linked runner: compile a
                         shared module (--emit=so), open a session (qemu-hexagon + the device
                         server, or in-process for host), copy inputs in, call, copy outputs
                         out; --timeout is the session's deadline, --sim-vtcm-capacity its VTCM
  --json                 print one JSON object on standard output instead of the outputs:
                         each output's name, dtype, shape (and values if small), whether
                         --check passed, and the compile, codegen, link and run wall times
  --repeat=N             run a graph N times in one session (default 1): round trips and
                         time are reported per inference
  --lazy-calls           run a graph with the host runtime's lazy call queue: device calls
                         are queued and sent as one request at the next copy
  --json-max-values=N    with --json, include an output's values when it has at most N
                         elements (default 64; 0: never)
)";

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

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
    (t.is_hexagon ? hexagon : other).push_back(t);
  }
  std::sort(hexagon.begin(), hexagon.end(),
            [](const Target& a, const Target& b) { return a.hexagon_version < b.hexagon_version; });
  return {hexagon, other};
}

// "hexagon-v65|v66|v68|v69|v73 or host (default hexagon-v68)"
std::string target_choices() {
  auto [hexagon, other] = targets_by_kind();
  std::string out;
  for (const Target& t : hexagon) out += out.empty() ? t.name : "|v" + std::to_string(t.hexagon_version);
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

std::string usage() {
  return std::string(kUsageHead) + "  --target=T             " + target_choices() + "\n" + kUsageTail;
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

// Parses argv into `o`. Returns -1 to continue, or an exit code.
int parse_args(int argc, char** argv, DriverOptions& o) {
  std::vector<std::string> args(argv + 1, argv + argc);
  size_t i = 0;
  if (!args.empty() && args[0] == "run") {
    o.run = true;
    i = 1;
  }
  // Options that take a value accept both --opt=V and --opt V.
  auto value = [&](const std::string& a, const char* name, std::string& out) -> int {
    std::string eq = std::string(name) + "=";
    if (starts_with(a, eq.c_str())) {
      out = a.substr(eq.size());
      return 1;
    }
    if (a != name) return 0;
    if (i + 1 >= args.size()) return -1;
    out = args[++i];
    return 1;
  };
  // Options that only `dspc run` reads, and the compile-only ones, as given (for the check
  // after the loop: an option the command ignores is an error, not silently dropped).
  std::vector<std::string> run_only, compile_only;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string v;
    int r = 0;
    // A value that is missing, or empty (--func=, -o ''), is an error naming the option.
    auto missing = [&](const char* name) {
      return usage_error(std::string(r < 0 ? "missing value after " : "empty value for ") + name);
    };
    if (a == "--help" || a == "-h") {
      std::cout << usage();
      return 0;
    }
    if (a == "--version") {
      std::cout << "dspc " << DSPC_VERSION << " (LLVM 19, targets: " << target_summary() << ")\n";
      return 0;
    }
    if (a == "--list-passes") {
      for (const auto& p : pass_names()) std::cout << p << "\n";
      return 0;
    }
    if (a == "--list-targets") {
      for (const auto& t : target_names()) std::cout << t << "\n";
      return 0;
    }
    if (a == "--print-after-all") { o.lower.print_after_all = true; continue; }
    if (a == "--verify-each") { o.lower.verify_each = true; continue; }
    if (a == "--no-auto-hvx") { o.auto_hvx = false; continue; }
    if (a == "--no-auto-schedule") { o.lower.auto_schedule = false; continue; }
    if (a == "--no-group-device-calls") { o.lower.group_device_calls = false; continue; }
    if (a == "--no-vtcm-plan") { o.lower.plan_vtcm = false; continue; }
    if (a == "--random-inputs") { o.random_inputs = true; run_only.push_back(a); continue; }
    if (a == "--check") { o.check = true; run_only.push_back(a); continue; }
    if (a == "--keep-temps") { o.keep_temps = true; run_only.push_back(a); continue; }
    if (a == "--session") { o.session = true; run_only.push_back(a); continue; }
    if (a == "--json") { o.json = true; run_only.push_back(a); continue; }
    if (a == "--lazy-calls") { o.lazy_calls = true; run_only.push_back(a); continue; }
    if (a == "-MD") { o.depfile = true; continue; }
    if (starts_with(a, "-MF")) {  // -MF FILE or -MFFILE, as clang and gcc take it
      if (a.size() > 3) {
        o.depfile_path = a.substr(3);
      } else {
        if (i + 1 >= args.size()) return r = -1, missing("-MF");
        o.depfile_path = args[++i];
      }
      if (o.depfile_path.empty()) return missing("-MF");  // -MF ''
      continue;
    }
    if (a.size() == 3 && starts_with(a, "-O") && a[2] >= '0' && a[2] <= '3') { o.opt_level = a[2] - '0'; continue; }
    if (starts_with(a, "-O")) return usage_error("invalid optimisation level '" + a + "' (-O0, -O1, -O2 or -O3)");
    if ((r = value(a, "--target", v))) {
      if (r < 0 || v.empty()) return missing("--target");
      o.target_name = v;
      continue;
    }
    if ((r = value(a, "--emit", v))) {
      if (r < 0 || v.empty()) return missing("--emit");
      compile_only.push_back("--emit");
      if (v != "tir" && v != "llvm" && v != "asm" && v != "obj" && v != "exe" && v != "so" && v != "header" &&
          v != "json" && v != "graph-json")
        return usage_error("unknown --emit kind '" + v + "' (tir, llvm, asm, obj, exe, so, header, json, graph-json)");
      o.emit = v;
      continue;
    }
    if ((r = value(a, "-o", v))) {
      if (r < 0 || v.empty()) return missing("-o");
      compile_only.push_back("-o");
      o.output = v;
      continue;
    }
    if ((r = value(a, "--print-after", v))) {
      if (r < 0 || v.empty()) return missing("--print-after");
      const auto& names = pass_names();
      if (std::find(names.begin(), names.end(), v) == names.end())
        return usage_error("unknown pass '" + v + "' in --print-after (see --list-passes)");
      o.lower.print_after.push_back(v);
      continue;
    }
    if ((r = value(a, "--vtcm-capacity", v)) || (r = value(a, "--sim-vtcm-capacity", v))) {
      bool sim = starts_with(a, "--sim");
      const char* name = sim ? "--sim-vtcm-capacity" : "--vtcm-capacity";
      if (r < 0 || v.empty()) return missing(name);
      if (sim) run_only.push_back(name);
      int64_t n = 0;
      if (!parse_int(v, n) || n > 0xffffffffLL)
        return usage_error("invalid byte count '" + v + "' for " + name + " (a whole number up to 4294967295)");
      (sim ? o.sim_vtcm_capacity : o.lower.vtcm_capacity) = n;
      continue;
    }
    if ((r = value(a, "--inject-internal-error", v))) {
      if (r < 0 || v.empty()) return missing("--inject-internal-error");
      if (!parse_injection(v, o.lower)) {
        std::string names;
        for (const auto& p : pass_names()) names += (names.empty() ? "" : ", ") + p;
        return usage_error("expected PASS or PASS:check|make|invalid-tir after --inject-internal-error, got '" + v +
                           "' (passes: " + names + ")");
      }
      continue;
    }
    if ((r = value(a, "--runtime-dir", v))) {
      if (r < 0 || v.empty()) return missing("--runtime-dir");
      o.runtime_dir = v;
      continue;
    }
    if ((r = value(a, "--func", v))) {
      if (r < 0 || v.empty()) return missing("--func");
      run_only.push_back("--func");
      o.func = v;
      continue;
    }
    if ((r = value(a, "--input", v)) || (r = value(a, "--output", v))) {
      bool in = starts_with(a, "--input");
      if (r < 0) return missing(in ? "--input" : "--output");
      run_only.push_back(in ? "--input" : "--output");
      std::pair<std::string, std::string> b;
      if (!parse_binding(v, b)) return usage_error("expected NAME=FILE after " + std::string(in ? "--input" : "--output") + ", got '" + v + "'");
      (in ? o.inputs : o.outputs).push_back(b);
      continue;
    }
    if ((r = value(a, "--seed", v))) {
      if (r < 0) return missing("--seed");
      run_only.push_back("--seed");
      int64_t n = 0;
      if (!parse_int(v, n)) return usage_error("--seed needs a whole number from 0 to 999999999999999999, got '" + v + "'");
      o.seed = static_cast<uint64_t>(n);
      continue;
    }
    if ((r = value(a, "--json-max-values", v))) {
      if (r < 0) return missing("--json-max-values");
      run_only.push_back("--json-max-values");
      int64_t n = 0;
      if (!parse_int(v, n) || n > 1000000000)
        return usage_error("--json-max-values needs a whole number from 0 to 1000000000, got '" + v + "'");
      o.json_max_values = n;
      o.json_max_values_given = true;
      continue;
    }
    if ((r = value(a, "--repeat", v))) {
      if (r < 0) return missing("--repeat");
      run_only.push_back("--repeat");
      int64_t n = 0;
      if (!parse_int(v, n) || n < 1 || n > 1000000) return usage_error("--repeat needs a count from 1 to 1000000, got '" + v + "'");
      o.repeat = static_cast<int>(n);
      continue;
    }
    if ((r = value(a, "--timeout", v))) {
      if (r < 0) return missing("--timeout");
      run_only.push_back("--timeout");
      int64_t n = 0;
      if (!parse_int(v, n) || n < 1 || n > 86400)
        return usage_error("--timeout needs seconds from 1 to 86400, got '" + v + "'");
      o.timeout_seconds = static_cast<int>(n);
      continue;
    }
    if ((r = value(a, "--qemu", v))) {
      if (r < 0 || v.empty()) return missing("--qemu");
      run_only.push_back("--qemu");
      o.qemu = v;
      continue;
    }
    if (a.size() > 1 && a[0] == '-') return usage_error("unknown option '" + a + "'");
    if (!o.input.empty()) return usage_error("more than one input file ('" + o.input + "' and '" + a + "')");
    o.input = a;
  }
  if (o.input.empty()) return usage_error("no input file");
  auto t = lookup_target(o.target_name);
  if (!t) {
    std::string all;
    for (const auto& n : target_names()) all += (all.empty() ? "" : ", ") + n;
    return usage_error("unknown target '" + o.target_name + "' (" + all + ")");
  }
  o.lower.target = *t;
  if (o.runtime_dir.empty()) o.runtime_dir = default_runtime_dir();
  if (o.qemu.empty()) o.qemu = access(DSPC_QEMU, X_OK) == 0 ? DSPC_QEMU : "qemu-hexagon";
  if (o.run && (o.depfile || !o.depfile_path.empty())) return usage_error("-MD and -MF go with compiling, not 'dspc run'");
  if (!o.depfile_path.empty() && !o.depfile) return usage_error("-MF needs -MD");
  if (!o.run && !run_only.empty()) return usage_error(run_only[0] + " goes with 'dspc run'");
  if (o.run && !compile_only.empty())
    return usage_error(compile_only[0] + " does not go with 'dspc run' (save results with --output NAME=FILE.npy)");
  if (o.json_max_values_given && !o.json) return usage_error("--json-max-values needs --json");
  return -1;
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

namespace {

// dspc vectorizes scheduled code itself; LLVM's loop vectoriser is used for HVX only when the
// automatic schedule is off.
CodegenOptions codegen_options(const DriverOptions& o) {
  return CodegenOptions{o.lower.target, o.opt_level, o.auto_hvx && !o.lower.auto_schedule};
}

}  // namespace

// Compiles and writes the requested emit kind. Shared by the compile path and `run`.
std::optional<Compilation> compile_input(const DriverOptions& o, SourceFile& source, Diagnostics& diag) {
  if (!read_source(o.input, source)) return std::nullopt;
  LowerOptions lo = o.lower;
  lo.trace = &std::cout;
  return compile_source(source, lo, diag);
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
bool write_depfile(const DriverOptions& o, const std::string& out) {
  std::string path = o.depfile_path;
  if (path.empty()) {
    auto slash = out.find_last_of('/');
    auto dot = out.find_last_of('.');
    path = (dot == std::string::npos || (slash != std::string::npos && dot < slash) ? out : out.substr(0, dot)) + ".d";
  }
  std::vector<std::string> deps;
  if (o.input != "-") deps.push_back(o.input);
  // The libraries link_executable and link_shared read (codegen/Link.cpp).
  std::string rt = o.runtime_dir + "/" + o.lower.target.name + "/";
  if (o.emit == "exe") deps.push_back(rt + "libdspc_rt.a");
  if (o.emit == "so" && o.lower.target.is_hexagon) deps.push_back(rt + "libdspc_builtins.a");
  std::string text = depfile_escape(out) + ":";
  for (const std::string& d : deps) text += " \\\n  " + depfile_escape(d);
  return write_output(path, text + "\n");
}

int compile_outputs(const DriverOptions& o, const std::string& out) {
  SourceFile source;
  Diagnostics diag(std::cerr);
  auto c = compile_input(o, source, diag);
  if (!c) return failure_status(diag);

  if (o.emit == "tir") return write_output(out, print_module(c->module)) ? 0 : 1;
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
  if (o.emit == "exe") {
    if (out == "-") return usage_error("--emit=exe needs an output file");
    return emit_executable(o, *c, out, diag) ? 0 : failure_status(diag);
  }
  if (o.emit == "so") {
    if (out == "-") return usage_error("--emit=so needs an output file");
    return emit_shared(o, *c, out, diag) ? 0 : failure_status(diag);
  }
  CodegenOptions co = codegen_options(o);
  EmitKind kind = o.emit == "llvm" ? EmitKind::LLVM : o.emit == "asm" ? EmitKind::Asm : EmitKind::Obj;
  std::string data;
  if (!emit_module(c->module, {}, kind, co, data, diag)) return failure_status(diag);
  return write_output(out, data) ? 0 : 1;
}

int compile_command(const DriverOptions& o) {
  bool text = o.emit == "tir" || o.emit == "llvm" || o.emit == "asm" || o.emit == "header" || o.emit == "json" ||
              o.emit == "graph-json";
  std::string out = o.output;
  if (out.empty()) out = text ? "-" : stem_of(o.input) + (o.emit == "exe" ? ".elf" : o.emit == "so" ? ".so" : ".o");
  if (o.depfile && out == "-") return usage_error("-MD needs an output file (-o FILE): a depfile names it");
  int status = compile_outputs(o, out);
  if (status == 0 && o.depfile && !write_depfile(o, out)) return 1;
  return status;
}

}  // namespace

int driver_main(int argc, char** argv) {
  // The last line of defence of "no input crashes the compiler": the parser, each pass and
  // codegen catch their own failures, so reaching these handlers is itself a bug.
  try {
    DriverOptions o;
    int r = parse_args(argc, argv, o);
    if (r >= 0) return r;
    return o.run ? run_command(o) : compile_command(o);
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
