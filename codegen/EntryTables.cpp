// The entry tables of a module (what a runner and a session read): packed wrappers and the
// descriptor table of dspc_runtime.h.
//
// 1. for every entry, `i32 __dspc_packed_NAME(ptr args)` loads args[i] and calls the kernel;
// 2. per parameter, a dspc_param_desc {name, type_code, bits, is_output, ndim, shape};
// 3. `__dspc_funcs` (dspc_func_desc[]) and `__dspc_num_funcs` (uint32_t); each entry's `call` is
//    the checked entry __dspc_call_NAME (make-packed-api) when the module has one, else null.
// Parameter arrays and names are shared with the private descriptors the checked entries use.
// The LLVM struct types mirror the C structs field by field; laying them out with the target's
// data layout gives the C ABI's offsets on both Hexagon (4-byte pointers) and x86-64.
#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>

#include <functional>

#include "codegen/CodegenLLVM.h"

namespace dspc::codegen {

namespace {

uint8_t type_code(DataType t) {
  std::optional<int> code = runtime_type_code(t);
  if (!code) throw CodegenError("a handle cannot be a kernel parameter");
  return static_cast<uint8_t>(*code);
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
  if (kernel->arg_size() != e.params.size() + 1)
    throw CodegenError("entry " + e.name + " lists " + std::to_string(e.params.size()) +
                       " parameters and the context, the function has " + std::to_string(kernel->arg_size()));
  auto* ptr = llvm::PointerType::get(ctx, 0);
  // int32_t __dspc_packed_NAME(void** args, dspc_context* ctx): the context goes on to the kernel.
  auto* fty = llvm::FunctionType::get(llvm::Type::getInt32Ty(ctx), {ptr, ptr}, false);
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
  fn->getArg(1)->setName("ctx");
  vals.push_back(fn->getArg(1));
  // Not inlined: the kernel stays one symbol, so profiles (count-packets --func NAME) see it.
  llvm::CallInst* call = b.CreateCall(kernel, vals);
  call->addFnAttr(llvm::Attribute::NoInline);
  b.CreateRet(call);
  return fn;
}

llvm::StructType* struct_type(llvm::LLVMContext& ctx, const char* name, llvm::ArrayRef<llvm::Type*> fields) {
  if (auto* t = llvm::StructType::getTypeByName(ctx, name)) return t;
  return llvm::StructType::create(ctx, fields, name);
}

// typedef struct { const char* name; uint8_t type_code, bits, is_output, ndim; const int64_t* shape; }
llvm::StructType* param_type(llvm::LLVMContext& ctx) {
  auto* ptr = llvm::PointerType::get(ctx, 0);
  auto* i8 = llvm::Type::getInt8Ty(ctx);
  return struct_type(ctx, "dspc_param_desc", {ptr, i8, i8, i8, i8, ptr});
}

// typedef struct { const char* name; dspc_packed_fn packed; uint32_t num_params; const dspc_param_desc*
// params; dspc_call_fn call; }
llvm::StructType* func_type(llvm::LLVMContext& ctx) {
  auto* ptr = llvm::PointerType::get(ctx, 0);
  return struct_type(ctx, "dspc_func_desc", {ptr, ptr, llvm::Type::getInt32Ty(ctx), ptr, ptr});
}

// A private constant named `name`, made once per module.
llvm::Constant* shared_global(llvm::Module& m, const std::string& name, const std::function<llvm::Constant*()>& init) {
  if (llvm::GlobalVariable* g = m.getNamedGlobal(name)) return g;
  return private_global(m, init(), name);
}

llvm::Constant* param_array(llvm::Module& m, const EntryInfo& e) {
  llvm::LLVMContext& ctx = m.getContext();
  auto* ptr = llvm::PointerType::get(ctx, 0);
  auto* i8 = llvm::Type::getInt8Ty(ctx);
  auto* i64 = llvm::Type::getInt64Ty(ctx);
  if (e.params.empty()) return llvm::ConstantPointerNull::get(ptr);
  return shared_global(m, "__dspc_" + e.name + "_params", [&] {
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
          param_type(ctx), {name, llvm::ConstantInt::get(i8, type_code(p.dtype)), llvm::ConstantInt::get(i8, bits),
                            llvm::ConstantInt::get(i8, p.is_output ? 1 : 0),
                            llvm::ConstantInt::get(i8, p.shape.size()), shape}));
    }
    return llvm::ConstantArray::get(llvm::ArrayType::get(param_type(ctx), params.size()), params);
  });
}

llvm::Constant* func_desc(llvm::Module& m, const EntryInfo& e, llvm::Constant* packed, llvm::Constant* call) {
  llvm::LLVMContext& ctx = m.getContext();
  auto* ptr = llvm::PointerType::get(ctx, 0);
  llvm::Constant* name = shared_global(m, "__dspc_" + e.name + "_name",
                                       [&] { return llvm::ConstantDataArray::getString(ctx, e.name); });
  return llvm::ConstantStruct::get(
      func_type(ctx), {name, packed ? packed : llvm::ConstantPointerNull::get(ptr),
                       llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), e.params.size()), param_array(m, e),
                       call ? call : llvm::ConstantPointerNull::get(ptr)});
}

}  // namespace

llvm::Constant* build_func_desc(llvm::Module& m, const EntryInfo& e, llvm::Function* call) {
  return private_global(m, func_desc(m, e, nullptr, call), "__dspc_" + e.name + "_desc");
}

void build_runner_table(llvm::Module& m, const std::vector<EntryInfo>& entries) {
  llvm::LLVMContext& ctx = m.getContext();
  auto* i32 = llvm::Type::getInt32Ty(ctx);
  std::vector<llvm::Constant*> funcs;
  for (const EntryInfo& e : entries) {
    llvm::Function* packed = packed_wrapper(m, e);
    funcs.push_back(func_desc(m, e, packed, m.getFunction("__dspc_call_" + e.name)));
  }
  auto* table_ty = llvm::ArrayType::get(func_type(ctx), funcs.size());
  new llvm::GlobalVariable(m, table_ty, true, llvm::GlobalValue::ExternalLinkage,
                           llvm::ConstantArray::get(table_ty, funcs), "__dspc_funcs");
  new llvm::GlobalVariable(m, i32, true, llvm::GlobalValue::ExternalLinkage,
                           llvm::ConstantInt::get(i32, funcs.size()), "__dspc_num_funcs");
}

}  // namespace dspc::codegen
