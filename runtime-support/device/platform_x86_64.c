/* Start-up for x86-64 Linux, no libc: the host target runs the same runner natively. The
 * system calls are in platform_linux.c, with syscall_x86_64.h. */

/* The ABI wants rsp 16-byte aligned before a call; align to 128 like the Hexagon side. The
 * initial rsp (argc, argv...) goes to dspc_start_c in start.c. */
__attribute__((naked, noreturn)) void _start(void) {
  __asm__ volatile(
      "xor %ebp, %ebp\n"
      "mov %rsp, %rdi\n"
      "and $-128, %rsp\n"
      "call dspc_start_c\n"
      "hlt\n");
}
