#include "support/Settings.h"

#include "support/Error.h"

#include <cerrno>
#include <cstdlib>
#include <string_view>

namespace loom::settings {

namespace {

using enum Reading;

// The one table. `meaning` is the short form; docs/environment.md says more of each.
constexpr Variable table[] = {
    {"LOOM_TARGET", "auto|gpu|cpu", "auto", EachUse,
     "where kernels run (auto: the GPU when the driver loads and a device exists)"},
    {"LOOM_DUMP", "1 (any value)", "off", Once, "print the IR after every lowering pass to stderr"},
    {"LOOM_VERIFY_EACH_PASS", "1 (any value)", "off", Once,
     "verify loom's IR after every lowering pass, and LLVM's after every LLVM pass"},
    {"LOOM_LIBDEVICE", "path", "the CUDA installation's", Once, "libdevice.10.bc for GPU math"},
    {"LOOM_CUDA_DRIVER", "path", "libcuda.so.1", Once, "the CUDA driver library to load"},
    {"LOOM_DEVICE", "a device number, or local-rank", "0", Once,
     "the GPU of kernels, arrays and streams that name none (local-rank: one per MPI rank)"},
    {"LOOM_PTX_LINKER", "auto|nvjitlink|driver", "driver", EachUse,
     "what turns PTX into machine code: the driver's linker or nvJitLink in the process"},
    {"LOOM_NVJITLINK", "path", "libnvJitLink.so.13, .so.12, .so, searched for", Once,
     "the nvJitLink library to load"},
    {"LOOM_NUM_THREADS", "a positive integer", "OpenMP's", EachUse,
     "CPU threads for parallel loops (loom::set_cpu_threads overrides it)"},
    {"LOOM_CACHE", "on|off|read|write", "on", EachUse, "the disk cache of compiled code"},
    {"LOOM_CACHE_DIR", "path", "$XDG_CACHE_HOME/loom, else ~/.cache/loom", EachUse,
     "where the disk cache lives"},
    {"LOOM_BOUNDS_CHECK", "1 (any value but 0)", "off", EachUse,
     "every kernel created while it is set checks its array accesses"},
    {"LOOM_ASSERTS", "0|1", "1", EachUse,
     "0: kernels created while it is set compile their assertions out"},
    {"LOOM_INDEX_BITS", "32|64", "32", Once,
     "GPU index arithmetic in 64 bits even where the arrays allow 32"},
    {"LOOM_GRID_STRIDE", "0|1", "0", Once,
     "GPU parallel loops as grid-stride loops even where the grid covers the domain"},
    {"LOOM_OVERLAP_LAUNCHES", "0|1", "1", Once,
     "0: a task loop's GPU launches without programmatic dependent launch"},
    {"LOOM_STEPS_PER_LAUNCH", "1 to 32", "16", Once,
     "the steps of a loop around a 1-D stencil one GPU launch computes; 1: one a launch"},
    {"LOOM_STAGE_BLOCK_READS", "0|1", "1", Once,
     "0: GPU parallel loops keep their mapping where a block could share a loop's reads"},
    {"LOOM_TIERED", "0|1|quick", "0", Once,
     "1: every GPU kernel is tiered; quick: quick code only, no optimized code"},
    {"LOOM_PRINT_BUFFER", "bytes, a positive integer", "the driver's (1 MiB)", Once,
     "the GPU's buffer of print() output (loom::set_print_buffer overrides it)"},
    {"LOOM_LLVM_ARGS", "options", "none", Once,
     "options for LLVM's own command-line parser, as llc or opt takes them"},
};

// The table's row of `name`; a name not in the table does not compile.
consteval const Variable &row(std::string_view name) {
  for (const Variable &v : table)
    if (name == v.name)
      return v;
  throw "not a variable of the settings table";
}

// The position of `word` among v's words ("auto|gpu|cpu"), or -1.
constexpr int word_index(const Variable &v, std::string_view word) {
  std::string_view words = v.values;
  for (int i = 0;; ++i) {
    size_t bar = words.find('|');
    if (words.substr(0, bar) == word)
      return i;
    if (bar == std::string_view::npos)
      return -1;
    words.remove_prefix(bar + 1);
  }
}

// The enums of the words, checked against the table.
static_assert(word_index(row("LOOM_TARGET"), "auto") == int(Target::Auto));
static_assert(word_index(row("LOOM_TARGET"), "gpu") == int(Target::Gpu));
static_assert(word_index(row("LOOM_TARGET"), "cpu") == int(Target::Cpu));
static_assert(word_index(row("LOOM_CACHE"), "on") == int(CacheMode::On));
static_assert(word_index(row("LOOM_CACHE"), "off") == int(CacheMode::Off));
static_assert(word_index(row("LOOM_CACHE"), "read") == int(CacheMode::Read));
static_assert(word_index(row("LOOM_CACHE"), "write") == int(CacheMode::Write));
static_assert(word_index(row("LOOM_PTX_LINKER"), "auto") == int(PtxLinker::Auto));
static_assert(word_index(row("LOOM_PTX_LINKER"), "nvjitlink") == int(PtxLinker::NvJitLink));
static_assert(word_index(row("LOOM_PTX_LINKER"), "driver") == int(PtxLinker::Driver));
static_assert(word_index(row("LOOM_TIERED"), "0") == int(Tiered::Off));
static_assert(word_index(row("LOOM_TIERED"), "1") == int(Tiered::On));
static_assert(word_index(row("LOOM_TIERED"), "quick") == int(Tiered::QuickOnly));

// The variable's value; nullopt when it is unset or empty.
std::optional<std::string> read(const Variable &v) {
  const char *text = std::getenv(v.name);
  if (!text || !*text)
    return std::nullopt;
  return std::string(text);
}

// "on, off, read or write": v's words for a message.
std::string choices(const Variable &v) {
  std::string_view words = v.values;
  size_t last = words.rfind('|');
  std::string text(words.substr(0, last));
  for (size_t bar; (bar = text.find('|')) != std::string::npos;)
    text.replace(bar, 1, ", ");
  return text + " or " + std::string(words.substr(last + 1));
}

using Message = std::string (*)(const Variable &v, const std::string &value);

// "LOOM_TIERED=2: expected 0, 1 or quick"
std::string expected_words(const Variable &v, const std::string &value) {
  return std::string(v.name) + "=" + value + ": expected " + choices(v);
}

// The word v is set to (its fallback when unset) as E, whose enumerators are v's words in order.
// Throws Failure(message(v, value)) for any other value.
template <class E, class Failure = Error>
E word(const Variable &v, Message message = expected_words) {
  std::string value = read(v).value_or(v.fallback);
  int index = word_index(v, value);
  if (index < 0)
    throw Failure(message(v, value));
  return static_cast<E>(index);
}

} // namespace

std::span<const Variable> variables() {
  return table;
}

Target target() {
  return word<Target, TargetError>(
      row("LOOM_TARGET"), [](const Variable &v, const std::string &value) {
        return std::string(v.name) + "='" + value + "' is not a target; expected " + choices(v);
      });
}

CacheMode cache_mode() {
  return word<CacheMode, CacheError>(
      row("LOOM_CACHE"), [](const Variable &v, const std::string &value) {
        return std::string(v.name) + "='" + value + "' is not a cache mode; expected " + choices(v);
      });
}

std::optional<std::string> cache_dir() {
  return read(row("LOOM_CACHE_DIR"));
}

std::optional<int> num_threads() {
  constexpr const Variable &v = row("LOOM_NUM_THREADS");
  std::optional<std::string> text = read(v);
  if (!text)
    return std::nullopt;
  errno = 0;
  char *end = nullptr;
  long value = std::strtol(text->c_str(), &end, 10);
  if (errno != 0 || end == text->c_str() || *end != '\0' || value <= 0 || value > 1 << 20)
    throw ArgumentError(std::string(v.name) + " must be a positive integer, got '" + *text + "'");
  return static_cast<int>(value);
}

std::optional<size_t> print_buffer() {
  static const std::optional<size_t> bytes = []() -> std::optional<size_t> {
    constexpr const Variable &v = row("LOOM_PRINT_BUFFER");
    std::optional<std::string> text = read(v);
    if (!text)
      return std::nullopt;
    errno = 0;
    char *end = nullptr;
    long long value = std::strtoll(text->c_str(), &end, 10);
    if (errno != 0 || end == text->c_str() || *end != '\0' || value <= 0)
      throw ArgumentError(std::string(v.name) + " must be a positive number of bytes, got '" +
                          *text + "'");
    return static_cast<size_t>(value);
  }();
  return bytes;
}

PtxLinker ptx_linker() {
  // The driver's by default: on the H200 nvJitLink 13.0 took as long (saxpy 13.8 ms against 13.5,
  // the naive matmul 40.0 against 38.2; bench/RESULTS.md) and costs a load of its 100 MB library.
  return word<PtxLinker, LinkerError>(
      row("LOOM_PTX_LINKER"), [](const Variable &v, const std::string &value) {
        return std::string(v.name) + "=" + value + " is not valid: use " + choices(v);
      });
}

bool ptx_linker_set() {
  return read(row("LOOM_PTX_LINKER")).has_value();
}

bool bounds_check() {
  return read(row("LOOM_BOUNDS_CHECK")).value_or("0") != "0";
}

bool asserts() {
  return word<int>(row("LOOM_ASSERTS")) == 1;
}

const std::optional<std::string> &cuda_driver() {
  static const std::optional<std::string> path = read(row("LOOM_CUDA_DRIVER"));
  return path;
}

const std::optional<std::string> &device() {
  static const std::optional<std::string> value = read(row("LOOM_DEVICE"));
  return value;
}

const std::optional<std::string> &nvjitlink() {
  static const std::optional<std::string> path = read(row("LOOM_NVJITLINK"));
  return path;
}

const std::optional<std::string> &libdevice() {
  static const std::optional<std::string> path = read(row("LOOM_LIBDEVICE"));
  return path;
}

const std::string &llvm_args() {
  static const std::string options = read(row("LOOM_LLVM_ARGS")).value_or("");
  return options;
}

bool dump_ir() {
  static const bool on = read(row("LOOM_DUMP")).has_value();
  return on;
}

bool verify_each_pass() {
  static const bool on = read(row("LOOM_VERIFY_EACH_PASS")).has_value();
  return on;
}

// A value that fails to validate leaves these unset, so that each later use throws again.

int index_bits() {
  static const int bits = word<int>(row("LOOM_INDEX_BITS")) == 0 ? 32 : 64;
  return bits;
}

bool grid_stride() {
  static const bool on = word<int>(row("LOOM_GRID_STRIDE")) == 1;
  return on;
}

bool overlap_launches() {
  static const bool on = word<int>(row("LOOM_OVERLAP_LAUNCHES")) == 1;
  return on;
}

int steps_per_launch() {
  static const int steps = [] {
    constexpr const Variable &v = row("LOOM_STEPS_PER_LAUNCH");
    const std::string text = read(v).value_or(v.fallback);
    errno = 0;
    char *end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (errno != 0 || end == text.c_str() || *end != '\0' || value < 1 || value > 32)
      throw ArgumentError(std::string(v.name) + " must be an integer from 1 to 32, got '" + text +
                          "'");
    return static_cast<int>(value);
  }();
  return steps;
}

bool stage_block_reads() {
  static const bool on = word<int>(row("LOOM_STAGE_BLOCK_READS")) == 1;
  return on;
}

Tiered tiered() {
  static const Tiered setting = word<Tiered>(row("LOOM_TIERED"));
  return setting;
}

} // namespace loom::settings
