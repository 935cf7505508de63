// Every function a Call may name, in two tables: the C functions of runtime-support that
// generated code calls (call_extern) and the compiler's intrinsics. The IR's type checks, the
// parsers, the allocation passes and codegen all read their facts about a callee from here,
// so adding a runtime function is one row.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/DataType.h"
#include "compiler/ir/IR.h"

namespace dspc {

struct CalleeSignature {
  DataType ret;
  std::vector<DataType> params;
  // When set, any number of further arguments of this dtype follow `params` (call_kernel).
  std::optional<DataType> rest = std::nullopt;
};

inline constexpr const char* kAllocateVtcm = "HexagonBackendAllocateVTCM";
inline constexpr const char* kFreeVtcm = "HexagonBackendFreeVTCM";
inline constexpr const char* kWorkspaceAlloc = "DspcWorkspaceAlloc";
inline constexpr const char* kWorkspaceFree = "DspcWorkspaceFree";

inline constexpr const char* kIsNullptr = "isnullptr";
inline constexpr const char* kThrowLastError = "throw_last_error";
inline constexpr const char* kHandleAdd = "handle_add";
inline constexpr const char* kPrefetch = "prefetch";
inline constexpr const char* kMemoryBarrier = "memory_barrier";
// constant_data(INDEX): the address of the module's constant INDEX (Module::constants).
inline constexpr const char* kConstantData = "constant_data";

// The checked packed entry (make-packed-api). The arg_* intrinsics read field `i` of
// args[i] (a dspc_arg array); arg_extent reads shape[d] of argument i.
inline constexpr const char* kArgData = "arg_data";
inline constexpr const char* kArgShape = "arg_shape";
inline constexpr const char* kArgNdim = "arg_ndim";
inline constexpr const char* kArgTypeCode = "arg_type_code";
inline constexpr const char* kArgBits = "arg_bits";
inline constexpr const char* kArgExtent = "arg_extent";
inline constexpr const char* kIsAligned = "is_aligned";
inline constexpr const char* kFuncDesc = "func_desc";
inline constexpr const char* kCallKernel = "call_kernel";
inline constexpr const char* kReturn = "return";
inline constexpr const char* kReportBadArg = "dspc_report_bad_arg";

// The runtime memory an allocator or free function serves.
enum class AllocPool : uint8_t { Vtcm, Workspace };

enum class ExternRole : uint8_t { Allocate, Free, Report };

struct ExternFunction {
  const char* name;
  CalleeSignature signature;
  ExternRole role;
  AllocPool pool;
  // Allocators only. Argument positions of the byte count and the alignment, and the function
  // that releases what the allocator returns. (What an alignment of 0 means is not here: for
  // VTCM it is the target table's vtcm_alignment, for the workspace runtime-support's own.)
  int bytes_arg = -1;
  int align_arg = -1;
  const char* free_fn = nullptr;
};

struct IntrinsicFunction {
  const char* name;
  CalleeSignature signature;
  // Whether a call must stay even when its value is unused.
  bool has_side_effects;
};

const std::vector<ExternFunction>& extern_functions();
const std::vector<IntrinsicFunction>& intrinsic_functions();

// The table rows for a name, or null.
const ExternFunction* find_extern(const std::string& name);
const IntrinsicFunction* find_intrinsic(const std::string& name);

std::optional<CalleeSignature> lookup_extern(const std::string& name);
std::optional<CalleeSignature> lookup_intrinsic(const std::string& name);

// The allocator that serves `pool`.
const ExternFunction& pool_allocator(AllocPool pool);

// The allocator `e` calls when it is a call_extern of one, else null.
const ExternFunction* called_allocator(const Expr& e);

bool is_free_function(const std::string& name);

// Externs always have effects (they reach the runtime); intrinsics say so in their row.
bool call_has_side_effects(CallKind kind, const std::string& name);

}  // namespace dspc
