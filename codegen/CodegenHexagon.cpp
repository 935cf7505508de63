// Hexagon specifics of code generation: the Hexagon TargetHooks (CodegenLLVM.h) and the
// backend's options. Any use of llvm.hexagon.* intrinsics belongs here.
//
// 1. The options below are set once per process and never changed afterwards, so two
//    compilations (for two targets, say) can run at once on different threads. What differs
//    per compilation goes in its pipeline options (Emit.cpp).
//    `hexagon-autohvx` stays off (its default, as in clang without -mllvm): dspc's vectorize
//    pass writes the HVX code, and with the option on the backend also costs dspc's own
//    vector code differently (measured: dense 230 -> 549 packets per 128 outputs). So LLVM's
//    loop vectoriser, when it runs (CodegenOptions::auto_hvx), never uses HVX.
// 2. Small data (GP-relative addressing of objects up to 8 bytes, e.g. the 64-bit constants
//    of a division by a constant) is off, as with clang -G0: lld cannot resolve
//    R_HEX_GPREL16_3 ("unknown relocation (12)"), and a static executable gains nothing.
// 3. Scalar ordered float comparisons go through llvm.hexagon.F2.{sf,df}cmp{gt,ge}. The
//    backend selects `select (setolt a, b), a, b` (and its le/gt/ge variants) to sfmin/sfmax
//    /dfmin/dfmax, which return the non-NaN operand and order -0 below +0, while dspc's
//    min(a, b) is `a < b ? a : b` (min(1, NaN) is NaN, min(-0, +0) is +0). InstCombine
//    rewrites every equivalent select back into that shape, so the comparison itself has to
//    be opaque. Measured under qemu-hexagon: 94 wrong results without this. Float vectors
//    are compared lane by lane the same way (the backend scalarises them, then selects sfmax).
// 4. Epilogue vectorisation is off (for every target, being process-wide; on the host it
//    only costs the scalar remainder of LLVM-vectorised loops): the epilogue of an HVX loop is vectorised at
//    a tiny factor (<2 x i16>), and LLVM 19's Hexagon instruction selection cannot select
//    some of those operations ("Cannot select: v2i16 = sign_extend_inreg", an abort), e.g.
//    for i16(i8(A[i])) over 515 elements. The scalar remainder loop costs a few packets.
// 5. Widening multiplies of a u8 vector by a byte (16-bit products, accumulated or not) use
//    vmpybus / vmpyub: LLVM 19 selects unpack + two vmpyi + add for the generic IR.
// 6. Two chained widening multiply-adds of one kind, acc + a * w0 + b * w1 (a stencil's
//    neighbouring taps, after LLVM unrolled the reduction), are one vmpa (vmpabus / vmpabuu)
//    on the pair (a, b) with the bytes w0 w1 w0 w1: half the multiply instructions.
// 7. u8(clamp(v >> k, 0, 255)) of 16-bit lanes is one vasr(Vu.h, Vv.h, Rt):sat (vasr .uh for
//    unsigned lanes) per output vector: LLVM 19 selects two shifts, two vmax, two vmin, a
//    vshuff and a vpacke for the generic IR.
// 8. No wide integers holding a part of a vector. When GVN forwards a stored vector to a load
//    of part of it, it writes trunc (lshr (bitcast V to i2048), 32) to i1024; LLVM 19's Hexagon
//    instruction selection miscompiles some of those (a <64 x i32> splat of x, stored at one
//    offset and reloaded at another, came back with lanes built by a byte splat of x: every
//    lane 0xb7b7b7b7 for x = 0xd2b7; tools/difftest.py seed final10, case 13974). The part is
//    a shuffle of V's elements instead (split_wide_integer_parts, after LLVM's pipeline). Only
//    parts wider than 64 bits: a scalar part made that way, bitcast (shufflevector <64 x i32>,
//    <2 x i32> <0, 1>) to i64, masked, made the instruction selection allocate until it ran out
//    of memory (difftest seed final11, case 1210), and the backend handles the scalar form.
#include <cstdlib>
#include <set>

#include <llvm/Analysis/VectorUtils.h>
#include <llvm/CodeGen/WindowScheduler.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/IntrinsicsHexagon.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Transforms/Utils/Local.h>

#include "codegen/CodegenLLVM.h"

namespace dspc::codegen {

namespace {

template <class T>
void set_option(const char* name, T value) {
  auto& options = llvm::cl::getRegisteredOptions();
  auto it = options.find(name);
  // The options live in the Hexagon backend; a rename in a future LLVM shows up in the tests
  // (no HVX in the seed's asm, or link errors), so a missing option is not an error here.
  if (it == options.end()) return;
  static_cast<llvm::cl::opt<T>*>(it->second)->setValue(value);
}

}  // namespace

void configure_llvm_options() {
  set_option<bool>("hexagon-autohvx", false);
  set_option<unsigned>("hexagon-small-data-threshold", 0);
  set_option<bool>("enable-epilogue-vectorization", false);
  // No packet with a slot-1 store and a slot-0 load of the same address (:mem_noshuf): the
  // hardware runs the store first, but qemu-hexagon 7.2 runs the load first and reads stale
  // memory. A spill reloaded in the packet that made it crashed a random program under qemu
  // (tests/difftest/regressions/noshuf_spill_reload.dsp). The same for all compilations, so
  // setting it once keeps compilations independent.
  set_option<bool>("slot1-store-slot0-load", false);
  // No duplexes (two sub-instructions in one word; a code-size encoding, the packets are the
  // same). lld 19 applies R_HEX_8_X to a duplex with a non-duplex mask (fixed upstream in
  // llvm-project#183936): for `{ r2 = add(r2,##sym+36); memb(r3+#3) = r4 }` it wrote the
  // symbol's low bits into the store, which then wrote to another address. The device server
  // lost bytes of its call-batch reply that way (held-out check, session 12; the C runtime is
  // built with -mllvm -mno-pairing too). tests/golden/codegen/no-duplex.dsp checks every
  // Hexagon object dspc writes.
  set_option<bool>("mno-pairing", true);
  // No merging of consecutive scalar stores into vector stores in instruction selection. For
  // 91 i16 stores of E[y, x] = i16(A[x]) (a 7-element row repeated 13 times) it built an HVX
  // vector of packed 32-bit words, initialised with a splat of the most frequent word, which
  // LLVM 19 lowers as a byte splat of that word (the lowering bug behind note 8 above; fixed
  // upstream in part, llvm-project#204808): every copy of that word came out wrong
  // (tests/difftest/regressions/case4412_store_merge_splat.dsp, difftest seed final15). Not
  // bisectable: it is the DAG combiner. dspc's vector code is vector IR already; bench/ is
  // unchanged by it, packet for packet.
  set_option<bool>("combiner-store-merging", false);
  // The software pipeliner's window scheduler (new in LLVM 19, tried when swing modulo
  // scheduling fails) crashes in ScheduleDAGMILive::updatePressureDiffs on some loops (a
  // SIGSEGV of dspc on a random program: tests/difftest/regressions/window_scheduler.dsp).
  // Swing modulo scheduling stays on.
  set_option<llvm::WindowSchedulingFlag>("window-sched", llvm::WS_Off);
  // The pipeliner only keeps schedules whose register pressure fits the register file. A
  // pipelined loop that did not fit (spills inside the kernel, an unrolled f64 -> i64 loop)
  // gave wrong results under qemu-hexagon (tests/difftest/regressions/pipeliner_pressure.dsp,
  // bisected to the packetizer; right with the pipeliner off or with this option). Measured on
  // bench/: conv3x3a16 9.47 -> 9.72 packets per 128 outputs, gaussian 18.70 -> 18.26,
  // sobel 20.07 -> 19.98, the others unchanged.
  set_option<bool>("pipeliner-register-pressure", true);
  // No "Hexagon RDF optimizations" (copy propagation and dead code elimination on the RDF
  // graph). It miscompiled i64 code: a stage's last element read uninitialised memory
  // (tests/difftest/regressions/rdf_opt_i64_edge.dsp, difftest seed final5 case 4344), and one
  // wrong element in each of s5 cases 9355 and 9737. Bisected with -opt-bisect-limit to this
  // pass. bench/ is unchanged by it (gaussian5x5 18.26 -> 18.14 packets per 128 outputs).
  set_option<bool>("rdf-opt", false);
  // No "new-value scheduling" adjustment of dependence latencies. The post-RA scheduler and
  // the packetizer's scheduler crashed (SIGSEGV in ScheduleDAGInstrs::addPhysRegDataDeps) on
  // unrolled loops of i64 divisions (tests/difftest/regressions/post_ra_crash_4933.dsp and
  // case3504_post_ra_crash.dsp); llc crashes the same way, and not with this option. It costs
  // a few packets (bench/, per 128 outputs: conv3x3a16 9.72 -> 9.85, dilate3x3 scheduled 4.74
  // -> 5.07, median3x3 unscheduled 14.45 -> 15.36 and scheduled 11.69 -> 11.32): correct code
  // first. Turning it off only for a compile that crashed would mean changing a process-wide
  // option per compilation, which two compilations at once must not see.
  set_option<bool>("disable-hexagon-nv-schedule", true);
  // No HexagonVectorCombine idioms (its fixed-point multiply matcher). It rewrote
  // (i16(a) * i16(b)) >> 2 for u8 a and b, an i16 product that wraps, as 32-bit products
  // shifted logically and packed to 16 bits: bits 14 and 15 came out 0 where the i16 shift
  // copies the sign (tools/difftest.py seed final12, case 8015: 4642 of 6400 wrong; llc the
  // same with -hvc-vi, right without). Without it, such a product is one vmpyi and one vasr.
  set_option<bool>("hvc-vi", false);
}

namespace {

// HVX's widening multiplies give their 2N products in a register pair as even lanes, then odd
// lanes. These shuffles convert from and to dspc's lane order; between two HVX operations the
// pair LLVM's InstCombine cancels them, so a chain of multiply-adds runs in pair order and
// pays one vdeal and one vshuff in all.
unsigned lanes_of(llvm::Value* v) { return llvm::cast<llvm::FixedVectorType>(v->getType())->getNumElements(); }

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

class HexagonHooks : public TargetHooks {
 public:
  explicit HexagonHooks(const Target& target) : target_(target) {}

  int64_t split_load_bytes() const override { return target_.vector_bytes; }

  llvm::Value* ordered_compare(llvm::IRBuilder<>& b, llvm::CmpInst::Predicate p, llvm::Value* x,
                               llvm::Value* y) override;

  // vmpybus (u8 x i8) and vmpyub (u8 x u8), with .acc when there is an accumulator: one
  // instruction per HVX vector of bytes, against unpack, two vmpyi and an add.
  llvm::Value* widening_mul_add(llvm::IRBuilder<>& b, llvm::Value* acc, llvm::Value* v, llvm::Value* s,
                                bool s_signed) override {
    auto* vt = llvm::cast<llvm::FixedVectorType>(v->getType());
    if (target_.vector_bytes != 128 || vt->getNumElements() != 128) return nullptr;
    llvm::Type* i32 = b.getInt32Ty();
    // The byte four times: the instructions take one multiplier byte per lane modulo 4.
    llvm::Value* rt = b.CreateMul(b.CreateZExt(s, i32), b.getInt32(0x01010101));
    llvm::Value* vu = b.CreateBitCast(v, llvm::FixedVectorType::get(i32, 32));
    auto* pair = llvm::FixedVectorType::get(i32, 64);
    llvm::Value* r = nullptr;
    if (acc) {
      llvm::Value* vxx = b.CreateBitCast(deinterleave(b, acc), pair);
      auto id = s_signed ? llvm::Intrinsic::hexagon_V6_vmpybus_acc_128B : llvm::Intrinsic::hexagon_V6_vmpyub_acc_128B;
      r = b.CreateIntrinsic(id, {}, {vxx, vu, rt});
    } else {
      auto id = s_signed ? llvm::Intrinsic::hexagon_V6_vmpybus_128B : llvm::Intrinsic::hexagon_V6_vmpyub_128B;
      r = b.CreateIntrinsic(id, {}, {vu, rt});
    }
    return interleave(b, b.CreateBitCast(r, llvm::FixedVectorType::get(b.getInt16Ty(), 128)));
  }

  // vzxt gives the even lanes' and the odd lanes' halfwords, the widening multiplies' pair
  // order, so sums of widened bytes and products stay in pair order (InstCombine moves the
  // interleave past lanewise operations) and the final narrowing undoes it for free; vunpack
  // (what LLVM selects for zext) gives the low and high halves, and every mix of the two
  // orders costs a vshuff.
  llvm::Value* widen_u8_to_16(llvm::IRBuilder<>& b, llvm::Value* v) override {
    auto* vt = llvm::cast<llvm::FixedVectorType>(v->getType());
    if (target_.vector_bytes != 128 || vt->getNumElements() != 128) return nullptr;
    llvm::Value* r = b.CreateIntrinsic(llvm::Intrinsic::hexagon_V6_vzb_128B, {},
                                       {b.CreateBitCast(v, llvm::FixedVectorType::get(b.getInt32Ty(), 32))});
    return interleave(b, b.CreateBitCast(r, llvm::FixedVectorType::get(b.getInt16Ty(), 128)));
  }

  // vasrhubsat / vasruhubsat: even output bytes from the second operand's halfwords, odd ones
  // from the first's, so the operands are v's even and odd lanes (a deinterleave, which cancels
  // against the interleave after a widening multiply).
  llvm::Value* saturating_narrow_u8(llvm::IRBuilder<>& b, llvm::Value* v, int shift, bool v_signed) override {
    auto* vt = llvm::cast<llvm::FixedVectorType>(v->getType());
    if (target_.vector_bytes != 128 || vt->getNumElements() != 128 || !vt->getElementType()->isIntegerTy(16))
      return nullptr;
    if (!v_signed && target_.hexagon_version < 65) return nullptr;
    auto* half = llvm::FixedVectorType::get(b.getInt32Ty(), 32);
    llvm::Value* d = deinterleave(b, v);
    llvm::Value* even = b.CreateBitCast(b.CreateShuffleVector(d, llvm::createSequentialMask(0, 64, 0)), half);
    llvm::Value* odd = b.CreateBitCast(b.CreateShuffleVector(d, llvm::createSequentialMask(64, 64, 0)), half);
    auto id = v_signed ? llvm::Intrinsic::hexagon_V6_vasrhubsat_128B : llvm::Intrinsic::hexagon_V6_vasruhubsat_128B;
    llvm::Value* r = b.CreateIntrinsic(id, {}, {odd, even, b.getInt32(shift)});
    return b.CreateBitCast(r, llvm::FixedVectorType::get(b.getInt8Ty(), 128));
  }

  // vrmpyub / vrmpybus .acc: the four byte vectors interleaved (byte 4i + j is v[j][i]), then
  // one instruction per 32 lanes multiplies each lane's four bytes by the four scalar bytes
  // and adds them to the lane.
  llvm::Value* dot4_add(llvm::IRBuilder<>& b, llvm::Value* acc, const std::vector<llvm::Value*>& v,
                        const std::vector<llvm::Value*>& s, bool s_signed) override {
    auto* vt = llvm::cast<llvm::FixedVectorType>(v[0]->getType());
    unsigned n = vt->getNumElements();
    if (target_.vector_bytes != 128 || n % 32 != 0) return nullptr;
    // Two rounds of two-way interleaves, which the backend selects as vshuff: bytes of v0 and
    // v1 (and of v2 and v3), then halfwords of the two results.
    auto* halves = llvm::FixedVectorType::get(b.getInt16Ty(), n);
    llvm::Value* bytes = interleave(b, b.CreateBitCast(interleave(b, v[0], v[1]), halves),
                                    b.CreateBitCast(interleave(b, v[2], v[3]), halves));
    return dot4_add_packed(b, acc, b.CreateBitCast(bytes, llvm::FixedVectorType::get(b.getInt8Ty(), 4 * n)), s,
                           s_signed);
  }

  // l2fetch(Rs, Rtt): Rtt holds four 16-bit fields, direction (0), stride, width and height,
  // as Hexagon's HEXAGON_V64_CREATE_H builds them; each is clamped to 16 bits (a larger box
  // is fetched in part, which a hint allows).
  // 32-bit lane products as vmpyieo + vmpyie:acc (the low 32 bits of each product), per HVX
  // vector. For the generic multiply, LLVM 19's HVX lowering fuses (a * b) >> k into 64-bit
  // products (vmpye/vmpyo) shifted by vasrinto, which is wrong once the 32-bit product wraps:
  // (x * 3) >> 7 was wrong in 664 of 1024 lanes (tests/difftest/regressions/hvx_mul_shift.dsp).
  llvm::Value* mul_i32_lanes(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y) override {
    auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(x->getType());
    // Whole vectors, a power of two of them (so the halves concatenate pairwise).
    if (target_.vector_bytes != 128 || !vt || !vt->getElementType()->isIntegerTy(32) || vt->getNumElements() % 32 != 0 ||
        ((vt->getNumElements() / 32) & (vt->getNumElements() / 32 - 1)) != 0)
      return nullptr;
    unsigned n = vt->getNumElements();
    std::vector<llvm::Value*> parts;
    for (unsigned at = 0; at < n; at += 32) {
      llvm::SmallVector<int, 32> mask;
      for (unsigned k = 0; k < 32; ++k) mask.push_back(int(at + k));
      llvm::Value* xa = n == 32 ? x : b.CreateShuffleVector(x, mask);
      llvm::Value* ya = n == 32 ? y : b.CreateShuffleVector(y, mask);
      // vmpyieo's cross products of halfwords, plus x * y.lo: x * y modulo 2^32 (the order
      // checked against the interpreter: tests/difftest/regressions/hvx_mul_shift.dsp).
      llvm::Value* lo = b.CreateIntrinsic(llvm::Intrinsic::hexagon_V6_vmpyieoh_128B, {}, {xa, ya});
      parts.push_back(b.CreateIntrinsic(llvm::Intrinsic::hexagon_V6_vmpyiewuh_acc_128B, {}, {lo, xa, ya}));
    }
    while (parts.size() > 1) {
      std::vector<llvm::Value*> next;
      for (size_t k = 0; k + 1 < parts.size(); k += 2) {
        unsigned w = llvm::cast<llvm::FixedVectorType>(parts[k]->getType())->getNumElements();
        llvm::SmallVector<int, 64> mask;
        for (unsigned m = 0; m < 2 * w; ++m) mask.push_back(int(m));
        next.push_back(b.CreateShuffleVector(parts[k], parts[k + 1], mask));
      }
      parts = std::move(next);
    }
    return parts[0];
  }

  // A non-constant byte or halfword broadcast as 32-bit words (the byte or halfword repeated),
  // bitcast to the narrow lanes: what the backend would build itself, but LLVM 19's HVX
  // lowering of an i16 splat that is then shuffled and widened asked for a scalar i16 truncate
  // it cannot select ("Cannot select: i16 = truncate"; difftest seed final4, case 10179).
  llvm::Value* broadcast(llvm::IRBuilder<>& b, unsigned lanes, llvm::Value* v) override {
    auto* it = llvm::dyn_cast<llvm::IntegerType>(v->getType());
    if (!it || llvm::isa<llvm::Constant>(v)) return nullptr;
    unsigned bits = it->getBitWidth();
    if ((bits != 8 && bits != 16) || (lanes * bits) % 32 != 0) return nullptr;
    llvm::Value* word = b.CreateZExt(v, b.getInt32Ty());
    word = b.CreateMul(word, b.getInt32(bits == 8 ? 0x01010101u : 0x00010001u));
    return b.CreateBitCast(b.CreateVectorSplat(lanes * bits / 32, word), llvm::FixedVectorType::get(it, lanes));
  }

  // An empty volatile asm that clobbers memory: LLVM keeps every access on its side, and the
  // packetizer gives inline asm a packet of its own.
  void memory_barrier(llvm::IRBuilder<>& b) override {
    auto* type = llvm::FunctionType::get(b.getVoidTy(), false);
    b.CreateCall(llvm::InlineAsm::get(type, "", "~{memory}", /*hasSideEffects=*/true));
  }

  bool prefetch_box(llvm::IRBuilder<>& b, llvm::Value* at, llvm::Value* width, llvm::Value* height,
                    llvm::Value* stride) override {
    llvm::Type* i64 = b.getInt64Ty();
    auto field = [&](llvm::Value* v, unsigned shift) {
      llvm::Value* c = b.CreateIntrinsic(llvm::Intrinsic::umin, {v->getType()}, {v, b.getInt32(0xffff)});
      return b.CreateShl(b.CreateZExt(c, i64), shift);
    };
    llvm::Value* desc = b.CreateOr(b.CreateOr(field(stride, 32), field(width, 16)), field(height, 0));
    b.CreateIntrinsic(llvm::Intrinsic::hexagon_Y5_l2fetch, {}, {at, desc});
    return true;
  }

  // One vrmpy per 32 lanes: each lane's four bytes times the four scalar bytes, added to it.
  llvm::Value* dot4_add_packed(llvm::IRBuilder<>& b, llvm::Value* acc, llvm::Value* bytes,
                               const std::vector<llvm::Value*>& s, bool s_signed) override {
    unsigned n = llvm::cast<llvm::FixedVectorType>(bytes->getType())->getNumElements() / 4;
    if (target_.vector_bytes != 128 || n % 32 != 0) return nullptr;
    llvm::Type* i32 = b.getInt32Ty();
    llvm::Value* rt = nullptr;
    for (unsigned j = 0; j < 4; ++j) {
      llvm::Value* byte = b.CreateShl(b.CreateZExt(s[j], i32), b.getInt32(8 * j));
      rt = rt ? b.CreateOr(rt, byte) : byte;
    }
    auto id = s_signed ? llvm::Intrinsic::hexagon_V6_vrmpybus_acc_128B : llvm::Intrinsic::hexagon_V6_vrmpyub_acc_128B;
    // One instruction per HVX vector: 32 lanes of the accumulator, 128 interleaved bytes.
    std::vector<llvm::Value*> parts;
    for (unsigned q = 0; q < n / 32; ++q) {
      llvm::Value* vu = b.CreateBitCast(b.CreateShuffleVector(bytes, llvm::createSequentialMask(128 * q, 128, 0)),
                                        llvm::FixedVectorType::get(i32, 32));
      llvm::Value* vx = b.CreateShuffleVector(acc, llvm::createSequentialMask(32 * q, 32, 0));
      parts.push_back(b.CreateIntrinsic(id, {}, {vx, vu, rt}));
    }
    return llvm::concatenateVectors(b, parts);
  }

 private:

  const Target& target_;
};

}  // namespace

namespace {

// A widening multiply(-add) call: its kind (signed weights or not), accumulator (null without),
// vector and replicated weight byte.
struct MulAdd {
  llvm::CallInst* call = nullptr;
  bool is_signed = false;
  llvm::Value* acc = nullptr;
  llvm::Value* v = nullptr;
  llvm::Value* rt = nullptr;
};

bool as_mul_add(llvm::Value* value, MulAdd& m) {
  auto* c = llvm::dyn_cast<llvm::IntrinsicInst>(value);
  if (!c) return false;
  switch (c->getIntrinsicID()) {
    case llvm::Intrinsic::hexagon_V6_vmpybus_acc_128B:
    case llvm::Intrinsic::hexagon_V6_vmpyub_acc_128B:
      m = {c, c->getIntrinsicID() == llvm::Intrinsic::hexagon_V6_vmpybus_acc_128B, c->getArgOperand(0),
           c->getArgOperand(1), c->getArgOperand(2)};
      return true;
    case llvm::Intrinsic::hexagon_V6_vmpybus_128B:
    case llvm::Intrinsic::hexagon_V6_vmpyub_128B:
      m = {c, c->getIntrinsicID() == llvm::Intrinsic::hexagon_V6_vmpybus_128B, nullptr, c->getArgOperand(0),
           c->getArgOperand(1)};
      return true;
    default: return false;
  }
}

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

void fuse_hexagon_multiply_adds(llvm::Module& module, int hexagon_version) {
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
      if (gone.count(first.call) || first.is_signed != second.is_signed || !first.call->hasOneUse() ||
          first.call->getParent() != c->getParent())
        continue;
      if (!first.is_signed && hexagon_version < 65) continue;  // vmpabuu is v65's
      llvm::Instruction* at = after_both(f, dt, first.rt, second.rt);
      if (!at) continue;
      llvm::IRBuilder<> b(at);
      // w0 w1 w0 w1: the even bytes of the first weight word, the odd ones of the second.
      llvm::Value* rt = b.CreateOr(b.CreateAnd(first.rt, b.getInt32(0x00ff00ff)),
                                   b.CreateShl(b.CreateAnd(second.rt, b.getInt32(0x00ff00ff)), 8));
      b.SetInsertPoint(c);
      llvm::Value* pair = b.CreateIntrinsic(llvm::Intrinsic::hexagon_V6_vcombine_128B, {}, {second.v, first.v});
      llvm::Value* r;
      if (first.acc) {
        auto id = first.is_signed ? llvm::Intrinsic::hexagon_V6_vmpabus_acc_128B
                                  : llvm::Intrinsic::hexagon_V6_vmpabuu_acc_128B;
        r = b.CreateIntrinsic(id, {}, {first.acc, pair, rt});
      } else {
        auto id = first.is_signed ? llvm::Intrinsic::hexagon_V6_vmpabus_128B : llvm::Intrinsic::hexagon_V6_vmpabuu_128B;
        r = b.CreateIntrinsic(id, {}, {pair, rt});
      }
      c->replaceAllUsesWith(r);
      c->eraseFromParent();
      first.call->eraseFromParent();
      gone.insert(c);
      gone.insert(first.call);
    }
  }
}

namespace {

// A part of a vector read as one wide integer: trunc (lshr (bitcast V to iK), S) to iM, or
// trunc (bitcast V to iK) to iM. GVN makes it when it forwards a stored vector to a load of
// part of it. Returns the part as a shuffle of V's elements, without the wide integer, when S
// and M are whole elements (dspc's buffers have one element type, so a reload is) and the part
// is wider than 64 bits; null otherwise (a scalar part stays as it is: see 8. above).
llvm::Value* vector_part(llvm::TruncInst* t) {
  llvm::Value* x = t->getOperand(0);
  uint64_t shift = 0;
  if (auto* sh = llvm::dyn_cast<llvm::BinaryOperator>(x); sh && sh->getOpcode() == llvm::Instruction::LShr) {
    auto* c = llvm::dyn_cast<llvm::ConstantInt>(sh->getOperand(1));
    if (!c) return nullptr;
    shift = c->getZExtValue();
    x = sh->getOperand(0);
  }
  auto* cast = llvm::dyn_cast<llvm::BitCastInst>(x);
  if (!cast) return nullptr;
  llvm::Value* v = cast->getOperand(0);
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(v->getType());
  if (!vt || !(vt->getElementType()->isIntegerTy() || vt->getElementType()->isFloatingPointTy())) return nullptr;
  uint64_t total = vt->getPrimitiveSizeInBits().getFixedValue(), bits = t->getType()->getIntegerBitWidth();
  uint64_t element = vt->getScalarSizeInBits();
  if (bits <= 64 || shift % element || bits % element || shift + bits > total) return nullptr;
  llvm::SmallVector<int, 64> mask;
  for (uint64_t k = 0; k < bits / element; ++k) mask.push_back(int(shift / element + k));
  llvm::IRBuilder<> b(t);
  return b.CreateShuffleVector(v, mask);
}

}  // namespace

void split_wide_integer_parts(llvm::Module& module) {
  for (llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    std::vector<llvm::TruncInst*> truncs;
    for (llvm::Instruction& i : llvm::instructions(f))
      if (auto* t = llvm::dyn_cast<llvm::TruncInst>(&i); t && t->getType()->isIntegerTy() &&
                                                          t->getOperand(0)->getType()->getIntegerBitWidth() > 64)
        truncs.push_back(t);
    for (llvm::TruncInst* t : truncs) {
      llvm::Value* part = vector_part(t);
      if (!part) continue;
      // A user that bitcasts the integer back to a vector takes the part directly.
      for (llvm::User* u : llvm::make_early_inc_range(t->users())) {
        auto* back = llvm::dyn_cast<llvm::BitCastInst>(u);
        if (!back) continue;
        llvm::IRBuilder<> b(back);
        back->replaceAllUsesWith(b.CreateBitCast(part, back->getType()));
        back->eraseFromParent();
      }
      if (!t->use_empty()) {
        llvm::IRBuilder<> b(t);
        t->replaceAllUsesWith(b.CreateBitCast(part, t->getType()));
      }
      llvm::RecursivelyDeleteTriviallyDeadInstructions(t);
    }
  }
}

std::unique_ptr<TargetHooks> make_target_hooks(const Target& target) {
  if (target.is_hexagon) return std::make_unique<HexagonHooks>(target);
  return std::make_unique<TargetHooks>();
}

llvm::Value* HexagonHooks::ordered_compare(llvm::IRBuilder<>& b, llvm::CmpInst::Predicate p, llvm::Value* x,
                                           llvm::Value* y) {
  using P = llvm::CmpInst::Predicate;
  if (p != P::FCMP_OLT && p != P::FCMP_OLE && p != P::FCMP_OGT && p != P::FCMP_OGE) return nullptr;
  llvm::Type* t = x->getType();
  if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(t)) {
    // Lane by lane: the backend scalarises float vectors (dspc uses no HVX float), and would
    // select each lane's `select (setogt a, b), a, b` to sfmax as above (a vectorized
    // max(x, NaN) gave x: tools/difftest.py seed final4, case 15145).
    llvm::Value* lanes = llvm::PoisonValue::get(llvm::FixedVectorType::get(b.getInt1Ty(), vt->getNumElements()));
    for (unsigned k = 0; k < vt->getNumElements(); ++k) {
      llvm::Value* c = ordered_compare(b, p, b.CreateExtractElement(x, k), b.CreateExtractElement(y, k));
      if (!c) return nullptr;
      lanes = b.CreateInsertElement(lanes, c, k);
    }
    return lanes;
  }
  if (t->isHalfTy()) {
    // Exact, and the f32 comparison orders the values the same way.
    x = b.CreateFPExt(x, b.getFloatTy());
    y = b.CreateFPExt(y, b.getFloatTy());
    t = b.getFloatTy();
  }
  // x < y is y > x; the intrinsics only compare "greater".
  if (p == P::FCMP_OLT || p == P::FCMP_OLE) std::swap(x, y);
  bool strict = p == P::FCMP_OLT || p == P::FCMP_OGT;
  llvm::Intrinsic::ID id =
      t->isDoubleTy() ? (strict ? llvm::Intrinsic::hexagon_F2_dfcmpgt : llvm::Intrinsic::hexagon_F2_dfcmpge)
                      : (strict ? llvm::Intrinsic::hexagon_F2_sfcmpgt : llvm::Intrinsic::hexagon_F2_sfcmpge);
  return b.CreateICmpNE(b.CreateIntrinsic(id, {}, {x, y}), b.getInt32(0));
}

}  // namespace dspc::codegen
