/* Bounded text building and small string helpers (see text.h). */
#include "runtime-support/common/text.h"

void dspc_text_init(dspc_text* t, char* buf, size_t cap) {
  t->buf = buf;
  t->cap = cap;
  t->len = 0;
  if (cap) buf[0] = '\0';
}

void dspc_text_char(dspc_text* t, char c) {
  if (t->cap == 0 || t->len + 1 >= t->cap) return;
  t->buf[t->len++] = c;
  t->buf[t->len] = '\0';
}

void dspc_text_str(dspc_text* t, const char* s) {
  if (!s) s = "(null)";
  while (*s) dspc_text_char(t, *s++);
}

void dspc_text_u64(dspc_text* t, uint64_t v) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = (char)('0' + (int)(v % 10u));
    v /= 10u;
  } while (v);
  while (n) dspc_text_char(t, digits[--n]);
}

void dspc_text_i64(dspc_text* t, int64_t v) {
  if (v < 0) {
    dspc_text_char(t, '-');
    dspc_text_u64(t, 0 - (uint64_t)v);
    return;
  }
  dspc_text_u64(t, (uint64_t)v);
}

void dspc_text_hex(dspc_text* t, uint64_t v) {
  static const char hex[] = "0123456789abcdef";
  char digits[16];
  int n = 0;
  do {
    digits[n++] = hex[v & 15u];
    v >>= 4;
  } while (v);
  dspc_text_str(t, "0x");
  while (n) dspc_text_char(t, digits[--n]);
}

int dspc_str_eq(const char* a, const char* b) {
  while (*a && *a == *b) a++, b++;
  return *a == *b;
}

int dspc_parse_u64(const char* s, uint64_t* out) {
  uint64_t v = 0;
  if (!*s) return -1;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return -1;
    uint64_t d = (uint64_t)(*s - '0');
    if (v > (UINT64_MAX - d) / 10u) return -1;
    v = v * 10u + d;
  }
  *out = v;
  return 0;
}
