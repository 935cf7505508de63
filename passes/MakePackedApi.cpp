// make-packed-api
//  1. For each function without a packed entry, take its declared signature (by name from
//     `declared`, else its own): parameters are inputs then outputs, as the kernel takes them.
//  2. Check the count: num_args != N (or a null args array when N > 0) reports index -1.
//  3. Per argument i: bind `let P_data: handle = arg_data(args, i)`, then one `if` for the
//     fields of the descriptor (null, alignment, type_code, bits, ndim, null shape) and one for
//     the extents, which are read only once ndim and the shape pointer are known to be good.
//     Each failing `if` returns dspc_report_bad_arg(func_desc(), args, num_args, i, ALIGN).
//  4. Return call_kernel(P_data..., ctx): the entry passes its context on to the kernel.
#include "passes/MakePackedApi.h"

#include <algorithm>
#include <utility>

#include "compiler/ir/Externs.h"

namespace dspc {

namespace {

Expr intrinsic(const char* name, std::vector<Expr> args) {
  return Call::make(CallKind::Intrinsic, name, std::move(args));
}

Expr any_of(const std::vector<Expr>& conds) {
  Expr e = conds[0];
  for (size_t i = 1; i < conds.size(); ++i) e = Binary::make(BinaryOp::Or, e, conds[i]);
  return e;
}

Expr ne(Expr a, Expr b) { return Binary::make(BinaryOp::NE, std::move(a), std::move(b)); }

int32_t type_code(DataType t) {
  std::optional<int> code = runtime_type_code(t);
  DSPC_CHECK(code.has_value(), "a handle cannot be a kernel parameter");
  return *code;
}

class EntryBuilder {
 public:
  EntryBuilder(const PrimFunc& declared, int64_t align) : f_(declared), align_(align) {
    p_.name = "__dspc_call_" + declared.name;
    p_.kernel = declared.name;
    p_.inputs = declared.inputs;
    p_.outputs = declared.outputs;
    p_.args = VarNode::make("args", DataType::handle());
    p_.num_args = VarNode::make("num_args", DataType::i32());
    std::vector<std::string> names = {"args", "num_args"};
    for (const auto* list : {&declared.inputs, &declared.outputs})
      for (const Buffer& b : *list) names.push_back(b->name + "_data");
    p_.ctx = VarNode::make(context_param_name(names), DataType::handle());
    p_.span = declared.span;
  }

  PackedFunc build() {
    std::vector<Buffer> params = f_.inputs;
    params.insert(params.end(), f_.outputs.begin(), f_.outputs.end());
    int32_t n = static_cast<int32_t>(params.size());
    std::vector<Expr> count_bad = {ne(var_expr(p_.num_args), make_i32(n))};
    if (n > 0) count_bad.push_back(intrinsic(kIsNullptr, {args()}));
    std::vector<Stmt> stmts = {fail_if(any_of(count_bad), -1)};
    std::vector<std::pair<VarRef, std::vector<Stmt>>> lets;  // each let scopes what follows it
    std::vector<Expr> data;
    for (int32_t i = 0; i < n; ++i) {
      const Buffer& b = params[i];
      VarRef ptr = VarNode::make(b->name + "_data", DataType::handle());
      data.push_back(var_expr(ptr));
      std::vector<Stmt> checks = {fail_if(descriptor_bad(b, i, var_expr(ptr)), i)};
      if (!b->shape.empty()) checks.push_back(fail_if(extents_bad(b, i), i));
      lets.push_back({ptr, std::move(checks)});
    }
    data.push_back(var_expr(p_.ctx));  // the caller's context, the kernel's final argument
    Stmt tail = ret(intrinsic(kCallKernel, data));
    for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
      std::vector<Stmt> body = it->second;
      body.push_back(tail);
      int32_t i = static_cast<int32_t>(lets.rend() - it) - 1;
      tail = LetStmt::make(it->first, intrinsic(kArgData, {args(), make_i32(i)}), Seq::make(body));
    }
    stmts.push_back(tail);
    p_.body = Seq::make(stmts);
    return p_;
  }

 private:
  Expr args() const { return var_expr(p_.args); }

  Stmt ret(Expr value) const { return Evaluate::make(intrinsic(kReturn, {std::move(value)})); }

  Stmt fail_if(Expr cond, int32_t index) const {
    Expr report = Call::make(CallKind::Extern, kReportBadArg,
                             {intrinsic(kFuncDesc, {}), args(), var_expr(p_.num_args), make_i32(index),
                              make_i32(align_), var_expr(p_.ctx)});
    return IfThenElse::make(std::move(cond), ret(report));
  }

  Expr field(const char* name, int32_t i) const { return intrinsic(name, {args(), make_i32(i)}); }

  Expr descriptor_bad(const Buffer& b, int32_t i, Expr ptr) const {
    int32_t bits = b->dtype.is_bool() ? 8 : b->dtype.bits;
    std::vector<Expr> c = {intrinsic(kIsNullptr, {ptr}),
                           Unary::make(UnaryOp::Not, intrinsic(kIsAligned, {ptr, make_i32(align_)})),
                           ne(field(kArgTypeCode, i), make_i32(type_code(b->dtype))),
                           ne(field(kArgBits, i), make_i32(bits)),
                           ne(field(kArgNdim, i), make_i32(static_cast<int64_t>(b->shape.size())))};
    if (!b->shape.empty()) c.push_back(intrinsic(kIsNullptr, {field(kArgShape, i)}));
    return any_of(c);
  }

  Expr extents_bad(const Buffer& b, int32_t i) const {
    std::vector<Expr> c;
    for (size_t d = 0; d < b->shape.size(); ++d)
      c.push_back(ne(intrinsic(kArgExtent, {args(), make_i32(i), make_i32(static_cast<int64_t>(d))}),
                     make_const(DataType::i64(), b->shape[d])));
    return any_of(c);
  }

  const PrimFunc& f_;
  int64_t align_;
  PackedFunc p_;
};

}  // namespace

Module make_packed_api(const Module& m, const Module& declared, const LowerOptions& options) {
  Module out = m;
  for (const PrimFunc& f : m.funcs) {
    bool has_entry = std::any_of(m.packed.begin(), m.packed.end(), [&](const PackedFunc& p) { return p.kernel == f.name; });
    if (has_entry) continue;
    const PrimFunc* sig = &f;
    for (const PrimFunc& d : declared.funcs)
      if (d.name == f.name) sig = &d;
    out.packed.push_back(EntryBuilder(*sig, options.target.alloc_alignment).build());
  }
  return out;
}

}  // namespace dspc
