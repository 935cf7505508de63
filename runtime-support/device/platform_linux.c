/* Platform layer for Linux without libc, shared by the Hexagon (qemu-hexagon user mode) and
 * x86-64 (host) targets: platform.h's services as raw system calls. The architecture's
 * syscall_<arch>.h supplies the system call primitive and numbers. It calls nothing else of the
 * runtime: the start-up, which calls the runner's dspc_main, is start.c. */
#include "platform.h"

#if defined(__hexagon__)
#include "syscall_hexagon.h"
#elif defined(__x86_64__)
#include "syscall_x86_64.h"
#else
#error "no Linux system call layer for this architecture"
#endif

enum { AT_FDCWD = -100, O_RDONLY = 0, O_WRONLY = 1, O_CREAT = 0100, O_TRUNC = 01000 };
enum { PROT_READ = 1, PROT_WRITE = 2, MAP_PRIVATE = 0x02, MAP_ANONYMOUS = 0x20 };

/* A result in [-4095, -1] is -errno; on 32-bit Hexagon mmap addresses above 2 GiB look
 * negative too. */
static int is_error(long r) {
  return (unsigned long)r > (unsigned long)-4096L;
}

void* dspc_platform_map(size_t nbytes) {
  if (nbytes == 0 || nbytes > DSPC_MAP_MAX_BYTES) return NULL;
  long r = sys_mmap(0, (long)nbytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return is_error(r) ? NULL : (void*)r;
}

void dspc_platform_unmap(void* ptr, size_t nbytes) {
  if (ptr) syscall6(SYS_MUNMAP, (long)ptr, (long)nbytes, 0, 0, 0, 0);
}

int dspc_platform_open_read(const char* path) {
  return (int)syscall6(SYS_OPENAT, AT_FDCWD, (long)path, O_RDONLY, 0, 0, 0);
}

int dspc_platform_open_write(const char* path) {
  return (int)syscall6(SYS_OPENAT, AT_FDCWD, (long)path, O_WRONLY | O_CREAT | O_TRUNC, 0644, 0, 0);
}

long dspc_platform_read(int fd, void* buf, size_t n) {
  return syscall6(SYS_READ, fd, (long)buf, (long)n, 0, 0, 0);
}

long dspc_platform_write(int fd, const void* buf, size_t n) {
  return syscall6(SYS_WRITE, fd, (long)buf, (long)n, 0, 0, 0);
}

int dspc_platform_close(int fd) {
  return (int)syscall6(SYS_CLOSE, fd, 0, 0, 0, 0, 0);
}

void dspc_platform_exit(int code) {
  for (;;) syscall6(SYS_EXIT_GROUP, code, 0, 0, 0, 0, 0);
}
