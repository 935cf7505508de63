// emit_module: TIR module -> LLVM module -> optimised -> textual IR, assembly or object.
//
// 1. initialise the Hexagon and X86 backends once; make the target machine from the Target
//    (triple, CPU, features, static relocation, codegen level matching opt_level);
// 2. build the functions (and the runner table when entries are given) with the machine's
//    data layout, then verify the module: a failure is a compiler bug, reported as internal;
// 3. run the new-pass-manager default pipeline at opt_level (HVX auto-vectorisation per options);
// 4. print the IR, or run the legacy codegen pipeline into an in-memory buffer.
#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/PassTimingInfo.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetOptions.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "codegen/CodegenLLVM.h"
#include "codegen/HvxIdioms.h"

// The LLVM backends of targets/Targets.def's arches, one DSPC_LLVM_BACKEND(Name) row each,
// written by CMake (the same list leaves the other backends out of the executables).
extern "C" {
#define DSPC_LLVM_BACKEND(B)            \
  void LLVMInitialize##B##TargetInfo(); \
  void LLVMInitialize##B##Target();     \
  void LLVMInitialize##B##TargetMC();   \
  void LLVMInitialize##B##AsmPrinter();
#include "LlvmBackends.inc"
#undef DSPC_LLVM_BACKEND
}

namespace dspc {

namespace codegen {

namespace {

std::atomic<bool> crash_recovered{false};

// The reason of the last fatal LLVM error on this thread, for the recovered crash's message.
thread_local std::string llvm_fatal_reason;

// LLVM cannot go on after a fatal error (report_fatal_error, "Cannot select", ...). Inside
// emit_module's crash recovery, it unwinds to there, which reports dspc's own bug as an internal
// error; anywhere else, it says so and exits with the internal-error code instead of LLVM's abort.
void on_llvm_fatal_error(void*, const char* reason, bool) {
  if (llvm::CrashRecoveryContext* crc = llvm::CrashRecoveryContext::GetCurrent()) {
    llvm_fatal_reason = reason;
    crc->HandleExit(1);
  }
  std::fprintf(stderr, "dspc: internal error in codegen: LLVM: %s\n", reason);
  std::fflush(stderr);
  std::_Exit(2);
}

void initialize_targets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::install_fatal_error_handler(on_llvm_fatal_error);
#define DSPC_LLVM_BACKEND(B)       \
  LLVMInitialize##B##TargetInfo(); \
  LLVMInitialize##B##Target();     \
  LLVMInitialize##B##TargetMC();   \
  LLVMInitialize##B##AsmPrinter();
#include "LlvmBackends.inc"
#undef DSPC_LLVM_BACKEND
    configure_llvm_options();
  });
}

llvm::OptimizationLevel pipeline_level(int level) {
  if (level <= 0) return llvm::OptimizationLevel::O0;
  if (level == 1) return llvm::OptimizationLevel::O1;
  if (level == 2) return llvm::OptimizationLevel::O2;
  return llvm::OptimizationLevel::O3;
}

llvm::CodeGenOptLevel codegen_level(int level) {
  if (level <= 0) return llvm::CodeGenOptLevel::None;
  if (level == 1) return llvm::CodeGenOptLevel::Less;
  if (level == 2) return llvm::CodeGenOptLevel::Default;
  return llvm::CodeGenOptLevel::Aggressive;
}

// LLVM's own diagnostics: errors are collected, remarks and warnings (e.g. "loop not
// vectorized" for a hinted loop that already holds vector code) are not the user's business.
void collect_llvm_errors(const llvm::DiagnosticInfo* info, void* context) {
  if (info->getSeverity() != llvm::DS_Error) return;
  auto* errors = static_cast<std::string*>(context);
  llvm::raw_string_ostream os(*errors);
  llvm::DiagnosticPrinterRawOStream printer(os);
  if (!errors->empty()) os << "; ";
  info->print(printer);
}

void optimize(llvm::Module& m, llvm::TargetMachine& tm, int level, bool vectorize, bool time_passes) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  // As clang does: the vectorisers from -O2 up.
  pto.LoopVectorization = level >= 2 && vectorize;
  // SLP as clang on Hexagon (it helps dense's scalars). Not on the host: LLVM 19's SLP
  // vectoriser narrows uitofp(sext(i16 x)) to uitofp(x) when it shrinks lanes to their minimum
  // bit width, a miscompile (tools/difftest.py seed final, cases 9273 and 9830; the host is
  // dspc's test target, so LLVM's own loop vectoriser is enough there).
  pto.SLPVectorization = level >= 2 && tm.getTargetTriple().getArch() == llvm::Triple::hexagon;
  pto.LoopUnrolling = level >= 1;
  llvm::PassInstrumentationCallbacks pic;
  llvm::TimePassesHandler timer(time_passes);
  timer.registerCallbacks(pic);
  llvm::PassBuilder pb(&tm, pto, std::nullopt, &pic);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(pipeline_level(level));
  mpm.run(m, mam);
  if (time_passes) timer.print();
}

bool llvm_ok(const std::string& errors, Diagnostics& diag) {
  if (errors.empty()) return true;
  diag.internal_error("codegen", "LLVM: " + errors);
  return false;
}

}  // namespace

void initialize_llvm() { initialize_targets(); }

std::unique_ptr<llvm::TargetMachine> make_target_machine(const CodegenOptions& options, std::string& error) {
  initialize_targets();
  const Target& t = options.target;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(t.llvm_triple, error);
  if (!target) return nullptr;
  llvm::TargetOptions to;
  to.FunctionSections = true;
  auto* tm = target->createTargetMachine(t.llvm_triple, t.llvm_cpu, t.llvm_features, to,
                                         options.pic ? llvm::Reloc::PIC_ : llvm::Reloc::Static,
                                         std::nullopt, codegen_level(options.opt_level));
  if (!tm) error = "cannot create a target machine for " + t.llvm_triple;
  return std::unique_ptr<llvm::TargetMachine>(tm);
}

}  // namespace codegen

bool llvm_crash_recovered() { return codegen::crash_recovered.load(); }

bool emit_module(const Module& m, const std::vector<EntryInfo>& entries, EmitKind kind,
                 const CodegenOptions& options, std::string& out, Diagnostics& diag) {
  using namespace codegen;
  std::string error;
  std::unique_ptr<llvm::TargetMachine> tm = make_target_machine(options, error);
  if (!tm) {
    diag.internal_error("codegen", "cannot generate code for target " + options.target.name + ": " + error);
    return false;
  }
  llvm::LLVMContext ctx;
  std::string llvm_errors;
  ctx.setDiagnosticHandlerCallBack(collect_llvm_errors, &llvm_errors);
  llvm::Module mod("dspc", ctx);
  mod.setTargetTriple(options.target.llvm_triple);
  mod.setDataLayout(tm->createDataLayout());
  try {
    build_functions(mod, m, options.target);
    if (!entries.empty()) build_runner_table(mod, entries);
  } catch (const std::bad_alloc&) {
    diag.internal_error("codegen", "out of memory");
    return false;
  } catch (const std::exception& e) {  // CodegenError, InternalError (IRError, DSPC_CHECK)
    diag.internal_error("codegen", e.what());
    return false;
  }
  llvm::raw_string_ostream verify_msg(error);
  if (llvm::verifyModule(mod, &verify_msg)) {
    diag.internal_error("codegen", "invalid LLVM IR: " + error);
    return false;
  }
  out.clear();
  // LLVM's optimisation and code generation run under crash recovery: a crash inside LLVM
  // (a SIGSEGV in a backend pass, a fatal "Cannot select") is an internal error with exit
  // code 2, never a signal that kills dspc or the program embedding it. What LLVM allocated
  // before the crash is not freed.
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext crc;
  bool cannot_emit = false;
  bool finished = crc.RunSafely([&] {
    if (options.inject_failure == "crash") std::raise(SIGSEGV);
    if (options.inject_failure == "fatal") llvm::report_fatal_error("injected by --inject-internal-error");
    // LLVM's loop vectoriser: for the host as clang runs it; for Hexagon only when asked.
    optimize(mod, *tm, options.opt_level, options.target.arch != Arch::hexagon || options.auto_hvx,
             options.time_passes);
    if (options.target.arch == Arch::hexagon && options.opt_level >= 1) {
      fuse_hvx_pairs(mod, options.target);
      fuse_hvx_interleaves(mod, options.target);
      split_wide_integer_parts(mod);
    }
    if (options.target.arch == Arch::hexagon) {
      legalize_bool_truncs(mod);
      opaque_leading_zero_shuffles(mod);
    }
    if (kind == EmitKind::LLVM) {
      llvm::raw_string_ostream os(out);
      mod.print(os, nullptr);
      return;
    }
    llvm::SmallVector<char, 0> buffer;
    llvm::raw_svector_ostream os(buffer);
    llvm::legacy::PassManager pm;
    auto type = kind == EmitKind::Asm ? llvm::CodeGenFileType::AssemblyFile : llvm::CodeGenFileType::ObjectFile;
    if (tm->addPassesToEmitFile(pm, os, nullptr, type)) {
      cannot_emit = true;
      return;
    }
    pm.run(mod);
    out.assign(buffer.begin(), buffer.end());
  });
  if (!finished) {
    crash_recovered.store(true);
    out.clear();
    int signal = crc.RetCode > 128 ? crc.RetCode - 128 : crc.RetCode;  // not a target fact: 128 + the signal
    std::string what = !llvm_fatal_reason.empty()
                           ? "LLVM: " + llvm_fatal_reason
                           : "LLVM crashed (signal " + std::to_string(signal) +
                                 ") while optimising or generating code for " + options.target.name;
    llvm_fatal_reason.clear();
    diag.internal_error("codegen", what);
    return false;
  }
  if (cannot_emit) {
    diag.internal_error("codegen", "target " + options.target.name + " cannot emit this file type");
    return false;
  }
  return llvm_ok(llvm_errors, diag);
}

}  // namespace dspc
