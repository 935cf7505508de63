/* The platform layer: the few services runtime-support needs from the system it runs on.
 *
 * Device builds get these from platform_linux.c (raw Linux system calls, no libc; the numbers
 * and the system-call primitive come from syscall_hexagon.h or syscall_x86_64.h) and _start
 * from platform_hexagon.c or platform_x86_64.c. The host unit tests link tests/host_platform.c, which uses libc, so the
 * pool and workspace compile unchanged into both. */
#ifndef DSPC_PLATFORM_H
#define DSPC_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Zero-filled, page-aligned memory; NULL on failure. */
void* dspc_platform_map(size_t nbytes);
void dspc_platform_unmap(void* ptr, size_t nbytes);

/* File descriptors; negative results are -errno. */
int dspc_platform_open_read(const char* path);
int dspc_platform_open_write(const char* path); /* create or truncate, mode 0644 */
long dspc_platform_read(int fd, void* buf, size_t n);
long dspc_platform_write(int fd, const void* buf, size_t n);
int dspc_platform_close(int fd);
__attribute__((noreturn)) void dspc_platform_exit(int code);

/* The runner's entry, called by the platform's _start. */
int dspc_main(int argc, char** argv);

#ifdef __cplusplus
}
#endif

#endif
