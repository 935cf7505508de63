// dspc's host runtime: sessions with the DSP, device memory, modules and packed calls
// (docs/runtime.md). Link the CMake target dspc_host and include <dspc/host.h>.
//
//   dspc::Session session;                                   // qemu-hexagon + the device server
//   dspc::DeviceBuffer a(session, dspc::DType::i8(), {2048});
//   a.copy_from_host(host_a.data(), host_a.size());
//   auto module = dspc::Module::load(session, "alloc_vtcm.so");
//   module.function("alloc_vtcm")(a, b, c);                   // throws dspc::Error on failure
//
// With SessionOptions::target = "host" the same code runs in-process: the module is a host .so,
// dlopen'ed; the runtime-support symbols it leaves undefined resolve against this library
// (libdspc_host.so exports them). In-process calls have no deadline and no crash isolation.
//
// Errors are dspc::Error exceptions carrying the device's message; nothing aborts. Every wait
// on the device has a deadline (SessionOptions::deadline, 5 s by default, for each request;
// SessionOptions::start_deadline, 30 s, for the start-up): a kernel that runs over it, a
// server that dies or a malformed reply closes the session (the server is killed and reaped);
// buffers and modules of a closed session may still be destroyed safely, and a new Session
// can be opened at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace dspc {

enum class ErrorKind {
  Usage,        // a wrong use of the API (null session, size mismatch in a copy)
  Closed,       // the session is closed
  Protocol,     // a malformed request or reply
  NoMemory,     // device memory or VTCM exhausted
  LoadFailed,   // the module did not load (bad ELF, unresolved symbol, relocation)
  NotFound,     // no such function
  BadArgument,  // the checked entry refused an argument (status 2)
  Kernel,       // the kernel returned a non-zero status
  Timeout,      // the deadline passed; the session was closed
  ServerDied,   // the device server exited or was killed; the session was closed
  System,       // a host system call failed
  // The device server did what its sandbox forbids (a system call, outside its process), or
  // kept running after its call returned; it was killed and the session closed.
  SandboxViolation,
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message, int32_t status = 0)
      : std::runtime_error(message), kind_(kind), status_(status) {}
  ErrorKind kind() const { return kind_; }
  int32_t status() const { return status_; }  // the kernel's status for Kernel/BadArgument
 private:
  ErrorKind kind_;
  int32_t status_;
};

struct DType {
  uint8_t code;  // DSPC_TYPE_* of dspc_runtime.h: 0 int, 1 uint, 2 float, 3 bool
  uint8_t bits;
  static DType i8() { return {0, 8}; }
  static DType i16() { return {0, 16}; }
  static DType i32() { return {0, 32}; }
  static DType i64() { return {0, 64}; }
  static DType u8() { return {1, 8}; }
  static DType u16() { return {1, 16}; }
  static DType u32() { return {1, 32}; }
  static DType u64() { return {1, 64}; }
  static DType f16() { return {2, 16}; }
  static DType f32() { return {2, 32}; }
  static DType f64() { return {2, 64}; }
  static DType boolean() { return {3, 8}; }
  bool operator==(DType o) const { return code == o.code && bits == o.bits; }
  std::string str() const;  // "i8", "f32", "bool"
};

enum class Memory { Global, VTCM };

struct SessionOptions {
  std::string target = "hexagon-v68";        // a Hexagon target of targets/Targets.def, or "host"
  std::chrono::milliseconds deadline{5000};  // per request once the session is open, a call included
  // The device server's start-up: qemu-hexagon's, the server's and the first request's (HELLO).
  // Separate from `deadline`, so that a slow start on a loaded machine fails no session.
  std::chrono::milliseconds start_deadline{30000};
  uint64_t arena_bytes = 256ull << 20;       // device memory + VTCM + the control page; at most 2.75 GiB
  uint64_t vtcm_bytes = 0;                   // 0: the target's VTCM capacity
  std::string server;                        // "" : the dspc_server beside this library (installed:
                                             //      <libdir>/dspc/device-server/dspc_server)
  std::string qemu;                          // "" : the qemu-hexagon CMake found, else the PATH's
  // The environment of qemu-hexagon and the device server, which get nothing of the host's:
  // NAME=VALUE entries pass something on purpose, e.g. QEMU_STRACE=1 (qemu's trace goes to the
  // server's output, whose tail errors quote). The sandbox refuses debugging that needs a
  // socket or a file (QEMU_GDB, a QEMU_LOG file): docs/security.md.
  std::vector<std::string> qemu_env;
  // Waiting: the host spins this long on the reply before it sleeps on the futex, and the server
  // polls the request word this many times before it does. On idle cores the spin keeps an
  // empty call at 3.9 us (16.7 us sleeping at once); with more runnable threads than cores each
  // spin can cost its whole length, hence short (runtime-support/README.md "Measurements").
  // 0 sleeps at once.
  std::chrono::microseconds spin{50};
  uint32_t server_spin = 2000;
  // The lazy call queue: Function::call only queues the call; the queue goes to the device as
  // one request at the next synchronization point (a copy in or out of a DeviceBuffer that a
  // queued call uses, Session::sync, last_error, freeing a buffer, unloading a module, close;
  // a copy of a buffer no queued call uses sends nothing and waits for nothing). A failure is
  // reported there, naming the queued call that failed; the calls queued after it do not run.
  // false (the default): one round trip per call.
  bool lazy_calls = false;
};

namespace detail {
class Backend;
}

class Session {
 public:
  explicit Session(SessionOptions options = {});
  ~Session();  // a normal shutdown; never throws
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;

  // Shuts the server down (exit status 0 is no error). Throws if the shutdown failed.
  void close();
  bool is_open() const;
  const SessionOptions& options() const;
  int server_pid() const;    // -1 in-process or closed
  std::string last_error();  // the device's last error text
  std::chrono::milliseconds deadline() const;
  void set_deadline(std::chrono::milliseconds d);
  // Round trips so far: every message exchange with the device server (open, allocations,
  // loads, lookups, calls, frees, ...). Copies in and out of device memory go through the shared
  // arena and send no message, so they count nothing. In-process sessions (target "host")
  // send no messages: always 0. Read it before and after a piece of work to count that work's.
  uint64_t round_trips() const;
  // The lazy call queue (SessionOptions::lazy_calls): turn it on or off (off sends what is
  // queued first), send the queued calls now, and how many wait.
  void set_lazy_calls(bool on);
  bool lazy_calls() const;
  void sync();
  size_t queued_calls() const;

  // For failure tests: sends raw bytes as a request (the server must answer with an error
  // reply), and asks the server for a deliberately malformed reply (DSPC_PROTO_BAD_*).
  struct RawReply {
    int32_t status;
    std::string error;
  };
  RawReply send_raw_for_testing(const std::vector<uint8_t>& bytes);
  void request_bad_reply_for_testing(uint32_t mode);

  std::shared_ptr<detail::Backend> backend() const { return backend_; }

 private:
  SessionOptions options_;
  std::shared_ptr<detail::Backend> backend_;
};

// Device memory: RAII, with a dtype and a shape. Copies are memcpy into the shared arena.
class DeviceBuffer {
 public:
  DeviceBuffer(Session& session, DType dtype, std::vector<int64_t> shape, Memory memory = Memory::Global);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&&) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&&) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void copy_from_host(const void* src, uint64_t nbytes);
  void copy_to_host(void* dst, uint64_t nbytes) const;
  template <class T>
  void copy_from_host(const std::vector<T>& v) {
    copy_from_host(v.data(), v.size() * sizeof(T));
  }
  template <class T>
  void copy_to_host(std::vector<T>& v) const {
    copy_to_host(v.data(), v.size() * sizeof(T));
  }

  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  uint64_t nbytes() const { return nbytes_; }
  Memory memory() const { return memory_; }
  uint64_t device_handle() const { return handle_; }  // the arena offset (or host address)

 private:
  friend class Function;
  void release() noexcept;
  template <class F>
  void copy(const char* closed, F move_bytes) const;
  std::shared_ptr<detail::Backend> backend_;
  DType dtype_;
  std::vector<int64_t> shape_;
  Memory memory_;
  uint64_t nbytes_ = 0;
  uint64_t handle_ = 0;
  char* host_ = nullptr;  // where the host sees it
};

struct Param {
  std::string name;
  DType dtype;
  bool is_output;
  std::vector<int64_t> shape;
};

class Function {
 public:
  // Calls the checked entry; throws Error(BadArgument) with the device's message for status 2,
  // Error(Kernel) for another non-zero status. At most 64 arguments, of rank 8 at most
  // (Error(Usage) otherwise, when the call is made, queued or not).
  void call(const std::vector<const DeviceBuffer*>& args) const;
  template <class... B>
  void operator()(const B&... args) const {
    call({&args...});
  }
  const std::string& name() const { return name_; }
  const std::vector<Param>& params() const { return params_; }

 private:
  friend class Module;
  std::shared_ptr<detail::Backend> backend_;
  std::shared_ptr<void> module_keepalive_;
  std::string name_;
  uint32_t handle_ = 0;
  std::vector<Param> params_;
};

class Module {
 public:
  static Module load(Session& session, const std::string& path);
  static Module load_bytes(Session& session, const std::vector<uint8_t>& elf);
  Function function(const std::string& name) const;
  // Unloads it now (sending the lazy queue first; a queued call's failure is thrown). Without
  // it, the module unloads when this Module and every Function taken from it are gone.
  // Functions of an unloaded module refuse calls.
  void unload();
  ~Module();
  Module(Module&&) noexcept = default;
  Module& operator=(Module&&) noexcept = default;

 private:
  friend class Function;  // a Function refuses calls once its module is unloaded
  Module() = default;
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace dspc
