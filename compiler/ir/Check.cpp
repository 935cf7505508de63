#include "compiler/ir/Check.h"

namespace dspc {

// `file` is already the path from the source root: the build maps it (-fmacro-prefix-map in
// the top CMakeLists.txt), so messages read the same wherever the tree was built.
void fail_check(const char* file, int line, const char* condition, const std::string& message) {
  throw InternalError(std::string(file) + ":" + std::to_string(line) + ": check failed: " + condition + ": " +
                      message);
}

}  // namespace dspc
