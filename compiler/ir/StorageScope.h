// Storage scopes: where a buffer lives. The one table of their names.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace dspc {

// Every scope once: enumerator, the name .dsp and TIR text print (and parse), an alias the
// parsers also accept ("" for none), and whether a .dsp schedule may choose it with set_scope
// ("local" is only for temporaries the compiler makes, such as reduction accumulators).
#define DSPC_STORAGE_SCOPES(X)  \
  X(Global, "global", "", true) \
  X(Local, "local", "", false)  \
  X(Vtcm, "local.vtcm", "global.vtcm", true)

enum class StorageScope {
#define DSPC_SCOPE_ENUMERATOR(e, name, alias, schedulable) e,
  DSPC_STORAGE_SCOPES(DSPC_SCOPE_ENUMERATOR)
#undef DSPC_SCOPE_ENUMERATOR
};

// The canonical name: "global", "local", "local.vtcm".
const char* storage_scope_name(StorageScope s);
// A scope by its name or alias ("global.vtcm" is "local.vtcm"); nullopt if there is none.
std::optional<StorageScope> parse_storage_scope(std::string_view name);
// Whether set_scope in a .dsp schedule accepts the scope.
bool is_schedulable_scope(StorageScope s);
// The schedulable scopes' names for a diagnostic: "\"global\" or \"local.vtcm\"".
std::string schedulable_scope_names();

}  // namespace dspc
