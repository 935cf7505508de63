/* Bounded text building without libc: every call truncates safely and keeps the buffer
 * NUL-terminated. Also the string helpers the runtime uses, as compiler builtins (they
 * become calls to memcpy/memset/strlen, which libc.c provides on the device). */
#ifndef DSPC_TEXT_H
#define DSPC_TEXT_H

#include <stddef.h>
#include <stdint.h>

#define dspc_memcpy __builtin_memcpy
#define dspc_memset __builtin_memset
#define dspc_strlen __builtin_strlen

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  char* buf;
  size_t cap; /* bytes in buf, including the terminating NUL */
  size_t len;
} dspc_text;

void dspc_text_init(dspc_text* t, char* buf, size_t cap);
void dspc_text_str(dspc_text* t, const char* s);
void dspc_text_char(dspc_text* t, char c);
void dspc_text_u64(dspc_text* t, uint64_t v);
void dspc_text_i64(dspc_text* t, int64_t v);
void dspc_text_hex(dspc_text* t, uint64_t v); /* 0x-prefixed */

int dspc_str_eq(const char* a, const char* b);
/* Parses a decimal uint64 (digits only, whole string); 0 on success. */
int dspc_parse_u64(const char* s, uint64_t* out);

#ifdef __cplusplus
}
#endif

#endif
