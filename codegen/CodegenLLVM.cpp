// TIR statements and the kernel ABI -> LLVM IR (target independent).
//
// 1. declare every PrimFunc as `i32 f(ptr A, ..., ptr C, ptr ctx)`, inputs then outputs, each
//    buffer parameter noalias nonnull dereferenceable(bytes) align 128 (callers promise distinct,
//    128-byte aligned buffers), so LLVM vectorises with aligned HVX accesses and no runtime
//    checks; the context comes last and is only passed on (to the runtime, to called kernels);
// 2. walk the body: loops become header/body/latch blocks (kind hints as llvm.loop metadata),
//    lets bind values, allocations become entry-block allocas, ifs become diamonds;
// 3. throw_last_error returns -1 and emission continues in a fresh unreachable block;
// 4. the function falls off its end with `ret i32 0`.
#include "codegen/CodegenLLVM.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Metadata.h>

#include <unordered_set>

#include "compiler/arith/Simplify.h"
#include "compiler/ir/Externs.h"
#include "compiler/ir/IRVisitor.h"
#include "compiler/ir/ScalarOnly.h"

namespace dspc::codegen {

namespace {

// Handles a function stores through: its other parameters can be marked readonly.
class StoredHandles : public IRVisitor {
 public:
  std::unordered_set<const VarNode*> stored;
  void visit_Store(const Store* op) override {
    stored.insert(op->buffer->data.get());
    IRVisitor::visit_Store(op);
  }
  // A function the call_func calls may write through any handle it is given.
  void visit_Call(const Call* op) override {
    if (op->call_kind == CallKind::Func)
      for (const Expr& a : op->args)
        if (const auto* v = a.as<Var>()) stored.insert(v);
    IRVisitor::visit_Call(op);
  }
};

// `var` replaced by a constant.
class BindConstant : public IRMutator {
 public:
  BindConstant(const VarNode* var, Expr value) : var_(var), value_(std::move(value)) {}
  Expr mutate_Var(const Var* op, const Expr& self) override { return op == var_ ? value_ : self; }

 private:
  const VarNode* var_;
  Expr value_;
};

// Whether a loop body is straight vector code that computes results: a vector load, a vector
// store to memory other than a local accumulator, and no inner loop (not a reduction step).
class StraightVectorBody : public IRVisitor {
 public:
  void visit_For(const For*) override { inner = true; }
  void visit_Load(const Load* op) override {
    if (op->dtype.is_vector()) vector = true;
    IRVisitor::visit_Load(op);
  }
  void visit_Store(const Store* op) override {
    if (op->value.dtype().is_vector() && op->buffer->scope != StorageScope::Local) result = true;
    IRVisitor::visit_Store(op);
  }
  bool inner = false, vector = false, result = false;
};

}  // namespace

llvm::Type* value_type(llvm::LLVMContext& ctx, DataType t) {
  llvm::Type* scalar = nullptr;
  switch (t.code) {
    case TypeCode::Int:
    case TypeCode::UInt: scalar = llvm::Type::getIntNTy(ctx, t.bits); break;
    case TypeCode::Bool: scalar = llvm::Type::getInt1Ty(ctx); break;
    case TypeCode::Handle: return llvm::PointerType::get(ctx, 0);
    case TypeCode::Float:
      if (t.bits == 16)
        scalar = llvm::Type::getHalfTy(ctx);
      else if (t.bits == 32)
        scalar = llvm::Type::getFloatTy(ctx);
      else if (t.bits == 64)
        scalar = llvm::Type::getDoubleTy(ctx);
      else
        throw CodegenError("unsupported float width " + t.str());
      break;
  }
  if (t.lanes == 1) return scalar;
  return llvm::FixedVectorType::get(scalar, t.lanes);
}

llvm::Type* memory_type(llvm::LLVMContext& ctx, DataType t) {
  if (t.is_bool()) return value_type(ctx, DataType(TypeCode::Int, 8, t.lanes));
  return value_type(ctx, t);
}

FunctionCodegen::FunctionCodegen(llvm::Module& module, const Target& target)
    : module_(module),
      ctx_(module.getContext()),
      target_(target),
      b_(module.getContext()),
      hooks_(make_target_hooks(target)),
      index_type_(module.getDataLayout().getIndexType(llvm::PointerType::get(module.getContext(), 0))) {}

llvm::Function* FunctionCodegen::declare(const PrimFunc& f) {
  std::vector<Buffer> params = f.inputs;
  params.insert(params.end(), f.outputs.begin(), f.outputs.end());
  // The buffers, then the context (dspc_context*), the declared final parameter.
  std::vector<llvm::Type*> types(params.size() + 1, llvm::PointerType::get(ctx_, 0));
  auto* fty = llvm::FunctionType::get(llvm::Type::getInt32Ty(ctx_), types, false);
  if (module_.getFunction(f.name)) throw CodegenError("function '" + f.name + "' is defined twice");
  auto* fn = llvm::Function::Create(fty, llvm::GlobalValue::ExternalLinkage, f.name, module_);
  StoredHandles stores;
  if (f.body) stores.visit(f.body);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  // Keep copy/fill loops as loops: LLVM would turn them into memcpy/memset calls, while the
  // HVX-vectorised loop is faster (seed example: 81 packets in all, against 44 + 78 in memcpy).
  fn->addFnAttr("no-builtin-memcpy");
  fn->addFnAttr("no-builtin-memset");
  fn->addFnAttr("no-builtin-memmove");
  if (!target_.llvm_cpu.empty()) fn->addFnAttr("target-cpu", target_.llvm_cpu);
  if (!target_.llvm_features.empty()) fn->addFnAttr("target-features", target_.llvm_features);
  for (size_t i = 0; i < params.size(); ++i) {
    llvm::Argument* arg = fn->getArg(i);
    arg->setName(params[i]->name);
    arg->addAttr(llvm::Attribute::NoAlias);
    arg->addAttr(llvm::Attribute::NoUndef);
    arg->addAttr(llvm::Attribute::NonNull);
    arg->addAttr(llvm::Attribute::getWithAlignment(ctx_, llvm::Align(target_.alloc_alignment)));
    arg->addAttr(llvm::Attribute::getWithDereferenceableBytes(ctx_, params[i]->size_bytes()));
    if (!stores.stored.count(params[i]->data.get())) arg->addAttr(llvm::Attribute::ReadOnly);
  }
  fn->getArg(params.size())->setName(f.ctx ? f.ctx->name : "ctx");
  return fn;
}

void FunctionCodegen::define(const PrimFunc& f) {
  fn_ = module_.getFunction(f.name);
  vars_.clear();
  handle_align_.clear();
  var_multiple_.clear();
  std::vector<Buffer> params = f.inputs;
  params.insert(params.end(), f.outputs.begin(), f.outputs.end());
  for (size_t i = 0; i < params.size(); ++i)
    bind_handle(params[i]->data.get(), fn_->getArg(i), target_.alloc_alignment);
  if (f.ctx) bind_handle(f.ctx.get(), fn_->getArg(params.size()), 1);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn_));
  if (f.body) emit(f.body);
  b_.CreateRet(b_.getInt32(0));
}

void FunctionCodegen::bind_handle(const VarNode* var, llvm::Value* ptr, int64_t align) {
  vars_[var] = ptr;
  handle_align_[var] = align;
}

void FunctionCodegen::emit(const Stmt& s) {
  switch (s.kind()) {
    case NodeKind::LetStmt: return emit_let(s.as<LetStmt>());
    case NodeKind::For: return emit_for(s.as<For>());
    case NodeKind::IfThenElse: return emit_if(s.as<IfThenElse>());
    case NodeKind::Allocate: return emit_allocate(s.as<Allocate>());
    case NodeKind::Store: return emit_store(s.as<Store>());
    case NodeKind::Evaluate: eval(s.as<Evaluate>()->value); return;
    case NodeKind::Seq:
      for (const Stmt& st : s.as<Seq>()->stmts) emit(st);
      return;
    case NodeKind::DeclBuffer: {
      // The data variable is already bound (parameter, let or allocate); the buffer reaches it
      // through buffer->data, so declaring only checks that the binding exists.
      const auto* op = s.as<DeclBuffer>();
      handle_of(op->buffer);
      return emit(op->body);
    }
    default: throw CodegenError(std::string("unexpected statement ") + node_kind_name(s.kind()));
  }
}

void FunctionCodegen::emit_let(const LetStmt* op) {
  llvm::Value* v = eval(op->value);
  if (!v->hasName() && !llvm::isa<llvm::Constant>(v)) v->setName(op->var->name);
  vars_[op->var.get()] = v;
  if (op->var->dtype.is_handle()) {
    // Allocator results are aligned as requested; other handles only to their elements.
    // Alignment 0 asks for the runtime's default: for VTCM the target's, as the runtime was
    // built from the same table; the workspace's default is the runtime's alone, so no claim.
    int64_t align = 1;
    if (const ExternFunction* alloc = called_allocator(op->value)) {
      const IntImm* a = as_int(op->value.as<Call>()->args[alloc->align_arg]);
      if (a && a->value != 0) align = a->value;
      if (a && a->value == 0 && alloc->pool == AllocPool::Vtcm) align = target_.vtcm_alignment;
    }
    // A buffer inside plan-vtcm's arena: the arena's alignment, as far as the offset keeps it.
    if (const auto* call = op->value.as<Call>(); call && call->call_kind == CallKind::Intrinsic && call->name == kHandleAdd) {
      const auto* base = call->args[0].as<VarNode>();
      auto it = base ? handle_align_.find(base) : handle_align_.end();
      const IntImm* off = as_int(call->args[1]);
      if (it != handle_align_.end() && off) align = off->value == 0 ? it->second : std::min(it->second, off->value & -off->value);
    }
    // Tell LLVM too (an assumption, not a call attribute, so the call reads as written), so
    // the vectoriser's wide accesses to the block get aligned after InferAlignment.
    if (align > 1 && (align & (align - 1)) == 0)
      b_.CreateAlignmentAssumption(module_.getDataLayout(), v, static_cast<unsigned>(align));
    handle_align_[op->var.get()] = align;
  } else if (op->var->dtype.is_integer()) {
    var_multiple_[op->var.get()] = known_multiple(op->value);
  }
  emit(op->body);
  vars_.erase(op->var.get());
}

void FunctionCodegen::emit_for(const For* op) {
  // A loop of vector code of at most 4 iterations that stores results (a stage's edge vectors,
  // x_o * 958 + 1 over x_o < 2; not a reduction's steps) on Hexagon is written out, its variable a constant in each copy, so that each
  // load's alignment is known here (realigned_load: the aligned vectors and valigns by
  // constants, shared between the taps) rather than left to LLVM's AlignVectors after LLVM
  // unrolls it (vmemu and realignments by a register).
  std::optional<int64_t> lo_const = const_int(op->min), trips = const_int(op->extent);
  if (target_.arch == Arch::hexagon && lo_const && trips && *trips >= 1 && *trips <= 4) {
    StraightVectorBody straight;
    straight.visit(op->body);
    if (straight.vector && straight.result && !straight.inner) {
      for (int64_t i = 0; i < *trips; ++i)
        emit(simplify_stmt(BindConstant(op->var.get(), make_const(op->var->dtype, *lo_const + i)).mutate(op->body)));
      return;
    }
  }
  llvm::Value* lo = eval(op->min);
  llvm::Value* end = b_.CreateAdd(lo, eval(op->extent), op->var->name + ".end");
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(ctx_, op->var->name + ".header", fn_);
  auto* body = llvm::BasicBlock::Create(ctx_, op->var->name + ".body", fn_);
  auto* exit = llvm::BasicBlock::Create(ctx_, op->var->name + ".exit", fn_);
  b_.CreateBr(header);

  b_.SetInsertPoint(header);
  llvm::PHINode* iv = b_.CreatePHI(lo->getType(), 2, op->var->name);
  iv->addIncoming(lo, pre);
  b_.CreateCondBr(b_.CreateICmpSLT(iv, end), body, exit);

  b_.SetInsertPoint(body);
  vars_[op->var.get()] = iv;
  std::vector<std::string> direct;
  // Not in a loop of a few iterations (a stage's edge vectors, x_o * 958 + 1 over x_o < 2):
  // written out above when its body is straight vector code, else LLVM unrolls it whole; each
  // copy's alignment is then a constant, and its realignment takes immediate shifts.
  if (target_.arch == Arch::hexagon && !(trips && *trips <= 4)) plan_direct_loads(op->body, direct);
  emit(op->body);
  for (const std::string& k : direct) direct_loads_.erase(k), span_loads_.erase(k);
  vars_.erase(op->var.get());
  // i < end <= INT32_MAX, so i + 1 cannot wrap.
  llvm::Value* next = b_.CreateNSWAdd(iv, b_.getInt32(1), op->var->name + ".next");
  iv->addIncoming(next, b_.GetInsertBlock());
  // No software pipelining of loops with 64-bit values on Hexagon: LLVM 19's pipeliner
  // miscompiled a loop of i64 max reductions (one wrong element;
  // tests/difftest/regressions/pipeliner_i64_max.dsp; right with -enable-pipeliner=false,
  // which costs bench/ packets: vadd_u8 2.01 -> 2.13, above Halide). bench/ has no such loop.
  // Only where the loop's LLVM code still has such values: a 64-bit expression that an HVX
  // idiom computes in 32-bit lanes (narrow_sat_i32's i16(clamp((i64(A) + 2048) >> 12, ...)),
  // one vasr(Vu.w,Vv.w,Rt):rnd:sat) leaves none, and that loop is pipelined.
  bool no_pipeline = target_.arch == Arch::hexagon && computes_64bit(op->body) && has_64bit_values(body, exit);
  set_loop_hints(b_.CreateBr(header), op->for_kind, keep_scalar(op->body), no_pipeline);
  b_.SetInsertPoint(exit);
}

// Whether the blocks emitted for a loop's body (from `body` to the function's last block, all
// created after it, but `skip`, the loop's own exit, still empty) have a 64-bit integer or
// floating-point value, scalar or vector: an instruction's result or operand.
bool FunctionCodegen::has_64bit_values(llvm::BasicBlock* body, llvm::BasicBlock* skip) const {
  auto wide = [](llvm::Type* t) {
    llvm::Type* s = t->getScalarType();
    return (s->isIntegerTy() || s->isFloatingPointTy()) && s->getPrimitiveSizeInBits() == 64;
  };
  for (auto it = body->getIterator(); it != fn_->end(); ++it) {
    if (&*it == skip) continue;
    for (const llvm::Instruction& inst : *it) {
      if (wide(inst.getType())) return true;
      for (const llvm::Use& u : inst.operands())
        if (wide(u->getType())) return true;
    }
  }
  return false;
}

// Loops LLVM's vectoriser must leave scalar (compiler/ir/ScalarOnly.h).
bool FunctionCodegen::keep_scalar(const Stmt& body) const {
  return must_stay_scalar(body, target_.arch == Arch::hexagon);
}

void FunctionCodegen::set_loop_hints(llvm::BranchInst* latch, ForKind kind, bool no_vectorize, bool no_pipeline) {
  const char* hint = nullptr;
  if (kind == ForKind::Vectorized || no_vectorize) hint = "llvm.loop.vectorize.enable";
  if (kind == ForKind::Unrolled) hint = "llvm.loop.unroll.full";
  if (!hint && !no_pipeline) return;  // serial and (for now) parallel loops carry no hint
  std::vector<llvm::Metadata*> ops = {nullptr};
  if (kind == ForKind::Vectorized || no_vectorize) {
    llvm::Constant* enable = no_vectorize ? b_.getFalse() : b_.getTrue();
    ops.push_back(llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, hint), llvm::ConstantAsMetadata::get(enable)}));
  } else if (hint) {
    ops.push_back(llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, hint)}));
  }
  if (no_pipeline)
    ops.push_back(llvm::MDNode::get(
        ctx_, {llvm::MDString::get(ctx_, "llvm.loop.pipeline.disable"), llvm::ConstantAsMetadata::get(b_.getTrue())}));
  llvm::MDNode* id = llvm::MDNode::getDistinct(ctx_, ops);
  id->replaceOperandWith(0, id);
  latch->setMetadata(llvm::LLVMContext::MD_loop, id);
}

void FunctionCodegen::emit_if(const IfThenElse* op) {
  llvm::Value* cond = eval(op->cond);
  auto* then_bb = llvm::BasicBlock::Create(ctx_, "then", fn_);
  auto* merge = llvm::BasicBlock::Create(ctx_, "endif", fn_);
  auto* else_bb = op->else_case ? llvm::BasicBlock::Create(ctx_, "else", fn_) : merge;
  b_.CreateCondBr(cond, then_bb, else_bb);
  b_.SetInsertPoint(then_bb);
  emit(op->then_case);
  b_.CreateBr(merge);
  if (op->else_case) {
    b_.SetInsertPoint(else_bb);
    emit(op->else_case);
    b_.CreateBr(merge);
  }
  b_.SetInsertPoint(merge);
}

void FunctionCodegen::emit_allocate(const Allocate* op) {
  const Buffer& buf = op->buffer;
  int64_t align = 0;
  if (buf->scope == StorageScope::Global) align = target_.alloc_alignment;
  if (buf->scope == StorageScope::Local) align = buf->dtype.bytes();
  if (align == 0)
    throw CodegenError("allocation of " + buf->name + " in scope '" + storage_scope_name(buf->scope) +
                       "' reached codegen (lower-vtcm-alloc should have lowered it)");
  // Entry-block allocas are static stack slots; lifetime markers let LLVM share the stack.
  llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().getFirstInsertionPt());
  auto* type = llvm::ArrayType::get(memory_type(ctx_, buf->dtype), buf->num_elements());
  llvm::AllocaInst* slot = entry.CreateAlloca(type, nullptr, buf->name);
  slot->setAlignment(llvm::Align(align));
  auto* size = b_.getInt64(buf->size_bytes());
  b_.CreateLifetimeStart(slot, size);
  bind_handle(buf->data.get(), slot, align);
  emit(op->body);
  b_.CreateLifetimeEnd(slot, size);
  vars_.erase(buf->data.get());
}

void FunctionCodegen::emit_store(const Store* op) {
  if (op->indices.size() == 1 && op->value.dtype().is_vector()) {
    Expr dense = dense_index(op->indices[0]);
    if (!dense.same_as(op->indices[0])) {
      emit_store(Store::make(op->buffer, {dense}, op->value, op->span).as<Store>());
      return;
    }
    if (runs_store(op)) return;
  }
  llvm::Value* v = eval(op->value);
  if (op->value.dtype().is_bool()) v = b_.CreateZExt(v, memory_type(ctx_, op->value.dtype()));
  Access a = address(op->buffer, op->indices);
  if (a.is_gather) {
    auto* mask = llvm::ConstantInt::getTrue(
        llvm::VectorType::get(b_.getInt1Ty(), llvm::cast<llvm::VectorType>(v->getType())->getElementCount()));
    b_.CreateMaskedScatter(v, a.ptr, a.align, mask);
    return;
  }
  llvm::StoreInst* st = b_.CreateAlignedStore(v, a.ptr, a.align);
  // A store of less than a vector into VTCM is volatile, so that LLVM 19's "Hexagon Vector
  // Combine" (its AlignVectors part) does not merge it with its neighbours into HVX stores:
  // it got such groups wrong, a value or a lane lost, in five random programs
  // (tests/difftest/regressions/vtcm_short_stores_*.dsp). Bisected to that pass
  // (-hvc-va=false fixes them all), which cannot be turned off: without it vadd_u8 runs 2.25
  // packets per 128 outputs instead of 2.01, above Halide's 2.09, and sobel loses to Halide
  // too. Whole-vector stores (every VTCM stage a schedule vectorizes at the HVX width) are
  // untouched, and bench/ and the op library have no short VTCM stores: no packet changes.
  if (op->buffer->scope == StorageScope::Vtcm &&
      static_cast<int64_t>(module_.getDataLayout().getTypeStoreSize(v->getType())) < target_.vector_bytes)
    st->setVolatile(true);
}

std::string constant_symbol(size_t index) { return "__dspc_const_" + std::to_string(index); }

void build_functions(llvm::Module& module, const Module& m, const Target& target) {
  // The module's constant tensors: read-only data at the alignment kernels' buffers have.
  for (size_t i = 0; i < m.constants.size(); ++i) {
    const std::vector<uint8_t>& bytes = *m.constants[i].data;
    llvm::Constant* init = llvm::ConstantDataArray::get(
        module.getContext(), llvm::ArrayRef<uint8_t>(bytes.data(), bytes.size()));
    auto* g = new llvm::GlobalVariable(module, init->getType(), true, llvm::GlobalValue::PrivateLinkage, init,
                                       constant_symbol(i));
    g->setAlignment(llvm::Align(target.alloc_alignment));
  }
  FunctionCodegen cg(module, target);
  for (const PrimFunc& f : m.funcs) cg.declare(f);
  for (const PrimFunc& f : m.funcs) cg.define(f);
  std::vector<llvm::Function*> entries;
  for (const PackedFunc& f : m.packed) entries.push_back(cg.declare_packed(f));
  for (size_t i = 0; i < m.packed.size(); ++i) {
    const PackedFunc& f = m.packed[i];
    EntryInfo info{f.kernel, {}};
    for (const Buffer& b : f.inputs) info.params.push_back({b->name, b->dtype, b->shape, false});
    for (const Buffer& b : f.outputs) info.params.push_back({b->name, b->dtype, b->shape, true});
    cg.define_packed(f, build_func_desc(module, info, entries[i]));
  }
}

}  // namespace dspc::codegen
