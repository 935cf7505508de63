/* dspc runtime-support: the C interface between generated code, the runner and the platform.
 *
 * Generated kernels call only the functions declared here. The symbols are defined in
 * runtime-support (libdspc_rt.a), never in generated objects: a kernel object lists them as
 * undefined, and linking against runtime-support resolves them. */
#ifndef DSPC_RUNTIME_H
#define DSPC_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The headers `dspc --emit=header` writes repeat this block under the same guard, so either
 * may be included first. Keep the two identical (codegen/Header.cpp). */
#ifndef DSPC_ARG_DEFINED
#define DSPC_ARG_DEFINED
typedef struct dspc_context dspc_context;

typedef struct {
  void* data;
  const int64_t* shape; /* ndim extents, row-major */
  int32_t ndim;
  uint8_t type_code;    /* DSPC_TYPE_* */
  uint8_t bits;
  uint16_t flags;       /* 0 */
} dspc_arg;
#endif

/* ---- the device context (the explicit resource handle) ------------------------------------
 * Every function dspc generates takes a `dspc_context*` as its final parameter, and every
 * runtime function below that generated code calls takes it as its final argument too. The
 * context holds all the mutable state the runtime keeps for a caller: the VTCM pool, the live
 * workspace allocations and the last error. Generated code and the runtime read no global
 * state, so two contexts (two sessions, two threads, two pools) never interfere: each thread
 * that calls kernels at the same time as another uses its own context.
 *
 * The struct is public so that a caller can place it anywhere (static, stack, heap); treat its
 * fields as private. Set it up with dspc_context_init and release it with
 * dspc_context_release. A NULL context means dspc_context_default(), the process's own
 * context, which a simple single-threaded C program can use throughout. */
enum { DSPC_VTCM_MAX_BLOCKS = 256, DSPC_LAST_ERROR_CAPACITY = 512 };

typedef struct {
  uint32_t offset;
  uint32_t size;
  uint32_t requested; /* bytes asked for; bytes_in_use counts these */
  uint8_t used;
} dspc_vtcm_block;

typedef struct dspc_workspace_mapping dspc_workspace_mapping;

struct dspc_context {
  struct {
    dspc_vtcm_block blocks[DSPC_VTCM_MAX_BLOCKS];
    uint32_t num_blocks; /* 0 until the backing memory exists */
    uint32_t capacity;
    uint32_t bytes_in_use;
    uint32_t blocks_in_use;
    char* base;    /* the pool's first byte, 64 KiB aligned */
    char* mapping; /* what the pool mapped itself, NULL for caller-owned memory */
    uint64_t mapped_bytes;
  } vtcm;
  dspc_workspace_mapping* workspace; /* live workspace allocations */
  char last_error[DSPC_LAST_ERROR_CAPACITY];
};

/* Sets up `ctx` as an empty context: a VTCM pool of the target's default capacity
 * (DSPC_VTCM_DEFAULT_CAPACITY; change it with dspc_vtcm_set_capacity), mapped lazily at the
 * first allocation, no workspace, no error. */
void dspc_context_init(dspc_context* ctx);
/* Returns every VTCM and workspace block still allocated and unmaps the pool's own backing
 * memory; `ctx` is empty afterwards (as after dspc_context_init, capacity kept). */
void dspc_context_release(dspc_context* ctx);
/* The process's default context, ready to use (what a NULL context means). */
dspc_context* dspc_context_default(void);

/* ---- VTCM (the VTCM contract in docs/design.md) ---------------------------------------------- */

/* Allocates nbytes from ctx's VTCM pool aligned to align (a power of two; 0 means the target's
 * default, DSPC_VTCM_DEFAULT_ALIGN, the vtcm_alignment of targets/Targets.def: 2048).
 * Best fit. On failure returns NULL and sets ctx's last error to
 * "VTCM allocation of N bytes failed: ...". */
void* HexagonBackendAllocateVTCM(uint32_t nbytes, uint32_t align, dspc_context* ctx);
/* Returns a block to ctx's pool, coalescing with free neighbours. 0 on success, non-zero (and
 * a last error) for a pointer that pool did not hand out. */
int HexagonBackendFreeVTCM(void* ptr, dspc_context* ctx);

/* Pool capacity in bytes. Set before the first allocation (the runner does it from
 * --vtcm-capacity); the default is the target's capacity, DSPC_VTCM_DEFAULT_CAPACITY. */
int dspc_vtcm_set_capacity(uint32_t nbytes, dspc_context* ctx);
uint32_t dspc_vtcm_capacity(dspc_context* ctx);
/* Serves the pool from caller-owned memory (64 KiB aligned, nbytes long) instead of a lazy
 * anonymous mapping: the device server puts VTCM in the arena it shares with the host, so the
 * host copies in and out with memcpy. Like dspc_vtcm_set_capacity, only when no block is
 * allocated; 0 on success, -1 with a last error otherwise. Never unmapped by the pool. */
int dspc_vtcm_use_memory(void* memory, uint32_t nbytes, dspc_context* ctx);
uint32_t dspc_vtcm_bytes_in_use(dspc_context* ctx);
/* Added for tests and diagnostics: the largest free block, and the number of blocks (free
 * and in use) the pool's table holds (1 when empty: everything is one free block). */
uint32_t dspc_vtcm_largest_free_block(dspc_context* ctx);
uint32_t dspc_vtcm_num_blocks(dspc_context* ctx);

/* ---- workspace: large compiler temporaries that do not fit on the stack ----------------- */
void* DspcWorkspaceAlloc(uint32_t nbytes, uint32_t align, dspc_context* ctx);
int DspcWorkspaceFree(void* ptr, dspc_context* ctx);

/* ---- errors ------------------------------------------------------------------------------- */
void dspc_set_last_error(const char* msg, dspc_context* ctx);
const char* dspc_get_last_error(dspc_context* ctx); /* "" when none */

/* ---- the runner's view of a compiled module ----------------------------------------------- */

enum { DSPC_TYPE_INT = 0, DSPC_TYPE_UINT = 1, DSPC_TYPE_FLOAT = 2, DSPC_TYPE_BOOL = 3 };

typedef struct {
  const char* name;     /* parameter name, e.g. "A" */
  uint8_t type_code;    /* DSPC_TYPE_* */
  uint8_t bits;         /* 8, 16, 32, 64 (bool: 8, one byte per element) */
  uint8_t is_output;
  uint8_t ndim;
  const int64_t* shape; /* ndim extents, row-major */
} dspc_param_desc;

/* Packed entry: args[i] points at parameter i's data; ctx is passed on to the kernel. Returns
 * the kernel's status. */
typedef int32_t (*dspc_packed_fn)(void** args, dspc_context* ctx);

/* ---- the checked packed calling convention (make-packed-api) -------------------
 * Every compiled function `f` also gets `int32_t __dspc_call_f(const dspc_arg* args,
 * int32_t num_args, dspc_context* ctx)`. It checks, before it touches any data: num_args
 * against the parameter count (inputs then results, in signature order), then for each
 * argument a non-null data pointer, the data pointer's alignment (the target's allocation
 * alignment: 128 on Hexagon), type_code, bits, ndim and every extent. On a mismatch it sets the
 * last error to a message naming the function, the argument (index and name) and what was
 * expected, e.g. "f: argument 1 (B): expected shape u8[64, 128], got u8[64, 127]", and returns
 * DSPC_ERR_BAD_ARGUMENT without running the kernel. Otherwise it returns the kernel's status.
 * ctx is the explicit device context, passed on to the kernel as its final argument (NULL
 * means dspc_context_default()). */

/* What a compiled function returns: DSPC_OK, DSPC_ERR_KERNEL when the kernel itself failed (a
 * VTCM or workspace allocation, a runtime check; the message is in ctx's last error), or, from
 * the checked entry only, DSPC_ERR_BAD_ARGUMENT. */
enum { DSPC_OK = 0, DSPC_ERR_KERNEL = -1, DSPC_ERR_BAD_ARGUMENT = 2 };

typedef int32_t (*dspc_call_fn)(const dspc_arg* args, int32_t num_args, dspc_context* ctx);

typedef struct {
  const char* name;
  dspc_packed_fn packed;
  uint32_t num_params;
  const dspc_param_desc* params;
  dspc_call_fn call; /* the checked entry, __dspc_call_<name> */
} dspc_func_desc;

/* Called by a checked entry on a mismatch it found: sets the last error to the message above
 * for argument `index` of `f` (the number of arguments when index is -1), given the alignment
 * the entry checks, in ctx's last error, and returns DSPC_ERR_BAD_ARGUMENT. A generated module imports it. */
int32_t dspc_report_bad_arg(const dspc_func_desc* f, const dspc_arg* args, int32_t num_args, int32_t index,
                            int32_t align, dspc_context* ctx);

/* Emitted by dspc codegen into the kernel object when linking an executable. */
extern const dspc_func_desc __dspc_funcs[];
extern const uint32_t __dspc_num_funcs;

#ifdef __cplusplus
}
#endif

#endif
