// The typed exceptions loom raises for user errors. Internal invariants are asserts, not these.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace loom {

// Base of every error loom reports to its user.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Misuse of the embedded DSL while tracing (e.g. a DSL value used outside a kernel body).
class DslError : public Error {
public:
  using Error::Error;
};

// The IR failed verification: a bug in a front end or a pass, or a kernel that is ill-formed.
class VerifyError : public Error {
public:
  using Error::Error;
};

// A program compiled against the headers of another loom version than the library it loaded.
class VersionError : public Error {
public:
  using Error::Error;
};

// A call with the wrong number, types, ranks or shapes of arguments.
class ArgumentError : public Error {
public:
  using Error::Error;
};

// The requested target cannot be used (e.g. LOOM_TARGET=gpu with no usable GPU).
class TargetError : public Error {
public:
  using Error::Error;
};

// A compile cache setting is not valid (e.g. LOOM_CACHE=maybe). Bad cache files are not errors:
// loom ignores them and compiles.
class CacheError : public Error {
public:
  using Error::Error;
};

// LLVM, libdevice or PTX compilation failed.
class CompileError : public Error {
public:
  using Error::Error;
};

// The IR interpreter stopped a kernel: an index out of bounds (naming the array, the index and the
// extent), the step limit (a loop that does not end), a data race or a deadlocked SIMT block.
class InterpreterError : public Error {
public:
  using Error::Error;
};

// The threads of a SIMT block run on the CPU deadlocked: every unfinished one waits at a barrier
// or a warp collective that cannot complete (they wait at different sync points, e.g. a barrier
// in a branch not all threads take). A call of compiled CPU code throws it; the interpreter
// reports the same as an InterpreterError naming the kernel and the block. On the GPU such a
// kernel is undefined behaviour.
class DeadlockError : public Error {
public:
  using Error::Error;
};

// A CUDA driver call failed; names the call and the CUDA error.
class DriverError : public Error {
public:
  DriverError(std::string call, int code, std::string code_name, const std::string &message)
      : Error(message), call_(std::move(call)), code_(code), code_name_(std::move(code_name)) {}
  const std::string &call() const { return call_; }
  int code() const { return code_; }
  const std::string &code_name() const { return code_name_; }

private:
  std::string call_;
  int code_;
  std::string code_name_;
};

// PTX could not be linked to machine code by the linker LOOM_PTX_LINKER asked for (nvJitLink,
// runtime/NvJitLink.h), or that setting is not valid. call() and code_name() name the failed
// call and its result ("nvJitLinkComplete", "NVJITLINK_ERROR_PTX_COMPILE"), log() is the linker's
// error log; the message has all three, or says why the linker cannot be used.
class LinkerError : public Error {
public:
  explicit LinkerError(const std::string &message, std::string call = "", int code = 0,
                       std::string code_name = "", std::string log = "")
      : Error(message), call_(std::move(call)), code_(code), code_name_(std::move(code_name)),
        log_(std::move(log)) {}
  const std::string &call() const { return call_; }
  int code() const { return code_; }
  const std::string &code_name() const { return code_name_; }
  const std::string &log() const { return log_; }

private:
  std::string call_;
  int code_;
  std::string code_name_, log_;
};

// Device memory could not be allocated; the message gives the size asked for and the free memory.
class OutOfMemoryError : public DriverError {
public:
  using DriverError::DriverError;
};

// A bounds-checked kernel (Kernel::bounds_check, LOOM_BOUNDS_CHECK=1) indexed an array out of its
// extent. The first violation the kernel recorded: "kernel 'k': index 1000 is out of bounds for
// dimension 0 of array 'x' (extent 1000)". Host arrays are not copied back from the GPU after one.
class BoundsError : public Error {
public:
  BoundsError(std::string kernel, std::string array, int dimension, int64_t index, int64_t extent)
      : Error("kernel '" + kernel + "': index " + std::to_string(index) +
              " is out of bounds for dimension " + std::to_string(dimension) + " of array '" +
              array + "' (extent " + std::to_string(extent) + ")"),
        kernel_(std::move(kernel)), array_(std::move(array)), dimension_(dimension), index_(index),
        extent_(extent) {}
  const std::string &kernel() const { return kernel_; }
  const std::string &array() const { return array_; }
  int dimension() const { return dimension_; }
  int64_t index() const { return index_; }
  int64_t extent() const { return extent_; }

private:
  std::string kernel_, array_;
  int dimension_;
  int64_t index_, extent_;
};

// The GPU context was made unusable by an earlier failure (an illegal address, a device-side
// trap, ...: the driver's sticky errors). Thrown at once by every later GPU operation of the
// process, without calling the driver; call(), code() and code_name() are those of the failure
// that poisoned the context. The process must restart to use the GPU again (the CPU target
// still works).
class ContextPoisonedError : public DriverError {
public:
  using DriverError::DriverError;
};

// An assertion in a kernel failed (`assert cond, "message"` in the text DSL, loom::check in C++):
// the first failure the call recorded, and how many failed. "kernel 'scale': assertion failed at
// model.loom:12: weights are positive (i=5, j=3); 3 failures". Host arrays are not copied back
// from the GPU after one, and the GPU stays usable.
class KernelAssertionError : public Error {
public:
  using Indices = std::vector<std::pair<std::string, int64_t>>; // name, value
  KernelAssertionError(std::string kernel, std::string message, std::string file, int line,
                       Indices indices, uint64_t failures)
      : Error(describe(kernel, message, file, line, indices, failures)), kernel_(std::move(kernel)),
        message_(std::move(message)), file_(std::move(file)), line_(line),
        indices_(std::move(indices)), failures_(failures) {}
  const std::string &kernel() const { return kernel_; }
  const std::string &message() const { return message_; }
  const std::string &file() const { return file_; }
  int line() const { return line_; }
  // The failing iteration's indices (its parallel loops' variables, outermost first), or a SIMT
  // thread's blockIdx and threadIdx; empty for an assertion outside parallel loops.
  const Indices &indices() const { return indices_; }
  uint64_t failures() const { return failures_; } // failed assertions in the call, at least 1

private:
  static std::string describe(const std::string &kernel, const std::string &message,
                              const std::string &file, int line, const Indices &indices,
                              uint64_t failures) {
    std::string s = "kernel '" + kernel + "': assertion failed";
    if (!file.empty())
      s += " at " + file + ":" + std::to_string(line);
    if (!message.empty())
      s += ": " + message;
    for (size_t k = 0; k < indices.size(); ++k)
      s += (k ? ", " : " (") + indices[k].first + "=" + std::to_string(indices[k].second) +
           (k + 1 == indices.size() ? ")" : "");
    s += "; " + std::to_string(failures) + (failures == 1 ? " failure" : " failures");
    return s;
  }
  std::string kernel_, message_, file_;
  int line_;
  Indices indices_;
  uint64_t failures_;
};

} // namespace loom
