#include "runtime/CpuLaunch.h"

#include "support/Error.h"
#include "support/Settings.h"

#include <algorithm>
#include <atomic>
#include <omp.h>

namespace loom::runtime {

namespace {
std::atomic<int> thread_override{0}; // set_cpu_thread_count; 0: none
} // namespace

void set_cpu_thread_count(int threads) {
  if (threads < 0 || threads > 1 << 20)
    throw ArgumentError("the CPU thread count must be 0 (the default) or a positive number of "
                        "threads, got " +
                        std::to_string(threads));
  thread_override.store(threads, std::memory_order_relaxed);
}

int cpu_thread_count() {
  if (int threads = thread_override.load(std::memory_order_relaxed); threads > 0)
    return threads;
  if (std::optional<int> threads = settings::num_threads())
    return *threads;
  return std::max(omp_get_max_threads(), 1);
}

int64_t run_cpu_task(CpuTaskFn fn, void *const *params, int64_t extent, bool parallel,
                     int64_t min_iterations_per_thread) {
  if (!parallel) {
    fn(params, 0, 0, 0);
    return 1;
  }
  if (extent <= 0)
    return 0;
  int64_t grain = std::max<int64_t>(min_iterations_per_thread, 1);
  int64_t chunks = std::min<int64_t>(cpu_thread_count(), std::max<int64_t>(extent / grain, 1));
  if (chunks <= 1) {
    fn(params, 0, extent, 0);
    return 1;
  }
  int64_t ran = 0;

#pragma omp parallel num_threads(static_cast <int>(chunks))
  {
    // The team may be smaller than asked (nested inside another parallel region, or a thread
    // limit), so the split uses the team's real size: every iteration is still covered once.
    int64_t team = omp_get_num_threads();
    int64_t rank = omp_get_thread_num();
    int64_t base = extent / team, extra = extent % team;
    int64_t begin = rank * base + std::min(rank, extra);
    int64_t end = begin + base + (rank < extra ? 1 : 0);
    fn(params, begin, end, rank); // even when empty: every chunk of the team writes its partials
    if (rank == 0)
      ran = team;
  }
  return ran;
}

} // namespace loom::runtime
