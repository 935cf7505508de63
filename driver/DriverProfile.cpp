// `dspc run --profile` (DriverProfile.h). A packet is what an in-order VLIW core issues in one
// cycle when nothing stalls, so a kernel's packets are its idealized cycles: qemu-hexagon, run with
// one packet per translation block (-singlestep) and its execution log (-d exec,nochain), prints
// one "Trace" line per packet executed, ending in the function's symbol; the kernel's lines are
// its packets (bench/README.md, "Which packets count").
#include "driver/DriverProfile.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>

#include "codegen/Codegen.h"
#include "compiler/interp/Interpreter.h"
#include "compiler/interp/Npy.h"

namespace dspc {

namespace {

double elements(const std::vector<int64_t>& shape) {
  double n = 1;
  for (int64_t e : shape) n *= double(e);
  return n;
}

// A convolution's output extent (the op library's and the ONNX funcs' formula).
int64_t out_extent(int64_t in, int64_t pads, int64_t k, int64_t s, int64_t d) {
  return s > 0 ? (in + pads - d * (k - 1) - 1) / s + 1 : 0;
}

// The generic func a kernel instantiates: `conv2d_requant_1_1_1_56_56_64_3_3_64` is
// conv2d_requant<1, 1, 1, 56, 56, 64, 3, 3, 64> when the program has that generic func.
bool split_instance(const TensorProgram& p, const std::string& name, std::string& generic, std::vector<int64_t>& args) {
  for (const GenericFuncInfo& g : p.generics) {
    if (name.size() <= g.name.size() || name.compare(0, g.name.size(), g.name) != 0 || name[g.name.size()] != '_')
      continue;
    std::vector<int64_t> a;
    bool ok = true;
    for (size_t i = g.name.size(); ok && i < name.size();) {
      size_t j = name.find('_', i + 1);
      std::string field = name.substr(i + 1, j == std::string::npos ? std::string::npos : j - i - 1);
      ok = !field.empty() && field.size() < 19 && field.find_first_not_of("0123456789") == std::string::npos;
      if (ok) a.push_back(std::stoll(field));
      i = j == std::string::npos ? name.size() : j;
    }
    if (ok && a.size() == g.params.size()) {
      generic = g.name;
      args = std::move(a);
      return true;
    }
  }
  return false;
}

struct Counted {
  uint64_t packets = 0;
  int status = -1;
  std::string tail;  // the end of what the program printed besides the trace
};

// Runs `argv` (qemu-hexagon with the trace on standard error) and counts the trace lines whose
// symbol is `symbol`.
bool count_packets(const std::vector<std::string>& argv, const std::string& symbol, int timeout_seconds, Counted& out,
                   std::string& error) {
  int fds[2];
  if (pipe(fds) != 0) {
    error = std::string("cannot make a pipe: ") + std::strerror(errno);
    return false;
  }
  pid_t pid = fork();
  if (pid < 0) {
    error = std::string("cannot fork: ") + std::strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return false;
  }
  if (pid == 0) {
    dup2(fds[1], 2);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 1);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  close(fds[1]);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  std::string line;
  char buf[1 << 16];
  bool timed_out = false;
  auto take = [&](const std::string& l) {
    if (l.rfind("Trace ", 0) == 0) {
      size_t sp = l.find_last_of(' ');
      if (l.compare(sp + 1, std::string::npos, symbol) == 0) ++out.packets;
    } else {
      out.tail += l + "\n";
      if (out.tail.size() > 4000) out.tail.erase(0, out.tail.size() - 4000);
    }
  };
  for (;;) {
    pollfd p{fds[0], POLLIN, 0};
    int r = poll(&p, 1, 1000);
    if (r < 0 && errno == EINTR) continue;
    if (std::chrono::steady_clock::now() > deadline) {
      timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    if (r == 0) continue;
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (ssize_t i = 0; i < n; ++i) {
      if (buf[i] != '\n') {
        line.push_back(buf[i]);
        continue;
      }
      take(line);
      line.clear();
    }
  }
  if (!line.empty()) take(line);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    error = "timed out after " + std::to_string(timeout_seconds) + " s (--timeout)";
    return false;
  }
  out.status = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);  // a signal: its negative
  return true;
}

std::string fixed(double v, int digits) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

std::string pad(std::string s, size_t width, bool right) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

}  // namespace

ResourceBound resource_bound(const std::string& generic, const std::vector<int64_t>& a,
                             const std::vector<ParamInfo>& params, int vector_bytes) {
  // Every op reads its inputs and writes its results at least once: one vector a packet each way.
  double in = 0, out = 0;
  for (const ParamInfo& p : params) (p.is_output ? out : in) += elements(p.shape) * double(p.dtype.bytes());
  ResourceBound io{std::max(in, out) / vector_bytes, "bytes moved / " + std::to_string(vector_bytes)};
  auto at_least_io = [&](double packets, const char* counts) {
    return packets >= io.packets ? ResourceBound{packets, counts} : io;
  };
  auto starts = [&](const char* prefix) { return generic.rfind(prefix, 0) == 0; };
  // The op library's convolutions (schedules/nn.dsp, qnn.dsp): <S, P, D, H, W, C, R, T[, K]>,
  // the _exact variants with their requantization's arguments after those.
  if ((generic == "conv2d" || starts("conv2d_requant")) &&
      (a.size() == 9 || (starts("conv2d_requant_exact") && a.size() == 14))) {
    double macs = elements({out_extent(a[3], 2 * a[1], a[6], a[0], a[2]), out_extent(a[4], 2 * a[1], a[7], a[0], a[2]),
                            a[8], a[6], a[7], a[5]});
    return at_least_io(macs / 256, "MACs / 256 (vrmpy)");
  }
  if (starts("depthwise_conv2d") && (a.size() == 8 || (generic == "depthwise_conv2d_requant_exact" && a.size() == 13))) {
    double macs = elements({out_extent(a[3], 2 * a[1], a[6], a[0], a[2]), out_extent(a[4], 2 * a[1], a[7], a[0], a[2]),
                            a[5], a[6], a[7]});
    return at_least_io(macs / 64, "MACs / 64 (16-bit products)");
  }
  if ((generic == "dense_u8" || generic == "dense_i8") && a.size() == 3)
    return at_least_io(double(a[0]) * double(a[1]) * double(a[2]) / 256, "MACs / 256 (vrmpy)");
  // The ONNX importer's convolutions (schedules/onnx_nn.dsp, onnx_quant.dsp):
  // <G, SH, SW, PT, PL, PB, PR, DH, DW, N, H, W, C, KH, KW, CG, K>.
  if ((starts("conv2d_f32") || starts("qlinear_conv2d") || starts("conv2d_integer")) && a.size() == 17) {
    double macs = elements({a[9], out_extent(a[10], a[3] + a[5], a[13], a[1], a[7]),
                            out_extent(a[11], a[4] + a[6], a[14], a[2], a[8]), a[16], a[13], a[14], a[15]});
    bool depthwise = a[15] == 1 && a[0] == a[12];
    if (generic == "conv2d_f32") return at_least_io(macs / 64, "MACs / 64 (f32 lanes)");
    return depthwise ? at_least_io(macs / 64, "MACs / 64 (16-bit products)") : at_least_io(macs / 256, "MACs / 256 (vrmpy)");
  }
  // <M, K, N>
  if ((starts("gemm_f32") || starts("matmul_f32")) && a.size() >= 3)
    return at_least_io(double(a[0]) * double(a[1]) * double(a[2]) / 64, "MACs / 64 (f32 lanes)");
  if ((starts("qlinear_matmul") || starts("matmul_integer")) && a.size() == 3)
    return at_least_io(double(a[0]) * double(a[1]) * double(a[2]) / 256, "MACs / 256 (vrmpy)");
  return io;
}

bool profile_graph(const DriverOptions& o, const Compilation& c, const Graph& g, const GraphPlan& plan,
                   const std::string& tmp, nlohmann::ordered_json& report, std::string& error) {
  using Json = nlohmann::ordered_json;
  if (o.lower.target.arch != Arch::hexagon) {
    error = "--profile counts Hexagon packets: it needs a Hexagon target (--target=hexagon-v68), not " +
            o.lower.target.name;
    return false;
  }
  // The kernels linked with the runner, which calls one by name on .npy files.
  std::string exe = tmp + "/" + g.name + ".profile.elf";
  Diagnostics diag(std::cerr);
  if (!emit_executable(o, c, exe, diag)) {
    error = "--profile: code generation or linking failed (diagnostics above)";
    return false;
  }
  std::map<std::string, EntryInfo> entries;
  for (EntryInfo& e : entries_of(*c.program)) entries[e.name] = std::move(e);

  // Each distinct kernel once, on random inputs: a call's packets do not depend on its data but
  // where its code branches on it (the op library's kernels do not).
  std::map<std::string, uint64_t> packets;
  uint64_t seed = 0;
  for (int n : plan.order) {
    const std::string& func = g.nodes[size_t(n)].func;
    if (packets.count(func) || g.nodes[size_t(n)].placement == Placement::Host) continue;
    auto e = entries.find(func);
    if (e == entries.end()) {
      error = "--profile: no function '" + func + "' in the module";
      return false;
    }
    std::vector<std::string> argv = {o.qemu, "-cpu", DSPC_QEMU_CPU, "-singlestep", "-d", "exec,nochain", exe,
                                     "--func=" + func};
    for (const ParamInfo& p : e->second.params) {
      std::string path = tmp + "/profile." + p.name + ".npy";
      argv.push_back(p.name + "=" + path);
      if (p.is_output) continue;
      if (!write_npy(path, random_tensor(p.dtype, p.shape, o.seed * 1000003 + 7919 * ++seed), error)) return false;
    }
    Counted counted;
    if (!count_packets(argv, func, o.timeout_seconds, counted, error)) {
      error = "--profile: " + func + ": " + error;
      return false;
    }
    if (counted.status != 0 || counted.packets == 0) {
      error = "--profile: " + func + " failed under the simulator (exit code " + std::to_string(counted.status) + ")" +
              (counted.tail.empty() ? "" : ":\n" + counted.tail);
      return false;
    }
    packets[func] = counted.packets;
  }

  // The table, in the order the group function calls the nodes.
  struct Row {
    std::string node, func;
    uint64_t packets;
    ResourceBound bound;
    bool host;  // an @host node: not counted
  };
  std::vector<Row> rows;
  uint64_t total = 0;
  double total_bound = 0;
  for (int n : plan.order) {
    const GraphNode& node = g.nodes[size_t(n)];
    // A specialization by fold-constant-stages is bounded as its func.
    auto folded = c.folded_from.find(node.func);
    const std::string& func = folded == c.folded_from.end() ? node.func : folded->second;
    std::string generic = func;
    std::vector<int64_t> args;
    if (!split_instance(*c.program, func, generic, args)) generic = func;
    bool host = node.placement == Placement::Host;
    Row r{g.tensors[size_t(node.outputs[0])].name, generic, host ? 0 : packets[node.func],
          host ? ResourceBound{} : resource_bound(generic, args, entries[node.func].params, o.lower.target.vector_bytes), host};
    total += r.packets;
    total_bound += r.bound.packets;
    rows.push_back(std::move(r));
  }
  // Time: one packet per cycle at 1 GHz (an idealized device: no stalls).
  size_t wn = 9, wf = 4;
  for (const Row& r : rows) {
    wn = std::max(wn, std::min<size_t>(r.node.size(), 40));
    wf = std::max(wf, std::min<size_t>(r.func.size(), 40));
  }
  auto line = [&](const std::string& node, const std::string& func, const std::string& p, const std::string& us,
                  const std::string& share, const std::string& bound, const std::string& ratio,
                  const std::string& counts) {
    std::cerr << pad(node.substr(0, 40), wn, false) << "  " << pad(func.substr(0, 40), wf, false) << "  "
              << pad(p, 11, true) << "  " << pad(us, 10, true) << "  " << pad(share, 7, true) << "  " << pad(bound, 10, true)
              << "  " << pad(ratio, 8, true) << "  " << counts << "\n";
  };
  std::cerr << "profile of graph " << g.name << " on " << o.lower.target.name
            << ": packets per node (qemu-hexagon, one packet per cycle; time at 1 GHz)\n";
  line("Node Name", "Ops", "Packets", "Time(us)", "Time(%)", "Bound", "x Bound", "Bound counts");
  line("---------", "---", "-------", "--------", "-------", "-----", "-------", "------------");
  Json jrows = Json::array();
  for (const Row& r : rows) {
    if (r.host) {
      line(r.node, r.func, "@host", "-", "-", "-", "-", "runs on the host: not counted");
      jrows.push_back(Json{{"node", r.node}, {"func", r.func}, {"host", true}});
      continue;
    }
    double share = total ? 100.0 * double(r.packets) / double(total) : 0;
    double ratio = r.bound.packets > 0 ? double(r.packets) / r.bound.packets : 0;
    line(r.node, r.func, std::to_string(r.packets), fixed(double(r.packets) / 1000, 1), fixed(share, 1),
         fixed(r.bound.packets, 0), fixed(ratio, 2), r.bound.counts);
    jrows.push_back(Json{{"node", r.node}, {"func", r.func}, {"packets", r.packets}, {"time_us", double(r.packets) / 1000},
                         {"share", share / 100}, {"bound", r.bound.packets}, {"bound_counts", r.bound.counts}});
  }
  double ratio = total_bound > 0 ? double(total) / total_bound : 0;
  line("Total (" + std::to_string(rows.size()) + " nodes)", "", std::to_string(total), fixed(double(total) / 1000, 1), "100.0",
       fixed(total_bound, 0), fixed(ratio, 2), "");
  report["profile"] = Json{{"nodes", jrows}, {"total_packets", total}, {"total_bound", total_bound},
                           {"packets_per_bound", ratio}, {"clock_mhz", 1000}};
  return true;
}

}  // namespace dspc
