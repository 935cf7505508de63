/* The device server's ELF loader: a Hexagon shared module (ELF32 ET_DYN, as `ld.lld -shared`
 * writes it) copied into the server's own executable memory. qemu does not re-translate code
 * the host writes into shared pages, so code never runs from the arena. */
#ifndef DSPC_SERVER_ELF_LOADER_H
#define DSPC_SERVER_ELF_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include "dspc_runtime.h"

typedef struct {
  char* base;    /* the image: vaddr 0 of the module */
  size_t mapped; /* bytes mapped at base */
  const dspc_func_desc* funcs;
  uint32_t num_funcs;
} dspc_module_image;

/* Resolves an undefined symbol of a module: the server's export table. NULL when unknown. */
typedef void* (*dspc_symbol_resolver)(const char* name);

/* Loads the file's bytes: checks the ELF header and program headers, maps the PT_LOAD segments
 * into fresh private executable memory, applies R_HEX_RELATIVE, R_HEX_GLOB_DAT and
 * R_HEX_JMP_SLOT relocations (symbols: the module's own, then resolve()), and finds
 * __dspc_funcs / __dspc_num_funcs, checking the table lies in the image. 0 on success; -1 with
 * a last error ("bad ELF: ...", "unsupported relocation type ...", "unresolved symbol '...'")
 * and nothing left mapped otherwise. */
int dspc_elf_load(const uint8_t* file, uint64_t nbytes, dspc_symbol_resolver resolve, dspc_module_image* out);
void dspc_elf_unload(dspc_module_image* m);
/* 1 if [p, p + n) lies inside the image (for the table's pointers). */
int dspc_image_contains(const dspc_module_image* m, const void* p, size_t n);
/* 1 if s is a NUL-terminated string inside the image. */
int dspc_image_has_string(const dspc_module_image* m, const char* s);

#endif
