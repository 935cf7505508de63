// The `graph` form of .dsp (README, "Graphs"): syntax, then the checks against the program's
// funcs. Internal to the .dsp parser (DspParser.cpp).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/frontend/ParserCommon.h"
#include "compiler/ir/IR.h"

namespace dspc::frontend {

struct GraphParamDecl {
  std::string name;
  Span span;
  std::string dtype;
  Span dtype_span;
  std::vector<std::pair<uint64_t, Span>> extents;
};

struct GraphName {
  std::string name;
  Span span;
};

// [@PLACEMENT] NAME, ... = [@PLACEMENT] FUNC(ARG, ...)   (the placement at most once)
// An explicit argument of a generic func in a graph call: `f<1, PAD = 0>(x)`. `name` is
// empty for a positional one.
struct GraphTemplateArg {
  std::string name;
  int64_t value = 0;
  Span span;
};

struct GraphCallDecl {
  std::vector<GraphName> results;
  std::optional<GraphName> placement;  // the word after '@'
  GraphName func;
  std::optional<std::vector<GraphTemplateArg>> targs;  // `<...>` after the name, when written
  std::vector<GraphName> args;
  Span args_end;  // the ')'
};

// `const NAME: DTYPE[EXTENTS] = [ELEMENTS]` in a graph's body: a constant tensor.
struct GraphConstDecl {
  GraphParamDecl decl;
  std::shared_ptr<const std::vector<uint8_t>> data;  // little-endian elements
};

struct GraphDecl {
  std::string name;
  Span span;
  std::vector<GraphParamDecl> inputs, outputs;
  std::vector<GraphConstDecl> constants;
  std::vector<GraphCallDecl> calls;
  Span end;  // the closing '}'
};

// Parses a graph whose `graph` keyword is the current token. After a syntax error, skips to
// the next top-level `func` or `graph` and returns nullopt.
std::optional<GraphDecl> parse_graph_syntax(TokenStream& ts, ErrorLog& log);

// An input's extent as `mul * param + add` (`W`, `W + 2`, `2 * W - 1`), when it has that form
// with one parameter; `param` is empty for an extent that infers nothing (a constant, or an
// expression of another form, `H * W`, `W / 2`).
struct GenericExtent {
  std::string param;
  int64_t mul = 1;
  int64_t add = 0;
};

// What a graph call needs of a generic func to infer its parameters from the arguments.
struct GenericSignature {
  std::string name;
  std::vector<std::string> params;
  std::vector<std::string> input_names;
  std::vector<std::vector<GenericExtent>> input_dims;  // per input, per dimension
};

// The .dsp parser's generic funcs, as a graph call sees them.
class GenericInstantiator {
 public:
  virtual ~GenericInstantiator() = default;
  // The generic func `name`, or null when there is none.
  virtual const GenericSignature* generic(const std::string& name) = 0;
  // Instantiates it (once per argument list) into the program's funcs, and gives the
  // instantiation's name; nullopt after reporting its errors (which name the call at `at`).
  virtual std::optional<std::string> instantiate(const std::string& name, const std::vector<int64_t>& args,
                                                 Span at) = 0;
};

// Checks a graph against `program`'s funcs and builds it; nullopt after reporting errors. A
// call of a generic func instantiates it through `generics` (which adds to `program`).
std::optional<Graph> check_graph(const GraphDecl& decl, const TensorProgram& program,
                                 GenericInstantiator& generics, ErrorLog& log);

}  // namespace dspc::frontend
