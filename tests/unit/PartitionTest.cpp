// Boundary partitioning: the boxes of a stage's domain and the min/max they decide.
#include <gtest/gtest.h>

#include <sstream>

#include "compiler/frontend/Parser.h"
#include "compiler/ir/Printer.h"
#include "passes/support/Partition.h"

namespace dspc {
namespace {

Stage parse_stage(const std::string& text, size_t index = 0) {
  SourceFile src{"test.dsp", text};
  std::ostringstream out;
  Diagnostics diag(out, &src);
  auto program = parse_dsp(src, diag);
  EXPECT_TRUE(program) << out.str();
  return program->funcs.at(0).stages.at(index);
}

std::string boxes(const std::vector<Region>& regions) {
  std::string s;
  for (const Region& r : regions) {
    s += "[";
    for (const DimRange& d : r)
      s += "(" + std::to_string(d.min) + "," + std::to_string(d.extent) +
           (d.ends ? " ends " + std::to_string(d.ends) : "") + ")";
    s += "]";
  }
  return s;
}

constexpr const char* kConv =
    "func conv3x3(I: u8[256, 1024], K: i8[3, 3]) -> (O: u8[256, 1024]) {\n"
    "  O[y, x] = u8(clamp(sum(i16(I[clamp(y + r - 1, 0, 255), clamp(x + s - 1, 0, 1023)]) * i16(K[r, s]), "
    "r: 3, s: 3) >> 4, 0, 255))\n"
    "}\n";

TEST(Partition, ClampedStencilGetsNineBoxes) {
  Stage st = parse_stage(kConv);
  EXPECT_EQ(boxes(boundary_regions(st)),
            "[(0,1)(0,1)][(0,1)(1,1022)][(0,1)(1023,1)]"
            "[(1,254)(0,1)][(1,254)(1,1022)][(1,254)(1023,1)]"
            "[(255,1)(0,1)][(255,1)(1,1022)][(255,1)(1023,1)]");
}

TEST(Partition, OnlyTheVariablesFromFirstDimOn) {
  Stage st = parse_stage(kConv);
  EXPECT_EQ(boxes(boundary_regions(st, 27, 1)), "[(0,256)(0,1)][(0,256)(1,1022)][(0,256)(1023,1)]");
  EXPECT_EQ(boxes(boundary_regions(st, 27, 2)), "[(0,256)(0,1024)]");
}

TEST(Partition, InteriorLosesItsIndexClampsButNotTheValueClamp) {
  Stage st = parse_stage(kConv);
  std::vector<Region> r = boundary_regions(st);
  std::string interior = print_expr(drop_decided_minmax(st.body, st, r[4]));
  EXPECT_EQ(interior.find("I[min"), std::string::npos) << interior;
  EXPECT_NE(interior.find("I[y + r - 1, x + s - 1]"), std::string::npos) << interior;
  // The final clamp to [0, 255] is on values, which no range decides.
  EXPECT_NE(interior.find("min(max(sum("), std::string::npos) << interior;
  // In the top-left corner only the lower clamps stay.
  std::string corner = print_expr(drop_decided_minmax(st.body, st, r[0]));
  EXPECT_NE(corner.find("I[max(y + r - 1, 0), max(x + s - 1, 0)]"), std::string::npos) << corner;
}

TEST(Partition, OneSidedAndWideTaps) {
  // Only the lower edge is clamped in x; taps reach 2 to the left and 3 up.
  Stage st = parse_stage(
      "func f(I: u8[16, 64]) -> (O: u8[16, 64]) {\n"
      "  O[y, x] = I[max(y - 3, 0), max(x - 2, 0)]\n"
      "}\n");
  EXPECT_EQ(boxes(boundary_regions(st)), "[(0,3)(0,2)][(0,3)(2,62)][(3,13)(0,2)][(3,13)(2,62)]");
}

TEST(Partition, NothingToGainIsOneBox) {
  Stage st = parse_stage("func f(I: u8[16, 64]) -> (O: u8[16, 64]) {\n  O[y, x] = max(I[y, x], 3)\n}\n");
  EXPECT_EQ(boxes(boundary_regions(st)), "[(0,16)(0,64)]");
  // A clamp that is a no-op everywhere needs no partition either; it simply goes.
  Stage all = parse_stage("func f(I: u8[16]) -> (O: u8[16]) {\n  O[x] = I[clamp(x, 0, 15)]\n}\n");
  EXPECT_EQ(boxes(boundary_regions(all)), "[(0,16)]");
  EXPECT_EQ(print_expr(drop_decided_minmax(all.body, all, boundary_regions(all)[0])), "I[x]");
}

TEST(Partition, TooManyBoxesFallBackToOne) {
  Stage st = parse_stage(
      "func f(I: u8[8, 8, 8, 8]) -> (O: u8[8, 8, 8, 8]) {\n"
      "  O[a, b, c, d] = I[clamp(a - 1, 0, 7), clamp(b - 1, 0, 7), clamp(c - 1, 0, 7), clamp(d - 1, 0, 7)] +\n"
      "                  I[clamp(a + 1, 0, 7), clamp(b + 1, 0, 7), clamp(c + 1, 0, 7), clamp(d + 1, 0, 7)]\n"
      "}\n");
  EXPECT_EQ(boundary_regions(st).size(), 1u);
  EXPECT_EQ(boundary_regions(st, 81).size(), 81u);
}

TEST(Partition, DecreasingIndexAndTinyExtents) {
  // A mirrored read: clamp(14 - x) is a no-op for x <= 14, only x = 15 needs it.
  Stage st = parse_stage("func f(I: u8[16]) -> (O: u8[16]) {\n  O[x] = I[clamp(14 - x, 0, 15)]\n}\n");
  EXPECT_EQ(boxes(boundary_regions(st)), "[(0,15)][(15,1)]");
  Stage one = parse_stage("func f(I: u8[1]) -> (O: u8[1]) {\n  O[x] = I[clamp(x - 1, 0, 0)]\n}\n");
  EXPECT_EQ(boxes(boundary_regions(one)), "[(0,1)]");
}

TEST(Partition, VectorPiecesInTheInterior) {
  // Interior [1, 299) at 128 lanes: the aligned main piece [128, 256) and one ends piece for
  // the first (1) and last (171) vectors, but only where y is in its interior; the top and
  // bottom rows are one ends piece of y.
  Stage st = parse_stage(
      "func f(I: u8[6, 300]) -> (O: u8[6, 300]) {\n"
      "  O[y, x] = sum(I[clamp(y + r - 1, 0, 5), clamp(x + r - 1, 0, 299)], r: 3)\n"
      "}\n");
  EXPECT_EQ(boxes(boundary_regions(st, 27, 0, 128)),
            "[(1,4)(0,1)][(1,4)(128,128)][(1,4)(1,298 ends 128)][(1,4)(299,1)]"
            "[(0,6 ends 1)(0,1)][(0,6 ends 1)(1,298)][(0,6 ends 1)(299,1)]");
  // Only a head vector when the interior ends on a vector boundary, only a tail one when it
  // starts on one, none when both.
  Stage head = parse_stage(
      "func f(I: u8[256]) -> (O: u8[256]) {\n  O[x] = sum(I[clamp(x + r - 1, 0, 255)], r: 1)\n}\n");
  EXPECT_EQ(boxes(boundary_regions(head, 27, 0, 128)), "[(0,1)][(128,128)][(1,128)]");
  // Without a reduction, over whole vectors, edges of at most a quarter of a vector: the
  // range's first and last vectors hold them (one ends piece when both sides have one).
  Stage halo = parse_stage("func f(I: u8[256]) -> (O: u8[256]) {\n  O[x] = I[clamp(x - 1, 0, 255)]\n}\n");
  EXPECT_EQ(boxes(boundary_regions(halo, 27, 0, 128)), "[(128,128)][(0,128)]");
  Stage halo2 = parse_stage(
      "func f(I: u8[384]) -> (O: u8[384]) {\n  O[x] = I[clamp(x - 2, 0, 383)] + I[clamp(x + 1, 0, 383)]\n}\n");
  EXPECT_EQ(boxes(boundary_regions(halo2, 27, 0, 128)), "[(128,128)][(0,384 ends 128)]");
  // An edge wider than a quarter of a vector keeps its pieces.
  Stage wide = parse_stage("func f(I: u8[256]) -> (O: u8[256]) {\n  O[x] = I[clamp(x - 40, 0, 255)]\n}\n");
  EXPECT_EQ(boxes(boundary_regions(wide, 27, 0, 128)), "[(0,40)][(128,128)][(40,128)]");
  Stage tail = parse_stage("func f(I: u8[300]) -> (O: u8[300]) {\n  O[x] = I[clamp(x + 1, 0, 299)]\n}\n");
  EXPECT_EQ(boxes(boundary_regions(tail, 27, 0, 128)), "[(0,256)][(171,128)][(299,1)]");
  Stage both = parse_stage("func f(I: u8[257]) -> (O: u8[257]) {\n  O[x] = I[clamp(x + 1, 0, 256)]\n}\n");
  EXPECT_EQ(boxes(boundary_regions(both, 27, 0, 128)), "[(0,256)][(256,1)]");
  // An interior without an aligned vector keeps the plain pieces.
  Stage small = parse_stage("func f(I: u8[130]) -> (O: u8[130]) {\n  O[x] = I[clamp(x - 1, 0, 129)]\n}\n");
  EXPECT_EQ(boxes(boundary_regions(small, 27, 0, 128)), "[(0,1)][(1,129)]");
}

}  // namespace
}  // namespace dspc
