#include "driver/RunSteps.h"

#include <sys/statvfs.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>

#include "compiler/interp/Npy.h"
#include "compiler/ir/Printer.h"
#include "driver/DriverSession.h"
#include "driver/Process.h"
#include "driver/Progress.h"

namespace dspc {

namespace {

using Json = nlohmann::ordered_json;

// One element as text, for mismatch reports.
std::string element_str(const Tensor& t, int64_t i) {
  const uint8_t* p = t.data.data() + i * t.dtype.bytes();
  auto load = [&](auto v) {
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  DataType d = t.dtype;
  if (d.is_bool()) return p[0] ? "true" : "false";
  if (d.is_float()) return std::to_string(d.bits == 32 ? static_cast<double>(load(float{})) : load(double{}));
  switch (d.bits) {
    case 8: return d.is_int() ? std::to_string(load(int8_t{})) : std::to_string(load(uint8_t{}));
    case 16: return d.is_int() ? std::to_string(load(int16_t{})) : std::to_string(load(uint16_t{}));
    case 32: return d.is_int() ? std::to_string(load(int32_t{})) : std::to_string(load(uint32_t{}));
    default: return d.is_int() ? std::to_string(load(int64_t{})) : std::to_string(load(uint64_t{}));
  }
}

std::string index_str(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return shape_str(idx);
}

bool is_nan_at(const Tensor& t, int64_t i) {
  const uint8_t* p = t.data.data() + i * t.dtype.bytes();
  if (t.dtype.bits == 32) {
    float f;
    std::memcpy(&f, p, 4);
    return f != f;
  }
  if (t.dtype.bits == 64) {
    double d;
    std::memcpy(&d, p, 8);
    return d != d;
  }
  uint16_t h;  // f16: exponent all ones, mantissa non-zero
  std::memcpy(&h, p, 2);
  return (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0;
}

// Compares bit for bit, except that any NaN equals any NaN: IEEE 754 leaves the sign and
// payload of a NaN result unspecified (Hexagon's conversions give the all-ones NaN, x86's keep
// the operand's). Returns the number of differences; the first five go to `out`.
int64_t compare(const std::string& name, const Tensor& got, const Tensor& want, std::ostream& out) {
  int64_t n = want.num_elements(), bytes = want.dtype.bytes(), bad = 0;
  bool is_float = want.dtype.is_float();
  for (int64_t i = 0; i < n; ++i) {
    if (std::memcmp(got.data.data() + i * bytes, want.data.data() + i * bytes, bytes) == 0) continue;
    if (is_float && is_nan_at(got, i) && is_nan_at(want, i)) continue;
    if (++bad <= 5)
      out << "check: " << name << index_str(i, want.shape) << " is " << element_str(got, i) << ", the reference says "
          << element_str(want, i) << "\n";
  }
  return bad;
}

// One element as a JSON value: integers exactly, finite floats as numbers, NaN and infinities
// as the strings "nan", "inf" and "-inf" (JSON has no such numbers).
Json element_json(const Tensor& t, int64_t i) {
  const uint8_t* p = t.data.data() + i * t.dtype.bytes();
  auto load = [&](auto v) {
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  DataType d = t.dtype;
  if (d.is_bool()) return p[0] != 0;
  if (d.is_float()) {
    if (d.bits != 32 && d.bits != 64) return element_str(t, i);
    double v = d.bits == 32 ? static_cast<double>(load(float{})) : load(double{});
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return v;
  }
  switch (d.bits) {
    case 8: return d.is_int() ? Json(load(int8_t{})) : Json(load(uint8_t{}));
    case 16: return d.is_int() ? Json(load(int16_t{})) : Json(load(uint16_t{}));
    case 32: return d.is_int() ? Json(load(int32_t{})) : Json(load(uint32_t{}));
    default: return d.is_int() ? Json(load(int64_t{})) : Json(load(uint64_t{}));
  }
}

// The runner maps every parameter with mmap in qemu-hexagon's 32-bit guest address space, next
// to the program, its stack and qemu's own mappings. Measured with qemu 7.2: two mappings of
// 2^31 - 1 and 1.0e9 bytes fit, 2^31 - 1 and 1.1e9 do not, 1.6e9 twice fits and 1.7e9 twice
// does not; 3 GiB together is the bound below which they always did.
constexpr uint64_t kMaxRunnerBytes = 3ull << 30;

const std::string* bound_file(const std::vector<std::pair<std::string, std::string>>& bindings,
                              const std::string& name) {
  for (const auto& b : bindings)
    if (b.first == name) return &b.second;
  return nullptr;
}

// --input names an input, --output a result, each at most once. "" or the error.
std::string check_bindings(const DriverOptions& o, const RunSignature& sig) {
  std::set<std::string> ins, outs;
  for (const RunTensor& t : sig.inputs) ins.insert(t.name);
  for (const RunTensor& t : sig.outputs) outs.insert(t.name);
  for (bool in : {true, false}) {
    const std::string opt = in ? "--input" : "--output";
    std::set<std::string> seen;
    for (const auto& b : in ? o.inputs : o.outputs) {
      std::string given = opt + " " + b.first + "=" + b.second + ": ";
      if ((in ? outs : ins).count(b.first))
        return given + b.first + " is " + (in ? "a result" : "an input") + " of " + sig.name + ", not " +
               (in ? "an input" : "a result");
      if (!(in ? ins : outs).count(b.first))
        return given + sig.kind + " " + sig.name + " has no " + (in ? "input" : "result") + " '" + b.first + "'";
      if (!seen.insert(b.first).second) return opt + " " + b.first + " is given more than once";
    }
  }
  return "";
}

std::string bytes_text(uint64_t n) {
  const char* unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double v = double(n);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char buf[64];
  if (u == 0) std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(n));
  else std::snprintf(buf, sizeof buf, "%llu bytes (%.2f %s)", static_cast<unsigned long long>(n), v, unit[u]);
  return buf;
}

// MemAvailable of /proc/meminfo, in bytes; 0 when unknown.
uint64_t host_memory_available() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (f >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

// The room the temporary folder's file system has left, in bytes; 0 when unknown.
uint64_t temp_space_available() {
  struct statvfs st;
  if (statvfs(temp_root().c_str(), &st) != 0) return 0;
  return uint64_t(st.f_bavail) * st.f_frsize;
}

// Reads or generates each input.
bool make_inputs(const DriverOptions& o, const RunSignature& sig, std::vector<Tensor>& inputs, std::string& error) {
  uint64_t index = 0;
  for (const RunTensor& p : sig.inputs) {
    Tensor t;
    if (const std::string* given = bound_file(o.inputs, p.name)) {
      if (!read_npy(*given, t, error)) return error = *given + ": " + error, false;
      if (t.dtype != p.dtype || t.shape != p.shape) {
        error = *given + " holds " + t.dtype.str() + shape_str(t.shape) + " but " + p.name + " is " + p.dtype.str() +
                shape_str(p.shape);
        return false;
      }
    } else if (o.random_inputs) {
      t = random_tensor(p.dtype, p.shape, o.seed * 1000003 + index);
    } else {
      error = "no value for input " + p.name + ": give --input " + p.name + "=FILE.npy or --random-inputs";
      return false;
    }
    ++index;
    inputs.push_back(std::move(t));
  }
  return true;
}

// Saves (--output) or prints each output, and lists it in the report.
bool deliver_outputs(const DriverOptions& o, const RunSignature& sig, const std::vector<Tensor>& outputs,
                     RunReport& report, std::string& error) {
  for (size_t k = 0; k < sig.outputs.size(); ++k) {
    const std::string& name = sig.outputs[k].name;
    const Tensor& t = outputs[k];
    const std::string* dest = bound_file(o.outputs, name);
    if (dest && !write_npy(*dest, t, error)) return false;
    if (!dest && !o.json) std::cout << format_tensor(name, t) << "\n";
    if (!o.json) continue;
    Json out{{"name", name}, {"dtype", t.dtype.str()}, {"shape", t.shape}, {"elements", t.num_elements()},
             {"file", dest ? Json(*dest) : Json(nullptr)}};
    if (t.num_elements() <= o.json_max_values) {
      Json values = Json::array();
      for (int64_t i = 0; i < t.num_elements(); ++i) values.push_back(element_json(t, i));
      out["values"] = values;
    }
    report.json()["outputs"].push_back(out);
  }
  return true;
}

// Compares the outputs with the reference's, on stderr and in the report. Returns the exit status.
int finish_check(const RunSignature& sig, const std::vector<Tensor>& outputs, const std::vector<Tensor>& want,
                 RunReport& report) {
  int64_t bad = 0;
  Json check{{"passed", false}, {"outputs", Json::array()}};
  for (size_t k = 0; k < sig.outputs.size(); ++k) {
    const std::string& name = sig.outputs[k].name;
    int64_t n = want[k].num_elements();
    int64_t b = compare(name, outputs[k], want[k], std::cerr);
    if (b) std::cerr << "check: " << name << ": " << b << " of " << elements_text(n) << " differ\n";
    else std::cerr << "check: " << name << " matches the reference interpreter (" << elements_text(n) << ")\n";
    check["outputs"].push_back(Json{{"name", name}, {"mismatches", b}, {"elements", n}});
    bad += b;
  }
  check["passed"] = bad == 0;
  report.json()["check"] = check;
  report.finish(bad ? "mismatch" : "ok");
  return bad ? 1 : 0;
}

}  // namespace

uint64_t RunTensor::bytes() const {
  uint64_t n = uint64_t(dtype.bytes());
  for (int64_t e : shape) n *= uint64_t(e);
  return n;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string elements_text(int64_t n) { return std::to_string(n) + (n == 1 ? " element" : " elements"); }

RunReport::RunReport(const DriverOptions& o) : enabled_(o.json) {
  j_["format"] = "dspc-run";
  j_["version"] = 1;
  j_["source"] = o.input;
  j_["function"] = nullptr;
  j_["target"] = o.lower.target.name;
  j_["mode"] = o.session ? "session" : "runner";
  j_["status"] = nullptr;  // set by finish(): "ok", "mismatch" (--check found differences) or "error"
  j_["error"] = nullptr;
  j_["outputs"] = Json::array();
  j_["check"] = nullptr;
  j_["timings_ms"] = Json::object();
}

void RunReport::finish(const std::string& status, const std::string& error) {
  if (!enabled_ || finished_) return;
  finished_ = true;
  j_["status"] = status;
  j_["error"] = error.empty() ? Json(nullptr) : Json(error);
  std::cout << j_.dump(2) << "\n" << std::flush;
}

int RunReport::fail(const std::string& msg) {
  std::cerr << "dspc: error: " << msg << "\n";
  finish("error", msg);
  return 1;
}

int RunReport::fail_after_diagnostics(const std::string& summary, int status) {
  finish("error", summary);
  return status;
}

std::string check_room(const DriverOptions& o, const RunSignature& sig, RunMode mode) {
  uint64_t in = 0, out = 0;
  std::vector<uint64_t> all;
  for (const RunTensor& t : sig.inputs) in += t.bytes(), all.push_back(t.bytes());
  for (const RunTensor& t : sig.outputs) out += t.bytes(), all.push_back(t.bytes());
  const std::string who = sig.kind + " " + sig.name;
  if (mode != RunMode::Runner) {
    uint64_t arena = session_arena_bytes(all);
    if (arena > kMaxSessionArenaBytes)
      return (mode == RunMode::Graph ? who + " runs in a session: its" : "--session: the") + std::string(" tensors need ") +
             bytes_text(arena) + " of the session's arena (each rounded up to 64 KiB pages, and 64 MiB for VTCM " +
             "and the runtime), more than the " + bytes_text(kMaxSessionArenaBytes) +
             " a session's arena can hold (SessionOptions::arena_bytes)" +
             (mode == RunMode::Graph ? "" : "; run without --session");
  } else if (o.lower.target.arch == Arch::hexagon) {
    uint64_t mapped = 0;
    for (uint64_t b : all) mapped += guest_pages(b);
    if (mapped > kMaxRunnerBytes)
      return who + "'s parameters need " + bytes_text(mapped) +
             " of the simulated DSP's memory (each rounded up to 64 KiB pages), more than the " +
             bytes_text(kMaxRunnerBytes) + " the runner can map in qemu-hexagon's 32-bit address space; " +
             "use smaller tensors";
  }
  if (mode == RunMode::Runner) {  // the .npy files of the inputs and outputs
    uint64_t room = temp_space_available();
    if (room && in + out > room)
      return who + "'s inputs and outputs need " + bytes_text(in + out) + " of .npy files in " + temp_root() +
             ", which has " + bytes_text(room) + " free (set TMPDIR to a folder with more room)";
  }
  // dspc itself holds the inputs and outputs, the reference's tensors with --check, and on the
  // host target a session's arena or the runner's own copies.
  uint64_t held = in + out + (o.check ? out + sig.reference_extra_bytes : 0);
  if (o.lower.target.arch != Arch::hexagon) held += mode == RunMode::Runner ? in + out : session_arena_bytes(all);
  uint64_t avail = host_memory_available();
  if (avail && held > avail)
    return "running " + who + " needs about " + bytes_text(held) + " of host memory (inputs and outputs" +
           (o.check ? ", and the reference interpreter's" : "") + "), more than the " + bytes_text(avail) +
           " available (MemAvailable in /proc/meminfo)";
  return "";
}

int run_signature(const DriverOptions& o, const RunSignature& sig, const RunHooks& hooks, RunReport& report) {
  if (std::string e = check_bindings(o, sig); !e.empty()) return report.fail(e);
  if (std::string e = check_room(o, sig, hooks.mode); !e.empty()) return report.fail(e);
  std::string error;
  if (o.lower.target.arch == Arch::hexagon && hooks.needs_qemu && !check_executable(o.qemu, error))
    return report.fail("cannot run the simulator (--qemu): " + error);

  TempDir tmp;
  if (!tmp.create("run", o.keep_temps, error)) return report.fail(error);
  progress_stage("building " + sig.name);
  if (int status = hooks.build(tmp.path()); status >= 0) return status;

  std::vector<Tensor> inputs, outputs;
  progress_stage(o.random_inputs ? "making the inputs" : "reading the inputs");
  if (!make_inputs(o, sig, inputs, error)) return report.fail(error);
  progress_stage("running " + sig.name);
  auto t0 = std::chrono::steady_clock::now();
  bool ran = hooks.execute(tmp.path(), inputs, outputs, error);
  report.time("run", ms_since(t0));
  progress_stage("");
  if (!ran) return report.fail(error);
  if (!deliver_outputs(o, sig, outputs, report, error)) return report.fail(error);
  if (!o.check) {
    report.finish("ok");
    return 0;
  }
  std::vector<Tensor> want;
  progress_stage("checking with the reference interpreter");
  t0 = std::chrono::steady_clock::now();
  bool interpreted = hooks.reference(inputs, want, error);
  report.time("check", ms_since(t0));
  progress_stage("");
  if (!interpreted) return report.fail("reference interpreter: " + error);
  return finish_check(sig, outputs, want, report);
}

}  // namespace dspc
