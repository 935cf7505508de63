// `dspc run`: compile to an executable, run it on qemu-hexagon (or natively for the host),
// read the outputs back, and print, save or check them.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "codegen/Codegen.h"
#include "driver/Compile.h"
#include "driver/Driver.h"
#include "driver/DriverGraph.h"
#include "driver/DriverSession.h"
#include "compiler/interp/Interpreter.h"
#include "compiler/interp/Npy.h"
#include "compiler/ir/Printer.h"

namespace dspc {

namespace {

int fail(const std::string& msg) {
  std::cerr << "dspc: error: " << msg << "\n";
  return 1;
}

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
// the operand's). Returns the number of differences.
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

using Json = nlohmann::ordered_json;

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
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
    double v = d.bits == 32 ? static_cast<double>(load(float{})) : d.bits == 64 ? load(double{}) : NAN;
    if (d.bits != 32 && d.bits != 64) return element_str(t, i);
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

// The `dspc run --json` report (README, "dspc run --json"), filled in as the run goes.
struct RunReport {
  bool enabled = false;
  Json j;
  void finish(const std::string& status, const std::string& error = "") {
    if (!enabled) return;
    j["status"] = status;
    j["error"] = error.empty() ? Json(nullptr) : Json(error);
    std::cout << j.dump(2) << "\n" << std::flush;
  }
};

struct TempDir {
  std::string path;
  bool keep = false;
  ~TempDir() {
    if (path.empty() || keep) return;
    std::string cmd = "rm -rf '" + path + "'";
    [[maybe_unused]] int r = std::system(cmd.c_str());
  }
};

// Runs `entry` of the module at `so` in a session (DriverSession.cpp) and turns the outputs'
// bytes back into tensors of the signature's dtypes and shapes.
bool run_session(const DriverOptions& o, const EntryInfo& entry, const std::string& so, const std::vector<Tensor>& inputs,
                 std::vector<Tensor>& outputs, std::string& error) {
  SessionRun run;
  run.module_path = so;
  run.func = entry.name;
  run.target = o.lower.target.is_hexagon ? o.lower.target.name : "host";
  run.qemu = o.qemu;
  run.timeout_seconds = o.timeout_seconds;
  run.vtcm_capacity = o.sim_vtcm_capacity;
  for (const auto& t : inputs) run.inputs.push_back(t.data);
  std::vector<std::vector<uint8_t>> bytes;
  if (!run_in_session(run, bytes, error)) return false;
  size_t k = 0;
  for (const auto& p : entry.params) {
    if (!p.is_output) continue;
    Tensor t = Tensor::zeros(p.dtype, p.shape);
    if (k >= bytes.size() || bytes[k].size() != t.data.size()) {
      error = "the module's output " + p.name + " does not match the signature " + p.dtype.str() + shape_str(p.shape);
      return false;
    }
    t.data = std::move(bytes[k++]);
    outputs.push_back(std::move(t));
  }
  return true;
}

// Whether `program` (a path, or a name looked up in PATH as execvp does) names an executable
// file; if not, says why in `error`.
bool check_executable(const std::string& program, std::string& error) {
  auto usable = [](const std::string& path, int& err) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return err = errno, false;
    if (S_ISDIR(st.st_mode)) return err = EISDIR, false;
    if (access(path.c_str(), X_OK) != 0) return err = errno, false;
    return true;
  };
  int err = ENOENT;
  if (program.find('/') != std::string::npos) {
    if (usable(program, err)) return true;
  } else {
    const char* env = std::getenv("PATH");
    std::string path = env ? env : "/usr/local/bin:/usr/bin:/bin";
    for (size_t start = 0;;) {
      size_t colon = path.find(':', start);
      std::string dir = path.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      int e = ENOENT;
      if (usable((dir.empty() ? "." : dir) + "/" + program, e)) return true;
      if (e != ENOENT) err = e;
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  error = "'" + program + "': " + std::strerror(err);
  return false;
}

}  // namespace

int64_t compare_tensors(const std::string& name, const Tensor& got, const Tensor& want, std::ostream& out) {
  return compare(name, got, want, out);
}

nlohmann::ordered_json tensor_element_json(const Tensor& t, int64_t i) { return element_json(t, i); }

std::string make_temp_dir(bool keep, std::string& error) {
  char templ[] = "/tmp/dspc-run-XXXXXX";
  if (!mkdtemp(templ)) {
    error = std::string("cannot create a temporary directory: ") + std::strerror(errno);
    return "";
  }
  (void)keep;
  return templ;
}

void remove_temp_dir(const std::string& path) {
  TempDir t;
  t.path = path;
}

int run_process(const std::vector<std::string>& argv, int timeout_seconds, std::string& captured_stderr,
                std::string& error, bool capture_stdout) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) {
    error = std::string("cannot create a pipe: ") + std::strerror(errno);
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    error = std::string("cannot fork: ") + std::strerror(errno);
    return -1;
  }
  if (pid == 0) {
    dup2(pipe_fds[1], 2);
    if (capture_stdout) dup2(pipe_fds[1], 1);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "cannot run '%s': %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  close(pipe_fds[1]);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  bool timed_out = false;
  char buf[4096];
  for (;;) {
    pollfd p{pipe_fds[0], POLLIN, 0};
    int ready = poll(&p, 1, 100);
    if (ready > 0) {
      ssize_t n = read(pipe_fds[0], buf, sizeof buf);
      if (n > 0) {
        if (captured_stderr.size() < (1u << 20)) captured_stderr.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (n == 0) break;  // the child closed stderr (exited)
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      timed_out = true;
      break;
    }
  }
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    error = "timed out after " + std::to_string(timeout_seconds) + " s";
    return -1;
  }
  if (WIFSIGNALED(status)) {
    error = std::string("killed by signal ") + strsignal(WTERMSIG(status));
    return -1;
  }
  return WEXITSTATUS(status);
}

int run_command(const DriverOptions& o) {
  RunReport report;
  report.enabled = o.json;
  Json& j = report.j;
  j["format"] = "dspc-run";
  j["version"] = 1;
  j["source"] = o.input;
  j["function"] = nullptr;
  j["target"] = o.lower.target.name;
  j["mode"] = o.session ? "session" : "runner";
  j["status"] = nullptr;  // set by finish(): "ok", "mismatch" (--check found differences) or "error"
  j["error"] = nullptr;
  j["outputs"] = Json::array();
  j["check"] = nullptr;
  Json& times = j["timings_ms"] = Json::object();
  auto error_exit = [&](const std::string& msg) {
    fail(msg);
    report.finish("error", msg);
    return 1;
  };

  SourceFile source;
  Diagnostics diag(std::cerr);
  auto t0 = std::chrono::steady_clock::now();
  auto c = compile_input(o, source, diag);
  times["compile"] = ms_since(t0);
  if (!c) {
    report.finish("error", "compilation failed (diagnostics on standard error)");
    return failure_status(diag);
  }

  // A graph runs through sessions (DriverGraph.cpp).
  if (const Graph* g = pick_graph(*c, o.func))
    return run_graph(o, *c, *g, source, j, [&](const std::string& status, const std::string& error) {
      report.finish(status, error);
    });
  // Pick the function and its signature.
  if (c->program)
    for (const GenericFuncInfo& g : c->program->generics)
      if (g.name == o.func) {
        diag.error(g.span, uninstantiated_message(g));
        report.finish("error", "'" + g.name + "' is a generic func");
        return 1;
      }
  auto entries = c->program ? entries_of(*c->program) : entries_of(c->module);
  const EntryInfo* entry = nullptr;
  std::string names;
  for (const auto& e : entries) {
    names += (names.empty() ? "" : ", ") + e.name;
    if (e.name == o.func) entry = &e;
  }
  // The file's graphs. None of them was picked: without --func there are several (a lone one
  // would have run), and with it --func names no graph.
  std::string graphs;
  if (c->program)
    for (const Graph& g : c->program->graphs) graphs += (graphs.empty() ? "" : ", ") + g.name;
  if (o.func.empty()) {
    if (!graphs.empty())
      return error_exit(source.path + " has several graphs (" + graphs + ")" +
                        (names.empty() ? "" : " and functions (" + names + ")") + ": choose one with --func");
    if (entries.size() != 1)
      return error_exit(source.path + " has several functions (" + names + "): choose one with --func");
    entry = &entries[0];
  }
  if (!entry)
    return error_exit("no function " + std::string(graphs.empty() ? "" : "or graph ") + "'" + o.func + "' in " +
                      source.path + " (functions: " + names + (graphs.empty() ? "" : "; graphs: " + graphs) + ")");
  // Only once the func is chosen: a file with several graphs and no --func is told that first.
  if (o.repeat != 1) return error_exit("--repeat goes with a graph ('" + entry->name + "' is a func)");
  if (o.lazy_calls) return error_exit("--lazy-calls goes with a graph ('" + entry->name + "' is a func)");
  j["function"] = entry->name;
  if (o.check && !c->program)
    return error_exit("--check needs .dsp input (the reference interpreter reads tensor programs)");

  // --input names an input, --output a result, each at most once.
  std::set<std::string> ins, outs;
  for (const auto& p : entry->params) (p.is_output ? outs : ins).insert(p.name);
  for (bool in : {true, false}) {
    const char* opt = in ? "--input" : "--output";
    std::set<std::string> seen;
    for (const auto& b : in ? o.inputs : o.outputs) {
      if (!(in ? ins : outs).count(b.first)) {
        if ((in ? outs : ins).count(b.first))
          return error_exit(std::string(opt) + " " + b.first + "=" + b.second + ": " + b.first + " is " +
                      (in ? "a result" : "an input") + " of " + entry->name + ", not " + (in ? "an input" : "a result"));
        return error_exit(std::string(opt) + " " + b.first + "=" + b.second + ": function " + entry->name +
                    " has no parameter '" + b.first + "'");
      }
      if (!seen.insert(b.first).second) return error_exit(std::string(opt) + " " + b.first + " is given more than once");
    }
  }
  if (o.lower.target.is_hexagon) {
    std::string error;
    if (!check_executable(o.qemu, error)) return error_exit("cannot run the simulator (--qemu): " + error);
  }

  TempDir tmp;
  tmp.keep = o.keep_temps;
  char templ[] = "/tmp/dspc-run-XXXXXX";
  if (!mkdtemp(templ)) return error_exit(std::string("cannot create a temporary directory: ") + std::strerror(errno));
  tmp.path = templ;
  if (o.keep_temps) std::cerr << "dspc: keeping temporary files in " << tmp.path << "\n";

  // Without --session: an executable with the runner, reading and writing .npy files. With it: a
  // shared module the host runtime loads into a session.
  std::string exe = tmp.path + "/" + entry->name + (o.session ? ".so" : ".elf");
  EmitTimings emit_times;
  bool built = o.session ? emit_shared(o, *c, exe, diag, &emit_times) : emit_executable(o, *c, exe, diag, &emit_times);
  times["codegen"] = emit_times.codegen_ms;
  times["link"] = emit_times.link_ms;
  if (!built) {
    report.finish("error", "code generation or linking failed (diagnostics on standard error)");
    return failure_status(diag);
  }

  // Inputs: given files or random tensors, written where the runner reads them.
  std::vector<Tensor> inputs;
  std::vector<std::string> cmd;
  if (o.lower.target.is_hexagon) cmd = {o.qemu, "-cpu", DSPC_QEMU_CPU};
  cmd.push_back(exe);
  cmd.push_back("--func=" + entry->name);
  if (o.sim_vtcm_capacity >= 0) cmd.push_back("--vtcm-capacity=" + std::to_string(o.sim_vtcm_capacity));
  uint64_t index = 0;
  for (const auto& p : entry->params) {
    std::string path = tmp.path + "/" + p.name + ".npy";
    cmd.push_back(p.name + "=" + path);
    if (p.is_output) continue;
    Tensor t;
    std::string error;
    const std::string* given = nullptr;
    for (const auto& b : o.inputs)
      if (b.first == p.name) given = &b.second;
    if (given) {
      if (!read_npy(*given, t, error)) return error_exit(*given + ": " + error);
      if (t.dtype != p.dtype || t.shape != p.shape)
        return error_exit(*given + " holds " + t.dtype.str() + shape_str(t.shape) + " but " + p.name + " is " +
                          p.dtype.str() + shape_str(p.shape));
    } else if (o.random_inputs) {
      t = random_tensor(p.dtype, p.shape, o.seed * 1000003 + index);
    } else {
      return error_exit("no value for input " + p.name + ": give --input " + p.name + "=FILE.npy or --random-inputs");
    }
    ++index;
    if (!o.session && !write_npy(path, t, error)) return error_exit(error);
    inputs.push_back(std::move(t));
  }

  std::string error;
  std::vector<Tensor> outputs;
  t0 = std::chrono::steady_clock::now();
  if (o.session) {
    bool ran = run_session(o, *entry, exe, inputs, outputs, error);
    times["run"] = ms_since(t0);
    if (!ran) return error_exit(error.rfind(entry->name + ": ", 0) == 0 ? error : entry->name + ": " + error);
  } else {
    std::string err_text;
    int status = run_process(cmd, o.timeout_seconds, err_text, error, /*capture_stdout=*/true);
    times["run"] = ms_since(t0);
    std::cerr << err_text;
    if (status < 0) return error_exit(entry->name + ": " + error);
    if (status != 0)
      return error_exit(entry->name + " failed on " + o.lower.target.name + " (exit code " + std::to_string(status) + ")");
    for (const auto& p : entry->params) {
      if (!p.is_output) continue;
      Tensor t;
      if (!read_npy(tmp.path + "/" + p.name + ".npy", t, error)) return error_exit("reading output " + p.name + ": " + error);
      outputs.push_back(std::move(t));
    }
  }

  size_t k = 0;
  for (const auto& p : entry->params) {
    if (!p.is_output) continue;
    const Tensor& t = outputs[k++];
    const std::string* dest = nullptr;
    for (const auto& b : o.outputs)
      if (b.first == p.name) dest = &b.second;
    if (dest) {
      if (!write_npy(*dest, t, error)) return error_exit(error);
    } else if (!o.json) {
      std::cout << format_tensor(p.name, t) << "\n";
    }
    if (o.json) {
      Json out;
      out["name"] = p.name;
      out["dtype"] = t.dtype.str();
      out["shape"] = t.shape;
      out["elements"] = t.num_elements();
      out["file"] = dest ? Json(*dest) : Json(nullptr);
      if (t.num_elements() <= o.json_max_values) {
        Json values = Json::array();
        for (int64_t i = 0; i < t.num_elements(); ++i) values.push_back(element_json(t, i));
        out["values"] = values;
      }
      j["outputs"].push_back(out);
    }
  }

  if (!o.check) {
    report.finish("ok");
    return 0;
  }
  const TensorFunc* f = nullptr;
  for (const auto& tf : c->program->funcs)
    if (tf.name == entry->name) f = &tf;
  std::vector<Tensor> want;
  t0 = std::chrono::steady_clock::now();
  bool interpreted = interpret(*f, inputs, want, error);
  times["check"] = ms_since(t0);
  if (!interpreted) return error_exit("reference interpreter: " + error);
  int64_t bad = 0;
  Json check;
  check["passed"] = false;
  check["outputs"] = Json::array();
  k = 0;
  for (const auto& p : entry->params) {
    if (!p.is_output) continue;
    int64_t b = compare(p.name, outputs[k], want[k], std::cerr);
    if (b) std::cerr << "check: " << p.name << ": " << b << " of " << want[k].num_elements() << " elements differ\n";
    else std::cerr << "check: " << p.name << " matches the reference interpreter (" << want[k].num_elements() << " elements)\n";
    check["outputs"].push_back(Json{{"name", p.name}, {"mismatches", b}, {"elements", want[k].num_elements()}});
    bad += b;
    ++k;
  }
  check["passed"] = bad == 0;
  j["check"] = check;
  report.finish(bad ? "mismatch" : "ok");
  return bad ? 1 : 0;
}

}  // namespace dspc
