// The embedding API of <dspc/host.h> over a Backend (Remote for Hexagon targets, Local for
// "host").
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "Backend.h"
#include "runtime-support/common/protocol.h"

namespace dspc {

std::string DType::str() const {
  if (code == 3) return "bool";
  return std::string(code == 0 ? "i" : code == 1 ? "u" : "f") + std::to_string(bits);
}

namespace detail {

void Backend::call_batch(const std::vector<QueuedCall>& calls, BatchResult& r) {
  for (const QueuedCall& c : calls) {
    r.status = call(c.function, c.args, &r.error);
    if (r.status != 0) return;
    ++r.done;
  }
}

}  // namespace detail

namespace {

// Sends the queued calls as one batch (the caller holds b.mutex) and throws for the first that
// failed, naming it; the calls queued after it are dropped, unrun.
void flush_locked(detail::Backend& b) {
  if (b.deferred) {  // a failure found where it could not be thrown; what was queued since is dropped
    Error e = *b.deferred;
    b.deferred.reset();
    size_t since = b.queue.size();
    b.queue.clear();
    if (!since) throw e;
    throw Error(e.kind(), std::string(e.what()) + " (the " + std::to_string(since) +
                              (since == 1 ? " call" : " calls") + " queued since did not run)",
                e.status());
  }
  if (b.queue.empty()) return;
  std::vector<detail::QueuedCall> calls;
  calls.swap(b.queue);
  detail::BatchResult r;
  try {
    b.call_batch(calls, r);
  } catch (const Error& e) {  // a deadline, a dead server: name what was being sent, and what ran
    std::string names;
    for (size_t i = 0; i < calls.size() && i < 3; i++) names += (i ? ", " : "") + calls[i].name;
    if (calls.size() > 3) names += ", ...";
    std::string ran = r.done ? "the first " + std::to_string(r.done) + " ran, then " : "";
    throw Error(e.kind(), "sending " + std::to_string(calls.size()) + " queued call" +
                              (calls.size() == 1 ? "" : "s") + " (" + names + "): " + ran + e.what(),
                e.status());
  }
  if (r.done >= calls.size()) return;
  size_t after = calls.size() - r.done - 1;
  std::string msg = "queued call " + std::to_string(r.done + 1) + " of " + std::to_string(calls.size()) + " (" +
                    calls[r.done].name + ") failed: " + r.error;
  if (after) msg += " (the " + std::to_string(after) + (after == 1 ? " call" : " calls") + " queued after it did not run)";
  throw Error(r.status == 2 ? ErrorKind::BadArgument : ErrorKind::Kernel, msg, r.status);
}

// Whether a queued call has an argument whose bytes overlap [host, host + nbytes): a copy in or
// out of such a buffer must wait for the queue; a copy of any other buffer need not (the
// queued calls cannot see it), so it sends nothing.
bool queue_uses(const detail::Backend& b, const char* host, uint64_t nbytes) {
  for (const detail::QueuedCall& q : b.queue)
    for (const detail::CallArg& a : q.args) {
      uint64_t n = a.dtype.bits / 8;
      for (int64_t e : *a.shape) n *= uint64_t(e);
      if (a.host < host + nbytes && host < a.host + n) return true;
    }
  return false;
}

// For destructors, which cannot throw: a failure waits for the next synchronization point
// (even one after the session has closed), which reports it, saying where it was found. While
// one waits, nothing more is sent: the calls queued since are reported as not run.
void flush_or_defer(detail::Backend& b, const char* where) noexcept {
  if (b.deferred) return;
  try {
    flush_locked(b);
  } catch (const Error& e) {
    b.deferred = Error(e.kind(), std::string(e.what()) + " [found when " + where + "]", e.status());
  } catch (const std::exception& e) {
    b.deferred = Error(ErrorKind::System, std::string("sending the queued calls: ") + e.what() +
                                              " [found when " + where + "]");
  }
}

// Why a buffer of n bytes cannot fit the session at all, naming the option that sizes it, or
// "" when it could (in an empty session).
std::string too_large_for(const detail::Backend& b, uint64_t n, Memory memory, const SessionOptions& o) {
  if (memory == Memory::VTCM) {
    if (n <= b.vtcm_capacity) return "";
    return "this session's VTCM holds " + std::to_string(b.vtcm_capacity) + " bytes (" +
           (o.vtcm_bytes ? "SessionOptions::vtcm_bytes" : "the target's capacity; SessionOptions::vtcm_bytes sets it") +
           ")";
  }
  if (n <= b.device_bytes) return "";
  std::string why = "this session's device memory is " + std::to_string(b.device_bytes) +
                    " bytes (SessionOptions::arena_bytes = " + std::to_string(o.arena_bytes);
  if (b.arena_bytes > b.device_bytes) why += ", less the control page and VTCM";
  uint64_t page = 65536, need = (n + page - 1) / page * page + (b.arena_bytes - b.device_bytes);
  if (n > detail::kMaxArenaBytes || need > detail::kMaxArenaBytes)
    return why + "): " + std::to_string(n) + " bytes do not fit even the largest arena (2.75 GiB)";
  return why + "): " + std::to_string(n) + " bytes need arena_bytes of at least " + std::to_string(need);
}

// Every use of a closed session is refused here, alike on both targets: "<what>: the session is
// closed". Calls still queued then never run: the refusal says so, once. Call with b.mutex held.
void need_open(detail::Backend& b, const std::string& what) {
  if (b.is_open()) return;
  size_t dropped = b.queue.size();
  b.queue.clear();
  throw Error(ErrorKind::Closed, what + ": the session is closed" +
                                     (dropped ? " (its " + std::to_string(dropped) +
                                                    (dropped == 1 ? " queued call" : " queued calls") + " did not run)"
                                              : ""));
}

// A synchronization point (sync, last_error, close, set_lazy_calls(false), Module::unload):
// first a failure kept from a destructor, even once the session has closed; then the session
// must be open, and the queue is sent.
void sync_point(detail::Backend& b, const std::string& what) {
  if (!b.deferred) need_open(b, what);
  flush_locked(b);
}

}  // namespace

// ---- Session ---------------------------------------------------------------------------------

Session::Session(SessionOptions options) : options_(std::move(options)) {
  // The checks both targets share; Remote adds the arena's room for VTCM.
  if (options_.deadline.count() < 0) throw Error(ErrorKind::Usage, "a session's deadline cannot be negative");
  if (options_.start_deadline.count() < 0)
    throw Error(ErrorKind::Usage, "a session's start_deadline cannot be negative");
  if (options_.vtcm_bytes >= (uint64_t(1) << 32))
    throw Error(ErrorKind::Usage, "cannot open a session: vtcm_bytes must be below 4 GiB");
  if (options_.arena_bytes == 0 || options_.arena_bytes > detail::kMaxArenaBytes)
    throw Error(ErrorKind::Usage, "cannot open a session: arena_bytes must be between 1 byte and 2.75 GiB (" +
                                      std::to_string(detail::kMaxArenaBytes) + "), not " +
                                      std::to_string(options_.arena_bytes));
  backend_ = options_.target == "host" ? detail::make_local_backend(options_)
                                       : detail::make_remote_backend(options_);
  backend_->lazy = options_.lazy_calls;
}

Session::~Session() {
  if (!backend_) return;
  try {
    std::lock_guard<std::mutex> lock(backend_->mutex);
    if (backend_->is_open()) flush_or_defer(*backend_, "the session was destroyed");
    backend_->shutdown();
  } catch (...) {
  }
}

Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&& o) noexcept {
  if (this != &o) {
    Session dying(std::move(*this));  // shut the old one down
    options_ = std::move(o.options_);
    backend_ = std::move(o.backend_);
  }
  return *this;
}

static detail::Backend& need(const std::shared_ptr<detail::Backend>& b) {
  if (!b) throw Error(ErrorKind::Usage, "moved-from session");
  return *b;
}

void Session::sync() {
  auto& b = need(backend_);
  std::lock_guard<std::mutex> lock(b.mutex);
  sync_point(b, "sync");
}
void Session::set_lazy_calls(bool on) {
  auto& b = need(backend_);
  std::lock_guard<std::mutex> lock(b.mutex);
  if (!on) sync_point(b, "set_lazy_calls");
  b.lazy = on;
}
bool Session::lazy_calls() const {
  return backend_ && backend_->lazy;
}
size_t Session::queued_calls() const {
  if (!backend_) return 0;
  std::lock_guard<std::mutex> lock(backend_->mutex);
  return backend_->queue.size();
}

void Session::close() {
  auto& b = need(backend_);
  std::lock_guard<std::mutex> lock(b.mutex);
  // A queued call that fails is reported, but the session closes all the same; so is a failure
  // kept from a destructor, and calls left queued by a failure that closed the session.
  std::optional<Error> failed;
  try {
    if (b.deferred || b.is_open()) flush_locked(b);
    else if (!b.queue.empty()) need_open(b, "close");
  } catch (const Error& e) {
    failed = e;
  }
  try {
    b.shutdown();
  } catch (const Error&) {
    if (!failed) throw;  // the queued call's failure comes first
  }
  if (failed) throw *failed;
}
bool Session::is_open() const {
  return backend_ && backend_->is_open();
}
const SessionOptions& Session::options() const {
  return options_;
}
int Session::server_pid() const {
  return backend_ ? backend_->pid() : -1;
}
std::string Session::last_error() {
  auto& b = need(backend_);
  std::lock_guard<std::mutex> lock(b.mutex);
  sync_point(b, "last error");
  return b.last_error();
}
uint64_t Session::round_trips() const {
  return backend_ ? backend_->round_trips.load(std::memory_order_relaxed) : 0;
}

std::chrono::milliseconds Session::deadline() const {
  return need(backend_).deadline;
}
void Session::set_deadline(std::chrono::milliseconds d) {
  if (d.count() < 0) throw Error(ErrorKind::Usage, "a session's deadline cannot be negative");
  need(backend_).deadline = d;
}
Session::RawReply Session::send_raw_for_testing(const std::vector<uint8_t>& bytes) {
  auto& b = need(backend_);
  std::lock_guard<std::mutex> lock(b.mutex);
  return b.raw(bytes);
}
void Session::request_bad_reply_for_testing(uint32_t mode) {
  auto& b = need(backend_);
  std::lock_guard<std::mutex> lock(b.mutex);
  b.bad_reply(mode);
}

// ---- DeviceBuffer ----------------------------------------------------------------------------

DeviceBuffer::DeviceBuffer(Session& session, DType dtype, std::vector<int64_t> shape, Memory memory)
    : backend_(session.backend()), dtype_(dtype), shape_(std::move(shape)), memory_(memory) {
  if (dtype.bits != 8 && dtype.bits != 16 && dtype.bits != 32 && dtype.bits != 64)
    throw Error(ErrorKind::Usage, "a dtype has 8, 16, 32 or 64 bits");
  if (dtype.code > 3) throw Error(ErrorKind::Usage, "a dtype's code is 0 (int), 1 (uint), 2 (float) or 3 (bool)");
  if (memory != Memory::Global && memory != Memory::VTCM)
    throw Error(ErrorKind::Usage, "a buffer's memory is Memory::Global or Memory::VTCM");
  uint64_t n = dtype.bits / 8;
  for (int64_t e : shape_) {
    if (e < 0 || (e && n > (uint64_t(1) << 62) / uint64_t(e)))
      throw Error(ErrorKind::Usage, "bad tensor shape");
    n *= uint64_t(e);
  }
  nbytes_ = n;
  auto& b = need(backend_);
  std::lock_guard<std::mutex> lock(b.mutex);
  need_open(b, "allocating a buffer");
  detail::Allocation a;
  try {
    a = b.alloc(n, memory);
  } catch (const Error& e) {  // a buffer larger than the session: say which option sizes it
    std::string why = e.kind() == ErrorKind::NoMemory ? too_large_for(b, n, memory, session.options()) : "";
    if (why.empty()) throw;
    throw Error(e.kind(), std::string(e.what()) + "; " + why, e.status());
  }
  handle_ = a.handle;
  host_ = a.host;
}

DeviceBuffer::~DeviceBuffer() {
  release();
}

void DeviceBuffer::release() noexcept {
  if (!backend_ || !host_) return;
  std::lock_guard<std::mutex> lock(backend_->mutex);
  if (!backend_->queue.empty() && backend_->is_open())  // a queued call may use it
    flush_or_defer(*backend_, "a device buffer was freed");
  backend_->free(handle_);
  host_ = nullptr;
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : backend_(std::move(o.backend_)),
      dtype_(o.dtype_),
      shape_(std::move(o.shape_)),
      memory_(o.memory_),
      nbytes_(o.nbytes_),
      handle_(o.handle_),
      host_(o.host_) {
  o.host_ = nullptr;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this == &o) return *this;
  release();
  backend_ = std::move(o.backend_);
  dtype_ = o.dtype_;
  shape_ = std::move(o.shape_);
  memory_ = o.memory_;
  nbytes_ = o.nbytes_;
  handle_ = o.handle_;
  host_ = o.host_;
  o.host_ = nullptr;
  return *this;
}

// A copy between host memory and the buffer: the session's lock is held throughout, so no
// request runs device code meanwhile. Queued calls that use the buffer go first (a write must
// not change what they were queued with; a read waits for them and those before them); then
// the device must be quiet (Backend::quiesce); then the bytes move. A request on another
// thread that closed the session (a deadline, a dead server) leaves it refused as Closed.
template <class F>
void DeviceBuffer::copy(const char* closed, F move_bytes) const {
  std::lock_guard<std::mutex> lock(backend_->mutex);
  if (!backend_->is_open()) throw Error(ErrorKind::Closed, closed);
  if (queue_uses(*backend_, host_, nbytes_)) flush_locked(*backend_);
  backend_->quiesce();
  move_bytes();
}

void DeviceBuffer::copy_from_host(const void* src, uint64_t nbytes) {
  if (!host_) throw Error(ErrorKind::Usage, "copy into a moved-from buffer");
  const char* closed = "copy into a buffer of a closed session";
  if (!backend_->is_open()) throw Error(ErrorKind::Closed, closed);
  if (nbytes != nbytes_)
    throw Error(ErrorKind::Usage, "copy of " + std::to_string(nbytes) + " bytes into a buffer of " +
                                      std::to_string(nbytes_) + " bytes");
  if (!src && nbytes) throw Error(ErrorKind::Usage, "copy into a buffer from a null pointer");
  copy(closed, [&] { std::memcpy(host_, src, nbytes); });  // the arena: the device sees it at once
}

void DeviceBuffer::copy_to_host(void* dst, uint64_t nbytes) const {
  if (!host_) throw Error(ErrorKind::Usage, "copy out of a moved-from buffer");
  const char* closed = "copy from a buffer of a closed session";
  if (!backend_->is_open()) throw Error(ErrorKind::Closed, closed);
  if (nbytes != nbytes_)
    throw Error(ErrorKind::Usage, "copy of " + std::to_string(nbytes) + " bytes out of a buffer of " +
                                      std::to_string(nbytes_) + " bytes");
  if (!dst && nbytes) throw Error(ErrorKind::Usage, "copy out of a buffer to a null pointer");
  copy(closed, [&] { std::memcpy(dst, host_, nbytes); });
}

// ---- Module and Function ---------------------------------------------------------------------

struct Module::State {
  std::shared_ptr<detail::Backend> backend;
  uint32_t handle = 0;
  bool loaded = false;  // guarded by backend->mutex
  // Sends the queued calls first (calls of its functions may be among them): Module::unload
  // reports their failure; the destructor cannot, and leaves it to the next flush.
  void unload(bool may_throw) {
    if (!backend) return;
    std::lock_guard<std::mutex> lock(backend->mutex);
    if (!loaded) return;
    loaded = false;
    std::exception_ptr failed;
    bool queued = !backend->queue.empty() && backend->is_open();
    if (may_throw && (queued || backend->deferred)) {
      try {
        flush_locked(*backend);
      } catch (...) {
        failed = std::current_exception();  // unload first, then report
      }
    } else if (queued) {
      flush_or_defer(*backend, "a module was unloaded");
    }
    backend->unload(handle);
    if (failed) std::rethrow_exception(failed);
  }
  ~State() { unload(false); }
};

Module Module::load(Session& session, const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw Error(ErrorKind::LoadFailed, "loading '" + path + "': " +
                                           (std::filesystem::exists(path, ec) ? "not a regular file" : "cannot read the file"));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::LoadFailed, "loading '" + path + "': cannot read the file");
  std::vector<uint8_t> bytes;
  try {
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::exception& e) {
    throw Error(ErrorKind::LoadFailed, "loading '" + path + "': cannot read the file (" + e.what() + ")");
  }
  Module m;
  m.state_ = std::make_shared<State>();
  m.state_->backend = session.backend();
  auto& b = need(m.state_->backend);
  std::lock_guard<std::mutex> lock(b.mutex);
  need_open(b, "loading '" + path + "'");
  m.state_->handle = b.load(path, bytes);
  m.state_->loaded = true;
  return m;
}

Module Module::load_bytes(Session& session, const std::vector<uint8_t>& elf) {
  Module m;
  m.state_ = std::make_shared<State>();
  m.state_->backend = session.backend();
  auto& b = need(m.state_->backend);
  std::lock_guard<std::mutex> lock(b.mutex);
  need_open(b, "loading a module");
  m.state_->handle = b.load("", elf);
  m.state_->loaded = true;
  return m;
}

Module::~Module() = default;

void Module::unload() {
  if (state_) state_->unload(true);
}

Function Module::function(const std::string& name) const {
  if (!state_) throw Error(ErrorKind::Usage, "looking up '" + name + "': the module is unloaded");
  auto& b = need(state_->backend);
  std::lock_guard<std::mutex> lock(b.mutex);
  if (!state_->loaded) throw Error(ErrorKind::Usage, "looking up '" + name + "': the module is unloaded");
  need_open(b, "looking up '" + name + "'");
  detail::Lookup l = b.lookup(state_->handle, name);
  Function f;
  f.backend_ = state_->backend;
  f.module_keepalive_ = state_;
  f.name_ = name;
  f.handle_ = l.handle;
  f.params_ = std::move(l.params);
  return f;
}

void Function::call(const std::vector<const DeviceBuffer*>& args) const {
  if (!backend_) throw Error(ErrorKind::Usage, "call of an empty Function");
  // What a call through a session can carry (the protocol's limits), checked here for both
  // targets, so that a queued call is refused when it is made, as an eager one is.
  if (args.size() > DSPC_PROTO_MAX_ARGS)
    throw Error(ErrorKind::Usage, name_ + ": " + std::to_string(args.size()) +
                                      " arguments; a call through a session passes at most " +
                                      std::to_string(DSPC_PROTO_MAX_ARGS));
  std::vector<detail::CallArg> a;
  for (size_t i = 0; i < args.size(); i++) {
    const DeviceBuffer* d = args[i];
    if (!d) throw Error(ErrorKind::Usage, name_ + ": argument " + std::to_string(i) + " is null");
    if (!d->host_)
      throw Error(ErrorKind::Usage, name_ + ": argument " + std::to_string(i) + " is a moved-from buffer");
    if (d->backend_ != backend_)
      throw Error(ErrorKind::Usage,
                  name_ + ": argument " + std::to_string(i) + " belongs to another session");
    if (d->shape().size() > DSPC_PROTO_MAX_NDIM)
      throw Error(ErrorKind::Usage, name_ + ": argument " + std::to_string(i) + " has rank " +
                                        std::to_string(d->shape().size()) +
                                        "; a call through a session passes tensors of rank " +
                                        std::to_string(DSPC_PROTO_MAX_NDIM) + " at most");
    a.push_back({d->handle_, d->host_, d->dtype(), &d->shape()});
  }
  std::string error;
  std::lock_guard<std::mutex> lock(backend_->mutex);
  need_open(*backend_, name_);
  if (module_keepalive_ && !static_cast<const Module::State*>(module_keepalive_.get())->loaded)
    throw Error(ErrorKind::Usage, name_ + ": its module is unloaded");
  if (backend_->lazy) {
    detail::QueuedCall q{handle_, name_, a, {}};
    q.shapes.reserve(a.size());
    for (size_t i = 0; i < a.size(); i++) {
      q.shapes.push_back(*a[i].shape);
      q.args[i].shape = &q.shapes.back();
    }
    backend_->queue.push_back(std::move(q));
    return;
  }
  int32_t status = backend_->call(handle_, a, &error);
  if (status == 0) return;
  // The checked entry's messages name the function already ("add: argument 1 (B): ...").
  std::string prefix = name_ + ": ";
  throw Error(status == 2 ? ErrorKind::BadArgument : ErrorKind::Kernel,
              error.rfind(prefix, 0) == 0 ? error : prefix + error, status);
}

}  // namespace dspc
