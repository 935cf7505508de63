// `dspc run --session`: the function runs through the host runtime instead of a linked runner.
//   1. open a dspc::Session (qemu-hexagon + the device server, or in-process for "host"), with
//      --timeout as the per-request deadline and --sim-vtcm-capacity as the session's VTCM;
//   2. load the module and allocate one DeviceBuffer per parameter, with the dtype and shape the
//      module's own table declares (the checked entry compares them);
//   3. copy the inputs in, call the checked entry, copy the outputs out, close the session.
// Every dspc::Error (a crash, a timeout, a refused argument) comes back as text for the driver's
// "dspc: error:" line.
#include <dspc/host.h>

#include "driver/DriverSession.h"

namespace dspc {

bool run_in_session(const SessionRun& run, std::vector<std::vector<uint8_t>>& outputs, std::string& error) {
  try {
    SessionOptions options;
    options.target = run.target;
    options.deadline = std::chrono::milliseconds(int64_t(run.timeout_seconds) * 1000);
    if (!run.qemu.empty()) options.qemu = run.qemu;
    if (run.vtcm_capacity == 0) {
      error = "--session needs a --sim-vtcm-capacity above 0";
      return false;
    }
    if (run.vtcm_capacity > 0) options.vtcm_bytes = uint64_t(run.vtcm_capacity);
    // The arena holds every tensor (each rounded up to the guest's 64 KiB pages) besides VTCM.
    uint64_t need = 0;
    for (const auto& in : run.inputs) need += (in.size() + 0xffff) & ~uint64_t(0xffff);
    need *= 2;  // the outputs are not known yet; they rarely outweigh the inputs twice over
    if (need + (64ull << 20) > options.arena_bytes) options.arena_bytes = need + (64ull << 20);

    Session session(options);
    Module module = Module::load(session, run.module_path);
    Function f = module.function(run.func);

    std::vector<DeviceBuffer> buffers;
    buffers.reserve(f.params().size());
    size_t in = 0;
    for (const Param& p : f.params()) {
      buffers.emplace_back(session, p.dtype, p.shape);
      if (p.is_output) continue;
      if (in >= run.inputs.size())
        throw Error(ErrorKind::Usage, run.func + ": the module has more inputs than the program");
      buffers.back().copy_from_host(run.inputs[in].data(), run.inputs[in].size());
      ++in;
    }
    std::vector<const DeviceBuffer*> args;
    for (const auto& b : buffers) args.push_back(&b);
    f.call(args);

    outputs.clear();
    for (size_t i = 0; i < buffers.size(); ++i) {
      if (!f.params()[i].is_output) continue;
      std::vector<uint8_t> bytes(buffers[i].nbytes());
      buffers[i].copy_to_host(bytes.data(), bytes.size());
      outputs.push_back(std::move(bytes));
    }
    buffers.clear();
    module.unload();
    session.close();
    return true;
  } catch (const Error& e) {
    error = e.what();
    if (e.kind() == ErrorKind::Timeout) error += " (--timeout=" + std::to_string(run.timeout_seconds) + ")";
    return false;
  }
}

}  // namespace dspc
