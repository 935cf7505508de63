#include "compiler/ir/Printer.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include <cmath>
#include <cstdio>

namespace dspc {

namespace {

// Binding strength: the operator table's for infix operators; negative literals print with
// a leading '-' and so bind like unary minus.
int precedence(const Expr& e) {
  if (const auto* b = e.as<Binary>()) {
    int p = binary_op_precedence(b->op);
    return p > 0 ? p : kAtomPrecedence;
  }
  if (const auto* u = e.as<Unary>())
    return u->op == UnaryOp::Abs || u->op == UnaryOp::Clz || u->op == UnaryOp::Popcount ? kAtomPrecedence
                                                                                          : kUnaryPrecedence;
  if (const auto* i = e.as<IntImm>()) return i->value < 0 ? kUnaryPrecedence : kAtomPrecedence;
  if (const auto* f = e.as<FloatImm>()) return std::signbit(f->value) ? kUnaryPrecedence : kAtomPrecedence;
  return kAtomPrecedence;
}

std::string int_literal(const IntImm* op) {
  if (op->dtype.is_bool()) return op->value ? "true" : "false";
  std::string digits = op->dtype.is_uint() ? std::to_string(static_cast<uint64_t>(op->value))
                                            : std::to_string(op->value);
  if (op->dtype == DataType::i32()) return digits;
  return digits + op->dtype.str();
}

std::string float_literal(const FloatImm* op) {
  std::string s;
  if (std::isnan(op->value)) {
    s = "nan";
  } else if (std::isinf(op->value)) {
    s = op->value < 0 ? "-inf" : "inf";
  } else {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", op->value);
    s = buf;
    if (s.find_first_of(".en") == std::string::npos) s += ".0";
  }
  return s + op->dtype.str();
}

std::string buffer_decl(const Buffer& b) { return b->name + ": " + b->dtype.str() + shape_str(b->shape); }

std::string join_exprs(const std::vector<Expr>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + print_expr(v[i]);
  return s;
}

// Shifts and bitwise operators bind loosely in C-like precedence, which few readers remember:
// their binary operands always get parentheses.
bool is_bitwise_level(int p) {
  for (BinaryOp op : {BinaryOp::BitAnd, BinaryOp::BitOr, BinaryOp::BitXor, BinaryOp::Shl, BinaryOp::Shr})
    if (p == binary_op_precedence(op)) return true;
  return false;
}

std::string operand(const Expr& e, int parent, bool right) {
  int p = precedence(e);
  std::string s = print_expr(e);
  bool binary = e.as<Binary>() && p < kAtomPrecedence;
  if (p < parent || (right && p == parent) || (binary && is_bitwise_level(parent) && p != parent))
    return "(" + s + ")";
  return s;
}

class StmtPrinter {
 public:
  std::string out;

  void line(int indent, const std::string& text) {
    out.append(static_cast<size_t>(indent) * 2, ' ');
    out += text;
    out += '\n';
  }

  // Prints the statements of a block; a let or decl_buffer scopes the rest of its block,
  // so one that is not last in a sequence gets a block of its own.
  void block(const Stmt& s, int indent) {
    if (const auto* seq = s.as<Seq>()) {
      for (size_t i = 0; i < seq->stmts.size(); ++i) {
        const Stmt& st = seq->stmts[i];
        bool scoped = st.as<LetStmt>() || st.as<DeclBuffer>();
        if (scoped && i + 1 < seq->stmts.size()) {
          line(indent, "{");
          block(st, indent + 1);
          line(indent, "}");
        } else {
          stmt(st, indent);
        }
      }
      return;
    }
    stmt(s, indent);
  }

  void stmt(const Stmt& s, int indent) {
    if (const auto* op = s.as<LetStmt>()) {
      line(indent, "let " + op->var->name + ": " + op->var->dtype.str() + " = " + print_expr(op->value));
      block(op->body, indent);
    } else if (const auto* op = s.as<DeclBuffer>()) {
      line(indent, "decl_buffer " + buffer_decl(op->buffer) + " scope \"" +
                       storage_scope_name(op->buffer->scope) + "\"");
      block(op->body, indent);
    } else if (const auto* op = s.as<For>()) {
      line(indent, "for " + op->var->name + " in " + for_kind_name(op->for_kind) + "(" +
                       print_expr(op->min) + ", " + print_expr(op->extent) + ") {");
      block(op->body, indent + 1);
      line(indent, "}");
    } else if (const auto* op = s.as<IfThenElse>()) {
      line(indent, "if " + print_expr(op->cond) + " {");
      block(op->then_case, indent + 1);
      if (op->else_case) {
        line(indent, "} else {");
        block(op->else_case, indent + 1);
      }
      line(indent, "}");
    } else if (const auto* op = s.as<Allocate>()) {
      line(indent, "allocate " + buffer_decl(op->buffer) + " scope \"" +
                       storage_scope_name(op->buffer->scope) + "\" {");
      block(op->body, indent + 1);
      line(indent, "}");
    } else if (const auto* op = s.as<Store>()) {
      line(indent, op->buffer->name + "[" + join_exprs(op->indices) + "] = " + print_expr(op->value));
    } else if (const auto* op = s.as<Evaluate>()) {
      line(indent, print_expr(op->value));
    } else if (s.as<Seq>()) {
      line(indent, "{");
      block(s, indent + 1);
      line(indent, "}");
    }
  }
};

std::string signature(const std::string& name, const std::vector<Buffer>& in, const std::vector<Buffer>& out) {
  std::string s = name + "(";
  for (size_t i = 0; i < in.size(); ++i) s += (i ? ", " : "") + buffer_decl(in[i]);
  s += ") -> (";
  for (size_t i = 0; i < out.size(); ++i) s += (i ? ", " : "") + buffer_decl(out[i]);
  return s + ")";
}

}  // namespace

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string print_expr(const Expr& e) {
  if (!e) return "<null>";
  if (const auto* op = e.as<IntImm>()) return int_literal(op);
  if (const auto* op = e.as<FloatImm>()) return float_literal(op);
  if (const auto* op = e.as<Var>()) return op->name;
  if (const auto* op = e.as<Cast>()) return op->dtype.str() + "(" + print_expr(op->value) + ")";
  if (const auto* op = e.as<Binary>()) {
    if (binary_op_precedence(op->op) == 0)
      return std::string(binary_op_symbol(op->op)) + "(" + print_expr(op->a) + ", " + print_expr(op->b) + ")";
    int p = precedence(e);
    return operand(op->a, p, false) + " " + binary_op_symbol(op->op) + " " + operand(op->b, p, true);
  }
  if (const auto* op = e.as<Unary>()) {
    if (op->op == UnaryOp::Abs || op->op == UnaryOp::Clz || op->op == UnaryOp::Popcount)
      return std::string(unary_op_symbol(op->op)) + "(" + print_expr(op->value) + ")";
    return std::string(unary_op_symbol(op->op)) + operand(op->value, kUnaryPrecedence, true);
  }
  if (const auto* op = e.as<Select>())
    return "select(" + print_expr(op->cond) + ", " + print_expr(op->t) + ", " + print_expr(op->f) + ")";
  if (const auto* op = e.as<Load>()) return op->buffer->name + "[" + join_exprs(op->indices) + "]";
  if (const auto* op = e.as<Call>()) {
    if (op->call_kind == CallKind::Func)
      return "call_func(\"" + op->name + "\"" + (op->args.empty() ? "" : ", ") + join_exprs(op->args) + ")";
    if (op->call_kind == CallKind::Extern)
      return "call_extern(\"" + op->name + "\"" + (op->args.empty() ? "" : ", ") + join_exprs(op->args) + ")";
    return op->name + "(" + join_exprs(op->args) + ")";
  }
  if (const auto* op = e.as<Reduce>()) {
    std::string s = std::string(reduce_op_name(op->op)) + "(" + print_expr(op->source);
    for (const auto& a : op->axes) s += ", " + a.var->name + ": " + std::to_string(a.extent);
    return s + ")";
  }
  if (const auto* op = e.as<Ramp>())
    return "ramp(" + print_expr(op->base) + ", " + print_expr(op->stride) + ", " + std::to_string(op->lanes) + ")";
  if (const auto* op = e.as<Broadcast>())
    return "broadcast(" + print_expr(op->value) + ", " + std::to_string(op->lanes) + ")";
  if (const auto* op = e.as<VectorReduce>())
    return std::string("vector_") + reduce_op_name(op->op) + "(" + print_expr(op->value) + ", " +
           std::to_string(op->lanes) + ")";
  return "<?>";
}

std::string print_stmt(const Stmt& s, int indent) {
  StmtPrinter p;
  p.block(s, indent);
  return p.out;
}

std::string print_func(const PrimFunc& f) {
  StmtPrinter p;
  // The context is the final parameter of the C function; it prints after the results.
  std::string ctx = f.ctx ? " context(" + f.ctx->name + ": handle)" : "";
  p.line(0, "prim_func " + signature(f.name, f.inputs, f.outputs) + ctx + " {");
  p.block(f.body, 1);
  p.line(0, "}");
  return p.out;
}

std::string print_packed_func(const PackedFunc& f) {
  StmtPrinter p;
  p.line(0, "packed_func " + f.name + "(" + f.args->name + ": handle, " + f.num_args->name + ": i32, " +
                f.ctx->name + ": handle) wraps " + signature(f.kernel, f.inputs, f.outputs) + " {");
  p.block(f.body, 1);
  p.line(0, "}");
  return p.out;
}

std::string print_graph_plan(const GraphPlan& p) {
  auto names = [&](const std::vector<int>& ts) {
    std::string s;
    for (int t : ts) s += (s.empty() ? "" : ", ") + p.tensor_names[static_cast<size_t>(t)];
    return s;
  };
  std::string s = "// graph " + p.graph + ": " + std::to_string(p.order.size()) + " calls, " +
                  std::to_string(p.steps.size()) + " steps, " + std::to_string(p.device_groups()) + " device groups" +
                  (p.grouped ? "" : " (grouping off)") + "\n";
  for (const GraphStep& st : p.steps) {
    s += st.side == Placement::Device ? "//   device " + st.func + "(" + names(st.inputs) + ") -> (" + names(st.outputs) + "):"
                                      : std::string("//   host:");
    for (size_t i = 0; i < st.nodes.size(); ++i)
      s += std::string(i ? ";" : "") + " " + p.node_text[static_cast<size_t>(st.nodes[i])];
    s += "\n";
  }
  return s;
}

std::string print_module(const Module& m) {
  std::string s;
  for (size_t i = 0; i < m.funcs.size(); ++i) s += (i ? "\n" : "") + print_func(m.funcs[i]);
  for (const PackedFunc& f : m.packed) s += (s.empty() ? "" : "\n") + print_packed_func(f);
  for (const ModuleConstant& c : m.constants) s += (s.empty() ? "" : "\n") + print_constant(c);
  return s;
}

std::string format_constant_values(DataType t, const std::vector<uint8_t>& bytes) {
  std::string s = "[";
  size_t n = static_cast<size_t>(t.bytes());
  char buf[40];
  for (size_t i = 0; i + n <= bytes.size(); i += n) {
    if (i) s += ", ";
    uint64_t bits = 0;
    for (size_t k = 0; k < n; ++k) bits |= uint64_t(bytes[i + k]) << (8 * k);
    if (t.is_float()) {
      double v;
      if (t.bits == 32) {
        float f;
        uint32_t b32 = static_cast<uint32_t>(bits);
        std::memcpy(&f, &b32, 4);
        v = f;
      } else {
        std::memcpy(&v, &bits, 8);
      }
      if (std::isnan(v)) s += "nan";
      else if (std::isinf(v)) s += v < 0 ? "-inf" : "inf";
      else {
        std::snprintf(buf, sizeof buf, t.bits == 32 ? "%.9g" : "%.17g", v);
        s += buf;
      }
    } else if (t.is_int()) {
      s += std::to_string(wrap_to(t, static_cast<int64_t>(bits)));
    } else {
      s += std::to_string(bits);  // unsigned and bool
    }
  }
  return s + "]";
}

std::string print_constant(const ModuleConstant& c) {
  return "constant " + c.name + ": " + c.dtype.str() + shape_str(c.shape) + " = " +
         format_constant_values(c.dtype, *c.data) + "\n";
}

}  // namespace dspc
