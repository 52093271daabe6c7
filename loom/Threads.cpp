#include "loom/Threads.hpp"

#include "runtime/CpuLaunch.h"

namespace loom {

int cpu_threads() {
  return runtime::cpu_thread_count();
}

void set_cpu_threads(int threads) {
  runtime::set_cpu_thread_count(threads);
}

} // namespace loom
