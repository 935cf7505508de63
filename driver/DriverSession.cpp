// `dspc run --session`: the function runs through the host runtime instead of a linked runner.
//   1. open a dspc::Session (qemu-hexagon + the device server, or in-process for "host"), with
//      --timeout as the per-request deadline and --sim-vtcm-capacity as the session's VTCM;
//   2. load the module and allocate one DeviceBuffer per parameter, with the dtype and shape the
//      module's own table declares (the checked entry compares them);
//   3. copy the inputs in, call the checked entry, copy the outputs out, close the session.
// Every dspc::Error (a crash, a timeout, a refused argument) comes back as text for the driver's
// "dspc: error:" line.
#include <dspc/host.h>

#include <cstring>
#include <memory>
#include <optional>

#include "driver/DriverSession.h"

namespace dspc {

namespace {

// A session's options from dspc run's: target, per-request deadline, simulator, VTCM pool, and
// a shared-memory arena that holds `tensor_bytes` (each tensor rounded up to the guest's 64 KiB
// pages) besides 64 MiB for VTCM and the rest. False, with `error`, for a VTCM capacity of 0,
// which no session can serve.
bool session_options(const std::string& target, int timeout_seconds, const std::string& qemu, int64_t vtcm_capacity,
                     uint64_t tensor_bytes, const char* what, SessionOptions& options, std::string& error) {
  options.target = target;
  options.deadline = std::chrono::milliseconds(int64_t(timeout_seconds) * 1000);
  if (!qemu.empty()) options.qemu = qemu;
  if (vtcm_capacity == 0) {
    error = std::string(what) + " needs a --sim-vtcm-capacity above 0";
    return false;
  }
  if (vtcm_capacity > 0) options.vtcm_bytes = uint64_t(vtcm_capacity);
  if (tensor_bytes + (64ull << 20) > options.arena_bytes) options.arena_bytes = tensor_bytes + (64ull << 20);
  return true;
}

uint64_t pages(uint64_t bytes) { return (bytes + 0xffff) & ~uint64_t(0xffff); }

// A session's error as dspc run reports it: a timeout names the --timeout that set it.
std::string session_error(const Error& e, int timeout_seconds) {
  std::string text = e.what();
  if (e.kind() == ErrorKind::Timeout) text += " (--timeout=" + std::to_string(timeout_seconds) + ")";
  return text;
}

}  // namespace

bool run_in_session(const SessionRun& run, std::vector<std::vector<uint8_t>>& outputs, std::string& error) {
  try {
    uint64_t need = 0;
    for (const auto& in : run.inputs) need += pages(in.size());
    need *= 2;  // the outputs are not known yet; they rarely outweigh the inputs twice over
    SessionOptions options;
    if (!session_options(run.target, run.timeout_seconds, run.qemu, run.vtcm_capacity, need, "--session", options,
                         error))
      return false;

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
    error = session_error(e, run.timeout_seconds);
    return false;
  }
}

}  // namespace dspc

namespace dspc {

namespace {

// Where a tensor lives: a buffer in the device session and/or in the host one (in-process, so
// its handle is its address), and which of the two holds its current value.
struct TensorHome {
  std::unique_ptr<DeviceBuffer> device, host;
  bool device_valid = false, host_valid = false;
};

void* host_address(const DeviceBuffer& b) { return reinterpret_cast<void*>(static_cast<uintptr_t>(b.device_handle())); }

}  // namespace

bool run_graph_in_session(const GraphRun& run, std::vector<std::vector<uint8_t>>& outputs, GraphRunStats& stats,
                          std::string& error) {
  try {
    uint64_t need = 0;
    for (const auto& t : run.tensors) need += pages(t.nbytes);
    SessionOptions options;
    if (!session_options(run.target, run.timeout_seconds, run.qemu, run.vtcm_capacity, need, "running a graph",
                         options, error))
      return false;
    options.lazy_calls = run.lazy_calls;

    Session device(options);
    std::optional<Session> host_session;
    if (!run.host_module.empty()) {
      SessionOptions h;
      h.target = "host";
      host_session.emplace(h);
    }
    Module device_module = Module::load(device, run.device_module);
    std::optional<Module> host_module;
    if (host_session) host_module.emplace(Module::load(*host_session, run.host_module));

    // Buffers: on the device for the tensors a device step touches, on the host for those a
    // host step touches and for the graph's inputs and results (the caller's side).
    std::vector<TensorHome> homes(run.tensors.size());
    auto make = [&](int t, bool on_device) {
      TensorHome& h = homes[size_t(t)];
      std::unique_ptr<DeviceBuffer>& slot = on_device ? h.device : h.host;
      if (slot) return;
      const GraphRunTensor& gt = run.tensors[size_t(t)];
      if (!on_device && !host_session) {
        SessionOptions ho;
        ho.target = "host";
        host_session.emplace(ho);
      }
      slot = std::make_unique<DeviceBuffer>(on_device ? device : *host_session, DType{gt.type_code, gt.bits}, gt.shape);
    };
    std::vector<std::vector<Function>> functions(run.steps.size());
    for (size_t s = 0; s < run.steps.size(); ++s) {
      for (const GraphRunCall& c : run.steps[s].calls) {
        for (int t : c.args) make(t, run.steps[s].device);
        functions[s].push_back(run.steps[s].device ? device_module.function(c.func) : host_module->function(c.func));
      }
    }
    for (int t : run.inputs) make(t, false);
    for (int t : run.outputs) make(t, false);
    stats.setup_round_trips = device.round_trips();

    // Brings tensor t's value to one side.
    auto bring = [&](int t, bool to_device) {
      TensorHome& h = homes[size_t(t)];
      if (to_device ? h.device_valid : h.host_valid) return;
      uint64_t n = run.tensors[size_t(t)].nbytes;
      if (to_device) h.device->copy_from_host(host_address(*h.host), n);
      else h.device->copy_to_host(host_address(*h.host), n);
      (to_device ? h.device_valid : h.host_valid) = true;
      ++stats.crossings;
      stats.crossing_bytes += n;
    };
    auto t0 = std::chrono::steady_clock::now();
    uint64_t before = device.round_trips();
    for (int it = 0; it < run.iterations; ++it) {
      stats.crossings = stats.crossing_bytes = stats.device_calls = stats.host_calls = 0;
      for (auto& h : homes) h.device_valid = h.host_valid = false;
      for (size_t k = 0; k < run.inputs.size(); ++k) {
        TensorHome& h = homes[size_t(run.inputs[k])];
        std::memcpy(host_address(*h.host), run.input_bytes[k].data(), run.input_bytes[k].size());
        h.host_valid = true;
      }
      for (size_t s = 0; s < run.steps.size(); ++s) {
        const GraphRunStep& step = run.steps[s];
        for (size_t k = 0; k < step.calls.size(); ++k) {
          const GraphRunCall& c = step.calls[k];
          std::vector<const DeviceBuffer*> args;
          for (size_t a = 0; a < c.args.size(); ++a) {
            int t = c.args[a];
            if (a < c.num_inputs) bring(t, step.device);
            TensorHome& h = homes[size_t(t)];
            args.push_back(step.device ? h.device.get() : h.host.get());
          }
          functions[s][k].call(args);
          for (size_t a = c.num_inputs; a < c.args.size(); ++a) {
            TensorHome& h = homes[size_t(c.args[a])];
            h.device_valid = step.device;
            h.host_valid = !step.device;
          }
          ++(step.device ? stats.device_calls : stats.host_calls);
        }
      }
      for (int t : run.outputs) bring(t, false);
      device.sync();  // nothing is left queued (with lazy calls, a call nobody reads)
    }
    stats.inference_round_trips = device.round_trips() - before;
    stats.inference_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

    outputs.clear();
    for (int t : run.outputs) {
      const TensorHome& h = homes[size_t(t)];
      const uint8_t* p = static_cast<const uint8_t*>(host_address(*h.host));
      outputs.emplace_back(p, p + run.tensors[size_t(t)].nbytes);
    }
    uint64_t end = device.round_trips();
    homes.clear();
    functions.clear();
    device_module.unload();
    if (host_module) host_module->unload();
    device.close();
    if (host_session) host_session->close();
    stats.teardown_round_trips = device.round_trips() - end;
    return true;
  } catch (const Error& e) {
    error = session_error(e, run.timeout_seconds);
    return false;
  }
}

}  // namespace dspc
