// HVX instruction selection from the idiom table (HvxIdioms.def, which documents the
// pattern language and the forms).
//
// 1. The table's patterns are parsed once into trees; a pattern that does not parse is a bug
//    of the table (hvx_table_error, checked by a unit test).
// 2. Matching walks a pattern and a TIR expression together, binding `$x` operands and `#k`
//    constants; add, mul, min and max try both operand orders, (clamp ...) both nestings,
//    (shr? ...) the shift and then its absence, (sat T ...) each clamp or its proof by
//    IndexBounds. A row also needs its Hexagon version and
//    whole HVX registers of every operand.
// 3. Emission splits the operands into HVX registers, converts each to the intrinsic's
//    parameter types (Form: lanes as they are, a pair deinterleaved, a pair's halves),
//    calls llvm.hexagon.V6.<name>.128B once per register of the result and puts the pieces
//    back in dspc's lane order.
// 4. After LLVM's pipeline, DSPC_HVX_FUSE rows pair chained widening multiply-adds.
#include "codegen/HvxIdioms.h"

#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/Transforms/Utils/Local.h>
#include <llvm/Support/MathExtras.h>

#include <algorithm>
#include <iterator>
#include <mutex>
#include <set>
#include <sstream>

#include "codegen/CodegenLLVM.h"
#include "compiler/arith/IndexBounds.h"
#include "compiler/ir/ScalarOnly.h"
#include "compiler/ir/Printer.h"

namespace dspc::codegen {

enum class HvxForm { Lanes, Widen, Narrow, Pack, Pair, Custom };

namespace {

// ---------------------------------------------------------------- patterns

struct Pattern {
  enum Kind { Binary, Cast, Wide, Bcast, Clamp, Half, OptShr, Sat, Wild, Constant, Literal } kind = Wild;
  BinaryOp op = BinaryOp::Add;
  DataType type;           // Cast, Sat: the lane type cast to; Wild: the operand's lane type
  std::string scalar;      // Wild: "sbyte", "ubyte", "shalf", "uhalf" or "shamt" for a scalar under a
                           // broadcast, else empty
  std::string name;        // Wild, Constant: the bound name
  int64_t lo = 0, hi = 0;  // Constant: its range; Literal: lo is the value
  std::vector<Pattern> kids;
  bool pow2 = false;       // Constant: a power of two 2^k (k in [1, bits), at most hi), bound to k
  std::string round_of;    // Constant: 2^(k-1) for the constant named here (k >= 1), a
                           // rounding shift's term
  bool unwidened = false;  // Wild ($x:T!): not a cast from a narrower integer type
  bool signed_only = false;  // Wide: the wider type must be signed (swide)
};

// A parse error of a pattern string, with where it happened.
struct PatternError {
  std::string message;
};

class PatternParser {
 public:
  explicit PatternParser(const std::string& text) : s_(text) {}

  Pattern parse() {
    Pattern p = node();
    skip();
    if (at_ < s_.size()) fail("text after the pattern");
    return p;
  }

 private:
  void skip() {
    while (at_ < s_.size() && s_[at_] == ' ') ++at_;
  }
  [[noreturn]] void fail(const std::string& what) {
    throw PatternError{what + " at offset " + std::to_string(at_) + " of \"" + s_ + "\""};
  }
  std::string word() {
    skip();
    size_t start = at_;
    while (at_ < s_.size() && s_[at_] != ' ' && s_[at_] != '(' && s_[at_] != ')') ++at_;
    if (start == at_) fail("expected a word");
    return s_.substr(start, at_ - start);
  }
  static std::optional<DataType> lane_type(const std::string& w) {
    static const std::map<std::string, DataType> types = {{"u8", DataType::u8()},   {"i8", DataType::i8()},
                                                          {"u16", DataType::u16()}, {"i16", DataType::i16()},
                                                          {"u32", DataType::u32()}, {"i32", DataType::i32()}};
    auto it = types.find(w);
    return it == types.end() ? std::nullopt : std::optional<DataType>(it->second);
  }
  Pattern node() {
    skip();
    if (at_ >= s_.size()) fail("unexpected end");
    Pattern p;
    if (s_[at_] == '(') {
      ++at_;
      std::string head = word();
      static const std::map<std::string, BinaryOp> ops = {
          {"add", BinaryOp::Add}, {"sub", BinaryOp::Sub}, {"mul", BinaryOp::Mul}, {"div", BinaryOp::Div},
          {"min", BinaryOp::Min}, {"max", BinaryOp::Max}, {"shr", BinaryOp::Shr}, {"shl", BinaryOp::Shl}};
      size_t arity = 0;
      if (auto it = ops.find(head); it != ops.end()) {
        p.kind = Pattern::Binary;
        p.op = it->second;
        arity = 2;
      } else if (auto t = lane_type(head)) {
        p.kind = Pattern::Cast;
        p.type = *t;
        arity = 1;
      } else if (head == "wide" || head == "swide") {
        p.kind = Pattern::Wide;
        p.signed_only = head == "swide";
        arity = 1;
      } else if (head == "bcast") {
        p.kind = Pattern::Bcast;
        arity = 1;
      } else if (head == "half") {
        p.kind = Pattern::Half;
        arity = 1;
      } else if (head == "clamp") {
        p.kind = Pattern::Clamp;
        arity = 3;
      } else if (head == "shr?") {
        p.kind = Pattern::OptShr;
        arity = 2;
      } else if (head == "sat") {
        p.kind = Pattern::Sat;
        std::string t = word();
        auto type = lane_type(t);
        if (!type) fail("(sat T A) needs a lane type, got '" + t + "'");
        p.type = *type;
        arity = 1;
      } else {
        fail("unknown operator '" + head + "'");
      }
      for (size_t k = 0; k < arity; ++k) p.kids.push_back(node());
      skip();
      if (at_ >= s_.size() || s_[at_] != ')') fail("expected ')'");
      ++at_;
      if (p.kind == Pattern::OptShr && p.kids[1].kind != Pattern::Constant) fail("(shr? A #k) needs a #k");
      return p;
    }
    std::string w = word();
    if (w[0] == '$' || w[0] == '#') {
      size_t colon = w.find(':');
      if (colon == std::string::npos || colon < 2) fail("expected " + w.substr(0, 1) + "name:type");
      p.name = w.substr(1, colon - 1);
      std::string type = w.substr(colon + 1);
      if (w[0] == '#' && type.rfind("pow2", 0) == 0) {
        // #k:pow2, or #k:pow2..HI with k at most HI.
        p.kind = Pattern::Constant;
        p.pow2 = true;
        p.hi = type.size() > 6 && type.compare(4, 2, "..") == 0 ? std::stoll(type.substr(6)) : 64;
        if (type != "pow2" && type.compare(4, 2, "..") != 0) fail("expected #name:pow2 or #name:pow2..HI");
        return p;
      }
      if (w[0] == '#' && type.rfind("round_", 0) == 0) {
        p.kind = Pattern::Constant;
        p.round_of = type.substr(6);
        if (p.round_of.empty()) fail("expected #name:round_K");
        return p;
      }
      if (w[0] == '#') {
        size_t dots = type.find("..");
        if (dots == std::string::npos) fail("expected #name:LO..HI");
        p.kind = Pattern::Constant;
        p.lo = std::stoll(type.substr(0, dots));
        p.hi = std::stoll(type.substr(dots + 2));
        return p;
      }
      p.kind = Pattern::Wild;
      if (type == "sbyte" || type == "ubyte" || type == "shamt" || type == "shalf" || type == "uhalf") {
        p.scalar = type;
      } else if (auto t = lane_type(type.back() == '!' ? type.substr(0, type.size() - 1) : type)) {
        p.type = *t;
        p.unwidened = type.back() == '!';
      } else {
        fail("unknown operand type '" + type + "'");
      }
      return p;
    }
    p.kind = Pattern::Literal;
    try {
      p.lo = std::stoll(w);
    } catch (...) {
      fail("expected a pattern, got '" + w + "'");
    }
    return p;
  }

  std::string s_;
  size_t at_ = 0;
};

// ---------------------------------------------------------------- the table

// A row's intrinsic: llvm.hexagon.V6.<name>.128B with the name's '_' as '.' (vmpybus_acc is
// llvm.hexagon.V6.vmpybus.acc.128B).
std::string intrinsic_name(const std::string& name) {
  std::string full = "llvm.hexagon.V6." + name + ".128B";
  for (char& c : full)
    if (c == '_') c = '.';
  return full;
}

llvm::Intrinsic::ID intrinsic_id(const std::string& name) {
  return llvm::Function::lookupIntrinsicID(intrinsic_name(name));
}

}  // namespace

struct HvxIdiom {
  const char* name;
  const char* instruction;
  const char* pattern_text;
  HvxForm form;
  std::vector<std::string> operands;
  int min_version;
  bool (*matcher)(const Expr&, HvxMatch&);
  llvm::Value* (*emitter)(llvm::IRBuilder<>&, const HvxMatch&, const std::vector<llvm::Value*>&);
  Pattern pattern;
};

namespace {

bool match_window(const Expr& e, HvxMatch& m);
llvm::Value* emit_window(llvm::IRBuilder<>& b, const HvxMatch& m, const std::vector<llvm::Value*>& values);
bool match_dot(const Expr& e, HvxMatch& m);
llvm::Value* emit_dot(llvm::IRBuilder<>& b, const HvxMatch& m, const std::vector<llvm::Value*>& values);
bool match_mul_i32(const Expr& e, HvxMatch& m);
llvm::Value* emit_mul_i32(llvm::IRBuilder<>& b, const HvxMatch& m, const std::vector<llvm::Value*>& values);
bool match_vreduce(const Expr& e, HvxMatch& m);
llvm::Value* emit_vreduce(llvm::IRBuilder<>& b, const HvxMatch& m, const std::vector<llvm::Value*>& values);
bool match_fixed_mul(const Expr& e, HvxMatch& m);
llvm::Value* emit_fixed_mul(llvm::IRBuilder<>& b, const HvxMatch& m, const std::vector<llvm::Value*>& values);
bool match_wide_arith_row(const Expr& e, HvxMatch& m);
llvm::Value* emit_wide_arith(llvm::IRBuilder<>& b, const HvxMatch& m, const std::vector<llvm::Value*>& values);
bool match_shift_bytes(const Expr& e, HvxMatch& m);
bool match_sign_bits(const Expr& e, HvxMatch& m);
llvm::Value* emit_sign_bits(llvm::IRBuilder<>& b, const HvxMatch& m, const std::vector<llvm::Value*>& values);
bool match_round_narrow_words(const Expr& e, HvxMatch& m);
bool match_pack_sat_bytes(const Expr& e, HvxMatch& m);
bool match_sat_shift_narrow(const Expr& e, HvxMatch& m);
llvm::Value* emit_sat_shift_narrow(llvm::IRBuilder<>& b, const HvxMatch& m, const std::vector<llvm::Value*>& values);
llvm::Value* emit_pack_sat_bytes(llvm::IRBuilder<>& b, const HvxMatch& m, const std::vector<llvm::Value*>& values);
llvm::Value* emit_shift_bytes(llvm::IRBuilder<>& b, const HvxMatch& m, const std::vector<llvm::Value*>& values);

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

struct Table {
  std::vector<HvxIdiom> rows;
  struct Fuse {
    std::string from, to;
    int min_version;
  };
  std::vector<Fuse> fuse;
  std::optional<std::string> error;
};

const Table& table() {
  static Table t = [] {
    Table t;
    auto add = [&](HvxIdiom row) {
      if (row.pattern_text[0]) {
        try {
          row.pattern = PatternParser(row.pattern_text).parse();
        } catch (const PatternError& e) {
          if (!t.error) t.error = std::string(row.name) + ": " + e.message;
          return;
        }
      }
      t.rows.push_back(std::move(row));
    };
#define DSPC_HVX_IDIOM(name, instruction, pattern, form, operands, min_version) \
  add({#name, instruction, pattern, HvxForm::form, words(operands), min_version, nullptr, nullptr, {}});
#define DSPC_HVX_CUSTOM(name, instruction, matcher, emitter, min_version) \
  add({#name, instruction, "", HvxForm::Custom, {}, min_version, matcher, emitter, {}});
#define DSPC_HVX_FUSE(from, to, min_version) \
  t.fuse.push_back({#from, #to, min_version});
#include "codegen/HvxIdioms.def"
    return t;
  }();
  return t;
}

// ---------------------------------------------------------------- matching

struct Bindings {
  std::map<std::string, Expr> exprs;
  std::map<std::string, int64_t> constants;
  std::vector<std::pair<int64_t, std::string>> rounds;  // #r:round_k: r's value, and k
};

// Whether every #r:round_k bound 2^(k-1) of its k.
bool rounds_hold(const Bindings& b) {
  for (const auto& [r, k] : b.rounds) {
    auto it = b.constants.find(k);
    if (it == b.constants.end() || it->second < 1 || it->second > 62 || r != int64_t(1) << (it->second - 1))
      return false;
  }
  return true;
}

bool bind_expr(Bindings& b, const std::string& name, const Expr& e) {
  auto it = b.exprs.find(name);
  if (it == b.exprs.end()) {
    b.exprs[name] = e;
    return true;
  }
  return same_expr(it->second, e);
}

// The byte a broadcast scalar is: an 8-bit integer widened by a cast, or a constant in the
// byte's range ("sbyte": i8, and the constant of a signed type; "ubyte": u8).
Expr scalar_byte(const Expr& v, const std::string& kind) {
  bool want_signed = kind == "sbyte";
  if (const auto* i = v.as<IntImm>()) {
    if (want_signed && v.dtype().is_int() && i->value >= -128 && i->value <= 127)
      return make_const(DataType::i8(), i->value);
    if (!want_signed && i->value >= 0 && i->value <= 255) return make_const(DataType::u8(), i->value);
    return Expr();
  }
  const auto* c = v.as<dspc::Cast>();
  if (!c) return Expr();
  DataType from = c->value.dtype();
  if (from.bits != 8 || !from.is_integer() || from.is_int() != want_signed) return Expr();
  return c->value;
}

// The halfword a broadcast scalar is, as the 32-bit word the multiplies take (the halfword in
// both halves): a value proved inside [-32768, 32767] ("shalf") or [0, 65535] ("uhalf").
Expr scalar_half_word(const Expr& v, const std::string& kind) {
  if (!v.dtype().is_integer()) return Expr();
  Interval r = IndexBounds().of(v);
  bool fits = kind == "shalf" ? r.lo >= -32768 && r.hi <= 32767 : r.lo >= 0 && r.hi <= 65535;
  if (!fits) return Expr();
  if (std::optional<int64_t> c = const_int(v)) {
    uint32_t h = static_cast<uint32_t>(*c) & 0xffffu;
    return make_const(DataType::i32(), static_cast<int32_t>(h * 0x10001u));
  }
  Expr half = Cast::make(DataType::i32(), Cast::make(DataType::u16(), v));
  return Binary::make(BinaryOp::Mul, half, make_const(DataType::i32(), 0x10001));
}

bool match(const Pattern& p, const Expr& e, Bindings& b);

bool match_binary(const Pattern& p, const Expr& x, const Expr& y, Bindings& b) {
  Bindings saved = b;
  if (match(p.kids[0], x, b) && match(p.kids[1], y, b)) return true;
  b = saved;
  bool commutes =
      p.op == BinaryOp::Add || p.op == BinaryOp::Mul || p.op == BinaryOp::Min || p.op == BinaryOp::Max;
  if (commutes && match(p.kids[0], y, b) && match(p.kids[1], x, b)) return true;
  b = saved;
  return false;
}

bool match(const Pattern& p, const Expr& e, Bindings& b) {
  switch (p.kind) {
    case Pattern::Binary: {
      const auto* op = e.as<dspc::Binary>();
      return op && op->op == p.op && match_binary(p, op->a, op->b, b);
    }
    case Pattern::Cast: {
      const auto* c = e.as<dspc::Cast>();
      return c && c->dtype.bits == p.type.bits && c->dtype.code == p.type.code &&
             match(p.kids[0], c->value, b);
    }
    case Pattern::Wide: {
      // An integer cast to at least twice the width: signed when the value is (and for swide).
      const auto* c = e.as<dspc::Cast>();
      if (!c || !c->dtype.is_integer() || !c->value.dtype().is_integer() ||
          c->dtype.bits < 2 * c->value.dtype().bits)
        return false;
      if ((p.signed_only || c->value.dtype().is_int()) && !c->dtype.is_int()) return false;
      return match(p.kids[0], c->value, b);
    }
    case Pattern::Bcast: {
      const auto* c = e.as<Broadcast>();
      if (!c) return false;
      const Pattern& k = p.kids[0];
      if (k.kind == Pattern::Wild && k.scalar == "shamt") {
        // A shift amount: an integer scalar proved inside [0, bits) of the lanes it shifts,
        // where dspc's shift and the instruction's (which reads the amount modulo bits) agree.
        // Constant amounts stay LLVM's, which folds them into its own shift patterns.
        DataType t = c->value.dtype();
        if (!t.is_integer() || const_int(c->value)) return false;
        // Bound as the 32-bit word the instruction takes (exact: the amount is below bits).
        Interval r = IndexBounds().of(c->value);
        return r.lo >= 0 && r.hi < t.bits && bind_expr(b, k.name, Cast::make(DataType::i32(), c->value));
      }
      if (k.kind == Pattern::Wild && (k.scalar == "shalf" || k.scalar == "uhalf")) {
        Expr word = scalar_half_word(c->value, k.scalar);
        return word && bind_expr(b, k.name, word);
      }
      if (k.kind == Pattern::Wild && !k.scalar.empty()) {
        Expr byte = scalar_byte(c->value, k.scalar);
        return byte && bind_expr(b, k.name, byte);
      }
      return match(k, c->value, b);
    }
    case Pattern::Clamp: {
      // min(max(A, LO), HI) or max(min(A, HI), LO), each operator in either order.
      Pattern inner_max{Pattern::Binary, BinaryOp::Max, {}, {}, {}, 0, 0, {p.kids[0], p.kids[1]}};
      Pattern outer_min{Pattern::Binary, BinaryOp::Min, {}, {}, {}, 0, 0, {inner_max, p.kids[2]}};
      Pattern inner_min{Pattern::Binary, BinaryOp::Min, {}, {}, {}, 0, 0, {p.kids[0], p.kids[2]}};
      Pattern outer_max{Pattern::Binary, BinaryOp::Max, {}, {}, {}, 0, 0, {inner_min, p.kids[1]}};
      Bindings saved = b;
      if (match(outer_min, e, b)) return true;
      b = saved;
      if (match(outer_max, e, b)) return true;
      b = saved;
      return false;
    }
    case Pattern::Sat: {
      // A cast to T of A saturated to T's range: each clamp of A to a bound of T, min(A, HI)
      // and max(A, LO) in either order, may be left out where A is proved inside that bound
      // (dspc's simplifier drops the clamps it proves idle).
      const auto* c = e.as<dspc::Cast>();
      if (!c || c->dtype.bits != p.type.bits || c->dtype.code != p.type.code || !c->value.dtype().is_integer() ||
          c->value.dtype().bits <= p.type.bits)
        return false;
      int64_t lo = p.type.is_int() ? -(int64_t(1) << (p.type.bits - 1)) : 0;
      int64_t hi = p.type.is_int() ? (int64_t(1) << (p.type.bits - 1)) - 1 : (int64_t(1) << p.type.bits) - 1;
      Expr a = c->value;
      bool lo_held = false, hi_held = false;
      for (int peel = 0; peel < 2; ++peel) {
        const auto* op = a.as<dspc::Binary>();
        if (!op || (op->op != BinaryOp::Min && op->op != BinaryOp::Max)) break;
        int64_t bound = op->op == BinaryOp::Min ? hi : lo;
        bool& held = op->op == BinaryOp::Min ? hi_held : lo_held;
        if (held) break;
        if (const_int(op->b) == std::optional<int64_t>(bound)) {
          a = op->a;
        } else if (const_int(op->a) == std::optional<int64_t>(bound)) {
          a = op->b;
        } else {
          break;
        }
        held = true;
      }
      if (!lo_held || !hi_held) {
        Interval r = IndexBounds().of(a);
        lo_held = lo_held || r.lo >= lo;
        hi_held = hi_held || r.hi <= hi;
      }
      return lo_held && hi_held && match(p.kids[0], a, b);
    }
    case Pattern::Half: {
      // Floor division by two is an arithmetic (or logical) shift right by one.
      const auto* op = e.as<dspc::Binary>();
      if (!op || !e.dtype().is_integer()) return false;
      std::optional<int64_t> k = const_int(op->b);
      bool half = (op->op == BinaryOp::Div && k == std::optional<int64_t>(2)) ||
                  (op->op == BinaryOp::Shr && k == std::optional<int64_t>(1));
      return half && match(p.kids[0], op->a, b);
    }
    case Pattern::OptShr: {
      Bindings saved = b;
      if (const auto* op = e.as<dspc::Binary>(); op && op->op == BinaryOp::Shr)
        if (match(p.kids[0], op->a, b) && match(p.kids[1], op->b, b)) return true;
      b = saved;
      if (match(p.kids[0], e, b)) {
        b.constants[p.kids[1].name] = 0;
        return true;
      }
      b = saved;
      return false;
    }
    case Pattern::Wild:
      if (!p.scalar.empty()) return false;  // only under a broadcast
      if (e.dtype().lanes < 2 || e.dtype().bits != p.type.bits || e.dtype().code != p.type.code) return false;
      if (p.unwidened)
        if (const auto* c = e.as<dspc::Cast>(); c && c->value.dtype().is_integer() && c->value.dtype().bits < p.type.bits)
          return false;
      return bind_expr(b, p.name, e);
    case Pattern::Constant: {
      auto v = const_int(e);
      if (v && p.pow2) {
        // 2^k with k in [1, bits): x * 2^k is x << k, and floor division by it x >> k.
        if (*v < 2 || !llvm::isPowerOf2_64(uint64_t(*v)) || int(llvm::Log2_64(uint64_t(*v))) >= e.dtype().bits ||
            int64_t(llvm::Log2_64(uint64_t(*v))) > p.hi)
          return false;
        v = int64_t(llvm::Log2_64(uint64_t(*v)));
      } else if (v && !p.round_of.empty()) {
        // A power of two, checked against the shift's k once that is bound (match_hvx_idiom).
        if (*v < 1 || !llvm::isPowerOf2_64(uint64_t(*v))) return false;
        b.rounds.push_back({*v, p.round_of});
      } else if (!v || *v < p.lo || *v > p.hi) {
        return false;
      }
      auto it = b.constants.find(p.name);
      if (it != b.constants.end() && it->second != *v) return false;
      b.constants[p.name] = *v;
      return true;
    }
    case Pattern::Literal: return const_int(e) == std::optional<int64_t>(p.lo);
  }
  return false;
}

int64_t register_lanes(const Target& t, DataType type) {
  return t.vector_bytes * 8 / type.bits;
}

// Whether every vector the row reads or writes is whole HVX registers (for Widen, the narrow
// operands; the result is then whole pairs).
bool whole_registers(const HvxMatch& m, DataType result, const Target& t) {
  for (const Expr& e : m.operands) {
    DataType d = e.dtype();
    if (d.lanes > 1 && d.lanes % register_lanes(t, d) != 0) return false;
  }
  return result.lanes % register_lanes(t, result) == 0;
}

}  // namespace

std::optional<HvxMatch> match_hvx_idiom(const Expr& e, const Target& target) {
  if (target.arch != Arch::hexagon || e.dtype().lanes < 2) return std::nullopt;
  NodeKind kind = e.kind();
  if (kind != NodeKind::Binary && kind != NodeKind::Cast && kind != NodeKind::VectorReduce)
    return std::nullopt;
  for (const HvxIdiom& row : table().rows) {
    if (target.hexagon_version < row.min_version) continue;
    HvxMatch m;
    m.idiom = &row;
    if (row.matcher) {
      if (!row.matcher(e, m)) continue;
    } else {
      if (kind == NodeKind::VectorReduce) continue;  // custom rows only
      const Pattern& p = row.pattern;
      bool cast_pattern = p.kind == Pattern::Cast || p.kind == Pattern::Wide || p.kind == Pattern::Sat;
      if (cast_pattern != (kind == NodeKind::Cast)) continue;
      Bindings b;
      if (!match(p, e, b) || !rounds_hold(b)) continue;
      for (const std::string& name : row.operands) {
        if (auto it = b.exprs.find(name); it != b.exprs.end())
          m.operands.push_back(it->second);
        else
          m.operands.push_back(make_i32(b.constants.at(name)));
      }
    }
    if (row.matcher || whole_registers(m, e.dtype(), target)) return m;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------- emission

namespace {

unsigned lanes_of(llvm::Value* v) {
  return llvm::cast<llvm::FixedVectorType>(v->getType())->getNumElements();
}

llvm::Value* slice(llvm::IRBuilder<>& b, llvm::Value* v, unsigned from, unsigned n) {
  if (from == 0 && n == lanes_of(v)) return v;
  return b.CreateShuffleVector(v, llvm::createSequentialMask(from, n, 0));
}

// Even lanes, then odd lanes: HVX's order of a widening instruction's register pair.
llvm::Value* deinterleave(llvm::IRBuilder<>& b, llvm::Value* v) {
  unsigned half = lanes_of(v) / 2;
  llvm::SmallVector<int, 16> mask = llvm::createStrideMask(0, 2, half);
  mask.append(llvm::createStrideMask(1, 2, half));
  return b.CreateShuffleVector(v, mask);
}

// x0 y0 x1 y1 ... from x and y (of one type); one vector's halves when y is null.
llvm::Value* interleave(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y = nullptr) {
  unsigned n = y ? lanes_of(x) : lanes_of(x) / 2;
  return y ? b.CreateShuffleVector(x, y, llvm::createInterleaveMask(n, 2))
           : b.CreateShuffleVector(x, llvm::createInterleaveMask(n, 2));
}

llvm::Function* intrinsic(llvm::Module& module, const std::string& name) {
  llvm::Intrinsic::ID id = intrinsic_id(name);
  if (id == llvm::Intrinsic::not_intrinsic)
    throw InternalError("no LLVM intrinsic " + intrinsic_name(name) + " for the HVX idiom table");
  return llvm::Intrinsic::getDeclaration(&module, id);
}
// A byte replicated into the four bytes of a word: how the multiplies take a scalar byte.
llvm::Value* replicated_byte(llvm::IRBuilder<>& b, llvm::Value* byte) {
  return b.CreateMul(b.CreateZExt(byte, b.getInt32Ty()), b.getInt32(0x01010101));
}

llvm::Value* concat(llvm::IRBuilder<>& b, std::vector<llvm::Value*> parts) {
  return parts.size() == 1 ? parts[0] : llvm::concatenateVectors(b, parts);
}

}  // namespace

llvm::Value* emit_hvx_idiom(llvm::IRBuilder<>& b, const HvxMatch& m, const std::vector<llvm::Value*>& values,
                            DataType result, const Target& target) {
  const HvxIdiom& row = *m.idiom;
  if (row.emitter) return row.emitter(b, m, values);
  llvm::Function* f = intrinsic(*b.GetInsertBlock()->getModule(), row.name);
  llvm::FunctionType* ft = f->getFunctionType();
  // One instruction per register of the narrowest lanes: of the result for Lanes and Narrow,
  // of the narrow operands for Widen (which give a register pair).
  unsigned narrow_bits = result.bits;
  for (llvm::Value* v : values)
    if (v->getType()->isVectorTy()) narrow_bits = std::min(narrow_bits, v->getType()->getScalarSizeInBits());
  unsigned step = unsigned(target.vector_bytes) * 8 / narrow_bits;
  llvm::Type* piece_type = llvm::FixedVectorType::get(b.getIntNTy(result.bits), step);
  // Pair: the two narrow vectors are one register pair (the first, then the second), and the
  // two scalar bytes one word, w0 w1 w0 w1 (the weight of the first, then of the second).
  bool pair = row.form == HvxForm::Pair;
  llvm::Value* pair_word = nullptr;
  if (pair) {
    std::vector<llvm::Value*> bytes;
    for (llvm::Value* v : values)
      if (!v->getType()->isVectorTy()) bytes.push_back(b.CreateZExt(v, b.getInt32Ty()));
    if (bytes.size() != 2) throw InternalError(std::string("HVX idiom ") + row.name + ": a Pair row takes two bytes");
    llvm::Value* w01 = b.CreateOr(bytes[0], b.CreateShl(bytes[1], 8));
    pair_word = b.CreateOr(w01, b.CreateShl(w01, 16));
  }
  std::vector<llvm::Value*> pieces;
  for (unsigned at = 0; at < unsigned(result.lanes); at += step) {
    std::vector<llvm::Value*> args;
    auto param = [&] { return ft->getParamType(unsigned(args.size())); };
    llvm::Value* first_of_pair = nullptr;
    bool word_done = false;
    for (llvm::Value* v : values) {
      if (pair && !v->getType()->isVectorTy()) {
        if (!word_done) args.push_back(pair_word);
        word_done = true;
        continue;
      }
      if (pair && v->getType()->getScalarSizeInBits() == narrow_bits) {
        llvm::Value* piece = slice(b, v, at, step);
        if (!first_of_pair) {
          first_of_pair = piece;
          continue;
        }
        args.push_back(b.CreateBitCast(llvm::concatenateVectors(b, {first_of_pair, piece}), param()));
        continue;
      }
      if (!v->getType()->isVectorTy()) {
        // A byte goes replicated into a word; a word (an immediate, a shift amount, a halfword
        // already replicated by the matcher) as it is.
        args.push_back(v->getType()->isIntegerTy(8) ? replicated_byte(b, v) : v);
        continue;
      }
      llvm::Value* piece = slice(b, v, at, step);
      if (row.form == HvxForm::Narrow || row.form == HvxForm::Pack) {
        // Narrow: the even and the odd lanes are the instruction's two registers, odd first.
        // Pack: the first and the second half, the second first.
        llvm::Value* d = row.form == HvxForm::Narrow ? deinterleave(b, piece) : piece;
        args.push_back(b.CreateBitCast(slice(b, d, step / 2, step / 2), param()));
        args.push_back(b.CreateBitCast(slice(b, d, 0, step / 2), param()));
        continue;
      }
      // A wide operand of a widening instruction (an accumulator) is in pair order.
      if ((row.form == HvxForm::Widen || pair) && v->getType()->getScalarSizeInBits() > narrow_bits)
        piece = deinterleave(b, piece);
      args.push_back(b.CreateBitCast(piece, param()));
    }
    llvm::Value* r = b.CreateBitCast(b.CreateCall(f, args), piece_type);
    if (row.form == HvxForm::Widen || pair) r = interleave(b, r);
    pieces.push_back(r);
  }
  return concat(b, pieces);
}

// ---------------------------------------------------------------- dot products

namespace {

Expr extended_from(const Expr& e);

// One side of a term of a dot product: a vector of narrow integers (bytes; halfwords for
// vdmpy(Vu.h, Rt.b)) widened to the sum's type, or a scalar byte under a broadcast.
struct DotSide {
  Expr e;              // the narrow vector, or the scalar byte (an i8 or u8 value)
  bool vector = false;
  bool can_u = false;  // its values are unsigned bytes (u8 lanes, or a constant in [0, 255])
  bool can_s = false;  // its values are signed bytes (i8 lanes, or a constant in [-128, 127])

  // The range of its values.
  std::pair<int64_t, int64_t> range() const {
    if (std::optional<int64_t> c = const_int(e)) return {*c, *c};
    DataType d = e.dtype();
    if (d.is_uint()) return {0, (int64_t(1) << d.bits) - 1};
    return {-(int64_t(1) << (d.bits - 1)), (int64_t(1) << (d.bits - 1)) - 1};
  }
};

DotSide constant_side(int64_t c) {
  DotSide s;
  s.can_u = c >= 0 && c <= 255;
  s.can_s = c >= -128 && c <= 127;
  if (s.can_u || s.can_s) s.e = make_const(c < 0 ? DataType::i8() : DataType::u8(), c);
  return s;
}

// `e`, a vector of the sum's lanes, as a side of `bits`-bit values (bits 8: either signedness;
// 16: signed halfwords only), or null.
std::optional<DotSide> dot_side(const Expr& e, int bits) {
  if (std::optional<int64_t> c = const_int(e)) {
    DotSide s = constant_side(*c);
    return s.e ? std::optional<DotSide>(s) : std::nullopt;
  }
  if (const auto* bc = e.as<Broadcast>()) {
    Expr x = extended_from(bc->value);
    if (!x || x.dtype().lanes != 1 || x.dtype().bits != 8 || !x.dtype().is_integer()) return std::nullopt;
    return DotSide{x, false, x.dtype().is_uint(), x.dtype().is_int()};
  }
  Expr x = extended_from(e);
  if (!x || x.dtype().lanes != e.dtype().lanes || x.dtype().bits != bits || !x.dtype().is_integer()) return std::nullopt;
  if (bits == 16 && !x.dtype().is_int()) return std::nullopt;
  return DotSide{x, true, x.dtype().is_uint(), x.dtype().is_int()};
}

// A term of the sum as a product of two sides, at least one a vector (vector first); a widened
// vector alone is its product by 1.
struct DotTerm {
  DotSide a, b;
};

std::optional<DotTerm> dot_term(const Expr& t, int bits) {
  // A product in a narrower type, widened, is the product itself where it cannot wrap there:
  // i32(i16(u8) * i16(-3)), u32(u16(u8) * 255).
  Expr x = t;
  std::optional<DataType> narrow;
  if (const auto* c = t.as<dspc::Cast>(); c && c->dtype.is_integer() && c->value.dtype().is_integer() &&
                                          c->value.dtype().bits < c->dtype.bits && c->value.as<dspc::Binary>()) {
    x = c->value;
    narrow = x.dtype();
  }
  if (const auto* m = x.as<dspc::Binary>(); m && m->op == BinaryOp::Mul) {
    std::optional<DotSide> a = dot_side(m->a, bits), b = dot_side(m->b, bits);
    if (!a || !b || (!a->vector && !b->vector)) return std::nullopt;
    if (!a->vector) std::swap(a, b);
    // A product of two vectors is of bytes only (vdmpy(Vu.h, Rt.b) takes a scalar).
    if (b->vector && bits != 8) return std::nullopt;
    if (!b->vector && bits == 16 && !b->can_s) return std::nullopt;
    if (narrow) {
      auto [alo, ahi] = a->range();
      auto [blo, bhi] = b->range();
      int64_t corners[] = {alo * blo, alo * bhi, ahi * blo, ahi * bhi};
      int64_t lo = *std::min_element(std::begin(corners), std::end(corners));
      int64_t hi = *std::max_element(std::begin(corners), std::end(corners));
      int bits_n = narrow->bits;
      if (bits_n >= 63) return std::nullopt;
      int64_t min = narrow->is_int() ? -(int64_t(1) << (bits_n - 1)) : 0;
      int64_t max = narrow->is_int() ? (int64_t(1) << (bits_n - 1)) - 1 : (int64_t(1) << bits_n) - 1;
      if (lo < min || hi > max) return std::nullopt;
    }
    return DotTerm{*a, *b};
  }
  if (narrow) return std::nullopt;
  std::optional<DotSide> a = dot_side(t, bits);
  if (!a || !a->vector) return std::nullopt;
  return DotTerm{*a, constant_side(1)};
}

// The terms of a sum (adds of e's type, in any grouping: dspc's integer adds wrap, so they
// regroup exactly).
void sum_terms(const Expr& e, DataType t, std::vector<Expr>& out) {
  if (const auto* add = e.as<dspc::Binary>(); add && add->op == BinaryOp::Add && add->dtype == t) {
    sum_terms(add->a, t, out);
    sum_terms(add->b, t, out);
    return;
  }
  out.push_back(e);
}

// The k vectors are the elements j, j + k, j + 2k, ... of one dense span, in some order (a
// layout that keeps each lane's k values together, as Bq[k / 4, n * 4 + k % 4] or in[4 * x + r]
// does): one dense load of the span is already in the order the instruction reads, so nothing
// is shuffled. `order[j]` is the vector holding elements j, j + k, ...
Expr packed_span(const std::vector<Expr>& vecs, std::vector<int>& order) {
  int k = int(vecs.size());
  const auto* first = vecs[0].as<Load>();
  if (!first || first->indices.size() != 1) return Expr();
  const auto* r0 = first->indices[0].as<Ramp>();
  if (!r0 || const_int(r0->stride) != std::optional<int64_t>(k)) return Expr();
  auto [rest0, c0] = split_constant(r0->base);
  std::vector<int64_t> offsets;
  for (int j = 0; j < k; ++j) {
    const auto* l = vecs[j].as<Load>();
    const auto* r = l && l->indices.size() == 1 ? l->indices[0].as<Ramp>() : nullptr;
    if (!r || l->buffer != first->buffer || l->dtype != first->dtype || r->lanes != r0->lanes ||
        const_int(r->stride) != std::optional<int64_t>(k))
      return Expr();
    auto [rest, c] = split_constant(r->base);
    if (rest || rest0 ? !(rest && rest0 && same_expr(rest, rest0)) : false) return Expr();
    offsets.push_back(c - c0);
  }
  int64_t low = *std::min_element(offsets.begin(), offsets.end());
  order.assign(k, -1);
  for (int j = 0; j < k; ++j) {
    int64_t at = offsets[j] - low;
    if (at < 0 || at >= k || order[at] >= 0) return Expr();
    order[at] = j;
  }
  Expr base = rest0 ? Binary::make(BinaryOp::Add, rest0, make_const(r0->base.dtype(), c0 + low))
                    : make_const(r0->base.dtype(), c0 + low);
  return Load::make(first->buffer, {Ramp::make(base, make_const(r0->base.dtype(), 1), k * r0->lanes)});
}

// The dot-product instructions: k terms of `bits`-bit values per lane of `out_bits`.
struct DotInstr {
  const char* name;
  int k, bits, out_bits;
  bool vector_v;  // the second operand is a vector (else a word of scalar bytes)
};
const DotInstr kDotInstrs[] = {
    {"vrmpyub", 4, 8, 32, false},   // Vu.ub, Rt.ub
    {"vrmpybus", 4, 8, 32, false},  // Vu.ub, Rt.b
    {"vrmpyubv", 4, 8, 32, true},   // Vu.ub, Vv.ub
    {"vrmpybv", 4, 8, 32, true},    // Vu.b, Vv.b
    {"vrmpybusv", 4, 8, 32, true},  // Vu.ub, Vv.b
    {"vdmpybus", 2, 8, 16, false},  // Vu.ub, Rt.b
    {"vdmpyhb", 2, 16, 32, false},  // Vu.h, Rt.b
};

// Sides of the k terms for instruction `d` (swapping a term's two sides where that fits), or
// false: the first operand's values must read as its lanes' type, the second's as its.
bool assign_sides(std::vector<DotTerm>& terms, int d) {
  const DotInstr& in = kDotInstrs[d];
  bool u_first = in.bits == 8 && d != 3;  // Vu.ub (vrmpybv: Vu.b; vdmpyhb: Vu.h)
  bool u_second = d == 0 || d == 2;       // Rt.ub, Vv.ub (else signed bytes)
  for (DotTerm& t : terms) {
    auto fits = [&](const DotSide& x, const DotSide& y) {
      return (u_first ? x.can_u : x.can_s) && (u_second ? y.can_u : y.can_s) &&
             (in.vector_v || (x.vector && !y.vector));
    };
    if (fits(t.a, t.b)) continue;
    if (in.vector_v && fits(t.b, t.a)) {
      std::swap(t.a, t.b);
      continue;
    }
    return false;
  }
  return true;
}

// A sum (of 16- or 32-bit lanes in whole registers) holding k products of narrow values that
// one HVX instruction sums k by k per lane: four byte products into words (vrmpy: a vector of
// bytes by scalar bytes or by a vector of bytes, each signedness; the scalar form where the
// bytes fit it, else a vector of them), two byte products into halfwords (vdmpy(Vu.ub, Rt.b))
// and two signed-halfword products into words (vdmpy(Vu.h, Rt.b)). The other terms of the sum
// are its accumulator. The vrmpy's four vectors are interleaved (one permute per register of
// the result, as Halide's vshuff) unless they are one dense span; the forms whose products the
// widening multiplies (vmpa) take as cheaply, the vdmpy and the 16-bit vrmpy, only for a span.
// Operands: [acc], the first sides (k, or their span), the second sides (k, or their span).
bool match_dot(const Expr& e, HvxMatch& m) {
  const auto* root = e.as<dspc::Binary>();
  DataType t = e.dtype();
  if (!root || root->op != BinaryOp::Add || !t.is_integer() || (t.bits != 16 && t.bits != 32) ||
      (t.lanes * t.bits) % 1024 != 0)
    return false;
  std::vector<Expr> all;
  sum_terms(e, t, all);
  // Every term a product by one constant that no byte holds (i32(in_i16[2 * x + r]) * 15246):
  // the sum of the values by 1s, times the constant after (a * c + b * c = (a + b) * c, exact
  // in wrapping arithmetic), one multiply per register of the result.
  m.dot_scale = 1;
  {
    std::optional<int64_t> common;
    std::vector<Expr> values;
    for (const Expr& term : all) {
      const auto* mul = term.as<dspc::Binary>();
      std::optional<int64_t> c;
      Expr v;
      if (mul && mul->op == BinaryOp::Mul) {
        if ((c = const_int(mul->b))) v = mul->a;
        else if ((c = const_int(mul->a))) v = mul->b;
      }
      if (!c || (common && *c != *common) || const_int(v)) {
        common.reset();
        break;
      }
      common = c;
      values.push_back(v);
    }
    if (common && !(*common >= -128 && *common <= 255) && all.size() > 1) {
      all = values;
      m.dot_scale = *common;
    }
  }
  for (int i = 0; i < int(std::size(kDotInstrs)); ++i) {
    // Weights that fit either scalar form take the one of the sum's signedness (Halide's).
    int d = i < 2 && t.is_int() ? 1 - i : i;
    const DotInstr& in = kDotInstrs[d];
    if (in.out_bits < t.bits || (in.out_bits > t.bits && in.k != 4)) continue;
    std::vector<DotTerm> terms;
    std::vector<Expr> rest;
    for (const Expr& term : all) {
      std::optional<DotTerm> p = int(terms.size()) < in.k ? dot_term(term, in.bits) : std::nullopt;
      if (p)
        terms.push_back(*p);
      else
        rest.push_back(term);
    }
    if (int(terms.size()) != in.k || !assign_sides(terms, d)) continue;
    std::vector<Expr> first, second;
    std::vector<int> order;
    for (const DotTerm& x : terms) first.push_back(x.a.e);
    Expr span = packed_span(first, order);
    if (span) {
      std::vector<DotTerm> sorted;
      for (int j : order) sorted.push_back(terms[j]);
      terms = sorted;
    }
    // Only where nothing is shuffled, unless the sum is in words and four bytes deep.
    if (!span && (in.k != 4 || t.bits != 32)) continue;
    bool second_vectors = true;
    for (const DotTerm& x : terms) second_vectors &= x.b.vector;
    Expr second_span;
    if (second_vectors) {
      for (const DotTerm& x : terms) second.push_back(x.b.e);
      std::vector<int> o2;
      second_span = packed_span(second, o2);
      for (int j = 0; j < in.k && second_span; ++j)
        if (o2[j] != j) second_span = Expr();
    }
    if (t.bits == 16 && in.out_bits == 32 && second_vectors && !second_span) continue;
    m.operands.clear();
    m.has_acc = !rest.empty();
    if (m.has_acc) {
      Expr acc = rest[0];
      for (size_t j = 1; j < rest.size(); ++j) acc = Binary::make(BinaryOp::Add, acc, rest[j]);
      m.operands.push_back(acc);
    }
    m.packed = static_cast<bool>(span);
    if (span) {
      m.operands.push_back(span);
    } else {
      for (const DotTerm& x : terms) m.operands.push_back(x.a.e);
    }
    m.packed_second = static_cast<bool>(second_span);
    if (second_span) {
      m.operands.push_back(second_span);
    } else {
      for (const DotTerm& x : terms) m.operands.push_back(x.b.e);
    }
    m.dot = d;
    m.dot_bits = t.bits;
    return true;
  }
  return false;
}

// x0[i] x1[i] ... x(k-1)[i] for every i: k = 2 one interleave, k = 4 two rounds (byte pairs,
// then the pairs as halfwords), which the backend selects as vshuff.
llvm::Value* interleave_k(llvm::IRBuilder<>& b, const std::vector<llvm::Value*>& xs) {
  if (xs.size() == 2) return interleave(b, xs[0], xs[1]);
  auto* elem = llvm::cast<llvm::FixedVectorType>(xs[0]->getType())->getElementType();
  unsigned n = lanes_of(xs[0]);
  auto* wide = llvm::FixedVectorType::get(b.getIntNTy(2 * elem->getIntegerBitWidth()), n);
  llvm::Value* even = b.CreateBitCast(interleave(b, xs[0], xs[1]), wide);
  llvm::Value* odd = b.CreateBitCast(interleave(b, xs[2], xs[3]), wide);
  return b.CreateBitCast(interleave(b, even, odd), llvm::FixedVectorType::get(elem, 4 * n));
}

// One instruction per register of the result: per lane, its k values times the k weights.
// Scalar bytes go into one word, byte j of it the weight of term j (vdmpy's: w0 w1 w0 w1); a
// vector operand whose terms are all scalars is that word splatted.
llvm::Value* emit_dot(llvm::IRBuilder<>& b, const HvxMatch& m, const std::vector<llvm::Value*>& values) {
  const DotInstr& in = kDotInstrs[m.dot];
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  size_t at = 0;
  llvm::Value* acc = m.has_acc ? values[at++] : nullptr;
  auto take = [&](bool packed) {
    if (packed) return values[at++];
    std::vector<llvm::Value*> xs(values.begin() + at, values.begin() + at + in.k);
    at += in.k;
    bool scalars = true;
    for (llvm::Value* x : xs) scalars &= !x->getType()->isVectorTy();
    if (scalars) {
      llvm::Value* word = nullptr;
      for (unsigned j = 0; j < 4; ++j) {
        llvm::Value* byte = b.CreateShl(b.CreateZExt(xs[j % in.k], b.getInt32Ty()), b.getInt32(8 * j));
        word = word ? b.CreateOr(word, byte) : byte;
      }
      return word;
    }
    unsigned n = 0;
    for (llvm::Value* x : xs)
      if (x->getType()->isVectorTy()) n = lanes_of(x);
    for (llvm::Value*& x : xs)
      if (!x->getType()->isVectorTy()) x = b.CreateVectorSplat(n, x);
    return interleave_k(b, xs);
  };
  llvm::Value* x = take(m.packed);
  llvm::Value* y = take(m.packed_second);
  auto* words = llvm::FixedVectorType::get(b.getInt32Ty(), 32);
  // A vector operand all of whose terms are scalars: the word splatted, the same per register.
  bool x_splat = !x->getType()->isVectorTy(), y_splat = in.vector_v && !y->getType()->isVectorTy();
  if (x_splat) x = b.CreateVectorSplat(32, x);
  if (y_splat) y = b.CreateVectorSplat(32, y);
  unsigned out_lanes = 1024 / in.out_bits;  // per register
  llvm::Value* bytes = x_splat ? y : x;
  unsigned registers = unsigned(lanes_of(bytes) * bytes->getType()->getScalarSizeInBits() / 1024);
  bool fused_acc = acc && unsigned(m.dot_bits) == unsigned(in.out_bits);
  llvm::Type* piece = llvm::FixedVectorType::get(b.getIntNTy(in.out_bits), out_lanes);
  auto register_of = [&](llvm::Value* v, unsigned q) {
    unsigned per = 1024 / v->getType()->getScalarSizeInBits();
    return b.CreateBitCast(slice(b, v, q * per, per), words);
  };
  std::string f = in.name;
  std::vector<llvm::Value*> parts;
  for (unsigned q = 0; q < registers; ++q) {
    llvm::Value* vu = x_splat ? x : register_of(x, q);
    llvm::Value* vv = y_splat || !y->getType()->isVectorTy() ? y : register_of(y, q);
    llvm::Value* out = fused_acc ? b.CreateCall(intrinsic(module, f + "_acc"), {register_of(acc, q), vu, vv})
                                 : b.CreateCall(intrinsic(module, f), {vu, vv});
    parts.push_back(b.CreateBitCast(out, piece));
  }
  llvm::Value* r = concat(b, parts);
  if (unsigned(m.dot_bits) < unsigned(in.out_bits))
    r = b.CreateTrunc(r, llvm::FixedVectorType::get(b.getIntNTy(m.dot_bits), lanes_of(r)));
  if (acc && !fused_acc) r = b.CreateAdd(acc, r);
  if (m.dot_scale != 1) {
    if (m.dot_bits == 32 && m.dot_scale >= -32768 && m.dot_scale <= 32767) {
      // vmpyi(Vu.w, Rt.h): one instruction per register (LLVM 19 multiplies by the splatted
      // word with two, vmpyieo and vmpyie:acc).
      uint32_t half = uint32_t(m.dot_scale) & 0xffff;
      llvm::Value* rt = b.getInt32(half | (half << 16));
      std::vector<llvm::Value*> scaled;
      for (unsigned q = 0; q < lanes_of(r) / 32; ++q)
        scaled.push_back(b.CreateBitCast(b.CreateCall(intrinsic(module, "vmpyiwh"), {register_of(r, q), rt}), piece));
      r = concat(b, scaled);
    } else {
      r = b.CreateMul(r, llvm::ConstantInt::get(r->getType(), uint64_t(m.dot_scale), /*isSigned=*/true));
    }
  }
  return r;
}

// ---------------------------------------------------------------- sliding windows

// The sliding-window instructions: per output lane j, `taps` consecutive elements from j on,
// read from a register pair (V0 = the elements from j = 0, V1 = the same `shift` elements on).
struct WindowInstr {
  const char* name;
  int taps, shift, bits, out_bits;
  bool data_signed;   // the vector's elements are signed (Vuu.b, Vuu.h), else unsigned bytes
  bool weights_u;     // the weights are unsigned bytes (Rt.ub), else signed
  bool last_is_one;   // the last tap weighs 1 (vtmpy)
};
const WindowInstr kWindowInstrs[] = {
    {"vrmpyubi", 4, 4, 8, 32, false, true, false},    // Vuu.ub, Rt.ub, #u1
    {"vrmpybusi", 4, 4, 8, 32, false, false, false},  // Vuu.ub, Rt.b, #u1
    {"vtmpybus", 3, 2, 8, 16, false, false, true},    // Vuu.ub, Rt.b
    {"vtmpyb", 3, 2, 8, 16, true, false, true},       // Vuu.b, Rt.b
    {"vtmpyhb", 3, 2, 16, 32, true, false, true},     // Vuu.h, Rt.b
};

// A sum (of lanes in whole register pairs' worth of the instruction's result) holding windows:
// products of one vector read at consecutive offsets, base + c, base + c + 1, ... (dense loads
// of one buffer, the same base but for the constant), each by a scalar byte. Each window of
// three or four taps (vrmpy: offsets c..c+3 from the smallest, a missing tap weighs 0; vtmpy:
// c..c+2, the third weighing 1) is one instruction per register pair of the result (vrmpy: two,
// #0 and #1), the windows of a sum chained through the accumulating form; the other terms are
// added after. Operands: [acc], then per window V0, V1 (read `window_shift` elements early, so
// that nothing past the window's last tap is read) and the taps' weights.
bool match_window(const Expr& e, HvxMatch& m) {
  const auto* root = e.as<dspc::Binary>();
  DataType t = e.dtype();
  if (!root || root->op != BinaryOp::Add || !t.is_integer() || (t.bits != 16 && t.bits != 32)) return false;
  std::vector<Expr> all;
  sum_terms(e, t, all);
  if (all.size() < 3) return false;
  for (int i = 0; i < int(std::size(kWindowInstrs)); ++i) {
    // Weights that fit either vrmpy take the one of the sum's signedness (as match_dot).
    int d = i < 2 && t.is_int() ? 1 - i : i;
    const WindowInstr& in = kWindowInstrs[d];
    // Not the byte vtmpy forms: their lanes come out of the pair interleaved, and the vshuff
    // that puts them back costs more than the widening adds and vmpa it replaces (measured:
    // bench/ sobel's 1 2 1 smoothing, 19.98 -> 22.74 packets per 128 outputs with them).
    if (in.last_is_one && in.bits == 8) continue;
    if (in.out_bits != t.bits || (t.lanes * in.bits) % 1024 != 0 || (t.lanes * in.out_bits) % 2048 != 0) continue;
    // Each term as (buffer key, offset, weight), or not a tap.
    struct Tap {
      const Load* load;
      Expr rest;
      int64_t offset;
      DotSide weight;
      bool used = false;
    };
    std::vector<Tap> taps;
    std::vector<int> tap_of(all.size(), -1);
    for (size_t j = 0; j < all.size(); ++j) {
      std::optional<DotTerm> p = dot_term(all[j], in.bits);
      if (!p || !p->a.vector || p->b.vector) continue;
      if (!(in.data_signed ? p->a.can_s : p->a.can_u) || !(in.weights_u ? p->b.can_u : p->b.can_s)) continue;
      const auto* l = p->a.e.as<Load>();
      const auto* r = l && l->indices.size() == 1 ? l->indices[0].as<Ramp>() : nullptr;
      if (!r || const_int(r->stride) != std::optional<int64_t>(1) || r->lanes != t.lanes) continue;
      auto [rest, c] = split_constant(r->base);
      tap_of[j] = int(taps.size());
      taps.push_back(Tap{l, rest, c, p->b});
    }
    auto same_row = [](const Tap& a, const Tap& b) {
      return a.load->buffer == b.load->buffer && a.load->dtype == b.load->dtype &&
             (a.rest || b.rest ? a.rest && b.rest && same_expr(a.rest, b.rest) : true);
    };
    // Windows, greedily from the smallest offset of each row.
    struct Window {
      std::vector<int> at;  // the tap of each position, or -1
    };
    std::vector<Window> windows;
    for (;;) {
      int first = -1;
      for (int k = 0; k < int(taps.size()); ++k)
        if (!taps[k].used && (first < 0 || (same_row(taps[k], taps[first]) && taps[k].offset < taps[first].offset)))
          first = k;
      if (first < 0) break;
      // The smallest offset of first's row.
      for (int k = 0; k < int(taps.size()); ++k)
        if (!taps[k].used && same_row(taps[k], taps[first]) && taps[k].offset < taps[first].offset) first = k;
      Window w;
      w.at.assign(in.taps, -1);
      int present = 0;
      for (int k = 0; k < int(taps.size()); ++k) {
        if (taps[k].used || !same_row(taps[k], taps[first])) continue;
        int64_t pos = taps[k].offset - taps[first].offset;
        if (pos < 0 || pos >= in.taps || w.at[pos] >= 0) continue;
        w.at[pos] = k;
        ++present;
      }
      taps[first].used = true;  // tried: a window starts here or nowhere
      bool ok = present >= 3;
      if (ok && in.last_is_one) {
        int last = w.at[in.taps - 1];
        ok = last >= 0 && const_int(taps[last].weight.e) == std::optional<int64_t>(1);
      }
      if (!ok) continue;
      for (int k : w.at)
        if (k >= 0) taps[k].used = true;
      windows.push_back(w);
    }
    if (windows.empty()) continue;
    std::set<int> in_window;
    for (const Window& w : windows)
      for (int k : w.at)
        if (k >= 0) in_window.insert(k);
    std::vector<Expr> rest;
    for (size_t j = 0; j < all.size(); ++j)
      if (tap_of[j] < 0 || !in_window.count(tap_of[j])) rest.push_back(all[j]);
    m.operands.clear();
    m.window_shift.clear();
    m.has_acc = !rest.empty();
    if (m.has_acc) {
      Expr acc = rest[0];
      for (size_t j = 1; j < rest.size(); ++j) acc = Binary::make(BinaryOp::Add, acc, rest[j]);
      m.operands.push_back(acc);
    }
    for (const Window& w : windows) {
      const Tap& t0 = taps[w.at[0]];
      int last = in.taps - 1;
      while (w.at[last] < 0) --last;
      DataType it = t0.load->indices[0].dtype().element_of();
      auto at = [&](int64_t c) {
        Expr base = t0.rest ? Binary::make(BinaryOp::Add, t0.rest, make_const(it, c)) : make_const(it, c);
        return Load::make(t0.load->buffer, {Ramp::make(base, make_const(it, 1), t.lanes)});
      };
      // V1 starts `shift` elements on; it is read from the last tap instead (its elements past
      // the window's are never needed) and moved down in the emitter.
      int early = in.shift - last;
      m.operands.push_back(at(t0.offset));
      m.operands.push_back(at(t0.offset + in.shift - early));
      m.window_shift.push_back(early);
      for (int k : w.at)
        m.operands.push_back(k >= 0 ? taps[k].weight.e : make_const(in.weights_u ? DataType::u8() : DataType::i8(), 0));
    }
    m.window = d;
    return true;
  }
  return false;
}

// Per register pair of the result: vrmpy #0 and #1 (lanes 4i, 4i+2 and 4i+1, 4i+3) or one
// vtmpy (lanes 2i, 2i+1), each window's accumulating the previous one's, then the lanes put
// back in order and the other terms added.
llvm::Value* emit_window(llvm::IRBuilder<>& b, const HvxMatch& m, const std::vector<llvm::Value*>& values) {
  const WindowInstr& in = kWindowInstrs[m.window];
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  size_t at = 0;
  llvm::Value* acc = m.has_acc ? values[at++] : nullptr;
  auto* pair_t = llvm::FixedVectorType::get(b.getInt32Ty(), 64);
  unsigned reg_lanes = 1024 / in.bits;  // input lanes per register
  unsigned n = 0;
  struct W {
    llvm::Value *v0, *v1, *rt;
  };
  std::vector<W> ws;
  for (size_t w = 0; w < m.window_shift.size(); ++w) {
    llvm::Value* v0 = values[at++];
    llvm::Value* v1 = values[at++];
    n = lanes_of(v0);
    int early = m.window_shift[w];
    if (early > 0) {
      llvm::SmallVector<int, 256> mask;
      for (unsigned j = 0; j < n; ++j) mask.push_back(j + early < n ? int(j + early) : -1);
      v1 = b.CreateShuffleVector(v1, mask);
    }
    llvm::Value* word = nullptr;
    for (unsigned j = 0; j < 4; ++j) {
      llvm::Value* x = values[at + (in.taps == 4 ? j : j % 2)];
      llvm::Value* byte = b.CreateShl(b.CreateZExt(b.CreateTrunc(x, b.getInt8Ty()), b.getInt32Ty()), b.getInt32(8 * j));
      word = word ? b.CreateOr(word, byte) : byte;
    }
    at += in.taps;
    ws.push_back(W{v0, v1, word});
  }
  unsigned out_lanes = 1024 / in.out_bits;  // per register
  auto* out_reg = llvm::FixedVectorType::get(b.getIntNTy(in.out_bits), out_lanes);
  std::vector<llvm::Value*> parts;
  for (unsigned q = 0; q < n / reg_lanes; ++q) {
    llvm::Value* r0 = nullptr;
    llvm::Value* r1 = nullptr;
    for (size_t w = 0; w < ws.size(); ++w) {
      llvm::Value* pair = b.CreateBitCast(
          llvm::concatenateVectors(b, {slice(b, ws[w].v0, q * reg_lanes, reg_lanes), slice(b, ws[w].v1, q * reg_lanes, reg_lanes)}),
          pair_t);
      std::string f = in.name;
      if (in.taps == 4) {
        r0 = r0 ? b.CreateCall(intrinsic(module, f + "_acc"), {r0, pair, ws[w].rt, b.getInt32(0)})
                : b.CreateCall(intrinsic(module, f), {pair, ws[w].rt, b.getInt32(0)});
        r1 = r1 ? b.CreateCall(intrinsic(module, f + "_acc"), {r1, pair, ws[w].rt, b.getInt32(1)})
                : b.CreateCall(intrinsic(module, f), {pair, ws[w].rt, b.getInt32(1)});
      } else {
        r0 = r0 ? b.CreateCall(intrinsic(module, f + "_acc"), {r0, pair, ws[w].rt})
                : b.CreateCall(intrinsic(module, f), {pair, ws[w].rt});
      }
    }
    // vshuff(Vu, Vv, -size): the elements of Vv and Vu interleaved (Vv's first), as a pair.
    // Called directly: LLVM, given the generic shuffle, merges it with a narrowing that follows
    // into a longer permute network.
    auto* reg_t = llvm::FixedVectorType::get(b.getInt32Ty(), 32);
    auto shuff = [&](llvm::Value* lo, llvm::Value* hi, int size) {
      return b.CreateCall(intrinsic(module, "vshuffvdd"),
                          {b.CreateBitCast(hi, reg_t), b.CreateBitCast(lo, reg_t), b.getInt32(-size)});
    };
    auto half = [&](llvm::Value* pair, unsigned k) { return slice(b, pair, 32 * k, 32); };
    auto put = [&](llvm::Value* pair) {
      for (unsigned k = 0; k < 2; ++k) parts.push_back(b.CreateBitCast(half(pair, k), out_reg));
    };
    int size = in.out_bits / 8;
    if (in.taps == 4) {
      // r0: lanes 4i (low), 4i+2 (high); r1: 4i+1, 4i+3. Lanes 4i, 4i+1 and 4i+2, 4i+3
      // interleaved, then those two by pairs of lanes.
      llvm::Value* w01 = shuff(half(r0, 0), half(r1, 0), size);
      llvm::Value* w23 = shuff(half(r0, 1), half(r1, 1), size);
      put(shuff(half(w01, 0), half(w23, 0), 2 * size));
      put(shuff(half(w01, 1), half(w23, 1), 2 * size));
    } else {
      put(shuff(half(r0, 0), half(r0, 1), size));
    }
  }
  llvm::Value* r = concat(b, parts);
  if (acc) r = b.CreateAdd(acc, r);
  return r;
}

// ---------------------------------------------------------------- partial reductions

// e's lanes as an extension of a narrower integer vector x: e's bits are x's extended by x's
// signedness, through casts that never narrow (every widening one from a type of x's
// signedness). An absolute difference of two values of one narrow type N, each cast to a wider
// signed type, |S(a) - S(b)|, is their difference in N's unsigned type (it fits; zero- and
// sign-extending it agree): the x returned is then that difference, max(a, b) - min(a, b),
// which the vabsdiff rows give in one instruction. Null when e is not such an extension.
Expr extended_from(const Expr& e) {
  std::vector<const dspc::Cast*> casts;
  Expr x = e;
  while (const auto* c = x.as<dspc::Cast>()) {
    DataType from = c->value.dtype();
    if (!from.is_integer() || !c->dtype.is_integer() || from.bits > c->dtype.bits) break;
    casts.push_back(c);
    x = c->value;
  }
  bool nonnegative = false;
  if (const auto* u = x.as<Unary>(); u && u->op == UnaryOp::Abs && u->dtype.is_int()) {
    const auto* d = u->value.as<dspc::Binary>();
    const auto* ca = d && d->op == BinaryOp::Sub ? d->a.as<dspc::Cast>() : nullptr;
    const auto* cb = d && d->op == BinaryOp::Sub ? d->b.as<dspc::Cast>() : nullptr;
    if (ca && cb) {
      DataType n = ca->value.dtype();
      if (n == cb->value.dtype() && n.is_integer() && n.bits < u->dtype.bits) {
        Expr a = ca->value, bb = cb->value;
        Expr diff = Binary::make(BinaryOp::Sub, Binary::make(BinaryOp::Max, a, bb),
                                 Binary::make(BinaryOp::Min, a, bb));
        DataType un = DataType{TypeCode::UInt, static_cast<uint8_t>(n.bits)}.with_lanes(n.lanes);
        x = n.is_int() ? Cast::make(un, diff) : diff;
        nonnegative = true;
      }
    }
  }
  if (casts.empty() && !nonnegative) return Expr();
  DataType cur = x.dtype();
  for (auto it = casts.rbegin(); it != casts.rend() && !nonnegative; ++it) {
    if ((*it)->dtype.bits > cur.bits && cur.is_int() != x.dtype().is_int()) return Expr();
    cur = (*it)->dtype;
  }
  return x;
}

// The partial reductions HVX does in one instruction (or two) per register of the result: the
// `reduce` codes of HvxMatch.
enum ReduceKind {
  kRmpy = 1,      // bytes summed four by four into words: vrmpy(Vu, 1s)
  kRmpyPairs,     // products of two byte vectors, four by four: vrmpy(Vu, Vv)
  kDmpyHalves,    // signed halfwords, two by two into words: vdmpy(Vu.h, Rt.b) by 1s
  kDmpyBytes,     // unsigned bytes, two by two into halfwords: vdmpy(Vu.ub, Rt.b) by 1s
  kMpyHalfPairs,  // products of two halfword vectors, two by two: vmpy(Vu, Vv), then the pair's sum
  kZxtHalves,     // unsigned halfwords, two by two: vzxt, then the pair's sum
};

// vector_sum(X, M) with M 32-bit (or 16-bit) lanes in whole registers, alone or added to an
// accumulator of its type: X a widened narrow vector, or a product of two (extended_from), of
// k = X's lanes / M narrow values per partial sum, where an instruction sums k of them.
// Operands: [acc], x[, y]; the unsigned operand of a mixed product second.
bool match_vreduce(const Expr& e, HvxMatch& m) {
  const VectorReduce* r = e.as<VectorReduce>();
  Expr acc;
  if (const auto* add = e.as<dspc::Binary>(); add && add->op == BinaryOp::Add) {
    for (int order = 0; order < 2 && !r; ++order) {
      r = (order ? add->a : add->b).as<VectorReduce>();
      acc = order ? add->b : add->a;
    }
  }
  if (!r || r->op != ReduceOp::Sum || r->lanes < 2) return false;
  DataType t = r->dtype;
  if ((t.bits != 32 && t.bits != 16) || (t.lanes * t.bits) % 1024 != 0) return false;
  int k = r->value.dtype().lanes / r->lanes;
  // A masked value, select(c, v, 0) (a remainder's lanes already counted): v's narrow
  // operand masked instead.
  Expr value = r->value, mask;
  if (const auto* sel = value.as<dspc::Select>()) {
    const auto* zero = sel->f.as<Broadcast>();
    if (!zero || const_int(zero->value) != std::optional<int64_t>(0)) return false;
    mask = sel->cond;
    value = sel->t;
  }
  auto masked = [&](const Expr& v) {
    if (!mask) return v;
    return Select::make(mask, v, Broadcast::make(make_const(v.dtype().element_of(), 0), v.dtype().lanes));
  };
  Expr x = extended_from(value), y;
  if (x) x = masked(x);
  if (!x) {
    const auto* mul = value.as<dspc::Binary>();
    if (!mul || mul->op != BinaryOp::Mul) return false;
    x = extended_from(mul->a);
    y = extended_from(mul->b);
    if (!x || !y || x.dtype().bits != y.dtype().bits) return false;
    x = masked(x);
    if (x.dtype().is_int() && !y.dtype().is_int()) std::swap(x, y);  // signed first: vmpy(Vu.h, Vv.uh)
  }
  int bits = x.dtype().bits;
  bool sx = x.dtype().is_int(), sy = y && y.dtype().is_int();
  if (bits * k != t.bits) return false;
  if (!y) {
    if (t.bits == 32 && bits == 8)
      m.reduce = kRmpy;
    else if (t.bits == 32 && bits == 16)
      m.reduce = sx ? kDmpyHalves : kZxtHalves;
    else if (t.bits == 16 && bits == 8 && !sx)
      m.reduce = kDmpyBytes;
    else
      return false;
  } else {
    if (t.bits == 32 && bits == 8) {
      if (sx && !sy) std::swap(x, y);  // vrmpy(Vu.ub, Vv.b): the unsigned one first
      m.reduce = kRmpyPairs;
    } else if (t.bits == 32 && bits == 16) {
      if (!sx && sy) std::swap(x, y);  // vmpy(Vu.h, Vv.uh): the signed one first
      m.reduce = kMpyHalfPairs;
    } else {
      return false;
    }
  }
  m.is_signed = x.dtype().is_int();
  m.packed = y && x.dtype().is_int() != y.dtype().is_int();  // a mixed product
  m.has_acc = static_cast<bool>(acc);
  m.operands.clear();
  if (acc) m.operands.push_back(acc);
  m.operands.push_back(x);
  if (y) m.operands.push_back(y);
  return true;
}

llvm::Value* emit_vreduce(llvm::IRBuilder<>& b, const HvxMatch& m, const std::vector<llvm::Value*>& values) {
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  llvm::Value* acc = m.has_acc ? values[0] : nullptr;
  llvm::Value* x = values[m.has_acc ? 1 : 0];
  llvm::Value* y = values.size() == (m.has_acc ? 3u : 2u) ? values.back() : nullptr;
  auto* words = llvm::FixedVectorType::get(b.getInt32Ty(), 32);
  auto* pair = llvm::FixedVectorType::get(b.getInt32Ty(), 64);
  unsigned in_lanes = 1024 / x->getType()->getScalarSizeInBits();  // per register of input
  unsigned out_bits = m.reduce == kDmpyBytes ? 16 : 32;
  unsigned out_lanes = 1024 / out_bits;
  llvm::Type* piece = llvm::FixedVectorType::get(b.getIntNTy(out_bits), out_lanes);
  llvm::ConstantInt* ones = b.getInt32(0x01010101);
  llvm::Value* ones_vector = llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(32), ones);
  std::vector<llvm::Value*> parts;
  for (unsigned q = 0; q < lanes_of(x) / in_lanes; ++q) {
    llvm::Value* vu = b.CreateBitCast(slice(b, x, q * in_lanes, in_lanes), words);
    llvm::Value* vv = y ? b.CreateBitCast(slice(b, y, q * in_lanes, in_lanes), words) : nullptr;
    llvm::Value* a = acc ? b.CreateBitCast(slice(b, acc, q * out_lanes, out_lanes), words) : nullptr;
    llvm::Value* out = nullptr;
    if (m.reduce == kMpyHalfPairs || m.reduce == kZxtHalves) {
      // A register pair of even-lane and odd-lane words: their sum is the pairs' sums.
      const char* f = m.packed ? "vmpyhus" : m.is_signed ? "vmpyhv" : "vmpyuhv";
      llvm::Value* p = m.reduce == kZxtHalves ? b.CreateCall(intrinsic(module, "vzh"), {vu})
                                              : b.CreateCall(intrinsic(module, f), {vu, vv});
      p = b.CreateBitCast(p, pair);
      out = b.CreateAdd(slice(b, p, 0, 32), slice(b, p, 32, 32));
      if (a) out = b.CreateAdd(a, out);
    } else {
      std::string f;
      llvm::Value* second = ones;
      switch (m.reduce) {
        case kRmpy:
          f = m.is_signed ? "vrmpybv" : "vrmpyub";  // no vrmpy(Vu.b, Rt.b): signed bytes by a vector of 1s
          if (m.is_signed) second = ones_vector;
          break;
        case kRmpyPairs:
          f = m.packed ? "vrmpybusv" : m.is_signed ? "vrmpybv" : "vrmpyubv";
          second = vv;
          break;
        case kDmpyHalves: f = "vdmpyhb"; break;
        default: f = "vdmpybus"; break;
      }
      out = a ? b.CreateCall(intrinsic(module, f + "_acc"), {a, vu, second})
              : b.CreateCall(intrinsic(module, f), {vu, second});
    }
    parts.push_back(b.CreateBitCast(out, piece));
  }
  return concat(b, parts);
}

// x * y of 32-bit lanes in whole registers, a power of two of them (so the pieces concatenate
// pairwise).
bool match_mul_i32(const Expr& e, HvxMatch& m) {
  const auto* op = e.as<dspc::Binary>();
  DataType t = e.dtype();
  int64_t registers = t.lanes / 32;
  if (!op || op->op != BinaryOp::Mul || !t.is_integer() || t.bits != 32 || t.lanes % 32 ||
      (registers & (registers - 1)) != 0)
    return false;
  m.operands = {op->a, op->b};
  return true;
}

// vmpyieo's cross products of halfwords, plus x * y.lo: x * y modulo 2^32, per register (the
// order checked against the interpreter: tests/difftest/regressions/hvx_mul_shift.dsp).
llvm::Value* emit_mul_i32(llvm::IRBuilder<>& b, const HvxMatch&, const std::vector<llvm::Value*>& values) {
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  llvm::Function* eo = intrinsic(module, "vmpyieoh");
  llvm::Function* acc = intrinsic(module, "vmpyiewuh_acc");
  std::vector<llvm::Value*> parts;
  for (unsigned at = 0; at < lanes_of(values[0]); at += 32) {
    llvm::Value* x = slice(b, values[0], at, 32);
    llvm::Value* y = slice(b, values[1], at, 32);
    parts.push_back(b.CreateCall(acc, {b.CreateCall(eo, {x, y}), x, y}));
  }
  return concat(b, parts);
}

// A 32-bit fixed-point multiply of 64-bit intermediates (match_fixed_point_mul).
bool match_fixed_mul(const Expr& e, HvxMatch& m) {
  std::optional<FixedPointMul> f = match_fixed_point_mul(e);
  if (!f) return false;
  m.operands = {f->a, f->b};
  m.shift = f->shift;
  m.round = f->round;
  return true;
}

// `per` lanes of v from `at` (32 by default: a register of words), the lanes past its end
// poison.
llvm::Value* register_at(llvm::IRBuilder<>& b, llvm::Value* v, unsigned at, unsigned per = 32) {
  unsigned n = lanes_of(v);
  if (at == 0 && n == per) return v;
  llvm::SmallVector<int, 128> mask;
  for (unsigned k = 0; k < per; ++k) mask.push_back(at + k < n ? int(at + k) : -1);
  return b.CreateShuffleVector(v, mask);
}

// Per-register results concatenated and cut to `lanes` (a last register's lanes past the
// value's end dropped).
llvm::Value* concat_lanes(llvm::IRBuilder<>& b, const std::vector<llvm::Value*>& parts, unsigned lanes) {
  llvm::Value* whole = concat(b, parts);
  return lanes_of(whole) != lanes ? slice(b, whole, 0, lanes) : whole;
}

// Per register of a's and b's words: vmpye(a.w, b.uh) takes the products with b's low
// halves; vmpyo(a.w, b.h) adds those with its high halves, either into the 64-bit pair (the
// high word: the pair's high register) or doubled, rounded or not, saturated, into the word.
llvm::Value* emit_fixed_mul(llvm::IRBuilder<>& b, const HvxMatch& m, const std::vector<llvm::Value*>& values) {
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  llvm::Value* a = values[0];
  llvm::Value* c = values[1];
  if (!c->getType()->isVectorTy()) c = b.CreateVectorSplat(lanes_of(a), c);
  unsigned lanes = lanes_of(a);
  std::vector<llvm::Value*> parts;
  for (unsigned at = 0; at < lanes; at += 32) {
    llvm::Value* x = register_at(b, a, at);
    llvm::Value* y = register_at(b, c, at);
    if (m.shift == 32) {
      llvm::Value* pair = b.CreateCall(intrinsic(module, "vmpyewuh_64"), {x, y});
      pair = b.CreateCall(intrinsic(module, "vmpyowh_64_acc"), {pair, x, y});
      parts.push_back(b.CreateCall(intrinsic(module, "hi"), {pair}));
    } else {
      llvm::Value* low = b.CreateCall(intrinsic(module, "vmpyewuh"), {x, y});
      parts.push_back(b.CreateCall(intrinsic(module, m.round ? "vmpyowh_rnd_sacc" : "vmpyowh_sacc"), {low, x, y}));
    }
  }
  return concat_lanes(b, parts, lanes);
}

// 32-bit arithmetic through a 64-bit intermediate (match_wide_arith): the instruction that
// computes it, or its value computed in 32-bit lanes (WideArith::lowered) as operand 0.
bool match_wide_arith_row(const Expr& e, HvxMatch& m) {
  std::optional<WideArith> w = match_wide_arith(e);
  if (!w || e.dtype().lanes < 2) return false;
  bool s = w->a.dtype().is_int();
  std::string op;
  switch (w->kind) {
    case WideArith::SatAdd: op = s ? "vaddwsat" : "vadduwsat"; break;
    case WideArith::SatSub: op = s ? "vsubwsat" : "vsubuwsat"; break;
    case WideArith::Avg: op = s ? "vavgw" : "vavguw"; break;
    case WideArith::AvgRound: op = s ? "vavgwrnd" : "vavguwrnd"; break;
    case WideArith::NegAvg: op = s ? "vnavgw" : ""; break;
    case WideArith::RoundShift:
      // Saturated to 16 bits: vasr(Vu.w, Vv.w, Rt):rnd:sat, or vround by 16. No u32 to i16.
      if (w->saturate && w->result.bits == 16 && (s || w->result.is_uint()) && w->shift <= 16) {
        std::string to = w->result.is_int() ? "h" : "uh";
        op = w->shift == 16 ? std::string("vround") + (s ? "w" : "uw") + to
                            : std::string("vasr") + (s ? "w" : "uw") + to + "rndsat";
      }
      break;
  }
  m.wide_op = op;
  m.shift = w->shift;
  if (op.empty()) {
    if (!w->lowered) return false;
    m.operands = {w->lowered};
  } else {
    m.operands = {w->a};
    if (w->b) m.operands.push_back(w->b);
  }
  return true;
}

// sat16((x + 2^(k-1)) >> k) of i32 lanes (or / 2^k), k in [1, 16], where x's bounds prove the
// add cannot wrap: the instruction wide_arith selects for the 64-bit form, on operand 0 = x.
bool match_round_narrow_words(const Expr& e, HvxMatch& m) {
  const auto* c = e.as<dspc::Cast>();
  DataType t = e.dtype();
  if (!c || !t.is_integer() || t.bits != 16 || t.lanes % 64 != 0) return false;
  static const std::vector<Pattern> patterns = [] {
    std::vector<Pattern> p;
    for (const char* text : {"(sat i16 (div (add $v:i32 #r:round_k) #k:pow2..16))",
                             "(sat i16 (shr (add $v:i32 #r:round_k) #k:1..16))",
                             "(sat u16 (div (add $v:i32 #r:round_k) #k:pow2..16))",
                             "(sat u16 (shr (add $v:i32 #r:round_k) #k:1..16))"})
      p.push_back(PatternParser(text).parse());
    return p;
  }();
  for (size_t i = t.is_int() ? 0 : 2, end = i + 2; i < end; ++i) {
    Bindings b;
    if (!match(patterns[i], e, b) || !rounds_hold(b)) continue;
    int64_t k = b.constants.at("k");
    Expr v = b.exprs.at("v");
    Interval r = IndexBounds().of(v);
    if (r.hi > int64_t(INT32_MAX) - (int64_t(1) << (k - 1))) return false;
    std::string to = t.is_int() ? "h" : "uh";
    m.wide_op = k == 16 ? "vroundw" + to : "vasrw" + to + "rndsat";
    m.shift = int(k);
    m.operands = {v};
    return true;
  }
  return false;
}

llvm::Value* emit_wide_arith(llvm::IRBuilder<>& b, const HvxMatch& m, const std::vector<llvm::Value*>& values) {
  if (m.wide_op.empty()) return values[0];
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  llvm::Function* f = intrinsic(module, m.wide_op);
  unsigned lanes = lanes_of(values[0]);
  std::vector<llvm::Value*> parts;
  if (values.size() == 2) {
    // Lanes: one instruction per register of words.
    for (unsigned at = 0; at < lanes; at += 32)
      parts.push_back(b.CreateCall(f, {register_at(b, values[0], at), register_at(b, values[1], at)}));
    return concat_lanes(b, parts, lanes);
  }
  // Narrow: per 64 halfwords of the result, the 64 words' odd lanes then even lanes (vround
  // and vasr interleave them back), and the shift amount.
  auto* halves = llvm::FixedVectorType::get(b.getInt16Ty(), 64);
  for (unsigned at = 0; at < lanes; at += 64) {
    llvm::Value* d = deinterleave(b, register_at(b, values[0], at, 64));
    std::vector<llvm::Value*> args = {slice(b, d, 32, 32), slice(b, d, 0, 32)};
    if (m.shift != 16) args.push_back(b.getInt32(m.shift));
    parts.push_back(b.CreateBitCast(b.CreateCall(f, args), halves));
  }
  return concat_lanes(b, parts, lanes);
}

}  // namespace

// ---------------------------------------------------------------- leading sign bits

namespace {

// max(count_leading_zeros(x), count_leading_zeros(~x)) of 16- or 32-bit lanes (either order);
// operand 0 is x.
bool match_sign_bits(const Expr& e, HvxMatch& m) {
  const auto* op = e.as<dspc::Binary>();
  DataType t = e.dtype();
  if (!op || op->op != BinaryOp::Max || !t.is_integer() || (t.bits != 16 && t.bits != 32)) return false;
  auto clz_of = [](const Expr& x) -> Expr {
    const auto* u = x.as<Unary>();
    return u && u->op == UnaryOp::Clz ? u->value : Expr();
  };
  Expr a = clz_of(op->a), c = clz_of(op->b);
  if (!a || !c) return false;
  auto not_of = [](const Expr& x) -> Expr {
    const auto* u = x.as<Unary>();
    return u && u->op == UnaryOp::BitNot ? u->value : Expr();
  };
  if (Expr n = not_of(c); n && same_expr(n, a)) {
    m.operands = {a};
  } else if (Expr n2 = not_of(a); n2 && same_expr(n2, c)) {
    m.operands = {c};
  } else {
    return false;
  }
  return true;
}

// vnormamt per register: the leading bits equal to the sign bit, after it (0 for 0 and -1,
// where the count is the width), plus 1.
llvm::Value* emit_sign_bits(llvm::IRBuilder<>& b, const HvxMatch&, const std::vector<llvm::Value*>& values) {
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  llvm::Value* x = values[0];
  auto* vt = llvm::cast<llvm::FixedVectorType>(x->getType());
  unsigned bits = vt->getScalarSizeInBits(), lanes = vt->getNumElements(), step = 1024 / bits;
  llvm::Function* f = intrinsic(module, bits == 16 ? "vnormamth" : "vnormamtw");
  auto* words = llvm::FixedVectorType::get(b.getInt32Ty(), 32);
  auto* reg = llvm::FixedVectorType::get(vt->getElementType(), step);
  std::vector<llvm::Value*> parts;
  for (unsigned at = 0; at < lanes; at += step) {
    llvm::Value* piece = register_at(b, x, at, step);
    parts.push_back(b.CreateBitCast(b.CreateCall(f, {b.CreateBitCast(piece, words)}), reg));
  }
  llvm::Value* whole = concat_lanes(b, parts, lanes);
  return b.CreateAdd(whole, llvm::ConstantInt::get(whole->getType(), 1));
}

}  // namespace

// ---------------------------------------------------------------- byte shifts by a scalar

namespace {

// x << n, x >> n of 8-bit lanes by a broadcast scalar n proved inside [0, 8) (not a constant:
// LLVM folds those into its own patterns). HVX has no byte shift; operand 0 the bytes,
// operand 1 the amount as a 32-bit word, m.byte_shift the shift (0 shl, 1 logical, 2 arithmetic).
bool match_shift_bytes(const Expr& e, HvxMatch& m) {
  const auto* op = e.as<dspc::Binary>();
  DataType t = e.dtype();
  if (!op || (op->op != BinaryOp::Shl && op->op != BinaryOp::Shr) || !t.is_integer() || t.bits != 8 || t.lanes < 2)
    return false;
  const auto* c = op->b.as<Broadcast>();
  if (!c || !c->value.dtype().is_integer() || const_int(c->value)) return false;
  Interval r = IndexBounds().of(c->value);
  if (r.lo < 0 || r.hi >= 8) return false;
  m.operands = {op->a, Cast::make(DataType::i32(), c->value)};
  m.byte_shift = op->op == BinaryOp::Shl ? 0 : t.is_int() ? 2 : 1;
  return true;
}

// Each register's bytes taken as halfwords, shifted by the scalar amount n (vasl/vlsr/vasr(Vu.h,
// Rt)), then the bits each halfword shift moved across its two bytes cleared: a logical
// shift keeps 0xff >> n of each byte, a left shift 0xff << n; an arithmetic shift keeps 0xff >> n
// and then extends the sign from bit 7 - n, (t ^ s) - s with s = 0x80 >> n. Two instructions
// per register (four for the arithmetic shift), one of them a shift, against widening to
// halfwords, a shift per half and a vshuffe.
llvm::Value* emit_shift_bytes(llvm::IRBuilder<>& b, const HvxMatch& m, const std::vector<llvm::Value*>& values) {
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  llvm::Value* x = values[0];
  llvm::Value* n = values[1];
  unsigned lanes = lanes_of(x);
  llvm::Function* f = intrinsic(module, m.byte_shift == 0 ? "vaslh" : m.byte_shift == 1 ? "vlsrh" : "vasrh");
  auto* words = llvm::FixedVectorType::get(b.getInt32Ty(), 32);
  auto* bytes = llvm::FixedVectorType::get(b.getInt8Ty(), 128);
  auto byte_splat = [&](llvm::Value* byte_word) {
    // The low byte of a word in every byte of a register.
    llvm::Value* w = b.CreateMul(b.CreateAnd(byte_word, b.getInt32(0xff)), b.getInt32(0x01010101));
    return b.CreateBitCast(b.CreateVectorSplat(32, w), bytes);
  };
  llvm::Value* keep =
      byte_splat(m.byte_shift == 0 ? b.CreateShl(b.getInt32(0xff), n) : b.CreateLShr(b.getInt32(0xff), n));
  llvm::Value* sign = m.byte_shift == 2 ? byte_splat(b.CreateLShr(b.getInt32(0x80), n)) : nullptr;
  std::vector<llvm::Value*> parts;
  for (unsigned at = 0; at < lanes; at += 128) {
    llvm::Value* piece = register_at(b, x, at, 128);
    llvm::Value* t = b.CreateBitCast(b.CreateCall(f, {b.CreateBitCast(piece, words), n}), bytes);
    t = b.CreateAnd(t, keep);
    if (sign) {
      // The subtract as the instruction: LLVM would canonicalize (t ^ s) - s, once s is a
      // constant (an unrolled loop's amount), into a byte shl and ashr, which it widens.
      llvm::Value* xs = b.CreateBitCast(b.CreateXor(t, sign), words);
      t = b.CreateBitCast(b.CreateCall(intrinsic(module, "vsubb"), {xs, b.CreateBitCast(sign, words)}), bytes);
    }
    parts.push_back(t);
  }
  return concat_lanes(b, parts, lanes);
}

}  // namespace

// ---------------------------------------------------------------- 32-bit lanes saturated to bytes

namespace {

// u8 or i8 of a 32-bit signed value saturated to the byte's range (the sat pattern: a side of
// the clamp the value cannot pass may be left out, not both), whole registers of bytes. Operand 0 is the value
// clamped to 16 bits and narrowed, which codegen evaluates with the vpack(Vu.w,Vv.w):sat row;
// saturating that to the byte's range is the same as saturating the word.
bool match_pack_sat_bytes(const Expr& e, HvxMatch& m) {
  const auto* c = e.as<dspc::Cast>();
  DataType t = e.dtype();
  if (!c || !t.is_integer() || t.bits != 8 || t.lanes % 128 != 0) return false;
  // A clamp written (a plain narrowing is two vpacke, as cheap).
  const auto* clamp = c->value.as<dspc::Binary>();
  if (!clamp || (clamp->op != BinaryOp::Min && clamp->op != BinaryOp::Max)) return false;
  static const Pattern to_u8 = PatternParser("(sat u8 $v:i32)").parse();
  static const Pattern to_i8 = PatternParser("(sat i8 $v:i32)").parse();
  Bindings b;
  if (!match(t.is_uint() ? to_u8 : to_i8, e, b)) return false;
  Expr v = b.exprs.at("v");
  DataType w = v.dtype();
  Expr clamped = Binary::make(BinaryOp::Min, Binary::make(BinaryOp::Max, v, Broadcast::make(make_const(DataType::i32(), -32768), w.lanes)),
                              Broadcast::make(make_const(DataType::i32(), 32767), w.lanes));
  m.operands = {Cast::make(DataType{TypeCode::Int, 16, w.lanes}, clamped)};
  m.is_signed = t.is_int();
  return true;
}

// Per 128 bytes of output, the 128 halfwords' two registers, the second first.
llvm::Value* emit_pack_sat_bytes(llvm::IRBuilder<>& b, const HvxMatch& m, const std::vector<llvm::Value*>& values) {
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  llvm::Function* f = intrinsic(module, m.is_signed ? "vpackhb_sat" : "vpackhub_sat");
  auto* words = llvm::FixedVectorType::get(b.getInt32Ty(), 32);
  auto* bytes = llvm::FixedVectorType::get(b.getInt8Ty(), 128);
  std::vector<llvm::Value*> parts;
  for (unsigned at = 0; at < lanes_of(values[0]); at += 128) {
    llvm::Value* lo = b.CreateBitCast(slice(b, values[0], at, 64), words);
    llvm::Value* hi = b.CreateBitCast(slice(b, values[0], at + 64, 64), words);
    parts.push_back(b.CreateBitCast(b.CreateCall(f, {hi, lo}), bytes));
  }
  return concat(b, parts);
}

}  // namespace

// ---------------------------------------------------------------- widened, shifted, saturated back

namespace {

// T(clamp(W(x) << k, T's range)) where W(x) widens x to twice its width (sign- or
// zero-extension) and T is x's width (u8 of 16-bit lanes; i16 or u16 of 32-bit lanes) or, of
// 32-bit lanes, bytes: Halide's u8_sat(i16(i8_1) << 1), i16_sat(i32(i16_1) << 1). The sat
// pattern (a clamp side the value cannot pass may be left out), k in [0, W's bits), the shift
// wrapping as dspc's does (the emitter computes the same wide values). A product by 2^k is the
// same shift. Operand 0 is x; m.shift is k; m.dot_bits is the result's width.
bool match_sat_shift_narrow(const Expr& e, HvxMatch& m) {
  const auto* c = e.as<dspc::Cast>();
  DataType t = e.dtype();
  if (!c || !t.is_integer()) return false;
  static const std::vector<std::pair<Pattern, DataType>> patterns = [] {
    std::vector<std::pair<Pattern, DataType>> p;
    for (auto [text, narrow] : {std::pair{"(sat u8 $w:i16)", DataType::u8()}, {"(sat u16 $w:i32)", DataType::u16()},
                                {"(sat i16 $w:i32)", DataType::i16()}, {"(sat u8 $w:i32)", DataType::u8()},
                                {"(sat i8 $w:i32)", DataType::i8()}})
      p.push_back({PatternParser(text).parse(), narrow});
    return p;
  }();
  for (const auto& [pattern, narrow] : patterns) {
    if (narrow.bits != t.bits || narrow.code != t.code) continue;
    Bindings b;
    if (!match(pattern, e, b)) continue;
    Expr w = b.exprs.at("w");
    const auto* op = w.as<dspc::Binary>();
    if (!op || (op->op != BinaryOp::Shl && op->op != BinaryOp::Mul)) continue;
    Expr value = op->a;
    std::optional<int64_t> k = const_int(op->b);
    if (op->op == BinaryOp::Mul && !k) {
      value = op->b;
      k = const_int(op->a);
    }
    if (!k) continue;
    if (op->op == BinaryOp::Mul) {
      if (*k < 1 || !llvm::isPowerOf2_64(uint64_t(*k))) continue;
      k = int64_t(llvm::Log2_64(uint64_t(*k)));
    }
    int wide_bits = w.dtype().bits;
    if (*k < 0 || *k >= wide_bits) continue;
    const auto* widen = value.as<dspc::Cast>();
    if (!widen || !widen->value.dtype().is_integer() || widen->value.dtype().bits * 2 != wide_bits) continue;
    DataType x = widen->value.dtype();
    // A signed value sign-extends only into a signed type (a cast to unsigned of a negative
    // value is not the instruction's extension).
    if (x.is_int() && !w.dtype().is_int()) continue;
    // Whole registers of x.
    if (x.lanes % (1024 / x.bits) != 0 || t.lanes % (1024 / t.bits) != 0) continue;
    m.operands = {widen->value};
    m.shift = int(*k);
    m.is_signed = x.is_int();
    m.dot_bits = t.bits;
    m.packed = t.is_int();
    return true;
  }
  return false;
}

// Per register of x: vsxt or vzxt (the even lanes, then the odd lanes, widened), the two
// registers shifted, and the instruction that saturates them back interleaving them (odd
// lanes first): vsat(Vu.h,Vv.h) to bytes, vsat(Vu.w,Vv.w) to i16, vasr(Vu.w,Vv.w,#0):sat to
// u16; bytes from words take the i16 registers two by two into vpack(Vu.h,Vv.h):sat.
llvm::Value* emit_sat_shift_narrow(llvm::IRBuilder<>& b, const HvxMatch& m, const std::vector<llvm::Value*>& values) {
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  llvm::Value* x = values[0];
  unsigned xbits = x->getType()->getScalarSizeInBits();
  unsigned per = 1024 / xbits;
  auto* words = llvm::FixedVectorType::get(b.getInt32Ty(), 32);
  auto* wide = llvm::FixedVectorType::get(b.getIntNTy(2 * xbits), per / 2);
  std::string extend = xbits == 8 ? (m.is_signed ? "vsb" : "vzb") : (m.is_signed ? "vsh" : "vzh");
  std::vector<llvm::Value*> parts;
  for (unsigned at = 0; at < lanes_of(x); at += per) {
    llvm::Value* pair = b.CreateCall(intrinsic(module, extend), {b.CreateBitCast(slice(b, x, at, per), words)});
    llvm::Value* halves[2];
    for (int h = 0; h < 2; ++h) {
      llvm::Value* r = b.CreateBitCast(b.CreateCall(intrinsic(module, h ? "hi" : "lo"), {pair}), wide);
      if (m.shift) r = b.CreateShl(r, llvm::ConstantInt::get(wide, uint64_t(m.shift)));
      halves[h] = b.CreateBitCast(r, words);
    }
    llvm::Value* r;
    if (xbits == 8)
      r = b.CreateCall(intrinsic(module, "vsathub"), {halves[1], halves[0]});
    else if (m.dot_bits == 16 && !m.packed)
      r = b.CreateCall(intrinsic(module, "vasrwuhsat"), {halves[1], halves[0], b.getInt32(0)});
    else
      r = b.CreateCall(intrinsic(module, "vsatwh"), {halves[1], halves[0]});
    parts.push_back(r);
  }
  if (xbits == 16 && m.dot_bits == 8) {
    std::vector<llvm::Value*> bytes;
    for (size_t i = 0; i + 1 < parts.size(); i += 2)
      bytes.push_back(b.CreateCall(intrinsic(module, m.packed ? "vpackhb_sat" : "vpackhub_sat"), {parts[i + 1], parts[i]}));
    parts = bytes;
  }
  auto* out = llvm::FixedVectorType::get(b.getIntNTy(unsigned(m.dot_bits)), 1024 / unsigned(m.dot_bits));
  for (llvm::Value*& p : parts) p = b.CreateBitCast(p, out);
  return concat(b, parts);
}

}  // namespace

// ---------------------------------------------------------------- pairs, after LLVM

namespace {

// A widening multiply(-add) call of one of the fuse rows: the row, its accumulator (null
// without), vector and replicated weight byte.
struct MulAdd {
  llvm::CallInst* call = nullptr;
  size_t row = 0;
  llvm::Value* acc = nullptr;
  llvm::Value* v = nullptr;
  llvm::Value* rt = nullptr;
};

// Where a value computed from x and y can go: after the later of the two (the function's entry
// for constants and arguments).
llvm::Instruction* after_both(llvm::Function& f, llvm::DominatorTree& dt, llvm::Value* x, llvm::Value* y) {
  auto* ix = llvm::dyn_cast<llvm::Instruction>(x);
  auto* iy = llvm::dyn_cast<llvm::Instruction>(y);
  llvm::Instruction* later = nullptr;
  if (ix && iy) {
    if (dt.dominates(ix, iy))
      later = iy;
    else if (dt.dominates(iy, ix))
      later = ix;
    else
      return nullptr;
  } else {
    later = ix ? ix : iy;
  }
  if (!later) return &*f.getEntryBlock().getFirstInsertionPt();
  if (llvm::isa<llvm::PHINode>(later)) return &*later->getParent()->getFirstInsertionPt();
  return later->getNextNode();
}

}  // namespace

// ---------------------------------------------------------------- products by constants

namespace {

// c wrapped to the bits of lane type t (as t's arithmetic wraps), as a value of t.
int64_t wrapped(DataType t, uint64_t c) {
  uint64_t mask = t.bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << t.bits) - 1;
  uint64_t u = c & mask;
  if (t.is_int() && t.bits < 64 && (u >> (t.bits - 1)) & 1) u |= ~mask;
  return int64_t(u);
}

// Coefficients multiply modulo 2^64 (then 2^bits): no signed overflow.
int64_t times(int64_t a, int64_t b) {
  return int64_t(uint64_t(a) * uint64_t(b));
}

// x * c with c a (broadcast) constant, either order.
bool constant_product(const Expr& e, Expr& x, int64_t& c) {
  const auto* m = e.as<dspc::Binary>();
  if (!m || m->op != BinaryOp::Mul) return false;
  for (auto [v, k] : {std::pair{m->a, m->b}, std::pair{m->b, m->a}})
    if (std::optional<int64_t> ck = const_int(k); ck && !const_int(v)) {
      x = v;
      c = *ck;
      return true;
    }
  return false;
}

// A narrower integer value widened by casts that never narrow, to at least twice its bits: what
// the widening multiplies by a scalar (vmpy(Vu.ub, Rt.b), vmpy(Vu.h, Rt.h), vmpa) take.
bool widened_narrow(const Expr& e) {
  int bits = 0;
  Expr v = e;
  while (const auto* c = v.as<dspc::Cast>()) {
    DataType from = c->value.dtype();
    if (!from.is_integer() || !c->dtype.is_integer() || from.bits > c->dtype.bits) break;
    bits = from.bits;
    v = c->value;
  }
  return bits > 0 && 2 * bits <= e.dtype().bits && !const_int(v);
}

// The terms of `e`, an add/subtract tree of lane type t, each with its coefficient: a term
// x * c (c constant) is x with c times the sign, and c * (a + b) or c * (a - b) is distributed
// where every leaf below it is a widened narrow value or one's product by a constant (the
// terms a widening multiply-add takes). Coefficients are exact modulo 2^bits, as t's wrapping
// adds and multiplies are (distributivity holds there). `changed` is set when a term moved.
void coefficient_terms(const Expr& e, DataType t, int64_t sign, std::vector<std::pair<Expr, int64_t>>& out,
                       bool& changed) {
  const auto* op = e.as<dspc::Binary>();
  if (op && op->dtype == t && (op->op == BinaryOp::Add || op->op == BinaryOp::Sub)) {
    coefficient_terms(op->a, t, sign, out, changed);
    coefficient_terms(op->b, t, op->op == BinaryOp::Sub ? -sign : sign, out, changed);
    return;
  }
  Expr x;
  int64_t c = 0;
  if (constant_product(e, x, c)) {
    // c * (a +- b ...) with narrow leaves: distributed.
    const auto* inner = x.as<dspc::Binary>();
    if (inner && inner->dtype == t && (inner->op == BinaryOp::Add || inner->op == BinaryOp::Sub)) {
      std::vector<std::pair<Expr, int64_t>> parts;
      bool sub_changed = false;
      coefficient_terms(x, t, 1, parts, sub_changed);
      bool narrow = true;
      for (const auto& [leaf, k] : parts) narrow &= widened_narrow(leaf);
      if (narrow) {
        for (const auto& [leaf, k] : parts) out.push_back({leaf, times(times(sign, c), k)});
        changed = true;
        return;
      }
    }
    changed |= sign < 0;  // a subtracted product becomes an added one
    out.push_back({x, times(sign, c)});
    return;
  }
  out.push_back({e, sign});
}

}  // namespace

Expr hvx_constant_products(const Expr& e, const Target& target) {
  DataType t = e.dtype();
  if (target.arch != Arch::hexagon || t.lanes < 2 || !t.is_int() || (t.bits != 16 && t.bits != 32)) return Expr();
  const auto* op = e.as<dspc::Binary>();
  if (!op || (op->op != BinaryOp::Add && op->op != BinaryOp::Sub && op->op != BinaryOp::Mul)) return Expr();
  std::vector<std::pair<Expr, int64_t>> terms;
  bool changed = false;
  coefficient_terms(e, t, 1, terms, changed);
  if (!changed) return Expr();
  // Only a sum of two products by constants or more (which pair into vmpa, or chain): one
  // product subtracted stays a multiply and a subtraction, which measured cheaper than the
  // accumulating multiply (a - i16(b) * -100: 4.10 packets per 128 outputs, as an
  // accumulating vmpy(Vu.ub, Rt.b) 4.74; a - b * 90 in i16: 4.99, as vmpyi:acc 5.25).
  int products = 0;
  for (const auto& [x, c] : terms) products += !const_int(x) && wrapped(t, uint64_t(c)) != 1 && wrapped(t, uint64_t(c)) != -1;
  if (products < 2) return Expr();
  // Terms in their order: a sum of up to four terms as one chain of accumulating multiplies,
  // a longer one in pairs
  // (a widening multiply and an accumulating one, which the fuse rows make one vmpa) added
  // as a balanced tree, so that no long chain bounds the loop by its latency. Measured in
  // packets per 128 outputs (before: fir16_i16 60.76, color_matrix_i16 9.67): fir16's 16
  // taps in one chain 82.38, chains of four 61.76, pairs 57.76; color_matrix's four terms
  // (a constant and three products) in pairs 9.96, one chain 9.63; sobel's six (19.98) in
  // pairs 19.86, its four added ones in one chain 19.99. The terms subtracted
  // whole (coefficient -1) last: a fixed point, as every subtracted term left is no product
  // by a constant.
  std::vector<Expr> chains, minus;
  int in_chain = 0;
  int chain = terms.size() <= 4 ? 4 : 2;
  for (auto [x, c] : terms) {
    c = wrapped(t, uint64_t(c));
    if (c == -1) {
      minus.push_back(x);
      continue;
    }
    Expr term = c == 1 ? x : Binary::make(BinaryOp::Mul, x, Broadcast::make(make_const(t.element_of(), c), t.lanes));
    if (in_chain == 0 || in_chain == chain) {
      chains.push_back(term);
      in_chain = 1;
    } else {
      chains.back() = Binary::make(BinaryOp::Add, chains.back(), term);
      ++in_chain;
    }
  }
  if (chains.empty()) return Expr();  // nothing but subtractions: as it was
  while (chains.size() > 1) {
    std::vector<Expr> next;
    for (size_t j = 0; j + 1 < chains.size(); j += 2) next.push_back(Binary::make(BinaryOp::Add, chains[j], chains[j + 1]));
    if (chains.size() % 2) next.push_back(chains.back());
    chains = next;
  }
  Expr sum = chains[0];
  for (const Expr& x : minus) sum = Binary::make(BinaryOp::Sub, sum, x);
  return sum;
}

void fuse_hvx_pairs(llvm::Module& module, const Target& target) {
  const Table& t = table();
  // The rows' intrinsics the module calls (plain and .acc); the fused ones are declared when
  // first used, so a module without pairs is left as it was.
  struct Ids {
    llvm::Function *from = nullptr, *from_acc = nullptr;
  };
  auto declared = [&](const std::string& name) { return module.getFunction(intrinsic_name(name)); };
  std::vector<Ids> ids(t.fuse.size());
  bool any = false;
  for (size_t r = 0; r < t.fuse.size(); ++r) {
    if (target.hexagon_version < t.fuse[r].min_version) continue;
    ids[r] = {declared(t.fuse[r].from), declared(t.fuse[r].from + "_acc")};
    any |= ids[r].from || ids[r].from_acc;
  }
  if (!any) return;
  // Rows whose weight is a halfword (passed in both halves of a word, vmpy(Vu.h,Rt.h)): the pair
  // instruction takes bytes, so they fuse only where both weights are constants that fit one.
  std::vector<bool> halves(t.fuse.size(), false);
  for (size_t r = 0; r < t.fuse.size(); ++r)
    for (const HvxIdiom& row : t.rows)
      if (t.fuse[r].from == row.name && std::string(row.pattern_text).find("half") != std::string::npos) halves[r] = true;
  auto as_mul_add = [&](llvm::Value* value, MulAdd& m) {
    auto* c = llvm::dyn_cast<llvm::CallInst>(value);
    if (!c || !c->getCalledFunction()) return false;
    for (size_t r = 0; r < ids.size(); ++r) {
      if (ids[r].from_acc && c->getCalledFunction() == ids[r].from_acc) {
        m = {c, r, c->getArgOperand(0), c->getArgOperand(1), c->getArgOperand(2)};
        return true;
      }
      if (ids[r].from && c->getCalledFunction() == ids[r].from) {
        m = {c, r, nullptr, c->getArgOperand(0), c->getArgOperand(1)};
        return true;
      }
    }
    return false;
  };
  for (llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    std::vector<llvm::CallInst*> calls;
    for (llvm::Instruction& i : llvm::instructions(f)) {
      MulAdd m;
      if (as_mul_add(&i, m)) calls.push_back(m.call);
    }
    if (calls.size() < 2) continue;
    llvm::DominatorTree dt(f);
    std::set<llvm::CallInst*> gone;
    for (llvm::CallInst* c : calls) {
      MulAdd second, first;
      if (gone.count(c) || !as_mul_add(c, second) || !second.acc || !as_mul_add(second.acc, first)) continue;
      if (gone.count(first.call) || first.row != second.row || !first.call->hasOneUse() ||
          first.call->getParent() != c->getParent())
        continue;
      // Halfword weights h0 h1 (even lanes, odd lanes) of constants that are signed bytes:
      // the word of bytes first.h0, second.h0, first.h1, second.h1.
      std::optional<uint32_t> byte_word;
      if (halves[first.row]) {
        auto* k0 = llvm::dyn_cast<llvm::ConstantInt>(first.rt);
        auto* k1 = llvm::dyn_cast<llvm::ConstantInt>(second.rt);
        if (!k0 || !k1) continue;
        uint32_t w[2] = {uint32_t(k0->getZExtValue()), uint32_t(k1->getZExtValue())};
        uint32_t word = 0;
        bool fits = true;
        for (int h = 0; h < 2; ++h)
          for (int k = 0; k < 2; ++k) {
            int16_t v = int16_t(uint16_t(w[k] >> (16 * h)));
            fits &= v >= -128 && v <= 127;
            word |= (uint32_t(v) & 0xff) << (16 * h + 8 * k);
          }
        if (!fits) continue;
        byte_word = word;
      }
      llvm::Instruction* at = after_both(f, dt, first.rt, second.rt);
      if (!at) continue;
      llvm::IRBuilder<> b(at);
      llvm::Value* rt = nullptr;
      if (byte_word) {
        rt = b.getInt32(*byte_word);
      } else {
        // w0 w1 w0 w1: the even bytes of the first weight word, the odd ones of the second.
        llvm::Value* odd = b.CreateShl(b.CreateAnd(second.rt, b.getInt32(0x00ff00ff)), 8);
        rt = b.CreateOr(b.CreateAnd(first.rt, b.getInt32(0x00ff00ff)), odd);
      }
      b.SetInsertPoint(c);
      llvm::Value* pair = b.CreateCall(intrinsic(module, "vcombine"), {second.v, first.v});
      const std::string& to = t.fuse[first.row].to;
      llvm::Value* fused = first.acc ? b.CreateCall(intrinsic(module, to + "_acc"), {first.acc, pair, rt})
                                     : b.CreateCall(intrinsic(module, to), {pair, rt});
      c->replaceAllUsesWith(fused);
      c->eraseFromParent();
      first.call->eraseFromParent();
      gone.insert(c);
      gone.insert(first.call);
    }
  }
}

// ---------------------------------------------------------------- interleaves, after LLVM

namespace {

// `v` as `x >> k` (logical or arithmetic, by the splat k): x, else null.
llvm::Value* shifted_from(llvm::Value* v, unsigned k) {
  using namespace llvm::PatternMatch;
  llvm::Value* x = nullptr;
  if (match(v, m_LShr(m_Value(x), m_SpecificInt(k))) || match(v, m_AShr(m_Value(x), m_SpecificInt(k)))) return x;
  return nullptr;
}

bool is_poison(llvm::Value* v) { return llvm::isa<llvm::UndefValue>(v); }

// Where lane i of v comes from, through shuffles: a value that is not a shuffle and its lane,
// or a null value for a lane no one defines.
using LaneSource = std::pair<llvm::Value*, int>;
LaneSource lane_source(llvm::Value* v, int i) {
  while (auto* sh = llvm::dyn_cast<llvm::ShuffleVectorInst>(v)) {
    int m = sh->getMaskValue(unsigned(i));
    if (m < 0) return {nullptr, -1};
    int w = int(lanes_of(sh->getOperand(0)));
    v = sh->getOperand(m < w ? 0 : 1);
    i = m < w ? m : m - w;
  }
  return {v, i};
}

// Whether v is computed (through arithmetic) from a vector widened from lanes of at most
// `half` bits: LLVM's own lowering keeps such a value in register-pair order and narrows it
// with vshuffe/vshuffo, where a vpacko would first put its lanes in order.
bool from_widening(llvm::Value* v, unsigned half, int depth = 6) {
  if (auto* c = llvm::dyn_cast<llvm::CastInst>(v); c && (llvm::isa<llvm::SExtInst>(c) || llvm::isa<llvm::ZExtInst>(c)))
    return c->getSrcTy()->getScalarSizeInBits() <= half;
  auto* bo = llvm::dyn_cast<llvm::BinaryOperator>(v);
  if (!bo || depth == 0) return false;
  return from_widening(bo->getOperand(0), half, depth - 1) || from_widening(bo->getOperand(1), half, depth - 1);
}

// The narrowing of 2h wide lanes (h the lanes of one register of them; `lanes` their sources),
// their low halves or (high) their high halves, as one vshuffe (vshuffo) when the even lanes
// are one register of some value and the odd lanes one register of some value, in order: the
// register pair of a widening instruction, interleaved. A pair of shifts right by half the
// lane (that InstCombine moved above the interleave) is taken as the high halves. Null when
// the lanes are not so.
llvm::Value* shuffle_narrow(llvm::IRBuilder<>& b, const std::vector<LaneSource>& lanes, unsigned h, unsigned wide,
                            bool high) {
  LaneSource reg[2] = {{nullptr, -1}, {nullptr, -1}};  // even, odd: (value, first lane)
  for (unsigned i = 0; i < 2 * h; ++i) {
    auto [v, k] = lanes[i];
    if (!v) continue;
    int start = k - int(i / 2);
    if (start < 0 || start % int(h) || is_poison(v) || start + int(h) > int(lanes_of(v))) return nullptr;
    LaneSource& r = reg[i % 2];
    if (r.first && r != LaneSource{v, start}) return nullptr;
    r = {v, start};
  }
  if (!reg[0].first || !reg[1].first) return nullptr;
  unsigned half = wide / 2;
  if (!high) {
    llvm::Value* e = shifted_from(reg[0].first, half);
    llvm::Value* o = shifted_from(reg[1].first, half);
    if (e && o) {
      reg[0].first = e;
      reg[1].first = o;
      high = true;
    }
  }
  llvm::Type* rt = llvm::FixedVectorType::get(b.getInt32Ty(), h * wide / 32);
  auto as_reg = [&](LaneSource r) { return b.CreateBitCast(slice(b, r.first, unsigned(r.second), h), rt); };
  std::string name = high ? (wide == 16 ? "vshuffob" : "vshufoh") : (wide == 16 ? "vshuffeb" : "vshufeh");
  return b.CreateCall(intrinsic(*b.GetInsertBlock()->getModule(), name), {as_reg(reg[1]), as_reg(reg[0])});
}

// trunc(x) or trunc(x >> half) from 16- or 32-bit lanes, whole registers of the result: with
// x an interleave of register pairs, one vshuffe (vshuffo) of the two registers per register
// of the result instead of the vshuff and the vpacke (and the shifts); with x >> half of a
// vector in lane order, one vpacko of x's two registers instead of two shifts and a vpacke.
bool fuse_narrow(llvm::TruncInst* t, unsigned vector_bits) {
  auto* to = llvm::dyn_cast<llvm::FixedVectorType>(t->getType());
  if (!to) return false;
  unsigned wide = t->getOperand(0)->getType()->getScalarSizeInBits();
  unsigned half = to->getScalarSizeInBits();
  if ((wide != 16 && wide != 32) || half * 2 != wide) return false;
  unsigned h = vector_bits / wide;  // lanes of one register of wide lanes
  if (to->getNumElements() % (2 * h)) return false;
  llvm::Value* x = t->getOperand(0);
  bool high = false;
  if (llvm::Value* u = shifted_from(x, half)) {
    x = u;
    high = true;
  }
  llvm::IRBuilder<> b(t);
  std::vector<llvm::Value*> pieces;
  for (unsigned at = 0; at < to->getNumElements(); at += 2 * h) {
    std::vector<LaneSource> lanes;
    for (unsigned i = 0; i < 2 * h; ++i) lanes.push_back(lane_source(x, int(at + i)));
    llvm::Value* p = shuffle_narrow(b, lanes, h, wide, high);
    if (!p) break;
    pieces.push_back(p);
  }
  if (pieces.size() * 2 * h != to->getNumElements()) {
    for (llvm::Value* p : pieces) llvm::RecursivelyDeleteTriviallyDeadInstructions(p);
    pieces.clear();
    if (!high || from_widening(x, half)) return false;
    llvm::Type* rt = llvm::FixedVectorType::get(b.getInt32Ty(), vector_bits / 32);
    std::string name = wide == 16 ? "vpackob" : "vpackoh";
    for (unsigned at = 0; at < to->getNumElements(); at += 2 * h)
      pieces.push_back(b.CreateCall(intrinsic(*t->getModule(), name), {b.CreateBitCast(slice(b, x, at + h, h), rt),
                                                                          b.CreateBitCast(slice(b, x, at, h), rt)}));
  }
  t->replaceAllUsesWith(b.CreateBitCast(concat(b, pieces), to));
  return true;
}

// A vpacke/vpacko call of the table's rows (the two registers of wide lanes, the second
// first) whose lanes are an interleave of register pairs: vshuffe/vshuffo of the pair.
bool fuse_pack(llvm::CallInst* c, unsigned vector_bits) {
  llvm::Function* f = c->getCalledFunction();
  if (!f || c->arg_size() != 2) return false;
  static const struct {
    const char* name;
    unsigned wide;
    bool high;
  } kPacks[] = {{"vpackeb", 16, false}, {"vpackob", 16, true}, {"vpackeh", 32, false}, {"vpackoh", 32, true}};
  for (const auto& p : kPacks) {
    if (f->getIntrinsicID() != intrinsic_id(p.name)) continue;
    unsigned h = vector_bits / p.wide;
    // Each register as the vector of wide lanes it was cast from.
    auto wide_of = [&](llvm::Value* v) -> llvm::Value* {
      if (auto* bc = llvm::dyn_cast<llvm::BitCastInst>(v)) v = bc->getOperand(0);
      auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(v->getType());
      return vt && vt->getNumElements() == h && vt->getScalarSizeInBits() == p.wide ? v : nullptr;
    };
    llvm::Value* lo = wide_of(c->getArgOperand(1));
    llvm::Value* hi = wide_of(c->getArgOperand(0));
    if (!lo || !hi) return false;
    std::vector<LaneSource> lanes;
    for (unsigned i = 0; i < 2 * h; ++i) lanes.push_back(lane_source(i < h ? lo : hi, int(i % h)));
    llvm::IRBuilder<> b(c);
    llvm::Value* r = shuffle_narrow(b, lanes, h, p.wide, p.high);
    if (!r) return false;
    c->replaceAllUsesWith(r);
    return true;
  }
  return false;
}

// An interleave of the register pairs of vzxt/vsxt (bytes or halfwords widened, even lanes then
// odd lanes): vunpack, which widens in lane order, one instruction where the pair took two.
bool fuse_unpack(llvm::ShuffleVectorInst* sh) {
  static const std::pair<const char*, const char*> kUnpack[] = {
      {"vzb", "vunpackub"}, {"vsb", "vunpackb"}, {"vzh", "vunpackuh"}, {"vsh", "vunpackh"}};
  // A source: the widening's operand and the unpack that replaces it, or nulls.
  auto widening = [&](llvm::Value* v) -> std::pair<llvm::Value*, const char*> {
    if (auto* c = llvm::dyn_cast<llvm::BitCastInst>(v)) v = c->getOperand(0);
    auto* call = llvm::dyn_cast<llvm::CallInst>(v);
    llvm::Function* f = call ? call->getCalledFunction() : nullptr;
    if (!f) return {nullptr, nullptr};
    for (auto [from, to] : kUnpack) {
      if (f->getIntrinsicID() != intrinsic_id(from)) continue;
      unsigned wide = std::string(from)[2] == 'b' ? 16 : 32;
      if (sh->getType()->getScalarSizeInBits() != wide) return {nullptr, nullptr};
      return {call->getArgOperand(0), to};
    }
    return {nullptr, nullptr};
  };
  std::pair<llvm::Value*, const char*> src[2] = {widening(sh->getOperand(0)), {nullptr, nullptr}};
  if (!src[0].first) return false;
  if (!is_poison(sh->getOperand(1))) {
    src[1] = widening(sh->getOperand(1));
    if (!src[1].first) return false;
  }
  unsigned p = lanes_of(sh->getOperand(0));  // the lanes of one pair
  unsigned n = lanes_of(sh);
  if (n % p) return false;
  std::vector<unsigned> which;
  for (unsigned at = 0; at < n; at += p) {
    int s = -1;
    for (unsigned i = 0; i < p; ++i) {
      int m = sh->getMaskValue(at + i);
      if (m < 0) continue;
      int in_pair = int(i % 2 ? p / 2 + i / 2 : i / 2);
      if (m % int(p) != in_pair || (s >= 0 && s != m / int(p))) return false;
      s = m / int(p);
    }
    if (s < 0) s = 0;
    if (!src[s].first) return false;
    which.push_back(unsigned(s));
  }
  llvm::IRBuilder<> b(sh);
  llvm::Module& module = *sh->getModule();
  std::vector<llvm::Value*> pieces;
  for (unsigned s : which) {
    llvm::Value* u = b.CreateCall(intrinsic(module, src[s].second), {src[s].first});
    pieces.push_back(b.CreateBitCast(u, llvm::FixedVectorType::get(sh->getType()->getScalarType(), p)));
  }
  sh->replaceAllUsesWith(concat(b, pieces));
  return true;
}

}  // namespace

void fuse_hvx_interleaves(llvm::Module& module, const Target& target) {
  unsigned vector_bits = unsigned(target.vector_bytes) * 8;
  for (llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    std::vector<llvm::Instruction*> done;
    for (llvm::Instruction& i : llvm::instructions(f)) {
      if (auto* t = llvm::dyn_cast<llvm::TruncInst>(&i)) {
        if (fuse_narrow(t, vector_bits)) done.push_back(t);
      } else if (auto* sh = llvm::dyn_cast<llvm::ShuffleVectorInst>(&i)) {
        if (fuse_unpack(sh)) done.push_back(sh);
      } else if (auto* c = llvm::dyn_cast<llvm::CallInst>(&i)) {
        if (fuse_pack(c, vector_bits)) done.push_back(c);
      }
    }
    for (llvm::Instruction* i : done) i->eraseFromParent();
    // What the fused instructions no longer read (interleaves, shifts, widenings) is dead.
    bool changed = !done.empty();
    while (changed) {
      changed = false;
      for (llvm::Instruction& i : llvm::make_early_inc_range(llvm::instructions(f)))
        if (i.use_empty() && llvm::isInstructionTriviallyDead(&i)) {
          i.eraseFromParent();
          changed = true;
        }
    }
  }
}

}  // namespace dspc::codegen

namespace dspc {

std::vector<HvxIdiomInfo> hvx_idioms() {
  const codegen::Table& t = codegen::table();
  std::vector<HvxIdiomInfo> out;
  for (const codegen::HvxIdiom& row : t.rows)
    out.push_back({row.name, row.instruction, row.pattern_text, row.min_version, false});
  for (const codegen::Table::Fuse& f : t.fuse) out.push_back({f.to, "", "", f.min_version, true});
  return out;
}

std::optional<std::string> hvx_table_error() {
  const codegen::Table& t = codegen::table();
  if (t.error) return t.error;
  // Every intrinsic a row emits exists in this LLVM (a typo would otherwise surface as an
  // internal error when the row first matches).
  std::vector<std::string> names;
  for (const codegen::HvxIdiom& row : t.rows)
    if (!row.matcher) names.push_back(row.name);
  for (const codegen::Table::Fuse& f : t.fuse)
    for (const std::string& n : {f.from, f.from + "_acc", f.to, f.to + "_acc"}) names.push_back(n);
  for (const std::string& n : names)
    if (codegen::intrinsic_id(n) == llvm::Intrinsic::not_intrinsic)
      return n + ": no LLVM intrinsic " + codegen::intrinsic_name(n);
  return std::nullopt;
}

std::optional<std::string> hvx_pattern_error(const std::string& pattern) {
  try {
    codegen::PatternParser(pattern).parse();
  } catch (const codegen::PatternError& e) {
    return e.message;
  }
  return std::nullopt;
}

}  // namespace dspc
