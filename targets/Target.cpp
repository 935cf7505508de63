#include "targets/Target.h"

namespace dspc {

namespace {

struct TargetRow {
  const char* name;
  Arch arch;
  int hexagon_version;
  const char* llvm_triple;
  const char* llvm_cpu;
  int vector_bytes;
  int alloc_alignment;
  int64_t vtcm_capacity;
  int vtcm_alignment;
};

constexpr TargetRow kTargets[] = {
#define DSPC_TARGET(name, arch, hexagon_version, llvm_triple, llvm_cpu, vector_bytes, alloc_alignment, \
                    vtcm_capacity, vtcm_alignment)                                                     \
  {name,         Arch::arch,      hexagon_version, llvm_triple,   llvm_cpu,                            \
   vector_bytes, alloc_alignment, vtcm_capacity,   vtcm_alignment},
#include "targets/Targets.def"
};

Target from_row(const TargetRow& row) {
  Target t;
  t.name = row.name;
  t.arch = row.arch;
  t.hexagon_version = row.hexagon_version;
  t.llvm_triple = row.llvm_triple;
  t.llvm_cpu = row.llvm_cpu;
  t.vector_bytes = row.vector_bytes;
  t.alloc_alignment = row.alloc_alignment;
  t.vtcm_capacity = row.vtcm_capacity;
  t.vtcm_alignment = row.vtcm_alignment;
  if (t.arch != Arch::hexagon) return t;
  std::string v = std::to_string(row.hexagon_version);
  // HVX floating point stays off: qemu-hexagon does not execute it, and LLVM 19 cannot select
  // parts of it (an unordered v32f32 compare aborts on v69). Scalar float code is unaffected.
  t.llvm_features =
      "+hvxv" + v + ",+hvx-length" + std::to_string(row.vector_bytes) + "b,-hvx-qfloat,-hvx-ieee-fp";
  t.has_f16 = row.hexagon_version >= 68;
  return t;
}

}  // namespace

std::vector<std::string> target_names() {
  std::vector<std::string> names = {kDefaultTarget};
  for (const TargetRow& row : kTargets)
    if (row.name != std::string_view(kDefaultTarget)) names.push_back(row.name);
  return names;
}

std::optional<Target> lookup_target(std::string_view name) {
  for (const TargetRow& row : kTargets)
    if (name == row.name) return from_row(row);
  return std::nullopt;
}

}  // namespace dspc
