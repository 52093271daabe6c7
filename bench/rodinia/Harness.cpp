#include "Harness.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <unistd.h>

namespace rodinia {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void usage(const char *program, const std::string &why) {
  std::fprintf(stderr,
               "%s: %s\nusage: %s [--size=small|default] [--target=cpu|gpu] [--peer=PATH] "
               "[--peer-kind=openmp|cuda] [--threads=N] [--repeats=N] [--keep]\n",
               program, why.c_str(), program);
  std::exit(2);
}

int positive(const char *program, const std::string &option, const std::string &text) {
  char *end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value <= 0 || value > 1 << 20)
    usage(program, option + " takes a positive integer, not '" + text + "'");
  return int(value);
}

// The folder of this program: the OpenMP peers are built and installed beside the drivers.
fs::path own_folder() {
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  return error ? fs::current_path() : self.parent_path();
}

std::string quoted(const std::string &word) {
  std::string q = "'";
  for (char c : word)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

} // namespace

Options parse_options(int argc, char **argv, const std::string &peer_program) {
  Options o;
  std::string peer_kind;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *prefix) -> std::optional<std::string> {
      size_t n = std::char_traits<char>::length(prefix);
      if (arg.compare(0, n, prefix) == 0)
        return arg.substr(n);
      return std::nullopt;
    };
    if (auto v = value("--size=")) {
      if (*v != "small" && *v != "default")
        usage(argv[0], "--size is small or default, not '" + *v + "'");
      o.small = *v == "small";
    } else if (auto v = value("--target=")) {
      if (*v != "cpu" && *v != "gpu")
        usage(argv[0], "--target is cpu or gpu, not '" + *v + "'");
      o.target = *v == "gpu" ? loom::Target::GPU : loom::Target::CPU;
    } else if (auto v = value("--peer=")) {
      o.peer = fs::absolute(*v); // the peer runs in its own folder
    } else if (auto v = value("--peer-kind=")) {
      if (*v != "openmp" && *v != "cuda")
        usage(argv[0], "--peer-kind is openmp or cuda, not '" + *v + "'");
      peer_kind = *v;
    } else if (auto v = value("--threads=")) {
      o.threads = positive(argv[0], "--threads", *v);
    } else if (auto v = value("--repeats=")) {
      o.repeats = positive(argv[0], "--repeats", *v);
    } else if (arg == "--keep") {
      o.keep = true;
    } else {
      usage(argv[0], "unknown option '" + arg + "'");
    }
  }
  o.cuda_peer = peer_kind.empty() ? o.gpu() : peer_kind == "cuda";
  if (o.threads == 0)
    o.threads = int(std::max(1u, std::thread::hardware_concurrency()));
  if (o.repeats == 0)
    o.repeats = o.small ? 1 : 5;
  if (o.peer.empty()) {
    if (o.gpu())
      usage(argv[0], "--target=gpu needs --peer=PATH, the CUDA peer (bench/rodinia/build_cuda.sh)");
    o.peer = own_folder() / peer_program;
  }
  loom::set_cpu_threads(o.threads);
  return o;
}

WorkDir::WorkDir(bool keep) : keep_(keep) {
  std::string pattern = (fs::temp_directory_path() / "loom-rodinia-XXXXXX").string();
  if (!mkdtemp(pattern.data()))
    throw std::runtime_error("cannot create a folder " + pattern);
  path_ = pattern;
  if (keep_)
    std::printf("inputs and outputs in %s\n", path_.c_str());
}

WorkDir::~WorkDir() {
  std::error_code ignored;
  if (!keep_)
    fs::remove_all(path_, ignored);
}

PeerRun run_peer(const fs::path &program, const std::vector<std::string> &args, const fs::path &dir,
                 int threads, int repeats) {
  if (!fs::exists(program))
    throw std::runtime_error("the peer program " + program.string() + " does not exist");
  // Rodinia's programs leave some of their memory to the exit, which is no fault: under
  // AddressSanitizer (CI's sanitizer stage) the peer runs without the leak check.
  std::string command = "cd " + quoted(dir.string()) +
                        " && OMP_NUM_THREADS=" + std::to_string(threads) +
                        " CUDA_MODULE_LOADING=EAGER"
                        " ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" exec " +
                        quoted(program.string());
  for (const std::string &arg : args)
    command += " " + quoted(arg);
  command += " 2>&1";
  PeerRun best;
  best.ms = std::numeric_limits<double>::infinity();
  for (int r = 0; r < repeats; ++r) {
    FILE *pipe = popen(command.c_str(), "r");
    if (!pipe)
      throw std::runtime_error("cannot run " + command);
    std::string output;
    char buffer[1 << 16];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0)
      output.append(buffer, n);
    int status = pclose(pipe);
    const std::string tail = output.substr(output.size() > 2000 ? output.size() - 2000 : 0);
    if (status != 0)
      throw std::runtime_error(command + " failed (status " + std::to_string(status) +
                               "); its output ends:\n" + tail);
    size_t at = output.find("RODINIA_KERNEL_MS ");
    if (at == std::string::npos)
      throw std::runtime_error(command + " printed no RODINIA_KERNEL_MS line; its output ends:\n" +
                               tail);
    double ms = std::strtod(output.c_str() + at + 18, nullptr);
    if (r == 0)
      best.output = std::move(output);
    best.ms = std::min(best.ms, ms);
  }
  return best;
}

double best_ms(int repeats, const std::function<void()> &reset, const std::function<void()> &call) {
  reset();
  call();
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < repeats; ++r) {
    reset();
    auto start = std::chrono::steady_clock::now();
    call();
    best = std::min(
        best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                  .count());
  }
  return best;
}

double max_relative_error(const std::vector<float> &got, const std::vector<float> &ref,
                          double floor) {
  if (got.size() != ref.size())
    return INFINITY;
  double worst = 0;
  for (size_t k = 0; k < got.size(); ++k) {
    double e = std::fabs(double(got[k]) - ref[k]) / std::max(std::fabs(double(ref[k])), floor);
    if (!(e <= worst))
      worst = std::isnan(e) ? INFINITY : e;
  }
  return worst;
}

loom::Kernel load_kernel(const Options &options, const char *source, const char *file,
                         const std::string &name) {
  loom::Module module = loom::compile(source, file);
  loom::Kernel kernel = module[name];
  kernel.on(options.target);
  return kernel;
}

int report(const Options &options, const std::string &kernel, const std::string &size,
           double loom_ms, double peer_ms, const std::string &check, double error,
           double tolerance) {
  const bool pass = error <= tolerance; // written so that a NaN error fails
  const char *target = options.gpu() ? "gpu" : "cpu";
  std::printf("rodinia.%s %s on the %s: loom %.3f ms, %s %.3f ms, %s/loom %.2fx; %s (%s %.3g, "
              "tolerance %.3g)\n",
              kernel.c_str(), size.c_str(), target, loom_ms, options.peer_name(), peer_ms,
              options.peer_name(), peer_ms / loom_ms, pass ? "PASS" : "FAIL", check.c_str(), error,
              tolerance);
  // The row again, tab-separated, for run.sh's table.
  std::printf("ROW\t%s\t%s\t%s\t%.6g\t%s\t%.6g\t%s\n", kernel.c_str(), size.c_str(), target,
              loom_ms, options.peer_name(), peer_ms, pass ? "PASS" : "FAIL");
  std::string key = "rodinia_" + kernel + "_" + target;
  std::printf("RESULT %s_loom_ms %.6g ms\n", key.c_str(), loom_ms);
  std::printf("RESULT %s_%s_ms %.6g ms\n", key.c_str(), options.peer_name(), peer_ms);
  std::printf("RESULT %s_speed_ratio %.6g x\n", key.c_str(), peer_ms / loom_ms);
  std::fflush(stdout);
  return pass ? 0 : 1;
}

std::vector<float> create_matrix(int size, float lamda, bool float_exp) {
  std::vector<float> coe(2 * size_t(size) - 1);
  for (int i = 0; i < size; i++) {
    const float coe_i =
        float_exp ? 10 * std::exp(lamda * i) : float(10 * std::exp(double(lamda * i)));
    coe[size - 1 + i] = coe_i;
    coe[size - 1 - i] = coe_i;
  }
  std::vector<float> m(size_t(size) * size);
  for (int i = 0; i < size; i++)
    for (int j = 0; j < size; j++)
      m[size_t(i) * size + j] = coe[size - 1 - i + j];
  return m;
}

int guarded(const std::string &kernel, const std::function<int()> &body) {
  try {
    return body();
  } catch (const std::exception &e) {
    std::printf("rodinia.%s: FAIL: %s\n", kernel.c_str(), e.what());
    return 1;
  }
}

void write_lines(const fs::path &file, const std::vector<float> &values) {
  FILE *out = std::fopen(file.c_str(), "w");
  if (!out)
    throw std::runtime_error("cannot write " + file.string());
  for (float v : values)
    std::fprintf(out, "%.9g\n", double(v)); // every digit: the peer reads back the same float
  std::fclose(out);
}

std::vector<float> read_last_column(const fs::path &file) {
  std::ifstream in(file);
  if (!in)
    throw std::runtime_error("the peer wrote no " + file.string());
  std::vector<float> values;
  std::string line;
  while (std::getline(in, line)) {
    size_t end = line.find_last_not_of(" \t\r");
    if (end == std::string::npos)
      continue;
    size_t begin = line.find_last_of(" \t", end);
    values.push_back(
        std::strtof(line.c_str() + (begin == std::string::npos ? 0 : begin + 1), nullptr));
  }
  return values;
}

std::vector<char> read_bytes(const fs::path &file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw std::runtime_error("the peer wrote no " + file.string());
  std::vector<char> bytes(fs::file_size(file));
  in.read(bytes.data(), std::streamsize(bytes.size()));
  return bytes;
}

} // namespace rodinia
