#include "compiler/ir/Diagnostics.h"

namespace dspc {

void Diagnostics::error(Span span, const std::string& message) {
  ++errors_;
  report("error", span, message);
}

void Diagnostics::error(const std::string& message) {
  ++errors_;
  out_ << "dspc: error: " << message << "\n";
}

void Diagnostics::internal_error(const std::string& where, const std::string& message) {
  ++errors_;
  ++internal_errors_;
  out_ << "dspc: internal error in " << where << ": " << message << "\n";
}

void Diagnostics::note(Span span, const std::string& message) { report("note", span, message); }

uint32_t Diagnostics::add_imported(SourceFile file) {
  imported_.push_back(std::move(file));
  return static_cast<uint32_t>(imported_.size());
}

void Diagnostics::report(const char* severity, Span span, const std::string& message) {
  const SourceFile* source = source_;
  if (span.file != 0 && span.file <= imported_.size()) source = &imported_[span.file - 1];
  if (!source) {
    out_ << "dspc: " << severity << ": " << message << "\n";
    return;
  }
  if (!span.valid()) {
    out_ << source->path << ": " << severity << ": " << message << "\n";
    return;
  }
  out_ << source->path << ":" << span.line << ":" << span.col << ": " << severity << ": " << message << "\n";
  // Echo the line and put a caret under the column (tabs kept so the caret lines up).
  const std::string& t = source->text;
  size_t pos = 0;
  for (uint32_t l = 1; l < span.line && pos != std::string::npos; ++l) {
    pos = t.find('\n', pos);
    if (pos != std::string::npos) ++pos;
  }
  if (pos == std::string::npos || pos > t.size()) return;
  size_t end = t.find('\n', pos);
  std::string line = t.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  out_ << line << "\n";
  std::string caret;
  for (uint32_t c = 1; c < span.col && c - 1 < line.size(); ++c) caret += line[c - 1] == '\t' ? '\t' : ' ';
  out_ << caret << "^\n";
}

}  // namespace dspc
