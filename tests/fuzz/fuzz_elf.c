/* Fuzz target: the device server's ELF loader (runtime-support/server/elf_loader.c), built for
 * the host with libc's mmap in place of its system calls (server/sys_host.h). Nothing of a
 * loaded module runs: the loader must refuse any bytes that are not a module it can lay out,
 * relocate and read the table of, with a message, and never touch memory outside the file
 * and the image. Input: an ELF file (the seeds are dspc's and the session tests' modules). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dspc_runtime.h"
#include "elf_loader.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
/* Defined by replay_main.c only: prints the outcome for the regression tests. */
void dspc_fuzz_report(const char* outcome) __attribute__((weak));

static void finding(const char* what) {
  fprintf(stderr, "dspc fuzz finding: %s\n", what);
  fflush(stderr);
  abort();
}

/* The server's export table resolves these (exports.c); any non-null address does here. */
static char exported;
static void* resolve(const char* name) {
  static const char* const names[] = {"HexagonBackendAllocateVTCM", "HexagonBackendFreeVTCM", "DspcWorkspaceAlloc",
                                      "DspcWorkspaceFree", "dspc_report_bad_arg", "dspc_set_last_error",
                                      "memcpy", "memset"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(names[i], name) == 0) return &exported;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  /* The server hands the loader bytes in device memory at a 128-byte aligned offset. */
  uint8_t* file = (uint8_t*)aligned_alloc(128, (size + 127) & ~(size_t)127);
  if (size) memcpy(file, data, size);
  dspc_module_image m;
  dspc_set_last_error("", dspc_context_default());
  if (dspc_elf_load(file, size, resolve, &m) != 0) {
    if (!dspc_get_last_error(dspc_context_default())[0]) finding("a refused module without a message");
    if (dspc_fuzz_report) dspc_fuzz_report(dspc_get_last_error(dspc_context_default()));
  } else {
    if (!m.base || !m.mapped) finding("a loaded module without an image");
    /* In 64 bits: the product must not wrap here as it would in a 32-bit size_t. */
    uint64_t table_bytes = (uint64_t)m.num_funcs * sizeof(dspc_func_desc);
    if (table_bytes > m.mapped || !dspc_image_contains(&m, m.funcs, (size_t)table_bytes))
      finding("the function table is outside the image");
    if (dspc_fuzz_report) dspc_fuzz_report("loaded");
    dspc_elf_unload(&m);
    if (m.base) finding("unload left the image mapped");
  }
  free(file);
  return 0;
}
