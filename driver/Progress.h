// Progress on stderr for work that takes a while (README "dspc run"): after about 2 s of one
// command, a line such as `dspc: running net (inference 3 of 10) 4 s` is shown and kept up to
// date, on a terminal only, and never with --quiet. The line is erased before anything else is
// written to std::cerr, and when the work ends.
#pragma once

#include <string>

namespace dspc {

// Starts showing progress (when `enabled`) for this command; the destructor stops it.
class ProgressScope {
 public:
  explicit ProgressScope(bool enabled);
  ~ProgressScope();
  ProgressScope(const ProgressScope&) = delete;
  ProgressScope& operator=(const ProgressScope&) = delete;
};

// Whether progress is shown for this command: stderr is a terminal and --quiet is not given.
bool progress_wanted(bool quiet);

// What the command is doing now ("" : nothing worth showing, and the line is erased at once,
// e.g. before a program that writes to the terminal runs). Cheap; safe on any thread.
void progress_stage(const std::string& what);
// A count within the stage ("inference 3 of 10", "stage T, 2 of 7"); "" clears it.
void progress_detail(const std::string& what);

}  // namespace dspc
