// The Remote backend: qemu-hexagon running the device server, over a shared arena (memfd).
//
// 1. Create the arena (memfd, MAP_SHARED here and in the server), write its control block.
// 2. fork/exec qemu-hexagon with the server; the memfd is its only inherited descriptor
//    besides a pipe on stdout/stderr (kept to report what qemu said when it dies).
// 3. Wait (deadline) for the server to mark itself ready, then HELLO with the version.
// 4. A request: write it into the request slot, bump request_seq, FUTEX_WAKE; wait for
//    reply_seq by spinning briefly, then FUTEX_WAIT in slices, checking between slices that the
//    server lives (waitpid) and that the deadline has not passed; check every field of the reply.
// 5. A timeout, a dead server or a malformed reply kills and reaps the server, unmaps the arena,
//    closes every descriptor and marks the session closed, then throws.
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <thread>

#include "Backend.h"
#include "runtime-support/common/protocol.h"

namespace dspc::detail {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t target_vtcm_bytes(const std::string& target) {
#define DSPC_TARGET(name, version, triple, cpu, vector, vtcm, align) \
  if (target == name) return version > 0 ? vtcm : 0;
#include "targets/Targets.def"
  throw Error(ErrorKind::Usage, "unknown target '" + target + "'");
}

std::string system_error(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

uint64_t round_page(uint64_t n) {
  return (n + DSPC_PROTO_PAGE - 1) / DSPC_PROTO_PAGE * DSPC_PROTO_PAGE;
}

const char* op_name(uint16_t op) {
  switch (op) {
    case DSPC_OP_HELLO: return "open";
    case DSPC_OP_CLOSE: return "close";
    case DSPC_OP_ALLOC: return "allocation";
    case DSPC_OP_FREE: return "free";
    case DSPC_OP_LOAD: return "module load";
    case DSPC_OP_UNLOAD: return "module unload";
    case DSPC_OP_LOOKUP: return "function lookup";
    case DSPC_OP_CALL: return "call";
    case DSPC_OP_LAST_ERROR: return "last-error request";
    case DSPC_OP_SHUTDOWN: return "shutdown";
    default: return "request";
  }
}

class Remote final : public Backend {
 public:
  explicit Remote(const SessionOptions& options) : options_(options) {
    deadline = options.deadline;
    try {
      start();
    } catch (...) {
      teardown();
      throw;
    }
  }
  ~Remote() override {
    try {
      shutdown();
    } catch (...) {
    }
    teardown();
  }

  bool is_open() const override { return open_; }
  int pid() const override { return open_ ? pid_ : -1; }

  Allocation alloc(uint64_t nbytes, Memory memory) override {
    dspc_proto_alloc a{nbytes, 128,
                       memory == Memory::VTCM ? uint32_t(DSPC_MEM_VTCM) : uint32_t(DSPC_MEM_GLOBAL)};
    Reply r = request(DSPC_OP_ALLOC, &a, sizeof a);
    check(r, memory == Memory::VTCM ? "VTCM allocation" : "device memory allocation");
    uint64_t offset = payload_u64(r, 0);
    if (offset > arena_bytes_ || nbytes > arena_bytes_ - offset)
      fail(ErrorKind::Protocol, "malformed reply from the device server: allocation outside the arena");
    return {offset, arena_ + offset};
  }

  void free(uint64_t handle) noexcept override {
    if (!open_) return;
    try {
      request(DSPC_OP_FREE, &handle, sizeof handle);
    } catch (...) {
    }
  }

  uint32_t load(const std::string& path, const std::vector<uint8_t>& bytes) override {
    Allocation staging = alloc(bytes.empty() ? 1 : bytes.size(), Memory::Global);
    std::memcpy(staging.host, bytes.data(), bytes.size());
    dspc_proto_load l{staging.handle, bytes.size()};
    Reply r = request(DSPC_OP_LOAD, &l, sizeof l);
    free(staging.handle);
    check(r, "loading " + (path.empty() ? std::string("a module") : "'" + path + "'"));
    return uint32_t(payload_u64(r, 0, 4));
  }

  void unload(uint32_t module) noexcept override {
    if (!open_) return;
    try {
      request(DSPC_OP_UNLOAD, &module, sizeof module);
    } catch (...) {
    }
  }

  Lookup lookup(uint32_t module, const std::string& name) override {
    std::vector<uint8_t> p(8 + name.size());
    uint32_t head[2] = {module, uint32_t(name.size())};
    std::memcpy(p.data(), head, 8);
    std::memcpy(p.data() + 8, name.data(), name.size());
    Reply r = request(DSPC_OP_LOOKUP, p.data(), p.size());
    check(r, "looking up '" + name + "'");
    if (r.payload.size() < sizeof(dspc_proto_lookup_reply))
      fail(ErrorKind::Protocol, "malformed reply from the device server: short lookup reply");
    dspc_proto_lookup_reply head_out;
    std::memcpy(&head_out, r.payload.data(), sizeof head_out);
    if (r.payload.size() != sizeof head_out + uint64_t(head_out.num_params) * sizeof(dspc_proto_param))
      fail(ErrorKind::Protocol, "malformed reply from the device server: lookup reply size");
    Lookup out{head_out.function, {}};
    for (uint32_t i = 0; i < head_out.num_params; i++) {
      dspc_proto_param q;
      std::memcpy(&q, r.payload.data() + sizeof head_out + i * sizeof q, sizeof q);
      q.name[sizeof q.name - 1] = 0;
      Param p{q.name, DType{q.type_code, q.bits}, q.is_output != 0, {}};
      for (uint32_t d = 0; d < q.ndim && d < DSPC_PROTO_MAX_NDIM; d++) p.shape.push_back(q.shape[d]);
      out.params.push_back(std::move(p));
    }
    return out;
  }

  int32_t call(uint32_t function, const std::vector<CallArg>& args, std::string* error) override {
    if (args.size() > DSPC_PROTO_MAX_ARGS) throw Error(ErrorKind::Usage, "more than 64 arguments");
    std::vector<uint8_t> p(sizeof(dspc_proto_call) + args.size() * sizeof(dspc_proto_arg));
    dspc_proto_call c{function, uint32_t(args.size())};
    std::memcpy(p.data(), &c, sizeof c);
    for (size_t i = 0; i < args.size(); i++) {
      dspc_proto_arg a{};
      a.offset = args[i].handle;
      a.type_code = args[i].dtype.code;
      a.bits = args[i].dtype.bits;
      if (args[i].shape->size() > DSPC_PROTO_MAX_NDIM) throw Error(ErrorKind::Usage, "rank above 8");
      a.ndim = uint32_t(args[i].shape->size());
      for (size_t d = 0; d < args[i].shape->size(); d++) a.shape[d] = (*args[i].shape)[d];
      std::memcpy(p.data() + sizeof c + i * sizeof a, &a, sizeof a);
    }
    Reply r = request(DSPC_OP_CALL, p.data(), p.size());
    check(r, "call");
    int32_t status = int32_t(payload_u64(r, 0, 4));
    *error = r.error;
    return status;
  }

  std::string last_error() override {
    Reply r = request(DSPC_OP_LAST_ERROR, nullptr, 0);
    check(r, "last error");
    return r.error;
  }

  void shutdown() override {
    if (!open_) return;
    Reply r = request(DSPC_OP_SHUTDOWN, nullptr, 0);
    check(r, "shutdown");
    // The server exits 0 right after replying; anything else is an error.
    auto until = Clock::now() + deadline;
    for (;;) {
      int status = 0;
      pid_t w = waitpid(pid_, &status, WNOHANG);
      if (w == pid_) {
        pid_ = -1;
        teardown();
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
        throw Error(ErrorKind::ServerDied,
                    "the device server did not shut down cleanly: " + describe(status));
      }
      if (Clock::now() > until) fail(ErrorKind::Timeout, "the device server did not exit after shutdown");
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }

  Session::RawReply raw(const std::vector<uint8_t>& bytes) override {
    // The sequence number (bytes 12..15) is the ring's, so a test can write a header whose
    // other fields are wrong on purpose.
    std::vector<uint8_t> b(bytes.begin(),
                           bytes.begin() + std::min<size_t>(bytes.size(), DSPC_PROTO_SLOT_BYTES));
    uint32_t seq = seq_ + 1;
    if (b.size() >= sizeof(dspc_proto_request)) std::memcpy(b.data() + 12, &seq, 4);
    Reply r = post_and_wait(b.data(), b.size(), 0);
    return {r.status, r.error};
  }

  void bad_reply(uint32_t mode) override { request(DSPC_OP_TEST_BAD_REPLY, &mode, sizeof mode); }

 private:
  struct Reply {
    int32_t status;
    uint16_t op;
    std::vector<uint8_t> payload;
    std::string error;
  };

  void start() {
    uint64_t vtcm =
        round_page(options_.vtcm_bytes ? options_.vtcm_bytes : target_vtcm_bytes(options_.target));
    if (vtcm == 0) throw Error(ErrorKind::Usage, "target '" + options_.target + "' is not a Hexagon target");
    arena_bytes_ = round_page(options_.arena_bytes);
    if (arena_bytes_ < DSPC_PROTO_PAGE * 2 + vtcm || arena_bytes_ > 0xc0000000ull)
      throw Error(ErrorKind::Usage, "arena_bytes must leave room for VTCM and device memory, at most 3 GiB");
    memfd_ = memfd_create("dspc-arena", MFD_CLOEXEC);
    if (memfd_ < 0) throw Error(ErrorKind::System, system_error("memfd_create"));
    if (ftruncate(memfd_, off_t(arena_bytes_)) != 0)
      throw Error(ErrorKind::System, system_error("ftruncate"));
    void* p = mmap(nullptr, arena_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, memfd_, 0);
    if (p == MAP_FAILED) throw Error(ErrorKind::System, system_error("mmap of the arena"));
    arena_ = static_cast<char*>(p);
    ctl_ = reinterpret_cast<dspc_proto_control*>(arena_);
    ctl_->magic = DSPC_PROTO_ARENA_MAGIC;
    ctl_->version = DSPC_PROTO_VERSION;
    ctl_->arena_bytes = arena_bytes_;
    ctl_->vtcm_offset = DSPC_PROTO_PAGE;
    ctl_->vtcm_bytes = vtcm;
    ctl_->heap_offset = DSPC_PROTO_PAGE + vtcm;
    ctl_->heap_bytes = arena_bytes_ - ctl_->heap_offset;

    std::string qemu = options_.qemu.empty() ? DSPC_HOST_QEMU : options_.qemu;
    std::string server = options_.server.empty() ? DSPC_HOST_SERVER : options_.server;
    if (access(server.c_str(), R_OK) != 0)
      throw Error(ErrorKind::Usage, system_error("device server '" + server + "'"));
    std::vector<std::string> argv_s = {qemu,
                                       "-cpu",
                                       DSPC_HOST_QEMU_CPU,
                                       server,
                                       "--arena-fd=" + std::to_string(memfd_),
                                       "--arena-bytes=" + std::to_string(arena_bytes_),
                                       "--spin=" + std::to_string(options_.server_spin)};
    std::vector<char*> argv;
    for (auto& s : argv_s) argv.push_back(s.data());
    argv.push_back(nullptr);
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) throw Error(ErrorKind::System, system_error("pipe"));
    pid_ = fork();
    if (pid_ == 0) {  // the child: only async-signal-safe calls
      int null = open("/dev/null", O_RDONLY);
      if (null >= 0) dup2(null, 0);
      dup2(out[1], 1);
      dup2(out[1], 2);
      fcntl(memfd_, F_SETFD, 0);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    if (pid_ < 0) {
      close(out[0]);
      throw Error(ErrorKind::System, system_error("fork"));
    }
    out_fd_ = out[0];
    fcntl(out_fd_, F_SETFL, O_NONBLOCK);
    open_ = true;
    auto until = Clock::now() + deadline;
    while (__atomic_load_n(&ctl_->server_state, __ATOMIC_ACQUIRE) != DSPC_PROTO_SERVER_READY) {
      check_alive("start-up");
      if (Clock::now() > until)
        fail(ErrorKind::Timeout, "the device server did not start within the deadline");
      futex_wait(&ctl_->server_state, DSPC_PROTO_SERVER_STARTING, std::chrono::milliseconds(2));
    }
    uint32_t version = DSPC_PROTO_VERSION;
    Reply r = request(DSPC_OP_HELLO, &version, sizeof version);
    check(r, "open");
  }

  // Kills (if alive) and reaps the server, unmaps the arena, closes descriptors.
  void teardown() noexcept {
    open_ = false;
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      int status;
      while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      pid_ = -1;
    }
    if (arena_) munmap(arena_, arena_bytes_);
    arena_ = nullptr;
    ctl_ = nullptr;
    if (memfd_ >= 0) close(memfd_);
    memfd_ = -1;
    if (out_fd_ >= 0) close(out_fd_);
    out_fd_ = -1;
  }

  std::string drain_output() {
    char buf[4096];
    for (;;) {
      ssize_t n = out_fd_ >= 0 ? read(out_fd_, buf, sizeof buf) : -1;
      if (n <= 0) break;
      output_.append(buf, size_t(n));
      if (output_.size() > 8192) output_.erase(0, output_.size() - 8192);
    }
    while (!output_.empty() && (output_.back() == '\n' || output_.back() == '\r')) output_.pop_back();
    return output_;
  }

  static std::string describe(int status) {
    if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status))
      return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) +
             ")";
    return "status " + std::to_string(status);
  }

  [[noreturn]] void fail(ErrorKind kind, const std::string& message) {
    std::string out = drain_output();
    teardown();
    throw Error(kind, message + (out.empty() ? "" : "; the server said: " + out));
  }

  void check_alive(const char* during) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) != pid_) return;
    pid_ = -1;
    fail(ErrorKind::ServerDied, std::string("the device server died during the ") + during + " (" +
                                    describe(status) + "); the session is closed");
  }

  static void futex_wait(volatile uint32_t* word, uint32_t value, std::chrono::nanoseconds slice) {
    timespec ts{time_t(slice.count() / 1000000000), long(slice.count() % 1000000000)};
    syscall(SYS_futex, word, FUTEX_WAIT, value, &ts, nullptr, 0);
  }

  Reply request(uint16_t op, const void* payload, size_t n) {
    if (!open_) throw Error(ErrorKind::Closed, std::string("the session is closed (") + op_name(op) + ")");
    std::vector<uint8_t> msg(sizeof(dspc_proto_request) + n);
    dspc_proto_request q{DSPC_PROTO_REQUEST_MAGIC, DSPC_PROTO_VERSION, op, uint32_t(msg.size()), seq_ + 1};
    std::memcpy(msg.data(), &q, sizeof q);
    if (n) std::memcpy(msg.data() + sizeof q, payload, n);
    if (msg.size() > DSPC_PROTO_SLOT_BYTES)
      throw Error(ErrorKind::Usage, "request larger than the request slot");
    return post_and_wait(msg.data(), msg.size(), op);
  }

  // Posts the bytes as request seq_ + 1 and waits for its reply. op 0: a raw test message.
  Reply post_and_wait(const uint8_t* bytes, size_t n, uint16_t op) {
    if (!open_) throw Error(ErrorKind::Closed, "the session is closed");
    uint32_t seq = ++seq_;
    std::memcpy(arena_ + DSPC_PROTO_REQUEST_OFFSET, bytes, n);
    __atomic_store_n(&ctl_->request_seq, seq, __ATOMIC_SEQ_CST);
    syscall(SYS_futex, &ctl_->request_seq, FUTEX_WAKE, 1, nullptr, nullptr, 0);
    const char* what = op ? op_name(op) : "request";
    auto begin = Clock::now(), until = begin + deadline;
    for (uint32_t spins = 0;; spins++) {
      uint32_t now = __atomic_load_n(&ctl_->reply_seq, __ATOMIC_ACQUIRE);
      if (now == seq) break;
      if ((spins & 63) != 63) continue;
      auto t = Clock::now();
      if (t - begin < options_.spin) continue;  // spin first
      check_alive(what);
      if (t > until)
        fail(ErrorKind::Timeout, std::string("the ") + what + " did not finish within " +
                                     std::to_string(deadline.count()) +
                                     " ms: the device server was killed and the session closed");
      futex_wait(&ctl_->reply_seq, now, std::min<Clock::duration>(std::chrono::milliseconds(5), until - t));
    }
    dspc_proto_reply h;
    std::memcpy(&h, arena_ + DSPC_PROTO_REPLY_OFFSET, sizeof h);
    const char* bad = nullptr;
    if (h.magic != DSPC_PROTO_REPLY_MAGIC)
      bad = "bad magic";
    else if (h.version != DSPC_PROTO_VERSION)
      bad = "bad version";
    else if (h.seq != seq)
      bad = "sequence number does not match the request's";
    else if (h.length < sizeof h || h.length > DSPC_PROTO_SLOT_BYTES)
      bad = "length outside the reply slot";
    else if (h.error_bytes > DSPC_PROTO_MAX_ERROR ||
             uint64_t(sizeof h) + h.payload_bytes + h.error_bytes != h.length)
      bad = "payload and error sizes do not add up to the length";
    else if (op && h.op != op)
      bad = "answers another operation";
    if (bad)
      fail(ErrorKind::Protocol, std::string("malformed reply from the device server to the ") + what + ": " +
                                    bad + "; the session is closed");
    const char* body = arena_ + DSPC_PROTO_REPLY_OFFSET + sizeof h;
    Reply r{h.status, h.op, std::vector<uint8_t>(body, body + h.payload_bytes),
            std::string(body + h.payload_bytes, h.error_bytes)};
    return r;
  }

  void check(const Reply& r, const std::string& what) {
    if (r.status == DSPC_PROTO_OK) return;
    ErrorKind kind = r.status == DSPC_PROTO_NO_MEMORY     ? ErrorKind::NoMemory
                     : r.status == DSPC_PROTO_LOAD_FAILED ? ErrorKind::LoadFailed
                     : r.status == DSPC_PROTO_NOT_FOUND   ? ErrorKind::NotFound
                     : r.status == DSPC_PROTO_MALFORMED   ? ErrorKind::Protocol
                                                          : ErrorKind::Usage;
    throw Error(kind,
                what + ": " + (r.error.empty() ? "failed with status " + std::to_string(r.status) : r.error));
  }

  uint64_t payload_u64(const Reply& r, size_t at, size_t bytes = 8) {
    if (r.payload.size() < at + bytes)
      fail(ErrorKind::Protocol, "malformed reply from the device server: short payload");
    uint64_t v = 0;
    std::memcpy(&v, r.payload.data() + at, bytes);
    return v;
  }

  SessionOptions options_;
  int memfd_ = -1, out_fd_ = -1;
  pid_t pid_ = -1;
  char* arena_ = nullptr;
  uint64_t arena_bytes_ = 0;
  dspc_proto_control* ctl_ = nullptr;
  uint32_t seq_ = 0;
  bool open_ = false;
  std::string output_;
};

}  // namespace

std::shared_ptr<Backend> make_remote_backend(const SessionOptions& options) {
  return std::make_shared<Remote>(options);
}

}  // namespace dspc::detail
