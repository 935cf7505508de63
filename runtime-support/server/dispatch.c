/* See dispatch.h: the server's request handling (every operation of
 * runtime-support/common/protocol.h), apart from its wait loop and start-up in server.c. */
#include "dispatch.h"

#include "dspc_runtime.h"
#include "elf_loader.h"
#include "heap.h"
#include "runtime-support/common/protocol.h"
#include "runtime-support/common/text.h"

void* dspc_server_resolve(const char* name);

enum { kMaxModules = 16, kMaxVtcmBlocks = 256 };

static char* arena;
static dspc_proto_control* ctl;
static uint8_t request[DSPC_PROTO_SLOT_BYTES] __attribute__((aligned(8)));
static uint8_t reply[DSPC_PROTO_SLOT_BYTES] __attribute__((aligned(8)));
static uint32_t request_bytes; /* the request's length */
static uint32_t payload_bytes; /* of the reply being built */

static struct {
  dspc_module_image image;
  uint32_t generation;
  int used;
} modules[kMaxModules];
static uint32_t next_generation = 1;
static uint64_t vtcm_blocks[kMaxVtcmBlocks]; /* arena offsets of the host's VTCM allocations */
static uint32_t num_vtcm_blocks;

/* ---- replies ------------------------------------------------------------------------------- */

static dspc_proto_reply* reply_header(void) {
  return (dspc_proto_reply*)reply;
}

static void put(const void* p, uint32_t n) {
  uint32_t room = DSPC_PROTO_SLOT_BYTES - DSPC_PROTO_MAX_ERROR - sizeof(dspc_proto_reply);
  if (payload_bytes + n > room) return; /* cannot happen: payloads are bounded */
  __builtin_memcpy(reply + sizeof(dspc_proto_reply) + payload_bytes, p, n);
  payload_bytes += n;
}

/* Sets the reply's status; the error text is the given one, or the device's last error. */
static int32_t status_with(int32_t status, const char* text) {
  dspc_proto_reply* r = reply_header();
  r->status = status;
  if (!text) text = status ? dspc_get_last_error(dspc_context_default()) : "";
  uint32_t n = 0;
  while (text[n] && n < DSPC_PROTO_MAX_ERROR) n++;
  __builtin_memcpy(reply + sizeof(dspc_proto_reply) + payload_bytes, text, n);
  r->error_bytes = n;
  return status;
}

static int32_t malformed(const char* a, uint64_t n, const char* b) {
  char msg[200];
  dspc_text t;
  dspc_text_init(&t, msg, sizeof msg);
  dspc_text_str(&t, "malformed request: ");
  dspc_text_str(&t, a);
  if (b) {
    dspc_text_u64(&t, n);
    dspc_text_str(&t, b);
  }
  return status_with(DSPC_PROTO_MALFORMED, msg);
}

/* ---- request fields ------------------------------------------------------------------------ */

/* The payload, if the request holds at least n bytes of it. */
static const void* payload(uint32_t n) {
  if (request_bytes - sizeof(dspc_proto_request) < n) return 0;
  return request + sizeof(dspc_proto_request);
}

/* 1 if [offset, offset + n) lies in the VTCM region or the heap region. */
static int in_device_memory(uint64_t offset, uint64_t n) {
  const uint64_t base[2] = {ctl->vtcm_offset, ctl->heap_offset};
  const uint64_t size[2] = {ctl->vtcm_bytes, ctl->heap_bytes};
  for (int i = 0; i < 2; i++)
    if (offset >= base[i] && n <= size[i] && offset - base[i] <= size[i] - n) return 1;
  return 0;
}

static dspc_module_image* module_of(uint32_t handle) {
  uint32_t slot = handle % kMaxModules;
  if (!modules[slot].used || modules[slot].generation != handle / kMaxModules) return 0;
  return &modules[slot].image;
}

/* ---- operations ---------------------------------------------------------------------------- */

static int32_t op_hello(void) {
  const uint32_t* v = (const uint32_t*)payload(4);
  if (!v) return malformed("HELLO needs a version", 0, 0);
  if (*v != DSPC_PROTO_VERSION) {
    char msg[96];
    dspc_text t;
    dspc_text_init(&t, msg, sizeof msg);
    dspc_text_str(&t, "protocol version mismatch: host ");
    dspc_text_u64(&t, *v);
    dspc_text_str(&t, ", device server ");
    dspc_text_u64(&t, DSPC_PROTO_VERSION);
    return status_with(DSPC_PROTO_MALFORMED, msg);
  }
  uint32_t out[2] = {DSPC_PROTO_VERSION, 0};
  put(out, sizeof out);
  put(&ctl->vtcm_bytes, 8);
  put(&ctl->heap_bytes, 8);
  return status_with(DSPC_PROTO_OK, 0);
}

static int32_t op_close(void) {
  for (uint32_t i = 0; i < num_vtcm_blocks; i++) HexagonBackendFreeVTCM(arena + vtcm_blocks[i], dspc_context_default());
  num_vtcm_blocks = 0;
  dspc_heap_reset();
  for (int i = 0; i < kMaxModules; i++) {
    if (modules[i].used) dspc_elf_unload(&modules[i].image);
    modules[i].used = 0;
  }
  return status_with(DSPC_PROTO_OK, 0);
}

static int32_t op_alloc(void) {
  const dspc_proto_alloc* a = (const dspc_proto_alloc*)payload(sizeof(dspc_proto_alloc));
  if (!a) return malformed("truncated ALLOC", 0, 0);
  uint64_t offset;
  if (a->kind == DSPC_MEM_GLOBAL) {
    if (dspc_heap_alloc(a->nbytes, a->align, &offset)) return status_with(DSPC_PROTO_NO_MEMORY, 0);
  } else if (a->kind == DSPC_MEM_VTCM) {
    if (a->nbytes > 0xffffffffu) {
      dspc_set_last_error("VTCM allocation larger than 4 GiB", dspc_context_default());
      return status_with(DSPC_PROTO_NO_MEMORY, 0);
    }
    if (num_vtcm_blocks == kMaxVtcmBlocks) {
      dspc_set_last_error("VTCM allocation failed: too many VTCM buffers", dspc_context_default());
      return status_with(DSPC_PROTO_NO_MEMORY, 0);
    }
    char* p = (char*)HexagonBackendAllocateVTCM((uint32_t)a->nbytes, a->align ? a->align : 128, dspc_context_default());
    if (!p) return status_with(DSPC_PROTO_NO_MEMORY, 0);
    offset = (uint64_t)(p - arena);
    vtcm_blocks[num_vtcm_blocks++] = offset;
  } else {
    return malformed("unknown memory kind ", a->kind, "");
  }
  put(&offset, 8);
  return status_with(DSPC_PROTO_OK, 0);
}

static int32_t op_free(void) {
  const uint64_t* o = (const uint64_t*)payload(8);
  if (!o) return malformed("truncated FREE", 0, 0);
  for (uint32_t i = 0; i < num_vtcm_blocks; i++) {
    if (vtcm_blocks[i] != *o) continue;
    HexagonBackendFreeVTCM(arena + *o, dspc_context_default());
    vtcm_blocks[i] = vtcm_blocks[--num_vtcm_blocks];
    return status_with(DSPC_PROTO_OK, 0);
  }
  if (dspc_heap_free(*o)) return status_with(DSPC_PROTO_BAD_HANDLE, 0);
  return status_with(DSPC_PROTO_OK, 0);
}

static int32_t op_load(void) {
  const dspc_proto_load* l = (const dspc_proto_load*)payload(sizeof(dspc_proto_load));
  if (!l) return malformed("truncated LOAD", 0, 0);
  if (!in_device_memory(l->offset, l->nbytes))
    return malformed("LOAD's bytes lie outside device memory", 0, 0);
  int slot = -1;
  for (int i = 0; i < kMaxModules && slot < 0; i++)
    if (!modules[i].used) slot = i;
  if (slot < 0) return status_with(DSPC_PROTO_LOAD_FAILED, "too many modules loaded (16)");
  if (dspc_elf_load((const uint8_t*)arena + l->offset, l->nbytes, dspc_server_resolve, &modules[slot].image))
    return status_with(DSPC_PROTO_LOAD_FAILED, 0);
  modules[slot].used = 1;
  modules[slot].generation = next_generation++;
  uint32_t handle = modules[slot].generation * kMaxModules + (uint32_t)slot;
  put(&handle, 4);
  return status_with(DSPC_PROTO_OK, 0);
}

static int32_t op_unload(void) {
  const uint32_t* h = (const uint32_t*)payload(4);
  if (!h) return malformed("truncated UNLOAD", 0, 0);
  dspc_module_image* m = module_of(*h);
  if (!m) return status_with(DSPC_PROTO_BAD_HANDLE, "unload: no such module");
  dspc_elf_unload(m);
  modules[*h % kMaxModules].used = 0;
  return status_with(DSPC_PROTO_OK, 0);
}

/* The function behind a handle: module handle * 4096 + index. */
static const dspc_func_desc* function_of(uint32_t handle, dspc_module_image** module) {
  dspc_module_image* m = module_of(handle / 4096);
  if (!m || handle % 4096 >= m->num_funcs) return 0;
  if (module) *module = m;
  return &m->funcs[handle % 4096];
}

static int32_t op_lookup(void) {
  const uint32_t* h = (const uint32_t*)payload(8);
  if (!h) return malformed("truncated LOOKUP", 0, 0);
  uint32_t name_bytes = h[1];
  if (name_bytes > DSPC_PROTO_MAX_NAME || !payload(8 + name_bytes))
    return malformed("LOOKUP's name runs past the message", 0, 0);
  char name[DSPC_PROTO_MAX_NAME + 1];
  __builtin_memcpy(name, h + 2, name_bytes);
  name[name_bytes] = 0;
  dspc_module_image* m = module_of(h[0]);
  if (!m) return status_with(DSPC_PROTO_BAD_HANDLE, "lookup: no such module");
  if (m->num_funcs >= 4096) return status_with(DSPC_PROTO_BAD_HANDLE, "lookup: too many functions");
  for (uint32_t i = 0; i < m->num_funcs; i++) {
    const dspc_func_desc* f = &m->funcs[i];
    if (!dspc_image_has_string(m, f->name) || !dspc_str_eq(f->name, name)) continue;
    if (f->num_params > DSPC_PROTO_MAX_ARGS)
      return status_with(DSPC_PROTO_BAD_HANDLE,
                         "the function has more than 64 parameters, the most a call through a session passes");
    if (f->num_params && !dspc_image_contains(m, f->params, f->num_params * sizeof(dspc_param_desc)))
      return status_with(DSPC_PROTO_BAD_HANDLE, "lookup: the function's parameter table is broken");
    dspc_proto_lookup_reply out = {h[0] * 4096 + i, f->num_params};
    put(&out, sizeof out);
    for (uint32_t k = 0; k < f->num_params; k++) {
      const dspc_param_desc* p = &f->params[k];
      dspc_proto_param q = {{0}, p->type_code, p->bits, p->is_output, p->ndim, 0, {0}};
      if (p->ndim > DSPC_PROTO_MAX_NDIM || !dspc_image_contains(m, p->shape, p->ndim * 8u))
        return status_with(DSPC_PROTO_BAD_HANDLE, "lookup: a parameter's shape is broken");
      for (uint32_t d = 0; d < p->ndim; d++) q.shape[d] = p->shape[d];
      for (uint32_t c = 0; c + 1 < sizeof q.name && dspc_image_has_string(m, p->name) && p->name[c]; c++)
        q.name[c] = p->name[c];
      put(&q, sizeof q);
    }
    return status_with(DSPC_PROTO_OK, 0);
  }
  char msg[DSPC_PROTO_MAX_NAME + 64];
  dspc_text t;
  dspc_text_init(&t, msg, sizeof msg);
  dspc_text_str(&t, "no function '");
  dspc_text_str(&t, name);
  dspc_text_str(&t, "' in the module");
  return status_with(DSPC_PROTO_NOT_FOUND, msg);
}

/* For a table without checked entries: the count, dtypes and shapes against the parameters. */
static int32_t call_unchecked(const dspc_func_desc* f, dspc_module_image* m, const dspc_arg* a, uint32_t n) {
  if (n != f->num_params || (n && !dspc_image_contains(m, f->params, n * sizeof(dspc_param_desc)))) {
    dspc_set_last_error("wrong number of arguments", dspc_context_default());
    return DSPC_ERR_BAD_ARGUMENT;
  }
  void* data[DSPC_PROTO_MAX_ARGS];
  for (uint32_t i = 0; i < n; i++) {
    const dspc_param_desc* p = &f->params[i];
    int same = p->type_code == a[i].type_code && p->bits == a[i].bits && p->ndim == (uint32_t)a[i].ndim &&
               dspc_image_contains(m, p->shape, p->ndim * 8u);
    for (uint32_t d = 0; same && d < p->ndim; d++) same = p->shape[d] == a[i].shape[d];
    if (!same) {
      dspc_set_last_error("argument does not match the parameter's dtype and shape", dspc_context_default());
      return DSPC_ERR_BAD_ARGUMENT;
    }
    data[i] = a[i].data;
  }
  return f->packed(data, dspc_context_default());
}

/* Checks the call at `c` (with `avail` bytes from there) and runs it. Returns DSPC_PROTO_OK with
 * the kernel's status in *status and the call's size in *used, or a malformed reply. */
static int32_t run_call(const dspc_proto_call* c, uint32_t avail, uint32_t* used, int32_t* status) {
  if (avail < sizeof(dspc_proto_call)) return malformed("truncated CALL", 0, 0);
  if (c->num_args > DSPC_PROTO_MAX_ARGS)
    return malformed("CALL with ", c->num_args, " arguments (at most 64)");
  uint32_t need = sizeof(dspc_proto_call) + c->num_args * (uint32_t)sizeof(dspc_proto_arg);
  if (avail < need) return malformed("truncated CALL: its arguments need ", need, " bytes");
  *used = need;
  static dspc_arg args[DSPC_PROTO_MAX_ARGS];
  static int64_t shapes[DSPC_PROTO_MAX_ARGS][DSPC_PROTO_MAX_NDIM];
  const dspc_proto_arg* in = (const dspc_proto_arg*)(c + 1);
  for (uint32_t i = 0; i < c->num_args; i++) {
    if (in[i].ndim > DSPC_PROTO_MAX_NDIM) return malformed("argument with rank ", in[i].ndim, "");
    if (in[i].bits != 8 && in[i].bits != 16 && in[i].bits != 32 && in[i].bits != 64)
      return malformed("argument with ", in[i].bits, " bits per element");
    uint64_t bytes = in[i].bits / 8;
    for (uint32_t d = 0; d < in[i].ndim; d++) {
      int64_t e = in[i].shape[d];
      /* An overflow check, not a 64-bit division (hundreds of packets on Hexagon, per call). */
      if (e < 0 || __builtin_mul_overflow(bytes, (uint64_t)e, &bytes) || bytes > ((uint64_t)1 << 40))
        return malformed("argument extent ", (uint64_t)e, "");
      shapes[i][d] = e;
    }
    if (!in_device_memory(in[i].offset, bytes))
      return malformed("argument ", i, "'s data lies outside device memory");
    args[i] = (dspc_arg){arena + in[i].offset, shapes[i],  (int32_t)in[i].ndim,
                         in[i].type_code,      in[i].bits, in[i].flags};
  }
  dspc_module_image* m = 0;
  const dspc_func_desc* f = function_of(c->function, &m);
  if (!f) return status_with(DSPC_PROTO_BAD_HANDLE, "call: no such function (was its module unloaded?)");
  dspc_set_last_error("", dspc_context_default());
  *status = f->call ? f->call(args, (int32_t)c->num_args, dspc_context_default()) : call_unchecked(f, m, args, c->num_args);
  return DSPC_PROTO_OK;
}

/* The reply to a call that returned `status`: OK, with the device's message if it failed. */
static int32_t call_result(int32_t status) {
  if (status == 0) return status_with(DSPC_PROTO_OK, 0);
  if (dspc_get_last_error(dspc_context_default())[0]) return status_with(DSPC_PROTO_OK, dspc_get_last_error(dspc_context_default()));
  char msg[96];
  dspc_text t;
  dspc_text_init(&t, msg, sizeof msg);
  dspc_text_str(&t, "kernel failed with status ");
  dspc_text_i64(&t, status);
  return status_with(DSPC_PROTO_OK, msg);
}

static int32_t op_call(void) {
  uint32_t avail = request_bytes - (uint32_t)sizeof(dspc_proto_request), used = 0;
  int32_t status = 0;
  int32_t r = run_call((const dspc_proto_call*)(request + sizeof(dspc_proto_request)), avail, &used, &status);
  if (r != DSPC_PROTO_OK) return r;
  put(&status, 4);
  return call_result(status);
}

/* CALL_BATCH: the calls in order, up to the first that fails. */
static int32_t op_call_batch(void) {
  const dspc_proto_call_batch* b = (const dspc_proto_call_batch*)payload(sizeof(dspc_proto_call_batch));
  if (!b) return malformed("truncated CALL_BATCH", 0, 0);
  uint32_t at = (uint32_t)(sizeof(dspc_proto_request) + sizeof(dspc_proto_call_batch));
  for (uint32_t i = 0; i < b->num_calls; i++) {
    uint32_t used = 0;
    int32_t status = 0;
    /* Calls start 8-byte aligned: each is 8 bytes plus 80 per argument. */
    int32_t r = run_call((const dspc_proto_call*)(request + at), request_bytes - at, &used, &status);
    if (r != DSPC_PROTO_OK) return r;
    at += used;
    if (status != 0) {
      dspc_proto_call_batch_reply out = {i, status};
      put(&out, sizeof out);
      return call_result(status);
    }
  }
  dspc_proto_call_batch_reply out = {b->num_calls, 0};
  put(&out, sizeof out);
  return status_with(DSPC_PROTO_OK, 0);
}

static int32_t op_sync_copy(void) {
  const uint64_t* r = (const uint64_t*)payload(16);
  if (!r) return malformed("truncated SYNC_COPY", 0, 0);
  if (!in_device_memory(r[0], r[1])) return malformed("SYNC_COPY's range lies outside device memory", 0, 0);
  return status_with(DSPC_PROTO_OK, 0);
}

/* Checks the header and dispatches. The request is already copied out of the shared slot. */
static int32_t dispatch(uint32_t seq) {
  const dspc_proto_request* q = (const dspc_proto_request*)request;
  if (q->magic != DSPC_PROTO_REQUEST_MAGIC) return malformed("bad magic", 0, 0);
  if (q->version != DSPC_PROTO_VERSION) return malformed("protocol version ", q->version, ", expected 1");
  if (q->length < sizeof(dspc_proto_request) || q->length > DSPC_PROTO_SLOT_BYTES)
    return malformed("length ", q->length, " outside [16, 32000]");
  if (q->seq != seq) return malformed("sequence number ", q->seq, " out of order");
  request_bytes = q->length;
  switch (q->op) {
    case DSPC_OP_HELLO: return op_hello();
    case DSPC_OP_CLOSE: return op_close();
    case DSPC_OP_ALLOC: return op_alloc();
    case DSPC_OP_FREE: return op_free();
    case DSPC_OP_LOAD: return op_load();
    case DSPC_OP_UNLOAD: return op_unload();
    case DSPC_OP_LOOKUP: return op_lookup();
    case DSPC_OP_CALL: return op_call();
    case DSPC_OP_CALL_BATCH: return op_call_batch();
    case DSPC_OP_LAST_ERROR: return status_with(DSPC_PROTO_OK, dspc_get_last_error(dspc_context_default()));
    case DSPC_OP_SHUTDOWN: return status_with(DSPC_PROTO_OK, 0);
    case DSPC_OP_SYNC_COPY: return op_sync_copy();
    case DSPC_OP_TEST_BAD_REPLY: return status_with(DSPC_PROTO_OK, 0);
    default: return malformed("unknown operation ", q->op, "");
  }
}

void dspc_server_attach(char* arena_memory) {
  arena = arena_memory;
  ctl = (dspc_proto_control*)arena;
}

int dspc_server_handle(uint32_t seq) {
  const dspc_proto_request* shared = (const dspc_proto_request*)(arena + DSPC_PROTO_REQUEST_OFFSET);
  uint32_t claimed = shared->length; /* read once: the host could be rewriting it */
  uint32_t n = claimed > DSPC_PROTO_SLOT_BYTES ? DSPC_PROTO_SLOT_BYTES : claimed;
  __builtin_memcpy(request, shared, n < sizeof(dspc_proto_request) ? sizeof(dspc_proto_request) : n);
  ((dspc_proto_request*)request)->length = claimed;
  payload_bytes = 0;
  dspc_proto_reply* r = reply_header();
  __builtin_memset(r, 0, sizeof *r);
  dispatch(seq);
  const dspc_proto_request* q = (const dspc_proto_request*)request;
  r->magic = DSPC_PROTO_REPLY_MAGIC;
  r->version = DSPC_PROTO_VERSION;
  r->op = q->op;
  r->seq = seq;
  r->payload_bytes = payload_bytes;
  r->length = (uint32_t)sizeof *r + payload_bytes + r->error_bytes;
  int shutdown =
      q->magic == DSPC_PROTO_REQUEST_MAGIC && q->op == DSPC_OP_SHUTDOWN && r->status == 0 && q->seq == seq;
  if (q->op == DSPC_OP_TEST_BAD_REPLY && r->status == 0 && payload(4)) {
    uint32_t mode = *(const uint32_t*)payload(4);
    if (mode == DSPC_PROTO_BAD_MAGIC) r->magic = 0xdeadbeef;
    if (mode == DSPC_PROTO_BAD_LENGTH) r->length = DSPC_PROTO_SLOT_BYTES + 4096, r->error_bytes = 5000;
    if (mode == DSPC_PROTO_BAD_SEQ) r->seq = seq + 7;
  }
  __builtin_memcpy(arena + DSPC_PROTO_REPLY_OFFSET, reply,
                   r->length <= DSPC_PROTO_SLOT_BYTES ? r->length : sizeof *r);
  return shutdown;
}
