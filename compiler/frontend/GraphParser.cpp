// The `graph` form: a dataflow graph of calls to the file's funcs.
//
// 1. Syntax: `graph NAME(INPUTS) -> (RESULTS) { [@host] NAMES = [@host] FUNC(ARGS) ... }`, one call a
//    statement (`;` or a new line between them). A syntax error skips the graph.
// 2. Meaning, in source order: the signature's tensors; each call's callee, placement and
//    results (a result named in the signature must match its declared dtype and shape; `_`
//    discards one); then every call's arguments against the callee's inputs (arity, dtype,
//    shape; a tensor may be defined later in the text, since the graph is dataflow); then
//    results never computed, tensors never read, and cycles (Kahn's algorithm; a node left
//    over lies on or behind a cycle, and the walk back along its inputs finds one).
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

#include "compiler/frontend/GraphParser.h"
#include "compiler/ir/Printer.h"

namespace dspc::frontend {

namespace {

std::string type_str(DataType t, const std::vector<int64_t>& shape) { return t.str() + shape_str(shape); }

// `W`, `2 * W + 1`, `W - 2` (the coefficients are below 2^31 in magnitude).
std::string show_extent(const GenericExtent& e) {
  std::string s = e.mul == 1 ? e.param : std::to_string(e.mul) + " * " + e.param;
  if (e.add > 0) s += " + " + std::to_string(e.add);
  if (e.add < 0) s += " - " + std::to_string(-e.add);
  return s;
}

std::string join_params(const GenericSignature& g) {
  std::string s;
  for (const std::string& p : g.params) s += (s.empty() ? "" : ", ") + p;
  return s;
}

void skip_to_top(TokenStream& ts) {
  while (!ts.at(Tok::End) &&
         !((ts.at_word("func") || ts.at_word("graph") || ts.at_word("import")) && ts.peek().line_start))
    ts.next();
}

GraphParamDecl param_decl(TokenStream& ts) {
  GraphParamDecl p;
  const Token& name = ts.expect(Tok::Ident, "parameter name");
  p.name = name.text;
  p.span = name.span;
  ts.expect(Tok::Colon);
  const Token& dt = ts.expect(Tok::Ident, "dtype");
  p.dtype = dt.text;
  p.dtype_span = dt.span;
  ts.expect(Tok::LBracket);
  do {
    const Token& t = ts.peek();
    if (t.kind != Tok::Int || t.suffix) ts.fail_expected("extent");
    ts.next();
      p.extents.push_back({t.int_value, t.span});
    } while (ts.accept(Tok::Comma));
    ts.expect(Tok::RBracket);
  return p;
}

void params(TokenStream& ts, std::vector<GraphParamDecl>& out) {
  do {
    out.push_back(param_decl(ts));
  } while (ts.accept(Tok::Comma));
}

// `const NAME: DTYPE[EXTENTS] = [ELEMENTS]`, from the `const`.
GraphConstDecl const_decl(TokenStream& ts) {
  ts.next();
  GraphConstDecl c;
  c.decl = param_decl(ts);
  ts.expect(Tok::Assign, "'=' and the constant's elements");
  std::optional<DataType> t = DataType::parse(c.decl.dtype);
  if (!t || t->is_handle() || c.decl.dtype == "f16") ts.fail(c.decl.dtype_span, "unknown dtype '" + c.decl.dtype + "'");
  std::vector<uint64_t> extents;
  for (const auto& e : c.decl.extents) extents.push_back(e.first);
  uint64_t count = element_count(extents);
  if (count > kMaxSize) ts.fail(c.decl.span, "constant '" + c.decl.name + "' is too large: more than 2^31 elements");
  c.data = std::make_shared<const std::vector<uint8_t>>(
      parse_constant_values(ts, *t, count, "constant '" + c.decl.name + "'"));
  return c;
}

GraphName name_of(const Token& t) { return {t.text, t.span}; }

// `1, 2, PAD = 0>` after a call's `<`: positional arguments first, then named ones, each a
// whole number from 0 to 2^31 - 1.
std::vector<GraphTemplateArg> template_args(TokenStream& ts) {
  std::vector<GraphTemplateArg> out;
  do {
    GraphTemplateArg a;
    if (ts.at(Tok::Ident)) {
      const Token& n = ts.next();
      a.name = n.text;
      a.span = n.span;
      ts.expect(Tok::Assign);
    } else if (!out.empty() && !out.back().name.empty()) {
      ts.fail(ts.peek().span, "a positional argument cannot follow a named one ('NAME = VALUE')");
    }
    const Token& v = ts.peek();
    if (v.kind != Tok::Int || v.suffix) ts.fail_expected("a whole number (a generic func's argument)");
    if (v.int_value > static_cast<uint64_t>(INT32_MAX))
      ts.fail(v.span, "a generic func's argument must be a whole number from 0 to 2^31 - 1");
    ts.next();
    a.value = static_cast<int64_t>(v.int_value);
    if (a.name.empty()) a.span = v.span;
    out.push_back(std::move(a));
    if (out.size() > 256) ts.fail(v.span, "more than 256 arguments in '<...>'");
  } while (ts.accept(Tok::Comma));
  ts.expect(Tok::Gt);
  return out;
}

}  // namespace

std::optional<GraphDecl> parse_graph_syntax(TokenStream& ts, ErrorLog& log) {
  GraphDecl g;
  try {
    ts.next();
    const Token& name = ts.expect(Tok::Ident, "graph name");
    g.name = name.text;
    g.span = name.span;
    ts.expect(Tok::LParen);
    if (!ts.at(Tok::RParen)) params(ts, g.inputs);
    ts.expect(Tok::RParen);
    ts.expect(Tok::Arrow);
    ts.expect(Tok::LParen);
    params(ts, g.outputs);
    ts.expect(Tok::RParen);
    ts.expect(Tok::LBrace);
    for (;;) {
      if (ts.accept(Tok::Semi)) continue;
      if (ts.at(Tok::RBrace)) {
        g.end = ts.next().span;
        break;
      }
      if (ts.at(Tok::End)) ts.fail_expected("'}'");
      if (g.calls.size() >= kMaxStages)
        ts.fail(ts.peek().span, "graph '" + g.name + "' has more than " + std::to_string(kMaxStages) + " calls");
      // `const w: f32[2] = [...]` (a call assigning a tensor named `const` has '=' next).
      if (ts.at_word("const") && ts.peek(1).kind == Tok::Ident) {
        g.constants.push_back(const_decl(ts));
        continue;
      }
      GraphCallDecl c;
      // The placement may also open the statement: `@host b = f(a)`.
      if (ts.accept(Tok::At)) c.placement = name_of(ts.expect(Tok::Ident, "placement after '@' (host)"));
      do {
        c.results.push_back(name_of(ts.expect(Tok::Ident, "tensor name or '}'")));
      } while (ts.accept(Tok::Comma));
      ts.expect(Tok::Assign);
      if (ts.at(Tok::At)) {
        if (c.placement) ts.fail(ts.peek().span, "the call already has a placement");
        ts.next();
        c.placement = name_of(ts.expect(Tok::Ident, "placement after '@' (host)"));
      }
      c.func = name_of(ts.expect(Tok::Ident, "function name"));
      if (ts.accept(Tok::Lt)) c.targs = template_args(ts);
      ts.expect(Tok::LParen);
      if (!ts.at(Tok::RParen)) {
        do {
          c.args.push_back(name_of(ts.expect(Tok::Ident, "tensor name")));
        } while (ts.accept(Tok::Comma));
      }
      c.args_end = ts.expect(Tok::RParen).span;
      g.calls.push_back(std::move(c));
    }
  } catch (const Abort&) {
    if (!ts.at(Tok::End)) ts.next();
    skip_to_top(ts);
    return std::nullopt;
  }
  (void)log;
  return g;
}

namespace {

class GraphChecker {
 public:
  GraphChecker(const GraphDecl& d, const TensorProgram& p, GenericInstantiator& generics, ErrorLog& log)
      : d_(d), p_(p), generics_(generics), log_(log) {}

  std::optional<Graph> run() {
    g_.name = d_.name;
    g_.span = d_.span;
    for (const auto& p : d_.inputs) param(p, true);
    for (const auto& p : d_.outputs) param(p, false);
    for (const auto& c : d_.constants) constant(c);
    if (failed_) return std::nullopt;
    if (d_.calls.empty()) return error(d_.span, "graph '" + d_.name + "' has no calls");
    instantiate_generics();
    if (failed_) return std::nullopt;
    for (size_t i = 0; i < d_.calls.size(); ++i) define(d_.calls[i], callee_[i]);
    if (failed_) return std::nullopt;
    for (size_t i = 0; i < d_.calls.size(); ++i) arguments(d_.calls[i], callee_[i], g_.nodes[i]);
    if (failed_) return std::nullopt;
    for (size_t k = 0; k < g_.outputs.size(); ++k) {
      const GraphTensor& t = g_.tensors[static_cast<size_t>(g_.outputs[k])];
      if (t.producer < 0) error(d_.outputs[k].span, "graph result '" + t.name + "' is not computed by any call");
    }
    if (failed_) return std::nullopt;
    unused();
    if (failed_) return std::nullopt;
    cycles();
    if (failed_) return std::nullopt;
    return g_;
  }

 private:
  std::nullopt_t error(Span span, std::string message) {
    log_.error(span, std::move(message));
    failed_ = true;
    return std::nullopt;
  }

  const TensorFunc* find_func(const std::string& name) const {
    for (const TensorFunc& f : p_.funcs)
      if (f.name == name) return &f;
    return nullptr;
  }

  // A constant: a tensor no call computes, compiled into the module.
  void constant(const GraphConstDecl& c) {
    if (ids_.count(c.decl.name)) return (void)error(c.decl.span, "tensor '" + c.decl.name + "' is already defined");
    if (param(c.decl, std::nullopt)) g_.tensors.back().constant = c.data;
  }

  // A graph input (`input` true), result (false) or constant (nullopt); false after an error.
  bool param(const GraphParamDecl& p, std::optional<bool> input) {
    if (ids_.count(p.name)) return (void)error(p.span, "duplicate parameter '" + p.name + "'"), false;
    static const std::set<std::string> kDtypes = {"i8", "i16", "i32", "i64", "u8", "u16",
                                                  "u32", "u64", "f32", "f64", "bool"};
    if (p.dtype == "f16") return (void)error(p.dtype_span, "f16 is not supported yet"), false;
    if (!kDtypes.count(p.dtype)) return (void)error(p.dtype_span, "unknown dtype '" + p.dtype + "'"), false;
    GraphTensor t;
    t.name = p.name;
    t.span = p.span;
    t.dtype = *DataType::parse(p.dtype);
    std::vector<uint64_t> values;
    for (const auto& [v, span] : p.extents) {
      values.push_back(v);
    }
    if (auto m = size_error("tensor '" + p.name + "'", element_count(values), t.dtype))
      return (void)error(p.span, *m), false;
    t.shape.assign(values.begin(), values.end());
    int id = static_cast<int>(g_.tensors.size());
    ids_[p.name] = id;
    g_.tensors.push_back(std::move(t));
    if (input) (*input ? g_.inputs : g_.outputs).push_back(id);
    return true;
  }

  // Each call's callee: the func it names, or the instantiation of the generic func it names
  // at the parameters its arguments' shapes give. An argument's shape is known once the call
  // that computes it has its callee, so the calls resolve in dataflow order, as far as they can.
  void instantiate_generics() {
    std::map<std::string, std::pair<DataType, std::vector<int64_t>>> known;
    for (const GraphTensor& t : g_.tensors) known[t.name] = {t.dtype, t.shape};
    auto learn = [&](const GraphCallDecl& c, const std::string& func) {
      const TensorFunc* f = find_func(func);
      for (size_t k = 0; f && k < c.results.size() && k < f->outputs.size(); ++k)
        if (c.results[k].name != "_" && !known.count(c.results[k].name))
          known[c.results[k].name] = {f->outputs[k]->dtype, f->outputs[k]->shape};
    };
    std::vector<size_t> pending;
    callee_.clear();
    for (size_t i = 0; i < d_.calls.size(); ++i) {
      callee_.push_back(d_.calls[i].func.name);
      if (!find_func(d_.calls[i].func.name) && generics_.generic(d_.calls[i].func.name)) {
        pending.push_back(i);
      } else {
        if (d_.calls[i].targs && find_func(d_.calls[i].func.name))
          error(d_.calls[i].func.span, "'" + d_.calls[i].func.name +
                                           "' is not a generic func, so the call cannot give it '<...>' arguments");
        learn(d_.calls[i], d_.calls[i].func.name);
      }
    }
    for (bool progress = true; progress && !pending.empty();) {
      progress = false;
      for (size_t j = 0; j < pending.size(); ++j) {
        const GraphCallDecl& c = d_.calls[pending[j]];
        bool ready = std::all_of(c.args.begin(), c.args.end(),
                                 [&](const GraphName& a) { return known.count(a.name) > 0; });
        if (!ready) continue;
        if (auto name = infer(c, known)) {
          callee_[pending[j]] = *name;
          learn(c, *name);
        }
        pending.erase(pending.begin() + static_cast<long>(j--));
        progress = true;
      }
    }
    for (size_t i : pending) {
      const GraphCallDecl& c = d_.calls[i];
      for (const GraphName& a : c.args)
        if (!known.count(a.name)) {
          error(a.span, "cannot infer the parameters of generic func '" + c.func.name + "': the shape of '" +
                            a.name +
                            "' is not known (it is undefined, or computed in a cycle through this call)");
          break;
        }
    }
  }

  // The parameters of a generic func from the shapes of a call's arguments, and its
  // instantiation; nullopt after reporting an error.
  std::optional<std::string> infer(
      const GraphCallDecl& c, const std::map<std::string, std::pair<DataType, std::vector<int64_t>>>& known) {
    const GenericSignature& g = *generics_.generic(c.func.name);
    if (c.args.size() != g.input_names.size())
      return error(c.args.size() > g.input_names.size() ? c.args[g.input_names.size()].span : c.args_end,
                   "'" + g.name + "' takes " + plural(g.input_names.size(), "input", "inputs") + ", got " +
                       std::to_string(c.args.size()));
    std::map<std::string, std::pair<int64_t, size_t>> bound;  // parameter -> value, argument
    // The explicit arguments bind first; their "argument" index is kExplicit.
    constexpr size_t kExplicit = SIZE_MAX;
    std::map<std::string, Span> explicit_at;
    if (c.targs) {
      size_t positional = 0;
      for (const GraphTemplateArg& a : *c.targs) {
        std::string param;
        if (a.name.empty()) {
          if (positional >= g.params.size())
            return error(a.span, "'" + g.name + "' takes " + plural(g.params.size(), "parameter", "parameters") +
                                     " <" + join_params(g) + ">, but the call gives more");
          param = g.params[positional++];
        } else {
          if (std::find(g.params.begin(), g.params.end(), a.name) == g.params.end())
            return error(a.span, "'" + g.name + "' has no parameter '" + a.name + "' (its parameters: <" +
                                     join_params(g) + ">)");
          param = a.name;
        }
        if (explicit_at.count(param))
          return error(a.span, "parameter '" + param + "' of '" + g.name + "' is given twice");
        explicit_at[param] = a.span;
        bound.emplace(param, std::make_pair(a.value, kExplicit));
      }
    }
    for (size_t k = 0; k < c.args.size(); ++k) {
      const auto& [dtype, shape] = known.at(c.args[k].name);
      const auto& dims = g.input_dims[k];
      if (shape.size() != dims.size())
        return error(c.args[k].span, "argument " + std::to_string(k + 1) + " of '" + g.name + "' (" +
                                         g.input_names[k] + ") has " +
                                         plural(dims.size(), "dimension", "dimensions") + ", got '" +
                                         c.args[k].name + "' of " + type_str(dtype, shape));
      for (size_t d = 0; d < dims.size(); ++d) {
        const GenericExtent& e = dims[d];
        if (e.param.empty()) continue;
        // shape = mul * P + add, so P = (shape - add) / mul, a whole number (0 when the
        // argument's extent is `add`: `N` of an empty tensor is 0).
        __int128 rest = static_cast<__int128>(shape[d]) - e.add;
        if (rest % e.mul != 0 || rest < 0)
          return error(c.args[k].span, "argument " + std::to_string(k + 1) + " of '" + g.name + "' (" +
                                           g.input_names[k] + ") has extent " + show_extent(e) +
                                           " in dimension " + std::to_string(d) + ", which is " +
                                           std::to_string(shape[d]) + " for no whole " + e.param + " >= 0 ('" +
                                           c.args[k].name + "' is " + type_str(dtype, shape) + ")");
        int64_t value = static_cast<int64_t>(rest / e.mul);
        auto [it, fresh] = bound.emplace(e.param, std::make_pair(value, k));
        if (fresh || it->second.first == value) continue;
        size_t first = it->second.second;
        if (first == kExplicit)
          return error(c.args[k].span, "parameter '" + e.param + "' of '" + g.name + "' is " +
                                           std::to_string(it->second.first) + " by the call's '<...>' but " +
                                           std::to_string(value) + " by argument " + std::to_string(k + 1) +
                                           " ('" + c.args[k].name + "', dimension " + std::to_string(d) + ")");
        return error(c.args[k].span, "parameter '" + e.param + "' of '" + g.name + "' is " +
                                         std::to_string(it->second.first) + " by argument " +
                                         std::to_string(first + 1) + " ('" + c.args[first].name + "') but " +
                                         std::to_string(value) + " by argument " + std::to_string(k + 1) +
                                         " ('" + c.args[k].name + "', dimension " + std::to_string(d) + ")");
      }
    }
    std::vector<int64_t> args;
    for (const std::string& p : g.params) {
      auto it = bound.find(p);
      if (it == bound.end())
        return error(c.func.span,
                     "cannot infer parameter '" + p + "' of generic func '" + g.name +
                         "' from the arguments: no input's extent is a multiple of it plus a constant; give it "
                         "in the call, '" + g.name + "<" + p + " = VALUE>(...)' (or positionally, first "
                         "parameters first)");
      args.push_back(it->second.first);
    }
    auto name = generics_.instantiate(g.name, args, c.func.span);
    if (!name) failed_ = true;
    return name;
  }

  // The callee, the placement and the results of one call.
  void define(const GraphCallDecl& c, const std::string& callee) {
    GraphNode& n = g_.nodes.emplace_back();
    n.func = callee;
    n.span = c.func.span;
    if (c.placement) {
      if (c.placement->name == "host") n.placement = Placement::Host;
      else if (c.placement->name == "device" || c.placement->name == "dsp") n.placement = Placement::Device;
      else error(c.placement->span, "unknown placement '@" + c.placement->name + "' (expected @host or @dsp)");
    }
    const TensorFunc* f = find_func(callee);
    if (!f) {
      bool is_graph = false;
      for (const Graph& g : p_.graphs) is_graph |= g.name == c.func.name;
      if (is_graph || c.func.name == d_.name)
        return (void)error(c.func.span, "'" + c.func.name + "' is a graph; a graph calls funcs only");
      return (void)error(c.func.span, "unknown function '" + c.func.name + "'");
    }
    if (c.results.size() != f->outputs.size())
      return (void)error(c.results[0].span, "'" + f->name + "' gives " + plural(f->outputs.size(), "result", "results") +
                                                ", but the call assigns " + plural(c.results.size(), "name", "names"));
    int node = static_cast<int>(g_.nodes.size()) - 1;
    for (size_t k = 0; k < c.results.size(); ++k) {
      const GraphName& r = c.results[k];
      const Buffer& out = f->outputs[k];
      auto it = ids_.find(r.name);
      if (r.name == "_") {
        GraphTensor t{"_" + std::to_string(g_.tensors.size()), out->dtype, out->shape, r.span, node, int(k), nullptr};
        discarded_.insert(static_cast<int>(g_.tensors.size()));
        n.outputs.push_back(static_cast<int>(g_.tensors.size()));
        g_.tensors.push_back(std::move(t));
        continue;
      }
      if (it != ids_.end()) {
        GraphTensor& t = g_.tensors[static_cast<size_t>(it->second)];
        bool is_result = std::count(g_.outputs.begin(), g_.outputs.end(), it->second) > 0;
        if (!is_result || t.producer >= 0) {
          error(r.span, std::count(g_.inputs.begin(), g_.inputs.end(), it->second)
                            ? "cannot assign to graph input '" + r.name + "'"
                        : t.is_constant() ? "cannot assign to constant '" + r.name + "'"
                                          : "tensor '" + r.name + "' is already defined");
          continue;
        }
        if (t.dtype != out->dtype || t.shape != out->shape) {
          error(r.span, "graph result '" + r.name + "' is declared " + type_str(t.dtype, t.shape) + " but '" + f->name +
                            "' gives " + type_str(out->dtype, out->shape) + " (result " + out->name + ")");
          continue;
        }
        t.producer = node;
        t.output = static_cast<int>(k);
        n.outputs.push_back(it->second);
        continue;
      }
      ids_[r.name] = static_cast<int>(g_.tensors.size());
      n.outputs.push_back(static_cast<int>(g_.tensors.size()));
      g_.tensors.push_back({r.name, out->dtype, out->shape, r.span, node, static_cast<int>(k), nullptr});
    }
  }

  void arguments(const GraphCallDecl& c, const std::string& callee, GraphNode& n) {
    const TensorFunc* f = find_func(callee);
    if (c.args.size() != f->inputs.size())
      return (void)error(c.args.size() > f->inputs.size() ? c.args[f->inputs.size()].span : c.args_end,
                         "'" + f->name + "' takes " + plural(f->inputs.size(), "input", "inputs") + ", got " +
                             std::to_string(c.args.size()));
    for (size_t k = 0; k < c.args.size(); ++k) {
      const GraphName& a = c.args[k];
      auto it = ids_.find(a.name);
      if (it == ids_.end() || a.name == "_") {
        error(a.span, "undefined tensor '" + a.name + "'");
        continue;
      }
      const GraphTensor& t = g_.tensors[static_cast<size_t>(it->second)];
      const Buffer& in = f->inputs[k];
      if (t.is_constant() && n.placement == Placement::Host) {
        error(a.span, "constant '" + a.name + "' is read by a @host call; constants are compiled into the device "
                      "module, so only device calls read them");
        continue;
      }
      if (t.dtype != in->dtype || t.shape != in->shape) {
        error(a.span, "argument " + std::to_string(k + 1) + " of '" + f->name + "' (" + in->name + ") must be " +
                          type_str(in->dtype, in->shape) + ", got '" + a.name + "' of " + type_str(t.dtype, t.shape));
        continue;
      }
      n.inputs.push_back(it->second);
      read_.insert(it->second);
    }
  }

  void unused() {
    for (size_t i = 0; i < g_.tensors.size(); ++i) {
      int id = static_cast<int>(i);
      if (read_.count(id) || discarded_.count(id) || std::count(g_.outputs.begin(), g_.outputs.end(), id)) continue;
      const GraphTensor& t = g_.tensors[i];
      error(t.span, t.is_constant()  ? "constant '" + t.name + "' is never used"
                    : t.producer < 0 ? "graph input '" + t.name + "' is never used"
                                     : "tensor '" + t.name + "' is never used (name a result you do not need '_')");
    }
  }

  void cycles() {
    auto preds = g_.predecessors();
    size_t n = g_.nodes.size();
    std::vector<int> missing(n);
    std::vector<std::vector<int>> succs(n);
    for (size_t i = 0; i < n; ++i) {
      missing[i] = static_cast<int>(preds[i].size());
      for (int p : preds[i]) succs[static_cast<size_t>(p)].push_back(static_cast<int>(i));
    }
    std::vector<int> ready;
    for (size_t i = 0; i < n; ++i)
      if (!missing[i]) ready.push_back(static_cast<int>(i));
    size_t done = 0;
    while (!ready.empty()) {
      int v = ready.back();
      ready.pop_back();
      ++done;
      for (int s : succs[static_cast<size_t>(v)])
        if (--missing[static_cast<size_t>(s)] == 0) ready.push_back(s);
    }
    if (done == n) return;
    // Walk back from the first node left along inputs that are left too, until a node repeats.
    int v = 0;
    while (missing[static_cast<size_t>(v)] == 0) ++v;
    std::vector<int> path;
    std::vector<int> seen(n, -1);
    while (seen[static_cast<size_t>(v)] < 0) {
      seen[static_cast<size_t>(v)] = static_cast<int>(path.size());
      path.push_back(v);
      for (int p : preds[static_cast<size_t>(v)])
        if (missing[static_cast<size_t>(p)] > 0) {
          v = p;
          break;
        }
    }
    std::vector<int> cycle(path.begin() + seen[static_cast<size_t>(v)], path.end());
    std::reverse(cycle.begin(), cycle.end());  // producers first
    int first = *std::min_element(cycle.begin(), cycle.end());
    std::rotate(cycle.begin(), std::find(cycle.begin(), cycle.end(), first), cycle.end());
    auto describe = [&](int node) {
      const GraphNode& gn = g_.nodes[static_cast<size_t>(node)];
      std::string s = g_.tensors[static_cast<size_t>(gn.outputs[0])].name + " = " + gn.func + "(";
      for (size_t i = 0; i < gn.inputs.size(); ++i) s += (i ? ", " : "") + g_.tensors[static_cast<size_t>(gn.inputs[i])].name;
      return s + ")";
    };
    std::string text;
    for (int c : cycle) text += describe(c) + " -> ";
    text += describe(first);
    error(g_.nodes[static_cast<size_t>(first)].span, "the calls of graph '" + g_.name + "' form a cycle: " + text);
  }

  const GraphDecl& d_;
  const TensorProgram& p_;
  GenericInstantiator& generics_;
  ErrorLog& log_;
  std::vector<std::string> callee_;  // per call
  Graph g_;
  bool failed_ = false;
  std::map<std::string, int> ids_;
  std::set<int> read_, discarded_;
};

}  // namespace

std::optional<Graph> check_graph(const GraphDecl& decl, const TensorProgram& program,
                                 GenericInstantiator& generics, ErrorLog& log) {
  return GraphChecker(decl, program, generics, log).run();
}

}  // namespace dspc::frontend
