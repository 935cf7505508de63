/* Workspace: large compiler temporaries that do not fit on the stack.
 *
 * Each allocation is its own anonymous mapping (zero-filled, page-aligned, returned to the
 * system on free), which keeps this simple and makes use-after-free fault rather than
 * corrupt. Bookkeeping sits in a record at the start of the mapping, before the aligned
 * block, and the live records form a list: a free walks the list and compares addresses,
 * so an unknown pointer is reported, never dereferenced. */
#include "dspc_runtime.h"
#include "platform.h"
#include "runtime-support/common/text.h"

#define DSPC_WORKSPACE_DEFAULT_ALIGN 128u

/* The live list is the context's (ctx->workspace). */
struct dspc_workspace_mapping {
  struct dspc_workspace_mapping* next;
  char* block;
  size_t mapped_bytes;
};
typedef struct dspc_workspace_mapping Mapping;

static void* fail(uint32_t nbytes, const char* reason, dspc_context* ctx) {
  char msg[160];
  dspc_text t;
  dspc_text_init(&t, msg, sizeof msg);
  dspc_text_str(&t, "workspace allocation of ");
  dspc_text_u64(&t, nbytes);
  dspc_text_str(&t, " bytes failed: ");
  dspc_text_str(&t, reason);
  dspc_set_last_error(msg, ctx);
  return NULL;
}

void* DspcWorkspaceAlloc(uint32_t nbytes, uint32_t align, dspc_context* ctx) {
  if (!ctx) ctx = dspc_context_default();
  if (align == 0) align = DSPC_WORKSPACE_DEFAULT_ALIGN;
  if (align & (align - 1)) return fail(nbytes, "alignment is not a power of two", ctx);
  if (align < sizeof(Mapping)) align = sizeof(Mapping);
  /* Room for the record, then enough slack to reach the next multiple of align. */
  uint64_t total = (uint64_t)sizeof(Mapping) + (align - 1) + (nbytes ? nbytes : 1);
  if (total > (uint64_t)(SIZE_MAX / 2)) return fail(nbytes, "too large", ctx);
  char* start = (char*)dspc_platform_map((size_t)total);
  if (!start) return fail(nbytes, "out of memory", ctx);
  uintptr_t first = (uintptr_t)start + sizeof(Mapping);
  char* block = (char*)((first + (align - 1)) & ~(uintptr_t)(align - 1));
  Mapping* m = (Mapping*)start;
  m->next = ctx->workspace;
  m->block = block;
  m->mapped_bytes = (size_t)total;
  ctx->workspace = m;
  return block;
}

int DspcWorkspaceFree(void* ptr, dspc_context* ctx) {
  if (!ctx) ctx = dspc_context_default();
  for (Mapping** link = &ctx->workspace; *link; link = &(*link)->next) {
    Mapping* m = *link;
    if (m->block != (char*)ptr) continue;
    *link = m->next;
    dspc_platform_unmap(m, m->mapped_bytes);
    return 0;
  }
  char msg[128];
  dspc_text t;
  dspc_text_init(&t, msg, sizeof msg);
  dspc_text_str(&t, "workspace free of ");
  dspc_text_hex(&t, (uint64_t)(uintptr_t)ptr);
  dspc_text_str(&t, " failed: not a workspace allocation");
  dspc_set_last_error(msg, ctx);
  return -1;
}

/* Unmaps every live workspace allocation of ctx (dspc_context_release). */
void dspc_workspace_release(dspc_context* ctx) {
  while (ctx->workspace) {
    Mapping* m = ctx->workspace;
    ctx->workspace = m->next;
    dspc_platform_unmap(m, m->mapped_bytes);
  }
}
