// compile_c_source: C and C++ sources compiled with Clang's libraries inside dspc, no clang
// binary. The steps are clang's own:
//
// 1. clang's driver (clang::driver::Driver) turns a clang command line into the one compile
//    job it stands for, in-process (BuildCompilation runs nothing): the target's flags become
//    cc1 flags the way `clang -###` shows them;
// 2. that job's arguments make a CompilerInvocation, which a CompilerInstance runs with
//    EmitObjAction, writing the object;
// 3. diagnostics go through a TextDiagnosticPrinter to standard error, clang's usual form
//    ("main.c:3:5: error: ...", with the source line and caret).
//
// The flags are those runtime-support's device C is built with (runtime-support/CMakeLists.txt):
// freestanding, no PIC, -G0 and HVX on Hexagon. The -mllvm options the driver derives
// (-hexagon-small-data-threshold=0 from -G0, -machine-sink-split=0) are LLVM's process-wide
// options, which dspc sets once at start-up (configure_llvm_options) and never changes per
// compilation: they are checked against a known list here, not applied.
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/SourceManager.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Driver/Compilation.h>
#include <clang/Driver/Driver.h>
#include <clang/Driver/Job.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Process.h>
#include <llvm/Support/raw_ostream.h>

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <mutex>

#include "codegen/Codegen.h"
#include "codegen/CodegenLLVM.h"

extern "C" {
void LLVMInitializeHexagonAsmParser();
void LLVMInitializeX86AsmParser();
}

#ifndef DSPC_CLANG_RESOURCE_DIR
#define DSPC_CLANG_RESOURCE_DIR ""
#endif

namespace dspc {

namespace {

// Clang's resource directory (its own stddef.h, stdint.h, hexagon_protos.h, hvx_hexagon_protos.h):
// the one of the libclang-cpp dspc runs with, <libdir>/clang/<major>, else the one CMake found.
std::string clang_resource_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&clang::CompilerInvocation::CreateFromArgs), &info) && info.dli_fname) {
    fs::path dir = fs::path(info.dli_fname).parent_path() / "clang" / std::to_string(LLVM_VERSION_MAJOR);
    if (fs::is_directory(dir / "include", ec)) return dir.string();
  }
  return DSPC_CLANG_RESOURCE_DIR;
}

bool is_cxx(const std::string& path) {
  for (const char* ext : {".cc", ".cpp", ".cxx", ".C"}) {
    std::string e = ext;
    if (path.size() > e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> c_compile_flags(const Target& target, const CSourceOptions& options, bool cxx) {
  std::vector<std::string> flags = {"--target=" + target.llvm_triple};
  if (target.arch == Arch::hexagon) {
    flags.insert(flags.end(), {"-mcpu=" + target.llvm_cpu, "-mhvx",
                               "-mhvx-length=" + std::to_string(target.vector_bytes) + "b", "-G0"});
  }
  flags.insert(flags.end(), {cxx ? "-std=c++17" : "-std=c11", "-O" + std::to_string(options.opt_level),
                             "-nostdlibinc", "-fno-stack-protector", "-fno-pic", "-ffunction-sections",
                             "-fdata-sections"});
  // C++ is not -ffreestanding: a freestanding C++ main is an ordinary (mangled) function, and
  // runtime-support's start-up calls main. No exceptions or RTTI: there is no C++ runtime.
  if (cxx) flags.insert(flags.end(), {"-fno-exceptions", "-fno-rtti", "-fno-threadsafe-statics"});
  else flags.push_back("-ffreestanding");
  for (const std::string& dir : options.include_dirs) flags.push_back("-I" + dir);
  return flags;
}

bool compile_c_source(const std::string& source, const Target& target, const CSourceOptions& options,
                      const std::string& object_path, Diagnostics& diag) {
  codegen::initialize_llvm();  // the targets, and LLVM's process-wide options (-G0's threshold)
  static std::once_flag asm_parsers;  // for inline assembly in C
  std::call_once(asm_parsers, [] {
    LLVMInitializeHexagonAsmParser();
    LLVMInitializeX86AsmParser();
  });
  std::error_code ec;
  if (!std::filesystem::is_regular_file(source, ec)) {
    diag.error("cannot open '" + source + "': " + (std::filesystem::exists(source, ec) ? "not a regular file" : "No such file or directory"));
    return false;
  }

  // Diagnostics: clang's text printer on standard error, coloured on a terminal as clang does.
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> diag_opts = new clang::DiagnosticOptions();
  diag_opts->ShowColors = llvm::sys::Process::StandardErrHasColors();
  auto* printer = new clang::TextDiagnosticPrinter(llvm::errs(), diag_opts.get());
  llvm::IntrusiveRefCntPtr<clang::DiagnosticIDs> ids(new clang::DiagnosticIDs());
  clang::DiagnosticsEngine engine(ids, diag_opts, printer, /*ShouldOwnClient=*/true);

  // 1. The clang command line, and the one cc1 job it stands for.
  bool cxx = is_cxx(source);
  std::vector<std::string> args = {cxx ? "clang++" : "clang"};
  for (std::string& f : c_compile_flags(target, options, cxx)) args.push_back(std::move(f));
  args.insert(args.end(), {"-c", source, "-o", object_path});
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());

  std::string resource_dir = clang_resource_dir();
  clang::driver::Driver driver(cxx ? "clang++" : "clang", target.llvm_triple, engine, "dspc's clang");
  driver.ResourceDir = resource_dir;
  std::unique_ptr<clang::driver::Compilation> compilation(driver.BuildCompilation(argv));
  if (!compilation || engine.hasErrorOccurred()) {
    diag.error("cannot compile '" + source + "' (the C/C++ flags above were refused)");
    return false;
  }
  const clang::driver::JobList& jobs = compilation->getJobs();
  if (jobs.size() != 1 || !llvm::isa<clang::driver::Command>(*jobs.begin())) {
    diag.internal_error("clang", "expected one compile job for '" + source + "', got " + std::to_string(jobs.size()));
    return false;
  }
  const llvm::opt::ArgStringList& cc1_args = llvm::cast<clang::driver::Command>(*jobs.begin()).getArguments();

  // 2. The invocation, run.
  auto invocation = std::make_shared<clang::CompilerInvocation>();
  if (!clang::CompilerInvocation::CreateFromArgs(*invocation, llvm::ArrayRef(cc1_args).drop_front(1), engine,
                                                 argv[0])) {
    diag.error("cannot compile '" + source + "'");
    return false;
  }
  // The -mllvm options clang's Hexagon toolchain adds: the small-data threshold dspc sets once
  // for the process already, and a code-sinking tuning that dspc's own code is built without
  // (the C then gets the same code generation as the kernels). Any other is a surprise.
  for (const std::string& a : invocation->getFrontendOpts().LLVMArgs) {
    if (a != "-hexagon-small-data-threshold=0" && a != "-machine-sink-split=0") {
      diag.internal_error("clang", "the C compile would need the LLVM option '" + a + "', which dspc does not set");
      return false;
    }
  }
  invocation->getFrontendOpts().LLVMArgs.clear();
  // The driver passes -disable-free (a clang process exits right after); dspc goes on, and
  // frees what the compile made.
  invocation->getFrontendOpts().DisableFree = false;
  invocation->getHeaderSearchOpts().ResourceDir = resource_dir;
  if (options.time_passes) {
    invocation->getCodeGenOpts().TimePasses = true;
  }
  clang::CompilerInstance ci;
  ci.setInvocation(invocation);
  ci.createDiagnostics(new clang::TextDiagnosticPrinter(llvm::errs(), diag_opts.get()), /*ShouldOwnClient=*/true);
  clang::EmitObjAction action;
  bool ok = ci.ExecuteAction(action) && !ci.getDiagnostics().hasErrorOccurred();
  if (ok && options.read && ci.hasSourceManager()) {
    std::vector<std::string> files;
    clang::SourceManager& sm = ci.getSourceManager();
    for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it) files.push_back(it->first.getName().str());
    std::sort(files.begin(), files.end());
    options.read->insert(options.read->end(), files.begin(), files.end());
  }
  if (!ok) {
    // Clang printed the diagnostics; this counts them for dspc's exit code.
    unsigned errors = ci.getDiagnostics().getClient()->getNumErrors();
    diag.error(std::to_string(errors) + (errors == 1 ? " error" : " errors") + " in '" + source + "'");
    llvm::sys::fs::remove(object_path);
  }
  return ok;
}

}  // namespace dspc
