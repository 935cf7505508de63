// The runner's view of a module: packed wrappers and the descriptor table of dspc_runtime.h.
//
// 1. for every entry, `i32 __dspc_packed_NAME(ptr args)` loads args[i] and calls the kernel;
// 2. per parameter, a dspc_param_desc {name, type_code, bits, is_output, ndim, shape};
// 3. `__dspc_funcs` (dspc_func_desc[]) and `__dspc_num_funcs` (uint32_t).
// The LLVM struct types mirror the C structs field by field; laying them out with the target's
// data layout gives the C ABI's offsets on both Hexagon (4-byte pointers) and x86-64.
#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>

#include "codegen/CodegenLLVM.h"

namespace dspc::codegen {

namespace {

uint8_t type_code(DataType t) {
  switch (t.code) {
    case TypeCode::Int: return 0;
    case TypeCode::UInt: return 1;
    case TypeCode::Float: return 2;
    case TypeCode::Bool: return 3;
    case TypeCode::Handle: break;
  }
  throw CodegenError("a handle cannot be a kernel parameter");
}

llvm::Constant* private_global(llvm::Module& m, llvm::Constant* init, const std::string& name) {
  auto* g = new llvm::GlobalVariable(m, init->getType(), true, llvm::GlobalValue::PrivateLinkage, init, name);
  g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  return g;
}

llvm::Function* packed_wrapper(llvm::Module& m, const EntryInfo& e) {
  llvm::LLVMContext& ctx = m.getContext();
  llvm::Function* kernel = m.getFunction(e.name);
  if (!kernel) throw CodegenError("entry " + e.name + " has no function in the module");
  if (kernel->arg_size() != e.params.size())
    throw CodegenError("entry " + e.name + " lists " + std::to_string(e.params.size()) +
                       " parameters, the function has " + std::to_string(kernel->arg_size()));
  auto* ptr = llvm::PointerType::get(ctx, 0);
  auto* fty = llvm::FunctionType::get(llvm::Type::getInt32Ty(ctx), {ptr}, false);
  auto* fn = llvm::Function::Create(fty, llvm::GlobalValue::ExternalLinkage, "__dspc_packed_" + e.name, m);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  for (const char* attr : {"target-cpu", "target-features"})
    if (kernel->hasFnAttribute(attr)) fn->addFnAttr(kernel->getFnAttribute(attr));
  llvm::Argument* args = fn->getArg(0);
  args->setName("args");
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  std::vector<llvm::Value*> vals;
  for (size_t i = 0; i < e.params.size(); ++i) {
    llvm::Value* slot = b.CreateConstInBoundsGEP1_32(ptr, args, i);
    vals.push_back(b.CreateLoad(ptr, slot, e.params[i].name));
  }
  // Not inlined: the kernel stays one symbol, so profiles (count-packets --func NAME) see it.
  llvm::CallInst* call = b.CreateCall(kernel, vals);
  call->addFnAttr(llvm::Attribute::NoInline);
  b.CreateRet(call);
  return fn;
}

}  // namespace

void build_runner_table(llvm::Module& m, const std::vector<EntryInfo>& entries) {
  llvm::LLVMContext& ctx = m.getContext();
  auto* ptr = llvm::PointerType::get(ctx, 0);
  auto* i8 = llvm::Type::getInt8Ty(ctx);
  auto* i32 = llvm::Type::getInt32Ty(ctx);
  auto* i64 = llvm::Type::getInt64Ty(ctx);
  // typedef struct { const char* name; uint8_t type_code, bits, is_output, ndim; const int64_t* shape; }
  auto* param_ty = llvm::StructType::create(ctx, {ptr, i8, i8, i8, i8, ptr}, "dspc_param_desc");
  // typedef struct { const char* name; dspc_packed_fn packed; uint32_t num_params; const dspc_param_desc*
  // params; dspc_call_fn call; } (call: the checked entry; null until make-packed-api emits it)
  auto* func_ty = llvm::StructType::create(ctx, {ptr, ptr, i32, ptr, ptr}, "dspc_func_desc");

  std::vector<llvm::Constant*> funcs;
  for (const EntryInfo& e : entries) {
    llvm::Function* packed = packed_wrapper(m, e);
    std::vector<llvm::Constant*> params;
    for (const ParamInfo& p : e.params) {
      std::string prefix = "__dspc_" + e.name + "_" + p.name;
      std::vector<llvm::Constant*> dims;
      for (int64_t d : p.shape) dims.push_back(llvm::ConstantInt::get(i64, d));
      llvm::Constant* shape = llvm::ConstantPointerNull::get(ptr);
      if (!dims.empty())
        shape = private_global(m, llvm::ConstantArray::get(llvm::ArrayType::get(i64, dims.size()), dims),
                               prefix + "_shape");
      llvm::Constant* name =
          private_global(m, llvm::ConstantDataArray::getString(ctx, p.name), prefix + "_name");
      uint8_t bits = p.dtype.is_bool() ? 8 : p.dtype.bits;
      params.push_back(llvm::ConstantStruct::get(
          param_ty, {name, llvm::ConstantInt::get(i8, type_code(p.dtype)), llvm::ConstantInt::get(i8, bits),
                     llvm::ConstantInt::get(i8, p.is_output ? 1 : 0),
                     llvm::ConstantInt::get(i8, p.shape.size()), shape}));
    }
    llvm::Constant* param_array = llvm::ConstantPointerNull::get(ptr);
    if (!params.empty())
      param_array =
          private_global(m, llvm::ConstantArray::get(llvm::ArrayType::get(param_ty, params.size()), params),
                         "__dspc_" + e.name + "_params");
    llvm::Constant* name =
        private_global(m, llvm::ConstantDataArray::getString(ctx, e.name), "__dspc_" + e.name + "_name");
    funcs.push_back(llvm::ConstantStruct::get(
        func_ty, {name, packed, llvm::ConstantInt::get(i32, e.params.size()), param_array,
                  llvm::ConstantPointerNull::get(ptr)}));
  }
  auto* table_ty = llvm::ArrayType::get(func_ty, funcs.size());
  new llvm::GlobalVariable(m, table_ty, true, llvm::GlobalValue::ExternalLinkage,
                           llvm::ConstantArray::get(table_ty, funcs), "__dspc_funcs");
  new llvm::GlobalVariable(m, i32, true, llvm::GlobalValue::ExternalLinkage,
                           llvm::ConstantInt::get(i32, funcs.size()), "__dspc_num_funcs");
}

}  // namespace dspc::codegen
