// The embedding API of <dspc/host.h> over a Backend (Remote for Hexagon targets, Local for
// "host").
#include <cstring>
#include <fstream>
#include <iterator>

#include "Backend.h"

namespace dspc {

std::string DType::str() const {
  if (code == 3) return "bool";
  return std::string(code == 0 ? "i" : code == 1 ? "u" : "f") + std::to_string(bits);
}

// ---- Session ---------------------------------------------------------------------------------

Session::Session(SessionOptions options) : options_(std::move(options)) {
  backend_ = options_.target == "host" ? detail::make_local_backend(options_)
                                       : detail::make_remote_backend(options_);
}

Session::~Session() {
  if (!backend_) return;
  try {
    std::lock_guard<std::mutex> lock(backend_->mutex);
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

void Session::close() {
  auto& b = need(backend_);
  std::lock_guard<std::mutex> lock(b.mutex);
  b.shutdown();
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
  return b.last_error();
}
uint64_t Session::round_trips() const {
  return backend_ ? backend_->round_trips.load(std::memory_order_relaxed) : 0;
}

std::chrono::milliseconds Session::deadline() const {
  return need(backend_).deadline;
}
void Session::set_deadline(std::chrono::milliseconds d) {
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
  uint64_t n = dtype.bits / 8;
  for (int64_t e : shape_) {
    if (e < 0 || (e && n > (uint64_t(1) << 62) / uint64_t(e)))
      throw Error(ErrorKind::Usage, "bad tensor shape");
    n *= uint64_t(e);
  }
  nbytes_ = n;
  auto& b = need(backend_);
  std::lock_guard<std::mutex> lock(b.mutex);
  detail::Allocation a = b.alloc(n, memory);
  handle_ = a.handle;
  host_ = a.host;
}

DeviceBuffer::~DeviceBuffer() {
  release();
}

void DeviceBuffer::release() noexcept {
  if (!backend_ || !host_) return;
  std::lock_guard<std::mutex> lock(backend_->mutex);
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

void DeviceBuffer::copy_from_host(const void* src, uint64_t nbytes) {
  if (!host_ || !backend_->is_open())
    throw Error(ErrorKind::Closed, "copy into a buffer of a closed session");
  if (nbytes != nbytes_)
    throw Error(ErrorKind::Usage, "copy of " + std::to_string(nbytes) + " bytes into a buffer of " +
                                      std::to_string(nbytes_) + " bytes");
  std::memcpy(host_, src, nbytes);  // the arena: the device sees it at once
}

void DeviceBuffer::copy_to_host(void* dst, uint64_t nbytes) const {
  if (!host_ || !backend_->is_open())
    throw Error(ErrorKind::Closed, "copy from a buffer of a closed session");
  if (nbytes != nbytes_)
    throw Error(ErrorKind::Usage, "copy of " + std::to_string(nbytes) + " bytes out of a buffer of " +
                                      std::to_string(nbytes_) + " bytes");
  std::memcpy(dst, host_, nbytes);
}

// ---- Module and Function ---------------------------------------------------------------------

struct Module::State {
  std::shared_ptr<detail::Backend> backend;
  uint32_t handle = 0;
  bool loaded = false;
  void unload() {
    if (!loaded) return;
    loaded = false;
    std::lock_guard<std::mutex> lock(backend->mutex);
    backend->unload(handle);
  }
  ~State() { unload(); }
};

Module Module::load(Session& session, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::LoadFailed, "loading '" + path + "': cannot read the file");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Module m;
  m.state_ = std::make_shared<State>();
  m.state_->backend = session.backend();
  auto& b = need(m.state_->backend);
  std::lock_guard<std::mutex> lock(b.mutex);
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
  m.state_->handle = b.load("", elf);
  m.state_->loaded = true;
  return m;
}

Module::~Module() = default;

void Module::unload() {
  if (state_) state_->unload();
}

Function Module::function(const std::string& name) const {
  if (!state_ || !state_->loaded)
    throw Error(ErrorKind::Usage, "looking up '" + name + "': the module is unloaded");
  auto& b = need(state_->backend);
  std::lock_guard<std::mutex> lock(b.mutex);
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
  std::vector<detail::CallArg> a;
  for (size_t i = 0; i < args.size(); i++) {
    const DeviceBuffer* d = args[i];
    if (!d || !d->host_)
      throw Error(ErrorKind::Usage, name_ + ": argument " + std::to_string(i) + " is empty");
    if (d->backend_ != backend_)
      throw Error(ErrorKind::Usage,
                  name_ + ": argument " + std::to_string(i) + " belongs to another session");
    a.push_back({d->handle_, d->host_, d->dtype(), &d->shape()});
  }
  std::string error;
  std::lock_guard<std::mutex> lock(backend_->mutex);
  int32_t status = backend_->call(handle_, a, &error);
  if (status == 0) return;
  throw Error(status == 2 ? ErrorKind::BadArgument : ErrorKind::Kernel, name_ + ": " + error, status);
}

}  // namespace dspc
