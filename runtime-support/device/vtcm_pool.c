/* The VTCM pool: HexagonBackendAllocateVTCM / HexagonBackendFreeVTCM (DESIGN.md, "The VTCM
 * contract").
 *
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

enum { kMaxBlocks = 256 };
#define DSPC_VTCM_MAX_CAPACITY (1u << 30)
#define DSPC_VTCM_BASE_ALIGN 65536u

typedef struct {
  uint32_t offset;
  uint32_t size;
  uint32_t requested; /* bytes asked for; bytes_in_use counts these */
  uint8_t used;
} Block;

static Block blocks[kMaxBlocks];
static uint32_t num_blocks;
static uint32_t capacity = DSPC_VTCM_DEFAULT_CAPACITY;
static uint32_t bytes_in_use;
static uint32_t blocks_in_use;
static char* base;    /* the pool's first byte, DSPC_VTCM_BASE_ALIGN-aligned */
static char* mapping; /* what dspc_platform_map returned */
static size_t mapped_bytes;

static void reset_table(void) {
  num_blocks = 1;
  blocks[0].offset = 0;
  blocks[0].size = capacity;
  blocks[0].requested = 0;
  blocks[0].used = 0;
}

static void release_backing(void) {
  if (mapping) dspc_platform_unmap(mapping, mapped_bytes);
  mapping = NULL;
  base = NULL;
  mapped_bytes = 0;
  num_blocks = 0;
}

static int ensure_backing(void) {
  if (base || num_blocks) return base != NULL;
  if (capacity == 0) return 0;
  mapped_bytes = (size_t)capacity + DSPC_VTCM_BASE_ALIGN;
  mapping = (char*)dspc_platform_map(mapped_bytes);
  if (!mapping) return 0;
  uintptr_t aligned =
      ((uintptr_t)mapping + DSPC_VTCM_BASE_ALIGN - 1) & ~(uintptr_t)(DSPC_VTCM_BASE_ALIGN - 1);
  base = (char*)aligned;
  reset_table();
  return 1;
}

static void remove_block(uint32_t i) {
  for (uint32_t j = i; j + 1 < num_blocks; j++) blocks[j] = blocks[j + 1];
  num_blocks--;
}

static void insert_block(uint32_t i, Block b) {
  for (uint32_t j = num_blocks; j > i; j--) blocks[j] = blocks[j - 1];
  blocks[i] = b;
  num_blocks++;
}

static uint32_t largest_free(void) {
  uint32_t best = 0;
  for (uint32_t i = 0; i < num_blocks; i++)
    if (!blocks[i].used && blocks[i].size > best) best = blocks[i].size;
  return num_blocks ? best : capacity;
}

static void* fail(uint32_t nbytes, const char* reason, int with_state) {
  char msg[256];
  dspc_text t;
  dspc_text_init(&t, msg, sizeof msg);
  dspc_text_str(&t, "VTCM allocation of ");
  dspc_text_u64(&t, nbytes);
  dspc_text_str(&t, " bytes failed: ");
  dspc_text_str(&t, reason);
  if (with_state) {
    uint32_t free_bytes = 0;
    for (uint32_t i = 0; i < num_blocks; i++)
      if (!blocks[i].used) free_bytes += blocks[i].size;
    if (!num_blocks) free_bytes = capacity;
    dspc_text_str(&t, "only ");
    dspc_text_u64(&t, free_bytes);
    dspc_text_str(&t, " of ");
    dspc_text_u64(&t, capacity);
    dspc_text_str(&t, " bytes free, largest free block ");
    dspc_text_u64(&t, largest_free());
  }
  dspc_set_last_error(msg);
  return NULL;
}

/* Padding needed to align block i's address to `align`. */
static uint32_t padding_of(uint32_t i, uint32_t align) {
  uintptr_t addr = (uintptr_t)base + blocks[i].offset;
  return (uint32_t)((align - (addr & (align - 1))) & (align - 1));
}

void* HexagonBackendAllocateVTCM(uint32_t nbytes, uint32_t align) {
  if (align == 0) align = DSPC_VTCM_DEFAULT_ALIGN;
  if (align & (align - 1)) return fail(nbytes, "alignment is not a power of two", 0);
  if (!ensure_backing()) {
    if (capacity == 0 || nbytes > capacity) return fail(nbytes, "", 1);
    return fail(nbytes, "could not map the pool's backing memory", 0);
  }
  /* A zero-byte request still gets a distinct block, so that it can be freed. */
  uint32_t size = nbytes ? nbytes : 1;

  uint32_t best = num_blocks;
  uint32_t best_left = 0;
  for (uint32_t i = 0; i < num_blocks; i++) {
    if (blocks[i].used) continue;
    uint32_t pad = padding_of(i, align);
    if (pad > blocks[i].size || size > blocks[i].size - pad) continue;
    uint32_t left = blocks[i].size - pad - size;
    if (best == num_blocks || left < best_left) best = i, best_left = left;
  }
  if (best == num_blocks) return fail(nbytes, "", 1);

  uint32_t pad = padding_of(best, align);
  uint32_t needed = (pad ? 1u : 0u) + (best_left ? 1u : 0u);
  if (num_blocks + needed > kMaxBlocks) return fail(nbytes, "the pool's block table is full (256 blocks)", 0);

  if (pad) {
    Block lead = {blocks[best].offset, pad, 0, 0};
    blocks[best].offset += pad;
    blocks[best].size -= pad;
    insert_block(best, lead);
    best++;
  }
  if (best_left) {
    Block rest = {blocks[best].offset + size, best_left, 0, 0};
    blocks[best].size = size;
    insert_block(best + 1, rest);
  }
  blocks[best].used = 1;
  blocks[best].requested = nbytes;
  bytes_in_use += nbytes;
  blocks_in_use++;
  return base + blocks[best].offset;
}

int HexagonBackendFreeVTCM(void* ptr) {
  uint32_t i = 0;
  for (; i < num_blocks; i++)
    if (blocks[i].used && base + blocks[i].offset == (char*)ptr) break;
  if (!ptr || i == num_blocks) {
    char msg[128];
    dspc_text t;
    dspc_text_init(&t, msg, sizeof msg);
    dspc_text_str(&t, "VTCM free of ");
    dspc_text_hex(&t, (uint64_t)(uintptr_t)ptr);
    dspc_text_str(&t, " failed: not a block allocated from the VTCM pool");
    dspc_set_last_error(msg);
    return -1;
  }
  blocks[i].used = 0;
  bytes_in_use -= blocks[i].requested;
  blocks[i].requested = 0;
  blocks_in_use--;
  if (i + 1 < num_blocks && !blocks[i + 1].used) {
    blocks[i].size += blocks[i + 1].size;
    remove_block(i + 1);
  }
  if (i > 0 && !blocks[i - 1].used) {
    blocks[i - 1].size += blocks[i].size;
    remove_block(i);
  }
  return 0;
}

int dspc_vtcm_set_capacity(uint32_t nbytes) {
  if (blocks_in_use) {
    char msg[128];
    dspc_text t;
    dspc_text_init(&t, msg, sizeof msg);
    dspc_text_str(&t, "cannot change the VTCM capacity while ");
    dspc_text_u64(&t, blocks_in_use);
    dspc_text_str(&t, " blocks are allocated");
    dspc_set_last_error(msg);
    return -1;
  }
  if (nbytes > DSPC_VTCM_MAX_CAPACITY) {
    dspc_set_last_error("VTCM capacity above the 1 GiB limit");
    return -1;
  }
  if (nbytes != capacity) release_backing();
  capacity = nbytes;
  return 0;
}

int dspc_vtcm_use_memory(void* memory, uint32_t nbytes) {
  if (dspc_vtcm_set_capacity(nbytes) != 0) return -1;
  if ((uintptr_t)memory & (DSPC_VTCM_BASE_ALIGN - 1)) {
    dspc_set_last_error("VTCM memory must be 64 KiB aligned");
    return -1;
  }
  release_backing();
  if (!memory || nbytes == 0) return 0;
  base = (char*)memory; /* mapping stays NULL: the memory is the caller's, never unmapped */
  reset_table();
  return 0;
}

uint32_t dspc_vtcm_capacity(void) {
  return capacity;
}
uint32_t dspc_vtcm_bytes_in_use(void) {
  return bytes_in_use;
}
uint32_t dspc_vtcm_largest_free_block(void) {
  return largest_free();
}
uint32_t dspc_vtcm_num_blocks(void) {
  return num_blocks ? num_blocks : 1;
}
