#include <pthread.h>

#include <cstdio>

#include "driver/Driver.h"

namespace {

struct Args {
  int argc;
  char** argv;
  int status;
};

void* run(void* p) {
  auto* a = static_cast<Args*>(p);
  a->status = dspc::driver_main(a->argc, a->argv);
  return nullptr;
}

}  // namespace

// The compiler's passes recurse over the IR, so deeply nested programs need a deep stack: run
// the driver on a thread with 512 MiB of (lazily committed) stack instead of the default 8.
int main(int argc, char** argv) {
  Args args{argc, argv, 1};
  pthread_attr_t attr;
  pthread_t thread;
  if (pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, size_t(512) << 20) == 0 &&
      pthread_create(&thread, &attr, run, &args) == 0) {
    pthread_join(thread, nullptr);
    return args.status;
  }
  std::fprintf(stderr, "dspc: warning: cannot create a thread with a large stack; using the default\n");
  run(&args);
  return args.status;
}
