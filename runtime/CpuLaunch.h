// Running a compiled CPU task on the host's cores through the OpenMP runtime.
#pragma once

#include "support/Abi.h"

#include <cstdint>

namespace loom::runtime {

// Threads a parallel task may use: LOOM_NUM_THREADS when set (a positive integer, else
// loom::ArgumentError), otherwise OpenMP's default (OMP_NUM_THREADS or the number of cores).
int cpu_thread_count();
// Sets the thread count for every later CPU launch, over LOOM_NUM_THREADS; 0 goes back to the
// default. Negative: loom::ArgumentError.
void set_cpu_thread_count(int threads);

// Runs a task. A serial task is one call fn(params, 0, 0). A parallel task's iterations [0, extent)
// are split into contiguous, nearly equal chunks, one call per thread, each thread getting at least
// `min_iterations_per_thread` (default 1: the runtime cannot know how heavy one iteration is, and
// a needless parallel region costs microseconds while a needlessly serial heavy loop costs a factor
// of the core count; callers that know the body is light pass more). When one chunk results, or
// extent <= 0 (nothing to run: no call), no parallel region is opened. The task code must not throw
// (an exception cannot leave an OpenMP region). Every chunk of the team is called, numbered
// 0, 1, ... in iteration order (a chunk can be empty); returns how many were called.
int64_t run_cpu_task(CpuTaskFn fn, void *const *params, int64_t extent, bool parallel,
                     int64_t min_iterations_per_thread = 1);

} // namespace loom::runtime
