/* The last error: one static message, set by the runtime and by generated code's callees,
 * read by the caller after a non-zero return. Single-threaded, like the rest of the device
 * runtime. */
#include "dspc_runtime.h"
#include "runtime-support/common/text.h"

enum { kLastErrorCapacity = 512 };
static char last_error[kLastErrorCapacity];

void dspc_set_last_error(const char* msg) {
  if (msg == last_error) return; /* re-setting the current message */
  dspc_text t;
  dspc_text_init(&t, last_error, sizeof last_error);
  if (msg) dspc_text_str(&t, msg);
}

const char* dspc_get_last_error(void) {
  return last_error;
}
