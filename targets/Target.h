// Target descriptions: Hexagon versions and the host.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dspc {

// The architectures dspc generates code for (Targets.def's arch column).
enum class Arch { hexagon, x86_64 };

// The per-target values come from targets/Targets.def; the rest is the same for every target.
struct Target {
  std::string name;           // "hexagon-v68", "host"
  Arch arch = Arch::hexagon;
  int hexagon_version = 0;    // 65, 66, 68, 69, 73; 0 for host
  std::string llvm_triple;    // "hexagon-unknown-linux-musl"
  std::string llvm_cpu;       // "hexagonv68"
  std::string llvm_features;  // "+hvxv68,+hvx-length128b,-hvx-qfloat,-hvx-ieee-fp"
  int vector_bytes = 128;     // HVX vector width
  // Alignment of the buffers the compiler allocates and of every buffer parameter (callers
  // and the runner promise it).
  int alloc_alignment = 128;
  int64_t vtcm_capacity = 0;  // bytes of VTCM (host: the emulated pool's default)
  int vtcm_alignment = 0;     // of VTCM allocations; 0 leaves it to the runtime's default
  bool has_f16 = false;
  // Global-scope temporaries up to this many bytes live on the stack; larger ones come from
  // the runtime's workspace (DspcWorkspaceAlloc).
  int64_t max_stack_alloc = 32 * 1024;
};

// Looks a target up by its --target name; nullopt if unknown.
std::optional<Target> lookup_target(std::string_view name);
// All --target names, default first, then in the table's order.
std::vector<std::string> target_names();

#define DSPC_DEFAULT_TARGET(name) inline constexpr const char* kDefaultTarget = name;
#include "targets/Targets.def"

}  // namespace dspc
