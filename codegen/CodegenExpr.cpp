// TIR expressions -> LLVM IR values, with dspc's exact arithmetic semantics.
//
// 1. integers wrap (no nsw/nuw); signed / and % are floor division/modulo: sdiv/srem, then a
//    fix-up when the remainder and divisor differ in sign;
// 2. nothing is undefined: a divisor of 0 or -1 is replaced by 1 before the division and the
//    result chosen by select (x/0 == 0, x%0 == 0, x/-1 == -x, x%-1 == 0); a non-zero constant
//    divisor is divided by directly so LLVM can strength-reduce;
// 3. shift amounts outside [0, bits) give 0 or the sign fill, never a poison shift;
// 4. float -> int casts saturate (llvm.fptosi.sat / fptoui.sat), int -> int casts extend by the
//    source's signedness, bools are i1 in registers and i8 in memory;
// 5. loads and stores get the largest alignment the index provably gives (up to 128 bytes).
#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/Support/MathExtras.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <optional>

#include "codegen/CodegenLLVM.h"
#include "codegen/HvxIdioms.h"
#include "compiler/arith/IndexBounds.h"
#include "compiler/arith/LaneOffsets.h"
#include "compiler/ir/Externs.h"
#include "compiler/ir/IRVisitor.h"
#include "compiler/ir/Printer.h"

namespace dspc::codegen {

namespace {

constexpr int64_t kMaxMultiple = int64_t(1) << 20;

int64_t low_power_of_two(int64_t v) {
  if (v == 0) return kMaxMultiple;
  uint64_t u = static_cast<uint64_t>(v);
  return static_cast<int64_t>(std::min<uint64_t>(u & (~u + 1), kMaxMultiple));
}

}  // namespace

// The integer a constant (or a broadcast constant) holds.
std::optional<int64_t> const_int(const Expr& e) {
  if (const auto* i = e.as<IntImm>()) return i->value;
  if (const auto* b = e.as<Broadcast>()) return const_int(b->value);
  return std::nullopt;
}

// `e` as rest + c with c the sum of its outermost integer constants (rest null when e is one).
std::pair<Expr, int64_t> split_constant(const Expr& e) {
  if (std::optional<int64_t> c = const_int(e)) return {Expr(), *c};
  const auto* op = e.as<Binary>();
  if (op && op->op == BinaryOp::Mul && e.dtype().is_int()) {
    // (r + c) * k = r * k + c * k (exact in wrapping arithmetic too).
    for (auto [x, y] : {std::pair{op->a, op->b}, std::pair{op->b, op->a}})
      if (std::optional<int64_t> k = const_int(y)) {
        auto [rx, cx] = split_constant(x);
        if (!cx) break;
        return {rx ? Binary::make(BinaryOp::Mul, rx, y) : Expr(), cx * *k};
      }
    return {e, 0};
  }
  if (!op || (op->op != BinaryOp::Add && op->op != BinaryOp::Sub)) return {e, 0};
  auto [ra, ca] = split_constant(op->a);
  auto [rb, cb] = split_constant(op->b);
  if (op->op == BinaryOp::Sub) {
    if (rb) return {e, 0};
    return {ra, ca - cb};
  }
  if (!ra) return {rb, ca + cb};
  if (!rb) return {ra, ca + cb};
  return {Binary::make(BinaryOp::Add, ra, rb), ca + cb};
}

llvm::Value* FunctionCodegen::constant(llvm::Type* type, int64_t v) {
  unsigned bits = type->getScalarSizeInBits();
  return llvm::ConstantInt::get(
      type, llvm::APInt(bits, static_cast<uint64_t>(v) & (bits >= 64 ? ~0ull : (1ull << bits) - 1)));
}

namespace {

// A vector shift by a broadcast scalar amount that may be outside [0, bits), as the same shift
// with its guard decided once on the scalar: x >> s (signed) is x >> min(unsigned s, bits - 1),
// and x << s or x >> s (unsigned) is 0 when s, read as unsigned, is at least bits, and else
// x shifted by s & (bits - 1). The shift is then by an in-range scalar (one instruction by a
// register on HVX, from the idiom table), not a per-lane comparison and select. Null when `e`
// is not such a shift.
Expr scalar_guarded_shift(const Expr& e) {
  const auto* op = e.as<Binary>();
  if (!op || (op->op != BinaryOp::Shl && op->op != BinaryOp::Shr)) return Expr();
  DataType t = op->dtype;
  const auto* amount = op->b.as<Broadcast>();
  if (t.lanes < 2 || !t.is_integer() || !amount || const_int(op->b)) return Expr();
  const Expr& s = amount->value;
  DataType st = s.dtype();
  int64_t bits = t.bits;
  Interval r = IndexBounds().of(s);
  if (r.lo >= 0 && r.hi < bits) return Expr();
  DataType ut{TypeCode::UInt, st.bits, 1};
  Expr as_unsigned = Cast::make(ut, s);
  if (op->op == BinaryOp::Shr && t.is_int()) {
    Expr capped = Cast::make(st, Binary::make(BinaryOp::Min, as_unsigned, make_const(ut, bits - 1)));
    return Binary::make(BinaryOp::Shr, op->a, Broadcast::make(capped, t.lanes));
  }
  Expr out = Binary::make(BinaryOp::GE, as_unsigned, make_const(ut, bits));
  Expr masked = Binary::make(BinaryOp::BitAnd, s, make_const(st, bits - 1));
  return Select::make(Broadcast::make(out, t.lanes), Broadcast::make(make_const(st, 0), t.lanes),
                      Binary::make(op->op, op->a, Broadcast::make(masked, t.lanes)));
}

}  // namespace

llvm::Value* FunctionCodegen::eval(const Expr& e) {
  if (Expr guarded = scalar_guarded_shift(e)) return eval(guarded);
  if (Expr sum = hvx_constant_products(e, target_)) return eval(sum);
  if (std::optional<HvxMatch> m = match_hvx_idiom(e, target_)) {
    std::vector<llvm::Value*> values;
    for (const Expr& x : m->operands) values.push_back(eval(x));
    return emit_hvx_idiom(b_, *m, values, e.dtype(), target_);
  }
  switch (e.kind()) {
    case NodeKind::IntImm: return constant(value_type(ctx_, e.dtype()), e.as<IntImm>()->value);
    case NodeKind::FloatImm:
      return llvm::ConstantFP::get(value_type(ctx_, e.dtype()), e.as<FloatImm>()->value);
    case NodeKind::Var: {
      auto it = vars_.find(e.as<VarNode>());
      if (it == vars_.end())
        throw CodegenError("variable " + e.as<VarNode>()->name + " is used out of scope");
      return it->second;
    }
    case NodeKind::Cast: return eval_cast(e.as<Cast>());
    case NodeKind::Binary: return eval_binary(e.as<Binary>());
    case NodeKind::Unary: return eval_unary(e.as<Unary>());
    case NodeKind::Select: {
      const auto* op = e.as<Select>();
      // A broadcast condition selects whole vectors: decided once, on the scalar.
      const auto* whole = op->cond.as<Broadcast>();
      llvm::Value* c = whole ? nullptr : constant_lanes(op->cond);
      if (!c) c = eval(whole ? whole->value : op->cond);
      if (auto* k = llvm::dyn_cast<llvm::Constant>(c); k && c->getType()->isVectorTy())
        if (llvm::Value* v = interleaved_loads(k, op)) return v;
      if (auto* k = llvm::dyn_cast<llvm::Constant>(c); k && c->getType()->isVectorTy())
        if (llvm::Value* v = alternating_select(k, op)) return v;
      // A load chosen by constant lanes keeps its window's single-source shuffle (no
      // doubled_half_load), which interleave_select below merges with the other side's into
      // one two-source shuffle (zip_i16's select(x % 2 == 0, A[x / 2], B[x / 2]): one vshuff).
      bool lanes_known = llvm::isa<llvm::Constant>(c) && c->getType()->isVectorTy();
      auto side = [&](const Expr& v) {
        bool keep = keep_window_shuffle_;
        keep_window_shuffle_ = keep || (lanes_known && v.as<Load>());
        llvm::Value* r = eval(v);
        keep_window_shuffle_ = keep;
        return r;
      };
      llvm::Value* t = side(op->t);
      llvm::Value* f = side(op->f);
      if (auto* k = llvm::dyn_cast<llvm::Constant>(c); k && c->getType()->isVectorTy() && !interleave_select(k, t, f))
        if (llvm::Value* v = hooks_->constant_select(b_, k, t, f)) return v;
      return b_.CreateSelect(c, t, f);
    }
    case NodeKind::Load: return eval_load(e.as<Load>());
    case NodeKind::Call: return eval_call(e.as<Call>());
    case NodeKind::Ramp: return eval_ramp(e.as<Ramp>());
    case NodeKind::VectorReduce: return eval_vector_reduce(e.as<VectorReduce>());
    case NodeKind::Broadcast: {
      const auto* op = e.as<Broadcast>();
      llvm::Value* v = eval(op->value);
      if (llvm::Value* r = hooks_->broadcast(b_, static_cast<unsigned>(op->lanes), v)) return r;
      return b_.CreateVectorSplat(op->lanes, v);
    }
    default: throw CodegenError(std::string("unexpected expression ") + node_kind_name(e.kind()));
  }
}

llvm::Value* FunctionCodegen::eval_binary(const Binary* op) {
  DataType t = op->a.dtype();
  llvm::Value* a = eval(op->a);
  llvm::Value* b = eval(op->b);
  if (is_comparison(op->op)) return eval_compare(op->op, t, a, b);
  bool f = t.is_float();
  switch (op->op) {
    case BinaryOp::Add: return f ? b_.CreateFAdd(a, b) : b_.CreateAdd(a, b);
    case BinaryOp::Sub: return f ? b_.CreateFSub(a, b) : b_.CreateSub(a, b);
    case BinaryOp::Mul: return f ? b_.CreateFMul(a, b) : b_.CreateMul(a, b);
    case BinaryOp::Div:
    case BinaryOp::Mod: return eval_div_mod(op, a, b);
    // a < b ? a : b and a > b ? a : b, floats included (ordered: a NaN b gives b).
    case BinaryOp::Min: return b_.CreateSelect(eval_compare(BinaryOp::LT, t, a, b), a, b);
    case BinaryOp::Max: return b_.CreateSelect(eval_compare(BinaryOp::GT, t, a, b), a, b);
    case BinaryOp::BitAnd:
    case BinaryOp::And: return b_.CreateAnd(a, b);
    case BinaryOp::BitOr:
    case BinaryOp::Or: return b_.CreateOr(a, b);
    case BinaryOp::BitXor: return b_.CreateXor(a, b);
    case BinaryOp::Shl:
    case BinaryOp::Shr: return eval_shift(op, a, b);
    default: throw CodegenError(std::string("unexpected binary operator ") + binary_op_symbol(op->op));
  }
}

llvm::Value* FunctionCodegen::eval_compare(BinaryOp op, DataType t, llvm::Value* a, llvm::Value* b) {
  using P = llvm::CmpInst::Predicate;
  if (t.is_float()) {
    // Ordered, so NaN compares false, except != which is true for NaN.
    P p = op == BinaryOp::EQ   ? P::FCMP_OEQ
          : op == BinaryOp::NE ? P::FCMP_UNE
          : op == BinaryOp::LT ? P::FCMP_OLT
          : op == BinaryOp::LE ? P::FCMP_OLE
          : op == BinaryOp::GT ? P::FCMP_OGT
                               : P::FCMP_OGE;
    if (llvm::Value* c = hooks_->ordered_compare(b_, p, a, b)) return c;
    return b_.CreateFCmp(p, a, b);
  }
  bool s = t.is_int();
  P p = op == BinaryOp::EQ   ? P::ICMP_EQ
        : op == BinaryOp::NE ? P::ICMP_NE
        : op == BinaryOp::LT ? (s ? P::ICMP_SLT : P::ICMP_ULT)
        : op == BinaryOp::LE ? (s ? P::ICMP_SLE : P::ICMP_ULE)
        : op == BinaryOp::GT ? (s ? P::ICMP_SGT : P::ICMP_UGT)
                             : (s ? P::ICMP_SGE : P::ICMP_UGE);
  return b_.CreateICmp(p, a, b);
}

llvm::Value* FunctionCodegen::eval_div_mod(const Binary* op, llvm::Value* a, llvm::Value* b) {
  DataType t = op->a.dtype();
  bool is_div = op->op == BinaryOp::Div;
  llvm::Type* ty = a->getType();
  llvm::Value* zero = constant(ty, 0);
  llvm::Value* one = constant(ty, 1);
  if (t.is_float()) {
    if (is_div) return b_.CreateFDiv(a, b);
    llvm::Value* q = b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b_.CreateFDiv(a, b));
    return b_.CreateFSub(a, b_.CreateFMul(b, q));
  }
  std::optional<int64_t> c = const_int(op->b);
  if (t.is_uint()) {
    if (c && *c != 0) return is_div ? b_.CreateUDiv(a, b) : b_.CreateURem(a, b);
    llvm::Value* is_zero = b_.CreateICmpEQ(b, zero);
    llvm::Value* safe = b_.CreateSelect(is_zero, one, b);
    llvm::Value* r = is_div ? b_.CreateUDiv(a, safe) : b_.CreateURem(a, safe);
    return b_.CreateSelect(is_zero, zero, r);
  }
  if (c && *c == -1) return is_div ? b_.CreateSub(zero, a) : zero;
  if (c && *c > 0 && llvm::isPowerOf2_64(uint64_t(*c))) {
    // Floor division by 2^k is an arithmetic shift; floor modulo is a mask.
    int64_t k = llvm::Log2_64(uint64_t(*c));
    return is_div ? b_.CreateAShr(a, constant(ty, k)) : b_.CreateAnd(a, constant(ty, *c - 1));
  }
  llvm::Value* is_zero = nullptr;
  llvm::Value* is_m1 = nullptr;
  llvm::Value* safe = b;
  if (!c || *c == 0) {
    is_zero = b_.CreateICmpEQ(b, zero);
    is_m1 = b_.CreateICmpEQ(b, constant(ty, -1));
    safe = b_.CreateSelect(b_.CreateOr(is_zero, is_m1), one, b);
  }
  llvm::Value* q = b_.CreateSDiv(a, safe);
  llvm::Value* r = b_.CreateSRem(a, safe);
  // Truncating division rounds toward zero; step down when r and the divisor differ in sign.
  llvm::Value* signs_differ = b_.CreateICmpSLT(b_.CreateXor(r, safe), zero);
  llvm::Value* fix = b_.CreateAnd(b_.CreateICmpNE(r, zero), signs_differ);
  llvm::Value* res =
      is_div ? b_.CreateSub(q, b_.CreateZExt(fix, ty)) : b_.CreateSelect(fix, b_.CreateAdd(r, safe), r);
  if (!is_zero) return res;
  if (!is_div) return b_.CreateSelect(b_.CreateOr(is_zero, is_m1), zero, res);
  return b_.CreateSelect(is_zero, zero, b_.CreateSelect(is_m1, b_.CreateSub(zero, a), res));
}

llvm::Value* FunctionCodegen::eval_shift(const Binary* op, llvm::Value* a, llvm::Value* b) {
  DataType t = op->a.dtype();
  llvm::Type* ty = a->getType();
  int64_t bits = t.bits;
  bool left = op->op == BinaryOp::Shl;
  bool arith = !left && t.is_int();
  llvm::Value* zero = constant(ty, 0);
  // One shift by an in-range amount. LLVM 19's Hexagon backend cannot select a <2 x i16> shift
  // by a splat ("Cannot select: i16 = truncate", found by tools/difftest.py), so that type
  // shifts in 32-bit lanes: exact for amounts below 16.
  auto shift = [&](llvm::Value* x, llvm::Value* n) {
    auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(x->getType());
    if (target_.arch == Arch::hexagon && vt && vt->getNumElements() == 2 && vt->getScalarSizeInBits() == 16) {
      auto* wide = llvm::FixedVectorType::get(b_.getInt32Ty(), 2);
      llvm::Value* wx = arith ? b_.CreateSExt(x, wide) : b_.CreateZExt(x, wide);
      llvm::Value* wn = b_.CreateZExt(n, wide);
      llvm::Value* r = left ? b_.CreateShl(wx, wn) : arith ? b_.CreateAShr(wx, wn) : b_.CreateLShr(wx, wn);
      return b_.CreateTrunc(r, vt);
    }
    return left ? b_.CreateShl(x, n) : arith ? b_.CreateAShr(x, n) : b_.CreateLShr(x, n);
  };
  if (std::optional<int64_t> c = const_int(op->b)) {
    bool in_range =
        t.is_int() ? (*c >= 0 && *c < bits) : static_cast<uint64_t>(*c) < static_cast<uint64_t>(bits);
    if (in_range) return shift(a, b);
    return arith ? shift(a, constant(ty, bits - 1)) : zero;
  }
  // An amount proved inside [0, bits) (`y % 16`, `n & 7`, a narrow unsigned value) needs no
  // guard. IndexBounds with no variable known reads each variable as its dtype's whole range.
  Interval amount = IndexBounds().of(op->b);
  if (amount.lo >= 0 && amount.hi < bits) return shift(a, b);
  // Read as unsigned, a negative signed amount is >= bits too.
  llvm::Value* out = b_.CreateICmpUGE(b, constant(ty, bits));
  if (arith) return shift(a, b_.CreateSelect(out, constant(ty, bits - 1), b));
  // The amount is masked, not selected: InstCombine folds select(out, 0, shift(a, select(out,
  // 0, b))) into select(out, 0, shift(a, b)), and LLVM 19's Hexagon backend then computes wrong
  // in-range lanes of a <4 x i8> or <8 x i8> shift whose other lanes shift by 8 or more (found
  // by tools/difftest.py). Bits is a power of two, so the mask keeps in-range amounts as they are.
  llvm::Value* safe = b_.CreateAnd(b, constant(ty, bits - 1));
  return b_.CreateSelect(out, zero, shift(a, safe));
}

llvm::Value* FunctionCodegen::eval_unary(const Unary* op) {
  DataType t = op->value.dtype();
  llvm::Value* v = eval(op->value);
  switch (op->op) {
    case UnaryOp::Neg: return t.is_float() ? b_.CreateFNeg(v) : b_.CreateNeg(v);
    case UnaryOp::Not:
    case UnaryOp::BitNot: return b_.CreateNot(v);
    case UnaryOp::Abs: {
      if (t.is_uint()) return v;
      // fabs, as compiler/interp/Semantics.cpp: abs(-0.0) is +0.0 and a NaN loses its sign.
      if (t.is_float()) return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v);
      // llvm.abs with INT_MIN not poison: abs(INT_MIN) wraps to INT_MIN, dspc's semantics. LLVM
      // selects it as one instruction where the target has one (HVX: vabs(Vu.w), vabs(Vu.h));
      // a select of the negation is not recognized once LLVM has folded the negation into the
      // operand's own arithmetic (abs((x << 8) - c) became a vcmp, a vsub and a vmux).
      return b_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, v, b_.getFalse());
    }
    // clz(0) is the width (not poison), as compiler/arith/Semantics.cpp.
    case UnaryOp::Clz: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, v, b_.getFalse());
    case UnaryOp::Popcount: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, v);
  }
  throw CodegenError("unexpected unary operator");
}

llvm::Value* FunctionCodegen::eval_cast(const Cast* op) {
  DataType from = op->value.dtype();
  DataType to = op->dtype;
  llvm::Value* v = eval(op->value);
  if (from == to) return v;
  llvm::Type* ty = value_type(ctx_, to);
  if (to.is_bool()) {
    if (from.is_float()) return b_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0));
    return b_.CreateICmpNE(v, constant(v->getType(), 0));
  }
  if (from.is_bool()) return to.is_float() ? b_.CreateUIToFP(v, ty) : b_.CreateZExt(v, ty);
  if (from.is_integer() && to.is_integer()) return b_.CreateIntCast(v, ty, from.is_int());
  if (from.is_integer()) return from.is_int() ? b_.CreateSIToFP(v, ty) : b_.CreateUIToFP(v, ty);
  if (to.is_integer()) {
    auto id = to.is_int() ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
    return b_.CreateIntrinsic(id, {ty, v->getType()}, {v});
  }
  return to.bits < from.bits ? b_.CreateFPTrunc(v, ty) : b_.CreateFPExt(v, ty);
}

llvm::Value* FunctionCodegen::eval_ramp(const Ramp* op) {
  llvm::Value* base = eval(op->base);
  llvm::Value* stride = eval(op->stride);
  std::vector<llvm::Constant*> steps;
  for (int i = 0; i < op->lanes; ++i)
    steps.push_back(llvm::cast<llvm::Constant>(constant(base->getType(), i)));
  llvm::Value* offsets =
      b_.CreateMul(b_.CreateVectorSplat(op->lanes, stride), llvm::ConstantVector::get(steps));
  return b_.CreateAdd(b_.CreateVectorSplat(op->lanes, base), offsets);
}

// The HVX rows for partial reductions (vrmpy by 1s, ...) are tried first (match_hvx_idiom).
// Otherwise the lanes fold in halves (a lane with the one half a vector away: whole registers
// while the vector spans several), which VectorReduce's grouping allows, down to the partial
// results; a reduction to one lane then folds one register by rotations (vror on HVX), log2 of
// its lanes steps, and takes lane 0.
llvm::Value* FunctionCodegen::eval_vector_reduce(const VectorReduce* op) {
  llvm::Value* v = eval(op->value);
  DataType t = op->value.dtype();
  auto combine = [&](llvm::Value* x, llvm::Value* y) -> llvm::Value* {
    switch (op->op) {
      case ReduceOp::Sum: return b_.CreateAdd(x, y);
      case ReduceOp::Min: return b_.CreateSelect(eval_compare(BinaryOp::LT, t, x, y), x, y);
      case ReduceOp::Max: return b_.CreateSelect(eval_compare(BinaryOp::GT, t, x, y), x, y);
    }
    return x;
  };
  auto slice = [&](llvm::Value* x, unsigned from, unsigned n) {
    return b_.CreateShuffleVector(x, llvm::createSequentialMask(from, n, 0));
  };
  unsigned n = static_cast<unsigned>(t.lanes);
  unsigned register_lanes = static_cast<unsigned>(std::max<int64_t>(1, target_.vector_bytes * 8 / t.bits));
  unsigned target = static_cast<unsigned>(op->lanes);
  if (target == 1) target = n % register_lanes == 0 ? register_lanes : n & (~n + 1);  // a power of two
  while (n > target && (n / target) % 2 == 0) {
    v = combine(slice(v, 0, n / 2), slice(v, n / 2, n / 2));
    n /= 2;
  }
  if (n > target) {  // an odd number of pieces
    llvm::Value* sum = slice(v, 0, target);
    for (unsigned at = target; at < n; at += target) sum = combine(sum, slice(v, at, target));
    v = sum;
    n = target;
  }
  if (op->lanes > 1) return v;
  for (unsigned step = n / 2; step >= 1; step /= 2) {
    llvm::Value* r = hooks_->rotate_down(b_, v, step);
    if (!r) {
      std::vector<int> mask;
      for (unsigned i = 0; i < n; ++i) mask.push_back(static_cast<int>((i + step) % n));
      r = b_.CreateShuffleVector(v, mask);
    }
    v = combine(v, r);
  }
  return b_.CreateExtractElement(v, b_.getInt32(0));
}

llvm::Value* FunctionCodegen::eval_call(const Call* op) {
  if (op->call_kind == CallKind::Intrinsic) {
    if (llvm::Value* v = eval_packed_intrinsic(op)) return v;
    if (op->name == kIsNullptr)
      return b_.CreateICmpEQ(eval(op->args[0]),
                             llvm::ConstantPointerNull::get(llvm::PointerType::get(ctx_, 0)));
    if (op->name == kPrefetch) {
      llvm::Value* offset = b_.CreateSExt(eval(op->args[1]), index_type_);
      llvm::Value* at = b_.CreateInBoundsGEP(b_.getInt8Ty(), eval(op->args[0]), offset);
      std::vector<llvm::Value*> box;
      for (size_t k = 2; k < 5; ++k) box.push_back(eval(op->args[k]));
      if (!hooks_->prefetch_box(b_, at, box[0], box[1], box[2])) {
        // No box prefetch on this target: a hint for the first line.
        b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {at->getType()},
                           {at, b_.getInt32(0), b_.getInt32(3), b_.getInt32(1)});
      }
      return b_.getInt32(0);
    }
    if (op->name == kMemoryBarrier) {
      hooks_->memory_barrier(b_);
      return b_.getInt32(0);
    }
    if (op->name == kConstantData) {
      const IntImm* k = as_int(op->args[0]);
      llvm::GlobalVariable* g = k ? module_.getNamedGlobal(constant_symbol(static_cast<size_t>(k->value))) : nullptr;
      if (!g) throw CodegenError("constant_data(" + print_expr(op->args[0]) + ") names no constant of the module");
      return g;
    }
    if (op->name == kHandleAdd) {
      llvm::Value* offset = b_.CreateSExt(eval(op->args[1]), index_type_);
      return b_.CreateInBoundsGEP(b_.getInt8Ty(), eval(op->args[0]), offset);
    }
    if (op->name == kThrowLastError) {
      // The message is already recorded by the runtime; the caller reads it after we fail.
      b_.CreateRet(b_.getInt32(-1));
      b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "after.throw", fn_));
      return b_.getInt32(-1);
    }
    throw CodegenError("unknown intrinsic '" + op->name + "'");
  }
  if (op->call_kind == CallKind::Func) {
    llvm::Function* callee = module_.getFunction(op->name);
    if (!callee || callee->arg_size() != op->args.size())
      throw CodegenError("call_func(\"" + op->name + "\") passes " + std::to_string(op->args.size()) +
                         " arguments to a function that takes " + std::to_string(callee ? callee->arg_size() : 0) +
                         " (its buffers, then the context)");
    std::vector<llvm::Value*> args;
    for (const Expr& a : op->args) args.push_back(eval(a));
    // Not inlined: each kernel stays one symbol, so profiles see it.
    llvm::CallInst* call = b_.CreateCall(callee, args);
    call->addFnAttr(llvm::Attribute::NoInline);
    return call;
  }
  const ExternFunction* ext = find_extern(op->name);
  if (!ext) throw CodegenError("unknown extern function '" + op->name + "'");
  const CalleeSignature& sig = ext->signature;
  std::vector<llvm::Type*> params;
  for (DataType p : sig.params) params.push_back(value_type(ctx_, p));
  auto* fty = llvm::FunctionType::get(value_type(ctx_, sig.ret), params, false);
  llvm::FunctionCallee callee = module_.getOrInsertFunction(op->name, fty);
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->addFnAttr(llvm::Attribute::NoUnwind);
    // Fresh memory from the pool: it aliases nothing the kernel already holds.
    if (ext->role == ExternRole::Allocate) f->addRetAttr(llvm::Attribute::NoAlias);
  }
  std::vector<llvm::Value*> args;
  for (const Expr& a : op->args) args.push_back(eval(a));
  return b_.CreateCall(callee, args);
}

// A dense vector load at rest + c whose `rest` is a multiple of the register width, with c not
// one: one aligned load per register-wide piece of the span and a constant shuffle per piece,
// so that neighbouring taps (x - 1, x, x + 1) share their aligned loads and the backend
// selects valign with an immediate shift. Null when the load is not of that form. Only the
// aligned blocks holding the first and last byte of each piece are read, so nothing outside
// the blocks of the loaded elements is touched.
llvm::Value* FunctionCodegen::realigned_load(const Load* op, llvm::Type* mty) {
  int64_t width = target_.vector_bytes;
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(mty);
  const auto* ramp = op->indices.size() == 1 ? op->indices[0].as<Ramp>() : nullptr;
  if (!width || !vt || !ramp || const_int(ramp->stride) != std::optional<int64_t>(1)) return nullptr;
  if (!vt->getElementType()->isIntegerTy() || vt->getScalarSizeInBits() % 8) return nullptr;
  int64_t eb = vt->getScalarSizeInBits() / 8;
  int64_t bytes = vt->getNumElements() * eb;
  if (bytes % width) return nullptr;
  auto [rest, c] = split_constant(ramp->base);
  if ((c * eb) % width == 0) return nullptr;
  auto it = handle_align_.find(op->buffer->data.get());
  int64_t base_align = low_power_of_two(it == handle_align_.end() ? eb : it->second);
  int64_t rest_multiple = rest ? known_multiple(rest) : kMaxMultiple;
  if (std::min<int64_t>(base_align, target_.alloc_alignment) < width || (rest_multiple * eb) % width) return nullptr;
  llvm::Value* base = handle_of(op->buffer);
  if (rest) base = b_.CreateInBoundsGEP(memory_type(ctx_, op->buffer->dtype), base, to_index(eval(rest), rest.dtype()));
  auto* piece_ty = llvm::FixedVectorType::get(b_.getInt8Ty(), width);
  auto block = [&](int64_t at) {
    llvm::Value* p = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), base, at);
    return b_.CreateAlignedLoad(piece_ty, p, llvm::Align(width));
  };
  std::vector<llvm::Value*> pieces;
  for (int64_t start = c * eb; start < c * eb + bytes; start += width) {
    int64_t lo = start >= 0 ? start / width * width : -((-start + width - 1) / width) * width;
    int64_t shift = start - lo;
    llvm::Value* first = block(lo);
    if (shift == 0) {
      pieces.push_back(first);
      continue;
    }
    std::vector<int> mask;
    for (int64_t i = 0; i < width; ++i) mask.push_back(static_cast<int>(shift + i));
    pieces.push_back(b_.CreateShuffleVector(first, block(lo + width), mask));
  }
  return b_.CreateBitCast(llvm::concatenateVectors(b_, pieces), mty);
}

namespace {

// The dense loads of one innermost loop body that plan_direct_loads weighs: register-wide
// loads I[ramp(rest + c, 1, n)], grouped by buffer and rest.
struct DenseTap {
  std::string key;  // buffer and rest: the group
  int64_t c;        // the constant offset, in elements
  int64_t eb;       // bytes per element
  int64_t regs;     // registers the load fills
  bool aligned;     // rest + 0 starts an aligned register: realigned_load's blocks and shuffles
  int64_t align;    // a power of two (at most a register's bytes) dividing rest + 0's address
};

// The largest offset in its aligned vector (of `width` bytes) that an address `off` bytes past
// one that `align` divides can have (width - 1 when align is 1): rows of 1028 u16 start 8 bytes
// apart, so a span from a row's element 2 (byte 4) starts at most at byte 124 of its vector,
// and one from its element 0 at most at byte 120, whose 136 bytes then end in the next vector.
int64_t max_offset_in_vector(int64_t align, int64_t off, int64_t width) {
  return width - align + ((off % align) + align) % align;
}

// The loads of a loop body that run in every iteration (not under an `if`: load_span reads
// the aligned vectors of a whole group where its first load is evaluated), its stores, and
// whether it has an inner loop or calls a function or an extern (which may write memory).
class DenseTaps : public IRVisitor {
 public:
  explicit DenseTaps(std::function<void(const Load*)> f) : f_(std::move(f)) {}
  void visit_Load(const Load* op) override {
    if (!guarded_) f_(op);
    IRVisitor::visit_Load(op);
  }
  void visit_For(const For* op) override { inner = true; }
  void visit_IfThenElse(const IfThenElse* op) override {
    visit(op->cond);
    ++guarded_;
    visit(op->then_case);
    if (op->else_case) visit(op->else_case);
    --guarded_;
  }
  void visit_Store(const Store* op) override {
    stores.push_back(op);
    IRVisitor::visit_Store(op);
  }
  void visit_Call(const Call* op) override {
    if (op->call_kind != CallKind::Intrinsic) calls = true;
    IRVisitor::visit_Call(op);
  }

  bool inner = false, calls = false;
  std::vector<const Store*> stores;

 private:
  std::function<void(const Load*)> f_;
  int guarded_ = 0;
};

// The variables an expression reads, by identity (two variables may print alike).
class VarIds : public IRVisitor {
 public:
  void visit_Var(const Var* op) override { out += "@" + std::to_string(reinterpret_cast<uintptr_t>(op)); }
  std::string out;
};

// A dense load's group (its buffer, the index without its constant, the element size) and
// the load in it (the constant).
std::string dense_group(const Load* op, const Expr& rest, int64_t eb) {
  VarIds ids;
  if (rest) ids.visit(rest);
  return std::to_string(reinterpret_cast<uintptr_t>(op->buffer->data.get())) + "|" +
         (rest ? print_expr(rest) : std::string("0")) + ids.out + "|" + std::to_string(eb);
}
std::string dense_member(const std::string& group, int64_t c) { return group + "#" + std::to_string(c); }

}  // namespace

// How an innermost loop body reads its register-wide dense loads at constant offsets c from
// an index whose alignment is not known at compile time (rows of 1039 i16 elements). Each
// group (one buffer, one index without its constant) is read either as its span's aligned
// vectors realigned once by the index's offset in its vector (span_load: n + 1 aligned loads
// and n valigns by a register for a span of n registers) and then each load as a valign of
// two of those by a constant, or load by load unaligned (direct_load: HVX vmemu, which takes
// both memory slots and the permute slot), or a mix: its lowest k loads realigned, the others
// unaligned. A packet has one permute slot and two memory slots (an aligned load or a store
// each), so the body's bound is max(P, M / 2) with P its permutes and M its memory-slot uses;
// the groups' choices are made, one group at a time given the others, to make that bound
// least, then the sum of the two, keeping more realigned loads on a tie. Groups whose index is
// register aligned (realigned_load's taps), lone loads, and loads under an `if` count as they
// are. Not for a group whose buffer the body stores to, nor a body with an inner loop or a
// call. LLVM's AlignVectors, which would realign these groups otherwise, predicates the load of
// a span's last vector, and loops holding such a load were not software pipelined; span_load
// reads the vector of the span's last byte instead, so no vector outside the span's is read.
void FunctionCodegen::plan_direct_loads(const Stmt& body, std::vector<std::string>& added) {
  int64_t width = target_.vector_bytes;
  if (!width) return;
  std::vector<DenseTap> taps;
  DenseTaps walk([&](const Load* op) {
    if (!op->dtype.is_vector() || op->dtype.is_bool() || op->indices.size() != 1) return;
    Expr idx = dense_index(op->indices[0]);
    const auto* ramp = idx.as<Ramp>();
    if (!ramp || const_int(ramp->stride) != std::optional<int64_t>(1) || op->dtype.bits % 8) return;
    int64_t eb = op->dtype.bits / 8;
    int64_t bytes = op->dtype.lanes * eb;
    if (bytes % width) return;
    auto [rest, c] = split_constant(ramp->base);
    auto it = handle_align_.find(op->buffer->data.get());
    int64_t base_align = low_power_of_two(it == handle_align_.end() ? eb : it->second);
    int64_t rest_multiple = rest ? known_multiple(rest) : kMaxMultiple;
    bool aligned = std::min<int64_t>(base_align, target_.alloc_alignment) >= width && (rest_multiple * eb) % width == 0;
    int64_t align = std::min<int64_t>({base_align, target_.alloc_alignment, low_power_of_two(rest_multiple * eb), width});
    std::string key = dense_group(op, rest, eb);
    for (const DenseTap& t : taps)
      if (t.key == key && t.c == c) return;
    taps.push_back({key, c, eb, bytes / width, aligned, align});
  });
  walk.visit(body);
  if (walk.inner || walk.calls || taps.empty()) return;
  int64_t stored = 0;  // registers stored: one memory slot each
  for (const Store* st : walk.stores)
    if (st->value.dtype().is_vector()) stored += std::max<int64_t>(1, st->value.dtype().lanes * st->value.dtype().bits / 8 / width);
  // Groups, each member list sorted by offset, taken below in the order the body first reads
  // them: a key holds addresses, and the choices depend on the order the groups are visited in,
  // so an order of keys would make the code depend on where the IR sits in memory (the TIR
  // round trip gave other code).
  std::map<std::string, std::vector<size_t>> groups;
  std::vector<std::string> order;
  for (size_t i = 0; i < taps.size(); ++i) {
    auto [it, fresh] = groups.try_emplace(taps[i].key);
    if (fresh) order.push_back(taps[i].key);
    it->second.push_back(i);
  }
  for (auto& [key, members] : groups)
    std::sort(members.begin(), members.end(), [&](size_t a, size_t b) { return taps[a].c < taps[b].c; });
  auto floor_div = [](int64_t x, int64_t d) { return x >= 0 ? x / d : -((-x + d - 1) / d); };
  // A group's permutes and loads when its `keep` lowest loads are realigned and the others
  // read unaligned.
  auto cost = [&](const std::vector<size_t>& members, size_t keep) {
    const DenseTap& t0 = taps[members.front()];
    int64_t p = 0, l = 0;
    // An unaligned load (vmemu) takes both memory slots and the permute slot.
    for (size_t j = keep; j < members.size(); ++j) l += 2 * taps[members[j]].regs, p += taps[members[j]].regs;
    if (keep == 0) return std::pair{p, l};
    if (t0.aligned) {
      // realigned_load: the aligned vectors around each register, shared, and a valign per
      // register that does not start one.
      std::set<int64_t> blocks;
      for (size_t j = 0; j < keep; ++j)
        for (int64_t r = 0; r < taps[members[j]].regs; ++r) {
          int64_t start = taps[members[j]].c * t0.eb + r * width;
          blocks.insert(floor_div(start, width));
          if (start % width) p++, blocks.insert(floor_div(start, width) + 1);
        }
      return std::pair{p, l + static_cast<int64_t>(blocks.size())};
    }
    if (keep == 1) return std::pair{p + taps[members[0]].regs, l + 2 * taps[members[0]].regs};  // a lone load: unaligned
    // load_span: the span's aligned vectors (one more than its registers unless the row's
    // known alignment keeps its last byte within them), a valign per register of the span,
    // and a valign of two of those per loaded register that does not start one.
    int64_t lo = taps[members[0]].c * t0.eb, hi = taps[members[keep - 1]].c * t0.eb;
    int64_t span = hi - lo + taps[members[keep - 1]].regs * width;
    int64_t sectors = (span + width - 1) / width;
    int64_t extra = max_offset_in_vector(t0.align, lo, width) + span - 1 >= sectors * width;
    for (size_t j = 0; j < keep; ++j)
      if ((taps[members[j]].c * t0.eb - lo) % width) p += taps[members[j]].regs;
    return std::pair{p + sectors, l + sectors + extra};
  };
  // Donors: groups of unknown alignment (AlignVectors realigns them); the others count as they
  // are.
  std::vector<const std::vector<size_t>*> donors;
  std::vector<size_t> keep;
  int64_t fixed_p = 0, fixed_l = stored;
  // A group whose buffer the body also stores to keeps its plain loads (built once, the
  // span's registers would miss a store between two of its loads).
  std::set<std::string> written;
  for (const Store* st : walk.stores) written.insert(std::to_string(reinterpret_cast<uintptr_t>(st->buffer->data.get())) + "|");
  for (const std::string& key : order) {
    std::vector<size_t>& members = groups[key];
    if (taps[members.front()].aligned || members.size() < 2 || written.count(key.substr(0, key.find('|') + 1))) {
      auto [p, l] = cost(members, members.size());
      fixed_p += p, fixed_l += l;
      continue;
    }
    donors.push_back(&members);
    keep.push_back(members.size());
  }
  if (donors.empty()) return;
  auto total = [&]() {
    int64_t p = fixed_p, l = fixed_l;
    for (size_t g = 0; g < donors.size(); ++g) {
      auto [gp, gl] = cost(*donors[g], keep[g]);
      p += gp, l += gl;
    }
    return std::pair{p, l};
  };
  // The bound of the permute slot and the two memory slots, then the sum (fewer
  // instructions), then more kept.
  auto better = [](std::pair<int64_t, int64_t> a, std::pair<int64_t, int64_t> b) {
    int64_t ma = std::max(a.first, (a.second + 1) / 2), mb = std::max(b.first, (b.second + 1) / 2);
    if (ma != mb) return ma < mb;
    return a.first + a.second < b.first + b.second;
  };
  // Each group's best count kept given the others, a few rounds.
  for (int round = 0; round < 4; ++round) {
    bool changed = false;
    for (size_t g = 0; g < donors.size(); ++g) {
      size_t before = keep[g], best = keep[g];
      auto best_cost = total();
      for (size_t k = donors[g]->size(); k-- > 0;) {
        keep[g] = k;
        auto c = total();
        if (better(c, best_cost)) best = k, best_cost = c;
      }
      keep[g] = best;
      changed |= best != before;
    }
    if (!changed) break;
  }
  for (size_t g = 0; g < donors.size(); ++g) {
    const std::vector<size_t>& m = *donors[g];
    // A lone load left is an unaligned load too.
    for (size_t j = keep[g] == 1 ? 0 : keep[g]; j < m.size(); ++j) {
      const DenseTap& t = taps[m[j]];
      std::string key = dense_member(t.key, t.c);
      if (direct_loads_.insert(key).second) added.push_back(key);
    }
    if (keep[g] < 2) continue;
    const DenseTap& t0 = taps[m.front()];
    const DenseTap& top = taps[m[keep[g] - 1]];
    SpanPlan plan;
    plan.lo = t0.c;
    plan.span = (top.c - t0.c) * t0.eb + top.regs * width;
    plan.max_offset = max_offset_in_vector(t0.align, t0.c * t0.eb, width);
    for (size_t j = 0; j < keep[g]; ++j) {
      std::string key = dense_member(t0.key, taps[m[j]].c);
      if (span_loads_.emplace(key, plan).second) added.push_back(key);
    }
  }
}

// A load of a group that plan_direct_loads realigns itself: the registers of the group's span
// (load_span, built once per block and shared by the group's loads; the span's key is its
// lowest member's) and, for each register of this load, the span register it starts in or a
// shuffle of two (a valign by a constant). Null for any other load.
llvm::Value* FunctionCodegen::span_load(const Load* op, llvm::Type* mty) {
  if (span_loads_.empty() || op->indices.size() != 1 || !op->dtype.is_vector() || op->dtype.is_bool()) return nullptr;
  const auto* ramp = op->indices[0].as<Ramp>();
  if (!ramp || const_int(ramp->stride) != std::optional<int64_t>(1) || op->dtype.bits % 8) return nullptr;
  int64_t eb = op->dtype.bits / 8;
  auto [rest, c] = split_constant(ramp->base);
  std::string group = dense_group(op, rest, eb);
  auto it = span_loads_.find(dense_member(group, c));
  if (it == span_loads_.end()) return nullptr;
  SpanPlan& plan = span_loads_.at(dense_member(group, it->second.lo));
  int64_t width = target_.vector_bytes;
  auto* vt = llvm::cast<llvm::FixedVectorType>(mty);
  auto* piece_ty = llvm::FixedVectorType::get(vt->getElementType(), width / eb);
  int64_t n = (plan.span + width - 1) / width;
  if (plan.block != b_.GetInsertBlock() || plan.sectors.empty()) {
    llvm::Value* base = handle_of(op->buffer);
    if (rest) base = b_.CreateInBoundsGEP(memory_type(ctx_, op->buffer->dtype), base, to_index(eval(rest), rest.dtype()));
    llvm::Value* p = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), base, plan.lo * eb);
    plan.sectors = hooks_->load_span(b_, piece_ty, p, plan.span, n, plan.max_offset);
    plan.block = b_.GetInsertBlock();
    if (plan.sectors.empty()) return nullptr;
  }
  std::vector<llvm::Value*> pieces;
  for (int64_t at = (c - plan.lo) * eb; at < (c - plan.lo) * eb + op->dtype.lanes * eb; at += width) {
    int64_t j = at / width, shift = at % width;
    if (!shift) {
      pieces.push_back(plan.sectors[j]);
      continue;
    }
    std::vector<int> mask;
    for (int64_t i = 0; i < width / eb; ++i) mask.push_back(static_cast<int>(shift / eb + i));
    pieces.push_back(b_.CreateShuffleVector(plan.sectors[j], plan.sectors[j + 1], mask));
  }
  return pieces.size() == 1 ? pieces[0] : llvm::concatenateVectors(b_, pieces);
}

// A load that plan_direct_loads chose to read unaligned: one load per register, each from
// its own address (direct_unaligned_address), so that the backend reads it as it is. Null
// for any other load.
llvm::Value* FunctionCodegen::direct_load(const Load* op, llvm::Type* mty) {
  if (direct_loads_.empty() || op->indices.size() != 1 || !op->dtype.is_vector() || op->dtype.is_bool()) return nullptr;
  const auto* ramp = op->indices[0].as<Ramp>();
  if (!ramp || const_int(ramp->stride) != std::optional<int64_t>(1) || op->dtype.bits % 8) return nullptr;
  int64_t eb = op->dtype.bits / 8;
  auto [rest, c] = split_constant(ramp->base);
  if (!direct_loads_.count(dense_member(dense_group(op, rest, eb), c))) return nullptr;
  int64_t width = target_.vector_bytes;
  auto* vt = llvm::cast<llvm::FixedVectorType>(mty);
  llvm::Value* base = handle_of(op->buffer);
  if (rest) base = b_.CreateInBoundsGEP(memory_type(ctx_, op->buffer->dtype), base, to_index(eval(rest), rest.dtype()));
  auto* piece_ty = llvm::FixedVectorType::get(vt->getElementType(), width / eb);
  std::vector<llvm::Value*> pieces;
  for (int64_t at = 0; at < op->dtype.lanes * eb; at += width) {
    llvm::Value* p = hooks_->direct_unaligned_address(b_, base, c * eb + at);
    if (!p) return nullptr;
    pieces.push_back(b_.CreateAlignedLoad(piece_ty, p, llvm::Align(eb)));
  }
  return pieces.size() == 1 ? pieces[0] : llvm::concatenateVectors(b_, pieces);
}

// `e` as base + off[i] in lane i (compiler/arith/LaneOffsets.h), with what codegen knows of
// each variable's alignment.
bool FunctionCodegen::lane_offsets(const Expr& e, int lanes, Expr& base, std::vector<int64_t>& off) const {
  return dspc::lane_offsets(e, lanes, base, off, [this](const Expr& x) { return known_multiple(x); });
}

// A vector load whose lanes read F rows S elements apart, interleaved: lane i reads
// base + (i % F) * S + i / F (F = 2, 4 or 8), as a layout change such as
// Bq[ko, l] = B[ko * 4 + l % 4, l / 4] does. F dense row loads (aligned where the base is),
// then log2(F) rounds of two-way interleaves of ever wider units, which HVX does with vshuff,
// instead of a lane-by-lane gather. Null when the load is not of that form.
llvm::Value* FunctionCodegen::interleaved_load(const Load* op, llvm::Type* mty) {
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(mty);
  if (!vt || op->indices.size() != 1 || !vt->getElementType()->isIntegerTy() || vt->getScalarSizeInBits() % 8)
    return nullptr;
  int lanes = op->dtype.lanes;
  Expr base;
  std::vector<int64_t> off;
  if (!lane_offsets(op->indices[0], lanes, base, off) || lanes < 2) return nullptr;
  int64_t stride = off[1] - off[0];
  for (int f = 2; f <= 8; f *= 2) {
    if (lanes % f || vt->getScalarSizeInBits() * f > 64) continue;
    int rows_len = lanes / f;
    bool match = true;
    for (int i = 0; i < lanes && match; ++i) match = off[i] - off[0] == (i % f) * stride + i / f;
    // A row stride below the row length would make the rows overlap: a plain gather then.
    if (!match || stride < rows_len || rows_len < 2) continue;
    std::vector<llvm::Value*> rows;
    for (int j = 0; j < f; ++j) {
      Expr at = Binary::make(BinaryOp::Add, base, make_const(base.dtype(), off[0] + j * stride));
      rows.push_back(eval(Load::make(op->buffer, {Ramp::make(at, make_const(base.dtype(), 1), rows_len)})));
    }
    for (unsigned unit = vt->getScalarSizeInBits(); rows.size() > 1; unit *= 2) {
      std::vector<llvm::Value*> next;
      for (size_t p = 0; p < rows.size(); p += 2) {
        auto* ut = llvm::FixedVectorType::get(b_.getIntNTy(unit), lanes * vt->getScalarSizeInBits() / unit / rows.size());
        llvm::Value* x = b_.CreateBitCast(rows[p], ut);
        llvm::Value* y = b_.CreateBitCast(rows[p + 1], ut);
        next.push_back(b_.CreateShuffleVector(x, y, llvm::createInterleaveMask(ut->getNumElements(), 2)));
      }
      rows = std::move(next);
    }
    return b_.CreateBitCast(rows[0], mty);
  }
  return nullptr;
}

// Whether LLVM 19's Hexagon backend shuffles lanes from..from + n of `off` (one register)
// well by itself: one arithmetic progression (I[2 * x + 1], I[3 * x]: vpacke, vdeal, vdelta),
// or runs of consecutive elements at least half a register long (a fused loop's two pixels of
// 64 channels: one vshuff). Other permutations it may lower lane by lane.
static bool llvm_shuffles_well(const std::vector<int64_t>& off, size_t from, int64_t n) {
  bool stride = true;
  for (int64_t i = 2; i < n && stride; ++i) stride = off[from + i] - off[from + i - 1] == off[from + 1] - off[from];
  if (stride) return true;
  for (int64_t i = 0, run = 1; i < n; ++i, ++run) {
    if (i + 1 < n && off[from + i + 1] == off[from + i] + 1) continue;
    if (2 * run < n) return false;
    run = 0;
  }
  return true;
}

// A vector load whose lanes read known offsets from an aligned scalar base (plus a constant),
// each vector register's worth of lanes within at most four neighbouring aligned vectors: a
// clamped tap at a constant position (I[y, max(x - 1, 0)] over the first vector of a row reads
// lanes 0, 0, 1, ..., 126), or a strided read (I[y, 2 * x + 1], I[y, 3 * x]). The aligned
// vectors, then per register a two-vector shuffle (a realignment, a permute for repeated
// lanes, an even or odd half) and one more for each further vector, instead of a lane-by-lane
// gather. Only the aligned vectors holding a lane's element are read. Null when the load is
// not of that form.
llvm::Value* FunctionCodegen::window_load(const Load* op, llvm::Type* mty) {
  int64_t width = target_.vector_bytes;
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(mty);
  if (!width || !vt || op->indices.size() != 1 || !vt->getElementType()->isIntegerTy() ||
      vt->getScalarSizeInBits() % 8)
    return nullptr;
  int64_t eb = vt->getScalarSizeInBits() / 8;
  int lanes = op->dtype.lanes;
  int64_t per = width / eb;  // lanes per vector register
  if (lanes < 2 || width % eb || (lanes * eb) % width) return nullptr;
  Expr base;
  std::vector<int64_t> off;
  if (!lane_offsets(op->indices[0], lanes, base, off)) return nullptr;
  // The base's constant term (I[2 * x + 1]) goes into the offsets, so that the rest of it may
  // be a known multiple of the register width.
  if (auto [rest, c] = split_constant(base); c) {
    for (int64_t& o : off) o += c;
    base = rest ? rest : make_const(base.dtype(), 0);
  }
  auto it = handle_align_.find(op->buffer->data.get());
  int64_t base_align = low_power_of_two(it == handle_align_.end() ? eb : it->second);
  std::optional<int64_t> k = const_int(base);
  int64_t multiple = k ? (*k == 0 ? kMaxMultiple : low_power_of_two(std::abs(*k))) : known_multiple(base);
  if (std::min<int64_t>(base_align, target_.alloc_alignment) < width || (multiple * eb) % width)
    return unaligned_window_load(op, mty, base, off, std::min<int64_t>({base_align, target_.alloc_alignment, multiple * eb}));
  auto floor_div = [](int64_t x, int64_t d) { return x >= 0 ? x / d : -((-x + d - 1) / d); };
  // Each register's lanes: within blocks b to b + n - 1 (in units of `per` elements), n <= 4.
  std::vector<int64_t> first_block, blocks;
  for (int64_t p = 0; p < lanes; p += per) {
    int64_t lo = off[p], hi = off[p];
    for (int64_t i = p; i < p + per; ++i) lo = std::min(lo, off[i]), hi = std::max(hi, off[i]);
    int64_t b = floor_div(lo, per);
    int64_t n = floor_div(hi, per) - b + 1;
    if (n > 4) return nullptr;
    first_block.push_back(b);
    blocks.push_back(n);
  }
  // Whole aligned vectors, lane for lane: the plain load does that.
  bool plain = true;
  for (int64_t i = 0; i < lanes && plain; ++i) plain = off[i] - first_block[i / per] * per == i % per;
  if (plain) return nullptr;
  llvm::Value* start = handle_of(op->buffer);
  if (!k || *k != 0)
    start = b_.CreateInBoundsGEP(memory_type(ctx_, op->buffer->dtype), start, to_index(eval(base), base.dtype()));
  auto* piece_ty = llvm::FixedVectorType::get(vt->getElementType(), per);
  auto block = [&](int64_t b) {
    llvm::Value* p = b_.CreateConstGEP1_64(vt->getElementType(), start, b * per);
    return b_.CreateAlignedLoad(piece_ty, p, llvm::Align(width));
  };
  // Per register: a shuffle of its first two blocks, then one more shuffle for each further
  // block, which keeps the lanes placed so far and takes that block's.
  std::vector<llvm::Value*> pieces;
  for (size_t r = 0; r < first_block.size(); ++r) {
    int64_t b = first_block[r];
    if (blocks[r] > 1 && !llvm_shuffles_well(off, r * per, per)) {
      // Not a constant stride nor long runs (I[3 * x / 2], I[x / 8 * 9 + x % 8], a fused loop's
      // runs of 32 bytes), which LLVM 19's Hexagon backend may lower lane by lane: per block, a
      // one-register permute of the lanes it holds (TargetHooks::permute: vdelta/vrdelta),
      // merged by selects of constant lanes (vmux).
      llvm::Value* v = nullptr;
      for (int64_t j = 0; j < blocks[r]; ++j) {
        std::vector<int> mask(per, -1);
        std::vector<llvm::Constant*> mine;
        bool any = false;
        for (int64_t i = 0; i < per; ++i) {
          int64_t at = off[r * per + i] - (b + j) * per;
          bool here = at >= 0 && at < per;
          if (here) mask[i] = static_cast<int>(at), any = true;
          mine.push_back(b_.getInt1(here));
        }
        if (!any) continue;
        llvm::Value* blk = block(b + j);
        llvm::Value* p = hooks_->permute(b_, blk, mask);
        if (!p) p = b_.CreateShuffleVector(blk, mask);
        if (!v) {
          v = p;
          continue;
        }
        llvm::Constant* cond = llvm::ConstantVector::get(mine);
        llvm::Value* sel = hooks_->constant_select(b_, cond, p, v);
        v = sel ? sel : b_.CreateSelect(cond, p, v);
      }
      pieces.push_back(v);
      continue;
    }
    std::vector<int> mask;
    for (int64_t i = 0; i < per; ++i) {
      int64_t at = off[r * per + i] - b * per;
      mask.push_back(at < 2 * per ? static_cast<int>(at) : -1);
    }
    // Each element of one half of the block twice in a row (a 2x upscale whose register's
    // position is known, as in an unrolled edge loop): the block interleaved with itself, the
    // first or the second register of the pair (doubled_half_load's form at a constant half).
    if (blocks[r] == 1 && !keep_window_shuffle_ && per >= 2) {
      bool doubled = mask[0] == 0 || mask[0] == per / 2;
      for (int64_t i = 0; i < per && doubled; ++i) doubled = mask[i] == mask[0] + i / 2;
      llvm::Value* blk = doubled ? block(b) : nullptr;
      if (doubled)
        if (llvm::Value* pair = hooks_->interleave_registers(b_, blk, blk)) {
          unsigned from = mask[0] == 0 ? 0 : unsigned(per);
          pieces.push_back(b_.CreateShuffleVector(pair, llvm::createSequentialMask(from, unsigned(per), 0)));
          continue;
        }
    }
    llvm::Value* next = blocks[r] == 1 ? nullptr : block(b + 1);
    llvm::Value* v = next ? b_.CreateShuffleVector(block(b), next, mask) : b_.CreateShuffleVector(block(b), mask);
    for (int64_t j = 2; j < blocks[r]; ++j) {
      for (int64_t i = 0; i < per; ++i) {
        int64_t at = off[r * per + i] - (b + j) * per;
        mask[i] = at >= 0 && at < per ? static_cast<int>(per + at) : static_cast<int>(i);
      }
      v = b_.CreateShuffleVector(v, block(b + j), mask);
    }
    pieces.push_back(v);
  }
  return pieces.size() == 1 ? pieces[0] : llvm::concatenateVectors(b_, pieces);
}

// window_load's lanes where the base is not known to start an aligned vector (O[y, x] =
// I[y / 2, x / 2] over 128 lanes of x reads from y / 2 * 512 + x_o * 64, a multiple of 64
// elements only; a fused loop's last group shifted inwards): per register, when its lanes lie
// within one vector's worth of elements from its lowest, the target's window from that lowest
// element (TargetHooks::load_window: on HVX the aligned vectors of the lowest and the highest
// element and a valign, so that nothing outside the aligned blocks of the elements read is
// touched) and a shuffle, not a lane-by-lane gather. Null when a register's lanes span more, or
// are all one element (a scalar load and a broadcast), or are consecutive (a plain load), or
// when the target has no windows (the gather stays).
llvm::Value* FunctionCodegen::unaligned_window_load(const Load* op, llvm::Type* mty, const Expr& base,
                                                    const std::vector<int64_t>& off, int64_t align) {
  auto* vt = llvm::cast<llvm::FixedVectorType>(mty);
  int64_t eb = vt->getScalarSizeInBits() / 8;
  int64_t per = target_.vector_bytes / eb;
  int lanes = op->dtype.lanes;
  std::vector<int64_t> lows, highs;
  bool plain = true;
  for (int64_t p = 0; p < lanes; p += per) {
    int64_t lo = off[p], hi = off[p];
    for (int64_t i = p; i < p + per; ++i) lo = std::min(lo, off[i]), hi = std::max(hi, off[i]);
    // A register of one element is a scalar load and a broadcast (splat_runs_load), no permute.
    // Lanes over two windows' worth of elements: a gather.
    if (hi - lo >= 2 * per || hi == lo) return nullptr;
    for (int64_t i = p; i < p + per && plain; ++i) plain = off[i] - off[p] == i - p;
    lows.push_back(lo);
    highs.push_back(hi);
  }
  if (plain) return nullptr;
  llvm::Value* start = handle_of(op->buffer);
  std::optional<int64_t> k = const_int(base);
  if (!k || *k != 0)
    start = b_.CreateInBoundsGEP(memory_type(ctx_, op->buffer->dtype), start, to_index(eval(base), base.dtype()));
  // `align` bytes divide the base's address: elements lo and hi in one align-sized chunk from it
  // are in one aligned vector (align at most a vector), which is then read once.
  int64_t chunk = std::min<int64_t>(low_power_of_two(std::max<int64_t>(align, 1)), target_.vector_bytes);
  auto floor_div = [](int64_t x, int64_t d) { return x >= 0 ? x / d : -((-x + d - 1) / d); };
  auto* piece_ty = llvm::FixedVectorType::get(vt->getElementType(), per);
  std::vector<llvm::Value*> pieces;
  for (size_t r = 0; r < lows.size(); ++r) {
    std::vector<int> mask;
    for (int64_t i = 0; i < per; ++i) mask.push_back(static_cast<int>(off[r * per + i] - lows[r]));
    if (highs[r] - lows[r] >= per) {
      // Lanes over more than one window (a strided or blocked permutation, I[3 * x / 2],
      // I[x / 8 * 9 + x % 8]): the window from lo and the next one, which reads no aligned
      // block past hi's, and a two-vector permute (vdelta/vrdelta and a vmux on HVX).
      llvm::Value* at = b_.CreateConstGEP1_64(vt->getElementType(), start, lows[r]);
      llvm::Value* next = b_.CreateConstGEP1_64(vt->getElementType(), start, lows[r] + per);
      llvm::Value* last = b_.CreateConstGEP1_64(vt->getElementType(), start, highs[r]);
      llvm::Value* a = hooks_->load_window(b_, piece_ty, at, next);
      llvm::Value* c = a ? hooks_->load_window(b_, piece_ty, next, last) : nullptr;
      if (!c) return nullptr;
      if (llvm_shuffles_well(off, r * per, per)) {
        pieces.push_back(b_.CreateShuffleVector(a, c, mask));
        continue;
      }
      // One single-vector permute of each window (LLVM 19's Hexagon backend lowers a
      // two-source shuffle lane by lane, a one-source one as vdelta/vrdelta), the lanes of the
      // second taken by a select of constant lanes (vmux).
      std::vector<int> first(per, -1), second(per, -1);
      std::vector<llvm::Constant*> take_second;
      for (int64_t i = 0; i < per; ++i) {
        bool in_second = mask[i] >= per;
        (in_second ? second : first)[i] = in_second ? mask[i] - static_cast<int>(per) : mask[i];
        take_second.push_back(b_.getInt1(in_second));
      }
      llvm::Value* pa = hooks_->permute(b_, a, first);
      llvm::Value* pc = hooks_->permute(b_, c, second);
      if (!pa) pa = b_.CreateShuffleVector(a, first);
      if (!pc) pc = b_.CreateShuffleVector(c, second);
      llvm::Constant* cond = llvm::ConstantVector::get(take_second);
      llvm::Value* v = hooks_->constant_select(b_, cond, pc, pa);
      pieces.push_back(v ? v : b_.CreateSelect(cond, pc, pa));
      continue;
    }
    // Each element of an aligned half vector twice in a row (a 2x upscale, O[x] = I[x / 2] over
    // a register from x_o * 128: its elements start at a multiple of half a register): the
    // aligned vector holding them, interleaved with itself (vshuff on HVX: a register pair whose
    // first register doubles the lower half, the second the upper one), and the half the
    // elements lie in chosen by their address. Where the loop is unrolled the choice is
    // constant, the neighbouring register reads the same aligned vector and its interleave is
    // shared: one load and one vshuff per two registers, not a load, a valign and a vdelta each.
    if (llvm::Value* v = doubled_half_load(start, piece_ty, lows[r], highs[r], mask, chunk)) {
      pieces.push_back(v);
      continue;
    }
    // Only when lo and hi share one aligned vector (two blocks and a valign: LLVM 19 merged
    // that valign with its own lowering of an overlapping unaligned load wrongly, found by
    // e2e/vtcm.vmix: C[i] = T[i] - A[299 - i]).
    if (floor_div(lows[r] * eb, chunk) != floor_div(highs[r] * eb, chunk) || chunk < eb) return nullptr;
    llvm::Value* at = b_.CreateConstGEP1_64(vt->getElementType(), start, lows[r]);
    llvm::Value* a = hooks_->load_window(b_, piece_ty, at, at);
    if (!a) return nullptr;
    pieces.push_back(b_.CreateShuffleVector(a, mask));
  }
  return pieces.size() == 1 ? pieces[0] : llvm::concatenateVectors(b_, pieces);
}

// The register of `piece_ty` whose lane i is element lo + i / 2 from `start` (mask[i] == i / 2),
// where `chunk` bytes divide the address of element 0 and half a register's bytes divide that
// of element lo: the aligned vector holding the elements, interleaved with itself, the first
// or the second register of the pair as the elements are in its lower or its upper half (a
// select on the address's bit, constant once the loop is unrolled). Null when the lanes are
// not of that form or the target has no register interleave.
llvm::Value* FunctionCodegen::doubled_half_load(llvm::Value* start, llvm::FixedVectorType* piece_ty, int64_t lo,
                                                int64_t hi, const std::vector<int>& mask, int64_t chunk) {
  int64_t width = target_.vector_bytes;
  int64_t per = piece_ty->getNumElements();
  int64_t eb = piece_ty->getScalarSizeInBits() / 8;
  // Hexagon's hooks interleave registers (vshuff); elsewhere nothing is emitted.
  if (!width || target_.arch != Arch::hexagon || keep_window_shuffle_ || per < 2 || per * eb != width ||
      hi - lo != per / 2 - 1)
    return nullptr;
  int64_t half = width / 2;
  if (chunk < half || (lo * eb) % half) return nullptr;
  for (int64_t i = 0; i < per; ++i)
    if (mask[i] != i / 2) return nullptr;
  llvm::Type* et = piece_ty->getElementType();
  llvm::Value* at = b_.CreateConstGEP1_64(et, start, lo);
  llvm::Value* upper = b_.CreateAnd(b_.CreatePtrToInt(at, b_.getInt32Ty()), b_.getInt32(uint32_t(half)));
  llvm::Value* block = b_.CreateGEP(b_.getInt8Ty(), at, b_.CreateNeg(upper));
  llvm::Value* v = b_.CreateAlignedLoad(piece_ty, block, llvm::Align(uint64_t(width)));
  llvm::Value* pair = hooks_->interleave_registers(b_, v, v);
  if (!pair) return nullptr;
  llvm::Value* first = b_.CreateShuffleVector(pair, llvm::createSequentialMask(0, unsigned(per), 0));
  llvm::Value* second = b_.CreateShuffleVector(pair, llvm::createSequentialMask(unsigned(per), unsigned(per), 0));
  return b_.CreateSelect(b_.CreateICmpNE(upper, b_.getInt32(0)), second, first);
}

// A boolean vector whose every lane is known at compile time, as a constant: comparisons of
// integer vectors whose lanes are constants (lane_offsets with a constant base: x % 2 == 0 over
// ramp(x_o * 256, 1, 256), c == 1 over a fused loop's j % 3), and && and || of such. Null
// otherwise.
llvm::Constant* FunctionCodegen::constant_lanes(const Expr& cond) {
  int n = cond.dtype().lanes;
  const auto* op = cond.as<Binary>();
  if (n < 2 || !cond.dtype().is_bool() || !op) return nullptr;
  std::vector<bool> lanes(static_cast<size_t>(n));
  if (op->op == BinaryOp::And || op->op == BinaryOp::Or) {
    llvm::Constant* a = constant_lanes(op->a);
    llvm::Constant* b = a ? constant_lanes(op->b) : nullptr;
    if (!b) return nullptr;
    return llvm::cast<llvm::Constant>(op->op == BinaryOp::And ? b_.CreateAnd(a, b) : b_.CreateOr(a, b));
  }
  if (!is_comparison(op->op) || !op->a.dtype().is_integer()) return nullptr;
  std::vector<int64_t> va, vb;
  for (const Expr* side : {&op->a, &op->b}) {
    Expr base;
    std::vector<int64_t> off;
    if (!lane_offsets(*side, n, base, off)) return nullptr;
    const IntImm* k = as_int(base);
    if (!k) return nullptr;
    for (int64_t& o : off) o += k->value;
    (side == &op->a ? va : vb) = std::move(off);
  }
  std::vector<llvm::Constant*> bits;
  for (int i = 0; i < n; ++i) {
    int64_t a = va[i], b = vb[i];
    bool r = false;
    switch (op->op) {
      case BinaryOp::EQ: r = a == b; break;
      case BinaryOp::NE: r = a != b; break;
      case BinaryOp::LT: r = a < b; break;
      case BinaryOp::LE: r = a <= b; break;
      case BinaryOp::GT: r = a > b; break;
      case BinaryOp::GE: r = a >= b; break;
      default: return nullptr;
    }
    bits.push_back(b_.getInt1(r));
  }
  return llvm::ConstantVector::get(bits);
}

// select(cond, t, f) with a constant condition that alternates between t and f in runs of u
// lanes (u a power of two), t and f loads whose lanes taken read consecutive elements (a
// stride-2 store of two planes, O[y, x, c] = select(c == 0, A[y, x], B[y, x]) fused; Halide's
// select(x % 2 == 0, in(x / 2), in((x + 16) / 2))): the interleave of two dense loads of the
// elements taken, one shuffle that HVX does with vshuff, instead of a shuffle of each load and
// a merge. Only the elements taken are read. Null when the select is not of that form, or on a
// target with vectors when the two halves are not whole registers.
llvm::Value* FunctionCodegen::interleaved_loads(llvm::Constant* cond, const Select* op) {
  const auto* lt = op->t.as<Load>();
  const auto* lf = op->f.as<Load>();
  int n = op->dtype.lanes;
  if (!lt || !lf || n < 4 || op->dtype.is_bool() || lt->indices.size() != 1 || lf->indices.size() != 1) return nullptr;
  // Each half whole registers: LLVM 19 lowers the interleave of two half registers of u8 for
  // HVX lane by lane.
  int64_t width = target_.vector_bytes;
  if (width && (n / 2 * op->dtype.bytes()) % width) return nullptr;
  auto taken = [&](int i) -> std::optional<bool> {
    llvm::Constant* c = cond->getAggregateElement(static_cast<unsigned>(i));
    if (!c || llvm::isa<llvm::UndefValue>(c)) return std::nullopt;
    return !c->isNullValue();
  };
  int u = 0;
  while (u < n && taken(u) == std::optional<bool>(true)) ++u;
  if (u == 0 || (u & (u - 1)) != 0 || n % (2 * u)) return nullptr;
  for (int i = 0; i < n; ++i)
    if (taken(i) != std::optional<bool>((i / u) % 2 == 0)) return nullptr;
  std::vector<llvm::Value*> halves;
  for (const Load* l : {lt, lf}) {
    Expr base;
    std::vector<int64_t> off;
    if (!lane_offsets(l->indices[0], n, base, off)) return nullptr;
    bool from_t = l == lt;
    int64_t first = -1, next = 0;
    for (int i = 0; i < n; ++i) {
      if (((i / u) % 2 == 0) != from_t) continue;
      if (first < 0) first = next = off[i];
      if (off[i] != next) return nullptr;
      ++next;
    }
    DataType t = base.dtype();
    Expr at = first ? Binary::make(BinaryOp::Add, base, make_const(t, first)) : base;
    halves.push_back(eval(Load::make(l->buffer, {Ramp::make(at, make_const(t, 1), n / 2)})));
  }
  std::vector<int> mask;
  for (int i = 0; i < n; ++i) {
    int k = (i / (2 * u)) * u + i % u;
    mask.push_back((i / u) % 2 == 0 ? k : n / 2 + k);
  }
  return b_.CreateShuffleVector(halves[0], halves[1], mask);
}

// The even (parity 0) or odd (parity 1) lanes of `e`, as an expression of half its lanes:
// through broadcasts, ramps, casts, elementwise operators and selects; an integer vector whose
// lanes taken are consecutive (lane_offsets: ramp(x * 256 + 1, 2, 128) / 2) becomes the dense
// ramp, and a load is taken only where its lanes taken are consecutive elements (one dense
// load). Null for anything else (a load of other lanes, a call, a reduction).
Expr FunctionCodegen::alternate_lanes(const Expr& e, int parity) const {
  int n = e.dtype().lanes;
  if (n == 1) return e;
  if (n % 2) return Expr();
  // An integer vector whose lanes taken are consecutive integers: that dense ramp.
  auto dense = [&]() -> Expr {
    if (!e.dtype().is_integer() || e.dtype().is_bool()) return Expr();
    Expr base;
    std::vector<int64_t> off;
    if (!lane_offsets(e, n, base, off)) return Expr();
    for (int i = 0; i < n / 2; ++i)
      if (off[2 * i + parity] != off[parity] + i) return Expr();
    DataType t = base.dtype();
    Expr at = off[parity] ? Binary::make(BinaryOp::Add, base, make_const(t, off[parity])) : base;
    return Ramp::make(at, make_const(t, 1), n / 2);
  };
  switch (e.kind()) {
    case NodeKind::Broadcast: return Broadcast::make(e.as<Broadcast>()->value, n / 2);
    case NodeKind::Ramp: {
      const auto* r = e.as<Ramp>();
      const IntImm* k = as_int(r->stride);
      Expr base = parity ? Binary::make(BinaryOp::Add, r->base, r->stride) : r->base;
      Expr stride = k ? make_const(r->stride.dtype(), 2 * k->value)
                      : Binary::make(BinaryOp::Mul, r->stride, make_const(r->stride.dtype(), 2));
      return Ramp::make(base, stride, n / 2);
    }
    case NodeKind::Cast: {
      Expr v = alternate_lanes(e.as<Cast>()->value, parity);
      return v ? Cast::make(e.dtype().with_lanes(n / 2), v) : Expr();
    }
    case NodeKind::Binary: {
      if (Expr r = dense()) return r;
      const auto* op = e.as<Binary>();
      Expr a = alternate_lanes(op->a, parity);
      Expr b = a ? alternate_lanes(op->b, parity) : Expr();
      return b ? Binary::make(op->op, a, b) : Expr();
    }
    case NodeKind::Unary: {
      Expr v = alternate_lanes(e.as<Unary>()->value, parity);
      return v ? Unary::make(e.as<Unary>()->op, v) : Expr();
    }
    case NodeKind::Select: {
      const auto* op = e.as<Select>();
      Expr c = alternate_lanes(op->cond, parity);
      Expr t = c ? alternate_lanes(op->t, parity) : Expr();
      Expr f = t ? alternate_lanes(op->f, parity) : Expr();
      return f ? Select::make(c, t, f) : Expr();
    }
    case NodeKind::Load: {
      const auto* op = e.as<Load>();
      if (op->indices.size() != 1) return Expr();
      Expr idx = alternate_lanes(op->indices[0], parity);
      const auto* r = idx.as<Ramp>();
      const IntImm* k = r ? as_int(r->stride) : nullptr;
      if (!k || k->value != 1) return Expr();
      return Load::make(op->buffer, {idx});
    }
    default: return Expr();
  }
}

// select(cond, t, f) with a constant condition that takes t in the even lanes and f in the odd
// ones (Halide's select(x % 2 == 0, a, b)), t and f not both loads (interleaved_loads): the
// interleave of t's even lanes and f's odd lanes (alternate_lanes), each computed at half the
// lanes, one vshuff on HVX instead of both sides at all the lanes and a vmux. Null when a side
// has no such form, or on a target with vectors when the halves are not whole registers.
llvm::Value* FunctionCodegen::alternating_select(llvm::Constant* cond, const Select* op) {
  int n = op->dtype.lanes;
  if (n < 4 || n % 2 || op->dtype.is_bool()) return nullptr;
  int64_t width = target_.vector_bytes;
  if (width && (n / 2 * op->dtype.bytes()) % width) return nullptr;
  for (int i = 0; i < n; ++i) {
    llvm::Constant* c = cond->getAggregateElement(static_cast<unsigned>(i));
    if (!c || llvm::isa<llvm::UndefValue>(c) || c->isNullValue() != (i % 2 == 1)) return nullptr;
  }
  Expr even = alternate_lanes(op->t, 0);
  Expr odd = even ? alternate_lanes(op->f, 1) : Expr();
  if (!odd) return nullptr;
  llvm::Value* a = eval(even);
  llvm::Value* b = eval(odd);
  if (llvm::Value* v = hooks_->interleave_registers(b_, a, b)) return v;
  return b_.CreateShuffleVector(a, b, llvm::createInterleaveMask(static_cast<unsigned>(n / 2), 2));
}

// Whether select(cond, t, f), cond constant, is a two-way interleave of windows of at most two
// sources: lanes alternate between t's and f's in runs of u (a power of two), and the lanes
// taken from each side, in order, read consecutive elements of one source (t and f each a
// single-source shuffle, or a plain value). LLVM merges such a select into one two-source
// shuffle that it lowers well (vshuff on HVX: Halide's select((x % 2) == 0, a(x / 2), b(x /
// 2))); other constant selects go through TargetHooks::constant_select.
bool FunctionCodegen::interleave_select(llvm::Constant* cond, llvm::Value* t, llvm::Value* f) {
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(t->getType());
  if (!vt) return false;
  int n = static_cast<int>(vt->getNumElements());
  // Side s's lane i as (source, element), from its single-source shuffle or itself.
  auto source_of = [&](llvm::Value* v, int i) -> std::pair<llvm::Value*, int> {
    if (auto* sh = llvm::dyn_cast<llvm::ShuffleVectorInst>(v)) {
      int m = sh->getMaskValue(static_cast<unsigned>(i));
      int w = static_cast<int>(llvm::cast<llvm::FixedVectorType>(sh->getOperand(0)->getType())->getNumElements());
      if (m < 0) return {nullptr, -1};
      return m < w ? std::pair<llvm::Value*, int>{sh->getOperand(0), m} : std::pair<llvm::Value*, int>{sh->getOperand(1), m - w};
    }
    return {v, i};
  };
  int u = 0;  // the run length
  for (int i = 0; i < n && !u; ++i) {
    llvm::Constant* c = cond->getAggregateElement(static_cast<unsigned>(i));
    if (!c || c->isNullValue()) u = i;
  }
  if (u <= 0 || (u & (u - 1)) != 0 || n % (2 * u)) return false;
  for (int side = 0; side < 2; ++side) {
    llvm::Value* v = side == 0 ? t : f;
    llvm::Value* src = nullptr;
    int next = -1;
    for (int i = 0; i < n; ++i) {
      llvm::Constant* c = cond->getAggregateElement(static_cast<unsigned>(i));
      if (!c) return false;
      bool from_t = !c->isNullValue();
      if (from_t != ((i / u) % 2 == 0)) return false;
      if (from_t != (side == 0)) continue;
      auto [s, e] = source_of(v, i);
      if (!s) return false;
      if (src && (s != src || e != next)) return false;
      src = s;
      next = e + 1;
    }
  }
  return true;
}

// A vector index that is not a ramp but whose lanes are consecutive elements (a fused pair of
// loops: (x0 + j / 64) * 64 + j % 64): the stride-1 ramp at its first lane, so that the access
// is one dense vector access. The index itself otherwise.
Expr FunctionCodegen::dense_index(const Expr& idx) const {
  int lanes = idx.dtype().lanes;
  if (lanes < 2 || idx.as<Ramp>()) return idx;
  Expr base;
  std::vector<int64_t> off;
  if (!lane_offsets(idx, lanes, base, off)) return idx;
  for (int i = 1; i < lanes; ++i)
    if (off[i] != off[0] + i) return idx;
  DataType t = base.dtype();
  Expr at = off[0] ? Binary::make(BinaryOp::Add, base, make_const(t, off[0])) : base;
  return Ramp::make(at, make_const(t, 1), lanes);
}

// A vector load whose lanes are runs of consecutive elements, each a power of two long and at
// least 16 bytes (a fused pair of loops reading I[y, 2 * x + t, c], 64 channels: two runs of
// 64 bytes, 128 apart): one dense load per run, concatenated, instead of a lane-by-lane
// gather. LLVM's Hexagon backend reads such neighbouring short loads as aligned vectors and
// valigns. Null when the load is not of that form.
llvm::Value* FunctionCodegen::runs_load(const Load* op, llvm::Type* mty) {
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(mty);
  if (!vt || op->indices.size() != 1 || op->indices[0].as<Ramp>() || !vt->getElementType()->isIntegerTy() ||
      vt->getScalarSizeInBits() % 8)
    return nullptr;
  int64_t eb = vt->getScalarSizeInBits() / 8;
  int lanes = op->dtype.lanes;
  Expr base;
  std::vector<int64_t> off;
  if (lanes < 2 || !lane_offsets(op->indices[0], lanes, base, off)) return nullptr;
  std::vector<std::pair<int, int>> runs;  // first lane, length
  for (int i = 0; i < lanes;) {
    int n = 1;
    while (i + n < lanes && off[i + n] == off[i] + n) ++n;
    if ((n & (n - 1)) != 0 || n * eb < 16) return nullptr;
    runs.push_back({i, n});
    i += n;
  }
  if (runs.size() < 2) return nullptr;
  DataType t = base.dtype();
  std::vector<llvm::Value*> pieces;
  for (auto [first, n] : runs) {
    Expr at = off[first] ? Binary::make(BinaryOp::Add, base, make_const(t, off[first])) : base;
    pieces.push_back(eval(Load::make(op->buffer, {Ramp::make(at, make_const(t, 1), n)})));
  }
  // Pairwise concatenation, shortest pieces first, keeps every shuffle's operands one type.
  while (pieces.size() > 1) {
    std::vector<llvm::Value*> next;
    for (size_t p = 0; p + 1 < pieces.size(); p += 2) {
      auto* a = llvm::cast<llvm::FixedVectorType>(pieces[p]->getType());
      auto* b = llvm::cast<llvm::FixedVectorType>(pieces[p + 1]->getType());
      if (a->getNumElements() != b->getNumElements()) return nullptr;
      next.push_back(llvm::concatenateVectors(b_, {pieces[p], pieces[p + 1]}));
    }
    if (pieces.size() % 2) return nullptr;
    pieces = std::move(next);
  }
  return pieces[0];
}

// A vector load of n registers (n a power of two, at least 2) whose lanes are a block
// transpose of n dense register-wide rows: lane i reads base + the sum of w_b over the set bits
// b of i (its offsets are linear in the bits of the lane number), and among the weights, one
// each is 1, 2, 4, ..., up to half a register's lanes (the columns of a row); the other
// log2(n) weights are the rows' offsets, any values. The rows are n dense loads; every lane bit
// of a result register that a row bit must fill is one round of 2x2 block transposes of pairs
// of registers (n / 2 of them; HVX: vshuff(Vu, Vv, Rt) with Rt the block's bytes), so a
// u8 block of 16 rows of 128 bytes is 4 rounds of 8 vshuffs, not 2048 scalar loads. The
// transposing stages of the automatic schedule (ScheduleOps.cpp) read their
// input and their scratch block this way. Null when the load is not of that form, or when its
// lanes are already in place (a plain load).
llvm::Value* FunctionCodegen::transposing_load(const Load* op, llvm::Type* mty) {
  int64_t width = target_.vector_bytes;
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(mty);
  if (!width || !vt || op->indices.size() != 1 || op->indices[0].as<Ramp>() || !vt->getElementType()->isIntegerTy() ||
      vt->getScalarSizeInBits() % 8)
    return nullptr;
  int64_t eb = vt->getScalarSizeInBits() / 8;
  int64_t per = width / eb;
  int lanes = op->dtype.lanes;
  auto pow2 = [](int64_t v) { return v > 0 && (v & (v - 1)) == 0; };
  if (width % eb || !pow2(per) || per < 2 || !pow2(lanes) || lanes < 2 * per) return nullptr;
  Expr base;
  std::vector<int64_t> off;
  if (!lane_offsets(op->indices[0], lanes, base, off)) return nullptr;
  int nbits = 0, pbits = 0;
  while ((int64_t(1) << nbits) < lanes) ++nbits;
  while ((int64_t(1) << pbits) < per) ++pbits;
  std::vector<int64_t> w(nbits);
  for (int b = 0; b < nbits; ++b) w[b] = off[size_t(1) << b] - off[0];
  for (int i = 0; i < lanes; ++i) {
    int64_t expect = off[0];
    for (int b = 0; b < nbits; ++b)
      if (i >> b & 1) expect += w[b];
    if (off[i] != expect) return nullptr;
  }
  // Coordinates: 0 .. pbits - 1 the column bits of a row (a source lane bit), pbits + k the
  // k-th row bit (a source register bit). coord[b]: the coordinate lane bit b reads.
  std::vector<int> coord(nbits, -1), row_bits;
  std::vector<bool> column_seen(pbits, false);
  for (int b = 0; b < nbits; ++b) {
    if (pow2(w[b]) && w[b] < per) {
      int q = 0;
      while ((int64_t(1) << q) < w[b]) ++q;
      if (column_seen[q]) return nullptr;  // two lane bits one column apart: lanes repeat
      column_seen[q] = true;
      coord[b] = q;
    } else {
      coord[b] = pbits + static_cast<int>(row_bits.size());
      row_bits.push_back(b);
    }
  }
  for (bool seen : column_seen)
    if (!seen) return nullptr;
  // A row weight that is also a column's would make rows overlap; a weight of 0 repeats lanes.
  for (int b : row_bits)
    if (w[b] == 0) return nullptr;
  // Each lane bit of a result register keeps its column or takes a row bit: one round each.
  // (A column that moves to another lane bit, as in an interleave of rows, would cost two
  // rounds per bit: interleaved_load's rounds of vshuff do those better.)
  bool in_place = true;
  for (int t = 0; t < pbits; ++t) {
    if (coord[t] != t && coord[t] < pbits) return nullptr;
    in_place &= coord[t] == t;
  }
  if (in_place) return nullptr;
  int nrows = 1 << row_bits.size();
  DataType t = base.dtype();
  std::vector<llvm::Value*> regs;
  for (int s = 0; s < nrows; ++s) {
    int64_t at = off[0];
    for (size_t k = 0; k < row_bits.size(); ++k)
      if (s >> k & 1) at += w[row_bits[k]];
    Expr start = at ? Binary::make(BinaryOp::Add, base, make_const(t, at)) : base;
    regs.push_back(eval(Load::make(op->buffer, {Ramp::make(start, make_const(t, 1), static_cast<int>(per))})));
  }
  // Where each coordinate is now: at_lane[p] the coordinate in lane bit p, at_reg[k] the one
  // in register bit k.
  std::vector<int> at_lane(pbits), at_reg(row_bits.size());
  for (int p = 0; p < pbits; ++p) at_lane[p] = p;
  for (size_t k = 0; k < row_bits.size(); ++k) at_reg[k] = pbits + static_cast<int>(k);
  auto swap = [&](int p, size_t k) {  // lane bit p <-> register bit k: one round
    for (int s = 0; s < nrows; ++s) {
      if (s >> k & 1) continue;
      llvm::Value *x = regs[s], *y = regs[s | (1 << k)], *lo = nullptr, *hi = nullptr;
      if (!hooks_->transpose_blocks(b_, x, y, static_cast<unsigned>(eb << p), lo, hi)) {
        std::vector<int> mlo, mhi;
        for (int l = 0; l < per; ++l) {
          bool odd = l >> p & 1;
          mlo.push_back(odd ? static_cast<int>(per + (l ^ (1 << p))) : l);
          mhi.push_back(odd ? static_cast<int>(per + l) : l | (1 << p));
        }
        lo = b_.CreateShuffleVector(x, y, mlo);
        hi = b_.CreateShuffleVector(x, y, mhi);
      }
      regs[s] = lo;
      regs[s | (1 << k)] = hi;
    }
    std::swap(at_lane[p], at_reg[k]);
  };
  for (int p = 0; p < pbits; ++p) {
    int want = coord[p];
    if (at_lane[p] == want) continue;
    auto in_reg = std::find(at_reg.begin(), at_reg.end(), want);
    DSPC_CHECK(in_reg != at_reg.end(), "a row bit a lane bit takes is a register bit");
    swap(p, static_cast<size_t>(in_reg - at_reg.begin()));
  }
  // Result register d: its bits are lane bits pbits.. of the load, each a coordinate now in a
  // register bit.
  std::vector<llvm::Value*> out;
  for (int d = 0; d < nrows; ++d) {
    int s = 0;
    for (int b = pbits; b < nbits; ++b) {
      if (!(d >> (b - pbits) & 1)) continue;
      auto k = std::find(at_reg.begin(), at_reg.end(), coord[b]);
      DSPC_CHECK(k != at_reg.end(), "a result register bit is in a register bit after the rounds");
      s |= 1 << (k - at_reg.begin());
    }
    out.push_back(regs[s]);
  }
  return llvm::concatenateVectors(b_, out);
}

// A vector store whose lanes are runs of consecutive elements, each the same power of two long
// and at least 16 bytes (a transposing stage's store of several output rows at once): one
// dense store per run. False when the store is not of that form.
bool FunctionCodegen::runs_store(const Store* op) {
  DataType vt = op->value.dtype();
  if (op->indices.size() != 1 || op->indices[0].as<Ramp>() || vt.is_bool() || !vt.is_vector()) return false;
  int lanes = vt.lanes;
  int64_t eb = vt.bytes();
  Expr base;
  std::vector<int64_t> off;
  if (!lane_offsets(op->indices[0], lanes, base, off)) return false;
  int n = 1;
  while (n < lanes && off[n] == off[0] + n) ++n;
  if ((n & (n - 1)) != 0 || n * eb < 16 || lanes % n || n == lanes) return false;
  for (int i = 0; i < lanes; ++i)
    if (off[i] != off[i - i % n] + i % n) return false;
  llvm::Value* v = eval(op->value);
  DataType t = base.dtype();
  for (int first = 0; first < lanes; first += n) {
    std::vector<int> mask;
    for (int i = 0; i < n; ++i) mask.push_back(first + i);
    llvm::Value* piece = b_.CreateShuffleVector(v, mask);
    Expr at = off[first] ? Binary::make(BinaryOp::Add, base, make_const(t, off[first])) : base;
    Access a = address(op->buffer, {Ramp::make(at, make_const(t, 1), n)});
    llvm::StoreInst* st = b_.CreateAlignedStore(piece, a.ptr, a.align);
    if (op->buffer->scope == StorageScope::Vtcm && n * eb < target_.vector_bytes) st->setVolatile(true);
  }
  return true;
}

// A vector load whose lanes are runs of one element each, the runs the same power of two long
// and at least 16 bytes (a transposing stage's read of C[y] while its lanes cover several
// output rows y): one scalar load and a broadcast per run, not a lane-by-lane gather. Null
// when the load is not of that form.
llvm::Value* FunctionCodegen::splat_runs_load(const Load* op) {
  int lanes = op->dtype.lanes;
  int64_t eb = op->dtype.bytes();
  if (op->indices.size() != 1 || op->dtype.is_bool() || lanes < 4 || op->indices[0].as<Broadcast>()) return nullptr;
  Expr base;
  std::vector<int64_t> off;
  if (!lane_offsets(op->indices[0], lanes, base, off)) return nullptr;
  int n = 1;
  while (n < lanes && off[n] == off[0]) ++n;
  if ((n & (n - 1)) != 0 || n * eb < 16 || n == lanes || lanes % n) return nullptr;
  for (int i = 0; i < lanes; ++i)
    if (off[i] != off[i - i % n]) return nullptr;
  DataType t = base.dtype();
  std::vector<llvm::Value*> pieces;
  for (int first = 0; first < lanes; first += n) {
    Expr at = off[first] ? Binary::make(BinaryOp::Add, base, make_const(t, off[first])) : base;
    pieces.push_back(eval(Broadcast::make(Load::make(op->buffer, {at}), n)));
  }
  // Every run, in order: an odd number of runs too (7 runs of 4 lanes; pairing them two by two
  // dropped the last, tests/difftest/regressions/splat_runs_odd_count.dsp).
  return llvm::concatenateVectors(b_, pieces);
}

llvm::Value* FunctionCodegen::eval_load(const Load* op) {
  if (op->indices.size() == 1 && op->dtype.is_vector()) {
    Expr dense = dense_index(op->indices[0]);
    if (!dense.same_as(op->indices[0])) return eval_load(Load::make(op->buffer, {dense}, op->span).as<Load>());
  }
  llvm::Type* mty = memory_type(ctx_, op->dtype);
  if (llvm::Value* v = direct_load(op, mty)) return v;
  if (llvm::Value* v = span_load(op, mty)) return v;
  if (!op->dtype.is_bool())
    if (llvm::Value* v = realigned_load(op, mty)) return v;
  if (!op->dtype.is_bool() && op->dtype.is_vector())
    if (llvm::Value* v = transposing_load(op, mty)) return v;
  if (!op->dtype.is_bool() && op->dtype.is_vector())
    if (llvm::Value* v = interleaved_load(op, mty)) return v;
  if (!op->dtype.is_bool() && op->dtype.is_vector())
    if (llvm::Value* v = window_load(op, mty)) return v;
  if (!op->dtype.is_bool() && op->dtype.is_vector())
    if (llvm::Value* v = runs_load(op, mty)) return v;
  if (!op->dtype.is_bool() && op->dtype.is_vector())
    if (llvm::Value* v = splat_runs_load(op)) return v;
  if (!op->dtype.is_bool() && op->dtype.is_vector())
    if (llvm::Value* v = table_load(op, mty)) return v;
  Access a = address(op->buffer, op->indices);
  llvm::Value* v = nullptr;
  if (a.is_gather && target_.arch == Arch::hexagon) {
    // Lane by lane, as LLVM would scalarize llvm.masked.gather for Hexagon anyway (no HVX
    // gather from ordinary memory): LLVM 19 aborts on some small gathers whose result is
    // truncated and compared ("Do not know how to scalarize", found by tools/difftest.py).
    auto* vt = llvm::cast<llvm::FixedVectorType>(mty);
    v = llvm::PoisonValue::get(vt);
    for (unsigned i = 0; i < vt->getNumElements(); ++i) {
      llvm::Value* p = b_.CreateExtractElement(a.ptr, b_.getInt32(i));
      v = b_.CreateInsertElement(v, b_.CreateAlignedLoad(vt->getElementType(), p, a.align), b_.getInt32(i));
    }
  } else if (a.is_gather) {
    auto* mask = llvm::ConstantInt::getTrue(
        llvm::VectorType::get(b_.getInt1Ty(), llvm::cast<llvm::VectorType>(mty)->getElementCount()));
    v = b_.CreateMaskedGather(mty, a.ptr, a.align, mask);
  } else if (int64_t piece = split_bytes(mty)) {
    // One load per vector register, concatenated.
    auto* vt = llvm::cast<llvm::FixedVectorType>(mty);
    unsigned n = piece / (vt->getScalarSizeInBits() / 8);
    auto* pt = llvm::FixedVectorType::get(vt->getElementType(), n);
    std::vector<llvm::Value*> parts;
    for (unsigned k = 0; k < vt->getNumElements(); k += n) {
      llvm::Value* p = b_.CreateConstInBoundsGEP1_32(vt->getElementType(), a.ptr, k);
      parts.push_back(b_.CreateAlignedLoad(pt, p, llvm::commonAlignment(a.align, k * (piece / n))));
    }
    v = llvm::concatenateVectors(b_, parts);
  } else {
    v = b_.CreateAlignedLoad(mty, a.ptr, a.align);
  }
  if (op->dtype.is_bool()) return b_.CreateICmpNE(v, constant(mty, 0));
  return v;
}

// A gather from a small table: a load of 8-, 16- or 32-bit elements whose index, by its bounds
// (IndexBounds: a byte read from memory is in [0, 255], a clamp bounds its value), reads at most
// 256 elements lo..hi of the buffer, all inside it (T[i32(I[x])], T[i32(clamp(J[x], 0, 63))]).
// The table's registers (the aligned vectors holding its elements, realigned) and the index
// minus lo as bytes, looked up by the target (TargetHooks::table_lookup, HVX: vlut32/vlut16)
// per register of indices (32-bit elements as two halfword tables), instead of a lane-by-lane
// gather. Null otherwise.
llvm::Value* FunctionCodegen::table_load(const Load* op, llvm::Type* mty) {
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(mty);
  int64_t width = target_.vector_bytes;
  if (!vt || !width || op->indices.size() != 1 || !vt->getElementType()->isIntegerTy() ||
      (vt->getScalarSizeInBits() != 8 && vt->getScalarSizeInBits() != 16 && vt->getScalarSizeInBits() != 32))
    return nullptr;
  const Expr& idx = op->indices[0];
  if (!idx.dtype().is_integer() || idx.dtype().lanes < 2) return nullptr;
  Expr base;
  std::vector<int64_t> off;
  if (lane_offsets(idx, op->dtype.lanes, base, off)) return nullptr;  // the other loads' case
  Interval r = IndexBounds().of(idx);
  int64_t n = op->buffer->num_elements();
  if (r.lo < 0 || r.hi >= n || r.hi - r.lo >= 256) return nullptr;
  int64_t lo = static_cast<int64_t>(r.lo), hi = static_cast<int64_t>(r.hi);
  unsigned eb = vt->getScalarSizeInBits() / 8;
  unsigned per = unsigned(width) / eb;
  unsigned entries = unsigned(hi - lo + 1);
  // The table: per register, the window of its elements (no aligned vector past hi's read).
  auto* piece_ty = llvm::FixedVectorType::get(vt->getElementType(), per);
  llvm::Value* start = handle_of(op->buffer);
  std::vector<llvm::Value*> table;
  for (int64_t at = lo; at <= hi; at += per) {
    llvm::Value* first = b_.CreateConstGEP1_64(vt->getElementType(), start, at);
    llvm::Value* last = b_.CreateConstGEP1_64(vt->getElementType(), start, std::min<int64_t>(at + per - 1, hi));
    llvm::Value* w = hooks_->load_window(b_, piece_ty, first, last);
    if (!w) return nullptr;
    table.push_back(w);
  }
  // 32-bit elements: their low and their high halves as two halfword tables, looked up apart
  // and interleaved back into words.
  std::vector<llvm::Value*> halves[2];
  if (eb == 4) {
    auto* wide_ty = llvm::FixedVectorType::get(b_.getInt32Ty(), 2 * per);
    auto* half_ty = llvm::FixedVectorType::get(b_.getInt16Ty(), 2 * per);
    for (size_t t = 0; t < table.size(); t += 2) {
      llvm::Value* two = t + 1 < table.size() ? llvm::concatenateVectors(b_, {table[t], table[t + 1]})
                                              : llvm::concatenateVectors(b_, {table[t], llvm::PoisonValue::get(piece_ty)});
      two = b_.CreateBitCast(two, wide_ty);
      halves[0].push_back(b_.CreateTrunc(two, half_ty));
      halves[1].push_back(b_.CreateTrunc(b_.CreateLShr(two, 16), half_ty));
    }
  }
  // The index minus lo as bytes: a byte vector widened by a cast is read as it is.
  llvm::Value* bytes = nullptr;
  const auto* c = idx.as<Cast>();
  if (c && lo == 0 && c->value.dtype().is_uint() && c->value.dtype().bits == 8) {
    bytes = eval(c->value);
  } else {
    Expr narrow = c && c->value.dtype().is_integer() && c->value.dtype().bits < idx.dtype().bits ? c->value : idx;
    llvm::Value* x = eval(narrow);
    if (lo) x = b_.CreateSub(x, constant(x->getType(), lo));
    bytes = b_.CreateTrunc(x, llvm::FixedVectorType::get(b_.getInt8Ty(), unsigned(op->dtype.lanes)));
  }
  unsigned lanes = unsigned(op->dtype.lanes), step = unsigned(width);
  std::vector<llvm::Value*> parts;
  for (unsigned at = 0; at < lanes; at += step) {
    std::vector<int> mask;
    for (unsigned i = 0; i < step; ++i) mask.push_back(at + i < lanes ? int(at + i) : -1);
    llvm::Value* chunk = b_.CreateShuffleVector(bytes, mask);
    if (eb == 4) {
      llvm::Value* low = hooks_->table_lookup(b_, halves[0], entries, chunk);
      llvm::Value* high = low ? hooks_->table_lookup(b_, halves[1], entries, chunk) : nullptr;
      if (!high) return nullptr;
      llvm::Value* words = b_.CreateShuffleVector(low, high, llvm::createInterleaveMask(step, 2));
      parts.push_back(b_.CreateBitCast(words, llvm::FixedVectorType::get(b_.getInt32Ty(), step)));
      continue;
    }
    llvm::Value* v = hooks_->table_lookup(b_, table, entries, chunk);
    if (!v) return nullptr;
    parts.push_back(v);
  }
  llvm::Value* whole = parts.size() == 1 ? parts[0] : llvm::concatenateVectors(b_, parts);
  if (llvm::cast<llvm::FixedVectorType>(whole->getType())->getNumElements() != lanes) {
    std::vector<int> mask;
    for (unsigned i = 0; i < lanes; ++i) mask.push_back(int(i));
    whole = b_.CreateShuffleVector(whole, mask);
  }
  return b_.CreateBitCast(whole, mty);
}

int64_t FunctionCodegen::split_bytes(llvm::Type* t) const {
  int64_t piece = target_.vector_bytes;
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(t);
  if (!piece || !vt || !vt->getElementType()->isIntegerTy() || vt->getScalarSizeInBits() % 8) return 0;
  int64_t bytes = vt->getNumElements() * (vt->getScalarSizeInBits() / 8);
  return bytes > piece && bytes % piece == 0 ? piece : 0;
}

llvm::Value* FunctionCodegen::handle_of(const Buffer& b) {
  auto it = vars_.find(b->data.get());
  if (it == vars_.end() || !it->second->getType()->isPointerTy())
    throw CodegenError("buffer " + b->name + " is used outside the scope of its data variable");
  return it->second;
}

llvm::Value* FunctionCodegen::to_index(llvm::Value* v, DataType t) {
  llvm::Type* ty = index_type_;
  if (t.lanes > 1) ty = llvm::FixedVectorType::get(index_type_, t.lanes);
  return t.is_int() ? b_.CreateSExtOrTrunc(v, ty) : b_.CreateZExtOrTrunc(v, ty);
}

FunctionCodegen::Access FunctionCodegen::address(const Buffer& buf, const std::vector<Expr>& indices) {
  llvm::Value* base = handle_of(buf);
  llvm::Type* elem = memory_type(ctx_, buf->dtype);
  int64_t eb = buf->dtype.bytes();
  llvm::Value* linear = nullptr;
  int64_t multiple = kMaxMultiple;
  bool vector = false;
  if (indices.size() == 1) {
    const Expr& idx = indices[0];
    const auto* ramp = idx.as<Ramp>();
    std::optional<int64_t> stride = ramp ? const_int(ramp->stride) : std::nullopt;
    if (ramp && stride && *stride == 1) {
      linear = to_index(eval(ramp->base), ramp->base.dtype());
      multiple = known_multiple(ramp->base);
    } else {
      linear = to_index(eval(idx), idx.dtype());
      multiple = known_multiple(idx);
      vector = idx.dtype().lanes > 1;
    }
  } else {
    // Not flattened: row-major linearisation of scalar indices.
    int64_t stride = buf->num_elements();
    for (size_t k = 0; k < indices.size(); ++k) {
      if (indices[k].dtype().lanes > 1)
        throw CodegenError("vector index into multi-dimensional buffer " + buf->name);
      stride /= buf->shape[k];
      llvm::Value* term =
          b_.CreateMul(to_index(eval(indices[k]), indices[k].dtype()), constant(index_type_, stride));
      linear = linear ? b_.CreateAdd(linear, term) : term;
      multiple =
          std::min(multiple, std::min(known_multiple(indices[k]) * low_power_of_two(stride), kMaxMultiple));
    }
  }
  auto it = handle_align_.find(buf->data.get());
  int64_t base_align = low_power_of_two(it == handle_align_.end() ? eb : it->second);
  int64_t align = std::max(eb, std::min<int64_t>({multiple * eb, base_align, target_.alloc_alignment}));
  if (vector) align = eb;
  llvm::Value* ptr = b_.CreateInBoundsGEP(elem, base, linear);
  return {ptr, vector, llvm::Align(align)};
}

int64_t FunctionCodegen::known_multiple(const Expr& e) const {
  switch (e.kind()) {
    case NodeKind::IntImm: return low_power_of_two(e.as<IntImm>()->value);
    case NodeKind::Var: {
      auto it = var_multiple_.find(e.as<VarNode>());
      return it == var_multiple_.end() ? 1 : it->second;
    }
    case NodeKind::Ramp: return known_multiple(e.as<Ramp>()->base);
    case NodeKind::Broadcast: return known_multiple(e.as<Broadcast>()->value);
    case NodeKind::Cast: {
      const auto* op = e.as<Cast>();
      if (!op->dtype.is_integer() || !op->value.dtype().is_integer()) return 1;
      return std::min(known_multiple(op->value), int64_t(1) << std::min(op->dtype.bits - 1, 20));
    }
    case NodeKind::Binary: {
      // Divisibility by 2^k (k < bits) survives wrap-around, so wrapping ops keep it.
      const auto* op = e.as<Binary>();
      int64_t a = known_multiple(op->a);
      // min and max are one of their operands (a split's last vector shifted inwards:
      // min(x_o * 64, 136) is a multiple of 8).
      if (op->op == BinaryOp::Add || op->op == BinaryOp::Sub || op->op == BinaryOp::Min || op->op == BinaryOp::Max)
        return std::min(a, known_multiple(op->b));
      if (op->op == BinaryOp::Mul) return std::min(a * known_multiple(op->b), kMaxMultiple);
      std::optional<int64_t> c = const_int(op->b);
      if (op->op == BinaryOp::Shl && c && *c >= 0 && *c < 20) return std::min(a << *c, kMaxMultiple);
      // An exact division by a positive constant (the dividend a multiple of it): x_o * 128 / 2.
      if (op->op == BinaryOp::Div && c && *c > 0 && a % *c == 0) return low_power_of_two(a / *c);
      return 1;
    }
    default: return 1;
  }
}

}  // namespace dspc::codegen
