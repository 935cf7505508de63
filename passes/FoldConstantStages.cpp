// fold-constant-stages
#include "passes/FoldConstantStages.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "compiler/interp/Interpreter.h"
#include "compiler/ir/IRVisitor.h"

namespace dspc {

namespace {

// Loads of the frontier stages' buffers read the new parameters instead.
class Rebind : public IRMutator {
 public:
  explicit Rebind(const std::map<const BufferNode*, Buffer>& to) : to_(to) {}
  Buffer mutate_buffer(const Buffer& b) override {
    auto it = to_.find(b.get());
    return it == to_.end() ? b : it->second;
  }

 private:
  const std::map<const BufferNode*, Buffer>& to_;
};

const TensorFunc* find_func(const TensorProgram& p, const std::string& name) {
  for (const TensorFunc& f : p.funcs)
    if (f.name == name) return &f;
  return nullptr;
}

// What folding a call of `f` with constant parameters `constant` does: the stages it computes
// at compile time, the frontier among them (read by a remaining stage), the parameters the
// specialization keeps.
struct Plan {
  std::vector<bool> folded;          // per stage
  std::vector<size_t> frontier;      // stage indices, in stage order
  std::vector<size_t> kept_params;   // f.inputs indices, in order
  std::vector<size_t> const_params;  // the constant parameters the folded stages read
  bool ok = false;
};

Plan plan_folding(const TensorFunc& f, const std::vector<bool>& constant) {
  Plan plan;
  std::set<const BufferNode*> known;  // constant parameters and folded stages
  std::map<const BufferNode*, size_t> param;
  for (size_t i = 0; i < f.inputs.size(); ++i) {
    param[f.inputs[i].get()] = i;
    if (constant[i]) known.insert(f.inputs[i].get());
  }
  std::set<const BufferNode*> results;
  for (const Buffer& b : f.outputs) results.insert(b.get());
  std::vector<std::set<const BufferNode*>> reads;
  plan.folded.assign(f.stages.size(), false);
  for (size_t s = 0; s < f.stages.size(); ++s) {
    const Stage& st = f.stages[s];
    reads.push_back(buffers_loaded(st.body));
    // A stage placed in another memory (set_scope, cache_read into VTCM) stays where it is put.
    if (st.is_result || results.count(st.out.get()) || reads.back().empty() || st.out->scope != StorageScope::Global)
      continue;
    bool all = std::all_of(reads.back().begin(), reads.back().end(), [&](const BufferNode* b) { return known.count(b) > 0; });
    if (!all) continue;
    plan.folded[s] = true;
    known.insert(st.out.get());
  }
  // A remaining stage's schedule that names a folded stage (compute_at, store_at, prefetch of
  // it) keeps the call as it is.
  std::set<std::string> folded_names;
  for (size_t s = 0; s < f.stages.size(); ++s)
    if (plan.folded[s]) folded_names.insert(f.stages[s].out->name);
  std::set<const BufferNode*> read_by_rest;
  for (size_t s = 0; s < f.stages.size(); ++s) {
    if (plan.folded[s]) continue;
    read_by_rest.insert(reads[s].begin(), reads[s].end());
    for (const SchedulePrimitive& sp : f.stages[s].schedule)
      if (folded_names.count(sp.consumer) || folded_names.count(sp.tensor)) return plan;
  }
  std::set<const BufferNode*> const_read;
  int64_t frontier_bytes = 0;
  for (size_t s = 0; s < f.stages.size(); ++s) {
    if (!plan.folded[s]) continue;
    for (const BufferNode* b : reads[s])
      if (param.count(b)) const_read.insert(b);
    if (read_by_rest.count(f.stages[s].out.get())) {
      plan.frontier.push_back(s);
      frontier_bytes += f.stages[s].out->size_bytes();
    }
  }
  if (plan.frontier.empty()) return plan;
  int64_t source_bytes = 0;
  for (const BufferNode* b : const_read) source_bytes += b->size_bytes();
  if (frontier_bytes > 2 * source_bytes + 65536) return plan;
  for (size_t i = 0; i < f.inputs.size(); ++i) {
    if (!constant[i] || read_by_rest.count(f.inputs[i].get())) plan.kept_params.push_back(i);
    if (constant[i] && const_read.count(f.inputs[i].get())) plan.const_params.push_back(i);
  }
  plan.ok = true;
  return plan;
}

// The folded stages alone, as a func from the constant parameters they read to the frontier.
TensorFunc folding_func(const TensorFunc& f, const Plan& plan) {
  TensorFunc e;
  e.name = f.name + "_fold";
  e.span = f.span;
  for (size_t i : plan.const_params) e.inputs.push_back(f.inputs[i]);
  for (size_t s : plan.frontier) e.outputs.push_back(f.stages[s].out);
  for (size_t s = 0; s < f.stages.size(); ++s) {
    if (!plan.folded[s]) continue;
    Stage st = f.stages[s];
    st.is_result = std::find(plan.frontier.begin(), plan.frontier.end(), s) != plan.frontier.end();
    st.schedule.clear();
    e.stages.push_back(std::move(st));
  }
  return e;
}

// The func without its folded stages, reading the frontier as parameters after the kept ones.
TensorFunc specialization(const TensorFunc& f, const Plan& plan, const std::string& name) {
  TensorFunc g;
  g.name = name;
  g.span = f.span;
  g.outputs = f.outputs;
  for (size_t i : plan.kept_params) g.inputs.push_back(f.inputs[i]);
  std::map<const BufferNode*, Buffer> to;
  for (size_t s : plan.frontier) {
    const BufferNode& b = *f.stages[s].out;
    Buffer p = BufferNode::make(b.name, b.dtype, b.shape, StorageScope::Global, b.span);
    to[&b] = p;
    g.inputs.push_back(p);
  }
  Rebind rebind(to);
  for (size_t s = 0; s < f.stages.size(); ++s) {
    if (plan.folded[s]) continue;
    Stage st = f.stages[s];
    st.body = rebind.mutate(st.body);
    g.stages.push_back(std::move(st));
  }
  return g;
}

bool name_taken(const Graph& g, const std::string& name) {
  for (const GraphTensor& t : g.tensors)
    if (t.name == name) return true;
  return false;
}

// Drops the constants no node reads (and no result is), renumbering the rest.
void drop_unread_constants(Graph& g) {
  std::set<int> read(g.outputs.begin(), g.outputs.end());
  for (const GraphNode& n : g.nodes) read.insert(n.inputs.begin(), n.inputs.end());
  std::vector<int> id(g.tensors.size(), -1);
  std::vector<GraphTensor> kept;
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (g.tensors[t].is_constant() && !read.count(static_cast<int>(t))) continue;
    id[t] = static_cast<int>(kept.size());
    kept.push_back(g.tensors[t]);
  }
  if (kept.size() == g.tensors.size()) return;
  auto renumber = [&](std::vector<int>& v) {
    for (int& t : v) t = id[static_cast<size_t>(t)];
  };
  renumber(g.inputs);
  renumber(g.outputs);
  for (GraphNode& n : g.nodes) {
    renumber(n.inputs);
    renumber(n.outputs);
  }
  g.tensors = std::move(kept);
}

// Whether `name` is an instantiation of one of the program's generic funcs (`f_3_4`).
bool is_instantiation(const TensorProgram& p, const std::string& name) {
  for (const GenericFuncInfo& g : p.generics) {
    if (name.size() <= g.name.size() + 1 || name.compare(0, g.name.size(), g.name) != 0 || name[g.name.size()] != '_')
      continue;
    if (name.find_first_not_of("0123456789_", g.name.size()) == std::string::npos) return true;
  }
  return false;
}

}  // namespace

std::map<std::string, std::string> fold_constant_stages(TensorProgram& p, const std::set<std::string>& keep) {
  std::map<std::string, std::string> folded_from;
  std::map<std::string, std::string> made;  // "<func>/<constant mask>" -> its specialization
  std::set<std::string> called_before, names;
  for (const TensorFunc& f : p.funcs) names.insert(f.name);
  for (Graph& g : p.graphs) {
    for (GraphNode& node : g.nodes) {
      called_before.insert(node.func);
      const TensorFunc* f = find_func(p, node.func);
      if (!f || f->inputs.size() != node.inputs.size()) continue;
      std::vector<bool> constant;
      std::string mask;
      for (int t : node.inputs) {
        constant.push_back(g.tensors[static_cast<size_t>(t)].is_constant());
        mask += constant.back() ? '1' : '0';
      }
      if (mask.find('1') == std::string::npos) continue;
      Plan plan = plan_folding(*f, constant);
      if (!plan.ok) continue;
      // The frontier's values, from the constants' (the interpreter: the reference semantics).
      std::vector<Tensor> in, out;
      for (size_t i : plan.const_params) {
        const GraphTensor& t = g.tensors[static_cast<size_t>(node.inputs[i])];
        in.push_back(Tensor{t.dtype, t.shape, *t.constant});
      }
      std::string error;
      if (!interpret(folding_func(*f, plan), in, out, error)) continue;  // the call computes them
      std::string key = f->name + "/" + mask;
      auto it = made.find(key);
      if (it == made.end()) {
        std::string name = f->name + "_folded";
        while (names.count(name)) name += "_";
        names.insert(name);
        TensorFunc s = specialization(*f, plan, name);
        folded_from[name] = f->name;
        it = made.emplace(key, name).first;
        p.funcs.push_back(std::move(s));  // f may dangle from here on
      }
      std::vector<int> inputs;
      for (size_t i : plan.kept_params) inputs.push_back(node.inputs[i]);
      std::string base = g.tensors[static_cast<size_t>(node.outputs[0])].name;
      const TensorFunc& spec = *find_func(p, it->second);
      for (size_t k = 0; k < out.size(); ++k) {
        const Buffer& b = spec.inputs[plan.kept_params.size() + k];
        GraphTensor t;
        t.name = base + "_" + b->name;
        while (name_taken(g, t.name)) t.name += "_";
        t.dtype = b->dtype;
        t.shape = b->shape;
        t.span = node.span;
        t.constant = std::make_shared<const std::vector<uint8_t>>(std::move(out[k].data));
        inputs.push_back(static_cast<int>(g.tensors.size()));
        g.tensors.push_back(std::move(t));
      }
      node.inputs = std::move(inputs);
      node.func = it->second;
    }
    drop_unread_constants(g);
  }
  if (folded_from.empty()) return folded_from;
  // The instantiations only graph calls asked for that no call makes any more.
  std::set<std::string> called;
  for (const Graph& g : p.graphs)
    for (const GraphNode& n : g.nodes) called.insert(n.func);
  p.funcs.erase(std::remove_if(p.funcs.begin(), p.funcs.end(),
                               [&](const TensorFunc& f) {
                                 return called_before.count(f.name) && !called.count(f.name) && !keep.count(f.name) &&
                                        is_instantiation(p, f.name);
                               }),
                p.funcs.end());
  return folded_from;
}

}  // namespace dspc
