// lower-workspace-alloc
//  1. Pick every Allocate with scope "global" larger than target.max_stack_alloc bytes;
//     allocate it with DspcWorkspaceAlloc(bytes, target.alloc_alignment) and free it with
//     DspcWorkspaceFree.
//  2. RuntimeAllocLowering does the rewrite, and rebuilds the failure paths lower-vtcm-alloc
//     made inside such an allocation so that they free the workspace too.
#include "passes/LowerWorkspaceAlloc.h"

#include "compiler/ir/Externs.h"
#include "passes/support/RuntimeAllocLowering.h"

namespace dspc {

namespace {

class WorkspaceAllocLowering : public RuntimeAllocLowering {
 public:
  WorkspaceAllocLowering(int64_t max_stack_alloc, int alignment)
      : max_stack_alloc_(max_stack_alloc), workspace_{&pool_allocator(AllocPool::Workspace), alignment} {}

  const RuntimeAllocator* allocator_for(const Buffer& b) const override {
    return b->scope == StorageScope::Global && b->size_bytes() > max_stack_alloc_ ? &workspace_ : nullptr;
  }

 private:
  int64_t max_stack_alloc_;
  RuntimeAllocator workspace_;
};

}  // namespace

Module lower_workspace_alloc(const Module& m, const LowerOptions& options) {
  return mutate_module<WorkspaceAllocLowering>(m, options.target.max_stack_alloc,
                                               options.target.alloc_alignment);
}

}  // namespace dspc
