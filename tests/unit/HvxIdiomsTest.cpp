// The HVX idiom table (codegen/HvxIdioms.def): every pattern parses, every row names an LLVM
// intrinsic, the pattern language's errors say where, and every row has its golden check in
// tests/golden/codegen/hvx-idioms.dsp.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "codegen/Codegen.h"

namespace dspc {
namespace {

TEST(HvxIdioms, TheTableIsWellFormed) {
  std::optional<std::string> error = hvx_table_error();
  EXPECT_FALSE(error) << *error;
  EXPECT_GE(hvx_idioms().size(), 10u);
}

TEST(HvxIdioms, PatternErrorsSayWhere) {
  EXPECT_FALSE(hvx_pattern_error("(add $acc:i16 (mul (i16 $v:u8) (bcast $s:sbyte)))"));
  EXPECT_FALSE(hvx_pattern_error("(u8 (clamp (shr? $v:i16 #k:0..15) 0 255))"));
  auto unknown = hvx_pattern_error("(avg $a:u8 $b:u8)");
  ASSERT_TRUE(unknown);
  EXPECT_NE(unknown->find("unknown operator 'avg'"), std::string::npos) << *unknown;
  auto type = hvx_pattern_error("(add $a:u7 $b:u8)");
  ASSERT_TRUE(type);
  EXPECT_NE(type->find("unknown operand type 'u7'"), std::string::npos) << *type;
  auto close = hvx_pattern_error("(add $a:u8 $b:u8");
  ASSERT_TRUE(close);
  EXPECT_NE(close->find("expected ')' at offset 16"), std::string::npos) << *close;
  auto shift = hvx_pattern_error("(shr? $v:i16 $k:i16)");
  ASSERT_TRUE(shift);
  EXPECT_NE(shift->find("needs a #k"), std::string::npos) << *shift;
  EXPECT_TRUE(hvx_pattern_error("(add $a:u8 $b:u8) extra"));
  EXPECT_TRUE(hvx_pattern_error("#k:1"));
}

TEST(HvxIdioms, EveryRowHasAGolden) {
  std::ifstream in(std::string(DSPC_SOURCE_DIR) + "/tests/golden/codegen/hvx-idioms.dsp");
  ASSERT_TRUE(in) << "tests/golden/codegen/hvx-idioms.dsp";
  std::stringstream text;
  text << in.rdbuf();
  std::set<std::string> named;
  std::istringstream words(text.str());
  for (std::string w, prev; words >> w; prev = w)
    if (prev == "ROW:") named.insert(w);
  for (const HvxIdiomInfo& row : hvx_idioms())
    EXPECT_TRUE(named.count(row.name))
        << "no `ROW: " << row.name << "` in tests/golden/codegen/hvx-idioms.dsp";
}

}  // namespace
}  // namespace dspc
