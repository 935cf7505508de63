/* Device global memory: a best-fit allocator over a range of arena offsets with coalescing
 * frees; its table lives outside the arena, so a kernel writing past its buffer cannot corrupt
 * it. 64-bit offsets, so nothing below the arena's size limits an allocation. */
#ifndef DSPC_SERVER_HEAP_H
#define DSPC_SERVER_HEAP_H

#include <stdint.h>

void dspc_heap_init(uint64_t offset, uint64_t nbytes);
/* 0 and *out set, or -1 with a last error naming the request and the free space. */
int dspc_heap_alloc(uint64_t nbytes, uint32_t align, uint64_t* out);
/* 0, or -1 with a last error for an offset the heap did not hand out. */
int dspc_heap_free(uint64_t offset);
/* Frees everything (the session closed). */
void dspc_heap_reset(void);
/* The in-use block containing [offset, offset + nbytes), so a call's arguments can be checked;
 * 1 if there is one. */
int dspc_heap_contains(uint64_t offset, uint64_t nbytes);

#endif
