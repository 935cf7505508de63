// A host program that runs the example alloc_vtcm (examples/alloc_vtcm.dsp)
// through dspc's host runtime, as an application would: open a session with the DSP, allocate
// device memory, copy A and B in, load the module `dspc --emit=so` made, call alloc_vtcm, copy C
// out, and check C against a reference computed here on the host.
//
//   session_demo [hexagon-v68|host] [MODULE.so]
//
// The target defaults to hexagon-v68 (qemu-hexagon running dspc's device server); "host" runs the
// host build of the module in-process. MODULE.so defaults to the one the build compiled for the
// target.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <dspc/host.h>

int main(int argc, char** argv) {
  std::string target = argc > 1 ? argv[1] : "hexagon-v68";
  std::string module_path = argc > 2 ? argv[2] : std::string(DSPC_DEMO_MODULE_DIR) + "/alloc_vtcm-" + target + ".so";
  const int64_t n = 2048;

  // Inputs that exercise wrap-around: i8 addition overflows for about half of these pairs.
  std::vector<int8_t> a(n), b(n), c(n, 0), want(n);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = static_cast<int8_t>(i * 7 + 3);
    b[i] = static_cast<int8_t>(i * 13 - 100);
    want[i] = static_cast<int8_t>(static_cast<uint8_t>(a[i]) + static_cast<uint8_t>(b[i]));
  }

  try {
    dspc::SessionOptions options;
    options.target = target;
    dspc::Session session(options);
    std::printf("session open on %s%s\n", target.c_str(),
                session.server_pid() > 0 ? " (qemu-hexagon running the device server)" : " (in-process)");

    dspc::DeviceBuffer A(session, dspc::DType::i8(), {n});
    dspc::DeviceBuffer B(session, dspc::DType::i8(), {n});
    dspc::DeviceBuffer C(session, dspc::DType::i8(), {n});
    A.copy_from_host(a);
    B.copy_from_host(b);

    dspc::Module module = dspc::Module::load(session, module_path);
    dspc::Function alloc_vtcm = module.function("alloc_vtcm");
    alloc_vtcm(A, B, C);  // A_buf and B_buf are staged in VTCM by the kernel itself
    C.copy_to_host(c);

    int64_t same = 0;
    for (int64_t i = 0; i < n; ++i) same += c[i] == want[i];
    std::printf("C[0..3] = %d %d %d %d\n", c[0], c[1], c[2], c[3]);
    std::printf("C matches the reference: %lld/%lld\n", static_cast<long long>(same), static_cast<long long>(n));
    session.close();
    return same == n ? 0 : 1;
  } catch (const dspc::Error& e) {
    std::fprintf(stderr, "session_demo: error: %s\n", e.what());
    return 1;
  }
}
