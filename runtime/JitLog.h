// The log buffers the driver's PTX JIT and linker write their messages into (GpuModule.cpp,
// GpuLinker.cpp).
#pragma once

#include "runtime/CudaApi.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace loom::runtime {

// An error log and an info log, passed as four JIT options. ptxas stops writing at the size
// given, so a longer log is cut, not lost in a crash.
class JitLogs {
public:
  static constexpr size_t capacity = 16 * 1024;
  static constexpr unsigned option_count = 4;

  JitLogs() : error_(capacity, '\0'), info_(capacity, '\0') {
    // Option values are passed in pointer-sized slots; sizes go in as integers, not addresses.
    values_[0] = error_.data();
    values_[1] = reinterpret_cast<void *>(uintptr_t{capacity});
    values_[2] = info_.data();
    values_[3] = reinterpret_cast<void *>(uintptr_t{capacity});
  }
  JitLogs(const JitLogs &) = delete;
  JitLogs &operator=(const JitLogs &) = delete;

  CUjit_option *options() { return options_; }
  void **values() { return values_; }
  // What the JIT wrote; it reports the bytes used (with the terminating NUL) in place of the size
  // option's value.
  std::string errors() const { return text(error_, values_[1]); }
  std::string info() const { return text(info_, values_[3]); }
  // "\nJIT error log:\n..." for an error message, or "" when the log is empty.
  std::string error_detail(const char *what = "JIT") const {
    std::string log = errors();
    return log.empty() ? "" : "\n" + std::string(what) + " error log:\n" + log;
  }

private:
  static std::string text(const std::vector<char> &buffer, void *reported_size) {
    size_t used = reinterpret_cast<uintptr_t>(reported_size);
    if (used > buffer.size())
      used = buffer.size();
    std::string out(buffer.data(), strnlen(buffer.data(), used));
    while (!out.empty() && (out.back() == '\n' || out.back() == '\0'))
      out.pop_back();
    return out;
  }

  std::vector<char> error_, info_;
  CUjit_option options_[option_count] = {CU_JIT_ERROR_LOG_BUFFER,
                                         CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                                         CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *values_[option_count] = {};
};

} // namespace loom::runtime
