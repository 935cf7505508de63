// The C functions generated code may call (defined in runtime-support), and the intrinsics.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/DataType.h"

namespace dspc {

struct CalleeSignature {
  DataType ret;
  std::vector<DataType> params;
};

// Runtime-support functions: HexagonBackendAllocateVTCM(i32 nbytes, i32 align) -> handle,
// HexagonBackendFreeVTCM(handle) -> i32, DspcWorkspaceAlloc(i32 nbytes, i32 align) -> handle,
// DspcWorkspaceFree(handle) -> i32.
std::optional<CalleeSignature> lookup_extern(const std::string& name);

// Intrinsics: isnullptr(handle) -> bool, throw_last_error() -> i32.
std::optional<CalleeSignature> lookup_intrinsic(const std::string& name);

inline constexpr const char* kAllocateVtcm = "HexagonBackendAllocateVTCM";
inline constexpr const char* kFreeVtcm = "HexagonBackendFreeVTCM";
inline constexpr const char* kWorkspaceAlloc = "DspcWorkspaceAlloc";
inline constexpr const char* kWorkspaceFree = "DspcWorkspaceFree";

}  // namespace dspc
