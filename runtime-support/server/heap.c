/* See heap.h. A sorted table of blocks tiling [start, start + size); same scheme as the VTCM
 * pool (device/vtcm_pool.c), with 64-bit offsets and more blocks. */
#include "heap.h"

#include "dspc_runtime.h"
#include "runtime-support/common/text.h"

enum { kMaxBlocks = 1024 };

typedef struct {
  uint64_t offset, size;
  uint8_t used;
} Block;

static Block blocks[kMaxBlocks];
static uint32_t num_blocks;
static uint64_t heap_start, heap_size;

void dspc_heap_init(uint64_t offset, uint64_t nbytes) {
  heap_start = offset;
  heap_size = nbytes;
  dspc_heap_reset();
}

void dspc_heap_reset(void) {
  num_blocks = 1;
  blocks[0].offset = heap_start;
  blocks[0].size = heap_size;
  blocks[0].used = 0;
}

static int fail(uint64_t nbytes, const char* reason) {
  uint64_t free_bytes = 0, largest = 0;
  for (uint32_t i = 0; i < num_blocks; i++) {
    if (blocks[i].used) continue;
    free_bytes += blocks[i].size;
    if (blocks[i].size > largest) largest = blocks[i].size;
  }
  char msg[200];
  dspc_text t;
  dspc_text_init(&t, msg, sizeof msg);
  dspc_text_str(&t, "device memory allocation of ");
  dspc_text_u64(&t, nbytes);
  dspc_text_str(&t, " bytes failed: ");
  dspc_text_str(&t, reason);
  dspc_text_str(&t, " (");
  dspc_text_u64(&t, free_bytes);
  dspc_text_str(&t, " of ");
  dspc_text_u64(&t, heap_size);
  dspc_text_str(&t, " bytes free, largest free block ");
  dspc_text_u64(&t, largest);
  dspc_text_str(&t, ")");
  dspc_set_last_error(msg, dspc_context_default());
  return -1;
}

static void insert_at(uint32_t i, Block b) {
  for (uint32_t j = num_blocks; j > i; j--) blocks[j] = blocks[j - 1];
  blocks[i] = b;
  num_blocks++;
}

static void remove_at(uint32_t i) {
  for (uint32_t j = i; j + 1 < num_blocks; j++) blocks[j] = blocks[j + 1];
  num_blocks--;
}

int dspc_heap_alloc(uint64_t nbytes, uint32_t align, uint64_t* out) {
  if (align == 0) align = 128;
  if (align & (align - 1)) return fail(nbytes, "alignment is not a power of two");
  if (nbytes == 0) nbytes = 1;
  if (nbytes > heap_size) return fail(nbytes, "larger than device memory");
  uint32_t best = kMaxBlocks;
  uint64_t best_left = 0;
  for (uint32_t i = 0; i < num_blocks; i++) {
    if (blocks[i].used) continue;
    uint64_t pad = (align - (blocks[i].offset & (align - 1))) & (align - 1);
    if (blocks[i].size < pad || blocks[i].size - pad < nbytes) continue;
    uint64_t left = blocks[i].size - pad - nbytes;
    if (best == kMaxBlocks || left < best_left) best = i, best_left = left;
  }
  if (best == kMaxBlocks) return fail(nbytes, "out of device memory");
  if (num_blocks + 2 > kMaxBlocks) return fail(nbytes, "too many blocks");
  Block b = blocks[best];
  uint64_t pad = (align - (b.offset & (align - 1))) & (align - 1);
  uint32_t i = best;
  if (pad) {
    blocks[i].size = pad;
    i++;
    insert_at(i, (Block){b.offset + pad, b.size - pad, 0});
  }
  if (blocks[i].size > nbytes)
    insert_at(i + 1, (Block){blocks[i].offset + nbytes, blocks[i].size - nbytes, 0});
  blocks[i].size = nbytes;
  blocks[i].used = 1;
  *out = blocks[i].offset;
  return 0;
}

int dspc_heap_free(uint64_t offset) {
  for (uint32_t i = 0; i < num_blocks; i++) {
    if (blocks[i].offset != offset || !blocks[i].used) continue;
    blocks[i].used = 0;
    if (i + 1 < num_blocks && !blocks[i + 1].used) {
      blocks[i].size += blocks[i + 1].size;
      remove_at(i + 1);
    }
    if (i > 0 && !blocks[i - 1].used) {
      blocks[i - 1].size += blocks[i].size;
      remove_at(i);
    }
    return 0;
  }
  char msg[96];
  dspc_text t;
  dspc_text_init(&t, msg, sizeof msg);
  dspc_text_str(&t, "free of device memory at offset ");
  dspc_text_hex(&t, offset);
  dspc_text_str(&t, ": not allocated");
  dspc_set_last_error(msg, dspc_context_default());
  return -1;
}

int dspc_heap_contains(uint64_t offset, uint64_t nbytes) {
  for (uint32_t i = 0; i < num_blocks; i++) {
    const Block* b = &blocks[i];
    if (b->used && offset >= b->offset && nbytes <= b->size && offset - b->offset <= b->size - nbytes)
      return 1;
  }
  return 0;
}
