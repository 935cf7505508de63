// The JSON description written beside a shared module (--emit=so): out.so -> out.so.json.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "codegen/Codegen.h"
#include "compiler/ir/IR.h"
#include "targets/Target.h"

namespace dspc {

// The sum of the constant byte counts of every HexagonBackendAllocateVTCM call in `f`: each
// VTCM allocation the function makes, counted once where the code makes it (an allocation in a
// loop is freed before the next iteration, so it counts once). Siblings that are never live
// together are added too, so this is an upper bound of the function's peak VTCM use.
int64_t vtcm_bytes(const PrimFunc& f);

// What --emit=json adds to the description: where the module came from, how it was compiled,
// and its code size (README, "dspc --emit=json").
struct ModuleJsonExtras {
  std::string source;               // the input file ("-": standard input)
  int opt_level = 2;
  std::vector<std::string> passes;  // the passes that ran, in order
  int64_t text_bytes = 0;           // executable sections of the object --emit=obj writes
  std::map<std::string, int64_t> function_bytes;  // per function symbol (kernels only are reported)
};

// The description of `m` (schema in README, "The module description"), as JSON text.
// `module_file` empty gives "module": null. With `extras`, the --emit=json fields too.
std::string module_json(const Module& m, const std::vector<EntryInfo>& entries, const Target& target,
                        const std::string& module_file, const ModuleJsonExtras* extras = nullptr);

}  // namespace dspc
