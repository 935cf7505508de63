// The Local backend: the host target, in-process. Modules are host shared objects (dspc
// --emit=so --target=host), dlopen'ed RTLD_LOCAL; the runtime-support symbols they leave
// undefined (HexagonBackendAllocateVTCM, DspcWorkspaceAlloc, dspc_set_last_error, ...) resolve
// against libdspc_host.so, which is built from runtime-support/device's sources and exports
// them, and is in the global scope of any program linking it. Device memory is host memory:
// anonymous mappings, within the same byte budget the arena would give, and VTCM buffers come
// from the same pool kernels use. Each Local session owns a dspc_context (its VTCM pool, workspace
// and last error) and passes it to every call, so two in-process sessions, in one thread or in
// two, never share device state. There is no deadline and no isolation: a kernel that crashes
// or never returns takes the process with it.
#include <dlfcn.h>
#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <set>

#include "Backend.h"
#include "dspc_runtime.h"
#include "runtime-support/common/protocol.h"

namespace dspc::detail {
namespace {

// Why a 64-bit little-endian ELF file cannot be what dlopen maps, or "" when its headers and
// segments lie inside it: dlopen maps a truncated file's segments past its end, and touching
// them is a SIGBUS, not an error (other files, dlopen itself refuses).
std::string elf_outside_the_file(const std::vector<uint8_t>& b) {
  Elf64_Ehdr eh;
  if (b.size() < sizeof eh || std::memcmp(b.data(), ELFMAG, SELFMAG) != 0 || b[EI_CLASS] != ELFCLASS64 ||
      b[EI_DATA] != ELFDATA2LSB)
    return "";
  std::memcpy(&eh, b.data(), sizeof eh);
  uint64_t size = b.size();
  if (eh.e_phnum && (eh.e_phentsize < sizeof(Elf64_Phdr) || eh.e_phoff > size ||
                     uint64_t(eh.e_phnum) * eh.e_phentsize > size - eh.e_phoff))
    return "bad ELF: the program headers run past the end of the file";
  for (uint64_t i = 0; i < eh.e_phnum; i++) {
    Elf64_Phdr ph;
    std::memcpy(&ph, b.data() + eh.e_phoff + i * eh.e_phentsize, sizeof ph);
    if (ph.p_type != PT_NULL && (ph.p_offset > size || ph.p_filesz > size - ph.p_offset))
      return "bad ELF: segment outside the file (is it truncated?)";
  }
  return "";
}

class Local final : public Backend {
 public:
  explicit Local(const SessionOptions& options) {
    deadline = options.deadline;
    budget_ = options.arena_bytes;  // Session checked it, and vtcm_bytes (below 4 GiB)
    uint32_t vtcm = options.vtcm_bytes ? uint32_t(options.vtcm_bytes) : DSPC_HOST_VTCM_DEFAULT;
    dspc_context_init(&ctx_);
    if (dspc_vtcm_set_capacity(vtcm, &ctx_) != 0)
      throw Error(ErrorKind::Usage,
                  std::string("cannot open an in-process session: ") + dspc_get_last_error(&ctx_));
    arena_bytes = device_bytes = budget_;
    vtcm_capacity = vtcm;
    open_ = true;
  }
  ~Local() override {
    shutdown();
    dspc_context_release(&ctx_);
  }

  bool is_open() const override { return open_; }

  Allocation alloc(uint64_t nbytes, Memory memory) override {
    closed_check();
    if (memory == Memory::VTCM) {
      void* p = nbytes > 0xffffffffu ? nullptr : HexagonBackendAllocateVTCM(uint32_t(nbytes), 128, &ctx_);
      if (!p) throw Error(ErrorKind::NoMemory, std::string("VTCM allocation: ") + dspc_get_last_error(&ctx_));
      vtcm_.insert(p);
      return {uint64_t(uintptr_t(p)), static_cast<char*>(p)};
    }
    uint64_t n = nbytes ? nbytes : 1;
    if (n > budget_ - used_) {  // the device's last error says it too, as on Hexagon
      std::string why = "device memory allocation of " + std::to_string(nbytes) +
                        " bytes failed: out of device memory (" + std::to_string(budget_ - used_) + " of " +
                        std::to_string(budget_) + " bytes free)";
      dspc_set_last_error(why.c_str(), &ctx_);
      throw Error(ErrorKind::NoMemory, "device memory allocation: " + why);
    }
    void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw Error(ErrorKind::NoMemory, "device memory allocation: out of host memory");
    used_ += n;
    global_[p] = n;
    return {uint64_t(uintptr_t(p)), static_cast<char*>(p)};
  }

  void free(uint64_t handle) noexcept override {
    void* p = reinterpret_cast<void*>(uintptr_t(handle));
    if (vtcm_.erase(p)) {
      HexagonBackendFreeVTCM(p, &ctx_);
      return;
    }
    auto it = global_.find(p);
    if (it == global_.end()) return;
    munmap(p, it->second);
    used_ -= it->second;
    global_.erase(it);
  }

  uint32_t load(const std::string& path, const std::vector<uint8_t>& bytes) override {
    closed_check();
    std::string name = path.empty() ? std::string("a module") : "'" + path + "'";
    auto failed = [&](std::string why) {  // the device's last error says it too, as on Hexagon
      dspc_set_last_error(why.c_str(), &ctx_);
      return Error(ErrorKind::LoadFailed, "loading " + name + ": " + why);
    };
    if (std::string why = elf_outside_the_file(bytes); !why.empty()) throw failed(why);
    // A name without a slash is a file in the current directory, as on Hexagon (dlopen would
    // search the library path for it instead).
    std::string where = path.find('/') == std::string::npos && !path.empty() ? "./" + path : path;
    int fd = -1;
    if (where.empty()) {  // bytes only: dlopen them through a memfd
      fd = memfd_create("dspc-module", MFD_CLOEXEC);
      if (fd < 0 || write(fd, bytes.data(), bytes.size()) != ssize_t(bytes.size()))
        throw Error(ErrorKind::System, "cannot stage the module in memory");
      where = "/proc/self/fd/" + std::to_string(fd);
    }
    void* h = dlopen(where.c_str(), RTLD_NOW | RTLD_LOCAL);
    std::string why = h ? "" : dlerror();
    if (fd >= 0) close(fd);
    // dlerror names the file; a module given as bytes has none but the memfd's /proc path.
    if (fd >= 0 && why.rfind(where + ": ", 0) == 0) why.erase(0, where.size() + 2);
    if (!h) throw failed(why);
    auto* funcs = static_cast<const dspc_func_desc*>(dlsym(h, "__dspc_funcs"));
    auto* num = static_cast<const uint32_t*>(dlsym(h, "__dspc_num_funcs"));
    if (!funcs || !num) {
      dlclose(h);
      throw failed("module has no __dspc_funcs / __dspc_num_funcs table");
    }
    modules_.push_back({h, funcs, *num});
    return uint32_t(modules_.size() - 1);
  }

  void unload(uint32_t module) noexcept override {
    if (module >= modules_.size() || !modules_[module].handle) return;
    dlclose(modules_[module].handle);
    modules_[module] = {};
  }

  Lookup lookup(uint32_t module, const std::string& name) override {
    closed_check();
    if (module >= modules_.size() || !modules_[module].handle)
      throw Error(ErrorKind::Usage, "looking up '" + name + "': no such module");
    const Mod& m = modules_[module];
    for (uint32_t i = 0; i < m.num && i < 4096; i++) {
      const dspc_func_desc& f = m.funcs[i];
      if (name != f.name) continue;
      if (f.num_params > DSPC_PROTO_MAX_ARGS)  // as the device server refuses it
        throw Error(ErrorKind::Usage, "looking up '" + name +
                                          "': the function has more than 64 parameters, the most a call "
                                          "through a session passes");
      Lookup out{module * 4096 + i, {}};
      for (uint32_t k = 0; k < f.num_params; k++) {
        const dspc_param_desc& p = f.params[k];
        out.params.push_back({p.name, DType{p.type_code, p.bits}, p.is_output != 0,
                              std::vector<int64_t>(p.shape, p.shape + p.ndim)});
      }
      return out;
    }
    throw Error(ErrorKind::NotFound, "looking up '" + name + "': no function '" + name + "' in the module");
  }

  int32_t call(uint32_t function, const std::vector<CallArg>& args, std::string* error) override {
    closed_check();
    uint32_t module = function / 4096, index = function % 4096;
    if (module >= modules_.size() || !modules_[module].handle || index >= modules_[module].num)
      throw Error(ErrorKind::Usage, "call: no such function (was its module unloaded?)");
    const dspc_func_desc& f = modules_[module].funcs[index];
    std::vector<dspc_arg> a;
    for (const CallArg& c : args)
      a.push_back({c.host, c.shape->data(), int32_t(c.shape->size()), c.dtype.code, c.dtype.bits, 0});
    dspc_set_last_error("", &ctx_);
    int32_t status;
    if (f.call) {
      status = f.call(a.data(), int32_t(a.size()), &ctx_);
    } else {
      std::vector<void*> data;
      for (const dspc_arg& x : a) data.push_back(x.data);
      status = f.num_params == a.size() ? f.packed(data.data(), &ctx_) : DSPC_ERR_BAD_ARGUMENT;
    }
    *error = status ? (dspc_get_last_error(&ctx_)[0] ? dspc_get_last_error(&ctx_)
                                                : "kernel failed with status " + std::to_string(status))
                    : "";
    return status;
  }

  std::string last_error() override { return dspc_get_last_error(&ctx_); }

  void shutdown() override {
    if (!open_) return;
    open_ = false;
    for (void* p : vtcm_) HexagonBackendFreeVTCM(p, &ctx_);
    vtcm_.clear();
    for (auto& [p, n] : global_) munmap(p, n);
    global_.clear();
    used_ = 0;
    for (uint32_t i = 0; i < modules_.size(); i++) unload(i);
    modules_.clear();
  }

  Session::RawReply raw(const std::vector<uint8_t>&) override {
    throw Error(ErrorKind::Usage, "an in-process session has no protocol");
  }
  void bad_reply(uint32_t) override {
    throw Error(ErrorKind::Usage, "an in-process session has no protocol");
  }

 private:
  void closed_check() {
    if (!open_) throw Error(ErrorKind::Closed, "the session is closed");
  }
  struct Mod {
    void* handle = nullptr;
    const dspc_func_desc* funcs = nullptr;
    uint32_t num = 0;
  };
  std::atomic<bool> open_{false};  // read by copies on other threads
  uint64_t budget_ = 0, used_ = 0;
  std::map<void*, uint64_t> global_;
  std::set<void*> vtcm_;
  std::vector<Mod> modules_;
  dspc_context ctx_;  // this session's device state
};

}  // namespace

std::shared_ptr<Backend> make_local_backend(const SessionOptions& options) {
  return std::make_shared<Local>(options);
}

}  // namespace dspc::detail
