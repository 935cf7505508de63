// Internal to codegen/: HVX instruction selection from the idiom table (HvxIdioms.def).
// FunctionCodegen asks match_hvx_idiom for every vector expression it emits on a Hexagon
// target; a match names the row, the sub-expressions the row's operands bind and its
// constants, and emit_hvx_idiom builds the instruction from their values.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "codegen/Codegen.h"
#include "compiler/ir/IR.h"
#include "targets/Target.h"

namespace dspc::codegen {

struct HvxIdiom;

struct HvxMatch {
  const HvxIdiom* idiom = nullptr;
  // The sub-expressions codegen evaluates and passes to emit_hvx_idiom, in the row's operand
  // order (a custom row's matcher decides its own): vectors, scalar bytes (i8, u8), and the
  // row's #k constants as i32.
  std::vector<Expr> operands;
  bool is_signed = false;  // custom rows: the signedness their emitter needs
  bool packed = false;     // custom rows: the dot product's bytes come as one span
  int shift = 0;           // custom rows: the fixed-point multiply's shift (31 or 32)
  bool round = false;      // custom rows: the fixed-point multiply rounds
  int reduce = 0;          // custom rows: the partial reduction's instruction (HvxIdioms.cpp)
  bool has_acc = false;    // custom rows: operand 0 is an accumulator added to the result
  std::string wide_op;     // custom rows: wide_arith's instruction (empty: operand 0 is the
                           // value, computed in 32-bit lanes)
  bool packed_second = false;  // custom rows: the dot product's second operands come as one span
  int dot = 0;             // custom rows: the dot product's instruction (HvxIdioms.cpp, kDotInstrs)
  int dot_bits = 0;        // custom rows: the dot product's result lane width
  int64_t dot_scale = 1;   // custom rows: the dot product's common weight, multiplied after
  int window = 0;          // custom rows: the sliding window's instruction (HvxIdioms.cpp, kWindowInstrs)
  std::vector<int> window_shift;  // custom rows: per window, the lanes its second vector is read early
  int byte_shift = 0;      // custom rows: shift_bytes's shift (0 left, 1 logical, 2 arithmetic)
};

// The first row of the table whose pattern matches `e` on `target`, or nullopt.
std::optional<HvxMatch> match_hvx_idiom(const Expr& e, const Target& target);

// The instruction(s) of `m`'s row for `values` (the operands, evaluated), giving `result`.
llvm::Value* emit_hvx_idiom(llvm::IRBuilder<>& b, const HvxMatch& m, const std::vector<llvm::Value*>& values,
                            DataType result, const Target& target);

// On Hexagon, a signed 16- or 32-bit vector sum of two products by constants or more that
// subtracts products by constants, or
// multiplies a sum of widened narrow values by a constant, as a sum of products by constants
// (a - b * c is a + b * -c; c * (i16(u8a) - i16(u8b)) is i16(u8a) * c + i16(u8b) * -c): the
// widening multiply-adds (vmpy(Vu.ub, Rt.b) and vmpyi accumulating, vmpa) take it. Exact in
// wrapping arithmetic. Null when there is nothing to rewrite.
Expr hvx_constant_products(const Expr& e, const Target& target);

// After LLVM's optimisation pipeline: the table's DSPC_HVX_FUSE rows (two chained widening
// multiply-adds become one multiply-add of a register pair).
void fuse_hvx_pairs(llvm::Module& module, const Target& target);

// After LLVM's optimisation pipeline: the interleaves of widening instructions' register pairs
// (even lanes, odd lanes) that LLVM could not cancel, consumed by the instruction that reads
// the pair form directly (Halide's EliminateInterleaves and FuseInterleaves): a narrowing
// trunc of an interleave is vshuffe of the two registers, of its high halves vshuffo, the high
// halves of a vector in lane order vpacko, and an interleaved vzxt/vsxt is vunpack.
void fuse_hvx_interleaves(llvm::Module& module, const Target& target);

}  // namespace dspc::codegen
