// The benchmark kernels written for Halide 14, as peers for dspc (bench/README.md): the
// one definition of each algorithm and schedule, shared by the packet harness's generator
// (halide_kernels.cpp) and the compile-time benchmark (../compile/bench_compile_halide.cpp).
// Algorithms and schedules follow Halide's apps/hexagon_benchmarks generators (conv3x3,
// dilate3x3, median3x3, gaussian5x5, sobel); dense has no generator there, so its vrmpy
// schedule is ours. Differences from those generators, and why:
//   - no .hexagon(): we compile for the Hexagon target itself, there is no host to offload from;
//   - no .parallel(): the program is single-threaded (no Halide runtime, no thread pool), and
//     packets are counted on one thread;
//   - extents and strides are fixed, as they are in the .dsp signatures, and host alignment is
//     declared (128 bytes) for every buffer.
#include "halide_pipelines.h"

#include <ctime>

namespace bench_halide {

using namespace Halide;

namespace {

constexpr int W = 1024, H = 256, V = 128;

double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

void fix_image(OutputImageParam p, int w, int h) {
  p.set_host_alignment(V);
  p.dim(0).set_bounds(0, w).set_stride(1);
  p.dim(1).set_bounds(0, h).set_stride(w);
}

// The schedule every image generator in apps/hexagon_benchmarks shares: the clamped input
// is computed per row of tiles into 128-aligned storage, the output in 128x4 tiles with the
// 4 rows unrolled, and the input is prefetched two rows ahead.
void image_schedule(Func out, Func bounded, ImageParam in, int tile_w = V) {
  Var x = out.args()[0], y = out.args()[1], xi("xi"), yi("yi");
  bounded.compute_at(out, y).align_storage(bounded.args()[0], V).vectorize(bounded.args()[0], V, TailStrategy::RoundUp);
  out.tile(x, y, xi, yi, tile_w, 4, TailStrategy::RoundUp).vectorize(xi).unroll(yi);
  out.prefetch(in, y, y, 2);
}

Pipeline vadd_u8(std::vector<Argument>& args) {
  ImageParam a(UInt(8), 1, "A"), b(UInt(8), 1, "B");
  for (auto* p : {&a, &b}) {
    p->set_host_alignment(V);
    p->dim(0).set_bounds(0, 65536);
  }
  Var x("x"), xo("xo"), xi("xi");
  Func c("C");
  c(x) = a(x) + b(x);
  c.split(x, xo, xi, V * 4).vectorize(xi, V).unroll(xi);
  c.output_buffer().set_host_alignment(V).dim(0).set_bounds(0, 65536);
  args = {a, b};
  return Pipeline(c);
}

// conv3x3a16 and conv3x3a32 (apps/hexagon_benchmarks' conv3x3): u8 by i8 3x3 taps, 16-bit
// products summed in `acc` (i16 or i32), >> 4, clamped to u8.
Pipeline conv3x3(std::vector<Argument>& args, Type acc) {
  ImageParam in(UInt(8), 2, "I"), mask(Int(8), 2, "K");
  fix_image(in, W, H);
  fix_image(mask, 3, 3);
  mask.set_host_alignment(1);  // a 9-byte array: the harness aligns it anyway
  Var x("x"), y("y");
  Func bounded("bounded"), out("O");
  bounded(x, y) = BoundaryConditions::repeat_edge(in)(x, y);
  Expr sum = cast(acc, 0);
  for (int i = -1; i <= 1; i++)
    for (int j = -1; j <= 1; j++)
      sum += cast<int16_t>(bounded(x + j, y + i)) * cast<int16_t>(mask(j + 1, i + 1));
  out(x, y) = cast<uint8_t>(clamp(sum >> 4, 0, 255));
  fix_image(out.output_buffer(), W, H);
  image_schedule(out, bounded, in);
  args = {in, mask};
  return Pipeline(out);
}

Pipeline conv3x3a16(std::vector<Argument>& args) { return conv3x3(args, Int(16)); }

Pipeline dilate3x3(std::vector<Argument>& args) {
  ImageParam in(UInt(8), 2, "I");
  fix_image(in, W, H);
  Var x("x"), y("y");
  Func bounded("bounded"), max_y("max_y"), out("O");
  bounded(x, y) = BoundaryConditions::repeat_edge(in)(x, y);
  max_y(x, y) = max(bounded(x, y - 1), bounded(x, y), bounded(x, y + 1));
  out(x, y) = max(max_y(x - 1, y), max_y(x, y), max_y(x + 1, y));
  fix_image(out.output_buffer(), W, H);
  image_schedule(out, bounded, in);
  args = {in};
  return Pipeline(out);
}

Expr mid(Expr a, Expr b, Expr c) { return max(min(max(a, b), c), min(a, b)); }

Pipeline median3x3(std::vector<Argument>& args) {
  ImageParam in(UInt(8), 2, "I");
  fix_image(in, W, H);
  Var x("x"), y("y");
  Func bounded("bounded"), max_y("max_y"), min_y("min_y"), mid_y("mid_y");
  Func minmax_x("minmax_x"), maxmin_x("maxmin_x"), midmid_x("midmid_x"), out("O");
  bounded(x, y) = BoundaryConditions::repeat_edge(in)(x, y);
  max_y(x, y) = max(bounded(x, y - 1), bounded(x, y), bounded(x, y + 1));
  min_y(x, y) = min(bounded(x, y - 1), bounded(x, y), bounded(x, y + 1));
  mid_y(x, y) = mid(bounded(x, y - 1), bounded(x, y), bounded(x, y + 1));
  minmax_x(x, y) = min(max_y(x - 1, y), max_y(x, y), max_y(x + 1, y));
  maxmin_x(x, y) = max(min_y(x - 1, y), min_y(x, y), min_y(x + 1, y));
  midmid_x(x, y) = mid(mid_y(x - 1, y), mid_y(x, y), mid_y(x + 1, y));
  out(x, y) = mid(minmax_x(x, y), maxmin_x(x, y), midmid_x(x, y));
  fix_image(out.output_buffer(), W, H);
  image_schedule(out, bounded, in);
  args = {in};
  return Pipeline(out);
}

Pipeline gaussian5x5(std::vector<Argument>& args) {
  ImageParam in(UInt(8), 2, "I");
  fix_image(in, W, H);
  Var x("x"), y("y"), xi("xi"), yi("yi");
  Func bounded("bounded"), in16("input_16"), rows("rows"), cols("cols"), out("O");
  bounded(x, y) = BoundaryConditions::repeat_edge(in)(x, y);
  in16(x, y) = cast<int16_t>(bounded(x, y));
  rows(x, y) = in16(x, y - 2) + 4 * in16(x, y - 1) + 6 * in16(x, y) + 4 * in16(x, y + 1) + in16(x, y + 2);
  cols(x, y) = rows(x - 2, y) + 4 * rows(x - 1, y) + 6 * rows(x, y) + 4 * rows(x + 1, y) + rows(x + 2, y);
  out(x, y) = cast<uint8_t>(cols(x, y) >> 8);
  fix_image(out.output_buffer(), W, H);
  image_schedule(out, bounded, in, 2 * V);
  rows.compute_at(out, y).tile(x, y, xi, yi, V, 4, TailStrategy::RoundUp).vectorize(xi).unroll(yi);
  args = {in};
  return Pipeline(out);
}

Pipeline sobel(std::vector<Argument>& args) {
  ImageParam in(UInt(8), 2, "I");
  fix_image(in, W, H);
  Var x("x"), y("y");
  Func bounded("bounded"), in16("input_16"), sxa("sobel_x_avg"), sya("sobel_y_avg"), sx("sobel_x"), sy("sobel_y"), out("O");
  bounded(x, y) = BoundaryConditions::repeat_edge(in)(x, y);
  in16(x, y) = cast<uint16_t>(bounded(x, y));
  sxa(x, y) = in16(x - 1, y) + 2 * in16(x, y) + in16(x + 1, y);
  sx(x, y) = absd(sxa(x, y - 1), sxa(x, y + 1));
  sya(x, y) = in16(x, y - 1) + 2 * in16(x, y) + in16(x, y + 1);
  sy(x, y) = absd(sya(x - 1, y), sya(x + 1, y));
  out(x, y) = cast<uint8_t>(clamp(sx(x, y) + sy(x, y), 0, 255));
  fix_image(out.output_buffer(), W, H);
  image_schedule(out, bounded, in);
  args = {in};
  return Pipeline(out);
}

// C[m, n] = sum_k u32(A[m, k]) * u32(B[k, n]), M=64, N=128, K=256 (Halide: x first, so
// A(k, m), B(n, k), C(n, m)). vrmpy multiplies 4 consecutive bytes of a vector lane by 4
// bytes of a scalar and sums them into a u32 lane, so B is first swizzled to Bs(j, n, ko) =
// B(n, 4 ko + j): one aligned vector of Bs holds 4 k's for 32 n's. The products accumulate
// in registers (an m-by-2 x n-by-128 tile, 8 vectors) over the whole reduction.
Pipeline dense(std::vector<Argument>& args) {
  constexpr int M = 64, N = 128, K = 256;
  ImageParam a(UInt(8), 2, "A"), b(UInt(8), 2, "B");
  fix_image(a, K, M);
  fix_image(b, N, K);
  Var j("j"), n("n"), m("m"), ko("ko"), no("no"), ni("ni"), mo("mo"), mi("mi");
  Func bs("Bs"), acc("acc"), c("C");
  bs(j, n, ko) = b(n, 4 * ko + j);
  RDom r(0, K / 4);
  acc(n, m) = cast<uint32_t>(0);
  Expr dot = cast<uint32_t>(0);
  for (int q = 0; q < 4; q++) dot += cast<uint32_t>(a(4 * r + q, m)) * cast<uint32_t>(bs(q, n, r));
  acc(n, m) += dot;
  c(n, m) = acc(n, m);
  fix_image(c.output_buffer(), N, M);

  bs.compute_root().bound(j, 0, 4).bound(n, 0, N).bound(ko, 0, K / 4).reorder(j, n, ko).vectorize(j).vectorize(n, 64);
  c.tile(n, m, no, mo, ni, mi, N, 2).vectorize(ni, 32).unroll(ni).unroll(mi);
  acc.compute_at(c, no).store_in(MemoryType::Register).vectorize(n, 32).unroll(n).unroll(m);
  acc.update().reorder(n, m, r).vectorize(n, 32).unroll(n).unroll(m);
  args = {a, b};
  return Pipeline(c);
}


// The ten kernels added after the first seven (bench/README.md). None has a generator in
// apps/hexagon_benchmarks; each schedule is ours, in the same style: fixed extents, 128-byte
// host alignment, vectors of 128 bytes, rows unrolled where rows are independent, the input
// prefetched two rows ahead where Halide allows it.

// O(x, y) = (I(2x, 2y) + I(2x + 1, 2y) + I(2x, 2y + 1) + I(2x + 1, 2y + 1) + 2) >> 2 in u16.
// The two rows are added first (a widening vadd of dense vectors, inlined), then the even and
// odd columns of that sum: 6.38 packets per 128 outputs, against 7.38 for the four terms
// written in any order (Halide deinterleaves the bytes of each row first) and 13.48 with the
// row sum computed per row of O. A 2 x 2 RDom vectorized atomically (a 2:1 vector reduction,
// vdmpy) stops Halide 14 with an internal error (add_2mpy.vub.ub not found).
Pipeline downscale2x2_u8(std::vector<Argument>& args) {
  ImageParam in(UInt(8), 2, "I");
  fix_image(in, 2 * W, 2 * H);
  Var x("x"), y("y"), xi("xi"), yi("yi");
  Func vsum("vsum"), out("O");
  vsum(x, y) = widening_add(in(x, 2 * y), in(x, 2 * y + 1));
  out(x, y) = cast<uint8_t>((vsum(2 * x, y) + vsum(2 * x + 1, y) + 2) >> 2);
  fix_image(out.output_buffer(), W, H);
  out.tile(x, y, xi, yi, V, 4, TailStrategy::RoundUp).vectorize(xi).unroll(yi);
  out.prefetch(in, y, y, 2);
  args = {in};
  return Pipeline(out);
}

// S(y) = sum_x |A(x, y) - B(x, y)| in u32. Each row's sum is first taken in 32 u32 lanes of
// 4 bytes each over the row's 8 vectors (intm: vabsdiff, then the 4:1 sum is a vrmpy by 1s,
// from the atomic vectorized r.x), then the 32 lanes are summed (an atomic vectorized
// reduction); four rows at a time, unrolled, so that one row's final sum overlaps the next
// rows' loads (one row at a time: 4744 packets per 128 outputs with a scalar final sum, 4234
// vectorized; eight rows: 3051).
Pipeline row_sad_u8(std::vector<Argument>& args) {
  ImageParam a(UInt(8), 2, "A"), b(UInt(8), 2, "B");
  fix_image(a, W, H);
  fix_image(b, W, H);
  Var y("y"), u("u");
  Func intm("intm"), out("S");
  RDom r(0, 4, 0, W / V, "r");  // r.x: 4 bytes of one u32 lane, r.y: the row's vectors
  intm(u, y) = cast<uint32_t>(0);
  Expr xx = r.y * V + 4 * u + r.x;
  intm(u, y) += cast<uint32_t>(absd(a(xx, y), b(xx, y)));
  RDom l(0, V / 4, "l");
  out(y) = cast<uint32_t>(0);
  out(y) += intm(l, y);
  out.output_buffer().set_host_alignment(V).dim(0).set_bounds(0, H).set_stride(1);
  Var yi("yi");
  out.split(y, y, yi, 4).unroll(yi);
  out.update().split(y, y, yi, 4).reorder(l, yi, y).atomic().vectorize(l).unroll(yi);
  intm.compute_at(out, y).vectorize(u, V / 4).unroll(y);
  intm.update().reorder(r.x, u, y, r.y).atomic().vectorize(r.x).vectorize(u, V / 4).unroll(y);
  // No prefetch: Halide 14's Hexagon backend refuses this one ("Hexagon only supports 1D or
  // 2D prefetch"), as the output is 1D; qemu has no cache, so it would not change the count.
  args = {a, b};
  return Pipeline(out);
}

// O(x, y) = sum_k taps[k] * I(x + k, y), i16 samples and constant i16 taps, i32 sum. Halide
// pairs the taps into vmpa(Vuu.h, Rt.b) (vmpy for 300 and 250, which do not fit a byte). I's
// rows (1039 samples) do not start on a vector boundary, so read directly every tap is an
// unaligned load (47 loads-bound packets per 128 outputs); each row is therefore staged into
// 128-aligned storage, and half of the taps read that copy (valign of aligned vectors, the
// permute slot) while the other half read I unaligned (the load slot): 37.9, against 39.5 with
// every tap from the copy (30 valign per iteration, one per packet).
Pipeline fir16_i16(std::vector<Argument>& args) {
  static const int taps[16] = {3, -7, 12, -20, 33, -51, 90, 300, 250, 80, -45, 27, -18, 11, -6, 2};
  ImageParam in(Int(16), 2, "I");
  fix_image(in, W + 15, H);
  Var x("x"), y("y"), xi("xi"), yi("yi");
  Func row("row"), out("O");
  row(x, y) = in(x, y);
  Expr s = cast<int32_t>(row(x, y)) * taps[0];
  for (int k = 1; k < 16; k++) s += cast<int32_t>(k % 4 == 1 || k % 4 == 2 ? in(x + k, y) : row(x + k, y)) * taps[k];
  out(x, y) = s;
  fix_image(out.output_buffer(), W, H);
  out.tile(x, y, xi, yi, V / 2, 2, TailStrategy::RoundUp).vectorize(xi).unroll(yi);
  row.compute_at(out, y).align_storage(x, V / 2).vectorize(x, V / 2, TailStrategy::RoundUp);
  out.prefetch(in, y, y, 2);
  args = {in};
  return Pipeline(out);
}

// C[m, n] = sum_k i32(A[m, k]) * i32(B[k, n]), M=64, K=192, N=96: dense's schedule, with N =
// 96 (three vectors of i32 per row). vrmpy has no form that multiplies signed bytes of a vector
// by signed bytes of a scalar, and the plain i8 x i8 definition makes Halide build each
// broadcast of A's four bytes with vsplat and vshuff (646 packets per 128 outputs). So B is
// offset into u8 as it is swizzled (Bs = B + 128, as u8: vrmpy(Vu.ub, Rt.b)), and the sum is
// corrected by 128 times A's row sum: sum_k A (B + 128) - 128 sum_k A = sum_k A B. The row sum
// comes from the same vrmpy loop, as a fourth vector of Bs holding 1s (every lane of its
// accumulator is the row sum): one more vrmpy per three, cheaper than any separate row sum
// Halide 14 gave us (a vectorized reduction, 85 packets per row, 42% of the run).
Pipeline matmul_i8(std::vector<Argument>& args) {
  constexpr int M = 64, N = 96, K = 192, NB = 128;
  ImageParam a(Int(8), 2, "A"), b(Int(8), 2, "B");
  fix_image(a, K, M);
  fix_image(b, N, K);
  Var j("j"), n("n"), m("m"), ko("ko"), no("no"), ni("ni"), mo("mo"), mi("mi");
  Func bs("Bs"), acc("acc"), c("C");
  bs(j, n, ko) = select(n < N, cast<uint8_t>(cast<int16_t>(b(min(n, N - 1), 4 * ko + j)) + 128), cast<uint8_t>(1));
  RDom r(0, K / 4);
  acc(n, m) = 0;
  Expr dot = 0;
  for (int q = 0; q < 4; q++) dot += cast<int32_t>(a(4 * r + q, m)) * cast<int32_t>(bs(q, n, r));
  acc(n, m) += dot;
  c(n, m) = acc(n, m) - acc(N + n % 32, m) * 128;
  fix_image(c.output_buffer(), N, M);

  bs.compute_root().bound(j, 0, 4).bound(n, 0, NB).bound(ko, 0, K / 4).reorder(j, n, ko).vectorize(j).vectorize(n, 32);
  c.tile(n, m, no, mo, ni, mi, N, 2).vectorize(ni, 32).unroll(ni).unroll(mi);
  acc.compute_at(c, no).bound_extent(n, NB).store_in(MemoryType::Register).vectorize(n, 32).unroll(n).unroll(m);
  acc.update().reorder(n, m, r).vectorize(n, 32).unroll(n).unroll(m);
  args = {a, b};
  return Pipeline(c);
}

// 5x5 box mean: the 5x5 sum in u16, + 12, / 25; separable as gaussian5x5 is (a vertical sum
// of five rows, then five columns of it), borders repeating the edge.
Pipeline box5x5_u8(std::vector<Argument>& args) {
  ImageParam in(UInt(8), 2, "I");
  fix_image(in, W, H);
  Var x("x"), y("y"), xi("xi"), yi("yi");
  Func bounded("bounded"), in16("input_16"), rows("rows"), out("O");
  bounded(x, y) = BoundaryConditions::repeat_edge(in)(x, y);
  in16(x, y) = cast<uint16_t>(bounded(x, y));
  rows(x, y) = in16(x, y - 2) + in16(x, y - 1) + in16(x, y) + in16(x, y + 1) + in16(x, y + 2);
  Expr cols = rows(x - 2, y) + rows(x - 1, y) + rows(x, y) + rows(x + 1, y) + rows(x + 2, y);
  out(x, y) = cast<uint8_t>((cols + 12) / 25);
  fix_image(out.output_buffer(), W, H);
  image_schedule(out, bounded, in, 2 * V);
  rows.compute_at(out, y).tile(x, y, xi, yi, V, 4, TailStrategy::RoundUp).vectorize(xi).unroll(yi);
  args = {in};
  return Pipeline(out);
}

// C = min(A + B, 65535) on u16 planes (Halide's saturating_add).
Pipeline add_sat_u16(std::vector<Argument>& args) {
  ImageParam a(UInt(16), 2, "A"), b(UInt(16), 2, "B");
  fix_image(a, W, H);
  fix_image(b, W, H);
  Var x("x"), y("y"), xi("xi"), yi("yi");
  Func c("C");
  c(x, y) = saturating_add(a(x, y), b(x, y));
  fix_image(c.output_buffer(), W, H);
  c.tile(x, y, xi, yi, V / 2, 4, TailStrategy::RoundUp).vectorize(xi).unroll(yi);
  c.prefetch(a, y, y, 2).prefetch(b, y, y, 2);
  args = {a, b};
  return Pipeline(c);
}

// Gray = (77 R + 150 G + 29 B + 128) >> 8 in u16, three planes.
Pipeline rgb_to_gray_u8(std::vector<Argument>& args) {
  ImageParam r(UInt(8), 2, "R"), g(UInt(8), 2, "G"), b(UInt(8), 2, "B");
  for (auto* p : {&r, &g, &b}) fix_image(*p, W, H);
  Var x("x"), y("y"), xi("xi"), yi("yi");
  Func out("O");
  Expr s = cast<uint16_t>(r(x, y)) * 77 + cast<uint16_t>(g(x, y)) * 150 + cast<uint16_t>(b(x, y)) * 29;
  out(x, y) = cast<uint8_t>((s + 128) >> 8);
  fix_image(out.output_buffer(), W, H);
  out.tile(x, y, xi, yi, V, 4, TailStrategy::RoundUp).vectorize(xi).unroll(yi);
  out.prefetch(r, y, y, 2).prefetch(g, y, y, 2).prefetch(b, y, y, 2);
  args = {r, g, b};
  return Pipeline(out);
}

// O(x, y) = I(y, x), 256 x 256 u8. Read as the 16-bit index [y, x] of a byte, the transpose
// rotates that index by 8 bits. Each stage rotates it by one bit: rows i and i + 128 are
// interleaved into rows 2i and 2i + 1 (one vshuff of two aligned vectors makes a whole output
// row), a vectorized pass through memory; eight stages make the transpose. Tried and slower:
// no stages (a vector of O gathers one byte from each of 128 rows, which Halide builds with
// vinsert: 52.6 packets per 128 outputs), 128-lane vectors (unaligned half-vector loads,
// 34.1), and two bits per stage (a four-way interleave of rows that Halide 14 turns into
// gathers: 304 with x split by 4 and both parts vectorized, 680 without the split).
// The interleaving passes of an N x N transpose of `bits`-bit elements (transpose_u8 above):
// tiles two vectors wide (256 u8 or 128 u16 lanes), storage aligned to one vector.
Pipeline transpose_passes(std::vector<Argument>& args, int bits) {
  constexpr int N = 256, BITS = 8;
  const int lanes = 2 * V * 8 / bits;
  ImageParam in(UInt(bits), 2, "I");
  fix_image(in, N, N);
  Var x("x"), y("y"), xi("xi"), yi("yi");
  std::vector<Func> t;
  Func prev = in;
  for (int s = 0; s < BITS; s++) {
    Func f(s == BITS - 1 ? std::string("O") : "t" + std::to_string(s));
    f(x, y) = prev((y % 2) * (N / 2) + x / 2, y / 2 + (x % 2) * (N / 2));
    t.push_back(f);
    prev = f;
  }
  fix_image(t.back().output_buffer(), N, N);
  for (int s = 0; s < BITS; s++) {
    if (s < BITS - 1) t[s].compute_root().align_storage(x, lanes / 2);
    t[s].bound(x, 0, N).bound(y, 0, N).tile(x, y, xi, yi, lanes, 4).vectorize(xi).unroll(yi);
  }
  args = {in};
  return Pipeline(t.back());
}

Pipeline transpose_u8(std::vector<Argument>& args) { return transpose_passes(args, 8); }

// O = 255 where I > t, else 0; t is a scalar argument.
Pipeline threshold_u8(std::vector<Argument>& args) {
  ImageParam in(UInt(8), 2, "I");
  Param<uint8_t> t("t");
  fix_image(in, W, H);
  Var x("x"), y("y"), xi("xi"), yi("yi");
  Func out("O");
  out(x, y) = select(in(x, y) > t, cast<uint8_t>(255), cast<uint8_t>(0));
  fix_image(out.output_buffer(), W, H);
  out.tile(x, y, xi, yi, V, 4, TailStrategy::RoundUp).vectorize(xi).unroll(yi);
  out.prefetch(in, y, y, 2);
  args = {in, t};
  return Pipeline(out);
}

// 3x3 box sum of u16 (wrapping), separable as dilate3x3 is, borders repeating the edge.
Pipeline box3x3_u16(std::vector<Argument>& args) {
  ImageParam in(UInt(16), 2, "I");
  fix_image(in, W, H);
  Var x("x"), y("y"), xi("xi"), yi("yi");
  Func bounded("bounded"), sum_y("sum_y"), out("O");
  bounded(x, y) = BoundaryConditions::repeat_edge(in)(x, y);
  sum_y(x, y) = bounded(x, y - 1) + bounded(x, y) + bounded(x, y + 1);
  out(x, y) = sum_y(x - 1, y) + sum_y(x, y) + sum_y(x + 1, y);
  fix_image(out.output_buffer(), W, H);
  bounded.compute_at(out, y).align_storage(x, V / 2).vectorize(x, V / 2, TailStrategy::RoundUp);
  out.tile(x, y, xi, yi, V / 2, 4, TailStrategy::RoundUp).vectorize(xi).unroll(yi);
  out.prefetch(in, y, y, 2);
  args = {in};
  return Pipeline(out);
}

// The kernels added for the wider bench (bench/README.md, "What is measured"). conv3x3a32 is
// apps/hexagon_benchmarks' conv3x3 generator with an i32 accumulator, blur3x3_u16 is apps/blur
// with its Hexagon schedule (less .parallel()), color_matrix_i16 is apps/camera_pipe's
// color_correct; the others have no app, and their schedules are ours, in the same style.

void fix_image3(OutputImageParam p, int c, int w, int h) {
  p.set_host_alignment(V);
  p.dim(0).set_bounds(0, c).set_stride(1);
  p.dim(1).set_bounds(0, w).set_stride(c);
  p.dim(2).set_bounds(0, h).set_stride(c * w);
}

// A Tuple-valued output's buffers: Halide constrains the first one's bounds and takes the
// others' to be the same (it refuses bounds on them); alignment and strides are set on all.
void fix_tuple_outputs(Func f, int w, int h) {
  std::vector<OutputImageParam> bufs = f.output_buffers();
  fix_image(bufs[0], w, h);
  for (size_t i = 1; i < bufs.size(); i++) {
    bufs[i].set_host_alignment(V);
    bufs[i].dim(0).set_stride(1);
    bufs[i].dim(1).set_stride(w);
  }
}

void fix_vector(OutputImageParam p, int n) {
  p.set_host_alignment(V);
  p.dim(0).set_bounds(0, n).set_stride(1);
}

Pipeline conv3x3a32(std::vector<Argument>& args) { return conv3x3(args, Int(32)); }

// apps/blur: blur_x over three columns, blur_y over three rows of it, each / 3 in u16. The
// app's Hexagon schedule: blur_y in strips of 128 rows, 256 lanes (four vectors) wide, blur_x
// stored per strip and computed per row (a sliding window: one new row of blur_x per row).
Pipeline blur3x3_u16(std::vector<Argument>& args) {
  ImageParam in(UInt(16), 2, "I");
  fix_image(in, W + 2, H + 2);
  Var x("x"), y("y"), yi("yi");
  Func blur_x("blur_x"), out("O");
  blur_x(x, y) = (in(x, y) + in(x + 1, y) + in(x + 2, y)) / 3;
  out(x, y) = (blur_x(x, y) + blur_x(x, y + 1) + blur_x(x, y + 2)) / 3;
  fix_image(out.output_buffer(), W, H);
  out.prefetch(in, y, y, 2).split(y, y, yi, 128).vectorize(x, V * 2);
  blur_x.store_at(out, y).compute_at(out, yi).vectorize(x, V);
  args = {in};
  return Pipeline(out);
}

// O(x, y) = I(x / 2, y / 2): a tile of two rows, so that both rows use one load of I.
Pipeline upscale2x_u8(std::vector<Argument>& args) {
  ImageParam in(UInt(8), 2, "I");
  fix_image(in, W / 2, H / 2);
  Var x("x"), y("y"), xi("xi"), yi("yi");
  Func out("O");
  out(x, y) = in(x / 2, y / 2);
  fix_image(out.output_buffer(), W, H);
  out.tile(x, y, xi, yi, 2 * V, 2, TailStrategy::RoundUp).vectorize(xi).unroll(yi);
  args = {in};
  return Pipeline(out);
}

// Three planes from interleaved RGB: one Func with a Tuple value, so that the three outputs
// share the loop and the loads (three dense vectors of I per vector of each plane).
Pipeline deinterleave_rgb_u8(std::vector<Argument>& args) {
  ImageParam in(UInt(8), 3, "I");
  fix_image3(in, 3, W, H);
  Var x("x"), y("y"), xi("xi"), yi("yi");
  Func out("O");
  out(x, y) = Tuple(in(0, x, y), in(1, x, y), in(2, x, y));
  fix_tuple_outputs(out, W, H);
  out.tile(x, y, xi, yi, V, 2, TailStrategy::RoundUp).vectorize(xi).unroll(yi);
  out.prefetch(in, y, y, 2);
  args = {in};
  return Pipeline(out);
}

// Interleaved RGB from three planes: c unrolled and x vectorized, so that Halide merges the
// three stride-3 stores into dense stores of an interleave.
Pipeline interleave_rgb_u8(std::vector<Argument>& args) {
  ImageParam r(UInt(8), 2, "R"), g(UInt(8), 2, "G"), b(UInt(8), 2, "B");
  for (auto* p : {&r, &g, &b}) fix_image(*p, W, H);
  Var c("c"), x("x"), y("y");
  Func out("O");
  out(c, x, y) = mux(c, {r(x, y), g(x, y), b(x, y)});
  fix_image3(out.output_buffer(), 3, W, H);
  out.bound(c, 0, 3).reorder(c, x, y).unroll(c).vectorize(x, V);
  out.prefetch(r, y, y, 2).prefetch(g, y, y, 2).prefetch(b, y, y, 2);
  args = {r, g, b};
  return Pipeline(out);
}

// Gray from interleaved RGBA (stride-4 loads), rgb_to_gray_u8's weights.
Pipeline rgba_to_gray_u8(std::vector<Argument>& args) {
  ImageParam in(UInt(8), 3, "I");
  fix_image3(in, 4, W, H);
  Var x("x"), y("y"), xi("xi"), yi("yi");
  Func out("O");
  Expr s = cast<uint16_t>(in(0, x, y)) * 77 + cast<uint16_t>(in(1, x, y)) * 150 + cast<uint16_t>(in(2, x, y)) * 29;
  out(x, y) = cast<uint8_t>((s + 128) >> 8);
  fix_image(out.output_buffer(), W, H);
  out.tile(x, y, xi, yi, V, 2, TailStrategy::RoundUp).vectorize(xi).unroll(yi);
  out.prefetch(in, y, y, 2);
  args = {in};
  return Pipeline(out);
}

// Histogram of I >> 4 into 16 bins. A scatter (hist(I(r) >> 4) += 1) runs scalar; instead
// each bin counts its matches with vector compares: for each vector of 128 pixels (loaded
// once) and each of the 16 bins (unrolled), the 0/1 bytes of the match are summed four by four
// into 32 u32 lanes (an atomic vectorized 4:1 reduction, vrmpy by 1s), the 16 accumulators in
// registers; then each bin's 32 lanes are summed. (px & 0xf0) == 16 b is (px >> 4) == b
// without a byte shift.
Pipeline hist16_u8(std::vector<Argument>& args) {
  constexpr int HH = 64, BINS = 16;
  ImageParam in(UInt(8), 2, "I");
  fix_image(in, W, HH);
  Var u("u"), b("b");
  Func intm("intm"), hist("Hc");
  RDom r(0, 4, 0, W / V, 0, HH, "r");
  intm(u, b) = cast<uint32_t>(0);
  Expr px = in(r.y * V + 4 * u + r.x, r.z);
  intm(u, b) += cast<uint32_t>(select((px & 0xf0) == cast<uint8_t>(16 * b), cast<uint8_t>(1), cast<uint8_t>(0)));
  RDom l(0, V / 4, "l");
  hist(b) = cast<uint32_t>(0);
  hist(b) += intm(l, b);
  fix_vector(hist.output_buffer(), BINS);
  hist.bound(b, 0, BINS).unroll(b);
  hist.update().reorder(l, b).atomic().vectorize(l).unroll(b);
  intm.compute_root().bound(b, 0, BINS).store_in(MemoryType::Register).vectorize(u, V / 4).unroll(b);
  intm.update().reorder(r.x, u, b, r.y, r.z).atomic().vectorize(r.x).vectorize(u, V / 4).unroll(b);
  args = {in};
  return Pipeline(hist);
}

// Per-row argmax, four rows at a time: one pass over each row keeps, per lane of 128, the
// maximum and the index where it first occurs (a Tuple update, vectorized), then the row's
// maximum over the lanes and the least index among the lanes that hold it.
Pipeline argmax_u8(std::vector<Argument>& args) {
  ImageParam in(UInt(8), 2, "I");
  fix_image(in, W, H);
  Var u("u"), y("y"), yi("yi");
  Func lane("lane"), m("m"), out("A");
  RDom r(0, W / V, "r");
  lane(u, y) = Tuple(cast<uint8_t>(0), cast<int16_t>(0));
  Expr v = in(r * V + u, y);
  Expr better = v > lane(u, y)[0];
  lane(u, y) = Tuple(select(better, v, lane(u, y)[0]), select(better, cast<int16_t>(r * V + u), lane(u, y)[1]));
  RDom l(0, V, "l");
  m(y) = cast<uint8_t>(0);
  m(y) = max(m(y), lane(l, y)[0]);
  out(y) = W;
  out(y) = min(out(y), select(lane(l, y)[0] == m(y), cast<int32_t>(lane(l, y)[1]), W));
  fix_vector(out.output_buffer(), H);
  out.split(y, y, yi, 4).unroll(yi);
  out.update().split(y, y, yi, 4).reorder(l, yi, y).atomic().vectorize(l).unroll(yi);
  m.compute_at(out, y).unroll(y);
  m.update().reorder(l, y).atomic().vectorize(l).unroll(y);
  lane.compute_at(out, y).vectorize(u, V).unroll(y);
  lane.update().reorder(u, y, r).vectorize(u, V).unroll(y);
  args = {in};
  return Pipeline(out);
}

// Y(m) = sum_k A(k, m) X(k), u8 x i8 in i32: row_sad_u8's schedule, each row first summed in
// 32 i32 lanes (vrmpy(Vu.ub, Vv.b) from the atomic vectorized 4:1 r.x), then across them.
Pipeline gemv_u8i8(std::vector<Argument>& args) {
  ImageParam a(UInt(8), 2, "A"), xv(Int(8), 1, "X");
  fix_image(a, W, H);
  fix_vector(xv, W);
  Var u("u"), m("m"), mi("mi");
  Func intm("intm"), out("Y");
  RDom r(0, 4, 0, W / V, "r");
  Expr k = r.y * V + 4 * u + r.x;
  intm(u, m) = 0;
  intm(u, m) += cast<int32_t>(a(k, m)) * cast<int32_t>(xv(k));
  RDom l(0, V / 4, "l");
  out(m) = 0;
  out(m) += intm(l, m);
  fix_vector(out.output_buffer(), H);
  out.split(m, m, mi, 4).unroll(mi);
  out.update().split(m, m, mi, 4).reorder(l, mi, m).atomic().vectorize(l).unroll(mi);
  intm.compute_at(out, m).vectorize(u, V / 4).unroll(m);
  intm.update().reorder(r.x, u, m, r.y).atomic().vectorize(r.x).vectorize(u, V / 4).unroll(m);
  args = {a, xv};
  return Pipeline(out);
}

void pointwise_schedule(Func out, int lanes) {
  Var x = out.args()[0], y = out.args()[1], xi("xi"), yi("yi");
  out.tile(x, y, xi, yi, lanes, 4, TailStrategy::RoundUp).vectorize(xi).unroll(yi);
}

// (A B + 2^14) >> 15, saturated to i16: Halide's rounding_mul_shift_right (vmpy:<<1:rnd:sat).
Pipeline mulhi_rnd_i16(std::vector<Argument>& args) {
  ImageParam a(Int(16), 2, "A"), b(Int(16), 2, "B");
  fix_image(a, W, H);
  fix_image(b, W, H);
  Var x("x"), y("y");
  Func out("O");
  out(x, y) = rounding_mul_shift_right(a(x, y), b(x, y), 15);
  fix_image(out.output_buffer(), W, H);
  pointwise_schedule(out, V / 2);
  out.prefetch(a, y, y, 2).prefetch(b, y, y, 2);
  args = {a, b};
  return Pipeline(out);
}

// i32 to i16: a rounding shift right by 12 (exact, no overflow) and a saturating narrow.
Pipeline narrow_sat_i32(std::vector<Argument>& args) {
  ImageParam a(Int(32), 2, "A");
  fix_image(a, W, H);
  Var x("x"), y("y");
  Func out("O");
  out(x, y) = saturating_cast<int16_t>(rounding_shift_right(a(x, y), 12));
  fix_image(out.output_buffer(), W, H);
  pointwise_schedule(out, V / 2);
  out.prefetch(a, y, y, 2);
  args = {a};
  return Pipeline(out);
}

// (A + B + 1) >> 1 on u16: rounding_halving_add (vavg:rnd).
Pipeline avg_rnd_u16(std::vector<Argument>& args) {
  ImageParam a(UInt(16), 2, "A"), b(UInt(16), 2, "B");
  fix_image(a, W, H);
  fix_image(b, W, H);
  Var x("x"), y("y");
  Func out("O");
  out(x, y) = rounding_halving_add(a(x, y), b(x, y));
  fix_image(out.output_buffer(), W, H);
  pointwise_schedule(out, V / 2);
  out.prefetch(a, y, y, 2).prefetch(b, y, y, 2);
  args = {a, b};
  return Pipeline(out);
}

// 31-tap triangle FIR on u8 rows, summed in u16, + 128 >> 8. fir16_i16's schedule: each row
// staged into aligned storage, about half of the taps read from it (valign), the others from I
// directly (unaligned loads).
Pipeline fir31_u8(std::vector<Argument>& args) {
  constexpr int TAPS = 31;
  ImageParam in(UInt(8), 2, "I");
  fix_image(in, W + TAPS - 1, H);
  Var x("x"), y("y"), xi("xi"), yi("yi");
  Func row("row"), out("O");
  row(x, y) = in(x, y);
  Expr s = cast<uint16_t>(128);
  for (int k = 0; k < TAPS; k++) {
    int t = 16 - (k < 15 ? 15 - k : k - 15);
    s += cast<uint16_t>(k % 4 == 1 || k % 4 == 2 ? in(x + k, y) : row(x + k, y)) * cast<uint16_t>(t);
  }
  out(x, y) = cast<uint8_t>(s >> 8);
  fix_image(out.output_buffer(), W, H);
  out.tile(x, y, xi, yi, V, 2, TailStrategy::RoundUp).vectorize(xi).unroll(yi);
  row.compute_at(out, y).align_storage(x, V).vectorize(x, V, TailStrategy::RoundUp);
  out.prefetch(in, y, y, 2);
  args = {in};
  return Pipeline(out);
}

// A and B mixed by M in u16, then C added with saturation.
Pipeline blend4_u8(std::vector<Argument>& args) {
  ImageParam a(UInt(8), 2, "A"), b(UInt(8), 2, "B"), m(UInt(8), 2, "M"), c(UInt(8), 2, "C");
  for (auto* p : {&a, &b, &m, &c}) fix_image(*p, W, H);
  Var x("x"), y("y");
  Func out("O");
  Expr mix = (cast<uint16_t>(a(x, y)) * m(x, y) + cast<uint16_t>(b(x, y)) * (255 - m(x, y)) + 128) >> 8;
  out(x, y) = cast<uint8_t>(min(mix + c(x, y), 255));
  fix_image(out.output_buffer(), W, H);
  pointwise_schedule(out, V);
  for (auto* p : {&a, &b, &m, &c}) out.prefetch(*p, y, y, 2);
  args = {a, b, m, c};
  return Pipeline(out);
}

// 3x3 depthwise, NHWC (Halide: c, x, y), 64 channels: c vectorized (64 lanes: half a u8
// vector, one vector of i16 products), x unrolled by 4, the taps' loads hoisted.
Pipeline depthwise3x3_u8(std::vector<Argument>& args) {
  constexpr int N = 64, C = 64;
  ImageParam in(UInt(8), 3, "I"), k(Int(8), 3, "K");
  fix_image3(in, C, N + 2, N + 2);
  fix_image3(k, C, 3, 3);
  Var c("c"), x("x"), y("y");
  Func out("O");
  Expr s = 0;
  for (int r = 0; r < 3; r++)
    for (int q = 0; q < 3; q++) s += cast<int32_t>(cast<int16_t>(in(c, x + q, y + r)) * cast<int16_t>(k(c, q, r)));
  out(c, x, y) = cast<uint8_t>(clamp((s + 128) >> 8, 0, 255));
  fix_image3(out.output_buffer(), C, N, N);
  out.vectorize(c, C).unroll(x, 4);
  args = {in, k};
  return Pipeline(out);
}

// 2x2 max pool, NHWC (Halide: c, x, y), 32 channels. Four output pixels per vector (c and 4
// pixels of x vectorized together: split(x, x, xi, 4).reorder(c, xi, x, y).vectorize(c)
// .vectorize(xi)) gives wrong results (Halide 14, hexagon: about half the outputs differ from
// the reference), so c alone is vectorized (32 lanes) and x unrolled by 4.
Pipeline maxpool2x2_u8(std::vector<Argument>& args) {
  constexpr int OH = 64, OW = 128, C = 32;
  ImageParam in(UInt(8), 3, "I");
  fix_image3(in, C, 2 * OW, 2 * OH);
  Var c("c"), x("x"), y("y"), xi("xi");
  Func out("O");
  out(c, x, y) = max(max(in(c, 2 * x, 2 * y), in(c, 2 * x, 2 * y + 1)), max(in(c, 2 * x + 1, 2 * y), in(c, 2 * x + 1, 2 * y + 1)));
  fix_image3(out.output_buffer(), C, OW, OH);
  out.vectorize(c).unroll(x, 4);
  out.prefetch(in, y, y, 2);
  args = {in};
  return Pipeline(out);
}

// transpose_u8's eight interleaving passes, on u16 (a row of 256 is four vectors).
Pipeline transpose_u16(std::vector<Argument>& args) { return transpose_passes(args, 16); }

// apps/camera_pipe's color_correct with its matrix_3200 (Q8.8), on i16 planes: one Func with a
// Tuple value, so that the three outputs share the loop and the loads.
Pipeline color_matrix_i16(std::vector<Argument>& args) {
  static const int m[3][4] = {{427, -68, -102, -10863}, {-91, 271, 408, -9501}, {-55, -480, 1782, -6834}};
  ImageParam r(Int(16), 2, "R"), g(Int(16), 2, "G"), b(Int(16), 2, "B");
  for (auto* p : {&r, &g, &b}) fix_image(*p, W, H);
  Var x("x"), y("y");
  Func out("O");
  Expr ir = cast<int32_t>(r(x, y)), ig = cast<int32_t>(g(x, y)), ib = cast<int32_t>(b(x, y));
  std::vector<Expr> v;
  for (int c = 0; c < 3; c++) v.push_back(cast<int16_t>((m[c][3] + m[c][0] * ir + m[c][1] * ig + m[c][2] * ib) / 256));
  out(x, y) = Tuple(v);
  fix_tuple_outputs(out, W, H);
  pointwise_schedule(out, V / 2);
  out.prefetch(r, y, y, 2).prefetch(g, y, y, 2).prefetch(b, y, y, 2);
  args = {r, g, b};
  return Pipeline(out);
}
}  // namespace

const std::vector<std::string>& kernel_names() {
  static const std::vector<std::string> names = {"vadd_u8", "conv3x3a16", "dilate3x3", "median3x3",
                                                 "gaussian5x5", "sobel", "dense", "downscale2x2_u8",
                                                 "row_sad_u8", "fir16_i16", "matmul_i8", "box5x5_u8",
                                                 "add_sat_u16", "rgb_to_gray_u8", "transpose_u8",
                                                 "threshold_u8", "box3x3_u16", "conv3x3a32", "blur3x3_u16", "upscale2x_u8", "deinterleave_rgb_u8", "interleave_rgb_u8", "rgba_to_gray_u8", "hist16_u8", "argmax_u8", "gemv_u8i8", "mulhi_rnd_i16", "narrow_sat_i32", "avg_rnd_u16", "fir31_u8", "blend4_u8", "depthwise3x3_u8", "maxpool2x2_u8", "transpose_u16", "color_matrix_i16"};
  return names;
}

const Target& bench_target() {
  static const Target target("hexagon-32-noos-hvx_128-no_asserts-no_bounds_query-no_runtime");
  return target;
}

bool define_kernel(const std::string& name, Kernel& out) {
  out.args.clear();
  if (name == "vadd_u8") out.pipeline = vadd_u8(out.args);
  else if (name == "conv3x3a16") out.pipeline = conv3x3a16(out.args);
  else if (name == "dilate3x3") out.pipeline = dilate3x3(out.args);
  else if (name == "median3x3") out.pipeline = median3x3(out.args);
  else if (name == "gaussian5x5") out.pipeline = gaussian5x5(out.args);
  else if (name == "sobel") out.pipeline = sobel(out.args);
  else if (name == "dense") out.pipeline = dense(out.args);
  else if (name == "downscale2x2_u8") out.pipeline = downscale2x2_u8(out.args);
  else if (name == "row_sad_u8") out.pipeline = row_sad_u8(out.args);
  else if (name == "fir16_i16") out.pipeline = fir16_i16(out.args);
  else if (name == "matmul_i8") out.pipeline = matmul_i8(out.args);
  else if (name == "box5x5_u8") out.pipeline = box5x5_u8(out.args);
  else if (name == "add_sat_u16") out.pipeline = add_sat_u16(out.args);
  else if (name == "rgb_to_gray_u8") out.pipeline = rgb_to_gray_u8(out.args);
  else if (name == "transpose_u8") out.pipeline = transpose_u8(out.args);
  else if (name == "threshold_u8") out.pipeline = threshold_u8(out.args);
  else if (name == "box3x3_u16") out.pipeline = box3x3_u16(out.args);
  else if (name == "conv3x3a32") out.pipeline = conv3x3a32(out.args);
  else if (name == "blur3x3_u16") out.pipeline = blur3x3_u16(out.args);
  else if (name == "upscale2x_u8") out.pipeline = upscale2x_u8(out.args);
  else if (name == "deinterleave_rgb_u8") out.pipeline = deinterleave_rgb_u8(out.args);
  else if (name == "interleave_rgb_u8") out.pipeline = interleave_rgb_u8(out.args);
  else if (name == "rgba_to_gray_u8") out.pipeline = rgba_to_gray_u8(out.args);
  else if (name == "hist16_u8") out.pipeline = hist16_u8(out.args);
  else if (name == "argmax_u8") out.pipeline = argmax_u8(out.args);
  else if (name == "gemv_u8i8") out.pipeline = gemv_u8i8(out.args);
  else if (name == "mulhi_rnd_i16") out.pipeline = mulhi_rnd_i16(out.args);
  else if (name == "narrow_sat_i32") out.pipeline = narrow_sat_i32(out.args);
  else if (name == "avg_rnd_u16") out.pipeline = avg_rnd_u16(out.args);
  else if (name == "fir31_u8") out.pipeline = fir31_u8(out.args);
  else if (name == "blend4_u8") out.pipeline = blend4_u8(out.args);
  else if (name == "depthwise3x3_u8") out.pipeline = depthwise3x3_u8(out.args);
  else if (name == "maxpool2x2_u8") out.pipeline = maxpool2x2_u8(out.args);
  else if (name == "transpose_u16") out.pipeline = transpose_u16(out.args);
  else if (name == "color_matrix_i16") out.pipeline = color_matrix_i16(out.args);
  else return false;
  return true;
}

bool compile_kernel(const std::string& name, const std::string& object_path, Phases* phases) {
  double t0 = cpu_seconds();
  Kernel k;
  if (!define_kernel(name, k)) return false;
  double t1 = cpu_seconds();
  // Pipeline::compile_to_object is exactly these two calls in Halide 14.
  Module m = k.pipeline.compile_to_module(k.args, "halide_" + name, bench_target());
  double t2 = cpu_seconds();
  m.compile({{OutputFileType::object, object_path}});
  if (phases) {
    double t3 = cpu_seconds();
    phases->define += t1 - t0;
    phases->lower += t2 - t1;
    phases->llvm += t3 - t2;
  }
  return true;
}

}  // namespace bench_halide
