#include "compiler/ir/Check.h"

#include <cstring>

namespace dspc {

void fail_check(const char* file, int line, const char* condition, const std::string& message) {
  // The path from the source root is enough to find the check, and stays the same wherever
  // the tree was built.
  const char* shown = file;
  for (const char* root : {"compiler/", "passes/", "codegen/", "driver/", "targets/"}) {
    if (const char* p = std::strstr(file, root)) {
      shown = p;
      break;
    }
  }
  throw InternalError(std::string(shown) + ":" + std::to_string(line) + ": check failed: " + condition + ": " +
                      message);
}

}  // namespace dspc
