// The reference interpreter on hand-built tensor functions, checked against direct C++ loops.
#include <gtest/gtest.h>

#include <time.h>

#include <cmath>
#include <cstring>

#include "compiler/interp/Interpreter.h"
#include "tests/unit/TestPrograms.h"

namespace dspc {
namespace {

using testing::stage;
using testing::v;

Expr i32(int64_t c) {
  return make_i32(c);
}
Expr ld(const Buffer& b, std::vector<Expr> idx) {
  return Load::make(b, std::move(idx));
}
Expr bin(BinaryOp op, Expr a, Expr b) {
  return Binary::make(op, std::move(a), std::move(b));
}
Expr add(Expr a, Expr b) {
  return bin(BinaryOp::Add, std::move(a), std::move(b));
}
Expr clamp(Expr x, Expr lo, Expr hi) {
  return bin(BinaryOp::Min, bin(BinaryOp::Max, std::move(x), std::move(lo)), std::move(hi));
}
Expr cast(DataType t, Expr e) {
  return Cast::make(t, std::move(e));
}

// This thread's CPU time in seconds: unlike wall time, it does not grow when other work shares
// the machine.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// Runs `f` and checks it took less than `limit` seconds of CPU in a Release build (10 s under
// ASan+UBSan, build-sanitize, which run the interpreter 2-3x slower).
void interpret_timed(const TensorFunc& f, const std::vector<Tensor>& in, std::vector<Tensor>& out, double limit) {
  std::string err;
  double t0 = thread_cpu_seconds();
  ASSERT_TRUE(interpret(f, in, out, err)) << err;
  double secs = thread_cpu_seconds() - t0;
#ifdef NDEBUG
#ifdef DSPC_SANITIZE
  limit = 10.0;
#endif
  EXPECT_LT(secs, limit);
#endif
  ::testing::Test::RecordProperty("seconds", std::to_string(secs));
}

template <class T>
T at(const Tensor& t, int64_t k) {
  T x;
  std::memcpy(&x, t.data.data() + k * sizeof(T), sizeof(T));
  return x;
}

TEST(InterpreterTest, TensorBasics) {
  Tensor t = Tensor::zeros(DataType::i16(), {3, 4});
  EXPECT_EQ(t.num_elements(), 12);
  EXPECT_EQ(t.data.size(), 24u);
  Tensor s = Tensor::zeros(DataType::f32(), {});
  EXPECT_EQ(s.num_elements(), 1);
  EXPECT_EQ(s.data.size(), 4u);
}

TEST(InterpreterTest, ElementwiseAddWrapsOnI8) {
  auto A = BufferNode::make("A", DataType::i8(), {2048});
  auto B = BufferNode::make("B", DataType::i8(), {2048});
  auto C = BufferNode::make("C", DataType::i8(), {2048});
  auto i = VarNode::make("i");
  TensorFunc f{"add", {A, B}, {C}, {stage(C, {i}, add(ld(A, {v(i)}), ld(B, {v(i)})), true)}, {}};
  Tensor a = random_tensor(DataType::i8(), {2048}, 1), b = random_tensor(DataType::i8(), {2048}, 2);
  a.data[0] = 100;
  b.data[0] = 100;
  a.data[1] = static_cast<uint8_t>(-128);
  b.data[1] = static_cast<uint8_t>(-1);
  std::vector<Tensor> out;
  std::string err;
  ASSERT_TRUE(interpret(f, {a, b}, out, err)) << err;
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dtype, DataType::i8());
  EXPECT_EQ(out[0].shape, std::vector<int64_t>{2048});
  EXPECT_EQ(at<int8_t>(out[0], 0), -56);
  EXPECT_EQ(at<int8_t>(out[0], 1), 127);
  int wrapped = 0;
  for (int k = 0; k < 2048; ++k) {
    int sum = at<int8_t>(a, k) + at<int8_t>(b, k);
    ASSERT_EQ(at<int8_t>(out[0], k), static_cast<int8_t>(sum)) << k;
    wrapped += sum != static_cast<int8_t>(sum);
  }
  EXPECT_GT(wrapped, 100);  // the random inputs really exercise wrap-around
}

// The alloc_vtcm example: result stage reads two earlier stages.
TEST(InterpreterTest, StageReadsEarlierStages) {
  auto A = BufferNode::make("A", DataType::u8(), {64});
  auto B = BufferNode::make("B", DataType::u8(), {64});
  auto C = BufferNode::make("C", DataType::u8(), {64});
  auto Ab = BufferNode::make("A_buf", DataType::u8(), {64}, StorageScope::Vtcm);
  auto Bb = BufferNode::make("B_buf", DataType::u8(), {64}, StorageScope::Vtcm);
  auto i = VarNode::make("i"), j = VarNode::make("i"), k = VarNode::make("i");
  TensorFunc f{"alloc_vtcm",
               {A, B},
               {C},
               {stage(Ab, {i}, ld(A, {v(i)}), false),
                stage(Bb, {j}, bin(BinaryOp::Mul, ld(B, {v(j)}), IntImm::make(DataType::u8(), 3)), false),
                stage(C, {k}, add(ld(Ab, {v(k)}), ld(Bb, {v(k)})), true)},
               {}};
  Tensor a = random_tensor(DataType::u8(), {64}, 7), b = random_tensor(DataType::u8(), {64}, 8);
  std::vector<Tensor> out;
  std::string err;
  ASSERT_TRUE(interpret(f, {a, b}, out, err)) << err;
  for (int n = 0; n < 64; ++n)
    ASSERT_EQ(out[0].data[n], static_cast<uint8_t>(a.data[n] + 3 * b.data[n])) << n;
}

TEST(InterpreterTest, Dense) {
  const int M = 8, K = 40, N = 12;
  auto A = BufferNode::make("A", DataType::u8(), {M, K});
  auto B = BufferNode::make("B", DataType::u8(), {K, N});
  auto C = BufferNode::make("C", DataType::i32(), {M, N});
  auto m = VarNode::make("m"), n = VarNode::make("n"), k = VarNode::make("k");
  Expr prod = bin(BinaryOp::Mul, cast(DataType::i32(), ld(A, {v(m), v(k)})),
                  cast(DataType::i32(), ld(B, {v(k), v(n)})));
  TensorFunc f{
      "dense", {A, B}, {C}, {stage(C, {m, n}, Reduce::make(ReduceOp::Sum, prod, {{k, K}}), true)}, {}};
  Tensor a = random_tensor(DataType::u8(), {M, K}, 11), b = random_tensor(DataType::u8(), {K, N}, 12);
  std::vector<Tensor> out;
  std::string err;
  ASSERT_TRUE(interpret(f, {a, b}, out, err)) << err;
  for (int y = 0; y < M; ++y) {
    for (int x = 0; x < N; ++x) {
      int32_t acc = 0;
      for (int r = 0; r < K; ++r) acc += int32_t(a.data[y * K + r]) * int32_t(b.data[r * N + x]);
      ASSERT_EQ(at<int32_t>(out[0], y * N + x), acc) << y << "," << x;
    }
  }
}

// conv3x3 (examples/conv3x3.dsp), on an H x W image.
TensorFunc conv3x3(int H, int W) {
  auto I = BufferNode::make("I", DataType::u8(), {H, W});
  auto K = BufferNode::make("K", DataType::i8(), {3, 3});
  auto O = BufferNode::make("O", DataType::u8(), {H, W});
  auto y = VarNode::make("y"), x = VarNode::make("x"), r = VarNode::make("r"), s = VarNode::make("s");
  DataType i16 = DataType::i16();
  Expr iy = clamp(add(add(v(y), v(r)), i32(-1)), i32(0), i32(H - 1));
  Expr ix = clamp(add(add(v(x), v(s)), i32(-1)), i32(0), i32(W - 1));
  Expr prod = bin(BinaryOp::Mul, cast(i16, ld(I, {iy, ix})), cast(i16, ld(K, {v(r), v(s)})));
  Expr sum = Reduce::make(ReduceOp::Sum, prod, {{r, 3}, {s, 3}});
  Expr body = cast(DataType::u8(), clamp(bin(BinaryOp::Shr, sum, IntImm::make(i16, 4)), IntImm::make(i16, 0),
                                         IntImm::make(i16, 255)));
  return TensorFunc{"conv3x3", {I, K}, {O}, {stage(O, {y, x}, body, true)}, {}};
}

std::vector<uint8_t> conv3x3_reference(const Tensor& img, const Tensor& ker, int H, int W) {
  std::vector<uint8_t> out(static_cast<size_t>(H) * W);
  auto cl = [](int v, int lo, int hi) { return std::min(std::max(v, lo), hi); };
  for (int y = 0; y < H; ++y) {
    for (int x = 0; x < W; ++x) {
      int16_t acc = 0;
      for (int r = 0; r < 3; ++r)
        for (int s = 0; s < 3; ++s) {
          int16_t p =
              static_cast<int16_t>(int16_t(img.data[cl(y + r - 1, 0, H - 1) * W + cl(x + s - 1, 0, W - 1)]) *
                                   int16_t(static_cast<int8_t>(ker.data[r * 3 + s])));
          acc = static_cast<int16_t>(acc + p);  // i16 arithmetic wraps
        }
      int16_t shifted = static_cast<int16_t>(acc >> 4);
      out[y * W + x] = static_cast<uint8_t>(std::min<int16_t>(std::max<int16_t>(shifted, 0), 255));
    }
  }
  return out;
}

TEST(InterpreterTest, Conv3x3MatchesDirectLoops) {
  const int H = 13, W = 21;
  TensorFunc f = conv3x3(H, W);
  Tensor img = random_tensor(DataType::u8(), {H, W}, 21), ker = random_tensor(DataType::i8(), {3, 3}, 22);
  std::vector<Tensor> out;
  std::string err;
  ASSERT_TRUE(interpret(f, {img, ker}, out, err)) << err;
  auto want = conv3x3_reference(img, ker, H, W);
  int nonzero = 0;
  for (int k = 0; k < H * W; ++k) {
    ASSERT_EQ(out[0].data[k], want[k]) << k;
    nonzero += want[k] != 0 && want[k] != 255;
  }
  EXPECT_GT(nonzero, 0);
}

TEST(InterpreterTest, Conv3x3FullSizeIsFast) {
  const int H = 256, W = 1024;
  TensorFunc f = conv3x3(H, W);
  Tensor img = random_tensor(DataType::u8(), {H, W}, 31), ker = random_tensor(DataType::i8(), {3, 3}, 32);
  std::vector<Tensor> out;
  interpret_timed(f, {img, ker}, out, 2.0);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].data, conv3x3_reference(img, ker, H, W));
}

TEST(InterpreterTest, MinMaxReductions) {
  const int N = 5, K = 37;
  for (DataType t : {DataType::i8(), DataType::u16(), DataType::f32()}) {
    auto A = BufferNode::make("A", t, {N, K});
    auto Mn = BufferNode::make("Mn", t, {N});
    auto Mx = BufferNode::make("Mx", t, {N});
    auto i = VarNode::make("i"), k = VarNode::make("k"), j = VarNode::make("j"), k2 = VarNode::make("k");
    TensorFunc f{"minmax",
                 {A},
                 {Mn, Mx},
                 {stage(Mn, {i}, Reduce::make(ReduceOp::Min, ld(A, {v(i), v(k)}), {{k, K}}), true),
                  stage(Mx, {j}, Reduce::make(ReduceOp::Max, ld(A, {v(j), v(k2)}), {{k2, K}}), true)},
                 {}};
    Tensor a = random_tensor(t, {N, K}, 41);
    std::vector<Tensor> out;
    std::string err;
    ASSERT_TRUE(interpret(f, {a}, out, err)) << err;
    ASSERT_EQ(out.size(), 2u);
    for (int n = 0; n < N; ++n) {
      double lo = HUGE_VAL, hi = -HUGE_VAL;
      for (int r = 0; r < K; ++r) {
        double x = t == DataType::i8()    ? at<int8_t>(a, n * K + r)
                   : t == DataType::u16() ? at<uint16_t>(a, n * K + r)
                                          : at<float>(a, n * K + r);
        lo = std::min(lo, x);
        hi = std::max(hi, x);
      }
      auto get = [&](const Tensor& o) -> double {
        return t == DataType::i8()    ? at<int8_t>(o, n)
               : t == DataType::u16() ? at<uint16_t>(o, n)
                                      : at<float>(o, n);
      };
      EXPECT_EQ(get(out[0]), lo) << t.str() << " row " << n;
      EXPECT_EQ(get(out[1]), hi) << t.str() << " row " << n;
    }
  }
}

// The first axis is outermost: in f32, 1e8 + 1 - 1e8 + 1 gives 1, the other order 2.
TEST(InterpreterTest, ReductionAxesIterateFirstOutermost) {
  auto X = BufferNode::make("X", DataType::f32(), {2, 2});
  auto S = BufferNode::make("S", DataType::f32(), {1});
  auto i = VarNode::make("i"), r = VarNode::make("r"), s = VarNode::make("s");
  TensorFunc f{"order",
               {X},
               {S},
               {stage(S, {i}, Reduce::make(ReduceOp::Sum, ld(X, {v(r), v(s)}), {{r, 2}, {s, 2}}), true)},
               {}};
  Tensor x = Tensor::zeros(DataType::f32(), {2, 2});
  float vals[4] = {1e8f, 1.0f, -1e8f, 1.0f};
  std::memcpy(x.data.data(), vals, sizeof vals);
  std::vector<Tensor> out;
  std::string err;
  ASSERT_TRUE(interpret(f, {x}, out, err)) << err;
  EXPECT_EQ(at<float>(out[0], 0), 1.0f);
}

TEST(InterpreterTest, TransposedRead) {
  auto A = BufferNode::make("A", DataType::i32(), {3, 5});
  auto T = BufferNode::make("T", DataType::i32(), {5, 3});
  auto i = VarNode::make("i"), j = VarNode::make("j");
  TensorFunc f{"transpose", {A}, {T}, {stage(T, {i, j}, ld(A, {v(j), v(i)}), true)}, {}};
  Tensor a = random_tensor(DataType::i32(), {3, 5}, 51);
  std::vector<Tensor> out;
  std::string err;
  ASSERT_TRUE(interpret(f, {a}, out, err)) << err;
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 3; ++x)
      ASSERT_EQ(at<int32_t>(out[0], y * 3 + x), at<int32_t>(a, x * 5 + y)) << y << "," << x;
}

TEST(InterpreterTest, SelectAndFloatArithmetic) {
  auto A = BufferNode::make("A", DataType::f32(), {16});
  auto C = BufferNode::make("C", DataType::f32(), {16});
  auto i = VarNode::make("i");
  Expr x = ld(A, {v(i)});
  Expr half = FloatImm::make(DataType::f32(), 0.5);
  Expr body =
      Select::make(bin(BinaryOp::LT, x, FloatImm::make(DataType::f32(), 0.0)), bin(BinaryOp::Mul, x, half),
                   bin(BinaryOp::Div, x, FloatImm::make(DataType::f32(), 3.0)));
  TensorFunc f{"leaky", {A}, {C}, {stage(C, {i}, body, true)}, {}};
  Tensor a = random_tensor(DataType::f32(), {16}, 61);
  std::vector<Tensor> out;
  std::string err;
  ASSERT_TRUE(interpret(f, {a}, out, err)) << err;
  for (int k = 0; k < 16; ++k) {
    float xa = at<float>(a, k);
    float want = xa < 0 ? xa * 0.5f : xa / 3.0f;
    ASSERT_EQ(at<float>(out[0], k), want) << k;
  }
}

TensorFunc copy_func() {
  auto A = BufferNode::make("A", DataType::i16(), {4, 6});
  auto C = BufferNode::make("C", DataType::i16(), {4, 6});
  auto i = VarNode::make("i"), j = VarNode::make("j");
  return TensorFunc{"copy", {A}, {C}, {stage(C, {i, j}, ld(A, {v(i), v(j)}), true)}, {}};
}

TEST(InterpreterTest, RejectsInputsThatDoNotMatchTheSignature) {
  TensorFunc f = copy_func();
  std::vector<Tensor> out;
  std::string err;
  EXPECT_FALSE(interpret(f, {Tensor::zeros(DataType::i16(), {6, 4})}, out, err));
  EXPECT_NE(err.find("input A must be i16[4, 6], got i16[6, 4]"), std::string::npos) << err;
  err.clear();
  EXPECT_FALSE(interpret(f, {Tensor::zeros(DataType::i16(), {24})}, out, err));
  EXPECT_NE(err.find("input A"), std::string::npos) << err;
  err.clear();
  EXPECT_FALSE(interpret(f, {Tensor::zeros(DataType::u16(), {4, 6})}, out, err));
  EXPECT_NE(err.find("got u16[4, 6]"), std::string::npos) << err;
  err.clear();
  EXPECT_FALSE(interpret(f, {}, out, err));
  EXPECT_NE(err.find("takes 1 inputs, got 0"), std::string::npos) << err;
  Tensor bad = Tensor::zeros(DataType::i16(), {4, 6});
  bad.data.pop_back();
  err.clear();
  EXPECT_FALSE(interpret(f, {bad}, out, err));
  EXPECT_NE(err.find("bytes"), std::string::npos) << err;
  EXPECT_TRUE(interpret(f, {Tensor::zeros(DataType::i16(), {4, 6})}, out, err)) << err;
}

// The interpreter evaluates a stage a row at a time (the innermost index's lanes); a stage
// whose innermost extent is 1 is evaluated point by point. The same body in both shapes must
// give the same bytes, for every dtype: lane-dependent and uniform operands, a select whose
// lanes take both sides (the untaken side would read out of bounds), a load indexed by a load,
// reductions, casts (to bool too), division, shifts and comparisons.
TEST(InterpreterTest, RowsMatchPointByPoint) {
  const int64_t H = 5, W = 37, K = 6;
  for (DataType t : {DataType::i8(), DataType::u8(), DataType::i16(), DataType::u16(), DataType::i32(),
                     DataType::u32(), DataType::i64(), DataType::u64(), DataType::f32(), DataType::f64()}) {
    auto A = BufferNode::make("A", t, {H, W});
    auto B = BufferNode::make("B", t, {K, W});
    auto I = BufferNode::make("I", DataType::i32(), {W});
    auto y = VarNode::make("y"), x = VarNode::make("x"), k = VarNode::make("k"), z = VarNode::make("z");
    Expr a = ld(A, {v(y), v(x)});
    Expr left = ld(A, {v(y), add(v(x), i32(-1))});  // out of bounds at x = 0
    Expr gathered = ld(A, {v(y), clamp(ld(I, {v(x)}), i32(0), i32(W - 1))});
    Expr red = Reduce::make(ReduceOp::Sum, bin(BinaryOp::Mul, ld(B, {v(k), v(x)}), ld(A, {v(y), i32(3)})), {{k, K}});
    Expr picked = Select::make(bin(BinaryOp::GT, v(x), i32(0)), left, gathered);
    Expr mixed = bin(BinaryOp::Max, bin(BinaryOp::Add, picked, red), bin(BinaryOp::Sub, a, ld(A, {i32(0), i32(2)})));
    Expr divided = t.is_float() ? bin(BinaryOp::Div, mixed, add(ld(B, {i32(1), v(x)}), FloatImm::make(t, 0.5)))
                                : bin(BinaryOp::Mod, bin(BinaryOp::Shr, mixed, make_const(t, 1)), ld(B, {i32(1), v(x)}));
    Expr flag = cast(t, bin(BinaryOp::And, cast(DataType::boolean(), divided), bin(BinaryOp::LT, a, divided)));
    Expr body = bin(BinaryOp::Add, bin(BinaryOp::Add, divided, flag), cast(t, cast(DataType::i16(), red)));
    auto O = BufferNode::make("O", t, {H, W});
    auto O1 = BufferNode::make("O1", t, {H, W, 1});
    TensorFunc rows{"rows", {A, B, I}, {O}, {stage(O, {y, x}, body, true)}, {}};
    TensorFunc points{"points", {A, B, I}, {O1}, {stage(O1, {y, x, z}, body, true)}, {}};
    Tensor ta = random_tensor(t, {H, W}, 41), tb = random_tensor(t, {K, W}, 42);
    Tensor ti = random_tensor(DataType::i32(), {W}, 43);
    for (int64_t j = 0; j < W; ++j) {  // indices in [-4, W + 4): some clamped
      int32_t idx = int32_t((j * 7) % (W + 8)) - 4;
      std::memcpy(ti.data.data() + j * 4, &idx, 4);
    }
    std::vector<Tensor> by_rows, by_points;
    std::string err;
    ASSERT_TRUE(interpret(rows, {ta, tb, ti}, by_rows, err)) << t.str() << ": " << err;
    ASSERT_TRUE(interpret(points, {ta, tb, ti}, by_points, err)) << t.str() << ": " << err;
    EXPECT_EQ(by_rows[0].data, by_points[0].data) << t.str();
  }
}

// An nn-style convolution (a reduction over the window and the channels, for every output
// channel): each input pixel is read once per row of output channels, not once per channel.
TEST(InterpreterTest, ConvOverChannelsIsFast) {
  const int64_t H = 28, W = 28, C = 64, K = 64;
  auto I = BufferNode::make("I", DataType::u8(), {H + 2, W + 2, C});
  auto F = BufferNode::make("F", DataType::i8(), {3, 3, C, K});
  auto O = BufferNode::make("O", DataType::i32(), {H, W, K});
  auto y = VarNode::make("y"), x = VarNode::make("x"), k = VarNode::make("k");
  auto r = VarNode::make("r"), s = VarNode::make("s"), c = VarNode::make("c");
  Expr prod = bin(BinaryOp::Mul, cast(DataType::i32(), ld(I, {add(v(y), v(r)), add(v(x), v(s)), v(c)})),
                  cast(DataType::i32(), ld(F, {v(r), v(s), v(c), v(k)})));
  TensorFunc f{"conv", {I, F}, {O}, {stage(O, {y, x, k}, Reduce::make(ReduceOp::Sum, prod, {{r, 3}, {s, 3}, {c, C}}), true)}, {}};
  Tensor ti = random_tensor(DataType::u8(), {H + 2, W + 2, C}, 51), tf = random_tensor(DataType::i8(), {3, 3, C, K}, 52);
  std::vector<Tensor> out;
  interpret_timed(f, {ti, tf}, out, 1.5);  // point by point, one tree walk per product: about 3 s
  ASSERT_EQ(out.size(), 1u);
  for (int64_t p : {int64_t(0), (H * W * K) / 2 + 17, H * W * K - 1}) {  // spot checks against direct loops
    int64_t yy = p / (W * K), xx = p / K % W, kk = p % K, want = 0;
    for (int rr = 0; rr < 3; ++rr)
      for (int ss = 0; ss < 3; ++ss)
        for (int64_t cc = 0; cc < C; ++cc)
          want += int64_t(ti.data[size_t(((yy + rr) * (W + 2) + xx + ss) * C + cc)]) *
                  int64_t(int8_t(tf.data[size_t(((rr * 3 + ss) * C + cc) * K + kk)]));
    EXPECT_EQ(at<int32_t>(out[0], p), int32_t(want)) << p;
  }
}

TEST(InterpreterTest, OutOfBoundsIndexIsAnError) {
  auto A = BufferNode::make("A", DataType::u8(), {8});
  auto C = BufferNode::make("C", DataType::u8(), {8});
  auto i = VarNode::make("i");
  TensorFunc f{"shift", {A}, {C}, {stage(C, {i}, ld(A, {add(v(i), i32(1))}), true)}, {}};
  std::vector<Tensor> out;
  std::string err;
  EXPECT_FALSE(interpret(f, {Tensor::zeros(DataType::u8(), {8})}, out, err));
  EXPECT_NE(err.find("index out of bounds"), std::string::npos) << err;
  EXPECT_NE(err.find("index 8"), std::string::npos) << err;

  TensorFunc g{"neg", {A}, {C}, {stage(C, {i}, ld(A, {add(v(i), i32(-1))}), true)}, {}};
  err.clear();
  EXPECT_FALSE(interpret(g, {Tensor::zeros(DataType::u8(), {8})}, out, err));
  EXPECT_NE(err.find("index -1"), std::string::npos) << err;
}

TEST(InterpreterTest, MalformedFunctionsAreErrors) {
  auto A = BufferNode::make("A", DataType::u8(), {8});
  auto C = BufferNode::make("C", DataType::u8(), {8});
  auto T = BufferNode::make("T", DataType::u8(), {8});
  auto i = VarNode::make("i"), stray = VarNode::make("q");
  std::vector<Tensor> out;
  std::string err;
  TensorFunc unbound{"f", {A}, {C}, {stage(C, {i}, ld(A, {v(stray)}), true)}, {}};
  EXPECT_FALSE(interpret(unbound, {Tensor::zeros(DataType::u8(), {8})}, out, err));
  EXPECT_NE(err.find("unbound variable q"), std::string::npos) << err;
  // Reading a stage defined later.
  TensorFunc later{
      "f", {A}, {C}, {stage(C, {i}, ld(T, {v(i)}), true), stage(T, {i}, ld(A, {v(i)}), false)}, {}};
  err.clear();
  EXPECT_FALSE(interpret(later, {Tensor::zeros(DataType::u8(), {8})}, out, err));
  EXPECT_NE(err.find("before it is computed"), std::string::npos) << err;
}

TEST(InterpreterTest, RandomTensorIsDeterministic) {
  Tensor a = random_tensor(DataType::i32(), {100}, 5), b = random_tensor(DataType::i32(), {100}, 5);
  Tensor c = random_tensor(DataType::i32(), {100}, 6);
  EXPECT_EQ(a.data, b.data);
  EXPECT_NE(a.data, c.data);
  // splitmix64 from state 0: its first output is a published constant.
  Tensor g = random_tensor(DataType::u64(), {2}, 0);
  EXPECT_EQ(at<uint64_t>(g, 0), 0xe220a8397b1dcdafull);
  // Integers cover the full range; floats lie in [-8, 8) and are exact in their dtype.
  Tensor i8 = random_tensor(DataType::i8(), {4096}, 9);
  bool neg = false, big = false;
  for (uint8_t x : i8.data) {
    neg |= static_cast<int8_t>(x) < -100;
    big |= static_cast<int8_t>(x) > 100;
  }
  EXPECT_TRUE(neg && big);
  Tensor f = random_tensor(DataType::f32(), {4096}, 9);
  float lo = 0, hi = 0;
  for (int k = 0; k < 4096; ++k) {
    float x = at<float>(f, k);
    ASSERT_GE(x, -8.0f);
    ASSERT_LT(x, 8.0f);
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  EXPECT_LT(lo, -7.0f);
  EXPECT_GT(hi, 7.0f);
  Tensor d = random_tensor(DataType::f64(), {64}, 9);
  for (int k = 0; k < 64; ++k) ASSERT_TRUE(at<double>(d, k) >= -8.0 && at<double>(d, k) < 8.0);
  Tensor bl = random_tensor(DataType::boolean(), {256}, 9);
  int ones = 0;
  for (uint8_t x : bl.data) {
    ASSERT_LE(x, 1);
    ones += x;
  }
  EXPECT_GT(ones, 64);
  EXPECT_LT(ones, 192);
}

}  // namespace
}  // namespace dspc
