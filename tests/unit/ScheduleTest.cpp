// compiler/ir/Schedule.h: the allocated shape storage_align gives.
#include <gtest/gtest.h>

#include "compiler/ir/Schedule.h"

namespace dspc {
namespace {

SchedulePrimitive align(int64_t dim, int64_t factor) {
  SchedulePrimitive p;
  p.kind = ScheduleKind::StorageAlign;
  p.factors = {dim, factor};
  p.factor_spans = {Span{}, Span{}};
  return p;
}

TEST(AlignedShape, WithoutStorageAlignIsTheShape) {
  EXPECT_EQ(aligned_shape({3, 130}, {}), (std::vector<int64_t>{3, 130}));
  SchedulePrimitive other;
  other.kind = ScheduleKind::SetScope;
  EXPECT_EQ(aligned_shape({3, 130}, {other}), (std::vector<int64_t>{3, 130}));
}

TEST(AlignedShape, PadsTheNextDimensionToAMultipleOfTheFactor) {
  EXPECT_EQ(aligned_shape({3, 130}, {align(0, 256)}), (std::vector<int64_t>{3, 256}));
  EXPECT_EQ(aligned_shape({3, 128}, {align(0, 128)}), (std::vector<int64_t>{3, 128}));
  EXPECT_EQ(aligned_shape({1, 1}, {align(0, 1)}), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(aligned_shape({3, 1}, {align(0, 3)}), (std::vector<int64_t>{3, 3}));
}

TEST(AlignedShape, InnerDimensionsFirstWhateverTheOrder) {
  // x 5 -> 8 (y's stride 8), then z's stride y * 8 must be a multiple of 64: y 3 -> 8.
  std::vector<int64_t> want{2, 8, 8};
  EXPECT_EQ(aligned_shape({2, 3, 5}, {align(0, 64), align(1, 8)}), want);
  EXPECT_EQ(aligned_shape({2, 3, 5}, {align(1, 8), align(0, 64)}), want);
  // Only the part of the factor the inner stride lacks pads: 1000 / gcd(1000, 128) = 125.
  EXPECT_EQ(aligned_shape({1, 3, 127}, {align(1, 32), align(0, 1000)}), (std::vector<int64_t>{1, 125, 128}));
  // z's stride is a multiple of 16 already (x padded to 16): y is not padded.
  EXPECT_EQ(aligned_shape({2, 3, 5}, {align(1, 16), align(0, 16)}), (std::vector<int64_t>{2, 3, 16}));
}

}  // namespace
}  // namespace dspc
