/* The op library's Halide peers (bench/nn_bench.py, bench/halide/nn_halide.cpp): buffers and
 * scalar references for harness.c, included when it is compiled with -DBENCH_NN_OPS and
 * -DBENCH_KERNEL_<name>. The shapes are nn_bench.py's: 56 x 56 pixels, 64 channels, a 3 x 3
 * window, stride 1, padding 1 (zeros outside the input). The semantics are schedules/nn.dsp's
 * conv2d and depthwise_conv2d: u8 input, i8 filter, i32 bias, i32 output, wrapping sums. The
 * filter of conv2d, [R, T, C, K] in nn.dsp, is passed as [R * T, C, K] (the same bytes: the
 * harness's buffers have at most three dimensions); depthwise's input and output are passed
 * with x and c fused, [H, W * C] (the same bytes), as hannk's "shallow" depthwise views them. */
enum { NNH = 56, NNW = 56, NNC = 64, NNK = 64, NNR = 3, NNT = 3, NNP = 1 };

static inline int32_t nn_in(const uint8_t* in, int y, int x, int c) {
  if (y < 0 || y >= NNH || x < 0 || x >= NNW) return 0;
  return in[(y * NNW + x) * NNC + c];
}

#if defined(BENCH_KERNEL_nn_conv2d)
const bench_param bench_params[] = {{"I", 1, 8, 0, 3, {NNH, NNW, NNC}},
                                    {"F", 0, 8, 0, 3, {NNR * NNT, NNC, NNK}},
                                    {"B", 0, 32, 0, 1, {NNK}},
                                    {"O", 0, 32, 1, 3, {NNH, NNW, NNK}}};
REF static void reference(void** b) {
  const uint8_t* in = b[0];
  const int8_t* f = b[1];
  const int32_t* bias = b[2];
  int32_t* o = b[3];
  for (int y = 0; y < NNH; y++)
    for (int x = 0; x < NNW; x++)
      for (int k = 0; k < NNK; k++) {
        uint32_t s = (uint32_t)bias[k];
        for (int r = 0; r < NNR; r++)
          for (int t = 0; t < NNT; t++)
            for (int c = 0; c < NNC; c++)
              s += (uint32_t)(nn_in(in, y + r - NNP, x + t - NNP, c) * f[((r * NNT + t) * NNC + c) * NNK + k]);
        o[(y * NNW + x) * NNK + k] = (int32_t)s;
      }
}
#elif defined(BENCH_KERNEL_nn_depthwise_conv2d)
const bench_param bench_params[] = {{"I", 1, 8, 0, 2, {NNH, NNW * NNC}},
                                    {"F", 0, 8, 0, 3, {NNR, NNT, NNC}},
                                    {"B", 0, 32, 0, 1, {NNC}},
                                    {"O", 0, 32, 1, 2, {NNH, NNW * NNC}}};
REF static void reference(void** b) {
  const uint8_t* in = b[0];
  const int8_t* f = b[1];
  const int32_t* bias = b[2];
  int32_t* o = b[3];
  for (int y = 0; y < NNH; y++)
    for (int x = 0; x < NNW; x++)
      for (int c = 0; c < NNC; c++) {
        uint32_t s = (uint32_t)bias[c];
        for (int r = 0; r < NNR; r++)
          for (int t = 0; t < NNT; t++) s += (uint32_t)(nn_in(in, y + r - NNP, x + t - NNP, c) * f[(r * NNT + t) * NNC + c]);
        o[(y * NNW + x) * NNC + c] = (int32_t)s;
      }
}
#else
#error "nn_refs.h: compile with -DBENCH_KERNEL_nn_conv2d or -DBENCH_KERNEL_nn_depthwise_conv2d"
#endif
