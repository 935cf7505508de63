// Failures: each gives a clear error within 5 s, no hang, no
// leaked descriptor or child, and the session is closed (or still usable where the device
// survived); a new session works afterwards.
#include <dlfcn.h>
#include <elf.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/wait.h>

#include <sys/syscall.h>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <map>
#include <thread>

#include "common.h"
#include "runtime-support/common/protocol.h"

// Whether the process is a zombie (it has exited, and nobody has reaped it yet).
static bool is_zombie(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string id, comm, state;
  return bool(stat >> id >> comm >> state) && state == "Z";
}

// A slow host, on demand: this definition interposes on libc's for the host runtime too. With
// slow_waitpid set, a poll of one child (WNOHANG) first waits until that child has exited (at
// most 2 s), as a host thread preempted between reading the reply word and reaping the server
// would.
static std::atomic<bool> slow_waitpid{false};
extern "C" pid_t waitpid(pid_t pid, int* status, int options) {
  if (slow_waitpid.load() && pid > 0 && (options & WNOHANG))
    for (int i = 0; i < 2000 && !is_zombie(pid); i++) usleep(1000);
  return pid_t(syscall(SYS_wait4, pid, status, options, nullptr));
}

// A slow fork, on demand, likewise: with slow_fork set, a fork by any thread but fork_tester
// (the runtime's keeper thread) says so in keeper_forking and waits until slow_fork is cleared.
static std::atomic<bool> slow_fork{false}, keeper_forking{false};
static std::atomic<pid_t> fork_tester{0};
extern "C" pid_t fork() {
  static auto real = reinterpret_cast<pid_t (*)()>(dlsym(RTLD_NEXT, "fork"));
  if (slow_fork.load() && pid_t(syscall(SYS_gettid)) != fork_tester.load()) {
    keeper_forking = true;
    while (slow_fork.load()) usleep(1000);
  }
  return real();
}

namespace {

using Failure = FailureTest;

TEST_F(Failure, KernelWithABadAddressKillsOnlyTheServer) {
  Session s;
  auto m = Module::load(s, module_path(kHex, "v1"));
  DeviceBuffer X(s, DType::i32(), {1});
  std::string msg = expect_error(ErrorKind::ServerDied, "the device server died during the call",
                                 [&] { m.function("crash_segv")(X); });
  EXPECT_EQ(contains(msg, "signal 11"), "");
  expect_closed(s);
}

TEST_F(Failure, KernelThatTrapsKillsOnlyTheServer) {
  Session s;
  auto m = Module::load(s, module_path(kHex, "v1"));
  expect_error(ErrorKind::ServerDied, "the device server died during the call",
               [&] { m.function("crash_trap")(); });
  expect_closed(s);
}

TEST_F(Failure, KernelThatNeverReturnsTimesOut) {
  dspc::SessionOptions o;
  o.deadline = std::chrono::milliseconds(1500);
  Session s(o);
  auto m = Module::load(s, module_path(kHex, "v1"));
  DeviceBuffer X(s, DType::i32(), {1});
  auto t0 = Clock::now();
  std::string msg = expect_error(ErrorKind::Timeout, "the call did not finish within 1500 ms",
                                 [&] { m.function("spin_forever")(X); });
  EXPECT_GE(seconds_since(t0), 1.4);
  EXPECT_EQ(contains(msg, "the device server was killed and the session closed"), "");
  expect_closed(s);
}

TEST_F(Failure, ServerKilledMidRequest) {
  Session s;  // the default 5 s deadline: the death, not the deadline, must end the wait
  auto m = Module::load(s, module_path(kHex, "v1"));
  DeviceBuffer X(s, DType::i32(), {1});
  int pid = s.server_pid();
  ASSERT_GT(pid, 0);
  std::thread killer([pid] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    kill(pid, SIGKILL);
  });
  auto t0 = Clock::now();
  std::string msg =
      expect_error(ErrorKind::ServerDied, "killed by signal 9", [&] { m.function("spin_forever")(X); });
  killer.join();
  EXPECT_LT(seconds_since(t0), 2.0);
  expect_closed(s);
}

std::vector<uint8_t> request(uint32_t magic, uint16_t version, uint16_t op, uint32_t length,
                             const std::vector<uint8_t>& payload = {}) {
  dspc_proto_request q{magic, version, op, length, 0};
  std::vector<uint8_t> b(sizeof q);
  std::memcpy(b.data(), &q, sizeof q);
  b.resize(sizeof q + payload.size());
  if (!payload.empty()) std::memcpy(b.data() + sizeof q, payload.data(), payload.size());
  return b;
}

template <class T>
std::vector<uint8_t> bytes_of(const T& v) {
  std::vector<uint8_t> b(sizeof v);
  std::memcpy(b.data(), &v, sizeof v);
  return b;
}

// Malformed and truncated requests get an error reply; the server lives on and serves.
TEST_F(Failure, MalformedRequestsGetErrorReplies) {
  Session s;
  auto m = Module::load(s, module_path(kHex, "v1"));
  const uint32_t Q = DSPC_PROTO_REQUEST_MAGIC, V = DSPC_PROTO_VERSION;
  dspc_proto_call call{0, 3};
  dspc_proto_call many{0, 1000};
  dspc_proto_load far{uint64_t(1) << 40, 100};
  dspc_proto_alloc weird{64, 128, 7};
  struct Case {
    std::vector<uint8_t> bytes;
    const char* message;
  } cases[] = {
      {request(0x12345678, V, DSPC_OP_HELLO, 20), "bad magic"},
      {request(Q, 9, DSPC_OP_HELLO, 20), "protocol version 9"},
      {request(Q, V, DSPC_OP_HELLO, 3), "length 3 outside"},
      {request(Q, V, DSPC_OP_HELLO, 1u << 30), "outside [16, 32000]"},
      {request(Q, V, 77, 16), "unknown operation 77"},
      {request(Q, V, DSPC_OP_HELLO, 16), "HELLO needs a version"},
      {request(Q, V, DSPC_OP_ALLOC, 20, {1, 2, 3, 4}), "truncated ALLOC"},
      {request(Q, V, DSPC_OP_ALLOC, 16 + sizeof weird, bytes_of(weird)), "unknown memory kind 7"},
      {request(Q, V, DSPC_OP_CALL, 16 + sizeof call + 10, bytes_of(call)), "truncated CALL"},
      {request(Q, V, DSPC_OP_CALL, 16 + sizeof many, bytes_of(many)), "1000 arguments"},
      {request(Q, V, DSPC_OP_LOAD, 16 + sizeof far, bytes_of(far)), "outside device memory"},
      {request(Q, V, DSPC_OP_LOOKUP, 16 + 8, {0, 0, 0, 0, 200, 0, 0, 0}), "name runs past the message"},
      {{1, 2, 3}, "malformed request"},
  };
  for (const Case& c : cases) {
    Session::RawReply r = s.send_raw_for_testing(c.bytes);
    EXPECT_EQ(r.status, DSPC_PROTO_MALFORMED) << c.message;
    EXPECT_EQ(contains(r.error, c.message), "");
  }
  // A CALL whose argument points outside device memory is refused before the kernel runs.
  auto add = m.function("add_i32");
  dspc_proto_arg arg{};
  arg.offset = 16;  // the control page
  arg.type_code = 0;
  arg.bits = 32;
  arg.ndim = 1;
  arg.shape[0] = 1024;
  dspc_proto_call one{0, 1};
  auto body = bytes_of(one);
  auto a = bytes_of(arg);
  body.insert(body.end(), a.begin(), a.end());
  Session::RawReply r = s.send_raw_for_testing(request(Q, V, DSPC_OP_CALL, uint32_t(16 + body.size()), body));
  EXPECT_EQ(r.status, DSPC_PROTO_MALFORMED);
  EXPECT_EQ(contains(r.error, "argument 0's data lies outside device memory"), "");
  // Extents whose byte count passes 2^40 or wraps 64 bits, and negative ones, are refused by
  // the server's own checks (before the module's checked entry).
  const std::vector<std::vector<int64_t>> shapes = {
      {int64_t(1) << 41}, {int64_t(1) << 32, int64_t(1) << 32}, {4, -1}, {int64_t(1) << 20, int64_t(1) << 20, 2}};
  for (const auto& shape : shapes) {
    dspc_proto_arg huge{};
    huge.offset = arg.offset;
    huge.bits = 8;
    huge.ndim = uint32_t(shape.size());
    for (size_t d = 0; d < shape.size(); d++) huge.shape[d] = shape[d];
    auto b = bytes_of(one);
    auto h = bytes_of(huge);
    b.insert(b.end(), h.begin(), h.end());
    r = s.send_raw_for_testing(request(Q, V, DSPC_OP_CALL, uint32_t(16 + b.size()), b));
    EXPECT_EQ(r.status, DSPC_PROTO_MALFORMED) << shape.size();
    EXPECT_EQ(contains(r.error, "argument extent"), "");
  }
  // A CALL_BATCH that announces more calls than it holds, or whose call points outside device
  // memory, is malformed too.
  dspc_proto_call_batch two{2, 0};
  auto batch = bytes_of(two);
  r = s.send_raw_for_testing(request(Q, V, DSPC_OP_CALL_BATCH, uint32_t(16 + batch.size()), batch));
  EXPECT_EQ(r.status, DSPC_PROTO_MALFORMED);
  EXPECT_EQ(contains(r.error, "truncated CALL"), "");
  batch.insert(batch.end(), body.begin(), body.end());
  r = s.send_raw_for_testing(request(Q, V, DSPC_OP_CALL_BATCH, uint32_t(16 + batch.size()), batch));
  EXPECT_EQ(r.status, DSPC_PROTO_MALFORMED);
  EXPECT_EQ(contains(r.error, "argument 0's data lies outside device memory"), "");
  EXPECT_TRUE(s.is_open());
  std::vector<int32_t> x(1024, 5), y(1024);
  DeviceBuffer A(s, DType::i32(), {1024}), C(s, DType::i32(), {1024});
  A.copy_from_host(x);
  add(A, A, C);
  C.copy_to_host(y);
  EXPECT_EQ(y[1023], 10);
}

// A malformed reply (wrong magic, a length past the slot, a stale sequence number) is reported
// and closes the session: the host cannot trust that server any more.
TEST_F(Failure, MalformedRepliesCloseTheSession) {
  const std::pair<uint32_t, const char*> modes[] = {{DSPC_PROTO_BAD_MAGIC, "bad magic"},
                                                    {DSPC_PROTO_BAD_LENGTH, "length outside the reply slot"},
                                                    {DSPC_PROTO_BAD_SEQ, "sequence number does not match"}};
  for (const auto& [mode, text] : modes) {
    Session s;
    uint32_t m = mode;
    expect_error(ErrorKind::Protocol, text, [&] { s.request_bad_reply_for_testing(m); });
    expect_closed(s);
  }
}

TEST_F(Failure, VtcmExhaustion) {
  dspc::SessionOptions o;
  o.vtcm_bytes = 128 << 10;
  Session s(o);
  auto m = Module::load(s, module_path(kHex, "v1"));
  DeviceBuffer big(s, DType::u8(), {120 << 10}, dspc::Memory::VTCM);
  expect_error(ErrorKind::NoMemory, "VTCM allocation of 65536 bytes failed",
               [&] { DeviceBuffer more(s, DType::u8(), {64 << 10}, dspc::Memory::VTCM); });
  // A kernel whose own VTCM allocation fails returns the pool's message.
  DeviceBuffer A(s, DType::i8(), {2048}), C(s, DType::i8(), {2048});
  DeviceBuffer rest(s, DType::u8(), {8 << 10}, dspc::Memory::VTCM);  // the pool is full
  expect_error(ErrorKind::Kernel, "stage_vtcm: VTCM allocation of 2048 bytes failed",
               [&] { m.function("stage_vtcm")(A, C); });
  EXPECT_TRUE(s.is_open());
  { DeviceBuffer freed = std::move(big); }
  m.function("stage_vtcm")(A, C);  // the VTCM is back
}

TEST_F(Failure, DeviceMemoryExhaustion) {
  dspc::SessionOptions o;
  o.arena_bytes = 8 << 20;
  o.vtcm_bytes = 256 << 10;
  Session s(o);
  std::string msg = expect_error(ErrorKind::NoMemory, "device memory allocation of 16777216 bytes failed",
                                 [&] { DeviceBuffer b(s, DType::u8(), {16 << 20}); });
  EXPECT_EQ(contains(msg, "bytes free, largest free block"), "");
  std::vector<DeviceBuffer> held;
  try {
    for (int i = 0; i < 100; i++) held.emplace_back(s, DType::u8(), std::vector<int64_t>{1 << 20});
    ADD_FAILURE() << "8 MiB of device memory held 100 MiB";
  } catch (const dspc::Error& e) {
    EXPECT_EQ(int(e.kind()), int(ErrorKind::NoMemory)) << e.what();
  }
  EXPECT_GE(held.size(), 6u);
  held.clear();
  DeviceBuffer again(s, DType::u8(), {6 << 20});  // everything was given back and coalesced
}

TEST_F(Failure, WrongArgumentsAreRefusedByTheCheckedEntry) {
  Session s;
  auto m = Module::load(s, module_path(kHex, "v1"));
  auto add = m.function("add_i32");
  DeviceBuffer A(s, DType::i32(), {1024}), B(s, DType::i32(), {1023}), F(s, DType::f32(), {1024}),
      C(s, DType::i32(), {1024});
  auto err = [&](const char* text, auto&&... args) {
    std::string m2 = expect_error(ErrorKind::BadArgument, text, [&] { add(args...); });
  };
  err("add_i32: argument 1 (B): expected shape i32[1024], got i32[1023]", A, B, C);
  err("add_i32: argument 2 (C): expected shape i32[1024], got f32[1024]", A, A, F);
  err("add_i32: expected 3 arguments, got 2", A, A);
  try {
    add(A, B, C);
  } catch (const dspc::Error& e) {
    EXPECT_EQ(e.status(), 2);
  }
  EXPECT_EQ(s.last_error(), "add_i32: argument 1 (B): expected shape i32[1024], got i32[1023]");
  add(A, A, C);  // still usable
}

// Patches the first R_HEX_RELATIVE of a Hexagon module into R_HEX_32, which the loader refuses.
std::vector<uint8_t> with_unsupported_relocation(std::vector<uint8_t> elf) {
  Elf32_Ehdr eh;
  std::memcpy(&eh, elf.data(), sizeof eh);
  for (int i = 0; i < eh.e_shnum; i++) {
    Elf32_Shdr sh;
    std::memcpy(&sh, elf.data() + eh.e_shoff + i * sizeof sh, sizeof sh);
    if (sh.sh_type != SHT_RELA || sh.sh_size == 0) continue;
    Elf32_Rela r;
    std::memcpy(&r, elf.data() + sh.sh_offset, sizeof r);
    r.r_info = (r.r_info & ~0xffu) | 6u;  // R_HEX_32
    std::memcpy(elf.data() + sh.sh_offset, &r, sizeof r);
    return elf;
  }
  ADD_FAILURE() << "no relocation to patch";
  return elf;
}

// Sets the value of a Hexagon module's __dspc_num_funcs, found through its .dynsym section.
std::vector<uint8_t> with_num_funcs(std::vector<uint8_t> elf, uint32_t value) {
  Elf32_Ehdr eh;
  std::memcpy(&eh, elf.data(), sizeof eh);
  auto section = [&](int i) {
    Elf32_Shdr sh;
    std::memcpy(&sh, elf.data() + eh.e_shoff + i * sizeof sh, sizeof sh);
    return sh;
  };
  for (int i = 0; i < eh.e_shnum; i++) {
    Elf32_Shdr sh = section(i);
    if (sh.sh_type != SHT_DYNSYM) continue;
    Elf32_Shdr strings = section(int(sh.sh_link));
    for (uint32_t k = 0; k < sh.sh_size / sizeof(Elf32_Sym); k++) {
      Elf32_Sym sym;
      std::memcpy(&sym, elf.data() + sh.sh_offset + k * sizeof sym, sizeof sym);
      if (std::strcmp(reinterpret_cast<const char*>(elf.data() + strings.sh_offset + sym.st_name), "__dspc_num_funcs"))
        continue;
      for (int p = 0; p < eh.e_phnum; p++) {  // the file offset of the symbol's address
        Elf32_Phdr ph;
        std::memcpy(&ph, elf.data() + eh.e_phoff + p * sizeof ph, sizeof ph);
        if (ph.p_type == PT_LOAD && sym.st_value >= ph.p_vaddr && sym.st_value + 4 <= ph.p_vaddr + ph.p_filesz) {
          std::memcpy(elf.data() + ph.p_offset + (sym.st_value - ph.p_vaddr), &value, 4);
          return elf;
        }
      }
    }
  }
  ADD_FAILURE() << "no __dspc_num_funcs to patch";
  return elf;
}

TEST_F(Failure, ModulesThatFailToLoad) {
  Session s;
  std::vector<uint8_t> good = read_bytes(module_path(kHex, "v1"));
  ASSERT_GT(good.size(), 1000u);
  std::vector<uint8_t> truncated(good.begin(), good.begin() + 60);
  std::vector<uint8_t> garbage(4096, 0x5a);
  std::vector<uint8_t> no_segments = good;
  no_segments[44] = 0;
  no_segments[45] = 0;  // e_phnum = 0
  auto load = [&](const std::vector<uint8_t>& b) { Module::load_bytes(s, b); };
  expect_error(ErrorKind::LoadFailed, "bad ELF: no ELF magic", [&] { load(garbage); });
  expect_error(ErrorKind::LoadFailed, "bad ELF: program headers outside the file", [&] { load(truncated); });
  expect_error(ErrorKind::LoadFailed, "bad ELF: no program headers", [&] { load(no_segments); });
  expect_error(ErrorKind::LoadFailed, "bad ELF: not 32-bit little-endian",
               [&] { load(read_bytes(module_path("host", "v1"))); });
  expect_error(ErrorKind::LoadFailed, "bad ELF: file shorter than an ELF header", [&] { load({0x7f, 'E'}); });
  expect_error(ErrorKind::LoadFailed, "unresolved symbol: dspc_no_such_runtime_function",
               [&] { Module::load(s, module_path(kHex, "unresolved")); });
  expect_error(ErrorKind::LoadFailed, "unsupported relocation type R_HEX_32 (6)",
               [&] { load(with_unsupported_relocation(good)); });
  // 214748365 entries of 20 bytes are 4 GiB + 4 bytes: 4 bytes in the server's 32-bit size_t.
  expect_error(ErrorKind::LoadFailed, "bad ELF: __dspc_funcs runs outside the image",
               [&] { load(with_num_funcs(good, 214748365)); });
  expect_error(ErrorKind::LoadFailed, "cannot read the file", [&] { Module::load(s, "/nonexistent/x.so"); });
  EXPECT_TRUE(s.is_open());
  auto m = Module::load_bytes(s, good);  // the failures left nothing behind
  m.function("empty")();
}

TEST(HostFailure, ModulesThatFailToLoadInProcess) {
  dspc::SessionOptions o;
  o.target = "host";
  Session s(o);
  expect_error(ErrorKind::LoadFailed, "dspc_no_such_runtime_function",
               [&] { Module::load(s, module_path("host", "unresolved")); });
  expect_error(ErrorKind::LoadFailed, "loading a module",
               [&] { Module::load_bytes(s, std::vector<uint8_t>(4096, 1)); });
  auto m = Module::load(s, module_path("host", "v1"));
  DeviceBuffer A(s, DType::i32(), {1024}), B(s, DType::i32(), {1023}), C(s, DType::i32(), {1024});
  expect_error(ErrorKind::BadArgument, "add_i32: argument 1 (B): expected shape i32[1024], got i32[1023]",
               [&] { m.function("add_i32")(A, B, C); });
  expect_error(ErrorKind::NoMemory, "VTCM allocation of",
               [&] { DeviceBuffer v(s, DType::u8(), {64 << 20}, dspc::Memory::VTCM); });
}

// Misuse of the API that was unchecked: each is a dspc::Error,
// on both targets, and the session keeps working.
TEST_F(Failure, ApiMisuseIsAnError) {
  for (std::string target : {std::string(kHex), std::string("host")}) {
    SCOPED_TRACE(target);
    dspc::SessionOptions o;
    o.target = target;
    Session s(o);
    DeviceBuffer A(s, DType::u8(), {256});
    expect_error(ErrorKind::Usage, "copy into a buffer from a null pointer", [&] { A.copy_from_host(nullptr, 256); });
    expect_error(ErrorKind::Usage, "copy out of a buffer to a null pointer", [&] { A.copy_to_host(nullptr, 256); });
    expect_error(ErrorKind::Usage, "a dtype's code is 0 (int), 1 (uint), 2 (float) or 3 (bool)",
                 [&] { DeviceBuffer b(s, DType{9, 8}, {4}); });
    expect_error(ErrorKind::Usage, "a buffer's memory is Memory::Global or Memory::VTCM",
                 [&] { DeviceBuffer b(s, DType::u8(), {4}, static_cast<dspc::Memory>(7)); });
    expect_error(ErrorKind::Usage, "a session's deadline cannot be negative",
                 [&] { s.set_deadline(std::chrono::milliseconds(-5)); });
    expect_error(ErrorKind::LoadFailed, "loading '/tmp': not a regular file", [&] { Module::load(s, "/tmp"); });
    auto m = Module::load(s, module_path(target, "v1"));
    DeviceBuffer X(s, DType::i32(), {1024}), Y(s, DType::i32(), {1023}), Z(s, DType::i32(), {1024});
    try {
      m.function("add_i32")(X, Y, Z);
      ADD_FAILURE() << "a wrong shape was accepted";
    } catch (const dspc::Error& e) {  // the function is named once (was "add_i32: add_i32: ...")
      EXPECT_EQ(std::string(e.what()).rfind("add_i32: argument 1 (B): expected shape i32[1024], got i32[1023]", 0), 0u)
          << e.what();
    }
    std::vector<uint8_t> one(256, 1), back(256);
    A.copy_from_host(one.data(), 256);
    A.copy_to_host(back.data(), 256);
    EXPECT_EQ(back[255], 1);
    dspc::SessionOptions negative = o;
    negative.deadline = std::chrono::milliseconds(-1);
    expect_error(ErrorKind::Usage, "a session's deadline cannot be negative", [&] { Session bad(negative); });
  }
  {
    Session s;  // a name longer than the request slot is refused before it is sent
    auto m = Module::load(s, module_path(kHex, "v1"));
    expect_error(ErrorKind::Usage, "request larger than the request slot",
                 [&] { m.function(std::string(DSPC_PROTO_SLOT_BYTES, 'f')); });
    EXPECT_TRUE(s.is_open());
  }
  dspc::SessionOptions no_qemu;
  no_qemu.qemu = "/nonexistent/qemu-hexagon";  // was "exit status 127", with no reason
  expect_error(ErrorKind::Usage, "qemu '/nonexistent/qemu-hexagon': No such file or directory",
               [&] { Session bad(no_qemu); });
  dspc::SessionOptions huge;
  huge.target = "host";
  huge.vtcm_bytes = uint64_t(1) << 33;  // was taken modulo 2^32: a pool of 0 bytes
  expect_error(ErrorKind::Usage, "vtcm_bytes must be below 4 GiB", [&] { Session bad(huge); });
}

// A module built for a newer Hexagon than the session's is refused before it loads; older ones
// load (before: a v73 module loaded into a v68 session unchecked).
TEST_F(Failure, ModuleForANewerHexagonIsRefused) {
  std::vector<uint8_t> elf = read_bytes(module_path(kHex, "v1"));
  ASSERT_GT(elf.size(), sizeof(Elf32_Ehdr));
  Elf32_Ehdr h;
  std::memcpy(&h, elf.data(), sizeof h);
  ASSERT_EQ(h.e_flags & 0xff, 0x68u);
  auto with_flags = [&](uint32_t flags) {
    std::vector<uint8_t> e = elf;
    std::memcpy(e.data() + offsetof(Elf32_Ehdr, e_flags), &flags, 4);
    return e;
  };
  {
    Session s;  // hexagon-v68
    expect_error(ErrorKind::LoadFailed, "loading a module: it was built for hexagon-v73, newer than this session's hexagon-v68",
                 [&] { Module::load_bytes(s, with_flags(0x73)); });
    expect_error(ErrorKind::LoadFailed, "built for hexagon-v69", [&] { Module::load_bytes(s, with_flags(0x69)); });
    EXPECT_TRUE(s.is_open());  // refused on the host: the session goes on
    Module::load_bytes(s, with_flags(0x65));
    Module::load_bytes(s, with_flags(0x68));
  }
  dspc::SessionOptions v73;
  v73.target = "hexagon-v73";
  Session s(v73);
  expect_add_i32_works(s, Module::load(s, module_path(kHex, "v1")));  // v68 code on a v73 device
}

// A closed session answers every use alike on both targets: Closed, naming what was refused
// (before: last_error() returned on host and threw on hexagon, a load said
// "(allocation)"). A moved-from buffer is a Usage error, as a moved-from session is.
TEST_F(Failure, ClosedSessionsAndMovedFromObjectsAnswerAlikeOnBothTargets) {
  std::map<std::string, std::vector<std::string>> said;
  for (std::string target : {std::string(kHex), std::string("host")}) {
    SCOPED_TRACE(target);
    dspc::SessionOptions o;
    o.target = target;
    Session s(o);
    std::string path = module_path(target, "v1");
    auto m = Module::load(s, path);
    auto f = m.function("add_i32");
    DeviceBuffer X(s, DType::i32(), {1024}), Y(s, DType::i32(), {1024}), Z(s, DType::i32(), {1024});
    DeviceBuffer moved(s, DType::i32(), {1024});
    DeviceBuffer taker(std::move(moved));
    std::vector<int32_t> v(1024);
    auto& out = said[target];
    out.push_back(expect_error(ErrorKind::Usage, "copy into a moved-from buffer", [&] { moved.copy_from_host(v); }));
    out.push_back(expect_error(ErrorKind::Usage, "copy out of a moved-from buffer", [&] { moved.copy_to_host(v); }));
    out.push_back(expect_error(ErrorKind::Usage, "add_i32: argument 0 is a moved-from buffer",
                               [&] { f(moved, Y, Z); }));
    Session other(std::move(s));
    out.push_back(expect_error(ErrorKind::Usage, "moved-from session", [&] { s.last_error(); }));
    other.close();
    out.push_back(expect_error(ErrorKind::Closed, "allocating a buffer: the session is closed",
                               [&] { DeviceBuffer b(other, DType::u8(), {4}); }));
    out.push_back(expect_error(ErrorKind::Closed, "copy into a buffer of a closed session", [&] { X.copy_from_host(v); }));
    out.push_back(expect_error(ErrorKind::Closed, "copy from a buffer of a closed session", [&] { X.copy_to_host(v); }));
    out.push_back(expect_error(ErrorKind::Closed, "loading a module: the session is closed",
                               [&] { Module::load_bytes(other, read_bytes(path)); }));
    std::string loading = expect_error(ErrorKind::Closed, "loading '" + path + "': the session is closed",
                                       [&] { Module::load(other, path); });
    out.push_back(expect_error(ErrorKind::Closed, "looking up 'add_i32': the session is closed",
                               [&] { m.function("add_i32"); }));
    out.push_back(expect_error(ErrorKind::Closed, "add_i32: the session is closed", [&] { f(X, Y, Z); }));
    out.push_back(expect_error(ErrorKind::Closed, "last error: the session is closed", [&] { other.last_error(); }));
    out.push_back(expect_error(ErrorKind::Closed, "sync: the session is closed", [&] { other.sync(); }));
    EXPECT_NO_THROW(other.close());  // closing twice is no error
  }
  EXPECT_EQ(said[kHex], said["host"]);
}

// A copy on one thread while another thread's request closes the session (a kernel past its
// deadline on hexagon, close() on both): each copy is done or refused as Closed, and device
// memory is never unmapped under it (before: SIGSEGV in memcpy, 3 of 3).
TEST_F(Failure, CopiesOnOneThreadWhileAnotherClosesTheSession) {
  for (std::string target : {std::string(kHex), std::string("host")}) {
    for (int round = 0; round < 3; round++) {
      SCOPED_TRACE(target + " round " + std::to_string(round));
      dspc::SessionOptions o;
      o.target = target;
      o.deadline = std::chrono::milliseconds(300);
      Session s(o);
      auto m = Module::load(s, module_path(target, "v1"));
      // 64 MiB: a copy takes long enough that close() lands while one is inside the memory.
      DeviceBuffer X(s, DType::i32(), {1}), Big(s, DType::u8(), {64 << 20});
      std::vector<uint8_t> bytes(64 << 20, 7);
      std::atomic<bool> started{false};
      std::string copier_error;
      long copies = 0;
      std::thread copier([&] {
        try {
          for (;; copies++) {
            Big.copy_to_host(bytes);
            Big.copy_from_host(bytes);
            started = true;
          }
        } catch (const dspc::Error& e) {
          copier_error = e.what();
          EXPECT_EQ(int(e.kind()), int(ErrorKind::Closed)) << e.what();
        }
      });
      while (!started) std::this_thread::sleep_for(std::chrono::microseconds(100));
      if (target == kHex && round < 2)
        expect_error(ErrorKind::Timeout, "did not finish within 300 ms", [&] { m.function("spin_forever")(X); });
      else
        s.close();
      copier.join();
      EXPECT_GT(copies, 0);
      EXPECT_EQ(contains(copier_error, "of a closed session"), "");
      EXPECT_FALSE(s.is_open());
    }
  }
}

// Lazy calls: a call of an unloaded module's function is refused when it is made, as an eager
// one is; Module::unload reports a queued call's failure; a buffer's destructor cannot, so the
// next synchronization reports it, says where it was found and what was queued since, which
// did not run; close() reports a queued failure and closes all the same (before:
// the queued call was taken, the failure came back as the next batch's, dropping
// it unsaid, and close() threw with the server still running).
TEST_F(Failure, LazyFailuresAreReportedWhereTheyCanBe) {
  for (std::string target : {std::string(kHex), std::string("host")}) {
    SCOPED_TRACE(target);
    dspc::SessionOptions o;
    o.target = target;
    o.lazy_calls = true;
    Session s(o);
    std::string path = module_path(target, "v1");
    auto m = Module::load(s, path);
    auto add = m.function("add_i32");
    DeviceBuffer A(s, DType::i32(), {1024}), B(s, DType::i32(), {1024}), C(s, DType::i32(), {1024});
    std::vector<int32_t> two(1024, 2), out(1024);
    A.copy_from_host(two);
    B.copy_from_host(two);
    {
      auto m2 = Module::load(s, path);
      auto add2 = m2.function("add_i32");
      m2.unload();
      expect_error(ErrorKind::Usage, "add_i32: its module is unloaded", [&] { add2(A, B, C); });
      EXPECT_EQ(s.queued_calls(), 0u);
    }
    {
      auto m3 = Module::load(s, path);
      auto add3 = m3.function("add_i32");
      DeviceBuffer Wrong(s, DType::i8(), {1024});
      add3(A, Wrong, C);
      expect_error(ErrorKind::BadArgument, "queued call 1 of 1 (add_i32) failed: add_i32: argument 1 (B)",
                   [&] { m3.unload(); });
      EXPECT_EQ(s.queued_calls(), 0u);
    }
    {
      DeviceBuffer Wrong(s, DType::i8(), {1024});
      add(A, Wrong, C);
    }  // its destructor sends the queue; the failure waits
    add(A, B, C);
    std::string msg = expect_error(ErrorKind::BadArgument, "queued call 1 of 1 (add_i32) failed: ", [&] { s.sync(); });
    EXPECT_EQ(contains(msg, "[found when a device buffer was freed] (the 1 call queued since did not run)"), "");
    add(A, B, C);
    C.copy_to_host(out);
    EXPECT_EQ(out[5], 4);
    DeviceBuffer Wrong(s, DType::i8(), {1024});
    add(A, Wrong, C);
    expect_error(ErrorKind::BadArgument, "queued call 1 of 1 (add_i32) failed", [&] { s.close(); });
    EXPECT_FALSE(s.is_open());
    EXPECT_EQ(s.server_pid(), -1);
  }
}

// Failures found in review: a failure kept from a destructor is
// reported even after it closed the session; a batch that times out names its calls; calls
// left queued when a failure closes the session are reported as not run; Module::unload
// reports a kept failure even with nothing queued.
TEST_F(Failure, LazyFailuresThatCloseTheSession) {
  dspc::SessionOptions o;
  o.lazy_calls = true;
  o.deadline = std::chrono::milliseconds(300);
  {
    Session s(o);
    auto m = Module::load(s, module_path(kHex, "v1"));
    auto spin = m.function("spin_forever");
    {
      DeviceBuffer X(s, DType::i32(), {1});
      spin(X);
    }  // the destructor sends the queue: the deadline passes and the session closes
    EXPECT_FALSE(s.is_open());
    std::string msg = expect_error(ErrorKind::Timeout, "sending 1 queued call (spin_forever): the call batch did not finish within 300 ms",
                                   [&] { s.sync(); });
    EXPECT_EQ(contains(msg, "[found when a device buffer was freed]"), "");
    expect_error(ErrorKind::Closed, "sync: the session is closed", [&] { s.sync(); });
    EXPECT_NO_THROW(s.close());
  }
  {
    dspc::SessionOptions slow = o;  // the death, not the deadline, must end the wait, on any load
    slow.deadline = std::chrono::milliseconds(5000);
    Session s(slow);
    auto m = Module::load(s, module_path(kHex, "v1"));
    auto add = m.function("add_i32");
    DeviceBuffer A(s, DType::i32(), {1024}), B(s, DType::i32(), {1024}), C(s, DType::i32(), {1024});
    add(A, B, C);
    kill(s.server_pid(), SIGKILL);
    expect_error(ErrorKind::ServerDied, "the device server died", [&] { DeviceBuffer D(s, DType::u8(), {4}); });
    expect_error(ErrorKind::Closed, "sync: the session is closed (its 1 queued call did not run)", [&] { s.sync(); });
    EXPECT_EQ(s.queued_calls(), 0u);
  }
  {
    // More queued calls than one request slot holds: the batch goes as two requests, and the
    // second times out; the error says how many calls ran before it.
    Session s(o);
    auto m = Module::load(s, module_path(kHex, "v1"));
    auto add = m.function("add_i32");
    DeviceBuffer A(s, DType::i32(), {1024}), X(s, DType::i32(), {1});
    for (int i = 0; i < 200; i++) add(A, A, A);
    m.function("spin_forever")(X);
    std::string msg = expect_error(ErrorKind::Timeout, "sending 201 queued calls (add_i32, add_i32, add_i32, ...): the first ",
                                   [&] { s.sync(); });
    EXPECT_EQ(contains(msg, " ran, then the call batch did not finish within 300 ms"), "");
    EXPECT_EQ(msg.find("the first 0 "), std::string::npos) << msg;
  }
  {
    Session s(o);
    auto m = Module::load(s, module_path(kHex, "v1"));
    auto m2 = Module::load(s, module_path(kHex, "v1"));
    {
      DeviceBuffer X(s, DType::i32(), {1});
      m.function("spin_forever")(X);
    }
    expect_error(ErrorKind::Timeout, "[found when a device buffer was freed]", [&] { m2.unload(); });
  }
}

// A process forked from one with an open session: in the child the session is closed, and
// closing or destroying it there leaves the parent's server alone.
TEST_F(Failure, ForkedChildLeavesItsParentsServerAlone) {
  Session s;
  auto m = Module::load(s, module_path(kHex, "v1"));
  int server = s.server_pid();
  pid_t c = fork();
  ASSERT_GE(c, 0);
  if (c == 0) {
    alarm(10);
    bool closed = !s.is_open() && s.server_pid() == -1;
    try {
      s.close();
    } catch (...) {
      _exit(3);
    }
    _exit(closed ? 0 : 2);
  }
  int st = 0;
  waitpid(c, &st, 0);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "status " << st;
  EXPECT_TRUE(s.is_open());
  EXPECT_EQ(s.server_pid(), server);
  expect_add_i32_works(s, m);
}

// A host that ignores SIGCHLD (its children are reaped by the kernel): a crashed server is
// ServerDied at once, not a Timeout after the deadline, and a normal close is no error.
TEST_F(Failure, ServerDeathIsSeenWhenTheHostIgnoresSigchld) {
  struct sigaction ignore {}, old {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGCHLD, &ignore, &old);
  {
    Session s;
    auto m = Module::load(s, module_path(kHex, "v1"));
    DeviceBuffer X(s, DType::i32(), {1});
    std::string msg = expect_error(ErrorKind::ServerDied, "the device server died during the call",
                                   [&] { m.function("crash_segv")(X); });
    EXPECT_EQ(contains(msg, "its exit status was reaped elsewhere"), "");
    Session t;
    EXPECT_NO_THROW(t.close());
  }
  sigaction(SIGCHLD, &old, nullptr);
}

// The options both targets share are checked alike; the largest arena opens.
TEST_F(Failure, SessionOptionsAreCheckedAlikeOnBothTargets) {
  for (std::string target : {std::string(kHex), std::string("host")}) {
    SCOPED_TRACE(target);
    dspc::SessionOptions o;
    o.target = target;
    dspc::SessionOptions v = o;
    v.vtcm_bytes = ~0ull;  // was "target 'hexagon-v68' is not a Hexagon target" (a page round-up wrapped)
    expect_error(ErrorKind::Usage, "vtcm_bytes must be below 4 GiB", [&] { Session bad(v); });
    for (uint64_t bytes : {uint64_t(0), uint64_t(0xb0000001), ~uint64_t(0)}) {
      dspc::SessionOptions a = o;
      a.arena_bytes = bytes;  // host took all of these
      expect_error(ErrorKind::Usage, "arena_bytes must be between 1 byte and 2.75 GiB", [&] { Session bad(a); });
    }
  }
  dspc::SessionOptions largest;
  largest.arena_bytes = 0xb0000000ull;  // 3 GiB, the old bound, did not map under qemu
  Session s(largest);
  DeviceBuffer big(s, DType::u8(), {int64_t(0xb0000000ull - (64 << 20))});
  EXPECT_TRUE(s.is_open());
  dspc::SessionOptions small;
  small.arena_bytes = 1 << 20;  // less than hexagon-v68's 4 MiB of VTCM
  expect_error(ErrorKind::Usage, "must leave room for the control page, VTCM", [&] { Session bad(small); });
}

// The start-up has its own deadline: a session opens with a request deadline of 0 (the
// start-up once counted against it: under load, opens failed); a server that never starts
// times out after start_deadline, named.
TEST_F(Failure, StartUpHasItsOwnDeadline) {
  dspc::SessionOptions o;
  o.deadline = std::chrono::milliseconds(0);
  Session s(o);
  EXPECT_TRUE(s.is_open());
  s.set_deadline(std::chrono::milliseconds(300));
  auto m = Module::load(s, module_path(kHex, "v1"));
  DeviceBuffer X(s, DType::i32(), {1});
  expect_error(ErrorKind::Timeout, "the call did not finish within 300 ms", [&] { m.function("spin_forever")(X); });
  expect_closed(s);

  std::string dir = testing::TempDir(), fifo = dir + "/dspc-never-ready.fifo", qemu = dir + "/dspc-never-ready-qemu";
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  {
    std::ofstream script(qemu);
    script << "#!/bin/sh\nread x < " << fifo << "\n";  // blocks: nobody opens the FIFO for writing
  }
  ASSERT_EQ(chmod(qemu.c_str(), 0700), 0);
  dspc::SessionOptions slow;
  slow.qemu = qemu;
  slow.start_deadline = std::chrono::milliseconds(500);
  auto t0 = Clock::now();
  expect_error(ErrorKind::Timeout, "the device server did not start within 500 ms (SessionOptions::start_deadline)",
               [&] { Session never(slow); });
  EXPECT_GE(seconds_since(t0), 0.45);
  std::remove(fifo.c_str());
  std::remove(qemu.c_str());
  dspc::SessionOptions negative;
  negative.start_deadline = std::chrono::milliseconds(-1);
  expect_error(ErrorKind::Usage, "a session's start_deadline cannot be negative", [&] { Session bad(negative); });
}

// A buffer larger than the whole session is refused with the option that sizes it and the size
// it would take, on both targets.
TEST_F(Failure, BufferLargerThanTheSessionNamesTheOption) {
  for (std::string target : {std::string(kHex), std::string("host")}) {
    SCOPED_TRACE(target);
    dspc::SessionOptions o;
    o.target = target;
    o.arena_bytes = 64 << 20;
    o.vtcm_bytes = 128 << 10;
    Session s(o);
    std::string msg = expect_error(ErrorKind::NoMemory, "device memory allocation of 1073741824 bytes failed",
                                   [&] { DeviceBuffer b(s, DType::u8(), {1 << 30}); });
    EXPECT_EQ(contains(msg, "bytes (SessionOptions::arena_bytes = 67108864"), "");
    uint64_t overhead = target == "host" ? 0 : (64 << 10) + (128 << 10);
    EXPECT_EQ(contains(msg, "1073741824 bytes need arena_bytes of at least " + std::to_string((1ull << 30) + overhead)),
              "");
    msg = expect_error(ErrorKind::NoMemory, "do not fit even the largest arena (2.75 GiB)",
                       [&] { DeviceBuffer b(s, DType::u8(), {int64_t(3) << 30}); });
    msg = expect_error(ErrorKind::NoMemory, "this session's VTCM holds 131072 bytes (SessionOptions::vtcm_bytes)",
                       [&] { DeviceBuffer b(s, DType::u8(), {1 << 20}, dspc::Memory::VTCM); });
    // A buffer that fits an empty session but not what is left: the device's message alone.
    DeviceBuffer most(s, DType::u8(), {40 << 20});
    msg = expect_error(ErrorKind::NoMemory, "device memory allocation of 31457280 bytes failed",
                       [&] { DeviceBuffer b(s, DType::u8(), {30 << 20}); });
    EXPECT_EQ(msg.find("SessionOptions"), std::string::npos) << msg;
    DeviceBuffer fits(s, DType::u8(), {16 << 20});
  }
}

// After a failed allocation or load, last_error() says why on both targets, and a module given
// as bytes is not named by the in-process loader's /proc/self/fd path.
TEST_F(Failure, LastErrorAfterFailedAllocationsAndLoads) {
  for (std::string target : {std::string(kHex), std::string("host")}) {
    SCOPED_TRACE(target);
    dspc::SessionOptions o;
    o.target = target;
    o.arena_bytes = 64 << 20;
    Session s(o);
    expect_error(ErrorKind::NoMemory, "device memory allocation of 1073741824 bytes failed",
                 [&] { DeviceBuffer b(s, DType::u8(), {1 << 30}); });
    EXPECT_EQ(contains(s.last_error(), "device memory allocation of 1073741824 bytes failed"), "");
    std::string msg = expect_error(ErrorKind::LoadFailed, "loading a module: ",
                                   [&] { Module::load_bytes(s, std::vector<uint8_t>(64, 'x')); });
    EXPECT_EQ(msg.find("/proc/self/fd"), std::string::npos) << msg;
    EXPECT_NE(s.last_error(), "");
    EXPECT_EQ(s.last_error().find("device memory allocation"), std::string::npos) << s.last_error();
  }
}

// The server replies to a shutdown and exits at once; a host that sees the exit before it
// re-reads the reply word has its reply all the same (CI: under the sanitizers
// this was "the device server died during the shutdown (exit status 0)").
TEST_F(Failure, ShutdownWhoseExitIsSeenBeforeItsReply) {
  dspc::SessionOptions o;
  o.spin = std::chrono::microseconds(0);  // the host polls the server at once, and
  o.server_spin = 0;                      // the server sleeps, so its reply comes later
  for (int i = 0; i < 3; i++) {
    Session s(o);
    int pid = s.server_pid();
    slow_waitpid = true;
    try {
      s.close();
    } catch (const dspc::Error& e) {
      ADD_FAILURE() << e.what();
    }
    slow_waitpid = false;
    EXPECT_FALSE(s.is_open());
    EXPECT_NE(kill(pid, 0), 0) << "the server " << pid << " still runs";
  }
}

// A process that forks while another of its threads is starting a server: the child opens
// sessions of its own. (The lock that serializes start-ups is held at the fork by the other
// thread, which the child does not have; the child must not wait on it.) slow_fork holds the
// keeper thread's fork, lock held, until this thread has forked.
TEST_F(Failure, ForkWhileAnotherThreadOpensASession) {
  for (int i = 0; i < 3; i++) {
    fork_tester = pid_t(syscall(SYS_gettid));
    keeper_forking = false;
    slow_fork = true;
    std::thread opener([] { Session s; });
    for (int t = 0; t < 100000 && !keeper_forking; t++) std::this_thread::sleep_for(std::chrono::microseconds(100));
    if (!keeper_forking) {  // the keeper never forked: let it go, and fail
      slow_fork = false;
      opener.join();
      FAIL() << "the session's start-up did not fork within 10 s";
    }
    pid_t c = fork();
    ASSERT_GE(c, 0);
    if (c == 0) {
      slow_fork = false;  // this process's own keeper forks at once
      alarm(10);          // a child that deadlocks dies of SIGALRM
      try {
        Session s;
        s.close();
      } catch (...) {
        _exit(2);
      }
      _exit(0);
    }
    slow_fork = false;
    opener.join();
    int st = 0;
    waitpid(c, &st, 0);
    EXPECT_FALSE(WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) << "the child could not open a session";
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "status " << st;
  }
}

// A host process killed with SIGKILL leaves no device server behind: the server gets SIGKILL
// when the process's keeper thread ends (before: it lived on, reparented).
TEST_F(Failure, ServerDiesWithTheHostProcess) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // a host process that opens a session, reports its server, and waits
    close(fds[0]);
    Session s;
    int pid = s.server_pid();
    if (write(fds[1], &pid, sizeof pid) != sizeof pid) _exit(1);
    for (;;) pause();
  }
  close(fds[1]);
  int server = -1;
  ASSERT_EQ(read(fds[0], &server, sizeof server), ssize_t(sizeof server));
  close(fds[0]);
  ASSERT_GT(server, 0);
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  // Gone, or a zombie waiting for whoever adopted it to reap it: not running either way.
  auto running = [&] {
    std::ifstream stat("/proc/" + std::to_string(server) + "/stat");
    std::string pid, comm, state;
    if (!(stat >> pid >> comm >> state)) return false;
    return state != "Z" && state != "X";
  };
  for (int i = 0; i < 500 && running(); i++) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(running()) << "the server " << server << " outlived its host process";
  if (running()) kill(server, SIGKILL);
}

// A truncated host module: dlopen would map its segments past the end of the file and the
// first touch would be a SIGBUS; the loader refuses it first.
TEST(HostFailure, TruncatedModuleFailsToLoadInProcess) {
  dspc::SessionOptions o;
  o.target = "host";
  Session s(o);
  std::vector<uint8_t> good = read_bytes(module_path("host", "v1"));
  std::vector<uint8_t> half(good.begin(), good.begin() + good.size() / 2);
  std::string path = testing::TempDir() + "/dspc-truncated-host-module.so";
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(half.data()), std::streamsize(half.size()));
  }
  expect_error(ErrorKind::LoadFailed, "bad ELF: segment outside the file", [&] { Module::load(s, path); });
  expect_error(ErrorKind::LoadFailed, "bad ELF: segment outside the file", [&] { Module::load_bytes(s, half); });
  std::remove(path.c_str());
  auto m = Module::load_bytes(s, good);
  m.function("empty")();
}

}  // namespace
