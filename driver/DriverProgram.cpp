// Programs of C/C++ sources and kernels (README "C and C++ programs that call kernels"):
//
//   dspc main.c kernels.dsp -o app.elf      build the program
//   dspc run main.c kernels.dsp             build it in a temporary directory and run it
//
// 1. each .dsp file is compiled as for --emit=obj, and its header (--emit=header) is written to
//    an include folder, as STEM.h, with runtime-support's dspc_runtime.h (the device context);
// 2. each C/C++ source is compiled with Clang's libraries in-process (codegen/ClangCompile.cpp)
//    with that folder on its include path, so `#include "kernels.h"` declares the kernels;
// 3. a start-up shim (runtime-support's start-up calls dspc_main; the shim's dspc_main calls the
//    program's main) is compiled the same way;
// 4. lld links everything with runtime-support's libdspc_rt.a, as --emit=exe does.
// No clang or lld binary runs.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include <unistd.h>

#include "codegen/Codegen.h"
#include "driver/Driver.h"
#include "driver/Process.h"
#include "driver/Progress.h"

namespace dspc {

namespace {

namespace fs = std::filesystem;

// The start-up shim: runtime-support's _start calls dspc_main(argc, argv) (the runner's, in an
// --emit=exe program); here it is the program's main.
const char* kStartShim =
    "/* dspc: runtime-support's start-up calls dspc_main; this one calls the program's main. */\n"
    "int main(int argc, char** argv);\n"
    "int dspc_main(int argc, char** argv);\n"
    "int dspc_main(int argc, char** argv) { return main(argc, argv); }\n";

std::string stem(const std::string& path) {
  if (path == "-") return "stdin";
  std::string s = fs::path(path).stem().string();
  return s.empty() ? "out" : s;
}

bool write_file(const std::string& path, const std::string& data) {
  std::ofstream f(path, std::ios::binary);
  f << data;
  f.close();
  if (f) return true;
  std::cerr << "dspc: error: cannot write '" << path << "': " << std::strerror(errno) << "\n";
  return false;
}

int error_exit(const std::string& msg) {
  std::cerr << "dspc: error: " << msg << "\n";
  return 1;
}

// Builds the program into `out_path`, with intermediate files in `work`. Returns an exit code.
int build_program(const DriverOptions& o, const std::string& work, const std::string& out_path,
                  std::vector<std::string>* imported) {
  Diagnostics diag(std::cerr);
  const Target& target = o.lower.target;
  std::string include_dir = work + "/include";
  std::error_code ec;
  fs::create_directories(include_dir, ec);
  if (ec) return error_exit("cannot create '" + include_dir + "': " + ec.message());

  CodegenOptions co = codegen_options(o);
  std::vector<std::string> objects;
  std::vector<std::string> kernels = {o.input};
  kernels.insert(kernels.end(), o.more_inputs.begin(), o.more_inputs.end());
  std::set<std::string> stems;
  for (const std::string& path : kernels) {
    std::string name = stem(path);
    if (!stems.insert(name).second)
      return error_exit("two kernel files would both give the header '" + name + ".h' ('" + path + "')");
    DriverOptions one = o;
    one.input = path;
    SourceFile source;
    size_t known = diag.imported().size();
    auto c = compile_input(one, source, diag);
    if (!c) return failure_status(diag);
    if (imported)
      for (size_t k = known; k < diag.imported().size(); ++k) imported->push_back(diag.imported()[k].path);
    std::string obj;
    if (!emit_module(c->module, {}, EmitKind::Obj, co, obj, diag)) return failure_status(diag);
    std::string obj_path = work + "/" + name + ".dsp.o";
    if (!write_file(obj_path, obj) || !write_file(include_dir + "/" + name + ".h", emit_c_header(c->module)))
      return 1;
    objects.push_back(obj_path);
  }

  // The runtime's header, for the device context (dspc_context_init, dspc_context_default), and
  // the freestanding C++ headers, which only C++ sources see.
  static const char kRuntimeHeader[] =
#include "RuntimeHeader.inc"
      ;
  struct Header {
    const char* name;
    const char* text;
  };
  static const Header kCxxHeaders[] = {
#include "CxxHeaders.inc"
  };
  if (!write_file(include_dir + "/dspc_runtime.h", kRuntimeHeader)) return 1;
  std::string cxx_dir = include_dir + "/c++";
  fs::create_directories(cxx_dir, ec);
  for (const Header& h : kCxxHeaders)
    if (!write_file(cxx_dir + "/" + h.name, h.text)) return 1;

  CSourceOptions copts;
  copts.include_dirs = {include_dir};
  copts.opt_level = o.opt_level;
  copts.time_passes = o.time_passes;
  std::string shim = work + "/dspc_start.c";
  if (!write_file(shim, kStartShim)) return 1;
  std::vector<std::string> sources = o.c_sources;
  sources.push_back(shim);
  std::vector<std::string> read;  // what the C compiles read, for -MD
  if (imported) copts.read = &read;
  CSourceOptions cxx_opts = copts;
  cxx_opts.include_dirs.push_back(cxx_dir);
  for (size_t i = 0; i < sources.size(); ++i) {
    std::string obj_path = work + "/" + std::to_string(i) + "-" + stem(sources[i]) + ".o";
    bool cxx = fs::path(sources[i]).extension() != ".c";
    progress_stage("compiling " + sources[i]);
    if (!compile_c_source(sources[i], target, cxx ? cxx_opts : copts, obj_path, diag)) return failure_status(diag);
    objects.push_back(obj_path);
  }
  // The headers the user's sources include (the sources are in the depfile already; the
  // generated headers and the start-up shim live in `work`, gone after this command).
  for (const std::string& f : read) {
    if (f.rfind(work + "/", 0) == 0 || std::find(sources.begin(), sources.end(), f) != sources.end()) continue;
    if (std::find(imported->begin(), imported->end(), f) == imported->end()) imported->push_back(f);
  }
  progress_stage("linking " + out_path);
  return link_executable(objects, target, o.runtime_dir, out_path, diag) ? 0 : failure_status(diag);
}

}  // namespace

std::string program_default_output(const DriverOptions& o) { return stem(o.c_sources.at(0)) + ".elf"; }

int program_command(const DriverOptions& o, std::vector<std::string>* imported) {
  TempDir tmp;
  std::string error;
  if (!tmp.create(o.run ? "run" : "build", o.keep_temps, error)) return error_exit(error);
  if (!o.run) {
    std::string out = o.output.empty() ? program_default_output(o) : o.output;
    if (out == "-") return error_exit("a program needs an output file (-o FILE)");
    return build_program(o, tmp.path(), out, imported);
  }

  std::string exe = tmp.path() + "/" + stem(o.c_sources[0]) + ".elf";
  if (int status = build_program(o, tmp.path(), exe, nullptr)) return status;
  std::vector<std::string> cmd;
  if (o.lower.target.arch == Arch::hexagon) cmd = {o.qemu, "-cpu", DSPC_QEMU_CPU};
  cmd.push_back(exe);
  std::cout.flush();
  progress_stage("");  // the program writes to the terminal itself
  std::string err_text;
  int status = run_process(cmd, o.timeout_seconds, err_text, error);
  std::cerr << err_text;
  std::string name = fs::path(exe).filename().string();
  if (status < 0) return error_exit(name + ": " + error);
  if (status != 0) return error_exit(name + " exited with code " + std::to_string(status) + " on " + o.lower.target.name);
  return 0;
}

}  // namespace dspc
