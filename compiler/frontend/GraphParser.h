// The `graph` form of .dsp (README, "Graphs"): syntax, then the checks against the program's
// funcs. Internal to the .dsp parser (DspParser.cpp).
#pragma once

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
struct GraphCallDecl {
  std::vector<GraphName> results;
  std::optional<GraphName> placement;  // the word after '@'
  GraphName func;
  std::vector<GraphName> args;
  Span args_end;  // the ')'
};

struct GraphDecl {
  std::string name;
  Span span;
  std::vector<GraphParamDecl> inputs, outputs;
  std::vector<GraphCallDecl> calls;
  Span end;  // the closing '}'
};

// Parses a graph whose `graph` keyword is the current token. After a syntax error, skips to
// the next top-level `func` or `graph` and returns nullopt.
std::optional<GraphDecl> parse_graph_syntax(TokenStream& ts, ErrorLog& log);

// Checks a graph against `program`'s funcs and builds it; nullopt after reporting errors.
std::optional<Graph> check_graph(const GraphDecl& decl, const TensorProgram& program, ErrorLog& log);

}  // namespace dspc::frontend
