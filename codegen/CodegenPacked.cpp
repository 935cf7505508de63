// The checked packed entry (make-packed-api) -> LLVM IR.
//
// 1. declare `i32 __dspc_call_f(ptr args, i32 num_args, ptr ctx)`, external and nounwind;
// 2. bind the three parameters and emit the body with the statement code generator;
// 3. the packed intrinsics read fields of dspc_arg (runtime-support/device/include/dspc_runtime.h:
//    {ptr data; ptr shape; i32 ndim; u8 type_code; u8 bits; u16 flags}, laid out with the
//    target's data layout), `return` ends the path, call_kernel calls the wrapped kernel.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>

#include "codegen/CodegenLLVM.h"
#include "compiler/ir/Externs.h"

namespace dspc::codegen {

namespace {

llvm::StructType* arg_type(llvm::LLVMContext& ctx) {
  if (auto* t = llvm::StructType::getTypeByName(ctx, "dspc_arg")) return t;
  auto* ptr = llvm::PointerType::get(ctx, 0);
  return llvm::StructType::create(ctx,
                                  {ptr, ptr, llvm::Type::getInt32Ty(ctx), llvm::Type::getInt8Ty(ctx),
                                   llvm::Type::getInt8Ty(ctx), llvm::Type::getInt16Ty(ctx)},
                                  "dspc_arg");
}

enum ArgField { kData = 0, kShape = 1, kNdim = 2, kTypeCode = 3, kBits = 4 };

}  // namespace

llvm::Function* FunctionCodegen::declare_packed(const PackedFunc& f) {
  auto* ptr = llvm::PointerType::get(ctx_, 0);
  auto* i32 = llvm::Type::getInt32Ty(ctx_);
  auto* fty = llvm::FunctionType::get(i32, {ptr, i32, ptr}, false);
  if (module_.getFunction(f.name)) throw CodegenError("function '" + f.name + "' is defined twice");
  if (!module_.getFunction(f.kernel)) throw CodegenError("packed entry " + f.name + " wraps no function " + f.kernel);
  auto* fn = llvm::Function::Create(fty, llvm::GlobalValue::ExternalLinkage, f.name, module_);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  // Straight-line checks run once per call: compiled without optimisation, they cost LLVM
  // next to nothing (optimised, the Hexagon backend's RDF and addressing-mode passes took
  // 12 ms of a 19 ms vadd_u8 compile).
  fn->addFnAttr(llvm::Attribute::OptimizeNone);
  fn->addFnAttr(llvm::Attribute::NoInline);
  if (!target_.llvm_cpu.empty()) fn->addFnAttr("target-cpu", target_.llvm_cpu);
  if (!target_.llvm_features.empty()) fn->addFnAttr("target-features", target_.llvm_features);
  fn->getArg(0)->setName(f.args->name);
  fn->getArg(1)->setName(f.num_args->name);
  fn->getArg(2)->setName(f.ctx->name);
  return fn;
}

void FunctionCodegen::define_packed(const PackedFunc& f, llvm::Constant* desc) {
  fn_ = module_.getFunction(f.name);
  vars_.clear();
  handle_align_.clear();
  var_multiple_.clear();
  packed_ = &f;
  packed_desc_ = desc;
  vars_[f.args.get()] = fn_->getArg(0);
  vars_[f.num_args.get()] = fn_->getArg(1);
  bind_handle(f.ctx.get(), fn_->getArg(2), 1);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn_));
  emit(f.body);
  b_.CreateRet(b_.getInt32(0));  // as a prim_func: a body without `return` falls off with 0
  packed_ = nullptr;
  packed_desc_ = nullptr;
}

llvm::Value* FunctionCodegen::eval_packed_intrinsic(const Call* op) {
  const std::string& n = op->name;
  bool field = n == kArgData || n == kArgShape || n == kArgNdim || n == kArgTypeCode || n == kArgBits ||
               n == kArgExtent;
  bool other = n == kIsAligned || n == kFuncDesc || n == kCallKernel || n == kReturn;
  if (!field && !other) return nullptr;
  if (n == kIsAligned) {
    llvm::Value* addr = b_.CreatePtrToInt(eval(op->args[0]), index_type_);
    llvm::Value* mask = b_.CreateSub(b_.CreateZExtOrTrunc(eval(op->args[1]), index_type_),
                                     llvm::ConstantInt::get(index_type_, 1));
    return b_.CreateICmpEQ(b_.CreateAnd(addr, mask), llvm::ConstantInt::get(index_type_, 0));
  }
  if (n == kReturn) {
    llvm::Value* v = eval(op->args[0]);
    b_.CreateRet(v);
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "after.return", fn_));
    return v;
  }
  if (!packed_) throw CodegenError("'" + n + "' outside a packed entry");
  if (n == kFuncDesc) return packed_desc_;
  if (n == kCallKernel) {
    llvm::Function* kernel = module_.getFunction(packed_->kernel);
    if (!kernel || kernel->arg_size() != op->args.size())
      throw CodegenError("call_kernel in " + packed_->name + " passes " + std::to_string(op->args.size()) +
                         " arguments to " + packed_->kernel + ", which takes " +
                         std::to_string(kernel ? kernel->arg_size() : 0));
    std::vector<llvm::Value*> args;
    for (const Expr& a : op->args) args.push_back(eval(a));
    // Not inlined: the kernel stays one symbol, so profiles (count-packets --func NAME) see it.
    llvm::CallInst* call = b_.CreateCall(kernel, args);
    call->addFnAttr(llvm::Attribute::NoInline);
    return call;
  }
  llvm::StructType* ty = arg_type(ctx_);
  llvm::Value* index = to_index(eval(op->args[1]), DataType::i32());
  llvm::Value* arg = b_.CreateInBoundsGEP(ty, eval(op->args[0]), {index});
  auto load = [&](int index, llvm::Type* t) {
    return b_.CreateLoad(t, b_.CreateStructGEP(ty, arg, index));
  };
  auto* ptr = llvm::PointerType::get(ctx_, 0);
  if (n == kArgData) return load(kData, ptr);
  if (n == kArgShape) return load(kShape, ptr);
  if (n == kArgNdim) return load(kNdim, b_.getInt32Ty());
  if (n == kArgTypeCode) return b_.CreateZExt(load(kTypeCode, b_.getInt8Ty()), b_.getInt32Ty());
  if (n == kArgBits) return b_.CreateZExt(load(kBits, b_.getInt8Ty()), b_.getInt32Ty());
  llvm::Value* shape = load(kShape, ptr);
  llvm::Value* slot = b_.CreateInBoundsGEP(b_.getInt64Ty(), shape, {to_index(eval(op->args[2]), DataType::i32())});
  return b_.CreateLoad(b_.getInt64Ty(), slot);
}

}  // namespace dspc::codegen
