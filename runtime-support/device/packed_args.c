/* The messages of the checked packed entries (make-packed-api). Generated code checks the
 * argument descriptors itself and calls dspc_report_bad_arg only on a mismatch, so this file
 * decides nothing a kernel relies on: it finds the first thing argument `index` (or the count,
 * for index -1) got wrong, in the order the entry checks them, and words it. No printf: the
 * text is built with the bounded helpers of common/text.h. */
#include "dspc_runtime.h"
#include "runtime-support/common/text.h"

enum { kMaxShownDims = 8 };

static void put_dtype(dspc_text* t, uint32_t type_code, uint32_t bits) {
  static const char* const prefix[] = {"i", "u", "f"};
  if (type_code == DSPC_TYPE_BOOL && bits == 8) {
    dspc_text_str(t, "bool");
    return;
  }
  if (type_code > DSPC_TYPE_FLOAT) {
    dspc_text_str(t, "type");
    dspc_text_u64(t, type_code);
    dspc_text_char(t, ':');
  } else {
    dspc_text_str(t, prefix[type_code]);
  }
  dspc_text_u64(t, bits);
}

static void put_shape(dspc_text* t, const int64_t* shape, int64_t ndim) {
  dspc_text_char(t, '[');
  if (!shape && ndim > 0) {
    dspc_text_str(t, "null shape]");
    return;
  }
  for (int64_t d = 0; d < ndim; ++d) {
    if (d) dspc_text_str(t, ", ");
    if (d == kMaxShownDims) {
      dspc_text_str(t, "...");
      break;
    }
    dspc_text_i64(t, shape[d]);
  }
  dspc_text_char(t, ']');
}

static void put_expected(dspc_text* t, const dspc_param_desc* p) {
  put_dtype(t, p->type_code, p->bits);
  put_shape(t, p->shape, p->ndim);
}

static void put_got(dspc_text* t, const dspc_arg* a) {
  put_dtype(t, a->type_code, a->bits);
  if (a->ndim < 0) {
    dspc_text_str(t, " of rank ");
    dspc_text_i64(t, a->ndim);
    return;
  }
  put_shape(t, a->shape, a->ndim);
}

int32_t dspc_report_bad_arg(const dspc_func_desc* f, const dspc_arg* args, int32_t num_args, int32_t index,
                            int32_t align, dspc_context* ctx) {
  char buf[256];
  dspc_text t;
  dspc_text_init(&t, buf, sizeof buf);
  dspc_text_str(&t, f->name);
  dspc_text_str(&t, ": ");
  if (index < 0 || (uint32_t)index >= f->num_params || !args) {
    dspc_text_str(&t, "expected ");
    dspc_text_u64(&t, f->num_params);
    dspc_text_str(&t, f->num_params == 1 ? " argument, got " : " arguments, got ");
    dspc_text_i64(&t, num_args);
    if (num_args == (int32_t)f->num_params && !args) dspc_text_str(&t, " with a null argument array");
    dspc_set_last_error(buf, ctx);
    return DSPC_ERR_BAD_ARGUMENT;
  }
  const dspc_param_desc* p = &f->params[index];
  const dspc_arg* a = &args[index];
  dspc_text_str(&t, "argument ");
  dspc_text_i64(&t, index);
  dspc_text_str(&t, " (");
  dspc_text_str(&t, p->name);
  dspc_text_str(&t, "): ");
  if (!a->data) {
    dspc_text_str(&t, "data pointer is null");
  } else if (align > 1 && ((uintptr_t)a->data & (uintptr_t)(align - 1)) != 0) {
    dspc_text_str(&t, "data pointer ");
    dspc_text_hex(&t, (uintptr_t)a->data);
    dspc_text_str(&t, " is not aligned to ");
    dspc_text_i64(&t, align);
    dspc_text_str(&t, " bytes");
  } else {
    int dtype_ok = a->type_code == p->type_code && a->bits == p->bits;
    int rank_ok = a->ndim == (int32_t)p->ndim;
    dspc_text_str(&t, !dtype_ok ? "expected dtype " : !rank_ok ? "expected rank " : "expected shape ");
    if (dtype_ok && !rank_ok) {
      dspc_text_u64(&t, p->ndim);
      dspc_text_str(&t, " ");
    }
    put_expected(&t, p);
    dspc_text_str(&t, ", got ");
    put_got(&t, a);
  }
  dspc_set_last_error(buf, ctx);
  return DSPC_ERR_BAD_ARGUMENT;
}
