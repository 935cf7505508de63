/* The server's export table: the runtime-support functions a loaded module may leave undefined
 * (the ones libdspc_rt.a defines for generated code). Declared through their assembler names,
 * so no C prototype (memcpy's, floor's) has to be repeated here. */
#include <stddef.h>

#define DSPC_EXPORTS(X)                                                                                     \
  X(HexagonBackendAllocateVTCM)                                                                             \
  X(HexagonBackendFreeVTCM) X(DspcWorkspaceAlloc) X(DspcWorkspaceFree) X(dspc_set_last_error)               \
  X(dspc_report_bad_arg)                                                                                    \
      X(dspc_get_last_error) X(dspc_vtcm_capacity) X(dspc_vtcm_bytes_in_use) X(memcpy) X(memmove) X(memset) \
          X(memcmp) X(strlen) X(floor) X(floorf) X(sqrt) X(sqrtf) X(fmod) X(fmodf) X(__extendhfsf2)         \
              X(__truncsfhf2) X(__truncdfhf2) X(__hexagon_divsi3) X(__hexagon_udivsi3) X(__hexagon_modsi3)  \
                  X(__hexagon_umodsi3) X(__hexagon_divdi3) X(__hexagon_udivdi3) X(__hexagon_moddi3)         \
                      X(__hexagon_umoddi3) X(__hexagon_divdf3) X(__hexagon_divsf3) X(__hexagon_sqrtf)       \
                          X(__hexagon_adddf3) X(__hexagon_subdf3) X(__hexagon_muldf3)                       \
                              X(__hexagon_memcpy_likely_aligned_min32bytes_mult8bytes)

#define DECLARE(name) extern char dspc_export_##name __asm__(#name);
DSPC_EXPORTS(DECLARE)

static const struct {
  const char* name;
  void* address;
} exports[] = {
#define ENTRY(name) {#name, &dspc_export_##name},
    DSPC_EXPORTS(ENTRY)};

static int same(const char* a, const char* b) {
  while (*a && *a == *b) a++, b++;
  return *a == *b;
}

void* dspc_server_resolve(const char* name);
void* dspc_server_resolve(const char* name) {
  for (size_t i = 0; i < sizeof exports / sizeof exports[0]; i++)
    if (same(exports[i].name, name)) return exports[i].address;
  return NULL;
}
