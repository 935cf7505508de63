/* The C start-up of a dspc executable on Linux without libc, shared by the Hexagon and x86-64
 * targets: platform_<arch>.c's _start passes the initial stack pointer here, and this calls the
 * runner's dspc_main and exits with its result. Kept apart from the system call layer
 * (platform_linux.c), which the runner calls, so the runtime's files call each other in one
 * direction only (test runtime/device-call-graph). */
#include "platform.h"

/* The kernel leaves the stack pointer pointing at argc, then argv[0..argc-1], NULL, envp.
 * Not static: _start, in platform_<arch>.c, calls it. */
void dspc_start_c(long* sp);
void dspc_start_c(long* sp) {
  int argc = (int)sp[0];
  char** argv = (char**)(sp + 1);
  dspc_platform_exit(dspc_main(argc, argv));
}
