// User-facing errors with source locations:
//   file:line:col: error: message
//   <the source line>
//        ^
// Messages start lower-case and end without a period.
#pragma once

#include <deque>
#include <ostream>
#include <string>

#include "compiler/ir/SourceLocation.h"

namespace dspc {

struct SourceFile {
  std::string path;  // "<stdin>" for -
  std::string text;
};

class Diagnostics {
 public:
  explicit Diagnostics(std::ostream& out, const SourceFile* source = nullptr) : out_(out), source_(source) {}

  void set_source(const SourceFile* source) { source_ = source; }
  const SourceFile* source() const { return source_; }

  // Keeps a file the source imports, for as long as its spans may be reported, and gives its
  // id (Span::file, 1 for the first). `imported()` lists them in that order.
  uint32_t add_imported(SourceFile file);
  const std::deque<SourceFile>& imported() const { return imported_; }

  // An error at `span`; without a valid span, only "file: error: message".
  void error(Span span, const std::string& message);
  // An error with no file at all ("dspc: error: message").
  void error(const std::string& message);
  // A note attached to the previous error.
  void note(Span span, const std::string& message);
  // A compiler bug, not the user's mistake: "dspc: internal error in WHERE: message", where
  // WHERE is "pass NAME", "codegen" or "the parser". Counts as an error; a driver exits
  // with code 2 when there was one (user errors give 1).
  void internal_error(const std::string& where, const std::string& message);

  int error_count() const { return errors_; }
  bool has_errors() const { return errors_ > 0; }
  bool has_internal_errors() const { return internal_errors_ > 0; }

 private:
  void report(const char* severity, Span span, const std::string& message);

  std::ostream& out_;
  const SourceFile* source_;
  std::deque<SourceFile> imported_;
  int errors_ = 0;
  int internal_errors_ = 0;
};

}  // namespace dspc
