/* The device context (dspc_runtime.h): setting one up, the process's default context, and the
 * last error, a message in the context set by the runtime and by generated code's callees and
 * read by the caller after a non-zero return. Each context has its own, so threads with their
 * own contexts never see each other's messages. The VTCM pool, the workspace and the runner
 * call into this file, and it calls none of them: releasing a context, which does, is
 * context_release.c. */
#include "dspc_runtime.h"
#include "runtime-support/common/text.h"

#ifndef DSPC_VTCM_DEFAULT_CAPACITY
#error "DSPC_VTCM_DEFAULT_CAPACITY must be defined by the build (bytes)"
#endif

void dspc_context_init(dspc_context* ctx) {
  char* bytes = (char*)ctx;
  for (uint32_t i = 0; i < sizeof *ctx; i++) bytes[i] = 0;
  ctx->vtcm.capacity = DSPC_VTCM_DEFAULT_CAPACITY;
}

/* Statically initialised (zero, then the capacity), so it needs no start-up and no lock. */
static dspc_context default_context = {.vtcm = {.capacity = DSPC_VTCM_DEFAULT_CAPACITY}};

dspc_context* dspc_context_default(void) {
  return &default_context;
}

void dspc_set_last_error(const char* msg, dspc_context* ctx) {
  if (!ctx) ctx = dspc_context_default();
  if (msg == ctx->last_error) return; /* re-setting the current message */
  dspc_text t;
  dspc_text_init(&t, ctx->last_error, sizeof ctx->last_error);
  if (msg) dspc_text_str(&t, msg);
}

const char* dspc_get_last_error(dspc_context* ctx) {
  if (!ctx) ctx = dspc_context_default();
  return ctx->last_error;
}
