// The module description: one object per function, in module order, written with nlohmann-json.
#include "driver/ModuleJson.h"

#include <nlohmann/json.hpp>

#include "compiler/ir/Externs.h"
#include "compiler/ir/IRVisitor.h"

namespace dspc {

namespace {

class VtcmBytes : public IRVisitor {
 public:
  int64_t total = 0;
  void visit_Call(const Call* op) override {
    const ExternFunction* alloc = op->call_kind == CallKind::Extern ? find_extern(op->name) : nullptr;
    if (alloc && alloc->role == ExternRole::Allocate && alloc->pool == AllocPool::Vtcm) {
      const IntImm* n = as_int(op->args[alloc->bytes_arg]);
      DSPC_CHECK(n != nullptr, "a VTCM allocation of a size that is not a constant");
      total += n->value;
    }
    IRVisitor::visit_Call(op);
  }
};

}  // namespace

int64_t vtcm_bytes(const PrimFunc& f) {
  VtcmBytes v;
  if (f.body) v.visit(f.body);
  return v.total;
}

std::string module_json(const Module& m, const std::vector<EntryInfo>& entries, const Target& target,
                        const std::string& module_file, const ModuleJsonExtras* extras) {
  nlohmann::ordered_json j;
  j["format"] = "dspc-module";
  j["version"] = 1;
  j["module"] = module_file.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(module_file);
  if (extras) j["source"] = extras->source;
  j["target"] = target.name;
  if (extras) {
    j["opt_level"] = extras->opt_level;
    j["passes"] = extras->passes;
    j["text_bytes"] = extras->text_bytes;
  }
  j["functions"] = nlohmann::ordered_json::array();
  for (const EntryInfo& e : entries) {
    nlohmann::ordered_json f;
    f["name"] = e.name;
    std::string entry;
    for (const PackedFunc& p : m.packed)
      if (p.kernel == e.name) entry = p.name;
    f["entry"] = entry.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(entry);
    f["params"] = nlohmann::ordered_json::array();
    for (const ParamInfo& p : e.params) {
      nlohmann::ordered_json pj;
      pj["name"] = p.name;
      pj["dtype"] = p.dtype.str();
      pj["shape"] = p.shape;
      pj["is_output"] = p.is_output;
      f["params"].push_back(pj);
    }
    int64_t vtcm = 0;
    for (const PrimFunc& k : m.funcs)
      if (k.name == e.name) vtcm = vtcm_bytes(k);
    f["vtcm_bytes"] = vtcm;
    if (extras) {
      auto size = extras->function_bytes.find(e.name);
      f["code_bytes"] = size == extras->function_bytes.end() ? nlohmann::ordered_json(nullptr)
                                                            : nlohmann::ordered_json(size->second);
    }
    j["functions"].push_back(f);
  }
  return j.dump(2) + "\n";
}

}  // namespace dspc
