// How many threads loom's CPU target uses for a parallel loop.
#pragma once

namespace loom {

// The threads a CPU parallel loop may use: set_cpu_threads' value, else LOOM_NUM_THREADS, else
// OpenMP's default (OMP_NUM_THREADS or the number of cores).
int cpu_threads();
// Sets it for every later call in the process; 0 goes back to the default. A negative count is
// a loom::ArgumentError. With a fixed count, reductions give the same bits on every run.
void set_cpu_threads(int threads);

} // namespace loom
