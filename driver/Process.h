// What `dspc run` leaves on the machine, and how it goes away: temporary folders, the child
// process (the runner on qemu-hexagon, or a C program), and SIGINT/SIGTERM.
//
// A TempDir is removed when it goes out of scope, and also when dspc is interrupted: the signal
// handler (install_interrupt_cleanup) kills the running child, removes every live TempDir and
// exits with 128 + the signal (130 for SIGINT, 143 for SIGTERM), as a shell reports it.
#pragma once

#include <string>
#include <vector>

namespace dspc {

// SIGINT and SIGTERM clean up and exit 130 / 143. Called once per process (again is harmless).
void install_interrupt_cleanup();

// A temporary folder `dspc-KIND-XXXXXX` in $TMPDIR (default /tmp), removed with its contents
// when the object dies or dspc is interrupted, unless it is kept (--keep-temps, which also says
// where it is on stderr).
class TempDir {
 public:
  TempDir() = default;
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Creates the folder. False, with `error`, when it cannot.
  bool create(const std::string& kind, bool keep, std::string& error);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool keep_ = false;
  int slot_ = -1;  // in the interrupt handler's table
};

// The folder temporary files go to: $TMPDIR if set, else /tmp.
std::string temp_root();

// Runs argv[0] (looked up in PATH) until it exits or `timeout_seconds` pass. Returns its exit
// status, or -1 if it could not be started, timed out or died of a signal (message in `error`).
// Its stderr is captured; so is its stdout with `capture_stdout` (the runner: dspc's stdout
// holds only the results), else it is dspc's (a C program's own output). While it runs, an
// interrupt of dspc kills it; it also dies with dspc's thread (PR_SET_PDEATHSIG).
int run_process(const std::vector<std::string>& argv, int timeout_seconds, std::string& captured_stderr,
                std::string& error, bool capture_stdout = false);

// Whether `program` (a path, or a name looked up in PATH as execvp does) names an executable
// file; if not, says why in `error`.
bool check_executable(const std::string& program, std::string& error);

}  // namespace dspc
