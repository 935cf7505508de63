// Round trip: for every golden input and example, the TIR printed after every pass parses back
// and prints to identical text.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "driver/Compile.h"
#include "driver/Lower.h"
#include "compiler/frontend/Parser.h"
#include "compiler/ir/Printer.h"

#ifndef DSPC_SOURCE_DIR
#error "DSPC_SOURCE_DIR must name the source tree"
#endif

namespace dspc {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> inputs() {
  std::vector<fs::path> out;
  for (const char* dir : {"tests/golden", "examples", "tests/e2e"}) {
    fs::path root = fs::path(DSPC_SOURCE_DIR) / dir;
    if (!fs::exists(root)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      auto ext = e.path().extension();
      if (e.is_regular_file() && (ext == ".dsp" || ext == ".tir")) out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Splits --print-after-all output into (pass, TIR text) pairs.
std::vector<std::pair<std::string, std::string>> split_trace(const std::string& trace) {
  const std::string marker = "// ----- TIR after ";
  std::vector<std::pair<std::string, std::string>> out;
  size_t pos = trace.find(marker);
  while (pos != std::string::npos) {
    size_t name_end = trace.find(" -----\n", pos);
    std::string pass = trace.substr(pos + marker.size(), name_end - pos - marker.size());
    size_t body = name_end + 7;
    size_t next = trace.find(marker, body);
    out.emplace_back(pass, trace.substr(body, next == std::string::npos ? std::string::npos : next - body));
    pos = next;
  }
  return out;
}

TEST(RoundTrip, EveryGoldenInputAfterEveryPass) {
  int files = 0, modules = 0;
  for (const auto& path : inputs()) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    SourceFile src{path.string(), ss.str()};
    std::ostringstream diag_out, trace;
    Diagnostics diag(diag_out);
    LowerOptions o;
    o.target = *lookup_target("hexagon-v68");
    o.print_after_all = true;
    o.trace = &trace;
    if (!compile_source(src, o, diag)) continue;  // an error test: nothing to round-trip
    ++files;
    for (const auto& [pass, text] : split_trace(trace.str())) {
      SourceFile printed{path.string() + " after " + pass, text};
      std::ostringstream err;
      Diagnostics d2(err, &printed);
      auto m = parse_tir(printed, d2);
      ASSERT_TRUE(m.has_value()) << printed.path << ":\n" << err.str() << "\n" << text;
      // The trace after group-device-calls starts with comment lines (the graph's order and
      // groups) that are not TIR; the rest must print back exactly.
      std::string tir = text;
      while (tir.rfind("// ", 0) == 0) tir = tir.substr(tir.find('\n') + 1);
      EXPECT_EQ(print_module(*m), tir) << printed.path;
      ++modules;
    }
  }
  // A round trip over nothing proves nothing: the examples alone give dozens of modules.
  EXPECT_GE(files, 3);
  EXPECT_GE(modules, 5 * files);
}

}  // namespace
}  // namespace dspc
