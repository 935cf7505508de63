// The target table (targets/Targets.def) as the compiler sees it, and as the build saw it.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "targets/Target.h"

namespace dspc {
namespace {

namespace fs = std::filesystem;

TEST(Target, EveryNameLooksUpToItself) {
  std::vector<std::string> names = target_names();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names[0], kDefaultTarget);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size()) << "a name twice";
  for (const std::string& name : names) {
    auto t = lookup_target(name);
    ASSERT_TRUE(t.has_value()) << name;
    EXPECT_EQ(t->name, name);
    EXPECT_GT(t->vtcm_capacity, 0) << name;
    EXPECT_GT(t->vector_bytes, 0) << name;
  }
  EXPECT_FALSE(lookup_target("hexagon-v99").has_value());
  EXPECT_FALSE(lookup_target("").has_value());
}

// The columns of a Hexagon row that name its version agree with it.
TEST(Target, HexagonRowsAgreeWithTheirVersion) {
  for (const std::string& name : target_names()) {
    Target t = *lookup_target(name);
    if (t.arch != Arch::hexagon) continue;
    std::string v = std::to_string(t.hexagon_version);
    EXPECT_EQ(t.name, "hexagon-v" + v);
    EXPECT_EQ(t.llvm_cpu, "hexagonv" + v);
    EXPECT_EQ(t.llvm_triple, "hexagon-unknown-linux-musl");
    EXPECT_EQ(t.llvm_features.rfind("+hvxv" + v + ",+hvx-length128b,", 0), 0u) << t.llvm_features;
    EXPECT_EQ(t.vector_bytes, 128);
    EXPECT_EQ(t.alloc_alignment, 128);
  }
}

// targets/Targets.def: the values the table must hold.
TEST(Target, DesignValues) {
  EXPECT_STREQ(kDefaultTarget, "hexagon-v68");
  EXPECT_EQ(lookup_target("hexagon-v65")->vtcm_capacity, 256 * 1024);
  EXPECT_EQ(lookup_target("hexagon-v66")->vtcm_capacity, 256 * 1024);
  EXPECT_EQ(lookup_target("hexagon-v68")->vtcm_capacity, 4 * 1024 * 1024);
  EXPECT_EQ(lookup_target("hexagon-v69")->vtcm_capacity, 8 * 1024 * 1024);
  EXPECT_EQ(lookup_target("hexagon-v73")->vtcm_capacity, 8 * 1024 * 1024);
  for (const std::string& name : target_names()) EXPECT_EQ(lookup_target(name)->vtcm_alignment, 2048) << name;
  Target host = *lookup_target("host");
  EXPECT_EQ(host.arch, Arch::x86_64);
  EXPECT_EQ(host.llvm_triple, "x86_64-unknown-linux-gnu");
  EXPECT_EQ(host.alloc_alignment, lookup_target("hexagon-v68")->alloc_alignment);
  EXPECT_FALSE(lookup_target("hexagon-v66")->has_f16);
  EXPECT_TRUE(lookup_target("hexagon-v68")->has_f16);
}

// CMake read the same table (targets/Targets.cmake): it built runtime-support for every
// target the compiler knows.
TEST(Target, RuntimeSupportIsBuiltForEveryTarget) {
  fs::path runtime = fs::read_symlink("/proc/self/exe").parent_path().parent_path() / "runtime-support";
  for (const std::string& name : target_names())
    EXPECT_TRUE(fs::exists(runtime / name / "libdspc_rt.a")) << name << " under " << runtime;
}

}  // namespace
}  // namespace dspc
