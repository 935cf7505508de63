// The extern and intrinsic tables (compiler/ir/Externs.h): every row is reachable through the
// lookups the IR and the passes use, and the allocator rows are consistent with each other
// and with runtime-support's header.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "compiler/ir/Externs.h"
#include "compiler/ir/IR.h"

#ifndef DSPC_SOURCE_DIR
#error "DSPC_SOURCE_DIR must name the source tree"
#endif

namespace dspc {
namespace {

bool same(const CalleeSignature& a, const CalleeSignature& b) {
  return a.ret == b.ret && a.params == b.params;
}

// One well-typed argument of each parameter type.
std::vector<Expr> arguments(const CalleeSignature& sig) {
  std::vector<Expr> args;
  for (DataType t : sig.params)
    args.push_back(t.is_handle() ? var_expr(VarNode::make("h", t)) : make_const(t, 1));
  return args;
}

TEST(Externs, EveryRowRoundTripsItsLookupAndBuildsACall) {
  std::set<std::string> names;
  for (const ExternFunction& f : extern_functions()) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name << " is in the tables twice";
    ASSERT_EQ(find_extern(f.name), &f) << f.name;
    auto sig = lookup_extern(f.name);
    ASSERT_TRUE(sig.has_value()) << f.name;
    EXPECT_TRUE(same(*sig, f.signature)) << f.name;
    EXPECT_FALSE(lookup_intrinsic(f.name).has_value()) << f.name;
    EXPECT_EQ(Call::make(CallKind::Extern, f.name, arguments(f.signature)).dtype(), f.signature.ret);
    EXPECT_TRUE(call_has_side_effects(CallKind::Extern, f.name)) << f.name;
  }
  for (const IntrinsicFunction& f : intrinsic_functions()) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name << " is in the tables twice";
    ASSERT_EQ(find_intrinsic(f.name), &f) << f.name;
    auto sig = lookup_intrinsic(f.name);
    ASSERT_TRUE(sig.has_value()) << f.name;
    EXPECT_TRUE(same(*sig, f.signature)) << f.name;
    EXPECT_FALSE(lookup_extern(f.name).has_value()) << f.name;
    EXPECT_EQ(Call::make(CallKind::Intrinsic, f.name, arguments(f.signature)).dtype(), f.signature.ret);
    EXPECT_EQ(call_has_side_effects(CallKind::Intrinsic, f.name), f.has_side_effects) << f.name;
  }
  EXPECT_FALSE(lookup_extern("malloc").has_value());
  EXPECT_FALSE(lookup_intrinsic("malloc").has_value());
  EXPECT_EQ(find_extern("malloc"), nullptr);
}

TEST(Externs, AllocatorsPairWithAFreeOfTheirPool) {
  for (const ExternFunction& f : extern_functions()) {
    if (f.role != ExternRole::Allocate) continue;
    const auto& params = f.signature.params;
    EXPECT_EQ(f.signature.ret, DataType::handle()) << f.name;
    ASSERT_TRUE(f.bytes_arg >= 0 && f.bytes_arg < static_cast<int>(params.size())) << f.name;
    ASSERT_TRUE(f.align_arg >= 0 && f.align_arg < static_cast<int>(params.size())) << f.name;
    EXPECT_NE(f.bytes_arg, f.align_arg) << f.name;
    EXPECT_EQ(params[f.bytes_arg], DataType::i32()) << f.name;
    EXPECT_EQ(params[f.align_arg], DataType::i32()) << f.name;
    EXPECT_EQ(&pool_allocator(f.pool), &f) << f.name << ": one allocator a pool";

    ASSERT_NE(f.free_fn, nullptr) << f.name;
    const ExternFunction* free = find_extern(f.free_fn);
    ASSERT_NE(free, nullptr) << f.free_fn;
    EXPECT_EQ(free->role, ExternRole::Free) << f.free_fn;
    EXPECT_TRUE(is_free_function(f.free_fn));
    EXPECT_EQ(free->pool, f.pool) << f.free_fn;
    // (pointer, context)
    EXPECT_EQ(free->signature.params, (std::vector<DataType>{DataType::handle(), DataType::handle()})) << f.free_fn;
    EXPECT_EQ(f.signature.params.back(), DataType::handle()) << f.name << ": the context comes last";

    Expr call = Call::make(CallKind::Extern, f.name, arguments(f.signature));
    EXPECT_EQ(called_allocator(call), &f);
    EXPECT_EQ(called_allocator(Call::make(CallKind::Extern, f.free_fn, arguments(free->signature))), nullptr);
  }
  EXPECT_STREQ(pool_allocator(AllocPool::Vtcm).name, kAllocateVtcm);
  EXPECT_STREQ(pool_allocator(AllocPool::Workspace).name, kWorkspaceAlloc);
  EXPECT_FALSE(is_free_function(kAllocateVtcm));
  EXPECT_EQ(called_allocator(make_i32(1)), nullptr);
}

// Generated code only declares these; runtime-support must define them.
TEST(Externs, RuntimeSupportDeclaresEveryExtern) {
  std::ifstream in(std::string(DSPC_SOURCE_DIR) + "/runtime-support/device/include/dspc_runtime.h");
  ASSERT_TRUE(in) << "dspc_runtime.h not found";
  std::stringstream ss;
  ss << in.rdbuf();
  for (const ExternFunction& f : extern_functions())
    EXPECT_NE(ss.str().find(std::string(f.name) + "("), std::string::npos) << f.name;
}

}  // namespace
}  // namespace dspc
