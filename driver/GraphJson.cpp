// The schema (README "Graphs"): {"format": "dspc-graph", "version": 1, "graphs": [G...]}, where
// each G is a TVM graph-executor graph (nodes, arg_nodes, node_row_ptr, heads, attrs with
// dltype and shape per entry) whose call nodes come in execution order, with a placement per
// node and the device groups of group-device-calls.
#include "driver/GraphJson.h"

#include <nlohmann/json.hpp>

namespace dspc {

namespace {

using Json = nlohmann::ordered_json;

// TVM's dtype names.
std::string tvm_dtype(DataType t) {
  if (t.is_bool()) return "bool";
  std::string base = t.is_float() ? "float" : t.is_uint() ? "uint" : "int";
  return base + std::to_string(t.bits);
}

Json graph(const Graph& g, const GraphPlan* plan) {
  Json nodes = Json::array(), arg_nodes = Json::array(), row_ptr = Json::array(), heads = Json::array();
  Json dltype = Json::array(), shape = Json::array(), placement = Json::array(), names = Json::array();
  std::vector<std::pair<int, int>> entry(g.tensors.size(), {-1, 0});  // tensor -> (json node, output)
  int entries = 0;
  auto add_node = [&](Json n, const std::vector<int>& outputs, const char* where) {
    int id = static_cast<int>(nodes.size());
    row_ptr.push_back(entries);
    for (size_t k = 0; k < outputs.size(); ++k) {
      const GraphTensor& t = g.tensors[static_cast<size_t>(outputs[k])];
      entry[static_cast<size_t>(outputs[k])] = {id, static_cast<int>(k)};
      dltype.push_back(tvm_dtype(t.dtype));
      shape.push_back(t.shape);
      names.push_back(t.name);
      ++entries;
    }
    placement.push_back(where);
    nodes.push_back(std::move(n));
    return id;
  };
  for (int t : g.inputs) {
    int id = add_node(Json{{"op", "null"}, {"name", g.tensors[static_cast<size_t>(t)].name}, {"inputs", Json::array()}},
                      {t}, "host");
    arg_nodes.push_back(id);
  }
  // Constants are null nodes too (as TVM's params are), compiled in, so not arg_nodes.
  for (size_t t = 0; t < g.tensors.size(); ++t)
    if (g.tensors[t].is_constant())
      add_node(Json{{"op", "null"}, {"name", g.tensors[t].name}, {"inputs", Json::array()},
                    {"attrs", Json{{"constant", "1"}}}},
               {static_cast<int>(t)}, "device");
  std::vector<int> order;
  if (plan) order = plan->order;
  else
    for (size_t i = 0; i < g.nodes.size(); ++i) order.push_back(static_cast<int>(i));
  std::vector<int> json_id(g.nodes.size(), -1);
  for (int i : order) {
    const GraphNode& n = g.nodes[static_cast<size_t>(i)];
    Json inputs = Json::array();
    for (int t : n.inputs) inputs.push_back({entry[static_cast<size_t>(t)].first, entry[static_cast<size_t>(t)].second, 0});
    Json attrs{{"func_name", n.func},
               {"num_inputs", std::to_string(n.inputs.size())},
               {"num_outputs", std::to_string(n.outputs.size())},
               {"flatten_data", "0"},
               {"placement", placement_name(n.placement)}};
    json_id[static_cast<size_t>(i)] =
        add_node(Json{{"op", "tvm_op"}, {"name", g.tensors[static_cast<size_t>(n.outputs[0])].name}, {"attrs", attrs},
                      {"inputs", inputs}},
                 n.outputs, placement_name(n.placement));
  }
  row_ptr.push_back(entries);
  for (int t : g.outputs) heads.push_back({entry[static_cast<size_t>(t)].first, entry[static_cast<size_t>(t)].second, 0});
  Json j;
  j["name"] = g.name;
  j["nodes"] = nodes;
  j["arg_nodes"] = arg_nodes;
  j["node_row_ptr"] = row_ptr;
  j["heads"] = heads;
  j["attrs"] = Json{{"dltype", {"list_str", dltype}},
                    {"shape", {"list_shape", shape}},
                    {"entry_name", {"list_str", names}},
                    {"placement", {"list_str", placement}}};
  if (plan) {
    Json steps = Json::array();
    for (const GraphStep& s : plan->steps) {
      Json ns = Json::array();
      for (int n : s.nodes) ns.push_back(json_id[static_cast<size_t>(n)]);
      Json step{{"placement", placement_name(s.side)}, {"nodes", ns}};
      if (s.side == Placement::Device) {
        Json ins = Json::array(), outs = Json::array();
        for (int t : s.inputs) ins.push_back(g.tensors[static_cast<size_t>(t)].name);
        for (int t : s.outputs) outs.push_back(g.tensors[static_cast<size_t>(t)].name);
        step["func"] = s.func;
        step["inputs"] = ins;
        step["outputs"] = outs;
      }
      steps.push_back(step);
    }
    j["device_groups"] = plan->device_groups();
    j["grouped"] = plan->grouped;
    j["steps"] = steps;
  }
  return j;
}

}  // namespace

std::string graph_json(const TensorProgram& program, const Module& m) {
  Json j;
  j["format"] = "dspc-graph";
  j["version"] = 1;
  j["graphs"] = Json::array();
  for (const Graph& g : program.graphs) {
    const GraphPlan* plan = nullptr;
    for (const GraphPlan& p : m.graph_plans)
      if (p.graph == g.name) plan = &p;
    j["graphs"].push_back(graph(g, plan));
  }
  return j.dump(2) + "\n";
}

}  // namespace dspc
