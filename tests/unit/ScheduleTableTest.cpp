// The schedule-primitive table (compiler/ir/SchedulePrimitives.def) is the one list of
// primitives: docs/language.md's table must have one row per primitive, in the table's order,
// each with an example that calls it, and every derived lookup must agree with the rows.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/ir/Schedule.h"

namespace dspc {
namespace {

// The first two cells of each row of the guide's primitive table.
std::vector<std::pair<std::string, std::string>> guide_rows(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::vector<std::pair<std::string, std::string>> rows;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("| primitive | example | does |", 0) == 0) {
      inside = true;
      std::getline(in, line);  // |---|---|---|
      continue;
    }
    if (!inside) continue;
    if (line.rfind("| `", 0) != 0) break;
    size_t a = line.find('`', 3);
    size_t b = line.find("| `", a);
    size_t c = line.find('`', b + 3);
    rows.push_back({line.substr(3, a - 3), line.substr(b + 3, c - b - 3)});
  }
  return rows;
}

TEST(ScheduleTable, TheGuideListsEveryPrimitiveInTheTablesOrder) {
  auto rows = guide_rows(std::string(DSPC_SOURCE_DIR) + "/docs/language.md");
  std::vector<std::string> names;
  for (ScheduleKind k : schedule_kinds()) names.push_back(schedule_kind_name(k));
  std::vector<std::string> guide;
  for (const auto& r : rows) guide.push_back(r.first);
  EXPECT_EQ(guide, names);
  for (const auto& [name, example] : rows)
    EXPECT_NE(example.find("." + name + "("), std::string::npos) << name << "'s example: " << example;
}

TEST(ScheduleTable, LookupsAgreeWithTheRows) {
  for (ScheduleKind k : schedule_kinds()) {
    std::string name = schedule_kind_name(k);
    EXPECT_EQ(schedule_kind_named(name), k) << name;
    EXPECT_FALSE(schedule_primitive_not_yet(name)) << name;
    EXPECT_EQ(std::string(schedule_usage(k)).rfind(name + " expects", 0), 0u) << name;
  }
  EXPECT_EQ(schedule_kind_named("compute_root"), std::nullopt);
  EXPECT_TRUE(schedule_primitive_not_yet("compute_root"));
  EXPECT_FALSE(schedule_primitive_not_yet("splitt"));
}

TEST(ScheduleTable, OnlyLoopPrimitivesTakeAwayTheAutomaticSchedule) {
  std::vector<std::string> loop;
  for (ScheduleKind k : schedule_kinds())
    if (is_loop_primitive(k)) loop.push_back(schedule_kind_name(k));
  EXPECT_EQ(loop, (std::vector<std::string>{"split", "tile", "reorder", "vectorize", "unroll", "parallel"}));
  EXPECT_EQ(schedule_role(ScheduleKind::Prefetch), ScheduleRole::Hint);
}

}  // namespace
}  // namespace dspc
