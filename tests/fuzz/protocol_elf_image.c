/* The ELF loader's image checks and unloading for fuzz_protocol.c, which supplies its own
 * dspc_elf_load (a fake module of host functions): the real one is renamed out of the way. */
#define dspc_elf_load dspc_elf_load_not_used_by_fuzz_protocol
#include "elf_loader.c"
