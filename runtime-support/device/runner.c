/* The runner: main() of a dspc executable. Reads the inputs of one compiled function from
 * .npy files, calls its packed entry, writes its outputs as .npy files.
 *
 *   prog [--vtcm-capacity=BYTES] [--func=NAME] PARAM=PATH ...
 *
 * 1. Parse the command line; pick the function (the only one, or --func).
 * 2. Check that every parameter is bound exactly once and nothing else is.
 * 3. Allocate every buffer (128-byte aligned, zero-filled); read each input, checking its
 *    dtype and shape against the descriptor.
 * 4. Call the kernel; on a non-zero status print the last error and exit 1.
 * 5. Write each output. Usage, I/O and .npy problems exit 2 with a one-line message. */
#include "dspc_runtime.h"
#include "runtime-support/common/npy.h"
#include "platform.h"
#include "runtime-support/common/text.h"

enum { kExitOk = 0, kExitKernel = 1, kExitUsage = 2 };
enum { kMaxBindings = 256 };

static const char kUsage[] =
    "usage: PROG [--vtcm-capacity=BYTES] [--func=NAME] PARAM=PATH ...\n"
    "  Reads each input parameter from a .npy file and writes each output parameter to one.\n"
    "  Exit status: 0 success, 1 the kernel failed, 2 usage, I/O or .npy error.\n";

typedef struct {
  const char* name; /* points into argv; ends at '=' */
  size_t name_len;
  const char* path;
} Binding;

static Binding bindings[kMaxBindings];
static uint8_t header_buf[DSPC_NPY_MAX_HEADER + 16];

/* A one-line message being built; report() prints it as "error: ...". */
static char message_buf[1024];
static dspc_text message;

static void write_all(int fd, const void* data, size_t n) {
  const char* p = (const char*)data;
  while (n) {
    long w = dspc_platform_write(fd, p, n);
    if (w <= 0) return;
    p += w;
    n -= (size_t)w;
  }
}

static dspc_text* begin_message(void) {
  dspc_text_init(&message, message_buf, sizeof message_buf);
  return &message;
}

static int report(int code) {
  write_all(2, "error: ", 7);
  write_all(2, message_buf, message.len);
  write_all(2, "\n", 1);
  return code;
}

static int starts_with(const char* s, const char* prefix) {
  while (*prefix)
    if (*s++ != *prefix++) return 0;
  return 1;
}

static int name_is(const Binding* b, const char* name) {
  size_t i = 0;
  for (; i < b->name_len; i++)
    if (name[i] != b->name[i]) return 0;
  return name[i] == '\0';
}

static void text_binding_name(dspc_text* t, const Binding* b) {
  for (size_t i = 0; i < b->name_len; i++) dspc_text_char(t, b->name[i]);
}

/* "<i4", "|u1", "<f8", "|b1" for a parameter. */
static void descr_of(const dspc_param_desc* p, char out[4]) {
  static const char kinds[] = {'i', 'u', 'f', 'b'};
  dspc_npy_descr(p->type_code <= DSPC_TYPE_BOOL ? kinds[p->type_code] : '?', p->bits / 8, out);
}

static void text_shape(dspc_text* t, uint32_t ndim, const int64_t* shape) {
  dspc_text_char(t, '(');
  for (uint32_t i = 0; i < ndim; i++) {
    if (i) dspc_text_str(t, ", ");
    dspc_text_i64(t, shape[i]);
  }
  dspc_text_str(t, ndim == 1 ? ",)" : ")");
}

/* Bytes of a parameter's buffer; -1 if it cannot be addressed on this target. */
static int64_t bytes_of(const dspc_param_desc* p) {
  uint64_t n = (uint64_t)(p->bits / 8);
  for (uint32_t i = 0; i < p->ndim; i++) {
    if (p->shape[i] < 0 || p->shape[i] > ((int64_t)1 << 31)) return -1;
    n *= (uint64_t)p->shape[i];
    if (n > 0x7FFFFFFFu) return -1;
  }
  return (int64_t)n;
}

/* Reads exactly n bytes unless the file ends first; returns the count read, -1 on error. */
static long read_full(int fd, void* buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    long r = dspc_platform_read(fd, (char*)buf + got, n - got);
    if (r < 0) return -1;
    if (r == 0) break;
    got += (size_t)r;
  }
  return (long)got;
}

static void text_param_file(dspc_text* t, const dspc_param_desc* p, const char* path) {
  dspc_text_str(t, p->name);
  dspc_text_str(t, ": '");
  dspc_text_str(t, path);
  dspc_text_str(t, "': ");
}

static int read_input(const dspc_param_desc* p, const char* path, void* data, size_t nbytes) {
  int fd = dspc_platform_open_read(path);
  if (fd < 0) {
    text_param_file(begin_message(), p, path);
    dspc_text_str(&message, "cannot open for reading");
    return -1;
  }
  dspc_text* m = begin_message();
  text_param_file(m, p, path);
  size_t prefix_len = m->len;
  uint32_t preamble_len = 0, dict_len = 0;
  dspc_npy_header h;
  long got = read_full(fd, header_buf, 10);
  int status = got < 0 ? -1 : dspc_npy_parse_preamble(header_buf, (size_t)got, &preamble_len, &dict_len, m);
  if (status > 0) {
    got = read_full(fd, header_buf + 10, 2);
    status = got == 2 ? dspc_npy_parse_preamble(header_buf, 12, &preamble_len, &dict_len, m) : -1;
  }
  if (status == 0) {
    got = read_full(fd, header_buf, dict_len);
    status = got == (long)dict_len ? dspc_npy_parse_dict((const char*)header_buf, dict_len, &h, m) : -1;
  }
  if (status && m->len == prefix_len) dspc_text_str(m, "read error or truncated .npy header");
  if (status == 0) {
    char want[4];
    descr_of(p, want);
    int same_type = h.kind == want[1] && h.bytes == p->bits / 8;
    int same_shape = h.ndim == p->ndim;
    for (uint32_t i = 0; same_shape && i < h.ndim; i++) same_shape = h.shape[i] == p->shape[i];
    if (!same_type || !same_shape) {
      dspc_text_str(m, "expected dtype '");
      dspc_text_str(m, want);
      dspc_text_str(m, "' and shape ");
      text_shape(m, p->ndim, p->shape);
      dspc_text_str(m, ", the file has '");
      dspc_text_str(m, h.descr);
      dspc_text_str(m, "' and shape ");
      text_shape(m, h.ndim, h.shape);
      status = -1;
    }
  }
  if (status == 0) {
    got = read_full(fd, data, nbytes);
    char extra;
    if (got != (long)nbytes) {
      dspc_text_str(m, "expected ");
      dspc_text_u64(m, nbytes);
      dspc_text_str(m, " bytes of data, the file has ");
      dspc_text_i64(m, got < 0 ? 0 : got);
      status = -1;
    } else if (read_full(fd, &extra, 1) != 0) {
      dspc_text_str(m, "the file has more data than its shape holds");
      status = -1;
    }
  }
  dspc_platform_close(fd);
  return status;
}

static int write_output(const dspc_param_desc* p, const char* path, const void* data, size_t nbytes) {
  char descr[4];
  descr_of(p, descr);
  size_t header_len = dspc_npy_write_header(header_buf, sizeof header_buf, descr, p->ndim, p->shape);
  int fd = dspc_platform_open_write(path);
  if (fd < 0 || header_len == 0) {
    text_param_file(begin_message(), p, path);
    dspc_text_str(&message, "cannot open for writing");
    if (fd >= 0) dspc_platform_close(fd);
    return -1;
  }
  long w1 = 0, w2 = 0;
  for (size_t done = 0; done < header_len && w1 >= 0; done += (size_t)w1)
    if ((w1 = dspc_platform_write(fd, header_buf + done, header_len - done)) <= 0) w1 = -1;
  for (size_t done = 0; w1 >= 0 && done < nbytes && w2 >= 0; done += (size_t)w2)
    if ((w2 = dspc_platform_write(fd, (const char*)data + done, nbytes - done)) <= 0) w2 = -1;
  int closed = dspc_platform_close(fd);
  if (w1 < 0 || w2 < 0 || closed < 0) {
    text_param_file(begin_message(), p, path);
    dspc_text_str(&message, "write failed");
    return -1;
  }
  return 0;
}

static int pick_function(const char* func_name, const dspc_func_desc** out) {
  dspc_text* m = begin_message();
  if (__dspc_num_funcs == 0) {
    dspc_text_str(m, "the program contains no functions");
    return -1;
  }
  if (!func_name && __dspc_num_funcs == 1) {
    *out = &__dspc_funcs[0];
    return 0;
  }
  for (uint32_t i = 0; func_name && i < __dspc_num_funcs; i++) {
    if (dspc_str_eq(__dspc_funcs[i].name, func_name)) {
      *out = &__dspc_funcs[i];
      return 0;
    }
  }
  if (func_name) {
    dspc_text_str(m, "no function named '");
    dspc_text_str(m, func_name);
    dspc_text_str(m, "'");
  } else {
    dspc_text_str(m, "the program has ");
    dspc_text_u64(m, __dspc_num_funcs);
    dspc_text_str(m, " functions; choose one with --func=NAME");
  }
  dspc_text_str(m, " (functions:");
  for (uint32_t i = 0; i < __dspc_num_funcs; i++) {
    dspc_text_char(m, ' ');
    dspc_text_str(m, __dspc_funcs[i].name);
  }
  dspc_text_char(m, ')');
  return -1;
}

/* Every binding names a parameter, no parameter twice, every parameter bound. Fills paths. */
static int match_bindings(const dspc_func_desc* f, size_t num_bindings, const char** paths) {
  dspc_text* m = begin_message();
  for (uint32_t i = 0; i < f->num_params; i++) paths[i] = NULL;
  for (size_t b = 0; b < num_bindings; b++) {
    uint32_t i = 0;
    while (i < f->num_params && !name_is(&bindings[b], f->params[i].name)) i++;
    if (i == f->num_params) {
      dspc_text_str(m, f->name);
      dspc_text_str(m, " has no parameter named '");
      text_binding_name(m, &bindings[b]);
      dspc_text_str(m, "'");
      return -1;
    }
    if (paths[i]) {
      dspc_text_str(m, "parameter ");
      dspc_text_str(m, f->params[i].name);
      dspc_text_str(m, " is given more than once");
      return -1;
    }
    paths[i] = bindings[b].path;
  }
  for (uint32_t i = 0; i < f->num_params; i++) {
    if (paths[i]) continue;
    dspc_text_str(m, "missing ");
    dspc_text_str(m, f->params[i].name);
    dspc_text_str(m, "=PATH for ");
    dspc_text_str(m, f->params[i].is_output ? "output" : "input");
    dspc_text_str(m, " parameter ");
    dspc_text_str(m, f->params[i].name);
    dspc_text_str(m, " of ");
    dspc_text_str(m, f->name);
    return -1;
  }
  return 0;
}

int dspc_main(int argc, char** argv) {
  const char* func_name = NULL;
  const char* capacity_arg = NULL;
  size_t num_bindings = 0;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    if (dspc_str_eq(a, "--help") || dspc_str_eq(a, "-h")) {
      write_all(1, kUsage, sizeof kUsage - 1);
      return kExitOk;
    }
    if (starts_with(a, "--vtcm-capacity=")) {
      capacity_arg = a + 16;
      continue;
    }
    if (starts_with(a, "--func=")) {
      func_name = a + 7;
      continue;
    }
    const char* eq = a;
    while (*eq && *eq != '=') eq++;
    if (a[0] == '-' || *eq != '=' || eq == a) {
      dspc_text_str(begin_message(), a[0] == '-' ? "unknown option '" : "expected PARAM=PATH, got '");
      dspc_text_str(&message, a);
      dspc_text_str(&message, "' (see --help)");
      return report(kExitUsage);
    }
    if (num_bindings == kMaxBindings) {
      dspc_text_str(begin_message(), "too many PARAM=PATH arguments");
      return report(kExitUsage);
    }
    bindings[num_bindings].name = a;
    bindings[num_bindings].name_len = (size_t)(eq - a);
    bindings[num_bindings].path = eq + 1;
    num_bindings++;
  }

  if (capacity_arg) {
    uint64_t bytes;
    if (dspc_parse_u64(capacity_arg, &bytes) || bytes > 0xFFFFFFFFu) {
      dspc_text_str(begin_message(), "--vtcm-capacity expects a byte count, got '");
      dspc_text_str(&message, capacity_arg);
      dspc_text_str(&message, "'");
      return report(kExitUsage);
    }
    if (dspc_vtcm_set_capacity((uint32_t)bytes, dspc_context_default())) {
      dspc_text_str(begin_message(), dspc_get_last_error(dspc_context_default()));
      return report(kExitUsage);
    }
  }

  const dspc_func_desc* f;
  if (pick_function(func_name, &f)) return report(kExitUsage);
  if (f->num_params > kMaxBindings) {
    dspc_text_str(begin_message(), "too many parameters");
    return report(kExitUsage);
  }
  static const char* paths[kMaxBindings];
  static void* args[kMaxBindings];
  static size_t sizes[kMaxBindings];
  if (match_bindings(f, num_bindings, paths)) return report(kExitUsage);

  for (uint32_t i = 0; i < f->num_params; i++) {
    const dspc_param_desc* p = &f->params[i];
    int64_t nbytes = bytes_of(p);
    /* Mapped memory is zero-filled and page aligned, beyond the 128 bytes kernels assume. */
    args[i] = nbytes < 0 ? NULL : dspc_platform_map(nbytes ? (size_t)nbytes : 1);
    sizes[i] = (size_t)nbytes;
    if (!args[i]) {
      dspc_text_str(begin_message(), "cannot allocate the buffer of parameter ");
      dspc_text_str(&message, p->name);
      dspc_text_str(&message, " (shape ");
      text_shape(&message, p->ndim, p->shape);
      dspc_text_char(&message, ')');
      return report(kExitUsage);
    }
    if (!p->is_output && read_input(p, paths[i], args[i], sizes[i])) return report(kExitUsage);
  }

  dspc_set_last_error("", dspc_context_default());
  int32_t status = f->packed(args, dspc_context_default());
  if (status != 0) {
    dspc_text* m = begin_message();
    const char* err = dspc_get_last_error(dspc_context_default());
    if (err[0]) {
      dspc_text_str(m, err);
    } else {
      dspc_text_str(m, f->name);
      dspc_text_str(m, " failed with status ");
      dspc_text_i64(m, status);
    }
    return report(kExitKernel);
  }

  for (uint32_t i = 0; i < f->num_params; i++) {
    const dspc_param_desc* p = &f->params[i];
    if (p->is_output && write_output(p, paths[i], args[i], sizes[i])) return report(kExitUsage);
  }
  return kExitOk;
}
