// lower-vtcm-alloc
//  1. Pick every Allocate with scope "local.vtcm"; allocate it with
//     HexagonBackendAllocateVTCM(bytes, options.target.vtcm_alignment) and free it with
//     HexagonBackendFreeVTCM.
//  2. RuntimeAllocLowering does the rewrite: let + null check whose failure path frees the
//     enclosing runtime allocations innermost first + decl_buffer + body + free.
#include "passes/LowerVtcmAlloc.h"

#include "compiler/ir/Externs.h"
#include "passes/support/RuntimeAllocLowering.h"

namespace dspc {

namespace {

class VtcmAllocLowering : public RuntimeAllocLowering {
 public:
  explicit VtcmAllocLowering(int alignment) : vtcm_{&pool_allocator(AllocPool::Vtcm), alignment} {}

  const RuntimeAllocator* allocator_for(const Buffer& b) const override {
    return b->scope == StorageScope::Vtcm ? &vtcm_ : nullptr;
  }

 private:
  RuntimeAllocator vtcm_;
};

}  // namespace

Module lower_vtcm_alloc(const Module& m, const LowerOptions& options) {
  return mutate_module<VtcmAllocLowering>(m, options.target.vtcm_alignment);
}

}  // namespace dspc
