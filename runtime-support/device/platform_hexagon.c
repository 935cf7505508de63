/* Start-up for Hexagon Linux user mode (qemu-hexagon). The system calls are in
 * platform_linux.c, with syscall_hexagon.h. */

/* Align sp for HVX spills (128 bytes), clear the frame pointer for debuggers and pass the
 * initial sp (argc, argv...) to dspc_start_c in start.c. */
__attribute__((naked, noreturn)) void _start(void) {
  __asm__ volatile(
      "r0 = r29\n"
      "r29 = and(r29, #-128)\n"
      "r30 = #0\n"
      "call dspc_start_c\n");
}
