// The reference interpreter.
//
// 1. Check the inputs against the signature and give every buffer (params, stage outputs,
//    results) flat little-endian storage.
// 2. Per stage, in order, compile the body into a flat node array: variables become slots of
//    a small environment, loads point at buffer storage, and every buffer read must already be
//    computed. Anything unsupported (vectors, calls, unbound variables) is an error here.
// 3. Walk the stage's index space a row at a time: a row is the points that differ only in
//    the innermost index variable, its lanes. Each node is evaluated for the whole row with the
//    scalar semantics of compiler/arith/Semantics.h, one lane after the other in a tight loop,
//    and a node that does not depend on the innermost variable (uniform: a row's reads of
//    another tensor at fixed indices, a conv's input pixel for all its output channels) once
//    per row. Select evaluates only the side each lane takes, as in scalar evaluation. Then
//    store the row.
// Any error (an index out of bounds) reruns the stage point by point, in row-major order, so
// the error reported is the first one scalar evaluation meets.
#include "compiler/interp/Interpreter.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "compiler/arith/Semantics.h"
#include "compiler/ir/Printer.h"

namespace dspc {

namespace {

struct InterpError {
  std::string message;
};

[[noreturn]] void fail(std::string msg) {
  throw InterpError{std::move(msg)};
}

struct Storage {
  const BufferNode* buffer = nullptr;
  uint8_t* data = nullptr;
  bool ready = false;  // computed (or an input): later stages may read it
};

enum class Op : uint8_t { Const, Var, Cast, Binary, Unary, Select, Load, Reduce };

struct CNode {
  Op op;
  DataType dtype;   // result type
  DataType src;     // operand type (Cast, Binary, Unary)
  uint8_t sub = 0;  // BinaryOp / UnaryOp / ReduceOp
  int a = -1, b = -1, c = -1;
  Value imm;                 // Const
  int slot = -1;             // Var
  int storage = -1;          // Load
  int first = 0, count = 0;  // Load: index children in `args`; Reduce: axes in `axes`
  bool uniform = true;       // the same in every lane of a row (does not read the lane variable)
};

struct CAxis {
  int slot;
  int64_t extent;
};

// Thrown by row evaluation on any error: the stage is then evaluated point by point.
struct RowFallback {};

// A node's values over a row: `p[lane]`, or `p[0]` for every lane when uniform.
struct Lanes {
  const Value* p;
  bool uniform;
  Value at(int l) const { return p[uniform ? 0 : l]; }
};

constexpr int kMaxLanes = 512;

// Wraps a 64-bit result to an integer dtype of `bits` (not bool), as wrap_to does.
inline int64_t wrap_bits(uint64_t x, int shift, bool is_signed) {
  if (shift == 0) return static_cast<int64_t>(x);
  return is_signed ? static_cast<int64_t>(x << shift) >> shift : static_cast<int64_t>((x << shift) >> shift);
}

// out[l] = a[l] op b[l] for n lanes. The integer operators that are plain machine arithmetic,
// wrapped, and the comparisons run inline; the rest go through eval_binary.
void binary_lanes(BinaryOp op, DataType t, Lanes a, Lanes b, Value* out, int n) {
  if (t.is_integer() && !t.is_bool()) {
    const int shift = 64 - t.bits;
    const bool sgn = t.is_int();
    auto lanes = [&](auto f) {
      for (int l = 0; l < n; ++l) out[l].i = f(a.at(l), b.at(l));
    };
    auto less = [sgn](Value x, Value y) { return sgn ? x.i < y.i : x.u() < y.u(); };
    switch (op) {
      case BinaryOp::Add: return lanes([&](Value x, Value y) { return wrap_bits(x.u() + y.u(), shift, sgn); });
      case BinaryOp::Sub: return lanes([&](Value x, Value y) { return wrap_bits(x.u() - y.u(), shift, sgn); });
      case BinaryOp::Mul: return lanes([&](Value x, Value y) { return wrap_bits(x.u() * y.u(), shift, sgn); });
      case BinaryOp::BitAnd: return lanes([](Value x, Value y) { return x.i & y.i; });
      case BinaryOp::BitOr: return lanes([](Value x, Value y) { return x.i | y.i; });
      case BinaryOp::BitXor: return lanes([](Value x, Value y) { return x.i ^ y.i; });
      case BinaryOp::Min: return lanes([&](Value x, Value y) { return less(x, y) ? x.i : y.i; });
      case BinaryOp::Max: return lanes([&](Value x, Value y) { return less(y, x) ? x.i : y.i; });
      case BinaryOp::EQ: return lanes([](Value x, Value y) { return int64_t(x.i == y.i); });
      case BinaryOp::NE: return lanes([](Value x, Value y) { return int64_t(x.i != y.i); });
      case BinaryOp::LT: return lanes([&](Value x, Value y) { return int64_t(less(x, y)); });
      case BinaryOp::LE: return lanes([&](Value x, Value y) { return int64_t(!less(y, x)); });
      case BinaryOp::GT: return lanes([&](Value x, Value y) { return int64_t(less(y, x)); });
      case BinaryOp::GE: return lanes([&](Value x, Value y) { return int64_t(!less(x, y)); });
      default: break;
    }
  }
  for (int l = 0; l < n; ++l) out[l] = eval_binary(op, t, a.at(l), b.at(l));
}

// One element of a buffer of dtype t (integer loads inline, the rest through load_value).
inline Value load_lane(DataType t, const uint8_t* p) {
  if (!t.is_integer() || t.is_bool()) return load_value(t, p);
  switch (t.bits) {
    case 8: return Value::of_int(t.is_int() ? int64_t(int8_t(*p)) : int64_t(*p));
    case 16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return Value::of_int(t.is_int() ? int64_t(int16_t(v)) : int64_t(v));
    }
    case 32: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return Value::of_int(t.is_int() ? int64_t(int32_t(v)) : int64_t(v));
    }
    default: return load_value(t, p);
  }
}

class StageEvaluator {
 public:
  StageEvaluator(std::vector<Storage>& storage, std::unordered_map<const BufferNode*, int>& ids)
      : storage_(storage), ids_(ids) {}

  void run(const Stage& st, uint8_t* out) {
    const Buffer& ob = st.out;
    if (st.index_vars.size() != ob->shape.size())
      fail("stage " + ob->name + " has " + std::to_string(st.index_vars.size()) + " index variables for " +
           std::to_string(ob->shape.size()) + " dimensions");
    if (st.body.dtype() != ob->dtype)
      fail("stage " + ob->name + " has type " + ob->dtype.str() + " but its body is " +
           st.body.dtype().str());
    stage_ = ob->name;
    std::vector<int> idx_slots;
    for (const auto& v : st.index_vars) idx_slots.push_back(bind(v.get()));
    // The lane variable: the innermost index, when its rows are worth evaluating as rows.
    bool by_rows = !idx_slots.empty() && ob->shape.back() >= 2;
    lane_slot_ = by_rows ? idx_slots.back() : -1;
    int root = compile(st.body);
    if (by_rows) {
      try {
        run_rows(ob, idx_slots, root, out);
        return;
      } catch (const RowFallback&) {
      }
    }
    run_points(ob, idx_slots, root, out);
  }

 private:
  // Every point in row-major order, one at a time.
  void run_points(const Buffer& ob, const std::vector<int>& idx_slots, int root, uint8_t* out) {
    size_t rank = idx_slots.size();
    std::vector<int64_t> point(rank, 0);
    int64_t n = ob->num_elements();
    int bytes = ob->dtype.bytes();
    for (size_t d = 0; d < rank; ++d) env_[idx_slots[d]] = Value::of_int(0);
    for (int64_t k = 0; k < n; ++k) {
      store_value(ob->dtype, eval(root), out + k * bytes);
      advance(point, idx_slots, ob->shape);
    }
  }

  // The next point in row-major order (the last index moves fastest) over point.size() indices.
  void advance(std::vector<int64_t>& point, const std::vector<int>& slots, const std::vector<int64_t>& shape) {
    for (size_t d = point.size(); d-- > 0;) {
      if (++point[d] < shape[d]) {
        env_[slots[d]] = Value::of_int(point[d]);
        return;
      }
      point[d] = 0;
      env_[slots[d]] = Value::of_int(0);
    }
  }

  // Row by row (at most kMaxLanes lanes at a time): the outer indices fixed, the innermost one
  // the lanes. Throws RowFallback on any error.
  void run_rows(const Buffer& ob, const std::vector<int>& idx_slots, int root, uint8_t* out) {
    rows_.assign(nodes_.size(), {});
    for (size_t i = 0; i < nodes_.size(); ++i) rows_[i].resize(nodes_[i].uniform ? 1 : kMaxLanes);
    size_t outer = idx_slots.size() - 1;
    int64_t width = ob->shape.back(), n = ob->num_elements();
    int bytes = ob->dtype.bytes();
    std::vector<int64_t> point(outer, 0);
    for (size_t d = 0; d < outer; ++d) env_[idx_slots[d]] = Value::of_int(0);
    try {
      for (int64_t row_start = 0; row_start < n; row_start += width) {
        for (int64_t base = 0; base < width; base += kMaxLanes) {
          lanes_ = int(std::min<int64_t>(kMaxLanes, width - base));
          lane_base_ = base;
          Lanes v = row(root);
          uint8_t* p = out + (row_start + base) * bytes;
          for (int l = 0; l < lanes_; ++l) store_value(ob->dtype, v.at(l), p + l * bytes);
        }
        advance(point, idx_slots, ob->shape);  // the outer indices
      }
    } catch (const InterpError&) {
      throw RowFallback{};
    }
  }

  // Node i's values over the current row, in its own buffer (each node has one parent, which
  // uses them before it evaluates the node again).
  Lanes row(int i) {
    const CNode& n = nodes_[size_t(i)];
    Value* out = rows_[size_t(i)].data();
    if (n.uniform) {
      out[0] = eval(i);
      return {out, true};
    }
    switch (n.op) {
      case Op::Var:  // the lane variable
        for (int l = 0; l < lanes_; ++l) out[l] = Value::of_int(lane_base_ + l);
        break;
      case Op::Cast: {
        Lanes a = row(n.a);
        if (n.dtype.is_integer() && !n.dtype.is_bool() && n.src.is_integer() && !n.src.is_bool()) {
          // Integer to integer: the canonical value wrapped to the new type (eval_cast's rule).
          const int shift = 64 - n.dtype.bits;
          const bool sgn = n.dtype.is_int();
          for (int l = 0; l < lanes_; ++l) out[l].i = wrap_bits(a.at(l).u(), shift, sgn);
          break;
        }
        for (int l = 0; l < lanes_; ++l) out[l] = eval_cast(n.dtype, n.src, a.at(l));
        break;
      }
      case Op::Binary: {
        Lanes a = row(n.a), b = row(n.b);
        binary_lanes(static_cast<BinaryOp>(n.sub), n.src, a, b, out, lanes_);
        break;
      }
      case Op::Unary: {
        Lanes a = row(n.a);
        for (int l = 0; l < lanes_; ++l) out[l] = eval_unary(static_cast<UnaryOp>(n.sub), n.src, a.at(l));
        break;
      }
      case Op::Select: select_row(n, out); break;
      case Op::Load: load_row(n, out); break;
      case Op::Reduce: reduce_row(n, out); break;
      case Op::Const: break;  // always uniform
    }
    return {out, false};
  }

  void select_row(const CNode& n, Value* out) {
    Lanes c = row(n.a);
    int taken = 0;
    for (int l = 0; l < lanes_; ++l) taken += c.at(l).i != 0;
    if (taken == lanes_ || taken == 0) {  // every lane takes the same side: only it is evaluated
      Lanes v = row(taken ? n.b : n.c);
      for (int l = 0; l < lanes_; ++l) out[l] = v.at(l);
      return;
    }
    // Mixed: each lane evaluates its own side, as scalar evaluation does.
    std::vector<char> take(static_cast<size_t>(lanes_));
    for (int l = 0; l < lanes_; ++l) take[size_t(l)] = c.at(l).i != 0;
    for (int l = 0; l < lanes_; ++l) {
      env_[size_t(lane_slot_)] = Value::of_int(lane_base_ + l);
      out[l] = eval(take[size_t(l)] ? n.b : n.c);
    }
  }

  void load_row(const CNode& n, Value* out) {
    const Storage& s = storage_[size_t(n.storage)];
    const auto& shape = s.buffer->shape;
    // The flat offsets first, in `out` itself (the indices are other nodes' rows).
    for (int l = 0; l < lanes_; ++l) out[l].i = 0;
    for (int d = 0; d < n.count; ++d) {
      Lanes idx = row(args_[size_t(n.first + d)]);
      for (int l = 0; l < lanes_; ++l) {
        int64_t v = idx.at(l).i;
        if (v < 0 || v >= shape[size_t(d)]) throw RowFallback{};
        out[l].i = out[l].i * shape[size_t(d)] + v;
      }
    }
    DataType t = s.buffer->dtype;
    int bytes = t.bytes();
    for (int l = 0; l < lanes_; ++l) out[l] = load_lane(t, s.data + out[l].i * bytes);
  }

  void reduce_row(const CNode& n, Value* out) {
    auto op = static_cast<ReduceOp>(n.sub);
    BinaryOp combine = reduce_combine_op(op);
    Value init = reduce_init(op, n.dtype);
    for (int l = 0; l < lanes_; ++l) out[l] = init;
    const CAxis* ax = axes_.data() + n.first;
    int count = n.count;
    for (int d = 0; d < count; ++d) env_[size_t(ax[d].slot)] = Value::of_int(0);
    while (true) {
      binary_lanes(combine, n.dtype, {out, false}, row(n.a), out, lanes_);
      int d = count - 1;  // first axis outermost: the last one moves fastest
      for (; d >= 0; --d) {
        Value& v = env_[size_t(ax[d].slot)];
        if (++v.i < ax[d].extent) break;
        v.i = 0;
      }
      if (d < 0) return;
    }
  }

 private:
  int bind(const VarNode* v) {
    if (slots_.count(v)) fail("variable " + v->name + " is bound twice in stage " + stage_);
    int s = static_cast<int>(env_.size());
    slots_[v] = s;
    env_.push_back(Value());
    return s;
  }

  int add(CNode n) {
    if (n.op == Op::Var) n.uniform = n.slot != lane_slot_;
    for (int child : {n.a, n.b, n.c})
      if (child >= 0 && !nodes_[size_t(child)].uniform) n.uniform = false;
    if (n.op == Op::Load)
      for (int d = 0; d < n.count; ++d)
        if (!nodes_[size_t(args_[size_t(n.first + d)])].uniform) n.uniform = false;
    nodes_.push_back(n);
    return static_cast<int>(nodes_.size()) - 1;
  }

  int compile(const Expr& e) {
    if (!e) fail("null expression in stage " + stage_);
    if (!e.dtype().is_scalar()) fail("vector expressions are not supported by the interpreter");
    CNode n;
    n.dtype = e.dtype();
    if (const auto* op = e.as<IntImm>()) {
      n.op = Op::Const;
      n.imm = Value::of_int(op->value);
      return add(n);
    }
    if (const auto* op = e.as<FloatImm>()) {
      n.op = Op::Const;
      n.imm = Value::of_float(op->value);
      return add(n);
    }
    if (const auto* op = e.as<Var>()) {
      auto it = slots_.find(op);
      if (it == slots_.end()) fail("unbound variable " + op->name + " in stage " + stage_);
      n.op = Op::Var;
      n.slot = it->second;
      return add(n);
    }
    if (const auto* op = e.as<Cast>()) {
      n.op = Op::Cast;
      n.src = op->value.dtype();
      n.a = compile(op->value);
      return add(n);
    }
    if (const auto* op = e.as<Binary>()) {
      n.op = Op::Binary;
      n.src = op->a.dtype();
      n.sub = static_cast<uint8_t>(op->op);
      n.a = compile(op->a);
      n.b = compile(op->b);
      return add(n);
    }
    if (const auto* op = e.as<Unary>()) {
      n.op = Op::Unary;
      n.src = op->value.dtype();
      n.sub = static_cast<uint8_t>(op->op);
      n.a = compile(op->value);
      return add(n);
    }
    if (const auto* op = e.as<Select>()) {
      n.op = Op::Select;
      n.a = compile(op->cond);
      n.b = compile(op->t);
      n.c = compile(op->f);
      return add(n);
    }
    if (const auto* op = e.as<Load>()) return compile_load(op, n);
    if (const auto* op = e.as<Reduce>()) return compile_reduce(op, n);
    fail(std::string(node_kind_name(e.kind())) + " is not supported by the interpreter");
  }

  int compile_load(const Load* op, CNode n) {
    auto it = ids_.find(op->buffer.get());
    if (it == ids_.end()) fail("stage " + stage_ + " reads unknown buffer " + op->buffer->name);
    if (!storage_[it->second].ready)
      fail("stage " + stage_ + " reads " + op->buffer->name + " before it is computed");
    if (op->indices.size() != op->buffer->shape.size())
      fail("load of " + op->buffer->name + " has the wrong number of indices");
    std::vector<int> idx;
    for (const auto& i : op->indices) idx.push_back(compile(i));
    n.op = Op::Load;
    n.storage = it->second;
    n.first = static_cast<int>(args_.size());
    n.count = static_cast<int>(idx.size());
    args_.insert(args_.end(), idx.begin(), idx.end());
    return add(n);
  }

  int compile_reduce(const Reduce* op, CNode n) {
    std::vector<CAxis> ax;
    for (const auto& a : op->axes) ax.push_back({bind(a.var.get()), a.extent});
    n.op = Op::Reduce;
    n.sub = static_cast<uint8_t>(op->op);
    n.a = compile(op->source);
    // The axes go out of scope; their slots stay reserved so nested nodes keep their indices.
    for (const auto& a : op->axes) slots_.erase(a.var.get());
    n.first = static_cast<int>(axes_.size());
    n.count = static_cast<int>(ax.size());
    axes_.insert(axes_.end(), ax.begin(), ax.end());
    return add(n);
  }

  Value eval(int i) {
    const CNode& n = nodes_[i];
    switch (n.op) {
      case Op::Const: return n.imm;
      case Op::Var: return env_[n.slot];
      case Op::Cast: return eval_cast(n.dtype, n.src, eval(n.a));
      case Op::Binary: return eval_binary(static_cast<BinaryOp>(n.sub), n.src, eval(n.a), eval(n.b));
      case Op::Unary: return eval_unary(static_cast<UnaryOp>(n.sub), n.src, eval(n.a));
      case Op::Select: return eval(n.a).i != 0 ? eval(n.b) : eval(n.c);
      case Op::Load: return eval_load(n);
      case Op::Reduce: return eval_reduce(n);
    }
    return Value();
  }

  Value eval_load(const CNode& n) {
    const Storage& s = storage_[n.storage];
    const auto& shape = s.buffer->shape;
    int64_t offset = 0;
    for (int d = 0; d < n.count; ++d) {
      int64_t v = eval(args_[n.first + d]).i;
      if (v < 0 || v >= shape[d]) out_of_bounds(n, d, v);
      offset = offset * shape[d] + v;
    }
    return load_value(s.buffer->dtype, s.data + offset * s.buffer->dtype.bytes());
  }

  [[noreturn]] void out_of_bounds(const CNode& n, int dim, int64_t v) {
    const BufferNode* b = storage_[n.storage].buffer;
    fail("index out of bounds in stage " + stage_ + ": " + b->name + " index " + std::to_string(v) +
         " in dimension " + std::to_string(dim) + " of shape " + shape_str(b->shape));
  }

  Value eval_reduce(const CNode& n) {
    auto op = static_cast<ReduceOp>(n.sub);
    Value acc = reduce_init(op, n.dtype);
    const CAxis* ax = axes_.data() + n.first;
    int count = n.count;
    for (int d = 0; d < count; ++d) env_[ax[d].slot] = Value::of_int(0);
    while (true) {
      acc = reduce_combine(op, n.dtype, acc, eval(n.a));
      int d = count - 1;  // first axis outermost: the last one moves fastest
      for (; d >= 0; --d) {
        Value& v = env_[ax[d].slot];
        if (++v.i < ax[d].extent) break;
        v.i = 0;
      }
      if (d < 0) return acc;
    }
  }

  std::vector<Storage>& storage_;
  std::unordered_map<const BufferNode*, int>& ids_;
  std::string stage_;
  std::unordered_map<const VarNode*, int> slots_;
  std::vector<Value> env_;
  std::vector<CNode> nodes_;
  std::vector<int> args_;
  std::vector<CAxis> axes_;
  // Row evaluation.
  int lane_slot_ = -1;  // the innermost index variable's slot; -1: point by point
  int lanes_ = 0;
  int64_t lane_base_ = 0;
  std::vector<std::vector<Value>> rows_;  // per node: its lanes (one value when uniform)
};

bool same_signature(const BufferNode& b, const Tensor& t) {
  return t.dtype == b.dtype && t.shape == b.shape;
}

void run(const TensorFunc& f, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
         const InterpretProgress& progress) {
  if (inputs.size() != f.inputs.size())
    fail(f.name + " takes " + std::to_string(f.inputs.size()) + " inputs, got " +
         std::to_string(inputs.size()));
  std::vector<Storage> storage;
  std::unordered_map<const BufferNode*, int> ids;
  auto add = [&](const Buffer& b, uint8_t* data, bool ready) {
    if (ids.count(b.get())) fail("buffer " + b->name + " is defined twice in " + f.name);
    ids[b.get()] = static_cast<int>(storage.size());
    storage.push_back({b.get(), data, ready});
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    const BufferNode& b = *f.inputs[i];
    const Tensor& t = inputs[i];
    if (!same_signature(b, t))
      fail("input " + b.name + " must be " + b.dtype.str() + shape_str(b.shape) + ", got " + t.dtype.str() +
           shape_str(t.shape));
    if (static_cast<int64_t>(t.data.size()) != b.size_bytes())
      fail("input " + b.name + " holds " + std::to_string(t.data.size()) + " bytes, expected " +
           std::to_string(b.size_bytes()));
    // Loads only read; the const_cast keeps one storage type for inputs and results.
    add(f.inputs[i], const_cast<uint8_t*>(t.data.data()), true);
  }
  outputs.clear();
  for (const auto& b : f.outputs) outputs.push_back(Tensor::zeros(b->dtype, b->shape));
  for (size_t i = 0; i < f.outputs.size(); ++i) add(f.outputs[i], outputs[i].data.data(), false);

  // Register every stage's storage first, so reading a later stage is told apart from
  // reading something unknown.
  std::vector<std::vector<uint8_t>> temps;
  temps.reserve(f.stages.size());
  std::vector<int> stage_ids;
  for (const auto& st : f.stages) {
    if (!st.out || !st.body) fail("incomplete stage in " + f.name);
    auto it = ids.find(st.out.get());
    if (!st.is_result) {
      if (it != ids.end()) fail("stage " + st.out->name + " is defined twice in " + f.name);
      temps.emplace_back(static_cast<size_t>(st.out->size_bytes()), 0);
      add(st.out, temps.back().data(), false);
      stage_ids.push_back(ids[st.out.get()]);
      continue;
    }
    if (it != ids.end() && it->second < static_cast<int>(inputs.size()))
      fail("result stage " + st.out->name + " writes to an input of " + f.name);
    if (it == ids.end()) {
      // A result stage may name its output through a buffer of its own.
      for (size_t i = 0; i < f.outputs.size() && it == ids.end(); ++i)
        if (f.outputs[i]->name == st.out->name) it = ids.find(f.outputs[i].get());
      if (it == ids.end()) fail("result stage " + st.out->name + " is not an output of " + f.name);
      const BufferNode* ob = storage[it->second].buffer;
      if (st.out->dtype != ob->dtype || st.out->shape != ob->shape)
        fail("result stage " + st.out->name + " does not match the signature of " + f.name);
      ids[st.out.get()] = it->second;
    }
    stage_ids.push_back(it->second);
  }
  for (size_t k = 0; k < f.stages.size(); ++k) {
    if (progress) progress(f.stages[k].out->name, k + 1, f.stages.size());
    Storage& s = storage[stage_ids[k]];
    if (f.stages[k].out->num_elements() == 0) {  // a stage without elements computes nothing
      s.ready = true;
      continue;
    }
    StageEvaluator ev(storage, ids);
    ev.run(f.stages[k], s.data);
    s.ready = true;
  }
}

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

int64_t Tensor::num_elements() const {
  // An empty tensor first: a .npy file may pair a zero extent with extents whose product
  // alone overflows (its data, 0 bytes, is what the file holds). Otherwise the product is
  // at most the data's size.
  for (int64_t e : shape)
    if (e == 0) return 0;
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return n;
}

Tensor Tensor::zeros(DataType dtype, std::vector<int64_t> shape) {
  Tensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.data.assign(static_cast<size_t>(t.num_elements() * dtype.bytes()), 0);
  return t;
}

bool interpret(const TensorFunc& f, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
               std::string& error, const InterpretProgress& progress) {
  try {
    run(f, inputs, outputs, progress);
    return true;
  } catch (const InterpError& e) {
    error = e.message;
    return false;
  }
}

Tensor random_tensor(DataType dtype, std::vector<int64_t> shape, uint64_t seed) {
  Tensor t = Tensor::zeros(dtype, std::move(shape));
  uint64_t state = seed;
  int bytes = dtype.bytes();
  int64_t n = t.num_elements();
  for (int64_t k = 0; k < n; ++k) {
    uint64_t r = splitmix64(state);
    uint8_t* p = t.data.data() + k * bytes;
    Value v;
    if (dtype.is_float()) {
      // Take just enough bits that -8 + 16 * u is exact in the dtype: nothing rounds to 8.
      int keep = dtype.bits == 16 ? 10 : dtype.bits == 32 ? 24 : 53;
      double u = static_cast<double>(r >> (64 - keep)) / static_cast<double>(uint64_t(1) << keep);
      v = Value::of_float(-8.0 + 16.0 * u);
    } else if (dtype.is_bool()) {
      v = Value::of_int(static_cast<int64_t>(r >> 63));
    } else {
      v = Value::of_int(wrap_to(dtype, static_cast<int64_t>(r)));
    }
    store_value(dtype, v, p);
  }
  return t;
}

}  // namespace dspc
