// Hexagon specifics of code generation. Any use of llvm.hexagon.V6.* intrinsics belongs here.
//
// 1. LLVM's loop and SLP vectorisers only target HVX when the hidden cl::opt
//    `hexagon-autohvx` is set (it is off by default, as in clang without -mllvm). We flip it
//    through the option registry before each pipeline run.
// 2. Small data (GP-relative addressing of objects up to 8 bytes, e.g. the 64-bit constants
//    of a division by a constant) is off, as with clang -G0: lld cannot resolve
//    R_HEX_GPREL16_3 ("unknown relocation (12)"), and a static executable gains nothing.
// 3. Scalar ordered float comparisons go through llvm.hexagon.F2.{sf,df}cmp{gt,ge}. The
//    backend selects `select (setolt a, b), a, b` (and its le/gt/ge variants) to sfmin/sfmax
//    /dfmin/dfmax, which return the non-NaN operand and order -0 below +0, while dspc's
//    min(a, b) is `a < b ? a : b` (min(1, NaN) is NaN, min(-0, +0) is +0). InstCombine
//    rewrites every equivalent select back into that shape, so the comparison itself has to
//    be opaque. Measured under qemu-hexagon: 94 wrong results without this.
// 4. Epilogue vectorisation is off for Hexagon: the epilogue of an HVX loop is vectorised at
//    a tiny factor (<2 x i16>), and LLVM 19's Hexagon instruction selection cannot select
//    some of those operations ("Cannot select: v2i16 = sign_extend_inreg", an abort), e.g.
//    for i16(i8(A[i])) over 515 elements. The scalar remainder loop costs a few packets.
#include <llvm/IR/IntrinsicsHexagon.h>
#include <llvm/Support/CommandLine.h>

#include "codegen/CodegenLLVM.h"

namespace dspc::codegen {

namespace {

template <class T>
void set_option(const char* name, T value) {
  auto& options = llvm::cl::getRegisteredOptions();
  auto it = options.find(name);
  // The options live in the Hexagon backend; a rename in a future LLVM shows up in the tests
  // (no HVX in the seed's asm, or link errors), so a missing option is not an error here.
  if (it == options.end()) return;
  static_cast<llvm::cl::opt<T>*>(it->second)->setValue(value);
}

}  // namespace

void configure_hexagon(const CodegenOptions& options) {
  set_option<bool>("hexagon-autohvx", options.auto_hvx);
  set_option<unsigned>("hexagon-small-data-threshold", 0);
  set_option<bool>("enable-epilogue-vectorization", false);
}

void configure_generic() { set_option<bool>("enable-epilogue-vectorization", true); }

llvm::Value* hexagon_ordered_compare(llvm::IRBuilder<>& b, llvm::CmpInst::Predicate p, llvm::Value* x,
                                     llvm::Value* y) {
  using P = llvm::CmpInst::Predicate;
  if (p != P::FCMP_OLT && p != P::FCMP_OLE && p != P::FCMP_OGT && p != P::FCMP_OGE) return nullptr;
  llvm::Type* t = x->getType();
  if (t->isVectorTy()) return nullptr;
  if (t->isHalfTy()) {
    // Exact, and the f32 comparison orders the values the same way.
    x = b.CreateFPExt(x, b.getFloatTy());
    y = b.CreateFPExt(y, b.getFloatTy());
    t = b.getFloatTy();
  }
  // x < y is y > x; the intrinsics only compare "greater".
  if (p == P::FCMP_OLT || p == P::FCMP_OLE) std::swap(x, y);
  bool strict = p == P::FCMP_OLT || p == P::FCMP_OGT;
  llvm::Intrinsic::ID id =
      t->isDoubleTy() ? (strict ? llvm::Intrinsic::hexagon_F2_dfcmpgt : llvm::Intrinsic::hexagon_F2_dfcmpge)
                      : (strict ? llvm::Intrinsic::hexagon_F2_sfcmpgt : llvm::Intrinsic::hexagon_F2_sfcmpge);
  return b.CreateICmpNE(b.CreateIntrinsic(id, {}, {x, y}), b.getInt32(0));
}

}  // namespace dspc::codegen
