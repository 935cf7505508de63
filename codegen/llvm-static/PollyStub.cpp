// Linked only when LLVM is linked statically (DSPC_LLVM_STATIC, CMakeLists.txt "dspc_llvm").
// Debian's LLVM 19 is built with Polly linked into its tools (llvm/Support/Extension.def lists
// it), so Clang's CodeGen and LLVM's LTO call getPollyPluginInfo() to register Polly's passes.
// Polly ships only as the plugin LLVMPolly.so, built against the shared libLLVM, so no static
// archive defines it. dspc never asks for Polly: this registers nothing.
// PassPlugin.h declares PassBuilder, which is all the callback needs (PassBuilder.h itself
// would be most of this file's compile time).
#include <llvm/Passes/PassPlugin.h>

llvm::PassPluginLibraryInfo getPollyPluginInfo();
llvm::PassPluginLibraryInfo getPollyPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "Polly (not linked into dspc)", "none", [](llvm::PassBuilder&) {}};
}
