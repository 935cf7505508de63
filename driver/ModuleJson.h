// The JSON description written beside a shared module (--emit=so): out.so -> out.so.json.
#pragma once

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

// The description of `m` (schema in README, "The module description"), as JSON text.
std::string module_json(const Module& m, const std::vector<EntryInfo>& entries, const Target& target,
                        const std::string& module_file);

}  // namespace dspc
