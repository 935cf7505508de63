// `dspc run` through dspc::Session (DriverSession.h):
//   1. open the device session (qemu-hexagon + the device server, or in-process for "host")
//      with --timeout as the per-request deadline, --start-timeout as the start-up's,
//      --sim-vtcm-capacity as its VTCM and an arena that holds every tensor; and an in-process
//      host session for the caller's side (inputs, results, @host calls);
//   2. load the modules, allocate each tensor where its steps need it, look the functions up;
//   3. per inference: copy the inputs in, run the steps, copying a tensor across only when the
//      other side reads it, copy the results out;
//   4. free, unload and close.
// Every dspc::Error (a crash, a timeout, a refused argument) comes back as text for the driver's
// "dspc: error:" line.
#include <dspc/host.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <optional>

#include "driver/DriverSession.h"

namespace dspc {

uint64_t guest_pages(uint64_t bytes) { return (bytes + 0xffff) & ~uint64_t(0xffff); }

uint64_t session_arena_bytes(const std::vector<uint64_t>& tensor_bytes) {
  uint64_t need = 64ull << 20;
  for (uint64_t b : tensor_bytes) need += guest_pages(b);
  return need;
}

namespace {

// A session's error as dspc run reports it: a timeout names the option that set its deadline.
// The start-up has its own (SessionOptions::start_deadline, from --start-timeout), which its
// message names: a timeout before the sessions are open names --start-timeout, never --timeout.
std::string session_error(const Error& e, bool opened, const GraphRun& run) {
  std::string text = e.what();
  if (e.kind() == ErrorKind::Timeout)
    text += opened ? " (--timeout=" + std::to_string(run.timeout_seconds) + ")"
                   : " (--start-timeout=" + std::to_string(run.start_timeout_seconds) + ")";
  return text;
}

// Where a tensor lives: a buffer in the device session and/or in the host one (in-process, so
// its handle is its address), and which of the two holds its current value.
struct TensorHome {
  std::unique_ptr<DeviceBuffer> device, host;
  bool device_valid = false, host_valid = false;
};

void* host_address(const DeviceBuffer& b) { return reinterpret_cast<void*>(static_cast<uintptr_t>(b.device_handle())); }

class GraphSessionRunner {
 public:
  GraphSessionRunner(const GraphRun& run, GraphRunStats& stats) : run_(run), stats_(stats) {}

  // Steps 1 and 2. False with `error` for options no session can serve.
  bool open(std::string& error) {
    std::vector<uint64_t> sizes;
    for (const auto& t : run_.tensors) sizes.push_back(t.nbytes);
    SessionOptions options;
    options.deadline = std::chrono::milliseconds(int64_t(run_.timeout_seconds) * 1000);
    options.start_deadline = std::chrono::milliseconds(int64_t(run_.start_timeout_seconds) * 1000);
    options.arena_bytes = std::max(options.arena_bytes, session_arena_bytes(sizes));
    SessionOptions host_options = options;
    host_options.target = "host";
    host_.emplace(host_options);
    if (!run_.host_module.empty()) host_module_.emplace(Module::load(*host_, run_.host_module));
    bool any_device = false;
    for (const GraphRunStep& s : run_.steps) any_device |= s.device;
    if (any_device) {
      options.target = run_.target;
      if (!run_.qemu.empty()) options.qemu = run_.qemu;
      if (run_.vtcm_capacity == 0) return error = run_.what + " needs a --sim-vtcm-capacity above 0", false;
      if (run_.vtcm_capacity > 0) options.vtcm_bytes = uint64_t(run_.vtcm_capacity);
      options.lazy_calls = run_.lazy_calls;
      device_.emplace(options);
    }
    opened_ = true;
    if (device_) device_module_.emplace(Module::load(*device_, run_.device_module));
    allocate();
    stats_.setup_round_trips = round_trips();
    return true;
  }

  // Whether the sessions have started (their start-up is over).
  bool opened() const { return opened_; }

  // Step 3, `run.iterations` times.
  void infer() {
    auto t0 = std::chrono::steady_clock::now();
    uint64_t before = round_trips();
    for (int it = 0; it < run_.iterations; ++it) {
      stats_.crossings = stats_.crossing_bytes = stats_.device_calls = stats_.host_calls = 0;
      for (auto& h : homes_) h.device_valid = h.host_valid = false;
      for (size_t k = 0; k < run_.inputs.size(); ++k) {
        TensorHome& h = homes_[size_t(run_.inputs[k])];
        if (!run_.input_bytes[k].empty())  // a tensor without elements: no bytes, maybe no pointer
          std::memcpy(host_address(*h.host), run_.input_bytes[k].data(), run_.input_bytes[k].size());
        h.host_valid = true;
      }
      for (size_t s = 0; s < run_.steps.size(); ++s) run_step(s);
      for (int t : run_.outputs) bring(t, false);
      if (device_) device_->sync();  // nothing is left queued (with lazy calls, a call nobody reads)
      if (run_.on_inference) run_.on_inference(it + 1, run_.iterations);
    }
    stats_.inference_round_trips = round_trips() - before;
    stats_.inference_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }

  // The results' bytes, then step 4.
  void close(std::vector<std::vector<uint8_t>>& outputs) {
    outputs.clear();
    for (int t : run_.outputs) {
      const uint8_t* p = static_cast<const uint8_t*>(host_address(*homes_[size_t(t)].host));
      outputs.emplace_back(p, p + run_.tensors[size_t(t)].nbytes);
    }
    uint64_t end = round_trips();
    homes_.clear();
    functions_.clear();
    if (device_module_) device_module_->unload();
    if (host_module_) host_module_->unload();
    if (device_) device_->close();
    host_->close();
    stats_.teardown_round_trips = round_trips() - end;
  }

 private:
  uint64_t round_trips() const { return device_ ? device_->round_trips() : 0; }

  // Buffers: on the device for the tensors a device step touches, on the host for those a host
  // step touches and for the inputs and results (the caller's side); then the functions.
  void allocate() {
    homes_.resize(run_.tensors.size());
    functions_.resize(run_.steps.size());
    for (size_t s = 0; s < run_.steps.size(); ++s) {
      const GraphRunStep& step = run_.steps[s];
      for (const GraphRunCall& c : step.calls) {
        for (int t : c.args) make(t, step.device);
        functions_[s].push_back(step.device ? device_module_->function(c.func) : host_module_->function(c.func));
      }
    }
    for (int t : run_.inputs) make(t, false);
    for (int t : run_.outputs) make(t, false);
  }

  void make(int t, bool on_device) {
    TensorHome& h = homes_[size_t(t)];
    std::unique_ptr<DeviceBuffer>& slot = on_device ? h.device : h.host;
    if (slot) return;
    const GraphRunTensor& gt = run_.tensors[size_t(t)];
    slot = std::make_unique<DeviceBuffer>(on_device ? *device_ : *host_, DType{gt.type_code, gt.bits}, gt.shape);
  }

  // Brings tensor t's value to one side.
  void bring(int t, bool to_device) {
    TensorHome& h = homes_[size_t(t)];
    if (to_device ? h.device_valid : h.host_valid) return;
    uint64_t n = run_.tensors[size_t(t)].nbytes;
    if (to_device) h.device->copy_from_host(host_address(*h.host), n);
    else h.device->copy_to_host(host_address(*h.host), n);
    (to_device ? h.device_valid : h.host_valid) = true;
    ++stats_.crossings;
    stats_.crossing_bytes += n;
  }

  void run_step(size_t s) {
    const GraphRunStep& step = run_.steps[s];
    for (size_t k = 0; k < step.calls.size(); ++k) {
      const GraphRunCall& c = step.calls[k];
      std::vector<const DeviceBuffer*> args;
      for (size_t a = 0; a < c.args.size(); ++a) {
        int t = c.args[a];
        if (a < c.num_inputs) bring(t, step.device);
        TensorHome& h = homes_[size_t(t)];
        args.push_back(step.device ? h.device.get() : h.host.get());
      }
      functions_[s][k].call(args);
      for (size_t a = c.num_inputs; a < c.args.size(); ++a) {
        TensorHome& h = homes_[size_t(c.args[a])];
        h.device_valid = step.device;
        h.host_valid = !step.device;
      }
      ++(step.device ? stats_.device_calls : stats_.host_calls);
    }
  }

  const GraphRun& run_;
  GraphRunStats& stats_;
  std::optional<Session> device_, host_;  // destroyed after the modules and buffers below
  std::optional<Module> device_module_, host_module_;
  std::vector<TensorHome> homes_;
  std::vector<std::vector<Function>> functions_;
  bool opened_ = false;
};

}  // namespace

bool run_graph_in_session(const GraphRun& run, std::vector<std::vector<uint8_t>>& outputs, GraphRunStats& stats,
                          std::string& error) {
  GraphSessionRunner runner(run, stats);
  try {
    if (!runner.open(error)) return false;
    runner.infer();
    runner.close(outputs);
    return true;
  } catch (const Error& e) {
    error = session_error(e, runner.opened(), run);
    return false;
  }
}

}  // namespace dspc
