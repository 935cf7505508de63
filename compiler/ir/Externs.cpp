#include "compiler/ir/Externs.h"

namespace dspc {

namespace {

constexpr DataType kHandle = DataType::handle();
constexpr DataType kI32 = DataType::i32();

}  // namespace

const std::vector<ExternFunction>& extern_functions() {
  // Signatures are those of runtime-support/device/include/dspc_runtime.h: sizes and
  // alignments are uint32_t there and i32 here, which the lowering keeps below 2^31.
  // clang-format off
  // Every one takes the caller's context (dspc_context*) as its final argument.
  static const std::vector<ExternFunction> table = {
      // name           signature                          role                  pool                 bytes align free
      {kAllocateVtcm,   {kHandle, {kI32, kI32, kHandle}}, ExternRole::Allocate, AllocPool::Vtcm,      0,    1,    kFreeVtcm},
      {kFreeVtcm,       {kI32, {kHandle, kHandle}},       ExternRole::Free,     AllocPool::Vtcm},
      {kWorkspaceAlloc, {kHandle, {kI32, kI32, kHandle}}, ExternRole::Allocate, AllocPool::Workspace, 0,    1,    kWorkspaceFree},
      {kWorkspaceFree,  {kI32, {kHandle, kHandle}},       ExternRole::Free,     AllocPool::Workspace},
      // (func_desc, args, num_args, index or -1 for the count, alignment, ctx): sets ctx's last
      // error to what argument `index` (or the count) got wrong; returns DSPC_ERR_BAD_ARGUMENT.
      {kReportBadArg,   {kI32, {kHandle, kHandle, kI32, kI32, kI32, kHandle}}, ExternRole::Report, AllocPool::Vtcm},
  };
  // clang-format on
  return table;
}

const std::vector<IntrinsicFunction>& intrinsic_functions() {
  static const std::vector<IntrinsicFunction> table = {
      {kIsNullptr, {DataType::boolean(), {kHandle}}, false},
      // Returns from the generated function with the runtime's recorded error.
      {kThrowLastError, {kI32, {}}, true},
      // A handle plus a byte offset: plan-vtcm's buffers inside the function's VTCM arena.
      {kHandleAdd, {kHandle, {kHandle, kI32}}, false},
      // prefetch(data, byte offset, width bytes, height, stride bytes): a hint that the box of
      // `height` rows of `width` bytes, `stride` bytes apart, will be read soon (the prefetch
      // schedule primitive). Changes no value; 0.
      {kPrefetch, {kI32, {kHandle, kI32, kI32, kI32, kI32}}, true},
      // No memory access moves across it, and none shares a Hexagon packet with one on the
      // other side: plan-vtcm puts it where a buffer starts in bytes an earlier one used. 0.
      {kMemoryBarrier, {kI32, {}}, true},
      // The address of the module's read-only constant tensor INDEX (a graph's `const`).
      {kConstantData, {kHandle, {kI32}}, false},
      // The checked packed entry's vocabulary (make-packed-api; only inside a packed_func).
      {kArgData, {kHandle, {kHandle, kI32}}, false},
      {kArgShape, {kHandle, {kHandle, kI32}}, false},
      {kArgNdim, {kI32, {kHandle, kI32}}, false},
      {kArgTypeCode, {kI32, {kHandle, kI32}}, false},
      {kArgBits, {kI32, {kHandle, kI32}}, false},
      {kArgExtent, {DataType::i64(), {kHandle, kI32, kI32}}, false},
      // Whether the address is a multiple of the (power of two) alignment.
      {kIsAligned, {DataType::boolean(), {kHandle, kI32}}, false},
      // The wrapped kernel's dspc_func_desc (name and parameter descriptors).
      {kFuncDesc, {kHandle, {}}, false},
      // Calls the wrapped kernel with these data pointers and, last, the context; its status.
      {kCallKernel, {kI32, {}, kHandle}, true},
      // Returns the value from the packed entry.
      {kReturn, {kI32, {kI32}}, true},
  };
  return table;
}

const ExternFunction* find_extern(const std::string& name) {
  for (const ExternFunction& f : extern_functions())
    if (name == f.name) return &f;
  return nullptr;
}

const IntrinsicFunction* find_intrinsic(const std::string& name) {
  for (const IntrinsicFunction& f : intrinsic_functions())
    if (name == f.name) return &f;
  return nullptr;
}

std::optional<CalleeSignature> lookup_extern(const std::string& name) {
  const ExternFunction* f = find_extern(name);
  if (!f) return std::nullopt;
  return f->signature;
}

std::optional<CalleeSignature> lookup_intrinsic(const std::string& name) {
  const IntrinsicFunction* f = find_intrinsic(name);
  if (!f) return std::nullopt;
  return f->signature;
}

const ExternFunction& pool_allocator(AllocPool pool) {
  for (const ExternFunction& f : extern_functions())
    if (f.role == ExternRole::Allocate && f.pool == pool) return f;
  throw IRError("no allocator for a runtime memory pool");
}

const ExternFunction* called_allocator(const Expr& e) {
  const auto* call = e.as<Call>();
  if (!call || call->call_kind != CallKind::Extern) return nullptr;
  const ExternFunction* f = find_extern(call->name);
  return f && f->role == ExternRole::Allocate ? f : nullptr;
}

bool is_free_function(const std::string& name) {
  const ExternFunction* f = find_extern(name);
  return f && f->role == ExternRole::Free;
}

bool call_has_side_effects(CallKind kind, const std::string& name) {
  if (kind != CallKind::Intrinsic) return true;
  const IntrinsicFunction* f = find_intrinsic(name);
  return !f || f->has_side_effects;
}

}  // namespace dspc
