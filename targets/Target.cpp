#include "targets/Target.h"

namespace dspc {

namespace {

Target hexagon(int version, int64_t vtcm_kib) {
  Target t;
  std::string v = std::to_string(version);
  t.name = "hexagon-v" + v;
  t.is_hexagon = true;
  t.hexagon_version = version;
  t.llvm_triple = "hexagon-unknown-linux-musl";
  t.llvm_cpu = "hexagonv" + v;
  // HVX floating point stays off: qemu-hexagon does not execute it, and LLVM 19 cannot select
  // parts of it (an unordered v32f32 compare aborts on v69). Scalar float code is unaffected.
  t.llvm_features = "+hvxv" + v + ",+hvx-length128b,-hvx-qfloat,-hvx-ieee-fp";
  t.vector_bytes = 128;
  t.alloc_alignment = 128;
  t.vtcm_capacity = vtcm_kib * 1024;
  t.has_f16 = version >= 68;
  return t;
}

Target host() {
  Target t;
  t.name = "host";
  t.llvm_triple = "x86_64-unknown-linux-gnu";
  t.llvm_cpu = "x86-64";
  t.vector_bytes = 16;
  t.alloc_alignment = 128;  // same as Hexagon, so buffers behave alike on both
  t.vtcm_capacity = 8 * 1024 * 1024;  // the host emulates VTCM with an ordinary pool
  return t;
}

}  // namespace

std::vector<std::string> target_names() {
  return {"hexagon-v68", "hexagon-v65", "hexagon-v66", "hexagon-v69", "hexagon-v73", "host"};
}

std::optional<Target> lookup_target(std::string_view name) {
  if (name == "host") return host();
  if (name == "hexagon-v65") return hexagon(65, 256);
  if (name == "hexagon-v66") return hexagon(66, 256);
  if (name == "hexagon-v68") return hexagon(68, 4096);
  if (name == "hexagon-v69") return hexagon(69, 8192);
  if (name == "hexagon-v73") return hexagon(73, 8192);
  return std::nullopt;
}

}  // namespace dspc
