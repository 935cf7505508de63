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

/* ---- VTCM (the VTCM contract in DESIGN.md) ---------------------------------------------- */

/* Allocates nbytes from the VTCM pool aligned to align (a power of two; 0 means the target's
 * default, DSPC_VTCM_DEFAULT_ALIGN, the vtcm_alignment of targets/Targets.def: 2048).
 * Best fit. On failure returns NULL and sets the last error to
 * "VTCM allocation of N bytes failed: ...". */
void* HexagonBackendAllocateVTCM(uint32_t nbytes, uint32_t align);
/* Returns a block to the pool, coalescing with free neighbours. 0 on success, non-zero (and
 * a last error) for a pointer the pool did not hand out. */
int HexagonBackendFreeVTCM(void* ptr);

/* Pool capacity in bytes. Set before the first allocation (the runner does it from
 * --vtcm-capacity); the default is the target's capacity, DSPC_VTCM_DEFAULT_CAPACITY. */
int dspc_vtcm_set_capacity(uint32_t nbytes);
uint32_t dspc_vtcm_capacity(void);
/* Serves the pool from caller-owned memory (64 KiB aligned, nbytes long) instead of a lazy
 * anonymous mapping: the device server puts VTCM in the arena it shares with the host, so the
 * host copies in and out with memcpy. Like dspc_vtcm_set_capacity, only when no block is
 * allocated; 0 on success, -1 with a last error otherwise. Never unmapped by the pool. */
int dspc_vtcm_use_memory(void* memory, uint32_t nbytes);
uint32_t dspc_vtcm_bytes_in_use(void);
/* Added for tests and diagnostics: the largest free block, and the number of blocks (free
 * and in use) the pool's table holds (1 when empty: everything is one free block). */
uint32_t dspc_vtcm_largest_free_block(void);
uint32_t dspc_vtcm_num_blocks(void);

/* ---- workspace: large compiler temporaries that do not fit on the stack ----------------- */
void* DspcWorkspaceAlloc(uint32_t nbytes, uint32_t align);
int DspcWorkspaceFree(void* ptr);

/* ---- errors ------------------------------------------------------------------------------- */
void dspc_set_last_error(const char* msg);
const char* dspc_get_last_error(void); /* "" when none */

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

/* Packed entry: args[i] points at parameter i's data. Returns the kernel's status. */
typedef int32_t (*dspc_packed_fn)(void** args);

/* ---- the checked packed calling convention (make-packed-api; issue #10) -------------------
 * Every compiled function `f` also gets `int32_t __dspc_call_f(const dspc_arg* args,
 * int32_t num_args, dspc_context* ctx)`. It checks, before it touches any data: num_args
 * against the parameter count (inputs then results, in signature order), then for each
 * argument a non-null data pointer, the data pointer's alignment (the target's allocation
 * alignment: 128 on Hexagon), type_code, bits, ndim and every extent. On a mismatch it sets the
 * last error to a message naming the function, the argument (index and name) and what was
 * expected, e.g. "f: argument 1 (B): expected shape u8[64, 128], got u8[64, 127]", and returns
 * DSPC_ERR_BAD_ARGUMENT without running the kernel. Otherwise it returns the kernel's status.
 * ctx is the explicit device context; NULL is accepted until the context lands (issue #9). */
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

enum { DSPC_OK = 0, DSPC_ERR_KERNEL = 1, DSPC_ERR_BAD_ARGUMENT = 2 };

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
 * the entry checks, and returns DSPC_ERR_BAD_ARGUMENT. A generated module imports it. */
int32_t dspc_report_bad_arg(const dspc_func_desc* f, const dspc_arg* args, int32_t num_args, int32_t index,
                            int32_t align);

/* Emitted by dspc codegen into the kernel object when linking an executable. */
extern const dspc_func_desc __dspc_funcs[];
extern const uint32_t __dspc_num_funcs;

#ifdef __cplusplus
}
#endif

#endif
