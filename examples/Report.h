// Small helpers the examples share: where a kernel ran, timing, and a PASS/FAIL line.
#pragma once

#include <loom/loom.hpp>

#include <chrono>
#include <cstdio>
#include <string>

namespace example {

// "GPU NVIDIA H200" or "CPU, because: no usable GPU: ..."
inline std::string where_it_runs() {
  loom::TargetChoice c = loom::choose_target();
  if (c.target == loom::Target::GPU)
    return "GPU (" + c.reason + ")";
  return "CPU, because: " + c.reason;
}

template <class F> double time_ms(F &&f) {
  auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

inline int verdict(const char *what, double error, double tolerance) {
  bool ok = error <= tolerance;
  std::printf("%s: %s (max relative error %.3g, tolerance %.1g)\n", what, ok ? "PASS" : "FAIL",
              error, tolerance);
  return ok ? 0 : 1;
}

} // namespace example
