// Internal to codegen/: the TIR -> LLVM IR builder shared by the codegen .cpp files.
// This header includes LLVM; never include it from outside codegen/.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "codegen/Codegen.h"
#include "compiler/ir/IR.h"
#include "targets/Target.h"

namespace dspc::codegen {

// A compiler bug found while generating code (IR that earlier passes should have removed or
// never produce). emit_module reports it as an internal error; it never escapes codegen.
class CodegenError : public InternalError {
 public:
  using InternalError::InternalError;
};

// Register type of a dtype: bool is i1, handle is ptr, lanes > 1 give vectors.
llvm::Type* value_type(llvm::LLVMContext& ctx, DataType t);
// In-memory element type: bool takes a byte.
llvm::Type* memory_type(llvm::LLVMContext& ctx, DataType t);

// The integer a constant (or a broadcast constant) holds.
std::optional<int64_t> const_int(const Expr& e);
// `e` as rest + c with c the sum of its outermost integer constants (rest null when e is one).
std::pair<Expr, int64_t> split_constant(const Expr& e);

// What a target adds to the generic code generator besides its instruction idioms (those are
// the HVX idiom table, HvxIdioms.def): FunctionCodegen asks its hooks first and falls back to
// generic LLVM IR when a hook returns null. Hexagon's are in CodegenHexagon.cpp; other
// targets use these defaults.
class TargetHooks {
 public:
  virtual ~TargetHooks() = default;
  // A scalar ordered float comparison that needs target care (see CodegenHexagon.cpp).
  virtual llvm::Value* ordered_compare(llvm::IRBuilder<>& b, llvm::CmpInst::Predicate p, llvm::Value* x,
                                       llvm::Value* y) {
    return nullptr;
  }
  // A vector of `lanes` copies of the scalar v, or null for the generic splat.
  virtual llvm::Value* broadcast(llvm::IRBuilder<>& b, unsigned lanes, llvm::Value* v) { return nullptr; }
  // A point no memory access crosses (plan-vtcm's memory_barrier()); the IR order is enough
  // where the target runs accesses in order.
  virtual void memory_barrier(llvm::IRBuilder<>& b) {}
  // A prefetch hint for `height` rows of `width` bytes, `stride` bytes apart, from `at` (i32
  // values); false when the target has no box prefetch (codegen then hints the first line).
  virtual bool prefetch_box(llvm::IRBuilder<>& b, llvm::Value* at, llvm::Value* width, llvm::Value* height,
                            llvm::Value* stride) {
    return false;
  }
  // v (one vector register) with its lanes rotated down by `lanes` (lane i gets lane
  // i + lanes, wrapping round), or null for the generic shuffle.
  virtual llvm::Value* rotate_down(llvm::IRBuilder<>& b, llvm::Value* v, unsigned lanes) { return nullptr; }
  // The 2x2 transpose of `bytes`-byte blocks of two vectors x and y of one register each: lo
  // takes x's even blocks and y's even blocks, alternately (x's first); hi takes their odd
  // blocks the same way. False when the target has no such instruction (codegen then writes
  // the two shuffles).
  virtual bool transpose_blocks(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y, unsigned bytes,
                                llvm::Value*& lo, llvm::Value*& hi) {
    return false;
  }
  // x0 y0 x1 y1 ...: the lanes of two vectors of one type, each whole registers, interleaved,
  // as the target's instruction (HVX: vshuff(Vu, Vv, -size) per register), or null for the
  // generic shuffle (which LLVM 19's Hexagon backend lowers with vdelta networks once x and y
  // are one value).
  virtual llvm::Value* interleave_registers(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y) { return nullptr; }
  // select(cond, t, f) with a constant condition, as an instruction LLVM does not look
  // through (HVX: vmux by a constant predicate), so that LLVM does not merge the shuffles of
  // t and f into one two-source shuffle, which LLVM 19's Hexagon backend lowers lane by lane
  // unless it is a plain interleave. Null for the generic select.
  // One register of `ty` holding the elements from `lo` on, up to `hi` (hi - lo below a
  // register), reading only the aligned vectors that hold lo and hi (HVX: two aligned loads and
  // a valign), so that nothing past the aligned block of the last element is read. Null when the
  // target has no such sequence.
  virtual llvm::Value* load_window(llvm::IRBuilder<>& b, llvm::FixedVectorType* ty, llvm::Value* lo, llvm::Value* hi) {
    return nullptr;
  }
  virtual llvm::Value* constant_select(llvm::IRBuilder<>& b, llvm::Constant* cond, llvm::Value* t, llvm::Value* f) {
    return nullptr;
  }
  // The address `ptr` + `bytes` computed so that the target's own realignment of unaligned
  // vector loads cannot relate it to other addresses (HVX: LLVM's AlignVectors groups unaligned
  // loads off one base into aligned loads and valigns, all on the permute slot), so that a load
  // from it stays one unaligned load (vmemu, on the load slots). Null when the target has no
  // such loads: codegen then leaves the realignment to the backend.
  virtual llvm::Value* direct_unaligned_address(llvm::IRBuilder<>& b, llvm::Value* ptr, int64_t bytes) {
    return nullptr;
  }
  // `n` registers of `ty` holding the bytes from `ptr` on (register j from ptr + j * width),
  // reading only the aligned vectors that hold bytes ptr .. ptr + span - 1 (span at most n
  // registers; the lanes of the last register past the span are unspecified), whose
  // alignment is not known at compile time: the aligned vectors from ptr's on and the one of
  // the span's last byte, and a realignment per register by ptr's offset in its vector (HVX:
  // n + 1 aligned loads and n valigns, with no predicated load, unlike LLVM's AlignVectors).
  // ptr's offset in its aligned vector is known to be at most `max_offset` (a row's known
  // alignment): when the span's last byte then always lies in ptr's n-th vector, no vector
  // beyond those n is read. Empty when the target has no such sequence.
  virtual std::vector<llvm::Value*> load_span(llvm::IRBuilder<>& b, llvm::FixedVectorType* ty, llvm::Value* ptr,
                                              int64_t span, int64_t n, int64_t max_offset) {
    return {};
  }
  // One register v permuted: lane i of the result is v's lane mask[i] (any value where
  // mask[i] is -1), or null for the generic shuffle (HVX: vdelta or vrdelta by a constant
  // control, else vlut32 by constant indices; LLVM 19 lowers some such shuffles lane by lane).
  virtual llvm::Value* permute(llvm::IRBuilder<>& b, llvm::Value* v, const std::vector<int>& mask) { return nullptr; }
  // A table lookup: lane i of the result is the table's element idx[i], idx a vector of
  // bytes (of one register's lanes), `table` the table's elements from 0 in whole registers
  // (8- or 16-bit lanes), of which the first `entries` are read (every idx[i] is below it).
  // Null when the target has no such instruction (HVX: vlut32, vlut16).
  virtual llvm::Value* table_lookup(llvm::IRBuilder<>& b, const std::vector<llvm::Value*>& table, unsigned entries,
                                    llvm::Value* idx) {
    return nullptr;
  }
};

// The hooks of `target`.
std::unique_ptr<TargetHooks> make_target_hooks(const Target& target);

// Builds the LLVM functions of one PrimFunc module. Expressions live in CodegenExpr.cpp,
// statements and the function ABI in CodegenLLVM.cpp.
class FunctionCodegen {
 public:
  FunctionCodegen(llvm::Module& module, const Target& target);

  // Declares `f` with the kernel ABI: i32 f(ptr noalias nonnull align 128 dereferenceable(n)...).
  llvm::Function* declare(const PrimFunc& f);
  // Emits the body of a declared function.
  void define(const PrimFunc& f);
  // The checked packed entry (CodegenPacked.cpp): i32 NAME(ptr args, i32 num_args, ptr ctx),
  // after its kernel is declared. `desc` is the kernel's dspc_func_desc (func_desc()).
  llvm::Function* declare_packed(const PackedFunc& f);
  void define_packed(const PackedFunc& f, llvm::Constant* desc);

 private:
  // ---- statements (CodegenLLVM.cpp)
  void emit(const Stmt& s);
  void emit_for(const For* op);
  void emit_if(const IfThenElse* op);
  void emit_let(const LetStmt* op);
  void emit_allocate(const Allocate* op);
  void emit_store(const Store* op);
  void bind_handle(const VarNode* var, llvm::Value* ptr, int64_t align);
  void set_loop_hints(llvm::BranchInst* latch, ForKind kind, bool no_vectorize, bool no_pipeline = false);
  bool keep_scalar(const Stmt& body) const;

  // ---- expressions (CodegenExpr.cpp)
  llvm::Value* eval(const Expr& e);
  llvm::Value* eval_binary(const Binary* op);
  llvm::Value* eval_div_mod(const Binary* op, llvm::Value* a, llvm::Value* b);
  llvm::Value* eval_shift(const Binary* op, llvm::Value* a, llvm::Value* b);
  llvm::Value* eval_compare(BinaryOp op, DataType t, llvm::Value* a, llvm::Value* b);
  llvm::Value* eval_unary(const Unary* op);
  llvm::Value* eval_cast(const Cast* op);
  llvm::Value* eval_call(const Call* op);
  llvm::Value* eval_packed_intrinsic(const Call* op);  // null when op is not one of them
  llvm::Value* eval_load(const Load* op);
  llvm::Value* eval_ramp(const Ramp* op);
  llvm::Value* eval_vector_reduce(const VectorReduce* op);
  llvm::Value* constant(llvm::Type* type, int64_t v);

  // ---- memory access (CodegenExpr.cpp)
  struct Access {
    llvm::Value* ptr;  // scalar address (contiguous) or vector of addresses (gather/scatter)
    bool is_gather;
    llvm::Align align;
  };
  Access address(const Buffer& b, const std::vector<Expr>& indices);
  llvm::Value* to_index(llvm::Value* v, DataType t);  // to the pointer-width index type
  llvm::Value* realigned_load(const Load* op, llvm::Type* mty);
  void plan_direct_loads(const Stmt& body, std::vector<std::string>& added);
  llvm::Value* direct_load(const Load* op, llvm::Type* mty);
  llvm::Value* span_load(const Load* op, llvm::Type* mty);
  llvm::Value* interleaved_load(const Load* op, llvm::Type* mty);
  llvm::Value* window_load(const Load* op, llvm::Type* mty);
  llvm::Value* unaligned_window_load(const Load* op, llvm::Type* mty, const Expr& base, const std::vector<int64_t>& off,
                                    int64_t align);
  bool has_64bit_values(llvm::BasicBlock* body, llvm::BasicBlock* skip) const;
  llvm::Value* doubled_half_load(llvm::Value* start, llvm::FixedVectorType* piece_ty, int64_t lo, int64_t hi,
                                const std::vector<int>& mask, int64_t chunk);
  llvm::Value* runs_load(const Load* op, llvm::Type* mty);
  bool interleave_select(llvm::Constant* cond, llvm::Value* t, llvm::Value* f);
  llvm::Value* interleaved_loads(llvm::Constant* cond, const Select* op);
  Expr alternate_lanes(const Expr& e, int parity) const;
  llvm::Value* alternating_select(llvm::Constant* cond, const Select* op);
  llvm::Constant* constant_lanes(const Expr& cond);
  llvm::Value* transposing_load(const Load* op, llvm::Type* mty);
  llvm::Value* splat_runs_load(const Load* op);
  llvm::Value* table_load(const Load* op, llvm::Type* mty);
  bool runs_store(const Store* op);
  Expr dense_index(const Expr& idx) const;
  bool lane_offsets(const Expr& e, int lanes, Expr& base, std::vector<int64_t>& off) const;
  // The piece size when a load of type t is split into register-wide loads (0: not split).
  int64_t split_bytes(llvm::Type* t) const;
  llvm::Value* handle_of(const Buffer& b);
  int64_t known_multiple(const Expr& index) const;  // largest power of two dividing it

  llvm::Module& module_;
  llvm::LLVMContext& ctx_;
  const Target& target_;
  llvm::IRBuilder<> b_;
  std::unique_ptr<TargetHooks> hooks_;
  llvm::Type* index_type_;
  llvm::Function* fn_ = nullptr;
  bool keep_window_shuffle_ = false;  // set while a constant-lane select's load side is emitted
  const PackedFunc* packed_ = nullptr;     // the packed entry being defined, else null
  llvm::Constant* packed_desc_ = nullptr;  // its kernel's dspc_func_desc
  std::unordered_map<const VarNode*, llvm::Value*> vars_;
  std::unordered_map<const VarNode*, int64_t> handle_align_;  // bytes the pointee is aligned to
  std::unordered_map<const VarNode*, int64_t> var_multiple_;  // power of two dividing an int var
  // Dense loads (buffer, index without its constant, the constant) that plan_direct_loads
  // chose to read unaligned (one load each) instead of realigned (a permute each).
  std::unordered_set<std::string> direct_loads_;
  // Groups of dense loads whose index's alignment is unknown that plan_direct_loads chose to
  // realign itself (load_span): the group's lowest offset and its span in bytes, and the
  // span's registers once built (in the block that built them).
  struct SpanPlan {
    int64_t lo;
    int64_t span;
    int64_t max_offset;  // the largest offset of the span's start in its aligned vector
    llvm::BasicBlock* block = nullptr;
    std::vector<llvm::Value*> sectors;
  };
  std::unordered_map<std::string, SpanPlan> span_loads_;
};

// Builds every function of `m` into `module` (whose data layout is already set).
void build_functions(llvm::Module& module, const Module& m, const Target& target);
// The symbol of the module's constant tensor `index` (Module::constants), which constant_data reads.
std::string constant_symbol(size_t index);

// Emits the packed wrappers and the __dspc_funcs descriptor table for `entries` (EntryTables.cpp).
// Each entry's `call` field is the checked entry __dspc_call_NAME when the module has one.
void build_runner_table(llvm::Module& module, const std::vector<EntryInfo>& entries);

// A private dspc_func_desc for `e` (EntryTables.cpp), with a null `packed` and `call` as given:
// what a checked entry passes to dspc_report_bad_arg. Shares its name and parameter arrays
// with the runner table.
llvm::Constant* build_func_desc(llvm::Module& module, const EntryInfo& e, llvm::Function* call);

// Sets the process-wide LLVM options dspc needs (CodegenHexagon.cpp): HVX for LLVM's
// vectorisers when they run, no small data, no epilogue vectorisation. Called once, before the
// first compilation; nothing changes them afterwards.
void configure_llvm_options();

// Registers the Hexagon and x86 targets and sets those options, once per process (Emit.cpp).
void initialize_llvm();

// After LLVM's optimisation pipeline, on Hexagon modules (CodegenHexagon.cpp): a part of a vector
// wider than 64 bits read through a wide integer (trunc (lshr (bitcast V to iK), S)), which
// LLVM 19's Hexagon backend can miscompile, becomes a shuffle of V's elements.
void split_wide_integer_parts(llvm::Module& module);
// After LLVM's optimisation pipeline, on Hexagon modules (CodegenHexagon.cpp): trunc x to <N x i1>,
// which LLVM 19's Hexagon backend cannot select for two-register vectors, becomes
// (x & 1) != 0 again.
void legalize_bool_truncs(llvm::Module& module);
// After LLVM's optimisation pipeline, on Hexagon modules (CodegenHexagon.cpp): the zero vector
// as the first operand of a one-register shuffle whose second operand is not a constant,
// which LLVM 19's Hexagon instruction selection crashes on, becomes a vsplat of 0.
void opaque_leading_zero_shuffles(llvm::Module& module);

// Creates the target machine for `options` (Emit.cpp); null with `error` set on failure.
std::unique_ptr<llvm::TargetMachine> make_target_machine(const CodegenOptions& options, std::string& error);

}  // namespace dspc::codegen
