#include "compiler/ir/IR.h"

#include <algorithm>
#include <cmath>

#include "compiler/ir/Externs.h"

namespace dspc {

namespace {

[[noreturn]] void fail(const std::string& msg) { throw IRError(msg); }

void require(bool ok, const std::string& msg) {
  if (!ok) fail(msg);
}

void require_defined(const Expr& e, const char* what) {
  require(static_cast<bool>(e), std::string(what) + " is null");
}

void require_defined(const Stmt& s, const char* what) {
  require(static_cast<bool>(s), std::string(what) + " is null");
}

void require_index(const Expr& e) {
  require_defined(e, "index");
  require(e.dtype().is_integer(), "index must be an integer, got " + e.dtype().str());
}

void check_indices(const Buffer& b, const std::vector<Expr>& indices) {
  require(b != nullptr, "buffer is null");
  require(indices.size() == b->shape.size(),
          "buffer " + b->name + " has " + std::to_string(b->shape.size()) + " dimensions but " +
              std::to_string(indices.size()) + " indices were given");
  for (const auto& i : indices) require_index(i);
}

// Lanes of a load or store: scalar unless an index is a vector (ramp).
int access_lanes(const std::vector<Expr>& indices) {
  int lanes = 1;
  for (const auto& i : indices) {
    int l = i.dtype().lanes;
    if (l == 1) continue;
    require(lanes == 1 || lanes == l, "indices have different lane counts");
    lanes = l;
  }
  return lanes;
}

}  // namespace

const char* node_kind_name(NodeKind k) {
  switch (k) {
#define DSPC_NAME(N) \
  case NodeKind::N:  \
    return #N;
    DSPC_EXPR_NODES(DSPC_NAME) DSPC_STMT_NODES(DSPC_NAME)
#undef DSPC_NAME
  }
  return "?";
}

const char* binary_op_symbol(BinaryOp op) {
  switch (op) {
#define DSPC_SYM(N, S, P) \
  case BinaryOp::N:       \
    return S;
    DSPC_BINARY_OPS(DSPC_SYM)
#undef DSPC_SYM
  }
  return "?";
}

int binary_op_precedence(BinaryOp op) {
  switch (op) {
#define DSPC_PREC(N, S, P) \
  case BinaryOp::N:        \
    return P;
    DSPC_BINARY_OPS(DSPC_PREC)
#undef DSPC_PREC
  }
  return 0;
}

bool is_comparison(BinaryOp op) {
  return op == BinaryOp::EQ || op == BinaryOp::NE || op == BinaryOp::LT || op == BinaryOp::LE ||
         op == BinaryOp::GT || op == BinaryOp::GE;
}

BinaryOp mirrored(BinaryOp op) {
  switch (op) {
    case BinaryOp::LT: return BinaryOp::GT;
    case BinaryOp::LE: return BinaryOp::GE;
    case BinaryOp::GT: return BinaryOp::LT;
    case BinaryOp::GE: return BinaryOp::LE;
    default: return op;
  }
}

bool is_logical(BinaryOp op) { return op == BinaryOp::And || op == BinaryOp::Or; }

const char* unary_op_symbol(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg: return "-";
    case UnaryOp::Not: return "!";
    case UnaryOp::BitNot: return "~";
    case UnaryOp::Abs: return "abs";
    case UnaryOp::Clz: return "count_leading_zeros";
    case UnaryOp::Popcount: return "popcount";
  }
  return "?";
}

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Min: return "min";
    case ReduceOp::Max: return "max";
  }
  return "?";
}

BinaryOp reduce_combine_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return BinaryOp::Add;
    case ReduceOp::Min: return BinaryOp::Min;
    case ReduceOp::Max: return BinaryOp::Max;
  }
  throw IRError("unknown reduction");
}

const char* for_kind_name(ForKind k) {
  switch (k) {
    case ForKind::Serial: return "range";
    case ForKind::Vectorized: return "vectorized";
    case ForKind::Unrolled: return "unrolled";
    case ForKind::Parallel: return "parallel";
  }
  return "?";
}

bool Stage::is_inlined() const {
  for (const auto& p : schedule)
    if (p.kind == ScheduleKind::ComputeInline) return true;
  return false;
}

const SchedulePrimitive* Stage::computed_at() const {
  for (const auto& p : schedule)
    if (p.kind == ScheduleKind::ComputeAt) return &p;
  return nullptr;
}

const SchedulePrimitive* Stage::stored_at() const {
  for (const auto& p : schedule)
    if (p.kind == ScheduleKind::StoreAt) return &p;
  return nullptr;
}

bool Stage::has_loop_schedule() const {
  for (const auto& p : schedule)
    if (is_loop_primitive(p.kind)) return true;
  return false;
}

int64_t BufferNode::num_elements() const {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return n;
}

Buffer BufferNode::make(std::string name, DataType dtype, std::vector<int64_t> shape, StorageScope scope,
                        Span span) {
  auto data = VarNode::make(name, DataType::handle(), span);
  return make_with_data(std::move(data), dtype, std::move(shape), scope, span);
}

Buffer BufferNode::make_with_data(VarRef data, DataType dtype, std::vector<int64_t> shape, StorageScope scope,
                                  Span span) {
  require(data != nullptr && data->dtype.is_handle(), "buffer data must be a handle variable");
  require(!dtype.is_handle() && dtype.is_scalar(), "buffer element type must be a scalar value type");
  require(!shape.empty(), "buffer " + data->name + " needs at least one dimension");
  // Keep sizes far from int64 overflow: the largest buffer is 2^40 bytes.
  int64_t n = 1;
  for (int64_t e : shape) {
    // An extent 0 is a tensor without elements (0 bytes: nothing reads or writes it).
    require(e >= 0, "buffer " + data->name + " has a negative extent");
    require(e <= (int64_t(1) << 40) && (e == 0 || n <= (int64_t(1) << 40) / e),
            "buffer " + data->name + " is too large");
    n *= e;
  }
  auto b = std::make_shared<BufferNode>();
  b->name = data->name;
  b->dtype = dtype;
  b->shape = std::move(shape);
  b->scope = scope;
  b->data = std::move(data);
  b->span = span;
  return b;
}

Expr IntImm::make(DataType t, int64_t v, Span s) {
  require(t.is_integer() || t.is_bool(), "integer literal of non-integer type " + t.str());
  require(t.is_scalar(), "literals are scalars");
  return std::make_shared<IntImm>(t, wrap_to(t, v), s);
}

Expr FloatImm::make(DataType t, double v, Span s) {
  require(t.is_float() && t.is_scalar(), "float literal of non-float type " + t.str());
  if (t.bits == 32) v = static_cast<double>(static_cast<float>(v));
  return std::make_shared<FloatImm>(t, v, s);
}

VarRef VarNode::make(std::string name, DataType t, Span s) {
  require(!name.empty(), "variable needs a name");
  return std::make_shared<VarNode>(t, std::move(name), s);
}

Expr Cast::make(DataType t, Expr v, Span s) {
  require_defined(v, "cast operand");
  require(!t.is_handle() && !v.dtype().is_handle(), "cannot cast to or from handle");
  require(t.lanes == v.dtype().lanes, "cast cannot change the lane count");
  return std::make_shared<Cast>(t, std::move(v), s);
}

Expr Binary::make(BinaryOp op, Expr a, Expr b, Span s) {
  require_defined(a, "left operand");
  require_defined(b, "right operand");
  DataType ta = a.dtype(), tb = b.dtype();
  std::string sym = binary_op_symbol(op);
  require(ta == tb, "operands of '" + sym + "' have different types: " + ta.str() + " and " + tb.str());
  require(!ta.is_handle(), "operator '" + sym + "' does not apply to handles");
  if (is_logical(op)) {
    require(ta.is_bool(), "operands of '" + sym + "' must be bool, got " + ta.str());
    return std::make_shared<Binary>(ta, op, std::move(a), std::move(b), s);
  }
  if (is_comparison(op))
    return std::make_shared<Binary>(DataType::boolean().with_lanes(ta.lanes), op, std::move(a), std::move(b), s);
  bool bitwise = op == BinaryOp::BitAnd || op == BinaryOp::BitOr || op == BinaryOp::BitXor ||
                 op == BinaryOp::Shl || op == BinaryOp::Shr;
  if (bitwise) require(ta.is_integer() || (ta.is_bool() && op != BinaryOp::Shl && op != BinaryOp::Shr),
                       "operator '" + sym + "' needs integer operands, got " + ta.str());
  else require(!ta.is_bool(), "operator '" + sym + "' does not apply to bool");
  return std::make_shared<Binary>(ta, op, std::move(a), std::move(b), s);
}

Expr Unary::make(UnaryOp op, Expr v, Span s) {
  require_defined(v, "operand");
  DataType t = v.dtype();
  require(!t.is_handle(), "unary operator on a handle");
  if (op == UnaryOp::Not) require(t.is_bool(), "operand of '!' must be bool, got " + t.str());
  if (op == UnaryOp::BitNot) require(t.is_integer(), "operand of '~' must be an integer, got " + t.str());
  if (op == UnaryOp::Clz || op == UnaryOp::Popcount)
    require(t.is_integer(), std::string("operand of '") + unary_op_symbol(op) + "' must be an integer, got " + t.str());
  if (op == UnaryOp::Neg || op == UnaryOp::Abs)
    require(!t.is_bool(), std::string("operand of '") + unary_op_symbol(op) + "' must be a number");
  return std::make_shared<Unary>(t, op, std::move(v), s);
}

Expr Select::make(Expr cond, Expr t, Expr f, Span s) {
  require_defined(cond, "select condition");
  require_defined(t, "select true value");
  require_defined(f, "select false value");
  require(cond.dtype().is_bool(), "select condition must be bool, got " + cond.dtype().str());
  require(t.dtype() == f.dtype(), "select branches have different types: " + t.dtype().str() +
                                      " and " + f.dtype().str());
  require(cond.dtype().lanes == 1 || cond.dtype().lanes == t.dtype().lanes, "select lane mismatch");
  DataType dt = t.dtype();
  return std::make_shared<Select>(dt, std::move(cond), std::move(t), std::move(f), s);
}

Expr Load::make(Buffer buffer, std::vector<Expr> indices, Span s) {
  check_indices(buffer, indices);
  DataType t = buffer->dtype.with_lanes(access_lanes(indices));
  return std::make_shared<Load>(t, std::move(buffer), std::move(indices), s);
}

Expr Call::make(CallKind kind, std::string name, std::vector<Expr> args, Span s) {
  if (kind == CallKind::Func) {
    require(!name.empty(), "call_func needs a function name");
    for (size_t i = 0; i < args.size(); ++i) {
      require_defined(args[i], "call argument");
      require(args[i].dtype() == DataType::handle(), "argument " + std::to_string(i + 1) + " of call_func(\"" +
                                                         name + "\") must be handle, got " + args[i].dtype().str());
    }
    return std::make_shared<Call>(DataType::i32(), kind, std::move(name), std::move(args), s);
  }
  auto sig = kind == CallKind::Extern ? lookup_extern(name) : lookup_intrinsic(name);
  require(sig.has_value(), std::string(kind == CallKind::Extern ? "unknown extern function '"
                                                                 : "unknown intrinsic '") + name + "'");
  require(sig->rest ? args.size() >= sig->params.size() : args.size() == sig->params.size(),
          "'" + name + "' takes " + std::string(sig->rest ? "at least " : "") + std::to_string(sig->params.size()) +
              " arguments, got " + std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    require_defined(args[i], "call argument");
    DataType want = i < sig->params.size() ? sig->params[i] : *sig->rest;
    require(args[i].dtype() == want, "argument " + std::to_string(i + 1) + " of '" + name + "' must be " +
                                         want.str() + ", got " + args[i].dtype().str());
  }
  return std::make_shared<Call>(sig->ret, kind, std::move(name), std::move(args), s);
}

Expr Reduce::make(ReduceOp op, Expr source, std::vector<ReduceAxis> axes, Span s) {
  require_defined(source, "reduction body");
  require(!axes.empty(), "a reduction needs at least one axis");
  DataType t = source.dtype();
  require(t.is_scalar() && (t.is_integer() || t.is_float()), "cannot reduce values of type " + t.str());
  for (const auto& a : axes) {
    require(a.var != nullptr, "reduction axis is null");
    require(a.extent > 0, "reduction axis " + a.var->name + " needs a positive extent");
  }
  return std::make_shared<Reduce>(t, op, std::move(source), std::move(axes), s);
}

Expr Ramp::make(Expr base, Expr stride, int lanes, Span s) {
  require_defined(base, "ramp base");
  require_defined(stride, "ramp stride");
  require(base.dtype().is_integer() && base.dtype().is_scalar(), "ramp base must be a scalar integer");
  require(stride.dtype() == base.dtype(), "ramp stride must have the base's type");
  require(lanes > 1, "a ramp needs at least two lanes");
  return std::make_shared<Ramp>(base.dtype().with_lanes(lanes), std::move(base), std::move(stride), lanes, s);
}

Expr Broadcast::make(Expr value, int lanes, Span s) {
  require_defined(value, "broadcast value");
  require(value.dtype().is_scalar(), "broadcast of a vector");
  require(lanes > 1, "a broadcast needs at least two lanes");
  return std::make_shared<Broadcast>(value.dtype().with_lanes(lanes), std::move(value), lanes, s);
}

Expr VectorReduce::make(ReduceOp op, Expr value, int lanes, Span s) {
  require_defined(value, "vector reduction operand");
  DataType t = value.dtype();
  require(t.lanes > 1 && t.is_integer(), "a vector reduction needs a vector of integers, got " + t.str());
  require(lanes >= 1 && t.lanes % lanes == 0 && lanes < t.lanes,
          "a vector reduction of " + std::to_string(t.lanes) + " lanes cannot give " + std::to_string(lanes));
  return std::make_shared<VectorReduce>(t.with_lanes(lanes), op, std::move(value), lanes, s);
}

Stmt LetStmt::make(VarRef var, Expr value, Stmt body, Span s) {
  require(var != nullptr, "let variable is null");
  require_defined(value, "let value");
  require_defined(body, "let body");
  require(var->dtype == value.dtype(), "let " + var->name + " has type " + var->dtype.str() +
                                           " but its value has type " + value.dtype().str());
  return std::make_shared<LetStmt>(std::move(var), std::move(value), std::move(body), s);
}

Stmt For::make(VarRef var, Expr min, Expr extent, ForKind kind, Stmt body, Span s) {
  require(var != nullptr, "loop variable is null");
  require_defined(min, "loop min");
  require_defined(extent, "loop extent");
  require_defined(body, "loop body");
  require(var->dtype == DataType::i32(), "loop variable must be i32");
  require(min.dtype() == DataType::i32() && extent.dtype() == DataType::i32(),
          "loop bounds must be i32");
  return std::make_shared<For>(std::move(var), std::move(min), std::move(extent), kind, std::move(body), s);
}

Stmt IfThenElse::make(Expr cond, Stmt then_case, Stmt else_case, Span s) {
  require_defined(cond, "if condition");
  require_defined(then_case, "then branch");
  require(cond.dtype() == DataType::boolean(), "if condition must be bool, got " + cond.dtype().str());
  return std::make_shared<IfThenElse>(std::move(cond), std::move(then_case), std::move(else_case), s);
}

Stmt Allocate::make(Buffer buffer, Stmt body, Span s) {
  require(buffer != nullptr, "allocated buffer is null");
  require_defined(body, "allocate body");
  return std::make_shared<Allocate>(std::move(buffer), std::move(body), s);
}

Stmt DeclBuffer::make(Buffer buffer, Stmt body, Span s) {
  require(buffer != nullptr, "declared buffer is null");
  require_defined(body, "decl_buffer body");
  return std::make_shared<DeclBuffer>(std::move(buffer), std::move(body), s);
}

Stmt Store::make(Buffer buffer, std::vector<Expr> indices, Expr value, Span s) {
  check_indices(buffer, indices);
  require_defined(value, "stored value");
  DataType want = buffer->dtype.with_lanes(access_lanes(indices));
  require(value.dtype() == want, "storing " + value.dtype().str() + " into buffer " + buffer->name +
                                     " of " + want.str());
  return std::make_shared<Store>(std::move(buffer), std::move(indices), std::move(value), s);
}

Stmt Evaluate::make(Expr value, Span s) {
  require_defined(value, "evaluated expression");
  return std::make_shared<Evaluate>(std::move(value), s);
}

Stmt Seq::make(std::vector<Stmt> stmts, Span s) {
  std::vector<Stmt> flat;
  for (auto& st : stmts) {
    require_defined(st, "sequence element");
    if (const auto* inner = st.as<Seq>()) {
      flat.insert(flat.end(), inner->stmts.begin(), inner->stmts.end());
    } else {
      flat.push_back(std::move(st));
    }
  }
  require(!flat.empty(), "empty statement sequence");
  if (flat.size() == 1) return flat.front();
  return std::make_shared<Seq>(std::move(flat), s);
}

Expr make_const(DataType t, int64_t v, Span s) {
  if (t.is_float()) return FloatImm::make(t, static_cast<double>(v), s);
  return IntImm::make(t, v, s);
}

const IntImm* as_int(const Expr& e) { return e.as<IntImm>(); }
namespace {
bool same_expr_list(const std::vector<Expr>& a, const std::vector<Expr>& b);
}  // namespace

bool same_expr(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return true;
  if (!a || !b || a.kind() != b.kind() || a.dtype() != b.dtype()) return false;
  if (const auto* x = a.as<IntImm>()) return x->value == b.as<IntImm>()->value;
  if (const auto* x = a.as<FloatImm>()) return x->value == b.as<FloatImm>()->value;  // NaN: not equal, fine
  if (a.as<Var>()) return false;  // same_as failed: different variables
  if (const auto* x = a.as<Cast>()) return same_expr(x->value, b.as<Cast>()->value);
  if (const auto* x = a.as<Binary>()) {
    const auto* y = b.as<Binary>();
    return x->op == y->op && same_expr(x->a, y->a) && same_expr(x->b, y->b);
  }
  if (const auto* x = a.as<Unary>())
    return x->op == b.as<Unary>()->op && same_expr(x->value, b.as<Unary>()->value);
  if (const auto* x = a.as<Select>()) {
    const auto* y = b.as<Select>();
    return same_expr(x->cond, y->cond) && same_expr(x->t, y->t) && same_expr(x->f, y->f);
  }
  if (const auto* x = a.as<Load>())
    return x->buffer == b.as<Load>()->buffer && same_expr_list(x->indices, b.as<Load>()->indices);
  if (const auto* x = a.as<Call>()) {
    const auto* y = b.as<Call>();
    return x->call_kind == y->call_kind && x->name == y->name && same_expr_list(x->args, y->args);
  }
  if (const auto* x = a.as<Ramp>()) {
    const auto* y = b.as<Ramp>();
    return x->lanes == y->lanes && same_expr(x->base, y->base) && same_expr(x->stride, y->stride);
  }
  if (const auto* x = a.as<Broadcast>())
    return x->lanes == b.as<Broadcast>()->lanes && same_expr(x->value, b.as<Broadcast>()->value);
  if (const auto* x = a.as<VectorReduce>()) {
    const auto* y = b.as<VectorReduce>();
    return x->op == y->op && x->lanes == y->lanes && same_expr(x->value, y->value);
  }
  return false;  // Reduce: never compared
}

namespace {
bool same_expr_list(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same_expr(a[i], b[i])) return false;
  return true;
}
}  // namespace

}  // namespace dspc

namespace dspc {

std::string context_param_name(const std::vector<std::string>& taken) {
  auto used = [&](const std::string& n) { return std::find(taken.begin(), taken.end(), n) != taken.end(); };
  std::string name = "ctx";
  for (int i = 1; used(name); ++i) name = "ctx_" + std::to_string(i);
  return name;
}

}  // namespace dspc
