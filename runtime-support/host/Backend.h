// The two ways a Session reaches its device: Remote (qemu-hexagon running the device server,
// over the shared arena) and Local (in-process, for the host target). Internal to dspc_host.
#pragma once

#include <atomic>
#include <mutex>
#include <optional>

#include "dspc/host.h"

namespace dspc::detail {

// The largest arena (SessionOptions::arena_bytes): qemu-hexagon's 4 GiB guest address space
// also holds the device server, its heap and its stack, and arenas from about 2.993 GiB up did
// not map. The in-process target takes the same bound, for device memory.
constexpr uint64_t kMaxArenaBytes = 0xb0000000ull;  // 2.75 GiB

struct Allocation {
  uint64_t handle;  // arena offset (Remote) or address (Local)
  char* host;       // where the host reads and writes it
};

struct CallArg {
  uint64_t handle;
  char* host;
  DType dtype;
  const std::vector<int64_t>* shape;
};

// A call waiting in the lazy queue (SessionOptions::lazy_calls), with its own copy of the shapes.
struct QueuedCall {
  uint32_t function;
  std::string name;
  std::vector<CallArg> args;
  std::vector<std::vector<int64_t>> shapes;  // args[i].shape points at shapes[i]
};

// How a batch went: `done` calls succeeded; if done < the number of calls, call `done` failed
// with `status` and `error`, and the calls after it did not run. When call_batch throws (a
// deadline, a dead server), `done` counts the calls known to have run before.
struct BatchResult {
  size_t done = 0;
  int32_t status = 0;
  std::string error;
};

struct Lookup {
  uint32_t handle;
  std::vector<Param> params;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual bool is_open() const = 0;
  virtual Allocation alloc(uint64_t nbytes, Memory memory) = 0;
  virtual void free(uint64_t handle) noexcept = 0;  // nothing once closed
  // path may be empty (then bytes are all there is).
  virtual uint32_t load(const std::string& path, const std::vector<uint8_t>& bytes) = 0;
  virtual void unload(uint32_t module) noexcept = 0;
  virtual Lookup lookup(uint32_t module, const std::string& name) = 0;
  // The kernel's status; *error is the device's message when it is non-zero.
  virtual int32_t call(uint32_t function, const std::vector<CallArg>& args, std::string* error) = 0;
  // Runs the calls in order up to the first failure, into `out`. The default makes one call()
  // each; Remote sends them as one CALL_BATCH request (or as few as fit the request slot).
  virtual void call_batch(const std::vector<QueuedCall>& calls, BatchResult& out);
  virtual std::string last_error() = 0;
  // Before the host reads or writes device memory (with `mutex` held): returns once no device
  // code can run until the next request, or ends the session (Remote: SandboxViolation).
  virtual void quiesce() {}
  virtual void shutdown() = 0;
  virtual int pid() const { return -1; }
  virtual Session::RawReply raw(const std::vector<uint8_t>& bytes) = 0;
  virtual void bad_reply(uint32_t mode) = 0;

  std::chrono::milliseconds deadline{5000};
  // The session's sizes, for messages: its arena (SessionOptions::arena_bytes as applied), the
  // device memory that leaves, and the VTCM pool's capacity.
  uint64_t arena_bytes = 0, device_bytes = 0, vtcm_capacity = 0;
  // One request at a time, and no request while a copy touches device memory (so a copy on one
  // thread never reads memory another thread's failed request, or close, has just unmapped).
  std::mutex mutex;
  // Requests sent to the device server and answered (Session::round_trips); in-process: none.
  std::atomic<uint64_t> round_trips{0};
  // The lazy call queue (guarded by `mutex`), and an error a flush from a destructor could not
  // throw, thrown by the next flush instead.
  bool lazy = false;
  std::vector<QueuedCall> queue;
  std::optional<Error> deferred;
};

std::shared_ptr<Backend> make_remote_backend(const SessionOptions& options);
std::shared_ptr<Backend> make_local_backend(const SessionOptions& options);

}  // namespace dspc::detail
