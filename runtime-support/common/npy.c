/* .npy headers (see npy.h). The dictionary is a Python literal; this reads the subset numpy
 * writes (any key order, either quote, optional trailing commas, Python 2 `L` suffixes)
 * with a cursor that never reads past the given length. */
#include "runtime-support/common/npy.h"

static const uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

int dspc_npy_parse_preamble(const uint8_t* p, size_t n, uint32_t* preamble_len, uint32_t* dict_len,
                            dspc_text* err) {
  if (n < 10) {
    dspc_text_str(err, "not a .npy file (too short for its 10-byte preamble)");
    return -1;
  }
  for (int i = 0; i < 6; i++) {
    if (p[i] != kMagic[i]) {
      dspc_text_str(err, "not a .npy file (bad magic)");
      return -1;
    }
  }
  uint8_t major = p[6], minor = p[7];
  if (major == 1 && minor == 0) {
    *preamble_len = 10;
    *dict_len = (uint32_t)p[8] | ((uint32_t)p[9] << 8);
    return 0;
  }
  if ((major == 2 || major == 3) && minor == 0) {
    *preamble_len = 12;
    if (n < 12) return 1;
    *dict_len = (uint32_t)p[8] | ((uint32_t)p[9] << 8) | ((uint32_t)p[10] << 16) | ((uint32_t)p[11] << 24);
    if (*dict_len > DSPC_NPY_MAX_HEADER) {
      dspc_text_str(err, "the .npy header is larger than 65536 bytes");
      return -1;
    }
    return 0;
  }
  dspc_text_str(err, "unsupported .npy format version ");
  dspc_text_u64(err, major);
  dspc_text_char(err, '.');
  dspc_text_u64(err, minor);
  return -1;
}

typedef struct {
  const char* s;
  size_t n;
  size_t pos;
  dspc_text* err;
} Cursor;

static int at_end(const Cursor* c) {
  return c->pos >= c->n;
}
static char peek(const Cursor* c) {
  return at_end(c) ? '\0' : c->s[c->pos];
}

static void skip_space(Cursor* c) {
  while (!at_end(c) && (peek(c) == ' ' || peek(c) == '\t' || peek(c) == '\n' || peek(c) == '\r')) c->pos++;
}

static int syntax_error(Cursor* c, const char* what) {
  dspc_text_str(c->err, "malformed .npy header: ");
  dspc_text_str(c->err, what);
  dspc_text_str(c->err, " at byte ");
  dspc_text_u64(c->err, c->pos);
  return -1;
}

/* The same, naming what was being read: "... for a key", "... for 'descr'". */
static int syntax_error_for(Cursor* c, const char* what, const char* subject) {
  dspc_text_str(c->err, "malformed .npy header: ");
  dspc_text_str(c->err, what);
  dspc_text_str(c->err, " for ");
  dspc_text_str(c->err, subject);
  dspc_text_str(c->err, " at byte ");
  dspc_text_u64(c->err, c->pos);
  return -1;
}

static int expect(Cursor* c, char ch, const char* what) {
  skip_space(c);
  if (peek(c) != ch) return syntax_error(c, what);
  c->pos++;
  return 0;
}

/* A quoted string without escapes, copied into out (cap bytes, NUL-terminated); subject names
 * it in messages. */
static int parse_string(Cursor* c, char* out, size_t cap, const char* subject) {
  skip_space(c);
  char quote = peek(c);
  if (quote != '\'' && quote != '"') return syntax_error_for(c, "expected a quoted string", subject);
  c->pos++;
  size_t len = 0;
  while (!at_end(c) && peek(c) != quote) {
    if (peek(c) == '\\') return syntax_error_for(c, "unsupported escape in a string", subject);
    if (len + 1 >= cap) return syntax_error_for(c, "string too long", subject);
    out[len++] = c->s[c->pos++];
  }
  if (at_end(c)) return syntax_error_for(c, "unterminated string", subject);
  c->pos++;
  out[len] = '\0';
  return 0;
}

static int match_word(Cursor* c, const char* word) {
  size_t len = dspc_strlen(word);
  if (c->n - c->pos < len) return 0;
  for (size_t i = 0; i < len; i++)
    if (c->s[c->pos + i] != word[i]) return 0;
  c->pos += len;
  return 1;
}

static int parse_bool(Cursor* c, int* out) {
  skip_space(c);
  if (match_word(c, "True")) return *out = 1, 0;
  if (match_word(c, "False")) return *out = 0, 0;
  return syntax_error(c, "expected True or False");
}

static int parse_shape(Cursor* c, dspc_npy_header* h) {
  if (expect(c, '(', "expected '(' for the shape")) return -1;
  h->ndim = 0;
  for (;;) {
    skip_space(c);
    if (peek(c) == ')') break;
    if (peek(c) < '0' || peek(c) > '9') return syntax_error(c, "expected a dimension in the shape");
    int64_t v = 0;
    while (peek(c) >= '0' && peek(c) <= '9') {
      v = v * 10 + (peek(c) - '0');
      if (v > ((int64_t)1 << 40)) return syntax_error(c, "dimension too large");
      c->pos++;
    }
    if (peek(c) == 'L') c->pos++;
    if (h->ndim == DSPC_NPY_MAX_DIMS) return syntax_error(c, "more than 32 dimensions");
    h->shape[h->ndim++] = v;
    skip_space(c);
    if (peek(c) == ',') {
      c->pos++;
      continue;
    }
    if (peek(c) != ')') return syntax_error(c, "expected ',' or ')' in the shape");
  }
  c->pos++;
  return 0;
}

/* A string from the header in a message, other bytes than printable ASCII as \xNN: messages
 * are one line of text whatever the file holds. */
static void text_header_string(dspc_text* t, const char* s) {
  static const char hex[] = "0123456789abcdef";
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch >= 0x20 && ch < 0x7f) {
      dspc_text_char(t, (char)ch);
      continue;
    }
    dspc_text_str(t, "\\x");
    dspc_text_char(t, hex[ch >> 4]);
    dspc_text_char(t, hex[ch & 15]);
  }
}

/* "<i4" and friends -> kind and size; a message for anything else. */
static int decode_descr(dspc_npy_header* h, dspc_text* err) {
  const char* d = h->descr;
  char order = d[0];
  if (order == '\0' || d[1] == '\0' || d[2] == '\0' || d[3] != '\0' || d[2] < '1' || d[2] > '8')
    goto unsupported;
  h->kind = d[1];
  h->bytes = (uint8_t)(d[2] - '0');
  if (order != '<' && order != '|' && order != '=' && order != '>') goto unsupported;
  if (h->bytes > 1 && order == '>') {
    dspc_text_str(err, "big-endian .npy data ('");
    text_header_string(err, d);
    dspc_text_str(err, "') is not supported");
    return -1;
  }
  if (h->bytes > 1 && order == '|') goto unsupported;
  switch (h->kind) {
    case 'i':
    case 'u':
      if (h->bytes == 1 || h->bytes == 2 || h->bytes == 4 || h->bytes == 8) return 0;
      break;
    case 'f':
      if (h->bytes == 2 || h->bytes == 4 || h->bytes == 8) return 0;
      break;
    case 'b':
      if (h->bytes == 1) return 0;
      break;
  }
unsupported:
  dspc_text_str(err, "unsupported .npy dtype '");
  text_header_string(err, d);
  dspc_text_str(err, "'");
  return -1;
}

int dspc_npy_parse_dict(const char* s, size_t n, dspc_npy_header* h, dspc_text* err) {
  Cursor c = {s, n, 0, err};
  int have_descr = 0, have_order = 0, have_shape = 0, fortran = 0;
  if (expect(&c, '{', "expected '{' (the header is not a dict)")) return -1;
  for (;;) {
    skip_space(&c);
    if (peek(&c) == '}') break;
    char key[16];
    if (parse_string(&c, key, sizeof key, "a key")) return -1;
    if (expect(&c, ':', "expected ':'")) return -1;
    int* seen;
    int status;
    if (dspc_str_eq(key, "descr")) {
      seen = &have_descr;
      status = parse_string(&c, h->descr, sizeof h->descr, "'descr'");
    } else if (dspc_str_eq(key, "fortran_order")) {
      seen = &have_order;
      status = parse_bool(&c, &fortran);
    } else if (dspc_str_eq(key, "shape")) {
      seen = &have_shape;
      status = parse_shape(&c, h);
    } else {
      dspc_text_str(err, "malformed .npy header: unexpected key '");
      text_header_string(err, key);
      dspc_text_str(err, "' at byte ");
      dspc_text_u64(err, c.pos);
      return -1;
    }
    if (status) return -1;
    if (*seen) return syntax_error(&c, "repeated key");
    *seen = 1;
    skip_space(&c);
    if (peek(&c) == ',') {
      c.pos++;
      continue;
    }
    if (peek(&c) != '}') return syntax_error(&c, "expected ',' or '}'");
  }
  c.pos++;
  /* Padding: spaces and a final newline; some writers leave NULs. */
  for (; !at_end(&c); c.pos++) {
    char ch = peek(&c);
    if (ch != ' ' && ch != '\n' && ch != '\r' && ch != '\t' && ch != '\0')
      return syntax_error(&c, "unexpected text after the dictionary (only trailing spaces may follow it)");
  }
  if (!have_descr || !have_order || !have_shape) {
    dspc_text_str(err, "malformed .npy header: it lacks ");
    dspc_text_str(err, !have_descr ? "'descr'" : !have_order ? "'fortran_order'" : "'shape'");
    return -1;
  }
  if (fortran) {
    dspc_text_str(err,
                  "Fortran-order .npy data is not supported (fortran_order is True; save it in C order)");
    return -1;
  }
  return decode_descr(h, err);
}

int dspc_npy_parse(const uint8_t* p, size_t n, dspc_npy_header* h, size_t* data_offset, dspc_text* err) {
  uint32_t preamble_len = 0, dict_len = 0;
  int r = dspc_npy_parse_preamble(p, n, &preamble_len, &dict_len, err);
  if (r > 0) dspc_text_str(err, "truncated .npy header (in its 12-byte preamble)");
  if (r) return -1;
  if (n - preamble_len < dict_len) {
    dspc_text_str(err, "truncated .npy header");
    return -1;
  }
  if (dspc_npy_parse_dict((const char*)p + preamble_len, dict_len, h, err)) return -1;
  *data_offset = preamble_len + dict_len;
  return 0;
}

int dspc_npy_data_size(const dspc_npy_header* h, uint64_t available, uint64_t* nbytes, dspc_text* err) {
  uint64_t n = h->bytes;
  for (uint32_t i = 0; i < h->ndim; i++)
    if (h->shape[i] == 0) n = 0;
  /* A product past 64 bits is past any file too. */
  for (uint32_t i = 0; i < h->ndim && n; i++) {
    uint64_t extent = (uint64_t)h->shape[i];
    if (n > UINT64_MAX / extent) {
      dspc_text_str(err, "data has ");
      dspc_text_u64(err, available);
      dspc_text_str(err, " bytes, shorter than the shape says");
      return -1;
    }
    n *= extent;
  }
  if (n != available) {
    dspc_text_str(err, "data has ");
    dspc_text_u64(err, available);
    dspc_text_str(err, " bytes, the shape needs ");
    dspc_text_u64(err, n);
    return -1;
  }
  *nbytes = n;
  return 0;
}

void dspc_npy_descr(char kind, unsigned bytes, char out[4]) {
  out[0] = bytes == 1 ? '|' : '<';
  out[1] = kind;
  out[2] = (char)('0' + bytes);
  out[3] = '\0';
}

/* numpy leaves room for the first extent to grow to 21 digits in place. */
enum { kGrowthAxisMaxDigits = 21 };

size_t dspc_npy_write_header(uint8_t* buf, size_t cap, const char* descr, uint32_t ndim,
                             const int64_t* shape) {
  if (ndim > DSPC_NPY_MAX_DIMS) return 0;
  char dict[1024];
  dspc_text t;
  dspc_text_init(&t, dict, sizeof dict);
  dspc_text_str(&t, "{'descr': '");
  dspc_text_str(&t, descr);
  dspc_text_str(&t, "', 'fortran_order': False, 'shape': (");
  size_t first_digits = 0;
  for (uint32_t i = 0; i < ndim; i++) {
    if (i) dspc_text_str(&t, ", ");
    size_t before = t.len;
    dspc_text_i64(&t, shape[i]);
    if (i == 0) first_digits = t.len - before;
  }
  dspc_text_str(&t, ndim == 1 ? ",), }" : "), }");
  for (size_t i = first_digits; ndim && i < kGrowthAxisMaxDigits; i++) dspc_text_char(&t, ' ');
  if (t.len + 1 >= sizeof dict) return 0;
  /* As numpy: 1 to 64 spaces and a newline, so that the data starts 64-byte aligned. */
  size_t text_len = t.len + 1;
  size_t total = 10 + text_len + (64 - (10 + text_len) % 64);
  if (total > cap || total - 10 > 0xFFFF) return 0;
  for (int i = 0; i < 6; i++) buf[i] = kMagic[i];
  buf[6] = 1;
  buf[7] = 0;
  buf[8] = (uint8_t)((total - 10) & 0xFF);
  buf[9] = (uint8_t)((total - 10) >> 8);
  size_t pos = 10;
  for (size_t i = 0; i < t.len; i++) buf[pos++] = (uint8_t)dict[i];
  while (pos < total - 1) buf[pos++] = ' ';
  buf[pos] = '\n';
  return total;
}
