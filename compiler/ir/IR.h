// The IR: expressions, statements, buffers, functions and the pre-lowering tensor program.
//
// Nodes are immutable and reference counted. Build them only through the `make()`
// functions, which check types and throw `IRError` on a mismatch (the frontend checks
// first and reports user errors with locations; an IRError escaping a pass is a bug).
// Handles (`Expr`, `Stmt`) give typed access with `as<T>()` over the kind enum.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "compiler/ir/Check.h"
#include "compiler/ir/DataType.h"
#include "compiler/ir/Schedule.h"
#include "compiler/ir/Graph.h"
#include "compiler/ir/SourceLocation.h"
#include "compiler/ir/StorageScope.h"

namespace dspc {

// Thrown by make() on ill-typed construction. The frontend catches it to report the user's
// mistake at a location; anywhere else it is a compiler bug (an InternalError).
class IRError : public InternalError {
 public:
  using InternalError::InternalError;
};

// The one list of node kinds; it drives the kind enum, the visitor, the mutator and the printer.
#define DSPC_EXPR_NODES(X) \
  X(IntImm)                \
  X(FloatImm)              \
  X(Var)                   \
  X(Cast)                  \
  X(Binary)                \
  X(Unary)                 \
  X(Select)                \
  X(Load)                  \
  X(Call)                  \
  X(Reduce)                \
  X(Ramp)                  \
  X(Broadcast)             \
  X(VectorReduce)

#define DSPC_STMT_NODES(X) \
  X(LetStmt)               \
  X(For)                   \
  X(IfThenElse)            \
  X(Allocate)              \
  X(DeclBuffer)            \
  X(Store)                 \
  X(Evaluate)              \
  X(Seq)

enum class NodeKind : uint8_t {
#define DSPC_KIND(N) N,
  DSPC_EXPR_NODES(DSPC_KIND) DSPC_STMT_NODES(DSPC_KIND)
#undef DSPC_KIND
};

const char* node_kind_name(NodeKind k);

struct Node {
  NodeKind kind;
  Span span;
  explicit Node(NodeKind k, Span s) : kind(k), span(s) {}
  virtual ~Node() = default;
};

struct ExprNode : Node {
  DataType dtype;
  ExprNode(NodeKind k, DataType t, Span s) : Node(k, s), dtype(t) {}
};

struct StmtNode : Node {
  using Node::Node;
};

// Shared handle with kind-checked downcasts.
template <class Base>
class Handle {
 public:
  Handle() = default;
  // Implicit from a pointer to any node type derived from Base (const or not), by design.
  template <class T, class = std::enable_if_t<std::is_base_of_v<Base, std::remove_const_t<T>>>>
  Handle(std::shared_ptr<T> p) : p_(std::move(p)) {}  // NOLINT

  const Base* get() const { return p_.get(); }
  const Base* operator->() const { return p_.get(); }
  const Base& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  bool same_as(const Handle& o) const { return p_ == o.p_; }
  NodeKind kind() const { return p_->kind; }

  template <class T>
  const T* as() const {
    return p_ && p_->kind == T::kKind ? static_cast<const T*>(p_.get()) : nullptr;
  }
  const std::shared_ptr<const Base>& ptr() const { return p_; }

 private:
  std::shared_ptr<const Base> p_;
};

class Expr : public Handle<ExprNode> {
 public:
  using Handle::Handle;
  DataType dtype() const { return get()->dtype; }
};
using Stmt = Handle<StmtNode>;

// ---------------------------------------------------------------- buffers

struct VarNode;
using VarRef = std::shared_ptr<const VarNode>;

// A dense row-major buffer: name, element dtype, constant shape, storage scope, and the
// handle variable holding its address. Shared by reference: identity is the pointer.
struct BufferNode {
  std::string name;
  DataType dtype;
  std::vector<int64_t> shape;
  StorageScope scope = StorageScope::Global;
  VarRef data;  // a handle Var named like the buffer
  Span span;

  int64_t num_elements() const;
  int64_t size_bytes() const { return num_elements() * dtype.bytes(); }

  // Makes a buffer and its data variable. Shape extents must be positive.
  static std::shared_ptr<const BufferNode> make(std::string name, DataType dtype, std::vector<int64_t> shape,
                                                StorageScope scope = StorageScope::Global, Span span = {});
  // A buffer over an existing handle variable (after lowering).
  static std::shared_ptr<const BufferNode> make_with_data(VarRef data, DataType dtype,
                                                          std::vector<int64_t> shape, StorageScope scope,
                                                          Span span = {});
};
using Buffer = std::shared_ptr<const BufferNode>;

// ---------------------------------------------------------------- expressions

struct IntImm : ExprNode {
  static constexpr NodeKind kKind = NodeKind::IntImm;
  int64_t value;  // already wrapped to dtype (u64 stored as its bit pattern)
  IntImm(DataType t, int64_t v, Span s) : ExprNode(kKind, t, s), value(v) {}
  static Expr make(DataType t, int64_t v, Span s = {});
};

struct FloatImm : ExprNode {
  static constexpr NodeKind kKind = NodeKind::FloatImm;
  double value;
  FloatImm(DataType t, double v, Span s) : ExprNode(kKind, t, s), value(v) {}
  static Expr make(DataType t, double v, Span s = {});
};

// A variable: loop index, let binding, reduction axis, or buffer data handle.
// Identity is the node's address; the name is for printing.
struct VarNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Var;
  std::string name;
  VarNode(DataType t, std::string n, Span s) : ExprNode(kKind, t, s), name(std::move(n)) {}
  static VarRef make(std::string name, DataType t = DataType::i32(), Span s = {});
};
using Var = VarNode;

struct Cast : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Cast;
  Expr value;
  Cast(DataType t, Expr v, Span s) : ExprNode(kKind, t, s), value(std::move(v)) {}
  static Expr make(DataType t, Expr v, Span s = {});
};

// Binary operators. Div/Mod are floor division and modulo for signed integers (x/0 == 0 and
// x%0 == 0, as in Halide); comparisons and logical ops give bool; shifts are arithmetic for
// signed types, and an amount outside [0, bits) shifts everything out (0, or -1 for a
// negative signed value shifted right).
//
// X(name, symbol, precedence): the precedence of the infix form, C-like (higher binds
// tighter), which both the printer and the parsers use; 0 for operators written as calls.
// clang-format off
#define DSPC_BINARY_OPS(X)                                                                       \
  X(Add, "+", 9) X(Sub, "-", 9) X(Mul, "*", 10) X(Div, "/", 10) X(Mod, "%", 10) X(Min, "min", 0) \
  X(Max, "max", 0) X(BitAnd, "&", 5) X(BitOr, "|", 3) X(BitXor, "^", 4) X(Shl, "<<", 8)          \
  X(Shr, ">>", 8) X(EQ, "==", 6) X(NE, "!=", 6) X(LT, "<", 7) X(LE, "<=", 7) X(GT, ">", 7)       \
  X(GE, ">=", 7) X(And, "&&", 2) X(Or, "||", 1)
// clang-format on

enum class BinaryOp : uint8_t {
#define DSPC_OP(N, S, P) N,
  DSPC_BINARY_OPS(DSPC_OP)
#undef DSPC_OP
};
const char* binary_op_symbol(BinaryOp op);
int binary_op_precedence(BinaryOp op);
// Infix operators bind looser than unary ones, which bind looser than atoms and calls.
inline constexpr int kUnaryPrecedence = 11;
inline constexpr int kAtomPrecedence = 12;
bool is_comparison(BinaryOp op);
BinaryOp mirrored(BinaryOp op);  // a OP b  ==  b mirrored(OP) a (comparisons; others unchanged)
bool is_logical(BinaryOp op);  // And, Or

struct Binary : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Binary;
  BinaryOp op;
  Expr a, b;
  Binary(DataType t, BinaryOp o, Expr x, Expr y, Span s)
      : ExprNode(kKind, t, s), op(o), a(std::move(x)), b(std::move(y)) {}
  static Expr make(BinaryOp op, Expr a, Expr b, Span s = {});
};

enum class UnaryOp : uint8_t { Neg, Not, BitNot, Abs, Clz, Popcount };
const char* unary_op_symbol(UnaryOp op);  // "-", "!", "~", "abs", "count_leading_zeros", "popcount"

struct Unary : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Unary;
  UnaryOp op;
  Expr value;
  Unary(DataType t, UnaryOp o, Expr v, Span s) : ExprNode(kKind, t, s), op(o), value(std::move(v)) {}
  static Expr make(UnaryOp op, Expr v, Span s = {});
};

struct Select : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Select;
  Expr cond, t, f;
  Select(DataType dt, Expr c, Expr a, Expr b, Span s)
      : ExprNode(kKind, dt, s), cond(std::move(c)), t(std::move(a)), f(std::move(b)) {}
  static Expr make(Expr cond, Expr t, Expr f, Span s = {});
};

// Reads buffer[indices...]; one index per dimension (one after flatten-buffers).
// A vector load has a Ramp index and dtype with lanes.
struct Load : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Load;
  Buffer buffer;
  std::vector<Expr> indices;
  Load(DataType t, Buffer b, std::vector<Expr> i, Span s)
      : ExprNode(kKind, t, s), buffer(std::move(b)), indices(std::move(i)) {}
  static Expr make(Buffer buffer, std::vector<Expr> indices, Span s = {});
};

// Calls. Extern: a C function from runtime-support; Intrinsic: a compiler built-in. Both
// tables, with each callee's signature, are in compiler/ir/Externs.h.
// Func: a function of the same module, by name, with buffer data handles as arguments (a
// graph's device group calls its kernels so); it returns the callee's i32 status.
enum class CallKind : uint8_t { Extern, Intrinsic, Func };

struct Call : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Call;
  CallKind call_kind;
  std::string name;
  std::vector<Expr> args;
  Call(DataType t, CallKind k, std::string n, std::vector<Expr> a, Span s)
      : ExprNode(kKind, t, s), call_kind(k), name(std::move(n)), args(std::move(a)) {}
  // Checks the callee exists (extern table or intrinsic list) and the argument dtypes.
  static Expr make(CallKind kind, std::string name, std::vector<Expr> args, Span s = {});
};

// A reduction over one or more axes; exists only before schedule-ops.
enum class ReduceOp : uint8_t { Sum, Min, Max };
const char* reduce_op_name(ReduceOp op);
// The operator that folds one more value into a reduction's accumulator.
BinaryOp reduce_combine_op(ReduceOp op);

struct ReduceAxis {
  VarRef var;
  int64_t extent;
};

struct Reduce : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Reduce;
  ReduceOp op;
  Expr source;
  std::vector<ReduceAxis> axes;
  Reduce(DataType t, ReduceOp o, Expr src, std::vector<ReduceAxis> ax, Span s)
      : ExprNode(kKind, t, s), op(o), source(std::move(src)), axes(std::move(ax)) {}
  static Expr make(ReduceOp op, Expr source, std::vector<ReduceAxis> axes, Span s = {});
};

// base, base+stride, ... (lanes values); base and stride are scalar integers.
struct Ramp : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Ramp;
  Expr base, stride;
  int lanes;
  Ramp(DataType t, Expr b, Expr st, int l, Span s)
      : ExprNode(kKind, t, s), base(std::move(b)), stride(std::move(st)), lanes(l) {}
  static Expr make(Expr base, Expr stride, int lanes, Span s = {});
};

struct Broadcast : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Broadcast;
  Expr value;
  int lanes;
  Broadcast(DataType t, Expr v, int l, Span s) : ExprNode(kKind, t, s), value(std::move(v)), lanes(l) {}
  static Expr make(Expr value, int lanes, Span s = {});
};

// The lanes of a vector folded by a reduction operator into `lanes` partial results (the
// vectorizer's accumulators of a reduction along the vectorized loop, Vectorize.cpp). With
// lanes == 1, op over every lane of value. With lanes > 1, value's lanes divide into `lanes`
// groups of equal size, one partial result each; which lanes form which group is the code
// generator's choice (HVX's vrmpy sums four neighbouring bytes, a register-wise add sums lanes
// one register apart), so only the op-combination of all the partial results is defined: the
// vectorizer makes such a node only as the update of an accumulator that is read through a
// reduction to one lane. Sum wraps; integer lanes only.
struct VectorReduce : ExprNode {
  static constexpr NodeKind kKind = NodeKind::VectorReduce;
  ReduceOp op;
  Expr value;
  int lanes;
  VectorReduce(DataType t, ReduceOp o, Expr v, int l, Span s)
      : ExprNode(kKind, t, s), op(o), value(std::move(v)), lanes(l) {}
  static Expr make(ReduceOp op, Expr value, int lanes, Span s = {});
};

// ---------------------------------------------------------------- statements

// let var = value; body   (var is in scope in body only)
struct LetStmt : StmtNode {
  static constexpr NodeKind kKind = NodeKind::LetStmt;
  VarRef var;
  Expr value;
  Stmt body;
  LetStmt(VarRef v, Expr e, Stmt b, Span s)
      : StmtNode(kKind, s), var(std::move(v)), value(std::move(e)), body(std::move(b)) {}
  static Stmt make(VarRef var, Expr value, Stmt body, Span s = {});
};

enum class ForKind : uint8_t { Serial, Vectorized, Unrolled, Parallel };
const char* for_kind_name(ForKind k);  // "range", "vectorized", "unrolled", "parallel"

struct For : StmtNode {
  static constexpr NodeKind kKind = NodeKind::For;
  VarRef var;
  Expr min, extent;  // i32
  ForKind for_kind;
  Stmt body;
  For(VarRef v, Expr m, Expr e, ForKind k, Stmt b, Span s)
      : StmtNode(kKind, s), var(std::move(v)), min(std::move(m)), extent(std::move(e)),
        for_kind(k), body(std::move(b)) {}
  static Stmt make(VarRef var, Expr min, Expr extent, ForKind kind, Stmt body, Span s = {});
};

struct IfThenElse : StmtNode {
  static constexpr NodeKind kKind = NodeKind::IfThenElse;
  Expr cond;
  Stmt then_case, else_case;  // else_case may be null
  IfThenElse(Expr c, Stmt t, Stmt e, Span s)
      : StmtNode(kKind, s), cond(std::move(c)), then_case(std::move(t)), else_case(std::move(e)) {}
  static Stmt make(Expr cond, Stmt then_case, Stmt else_case = {}, Span s = {});
};

// Allocates `buffer` (with its scope) for the duration of body. The span points at the
// stage that asked for it, so later diagnostics can name it.
struct Allocate : StmtNode {
  static constexpr NodeKind kKind = NodeKind::Allocate;
  Buffer buffer;
  Stmt body;
  Allocate(Buffer b, Stmt bd, Span s) : StmtNode(kKind, s), buffer(std::move(b)), body(std::move(bd)) {}
  static Stmt make(Buffer buffer, Stmt body, Span s = {});
};

// Declares that the handle variable buffer->data (already bound) addresses `buffer` in body.
struct DeclBuffer : StmtNode {
  static constexpr NodeKind kKind = NodeKind::DeclBuffer;
  Buffer buffer;
  Stmt body;
  DeclBuffer(Buffer b, Stmt bd, Span s) : StmtNode(kKind, s), buffer(std::move(b)), body(std::move(bd)) {}
  static Stmt make(Buffer buffer, Stmt body, Span s = {});
};

struct Store : StmtNode {
  static constexpr NodeKind kKind = NodeKind::Store;
  Buffer buffer;
  std::vector<Expr> indices;
  Expr value;
  Store(Buffer b, std::vector<Expr> i, Expr v, Span s)
      : StmtNode(kKind, s), buffer(std::move(b)), indices(std::move(i)), value(std::move(v)) {}
  static Stmt make(Buffer buffer, std::vector<Expr> indices, Expr value, Span s = {});
};

struct Evaluate : StmtNode {
  static constexpr NodeKind kKind = NodeKind::Evaluate;
  Expr value;
  Evaluate(Expr v, Span s) : StmtNode(kKind, s), value(std::move(v)) {}
  static Stmt make(Expr value, Span s = {});
};

struct Seq : StmtNode {
  static constexpr NodeKind kKind = NodeKind::Seq;
  std::vector<Stmt> stmts;
  Seq(std::vector<Stmt> v, Span s) : StmtNode(kKind, s), stmts(std::move(v)) {}
  // Flattens nested Seqs; a single statement is returned as is.
  static Stmt make(std::vector<Stmt> stmts, Span s = {});
};

// ---------------------------------------------------------------- functions

// A lowered function. Inputs then outputs are its buffer parameters, and `ctx` (a handle, the
// dspc_context* of runtime-support) is its declared, final parameter: the generated C function
// is `int32_t NAME(inputs..., outputs..., dspc_context* ctx)`, returning 0 on success. The body
// hands `ctx` to every runtime call (allocation, free) and to every function it calls; generated
// code reads no global state. A new PrimFunc gets a fresh `ctx` variable of its own.
struct PrimFunc {
  std::string name;
  std::vector<Buffer> inputs;
  std::vector<Buffer> outputs;
  Stmt body;
  Span span;
  VarRef ctx = VarNode::make("ctx", DataType::handle());
};

// The name for a function's context parameter: "ctx", unless a parameter or a buffer in
// `taken` has it, then "ctx_1", "ctx_2", ...
std::string context_param_name(const std::vector<std::string>& taken);

// The checked packed entry of a kernel (make-packed-api), with the C ABI of
// runtime-support/device/include/dspc_runtime.h:
//   int32_t NAME(const dspc_arg* args, int32_t num_args, dspc_context* ctx)
// `inputs`/`outputs` are the kernel's parameters as callers see them (declared, unflattened
// shapes): the body checks the descriptors against them before it calls the kernel. The body
// ends every path with the `return` intrinsic; it reads arguments only through the arg_*
// intrinsics, and `func_desc()` and `call_kernel(...)` refer to `kernel`.
struct PackedFunc {
  std::string name;    // __dspc_call_<kernel>
  std::string kernel;  // the PrimFunc it wraps
  std::vector<Buffer> inputs;
  std::vector<Buffer> outputs;
  VarRef args, num_args, ctx;  // handle, i32, handle
  Stmt body;
  Span span;
};

// A constant tensor of a module (a graph's `const`), emitted as read-only data aligned to the
// target's allocation alignment. Functions reach it by `constant_data(INDEX)`, INDEX its place
// in Module::constants. TIR prints it after the functions: `constant w: f32[2] = [1.5, -2]`.
struct ModuleConstant {
  std::string name;
  DataType dtype;
  std::vector<int64_t> shape;
  std::shared_ptr<const std::vector<uint8_t>> data;  // little-endian elements
};

// In an inline namespace so that its mangled name differs from the host runtime's dspc::Module
// (<dspc/host.h>): dspc links both, and an out-of-line copy of one's implicit destructor would
// otherwise be taken for the other's.
inline namespace tir {
struct Module {
  std::vector<PrimFunc> funcs;
  std::vector<PackedFunc> packed;  // after make-packed-api: one per function
  // After group-device-calls: each graph's order and steps; its device groups are functions
  // in `funcs`.
  std::vector<GraphPlan> graph_plans;
  std::vector<ModuleConstant> constants;
};
}  // namespace tir

// ---------------------------------------------------------------- tensor program (pre-TIR)

// One stage: out[index_vars...] = body. The index vars' extents are out->shape.
struct Stage {
  Buffer out;  // scope set by the schedule
  std::vector<VarRef> index_vars;
  Expr body;   // may contain Reduce; reads params and earlier stages through Load
  bool is_result = false;
  Span span;
  // The schedule block's primitives for this stage, in source order (set_scope included; its
  // scope is also out->scope). LoopSchedule.h reads the loop primitives.
  std::vector<SchedulePrimitive> schedule;
  // Whether a compute_inline primitive says the stage is substituted into its readers.
  bool is_inlined() const;
  // The compute_at primitive that places the stage in a loop of a later stage, or null.
  const SchedulePrimitive* computed_at() const;
  // The store_at primitive that allocates the stage's storage inside a loop of a later stage
  // (the loop it is computed at), or null.
  const SchedulePrimitive* stored_at() const;
  // Whether the schedule has a loop primitive (is_loop_primitive): such a stage is built by
  // its own schedule, any other one gets the automatic schedule.
  bool has_loop_schedule() const;
};

struct TensorFunc {
  std::string name;
  std::vector<Buffer> inputs;
  std::vector<Buffer> outputs;
  std::vector<Stage> stages;
  Span span;
};

// A generic func (`func f<H, W>(...)`): a template, not compiled until instantiated; its
// instantiations are in TensorProgram::funcs under their mangled names (`f_56_64`).
struct GenericFuncInfo {
  std::string name;
  std::vector<std::string> params;
  Span span;
};

struct TensorProgram {
  std::vector<TensorFunc> funcs;
  std::vector<Graph> graphs;  // `graph` forms, whose nodes call `funcs`
  std::vector<GenericFuncInfo> generics;
};

// ---------------------------------------------------------------- helpers

Expr make_const(DataType t, int64_t v, Span s = {});
// Structural equality of expressions: same shape, dtypes and constants, same variables and
// buffers (by identity). Reductions never compare equal.
bool same_expr(const Expr& a, const Expr& b);
inline Expr make_i32(int64_t v) { return IntImm::make(DataType::i32(), v); }
inline Expr var_expr(const VarRef& v) { return Expr(std::shared_ptr<const ExprNode>(v)); }
// The literal if `e` is an integer constant, else null.
const IntImm* as_int(const Expr& e);

}  // namespace dspc
