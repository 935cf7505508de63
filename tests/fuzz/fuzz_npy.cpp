// Fuzz target: the .npy reader (compiler/interp/Npy.cpp over runtime-support/common/npy.c, the
// codec the device runner shares), then the rendering `dspc run` prints. Input: a .npy file.
#include <exception>

#include "compiler/interp/Npy.h"
#include "FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dspc;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  Tensor t;
  std::string error;
  try {
    if (!read_npy(in, t, error)) {
      if (error.empty()) fuzz::finding("read_npy failed without a message", "");
      fuzz::report(error);
      return 0;
    }
    if (static_cast<int64_t>(t.data.size()) != t.num_elements() * t.dtype.bytes())
      fuzz::finding("read_npy returned data that does not match the shape", "");
    std::string shown = format_tensor("A", t);
    fuzz::report("ok " + shown.substr(0, shown.find(" = ")));
  } catch (const std::exception& e) {
    fuzz::finding(std::string("exception escaped read_npy: ") + e.what(), "");
  }
  return 0;
}
