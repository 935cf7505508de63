#include "compiler/ir/StorageScope.h"

#include <vector>

namespace dspc {

namespace {

struct ScopeRow {
  StorageScope scope;
  const char* name;
  const char* alias;
  bool schedulable;
};

constexpr ScopeRow kScopes[] = {
#define DSPC_SCOPE_ROW(e, name, alias, schedulable) {StorageScope::e, name, alias, schedulable},
    DSPC_STORAGE_SCOPES(DSPC_SCOPE_ROW)
#undef DSPC_SCOPE_ROW
};

const ScopeRow& row(StorageScope s) {
  return kScopes[static_cast<int>(s)];
}

}  // namespace

const char* storage_scope_name(StorageScope s) {
  return row(s).name;
}

std::optional<StorageScope> parse_storage_scope(std::string_view name) {
  for (const ScopeRow& r : kScopes)
    if (name == r.name || (*r.alias && name == r.alias)) return r.scope;
  return std::nullopt;
}

bool is_schedulable_scope(StorageScope s) {
  return row(s).schedulable;
}

std::string schedulable_scope_names() {
  std::vector<std::string> names;
  for (const ScopeRow& r : kScopes)
    if (r.schedulable) names.push_back(std::string("\"") + r.name + "\"");
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

}  // namespace dspc
