// A host shared module built from a test .dsp with `dspc --emit=so --target=host` and loaded
// with dlopen(): the fixture the tests in tests/so/ share. The module imports the runtime's
// symbols (errors, the VTCM pool, the workspace, ...) from the test process, which links
// runtime-support and exports them with -rdynamic.
#pragma once

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "dspc_runtime.h"

namespace dspc::testing {

class HostModule {
 public:
  // Builds tests/so/NAME.dsp into a file of this process's own (CTest runs a suite's tests as
  // parallel processes) and loads it. False, with the reason in `error`, on failure.
  bool load(const std::string& name, std::string& error) {
    source_ = std::string(DSPC_SOURCE_DIR) + "/tests/so/" + name + ".dsp";
    path_ = std::string(DSPC_TEST_WORK_DIR) + "/" + name + "-host-" + std::to_string(getpid()) + ".so";
    std::string cmd = std::string(DSPC_EXE) + " " + source_ + " --target=host --emit=so -o " + path_;
    if (std::system(cmd.c_str()) != 0) {
      error = "failed: " + cmd;
      return false;
    }
    handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) error = dlerror();
    return handle_ != nullptr;
  }
  void unload() {
    if (handle_) dlclose(handle_);
    handle_ = nullptr;
    if (!path_.empty()) std::remove(path_.c_str());
  }
  void* symbol(const char* name) const { return handle_ ? dlsym(handle_, name) : nullptr; }
  dspc_call_fn entry(const char* name) const { return reinterpret_cast<dspc_call_fn>(symbol(name)); }
  const std::string& source() const { return source_; }

 private:
  std::string source_, path_;
  void* handle_ = nullptr;
};

}  // namespace dspc::testing
