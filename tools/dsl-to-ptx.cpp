// dsl-to-ptx: compiles a text-DSL file and prints any stage of loom's pipeline.
//
//   dsl-to-ptx matmul.loom --emit=ptx --sm=sm_90 -o matmul.ptx
//   dsl-to-ptx matmul.loom --emit=ir|lowered|llvm|llvm-opt|ptx
//
// Exit status: 0 on success, 1 on an error in the program (diagnostics on stderr as
// file:line:col: error: ...), 2 on bad command-line usage.
#include <loom/loom.hpp>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

const char *usage_text =
    R"(usage: dsl-to-ptx FILE|- [options]

Compiles the @kernel functions of a loom text-DSL file and prints one stage of the pipeline.

options:
  --emit=STAGE        what to print (default: ptx):
                        ir        the IR the front end built, before any pass
                        lowered   the IR after lowering (add --passes for a dump after each pass)
                        llvm      LLVM IR as generated from the lowered IR
                        llvm-opt  LLVM IR after the O3 pipeline (and libdevice, on the GPU)
                        ptx       PTX assembly
  --kernel=NAME       only this kernel (llvm, llvm-opt and ptx need one kernel: required when
                      the file defines several)
  --target=gpu|cpu    the target of lowered, llvm and llvm-opt (default: gpu)
  --sm=sm_XY          the GPU architecture (default: this machine's GPU, else sm_90)
  --ptx-version=X.Y   the PTX ISA version (default: the highest the driver and LLVM accept)
  --index-bits=32|64  GPU index arithmetic: 32 is the code a call runs when every array has at
                      most 2^30 elements, 64 the code for larger arrays (default: 32, unless
                      LOOM_INDEX_BITS=64)
  --launch=covering|grid-stride
                      GPU parallel loops: covering is the code a call runs when its grid gives
                      every iteration a thread (one iteration per thread under an `if`),
                      grid-stride the code for any grid (default: covering, unless
                      LOOM_GRID_STRIDE=1)
  --tier=optimized|quick
                      GPU llvm-opt and ptx: the optimized code (LLVM's O3 pipeline), or the
                      quick code a tiered kernel runs while that compiles (a short pipeline,
                      the backend at -O0) (default: optimized)
  --strided=A,B       read these array parameters as strided views: the code a call runs that
                      passes views with strides of their own for them (loom::view with
                      strides, DeviceArray::slice, transposed ...)
  --passes            with --emit=lowered: the IR after every lowering pass
  --variant           print the variant the options resolve to (on standard error)
  -o FILE             write to FILE instead of standard output
  --version           loom's version, and LLVM's
  -h, --help          this text

Without options, every stage is the code a call of the kernel with arrays of at most 2^30
elements runs (Kernel::ptx() and the other stage calls of the library give the same text).

Environment: LOOM_LIBDEVICE (libdevice.10.bc for GPU math functions), LOOM_INDEX_BITS,
LOOM_GRID_STRIDE, LOOM_BOUNDS_CHECK.
)";

struct Options {
  std::string input, output, emit = "ptx", kernel;
  // GPU unless --target=cpu; the rest as a call would run unless the options say.
  loom::VariantRequest variant{.target = loom::Target::GPU};
  bool passes = false, print_variant = false;
};

struct UsageError {
  std::string message;
};

// "--name=value" or "--name value"; advances `i` past a separate value.
bool option(const char *name, int argc, char **argv, int &i, std::string &value) {
  size_t n = std::strlen(name);
  if (std::strncmp(argv[i], name, n) != 0)
    return false;
  if (argv[i][n] == '=') {
    value = argv[i] + n + 1;
    return true;
  }
  if (argv[i][n] != '\0')
    return false;
  if (i + 1 >= argc)
    throw UsageError{std::string(name) + " needs a value"};
  value = argv[++i];
  return true;
}

Options parse_options(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string v;
    if (!std::strcmp(argv[i], "-h") || !std::strcmp(argv[i], "--help")) {
      std::fputs(usage_text, stdout);
      std::exit(0);
    } else if (!std::strcmp(argv[i], "--version")) {
      std::printf("dsl-to-ptx (loom) %s\n", loom::version());
      std::exit(0);
    } else if (!std::strcmp(argv[i], "--passes")) {
      o.passes = true;
    } else if (!std::strcmp(argv[i], "--variant")) {
      o.print_variant = true;
    } else if (option("--emit", argc, argv, i, v)) {
      if (v != "ir" && v != "lowered" && v != "llvm" && v != "llvm-opt" && v != "ptx")
        throw UsageError{"--emit=" + v + ": expected ir, lowered, llvm, llvm-opt or ptx"};
      o.emit = v;
    } else if (option("--kernel", argc, argv, i, v)) {
      o.kernel = v;
    } else if (option("--target", argc, argv, i, v)) {
      if (v != "gpu" && v != "cpu")
        throw UsageError{"--target=" + v + ": expected gpu or cpu"};
      o.variant.target = v == "gpu" ? loom::Target::GPU : loom::Target::CPU;
    } else if (option("--sm", argc, argv, i, v)) {
      int number = 0;
      if (std::sscanf(v.c_str(), "sm_%d", &number) != 1 || number < 20)
        throw UsageError{"--sm=" + v + ": expected sm_XY, e.g. sm_90"};
      o.variant.sm = v;
    } else if (option("--ptx-version", argc, argv, i, v)) {
      int major = 0, minor = 0;
      char rest = 0;
      if (std::sscanf(v.c_str(), "%d.%d%c", &major, &minor, &rest) != 2 || minor > 9 || major < 1)
        throw UsageError{"--ptx-version=" + v + ": expected X.Y, e.g. 8.5"};
      o.variant.ptx_version = major * 10 + minor;
    } else if (option("--strided", argc, argv, i, v)) {
      for (size_t start = 0; start <= v.size();) {
        size_t comma = std::min(v.find(',', start), v.size());
        if (comma == start)
          throw UsageError{"--strided=" + v + ": expected array names separated by commas"};
        o.variant.strided.push_back(v.substr(start, comma - start));
        start = comma + 1;
      }
    } else if (option("--index-bits", argc, argv, i, v)) {
      if (v != "32" && v != "64")
        throw UsageError{"--index-bits=" + v + ": expected 32 or 64"};
      o.variant.index32 = v == "32";
    } else if (option("--launch", argc, argv, i, v)) {
      if (v != "covering" && v != "grid-stride")
        throw UsageError{"--launch=" + v + ": expected covering or grid-stride"};
      o.variant.covering = v == "covering";
    } else if (option("--tier", argc, argv, i, v)) {
      if (v != "optimized" && v != "quick")
        throw UsageError{"--tier=" + v + ": expected optimized or quick"};
      o.variant.tier = v == "quick" ? loom::Tier::Quick : loom::Tier::Optimized;
    } else if (option("-o", argc, argv, i, v)) {
      o.output = v;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      throw UsageError{std::string("unknown option ") + argv[i]};
    } else if (o.input.empty()) {
      o.input = argv[i];
    } else {
      throw UsageError{"more than one input file (" + o.input + ", " + argv[i] + ")"};
    }
  }
  if (o.input.empty())
    throw UsageError{"no input file (use - for standard input)"};
  if (o.passes && o.emit != "lowered")
    throw UsageError{"--passes goes with --emit=lowered"};
  return o;
}

std::string read_input(const std::string &path) {
  std::ostringstream text;
  if (path == "-") {
    text << std::cin.rdbuf();
    return text.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw loom::Error(path + ": cannot open the file");
  text << in.rdbuf();
  return text.str();
}

// Every stage comes from the library's own stage calls on the kernels of a loom::Module, so
// what is printed is what a call of the same variant compiles.
std::string emit(const Options &o, const loom::Module &module,
                 const std::vector<std::string> &names) {
  std::string out;
  for (const std::string &name : names) {
    const loom::Kernel &k = module[name];
    if (o.emit == "ptx") {
      loom::VariantRequest gpu = o.variant;
      gpu.target = loom::Target::GPU;
      if (o.print_variant)
        std::fprintf(stderr, "%s: %s\n", name.c_str(), k.variant(gpu).to_string().c_str());
      out += k.ptx(gpu);
      continue;
    }
    if (o.print_variant)
      std::fprintf(stderr, "%s: %s\n", name.c_str(), k.variant(o.variant).to_string().c_str());
    if (o.emit == "ir")
      out += k.ir_text();
    else if (o.emit == "lowered")
      out += k.lowered(o.variant, o.passes);
    else
      out += k.llvm(o.variant, o.emit == "llvm-opt");
  }
  return out;
}

int run(const Options &o) {
  std::string source = read_input(o.input);
  std::string name = o.input == "-" ? "<stdin>" : o.input;
  loom::Module module = loom::compile(source, name);
  std::vector<std::string> kernels = module.names();
  auto list = [&] {
    std::string all;
    for (const std::string &k : kernels)
      all += (all.empty() ? "" : ", ") + k;
    return all;
  };
  if (!o.kernel.empty()) {
    if (!module.contains(o.kernel))
      throw loom::Error(name + ": no kernel named '" + o.kernel +
                        "' (kernels: " + (kernels.empty() ? "none" : list()) + ")");
    kernels = {o.kernel};
  }
  if (kernels.empty())
    throw loom::Error(name + ": no @kernel function");
  if (kernels.size() > 1 && o.emit != "ir" && o.emit != "lowered")
    throw UsageError{name + " defines " + std::to_string(kernels.size()) + " kernels (" + list() +
                     "); choose one with --kernel=NAME for --emit=" + o.emit};
  std::string text = emit(o, module, kernels);
  if (o.output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    std::ofstream out(o.output, std::ios::binary);
    out << text;
    if (!out)
      throw loom::Error(o.output + ": cannot write the file");
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return run(parse_options(argc, argv));
  } catch (const UsageError &e) {
    std::fprintf(stderr, "dsl-to-ptx: %s\n(dsl-to-ptx --help lists the options)\n",
                 e.message.c_str());
    return 2;
  } catch (const loom::SourceError &e) {
    std::fputs(e.what(), stderr);
    return 1;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "dsl-to-ptx: error: %s\n", e.what());
    return 1;
  }
}
