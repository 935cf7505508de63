/* The baseline of the session benchmark: the most trivial qemu-hexagon server there is. It
 * echoes every byte it reads on stdin to stdout, until end of file. */
#include "platform.h"

int dspc_main(int argc, char** argv) {
  char c;
  while (dspc_platform_read(0, &c, 1) == 1)
    if (dspc_platform_write(1, &c, 1) != 1) return 1;
  return 0;
}
