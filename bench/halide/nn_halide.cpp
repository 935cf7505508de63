// The op library's Halide 14 peers (bench/nn_bench.py's Halide column): conv2d and
// depthwise_conv2d of schedules/nn.dsp at nn_bench's shapes (56 x 56, 64 channels, 3 x 3,
// stride 1, padding 1; u8 input, i8 filter, i32 bias and output, wrapping), with the algorithms
// and schedules of Halide's apps/hannk (halide/conv_generator.cpp and
// depthwise_conv_generator.cpp) for a 128-byte HVX target, written for these fixed shapes.
//
// Usage: nn_halide NAME OUT.o   (NAME: nn_conv2d or nn_depthwise_conv2d) -> an object defining
// halide_NAME(halide_buffer_t*...) for bench/harness (harness.c with -DBENCH_NN_OPS, nn_refs.h:
// the buffers and references), compiled for the bench's target
// hexagon-32-noos-hvx_128-no_asserts-no_bounds_query-no_runtime.
//
// What is hannk's and what differs:
//   - hannk runs its ops on tensors that a separate op has padded and on a filter that a
//     separate generator (TileConvFilter) has tiled offline. nn.dsp's ops do both inside the
//     op (Ip, Fq), so here both are stages of the pipeline (compute_root), counted with it:
//     the padded input as a dense copy, the tiled filter as hannk's TileConvFilter lays it out.
//   - conv2d: the 8-bit multiply path (use_8bit_multiply is true for HVX). The filter is
//     signed, so it goes in as u8 with filter_zero = 128 (TileConvFilter's output_zero), and
//     the input has zero point 0 (nn.dsp's conv2d has none): offset_c is the bias, convolved =
//     offset_c - 128 * sum_input + the u8 x u8 products. The schedule is hannk's for the tile
//     its specializations pick at K = 64: tile_c = 2 (64 channels, two vectors of 32 i32),
//     tile_x = min(8, 24 / 2) = 8, filter_depth = 64 (no specialization on it).
//   - depthwise_conv2d: at C = 64, stride 1, hannk's interpreter runs the "shallow" variant
//     (can_be_shallow: 128 % C == 0): x and c fused into one dimension (the buffers here are
//     [H, W * C]), 128 lanes per vector, the filter repeated every 128 lanes, 1 x 4 tiles.
//     The filter is i8, so filter_zeroed is i16(F); input zero 0: offset_c is the bias.
//   - the output is i32 (nn.dsp's ops), not hannk's requantized u8.
#include <cstdio>
#include <string>

#include "Halide.h"

using namespace Halide;
using namespace Halide::ConciseCasts;

namespace {

constexpr int H = 56, W = 56, C = 64, K = 64, R = 3, T = 3, P = 1;
constexpr int HP = H + 2 * P, WP = W + 2 * P;

void fix(OutputImageParam p, std::initializer_list<int> extents) {  // innermost first, dense
  p.set_host_alignment(128);
  int d = 0, stride = 1;
  for (int e : extents) {
    p.dim(d).set_bounds(0, e).set_stride(stride);
    stride *= e;
    d++;
  }
}

Pipeline conv2d(std::vector<Argument>& args) {
  ImageParam input(UInt(8), 3, "I"), filter(Int(8), 3, "F"), bias(Int(32), 1, "B");
  fix(input, {C, W, H});
  fix(filter, {K, C, R * T});  // nn.dsp's F[r, t, c, k] as [r * T + t][c][k]
  fix(bias, {K});
  Var x("x"), y("y"), c("c"), ci("ci"), co("co"), bi("bi"), bo("bo"), xx("xx"), yy("yy");
  const int vector_reduction = 4, accum_vector_size = 32, unroll_reduction = 4;

  // The padded input (hannk: a separate pad op before the conv).
  Func padded("padded");
  padded(c, xx, yy) = select(xx >= P && xx < W + P && yy >= P && yy < H + P,
                             input(c, clamp(xx - P, 0, W - 1), clamp(yy - P, 0, H - 1)), u8(0));
  // TileConvFilter: filter(ci % 4, co % 32, ci / 4, co / 32, x, y), as u8 with zero point 128.
  Func tiled("tiled");
  tiled(ci, bi, co, bo, xx, yy) =
      u8(i16(filter(bo * accum_vector_size + bi, co * vector_reduction + ci, yy * T + xx)) + 128);

  const int filter_depth = C;  // already a multiple of unroll_reduction
  RDom r(0, T, 0, R, 0, filter_depth);
  Expr filter_rdxyc =
      tiled(r.z % vector_reduction, c % accum_vector_size, r.z / vector_reduction, c / accum_vector_size, r.x, r.y);
  Expr input_rdxyc = padded(r.z, x + r.x, y + r.y);

  Func offset_c("offset_c"), sum_input("sum_input"), convolved("convolved"), output("O");
  offset_c(c) = bias(c);  // input_zero = 0: bias + 0 - 0
  sum_input(x, y) += i32(input_rdxyc);
  convolved(c, x, y) = offset_c(c) - 128 * sum_input(x, y);
  convolved(c, x, y) += i32(input_rdxyc) * i32(filter_rdxyc);
  output(c, x, y) = convolved(c, x, y);
  output.output_buffer().set_host_alignment(128);
  output.output_buffer().dim(0).set_bounds(0, K).set_stride(1);
  output.output_buffer().dim(1).set_bounds(0, W).set_stride(K);
  output.output_buffer().dim(2).set_bounds(0, H).set_stride(K * W);

  // hannk's schedule at this shape: tile_c = 2, tile_x = 8.
  const int tile_c = 2, tile_x = 8, max_tile_c = 4, min_tile_c = 1;
  Var xo("xo");
  output.compute_root()
      .split(c, co, c, tile_c * accum_vector_size, TailStrategy::RoundUp)
      .split(x, xo, x, tile_x, TailStrategy::ShiftInwards)
      .reorder(x, c, co, xo, y)
      .vectorize(c)
      .unroll(x);
  convolved.compute_at(output, co)
      .store_in(MemoryType::Stack)
      .reorder(x, c)
      .vectorize(c, accum_vector_size * min_tile_c, TailStrategy::RoundUp)
      .unroll(c, max_tile_c, TailStrategy::GuardWithIf)
      .unroll(x);
  RVar rco("rco"), rci("rci");
  convolved.update()
      .split(r.z, rco, rci, unroll_reduction)
      .reorder(rci, c, x, rco, r.x, r.y)
      .vectorize(c, accum_vector_size, TailStrategy::RoundUp)
      .unroll(c, max_tile_c, TailStrategy::GuardWithIf)
      .atomic()
      .vectorize(rci, vector_reduction)
      .unroll(rci)
      .unroll(x);
  offset_c.compute_root().vectorize(c, accum_vector_size, TailStrategy::RoundUp);
  sum_input.compute_at(output, xo)
      .vectorize(x)
      .update()
      .split(r.z, rco, rci, unroll_reduction)
      .reorder(rci, x, rco, r.x, r.y)
      .atomic()
      .vectorize(rci)
      .vectorize(x);
  // The pad and the tiling, as whole-vector copies.
  Var i("i");
  padded.compute_root().fuse(c, xx, i).vectorize(i, 128, TailStrategy::GuardWithIf);
  tiled.compute_root().fuse(ci, bi, i).vectorize(i, 128);
  args = {input, filter, bias};
  return Pipeline(output);
}

Pipeline depthwise_conv2d(std::vector<Argument>& args) {
  // x and c fused (hannk's shallow depthwise): I[y][x * C + c], O likewise.
  ImageParam input(UInt(8), 2, "I"), filter(Int(8), 3, "F"), bias(Int(32), 1, "B");
  fix(input, {W * C, H});
  fix(filter, {C, T, R});
  fix(bias, {C});
  const int vector_size = 128;  // natural_vector_size<uint8_t>()
  const int input_stride_x = C;
  Var c("c"), y("y"), xx("xx"), yy("yy"), x("x");

  Func padded("padded");  // [HP][WP * C], hannk's pad op before the conv
  padded(xx, yy) = select(xx >= P * C && xx < (W + P) * C && yy >= P && yy < H + P,
                          input(clamp(xx - P * C, 0, W * C - 1), clamp(yy - P, 0, H - 1)), u8(0));
  Func filter_bounded("filter_bounded"), bias_bounded("bias_bounded");
  filter_bounded(c, x, y) = filter(c % C, x, y);
  bias_bounded(c) = bias(c % C);
  Expr filter_c = c % vector_size;
  Func filter_zeroed("filter_zeroed");
  filter_zeroed(c, x, y) = i16(filter_bounded(c, x, y));  // filter_zero = 0 (i8)
  RDom r(0, T, 0, R);
  Expr filter_zeroed_rdxy = filter_zeroed(filter_c, r.x, r.y);
  Func offset_c("offset_c");
  offset_c(c) = bias_bounded(c);  // input_zero = 0
  Expr input_rdxy = padded(c + r.x * input_stride_x, y + r.y);
  Func convolved("convolved"), output("O");
  convolved(c, y) = offset_c(filter_c);
  convolved(c, y) += i32(filter_zeroed_rdxy) * i32(input_rdxy);
  output(c, y) = convolved(c, y);
  output.output_buffer().set_host_alignment(128);
  output.output_buffer().dim(0).set_bounds(0, W * C).set_stride(1);
  output.output_buffer().dim(1).set_bounds(0, H).set_stride(W * C);

  // hannk: kTileW = 1 (shallow), kTileH = 4; the fused x has extent 1, so the tile is 4 rows.
  Var yo("yo"), co("co");
  const int kTileH = 4;
  output.compute_root()
      .split(y, yo, y, kTileH, TailStrategy::ShiftInwards)
      .split(c, co, c, vector_size, TailStrategy::PredicateStores)
      .reorder(y, c, yo, co)
      .unroll(y)
      .vectorize(c);
  convolved.compute_at(output, yo)
      .store_in(MemoryType::Register)
      .bound_extent(c, vector_size)
      .unroll(y)
      .vectorize(c);
  convolved.update().reorder(y, r.x, r.y).unroll(y).vectorize(c).unroll(r.x).unroll(r.y);
  // shallow: the filter, its offset and the bias at root.
  offset_c.compute_root().store_in(MemoryType::Stack).vectorize(c, vector_size, TailStrategy::RoundUp);
  filter_zeroed.compute_root()
      .store_in(MemoryType::Stack)
      .align_storage(c, vector_size)
      .vectorize(c, vector_size, TailStrategy::RoundUp);
  bias_bounded.compute_root().store_in(MemoryType::Stack).vectorize(c, vector_size, TailStrategy::RoundUp);
  padded.compute_root().vectorize(xx, 128, TailStrategy::GuardWithIf);
  args = {input, filter, bias};
  return Pipeline(output);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s NAME OUT.o\n", argv[0]);
    return 2;
  }
  std::string name = argv[1];
  std::vector<Argument> args;
  Pipeline p;
  if (name == "nn_conv2d") p = conv2d(args);
  else if (name == "nn_depthwise_conv2d") p = depthwise_conv2d(args);
  else {
    std::fprintf(stderr, "unknown kernel '%s'\n", argv[1]);
    return 2;
  }
  p.compile_to_object(argv[2], args, "halide_" + name,
                      Target("hexagon-32-noos-hvx_128-no_asserts-no_bounds_query-no_runtime"));
  return 0;
}
