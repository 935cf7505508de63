// The seven benchmark kernels written for Halide 14, as peers for dspc (bench/README.md): the
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

Pipeline conv3x3a16(std::vector<Argument>& args) {
  ImageParam in(UInt(8), 2, "I"), mask(Int(8), 2, "K");
  fix_image(in, W, H);
  fix_image(mask, 3, 3);
  mask.set_host_alignment(1);  // a 9-byte array: the harness aligns it anyway
  Var x("x"), y("y");
  Func bounded("bounded"), out("O");
  bounded(x, y) = BoundaryConditions::repeat_edge(in)(x, y);
  Expr sum = cast<int16_t>(0);
  for (int i = -1; i <= 1; i++)
    for (int j = -1; j <= 1; j++)
      sum += cast<int16_t>(bounded(x + j, y + i)) * cast<int16_t>(mask(j + 1, i + 1));
  out(x, y) = cast<uint8_t>(clamp(sum >> 4, 0, 255));
  fix_image(out.output_buffer(), W, H);
  image_schedule(out, bounded, in);
  args = {in, mask};
  return Pipeline(out);
}

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

}  // namespace

const std::vector<std::string>& kernel_names() {
  static const std::vector<std::string> names = {"vadd_u8", "conv3x3a16", "dilate3x3", "median3x3",
                                                 "gaussian5x5", "sobel", "dense"};
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
