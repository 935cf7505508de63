// dspc run --profile's resource bounds (driver/DriverProfile.h): each op-library convolution,
// whatever its requantization variant, is counted by its multiply-accumulates.
#include <gtest/gtest.h>

#include "driver/DriverProfile.h"

namespace dspc {
namespace {

std::vector<ParamInfo> conv_params() {
  ParamInfo in, out;
  in.dtype = DataType::u8();
  in.shape = {56, 56, 64};
  out = in;
  out.is_output = true;
  return {in, out};
}

TEST(ProfileBound, ConvolutionsCountTheirMacs) {
  // <S, P, D, H, W, C, R, T, K>: 56 x 56 x 64 outputs of 3 x 3 x 64 taps, 256 MACs a packet.
  std::vector<int64_t> a = {1, 1, 1, 56, 56, 64, 3, 3, 64};
  double macs = 56.0 * 56 * 64 * 3 * 3 * 64;
  for (const char* f : {"conv2d", "conv2d_requant", "conv2d_requant_f32"}) {
    ResourceBound b = resource_bound(f, a, conv_params(), 128);
    EXPECT_DOUBLE_EQ(b.packets, macs / 256) << f;
    EXPECT_EQ(b.counts, "MACs / 256 (vrmpy)") << f;
  }
  // The exact requantization's five arguments follow the convolution's.
  std::vector<int64_t> exact = a;
  exact.insert(exact.end(), {765228480, 10, 512, 17, 0});
  for (const char* f : {"conv2d_requant_exact", "conv2d_requant_exact_narrow"}) {
    ResourceBound e = resource_bound(f, exact, conv_params(), 128);
    EXPECT_DOUBLE_EQ(e.packets, macs / 256) << f;
  }
  std::vector<int64_t> dw = {1, 1, 1, 56, 56, 64, 3, 3, 765228480, 10, 512, 17, 0};
  EXPECT_EQ(resource_bound("depthwise_conv2d_requant_exact", dw, conv_params(), 128).counts, "MACs / 64 (16-bit products)");
  // Anything else is bounded by the bytes it moves.
  EXPECT_EQ(resource_bound("relu", {}, conv_params(), 128).counts, "bytes moved / 128");
}

}  // namespace
}  // namespace dspc
