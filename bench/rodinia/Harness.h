// What every Rodinia driver shares: its command line, the peer program it runs (Rodinia's OpenMP
// version on the CPU, its CUDA version on the GPU, each a separate executable built from the
// vendored sources), the arrays loom's kernel takes on either target, best-of-N timing, the
// comparison of results and the one row each driver prints.
#pragma once

#include <loom/loom.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rodinia {

struct Options {
  bool small = false; // --size=small: CI's correctness check (default: Rodinia's)
  loom::Target target = loom::Target::CPU; // --target=cpu|gpu
  // --peer=PATH: the peer program; on the CPU, by default, the OpenMP one beside this program.
  // The GPU needs one (the CUDA peers are built by build_cuda.sh, on the machine with nvcc).
  std::filesystem::path peer;
  int threads = 0;   // --threads=N: the OpenMP peer's and loom's CPU threads (default: all cores)
  int repeats = 0;   // --repeats=N: timed runs of each, the best kept (default 5; small: 1)
  bool keep = false; // --keep: keep the folder of input and output files, and say where it is

  // --peer-kind=openmp|cuda: which of Rodinia's versions the peer is, for its command line
  // (default: OpenMP on the CPU, CUDA on the GPU; a kernel without a CUDA peer is checked on the
  // GPU against the OpenMP one).
  bool cuda_peer = false;

  bool gpu() const { return target == loom::Target::GPU; }
  const char *peer_name() const { return cuda_peer ? "cuda" : "openmp"; }
};

// Reads the options above; `peer_program` is the OpenMP peer's file name (rodinia_omp_hotspot).
// Prints a usage line and exits on an unknown option.
Options parse_options(int argc, char **argv, const std::string &peer_program);

// A fresh folder for the peer's input and output files, removed at the end unless --keep.
class WorkDir {
public:
  explicit WorkDir(bool keep);
  ~WorkDir();
  WorkDir(const WorkDir &) = delete;
  WorkDir &operator=(const WorkDir &) = delete;
  const std::filesystem::path &path() const { return path_; }
  std::filesystem::path operator/(const std::string &name) const { return path_ / name; }

private:
  std::filesystem::path path_;
  bool keep_;
};

// One run of a peer program: what it printed (stdout and stderr) and the time it measured
// around its kernels (its `RODINIA_KERNEL_MS` line, ADAPTATIONS.md).
struct PeerRun {
  std::string output;
  double ms = 0;
};
// Runs `program args...` in `dir` with OMP_NUM_THREADS=`threads` (and CUDA_MODULE_LOADING=EAGER,
// so that the CUDA peer's first launch does not load its module inside the timed region), as many
// times as `repeats` asks; returns the first run's output with the best time. Throws
// std::runtime_error when the program fails or prints no time.
PeerRun run_peer(const std::filesystem::path &program, const std::vector<std::string> &args,
                 const std::filesystem::path &dir, int threads, int repeats);

// The best of `repeats` timed calls of `call`, each after `reset` (untimed), which restores the
// inputs the kernel overwrites; one untimed reset and call come first (the compile, the thread
// pool). The results of the last call are in place afterwards.
double best_ms(int repeats, const std::function<void()> &reset, const std::function<void()> &call);

// An array as loom's kernel takes it on the target of `options`: host memory on the CPU, device
// memory on the GPU (so that the GPU's time, like the CUDA peer's, leaves the host copies out).
template <class T> class KernelArray {
public:
  KernelArray(const Options &options, std::vector<T> values, std::vector<int64_t> shape)
      : host_(std::move(values)), shape_(std::move(shape)) {
    if (options.gpu())
      device_.emplace(host_, shape_);
  }
  // Replaces the elements (on the device too).
  void assign(const std::vector<T> &values) {
    host_ = values;
    if (device_)
      device_->copy_from_host(host_.data());
  }
  // The elements now (copied from the device first).
  const std::vector<T> &values() {
    if (device_)
      device_->copy_to_host(host_.data());
    return host_;
  }
  loom::Argument argument() {
    return device_ ? loom::to_argument(*device_) : loom::to_argument(loom::view(host_, shape_));
  }

private:
  std::vector<T> host_;
  std::vector<int64_t> shape_;
  std::optional<loom::DeviceArray<T>> device_;
};

template <class T> loom::Argument argument(KernelArray<T> &array) {
  return array.argument();
}
template <class U> loom::Argument argument(U &&value) {
  return loom::to_argument(std::forward<U>(value));
}
// kernel(args...) where arrays may be KernelArrays.
template <class... Args> void call(loom::Kernel &kernel, Args &&...args) {
  loom::Argument packed[] = {argument(args)...};
  kernel.call(packed);
}

// The largest |got - ref| / max(|ref|, floor) over the elements (NaN anywhere, or different
// counts: infinite).
double max_relative_error(const std::vector<float> &got, const std::vector<float> &ref,
                          double floor = 1e-30);

// The kernel compiled from its .loom source (embedded at build time), on the options' target.
loom::Kernel load_kernel(const Options &options, const char *source, const char *file,
                         const std::string &name);

// Prints the row of the table (kernel, size, loom and peer times, peer/loom, the check) and the
// `RESULT name value unit` lines scripts collect; returns the exit status (0: PASS).
int report(const Options &options, const std::string &kernel, const std::string &size,
           double loom_ms, double peer_ms, const std::string &check, double error,
           double tolerance);

// Runs `body` and turns an exception into a FAIL line and exit status 1.
int guarded(const std::string &kernel, const std::function<int()> &body);

// create_matrix of Rodinia's lud (lamda -0.001) and gaussian (-0.01): the symmetric Toeplitz
// matrix 10 exp(lamda |i - j|), size x size, row-major, in the peer's types. A C peer's exp
// takes the float product lamda * i in double (`float_exp` false); a C++ peer's host code calls
// the float overload, and 10 times it is a float product (`float_exp` true: gaussian.cu).
std::vector<float> create_matrix(int size, float lamda, bool float_exp);

// Deterministic inputs: splitmix64's stream from `seed`, uniform in [0, 1).
class Random {
public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * 0x1p-53; }

private:
  uint64_t state_;
};

// Text files in the formats Rodinia's programs read and write.
void write_lines(const std::filesystem::path &file, const std::vector<float> &values);
// The last number of each line ("index\tvalue" or "value"), as floats.
std::vector<float> read_last_column(const std::filesystem::path &file);
// The values of a file the peer wrote with fwrite.
std::vector<char> read_bytes(const std::filesystem::path &file);
template <class T> std::vector<T> read_binary(const std::filesystem::path &file) {
  std::vector<char> bytes = read_bytes(file);
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}
inline std::vector<float> read_floats(const std::filesystem::path &file) {
  return read_binary<float>(file);
}

} // namespace rodinia
