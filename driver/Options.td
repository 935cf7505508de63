// dspc's command-line options, for LLVM's option library (llvm/Option), as clang's and lld's.
// llvm-tblgen -gen-opt-parser-defs turns this into DriverOptions.inc (driver/CMakeLists.txt);
// driver/Driver.cpp parses argv with the table and `dspc --help` prints it. docs/cli.md lists
// the same options (tests/cli/cli_doc_matches_help.py compares the two).
//
// Every option taking a value is spelled --name=V or --name V (the Eq multiclass below).
// An option of grp_run is read only by `dspc run`; giving it to a compile is an error.
include "llvm/Option/OptParser.td"

def grp_compile : OptionGroup<"compile">, HelpText<"Compile options">;
def grp_general : OptionGroup<"general">, HelpText<"General options">;
def grp_run : OptionGroup<"run">, HelpText<"Run options (dspc run)">;

// --NAME=V (with the help text) and --NAME V.
multiclass Eq<string name, string metavar, OptionGroup group, string help> {
  def NAME # _eq : Joined<["--"], name # "=">, MetaVarName<metavar>, Group<group>, HelpText<help>;
  def NAME : Separate<["--"], name>, Alias<!cast<Joined>(NAME # "_eq")>, Group<group>;
}
// --NAME V (with the help text) and --NAME=V.
multiclass Sep<string name, string metavar, OptionGroup group, string help> {
  def NAME : Separate<["--"], name>, MetaVarName<metavar>, Group<group>, HelpText<help>;
  def NAME # _eq : Joined<["--"], name # "=">, Alias<!cast<Separate>(NAME)>, Group<group>;
}
class F<string name, OptionGroup group, string help> : Flag<["--"], name>, Group<group>, HelpText<help>;

// ---- compile options
defm target : Eq<"target", "T", grp_compile, "@TARGETS@">;
defm emit : Eq<"emit", "KIND", grp_compile,
  "tir, llvm, asm, obj, exe, so, header, json, graph-json or dsp (default obj;\n"
  "exe, the only kind, with C/C++ sources). json describes the module:\n"
  "functions, parameters, results, VTCM bytes, the passes in order, code\n"
  "size; graph-json the file's graphs, as TVM's graph JSON with\n"
  "placements and device groups; dsp the .dsp program dspc compiles (for\n"
  "an .onnx model, the imported graph)">;
def c : Flag<["-"], "c">, Alias<emit_eq>, AliasArgs<["obj"]>, Group<grp_compile>,
  HelpText<"the same as --emit=obj">;
def S : Flag<["-"], "S">, Alias<emit_eq>, AliasArgs<["asm"]>, Group<grp_compile>,
  HelpText<"the same as --emit=asm">;
def o : Separate<["-"], "o">, MetaVarName<"FILE">, Group<grp_compile>,
  HelpText<"output file ('-' for standard output). Default: standard output for\n"
           "tir/llvm/asm/header/json, FILE's stem + .o for obj, + .elf for exe,\n"
           "+ .so for so (a shared module); with C/C++ sources, the first\n"
           "source's stem + .elf">;
def o_eq : Joined<["-"], "o=">, Alias<o>, Group<grp_compile>;
def O : Joined<["-"], "O">, MetaVarName<"<level>">, Group<grp_compile>,
  HelpText<"LLVM optimisation level: -O0, -O1, -O2 (default) or -O3">;
def no_auto_schedule : F<"no-auto-schedule", grp_compile,
  "leave stages without a schedule as serial loop nests (no automatic\n"
  "vectorization, partitioning or inlining)">;
def no_auto_hvx : F<"no-auto-hvx", grp_compile,
  "keep LLVM's loop vectoriser off (it runs only with --no-auto-schedule,\n"
  "and never writes HVX code)">;
def no_group_device_calls : F<"no-group-device-calls", grp_compile,
  "run a graph's calls in source order, one device call per device node\n"
  "(the baseline for group-device-calls)">;
def no_fold_constant_stages : F<"no-fold-constant-stages", grp_compile,
  "compute a graph call's stages that read only constants on every call\n"
  "(not once, at compile time)">;
def no_vtcm_plan : F<"no-vtcm-plan", grp_compile,
  "one HexagonBackendAllocateVTCM call per VTCM buffer, checked by summing\n"
  "the live ones, instead of plan-vtcm's one arena per function">;
defm print_after : Eq<"print-after", "PASS", grp_compile,
  "print the TIR after PASS on standard error (repeatable); see --list-passes">;
def print_after_all : F<"print-after-all", grp_compile, "print the TIR after every pass on standard error">;
def explain_schedule : F<"explain-schedule", grp_compile,
  "say on standard error, for each stage, the schedule it gets (written,\n"
  "automatic or inlined) and what keeps it from HVX speed: reads whose lanes\n"
  "are not neighbours in memory, lane types without HVX instructions, an\n"
  "innermost extent below one vector">;
def verify_each : F<"verify-each", grp_compile, "verify the TIR after every pass">;
def time_passes : F<"time-passes", grp_compile,
  "time each of dspc's passes and LLVM's (optimisation and code generation),\n"
  "and Clang's for C/C++ sources; the reports go to standard error">;
defm vtcm_capacity : Eq<"vtcm-capacity", "BYTES", grp_compile,
  "VTCM available to a function at compile time (default: the target's)">;
defm runtime_dir : Eq<"runtime-dir", "DIR", grp_compile,
  "runtime-support's per-target libraries (default: found from dspc's own\n"
  "location: ../lib/dspc when installed, runtime-support/ beside dspc in\n"
  "a build tree)">;
def MD : Flag<["-"], "MD">, Group<grp_compile>,
  HelpText<"also write a depfile (Makefile syntax, for Ninja and Make) naming\n"
           "the output and every file the compile read: FILE, and the\n"
           "runtime-support library it links for exe and so. Written next to\n"
           "the output with its extension replaced by .d, or to -MF's file">;
def I : JoinedOrSeparate<["-"], "I">, MetaVarName<"DIR">, Group<grp_compile>,
  HelpText<"also look for `import \"NAME\"` files in DIR (repeatable; searched\n"
           "after the importing file's directory, in order, and before the\n"
           "op library that comes with dspc); -IDIR works too">;
def MF : JoinedOrSeparate<["-"], "MF">, MetaVarName<"FILE">, Group<grp_compile>,
  HelpText<"the depfile's path (goes with -MD); -MFFILE works too">;
defm inject_internal_error : Eq<"inject-internal-error", "PASS[:KIND]", grp_compile,
  "for testing dspc itself: make PASS fail like a compiler bug (exit\n"
  "code 2, \"dspc: internal error in pass PASS: ...\"); KIND is check\n"
  "(the default), make or invalid-tir; codegen:crash and codegen:fatal\n"
  "crash LLVM's code generation (a SIGSEGV, a fatal LLVM error)">;

defm input_shape : Sep<"input-shape", "NAME=1x3x224x224", grp_compile,
  "an ONNX model's input NAME has this shape (for an input whose shape is\n"
  "not fixed in the model; repeatable)">;
defm input_layout : Eq<"input-layout", "L", grp_compile,
  "nchw (default) or nhwc: the layout of an ONNX model's 4-D inputs">;
defm output_layout : Eq<"output-layout", "L", grp_compile,
  "nchw (default) or nhwc: the layout of an ONNX model's 4-D results">;
// ---- general
def help : F<"help", grp_general, "print this help">;
def h : Flag<["-"], "h">, Alias<help>, Group<grp_general>;
def version : F<"version", grp_general, "print dspc's version and the LLVM version it is built on">;
def list_passes : F<"list-passes", grp_general, "list the passes in pipeline order">;
def list_targets : F<"list-targets", grp_general, "list the targets">;
def list_onnx_ops : F<"list-onnx-ops", grp_general,
  "list the ONNX operators dspc imports, with the opsets they cover">;
def quiet : F<"quiet", grp_general,
  "no progress line on standard error (shown on a terminal for work over\n"
  "about 2 s: the step, and the inference or the reference's stage)">;

// ---- run options
defm func : Eq<"func", "NAME", grp_run, "the function to run (needed when FILE has several);\n"
  "NAME<A,B,...> instantiates a generic func as NAME_A_B_... (also\n"
  "when compiling)">;
defm input : Sep<"input", "NAME=FILE.npy", grp_run, "an input (repeat for each input)">;
defm output : Sep<"output", "NAME=FILE.npy", grp_run, "save an output instead of printing it">;
def random_inputs : F<"random-inputs", grp_run,
  "make the inputs not given with --input from --seed (default 1)">;
defm seed : Eq<"seed", "N", grp_run, "the seed of --random-inputs">;
def check : F<"check", grp_run, "compare every output with the reference interpreter, bit for bit">;
defm sim_vtcm_capacity : Eq<"sim-vtcm-capacity", "BYTES", grp_run, "the VTCM pool's capacity while running">;
defm timeout : Eq<"timeout", "SECONDS", grp_run, "stop the program after this long (default 600)">;
defm start_timeout : Eq<"start-timeout", "SECONDS", grp_run,
  "how long a --session run (or a graph's) waits for the device server to\n"
  "start (default 30)">;
defm qemu : Eq<"qemu", "PATH", grp_run,
  "the simulator (default: the one found at build time if it is still\n"
  "there, else qemu-hexagon on the PATH)">;
def keep_temps : F<"keep-temps", grp_run, "keep the temporary directory and print its path">;
def session : F<"session", grp_run,
  "run through the host runtime instead of a linked runner: compile a\n"
  "shared module (--emit=so), open a session (qemu-hexagon + the device\n"
  "server, or in-process for host), copy inputs in, call, copy outputs\n"
  "out; --timeout is the session's deadline, --start-timeout its start-up's,\n"
  "--sim-vtcm-capacity its VTCM">;
def json : F<"json", grp_run,
  "print one JSON object on standard output instead of the outputs:\n"
  "each output's name, dtype, shape (and values if small), whether\n"
  "--check passed, and the compile, codegen, link and run wall times">;
defm repeat : Eq<"repeat", "N", grp_run,
  "run a graph N times in one session (default 1): round trips and time\n"
  "are reported per inference">;
def profile : F<"profile", grp_run,
  "with a graph on a Hexagon target: count each node's packets under\n"
  "qemu-hexagon and print them per node, with time, share and the op's\n"
  "resource bound (like TVM's debug executor)">;
def lazy_calls : F<"lazy-calls", grp_run,
  "run a graph with the host runtime's lazy call queue: device calls are\n"
  "queued and sent as one request at the next copy">;
defm json_max_values : Eq<"json-max-values", "N", grp_run,
  "with --json, include an output's values when it has at most N\n"
  "elements (default 64; 0: never)">;
