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

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DSPC_ASAN 1
#endif
#endif
#if defined(DSPC_ASAN) || defined(__SANITIZE_ADDRESS__)
// The sanitizer build (DSPC_SANITIZE): ASan must not use an alternate signal stack of its own.
// lld's output file registers LLVM's signal handlers (RemoveFileOnSignal), which replace the
// driver thread's alternate stack with one from malloc; at the thread's exit ASan would unmap
// that as its own and die ("failed to deallocate"). Outside dspc's code; see README "Tests".
extern "C" const char* __asan_default_options() { return "use_sigaltstack=0"; }
#endif

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
