/* Releasing a device context (dspc_context_release in dspc_runtime.h): what the VTCM pool and
 * the workspace hold for it, then its last error. The one file of the device runtime that calls
 * the pool and the workspace; they call only context.c, so the runtime's calls have no cycle
 * (the test runtime/device-call-graph checks it on the archives). */
#include "dspc_runtime.h"

/* Weak: a program that never links the pool or the workspace has nothing of theirs to release. */
__attribute__((weak)) void dspc_vtcm_release_pool(dspc_context* ctx);
__attribute__((weak)) void dspc_workspace_release(dspc_context* ctx);

void dspc_context_release(dspc_context* ctx) {
  if (!ctx) ctx = dspc_context_default();
  if (dspc_workspace_release) dspc_workspace_release(ctx);
  if (dspc_vtcm_release_pool) dspc_vtcm_release_pool(ctx);
  ctx->last_error[0] = 0;
}

