/* The .npy codec of both the device runner and the compiler (compiler/interp/Npy.cpp): header
 * parsing (bounds-checked: any bytes give a header or an error, never a crash), the data size
 * checked against the file, and writing. Versions 1.0, 2.0 and 3.0 are read; 1.0 is written. */
#ifndef DSPC_NPY_H
#define DSPC_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "runtime-support/common/text.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { DSPC_NPY_MAX_DIMS = 32, DSPC_NPY_MAX_HEADER = 65536 };

typedef struct {
  char descr[16]; /* as written, e.g. "<i4" */
  char kind;      /* 'i', 'u', 'f' or 'b' */
  uint8_t bytes;  /* element size */
  uint32_t ndim;
  int64_t shape[DSPC_NPY_MAX_DIMS];
} dspc_npy_header;

/* The fixed start of a file: magic, version, header length. n >= 10 bytes at p. On success
 * sets *preamble_len (10 for version 1, 12 otherwise: the caller must supply 12 bytes then)
 * and *dict_len, and returns 0; 1 when 12 bytes are needed but n < 12; -1 with a message. */
int dspc_npy_parse_preamble(const uint8_t* p, size_t n, uint32_t* preamble_len, uint32_t* dict_len,
                            dspc_text* err);

/* The header dictionary, e.g. "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }".
 * Accepts only little-endian (or byte-order-free) int, uint, float and bool dtypes in C
 * order. 0 on success, -1 with a message. */
int dspc_npy_parse_dict(const char* s, size_t n, dspc_npy_header* h, dspc_text* err);

/* A whole header (preamble and dictionary) from a buffer, for tests and callers holding the
 * file in memory. On success also sets *data_offset. */
int dspc_npy_parse(const uint8_t* p, size_t n, dspc_npy_header* h, size_t* data_offset, dspc_text* err);

/* The bytes of data the header's dtype and shape need, which must be exactly the `available`
 * bytes the file holds after the header: checked before anyone allocates what a header claims.
 * 0 on success with *nbytes, -1 with a message. */
int dspc_npy_data_size(const dspc_npy_header* h, uint64_t available, uint64_t* nbytes, dspc_text* err);

/* The descr numpy writes for kind 'i', 'u', 'f' or 'b' and a size in bytes ("<i4", "|u1":
 * one-byte types are byte-order free) into out, NUL-terminated. */
void dspc_npy_descr(char kind, unsigned bytes, char out[4]);

/* Writes the version 1.0 header numpy writes for descr and shape (with its spare room for the
 * first extent to grow, padded to a multiple of 64 bytes). Returns its length, or 0 if it does
 * not fit in cap or ndim > DSPC_NPY_MAX_DIMS (which no reader here would accept). */
size_t dspc_npy_write_header(uint8_t* buf, size_t cap, const char* descr, uint32_t ndim,
                             const int64_t* shape);

#ifdef __cplusplus
}
#endif

#endif
