/* The VTCM pool: HexagonBackendAllocateVTCM / HexagonBackendFreeVTCM (docs/design.md, "The VTCM
 * contract").
 *
 * All of the pool's state is in the caller's dspc_context (ctx->vtcm), so each context has a
 * pool of its own and nothing here is global.
 * 1. The pool is a table of blocks, sorted by offset, that tiles [0, capacity) exactly; each
 *    block is free or in use. It starts as one free block. Metadata lives in this table,
 *    never inside the pool, so blocks keep any alignment and the table cannot be corrupted
 *    by a kernel writing past its buffer.
 * 2. Allocation is best fit: the free block that leaves the least over after alignment
 *    padding, lowest address on a tie. The chosen block splits into [padding][block][rest].
 * 3. Freeing marks the block free and merges it with free neighbours, so the table never
 *    holds two adjacent free blocks; an empty pool is always one free block.
 * 4. The backing memory is mapped lazily at the first allocation (qemu has no VTCM address
 *    range; on hardware this is where the VTCM base would go) and unmapped when the capacity
 *    changes. Its base is aligned to 64 KiB, so requests aligned up to that pack exactly as
 *    offsets from 0 would (what the compile-time capacity check assumes); larger alignments
 *    still hold, since padding is computed from real addresses. */
#include "dspc_runtime.h"
#include "platform.h"
#include "runtime-support/common/text.h"

/* Both come from the target's row of targets/Targets.def. */
#ifndef DSPC_VTCM_DEFAULT_CAPACITY
#error "DSPC_VTCM_DEFAULT_CAPACITY must be defined by the build (bytes)"
#endif
#ifndef DSPC_VTCM_DEFAULT_ALIGN
#error "DSPC_VTCM_DEFAULT_ALIGN must be defined by the build (bytes, a power of two)"
#endif

enum { kMaxBlocks = DSPC_VTCM_MAX_BLOCKS };
#define DSPC_VTCM_MAX_CAPACITY (1u << 30)
#define DSPC_VTCM_BASE_ALIGN 65536u

typedef dspc_vtcm_block Block;
typedef struct dspc_context Ctx;

/* NULL means the default context (dspc_runtime.h). */
static Ctx* resolve(Ctx* ctx) {
  return ctx ? ctx : dspc_context_default();
}

static void reset_table(Ctx* ctx) {
  ctx->vtcm.num_blocks = 1;
  ctx->vtcm.blocks[0].offset = 0;
  ctx->vtcm.blocks[0].size = ctx->vtcm.capacity;
  ctx->vtcm.blocks[0].requested = 0;
  ctx->vtcm.blocks[0].used = 0;
}

static void release_backing(Ctx* ctx) {
  if (ctx->vtcm.mapping) dspc_platform_unmap(ctx->vtcm.mapping, ctx->vtcm.mapped_bytes);
  ctx->vtcm.mapping = NULL;
  ctx->vtcm.base = NULL;
  ctx->vtcm.mapped_bytes = 0;
  ctx->vtcm.num_blocks = 0;
}

static int ensure_backing(Ctx* ctx) {
  if (ctx->vtcm.base || ctx->vtcm.num_blocks) return ctx->vtcm.base != NULL;
  if (ctx->vtcm.capacity == 0) return 0;
  ctx->vtcm.mapped_bytes = (size_t)ctx->vtcm.capacity + DSPC_VTCM_BASE_ALIGN;
  ctx->vtcm.mapping = (char*)dspc_platform_map(ctx->vtcm.mapped_bytes);
  if (!ctx->vtcm.mapping) return 0;
  uintptr_t aligned =
      ((uintptr_t)ctx->vtcm.mapping + DSPC_VTCM_BASE_ALIGN - 1) & ~(uintptr_t)(DSPC_VTCM_BASE_ALIGN - 1);
  ctx->vtcm.base = (char*)aligned;
  reset_table(ctx);
  return 1;
}

static void remove_block(Ctx* ctx, uint32_t i) {
  for (uint32_t j = i; j + 1 < ctx->vtcm.num_blocks; j++) ctx->vtcm.blocks[j] = ctx->vtcm.blocks[j + 1];
  ctx->vtcm.num_blocks--;
}

static void insert_block(Ctx* ctx, uint32_t i, Block b) {
  for (uint32_t j = ctx->vtcm.num_blocks; j > i; j--) ctx->vtcm.blocks[j] = ctx->vtcm.blocks[j - 1];
  ctx->vtcm.blocks[i] = b;
  ctx->vtcm.num_blocks++;
}

static uint32_t largest_free(Ctx* ctx) {
  uint32_t best = 0;
  for (uint32_t i = 0; i < ctx->vtcm.num_blocks; i++)
    if (!ctx->vtcm.blocks[i].used && ctx->vtcm.blocks[i].size > best) best = ctx->vtcm.blocks[i].size;
  return ctx->vtcm.num_blocks ? best : ctx->vtcm.capacity;
}

static void* fail(Ctx* ctx, uint32_t nbytes, const char* reason, int with_state) {
  char msg[256];
  dspc_text t;
  dspc_text_init(&t, msg, sizeof msg);
  dspc_text_str(&t, "VTCM allocation of ");
  dspc_text_u64(&t, nbytes);
  dspc_text_str(&t, " bytes failed: ");
  dspc_text_str(&t, reason);
  if (with_state) {
    uint32_t free_bytes = 0;
    for (uint32_t i = 0; i < ctx->vtcm.num_blocks; i++)
      if (!ctx->vtcm.blocks[i].used) free_bytes += ctx->vtcm.blocks[i].size;
    if (!ctx->vtcm.num_blocks) free_bytes = ctx->vtcm.capacity;
    dspc_text_str(&t, "only ");
    dspc_text_u64(&t, free_bytes);
    dspc_text_str(&t, " of ");
    dspc_text_u64(&t, ctx->vtcm.capacity);
    dspc_text_str(&t, " bytes free, largest free block ");
    dspc_text_u64(&t, largest_free(ctx));
  }
  dspc_set_last_error(msg, ctx);
  return NULL;
}

/* Padding needed to align block i's address to `align`. */
static uint32_t padding_of(Ctx* ctx, uint32_t i, uint32_t align) {
  uintptr_t addr = (uintptr_t)ctx->vtcm.base + ctx->vtcm.blocks[i].offset;
  return (uint32_t)((align - (addr & (align - 1))) & (align - 1));
}

void* HexagonBackendAllocateVTCM(uint32_t nbytes, uint32_t align, Ctx* ctx) {
  ctx = resolve(ctx);
  if (align == 0) align = DSPC_VTCM_DEFAULT_ALIGN;
  if (align & (align - 1)) return fail(ctx, nbytes, "alignment is not a power of two", 0);
  if (!ensure_backing(ctx)) {
    if (ctx->vtcm.capacity == 0 || nbytes > ctx->vtcm.capacity) return fail(ctx, nbytes, "", 1);
    return fail(ctx, nbytes, "could not map the pool's backing memory", 0);
  }
  /* A zero-byte request still gets a distinct block, so that it can be freed. */
  uint32_t size = nbytes ? nbytes : 1;

  uint32_t best = ctx->vtcm.num_blocks;
  uint32_t best_left = 0;
  for (uint32_t i = 0; i < ctx->vtcm.num_blocks; i++) {
    if (ctx->vtcm.blocks[i].used) continue;
    uint32_t pad = padding_of(ctx, i, align);
    if (pad > ctx->vtcm.blocks[i].size || size > ctx->vtcm.blocks[i].size - pad) continue;
    uint32_t left = ctx->vtcm.blocks[i].size - pad - size;
    if (best == ctx->vtcm.num_blocks || left < best_left) best = i, best_left = left;
  }
  if (best == ctx->vtcm.num_blocks) return fail(ctx, nbytes, "", 1);

  uint32_t pad = padding_of(ctx, best, align);
  uint32_t needed = (pad ? 1u : 0u) + (best_left ? 1u : 0u);
  if (ctx->vtcm.num_blocks + needed > kMaxBlocks) return fail(ctx, nbytes, "the pool's block table is full (256 blocks)", 0);

  if (pad) {
    Block lead = {ctx->vtcm.blocks[best].offset, pad, 0, 0};
    ctx->vtcm.blocks[best].offset += pad;
    ctx->vtcm.blocks[best].size -= pad;
    insert_block(ctx, best, lead);
    best++;
  }
  if (best_left) {
    Block rest = {ctx->vtcm.blocks[best].offset + size, best_left, 0, 0};
    ctx->vtcm.blocks[best].size = size;
    insert_block(ctx, best + 1, rest);
  }
  ctx->vtcm.blocks[best].used = 1;
  ctx->vtcm.blocks[best].requested = nbytes;
  ctx->vtcm.bytes_in_use += nbytes;
  ctx->vtcm.blocks_in_use++;
  return ctx->vtcm.base + ctx->vtcm.blocks[best].offset;
}

int HexagonBackendFreeVTCM(void* ptr, Ctx* ctx) {
  ctx = resolve(ctx);
  uint32_t i = 0;
  for (; i < ctx->vtcm.num_blocks; i++)
    if (ctx->vtcm.blocks[i].used && ctx->vtcm.base + ctx->vtcm.blocks[i].offset == (char*)ptr) break;
  if (!ptr || i == ctx->vtcm.num_blocks) {
    char msg[128];
    dspc_text t;
    dspc_text_init(&t, msg, sizeof msg);
    dspc_text_str(&t, "VTCM free of ");
    dspc_text_hex(&t, (uint64_t)(uintptr_t)ptr);
    dspc_text_str(&t, " failed: not a block allocated from the VTCM pool");
    dspc_set_last_error(msg, ctx);
    return -1;
  }
  ctx->vtcm.blocks[i].used = 0;
  ctx->vtcm.bytes_in_use -= ctx->vtcm.blocks[i].requested;
  ctx->vtcm.blocks[i].requested = 0;
  ctx->vtcm.blocks_in_use--;
  if (i + 1 < ctx->vtcm.num_blocks && !ctx->vtcm.blocks[i + 1].used) {
    ctx->vtcm.blocks[i].size += ctx->vtcm.blocks[i + 1].size;
    remove_block(ctx, i + 1);
  }
  if (i > 0 && !ctx->vtcm.blocks[i - 1].used) {
    ctx->vtcm.blocks[i - 1].size += ctx->vtcm.blocks[i].size;
    remove_block(ctx, i);
  }
  return 0;
}

int dspc_vtcm_set_capacity(uint32_t nbytes, Ctx* ctx) {
  ctx = resolve(ctx);
  if (ctx->vtcm.blocks_in_use) {
    char msg[128];
    dspc_text t;
    dspc_text_init(&t, msg, sizeof msg);
    dspc_text_str(&t, "cannot change the VTCM capacity while ");
    dspc_text_u64(&t, ctx->vtcm.blocks_in_use);
    dspc_text_str(&t, " blocks are allocated");
    dspc_set_last_error(msg, ctx);
    return -1;
  }
  if (nbytes > DSPC_VTCM_MAX_CAPACITY) {
    dspc_set_last_error("VTCM capacity above the 1 GiB limit", ctx);
    return -1;
  }
  if (nbytes != ctx->vtcm.capacity) release_backing(ctx);
  ctx->vtcm.capacity = nbytes;
  return 0;
}

int dspc_vtcm_use_memory(void* memory, uint32_t nbytes, Ctx* ctx) {
  ctx = resolve(ctx);
  if (dspc_vtcm_set_capacity(nbytes, ctx) != 0) return -1;
  if ((uintptr_t)memory & (DSPC_VTCM_BASE_ALIGN - 1)) {
    dspc_set_last_error("VTCM memory must be 64 KiB aligned", ctx);
    return -1;
  }
  release_backing(ctx);
  if (!memory || nbytes == 0) return 0;
  ctx->vtcm.base = (char*)memory; /* mapping stays NULL: the memory is the caller's, never unmapped */
  reset_table(ctx);
  return 0;
}

uint32_t dspc_vtcm_capacity(Ctx* ctx) {
  ctx = resolve(ctx);
  return ctx->vtcm.capacity;
}
uint32_t dspc_vtcm_bytes_in_use(Ctx* ctx) {
  ctx = resolve(ctx);
  return ctx->vtcm.bytes_in_use;
}
uint32_t dspc_vtcm_largest_free_block(Ctx* ctx) {
  ctx = resolve(ctx);
  return largest_free(ctx);
}
uint32_t dspc_vtcm_num_blocks(Ctx* ctx) {
  ctx = resolve(ctx);
  return ctx->vtcm.num_blocks ? ctx->vtcm.num_blocks : 1;
}

/* Returns the pool of ctx to empty and unmaps its own backing memory (dspc_context_release). */
void dspc_vtcm_release_pool(Ctx* ctx) {
  release_backing(ctx);
  ctx->vtcm.bytes_in_use = 0;
  ctx->vtcm.blocks_in_use = 0;
}
