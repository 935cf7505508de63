// The pass registry (passes/Passes.def) is the one list of passes: the pipeline runs it in
// order, and docs/design.md's pipeline table has one row per pass, in the same order.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "driver/Lower.h"
#include "passes/PassRegistry.h"

namespace dspc {
namespace {

TEST(PassRegistry, TheDesignTableListsEveryPassInOrder) {
  std::ifstream in(std::string(DSPC_SOURCE_DIR) + "/docs/design.md");
  ASSERT_TRUE(in);
  std::vector<std::string> table;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line == "| pass | does |") {
      inside = true;
      std::getline(in, line);
      continue;
    }
    if (!inside) continue;
    if (line.rfind("| `", 0) != 0) break;
    table.push_back(line.substr(3, line.find('`', 3) - 3));
  }
  EXPECT_EQ(table, pass_names());
}

TEST(PassRegistry, EveryPassIsNamedOnceAndDescribed) {
  std::set<std::string> names;
  bool tir = false;
  for (const PassInfo& p : passes()) {
    EXPECT_TRUE(names.insert(p.name).second) << p.name;
    EXPECT_NE(std::string(p.description), "") << p.name;
    EXPECT_NE(p.run, nullptr) << p.name;
    // The Program passes come first: TIR input starts at the first Tir pass.
    if (p.input == PassInput::Tir) tir = true;
    EXPECT_FALSE(tir && p.input == PassInput::Program) << p.name << " reads the program after a TIR-only pass";
  }
}

}  // namespace
}  // namespace dspc
