// Host memory of the compiler: compiles and calls 10,000 distinct small kernels on the CPU in one
// process, clearing the in-memory cache after each, with the disk cache off. Each kernel is
// dropped once checked, so nothing a program still uses is kept: resident memory should level
// off after the first kernels (LLVM's and the JIT's one-time state), and any growth after that is
// memory that compiling a kernel leaks (an LLVMContext, a module, a JITDylib or its code never
// freed).
//
//   loom_memory_bench [--kernels N] [--max-growth-mib M] [--keep-code]
//
// Prints resident memory (VmRSS) and the heap in use (mallinfo2) after kernel 100, 1,000, 2,000,
// ... N, then the growth from kernel 1,000 (or N/10 for a shorter run) to N in MiB and per
// kernel in KiB. Exits non-zero if a result is wrong or if resident memory grew by more than M MiB
// (default 16). --keep-code is the control: the memory cache is not cleared, so every kernel's
// code stays in the process as a leak would keep it, and the growth shows what one kernel costs.
#include "BenchSupport.h"

#include <loom/loom.hpp>

#include <malloc.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace {

using bench::result;

// VmRSS of /proc/self/status, in KiB (0 if it cannot be read).
long resident_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0)
      return std::strtol(line.c_str() + 6, nullptr, 10);
  return 0;
}

// Bytes malloc has handed out and not had back (its arenas and its own mmaps), in KiB.
long heap_in_use_kib() {
  struct mallinfo2 info = mallinfo2();
  return long((info.uordblks + info.hblkhd) / 1024);
}

// Kernel `i`, named memory_bench_<i>: one of four expressions (by i % 4) with a constant that no
// other kernel with that expression has (i / 4 + 1, exact in f32). Every kernel's lowered IR,
// and so its cache key, differs from all the others', and so do its entry point's name (a new
// symbol for the JIT each time) and its JITDylib's.
float constant_of(int i) {
  return float(i / 4 + 1);
}

loom::Kernel make_kernel(int i) {
  const int shape = i % 4;
  const float c = constant_of(i);
  return loom::kernel("memory_bench_" + std::to_string(i),
                      [shape, c](loom::F32 a, loom::Array<float> x, loom::Array<float> y) {
                        loom::parallel_for(x.size(), [&](loom::Index j) {
                          switch (shape) {
                          case 0:
                            y[j] = a * x[j] + y[j] + c;
                            break;
                          case 1:
                            y[j] = a * x[j] - y[j] * c;
                            break;
                          case 2:
                            y[j] = loom::max(a * x[j], y[j]) + c;
                            break;
                          default:
                            y[j] = (a * x[j] + y[j]) * c;
                            break;
                          }
                        });
                      });
}

// The double reference of kernel `i` on one element, and the magnitude its tolerance scales with.
double reference(int i, double a, double x, double y, double *magnitude) {
  const double c = constant_of(i), ax = a * x;
  switch (i % 4) {
  case 0:
    *magnitude = std::fabs(ax) + std::fabs(y) + c;
    return ax + y + c;
  case 1:
    *magnitude = std::fabs(ax) + std::fabs(y) * c;
    return ax - y * c;
  case 2:
    *magnitude = std::fabs(ax) + std::fabs(y) + c;
    return std::max(ax, y) + c;
  default:
    *magnitude = (std::fabs(ax) + std::fabs(y)) * c;
    return (ax + y) * c;
  }
}

// At most three f32 roundings, each at most 2^-24 of the magnitude (1.8e-7 of it in all).
constexpr double tolerance = 1e-6;

struct Row {
  int kernels;
  long rss_kib, heap_kib;
  double seconds;
};

int usage(const char *self) {
  std::fprintf(stderr, "usage: %s [--kernels N] [--max-growth-mib M] [--keep-code]\n", self);
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  int kernels = 10000;
  double max_growth_mib = 16;
  bool keep_code = false;
  for (int a = 1; a < argc; ++a) {
    if (!std::strcmp(argv[a], "--kernels") && a + 1 < argc)
      kernels = std::atoi(argv[++a]);
    else if (!std::strcmp(argv[a], "--max-growth-mib") && a + 1 < argc)
      max_growth_mib = std::atof(argv[++a]);
    else if (!std::strcmp(argv[a], "--keep-code"))
      keep_code = true;
    else
      return usage(argv[0]);
  }
  if (kernels < 10)
    return usage(argv[0]);
  // Before the first compile: every kernel is compiled by LLVM, and nothing is written to disk.
  setenv("LOOM_CACHE", "off", 1);

  // Checkpoints: kernel 100 (LLVM and the JIT set up), then every tenth of the run (1,000, 2,000,
  // ... for 10,000). Growth is measured from the first tenth on.
  std::vector<int> checkpoints;
  const int step = kernels / 10;
  if (100 < step)
    checkpoints.push_back(100);
  for (int k = step; k <= kernels; k += step)
    checkpoints.push_back(k);
  if (checkpoints.back() != kernels)
    checkpoints.push_back(kernels);
  const int baseline = step;

  std::printf("loom_memory_bench: %d distinct kernels compiled by LLVM and called on the CPU, %s, "
              "LOOM_CACHE=off\n",
              kernels,
              keep_code ? "their code kept in the in-memory cache (--keep-code: the control)"
                        : "the in-memory cache cleared after each");
  std::printf("  resident before the first kernel: %.1f MiB\n", resident_kib() / 1024.0);
  std::fflush(stdout);

  const int n = 257; // elements per call: below a parallel loop's grain, so no OpenMP region
  std::vector<float> x = bench::random_vector(n, 11), y0 = bench::random_vector(n, 12), y(n);
  std::vector<Row> rows;
  int wrong = 0;
  size_t next = 0;
  auto start = bench::Clock::now();
  for (int i = 0; i < kernels; ++i) {
    {
      loom::Kernel k = make_kernel(i);
      k.on(loom::ir::Target::CPU);
      const float a = 0.75f + float(i % 7) / 8.0f;
      y = y0;
      k(a, x, y);
      if (k.compile_times().source != loom::CodeSource::Compiled) {
        std::printf("  kernel %d: its code came from the %s, not from LLVM\n", i,
                    loom::code_source_name(k.compile_times().source));
        ++wrong;
      }
      for (int j = 0; j < n; ++j) {
        double magnitude = 0, ref = reference(i, a, x[j], y0[j], &magnitude);
        if (!(std::fabs(y[j] - ref) <= tolerance * magnitude)) {
          if (wrong < 10)
            std::printf("  kernel %d: element %d is %.9g, reference %.9g\n", i, j, y[j], ref);
          ++wrong;
          break;
        }
      }
    } // the Kernel object and its code are gone here
    if (!keep_code)
      loom::clear_memory_cache();
    if (next < checkpoints.size() && i + 1 == checkpoints[next]) {
      rows.push_back({i + 1, resident_kib(), heap_in_use_kib(), bench::ms_since(start) / 1000});
      std::printf("  after %5d kernels: resident %7.1f MiB, heap in use %7.1f MiB, %6.1f s\n",
                  rows.back().kernels, rows.back().rss_kib / 1024.0, rows.back().heap_kib / 1024.0,
                  rows.back().seconds);
      std::fflush(stdout);
      ++next;
    }
  }

  const Row *from = nullptr, &to = rows.back();
  for (const Row &row : rows)
    if (row.kernels == baseline)
      from = &row;
  const double growth_mib = (to.rss_kib - from->rss_kib) / 1024.0;
  const double heap_growth_mib = (to.heap_kib - from->heap_kib) / 1024.0;
  const double per_kernel_kib = (to.rss_kib - from->rss_kib) / double(to.kernels - from->kernels);
  std::printf("\n| kernels | resident (VmRSS), MiB | heap in use (mallinfo2), MiB | elapsed, s |\n"
              "|---|---|---|---|\n");
  for (const Row &row : rows)
    std::printf("| %d | %.1f | %.1f | %.1f |\n", row.kernels, row.rss_kib / 1024.0,
                row.heap_kib / 1024.0, row.seconds);
  std::printf("\ngrowth from kernel %d to %d: resident %+.1f MiB (%+.2f KiB per kernel), heap in "
              "use %+.1f MiB; allowed: %.0f MiB\n",
              from->kernels, to.kernels, growth_mib, per_kernel_kib, heap_growth_mib,
              max_growth_mib);
  std::printf("compile and call: %.2f ms per kernel\n", to.seconds * 1000 / kernels);
  result("memory_rss_growth_mib", growth_mib, "MiB");
  result("memory_rss_growth_per_kernel_kib", per_kernel_kib, "KiB");
  result("memory_heap_growth_mib", heap_growth_mib, "MiB");

  loom::CacheStats stats = loom::cache_stats();
  bool ok = wrong == 0;
  std::printf("CHECK %s every kernel compiled by LLVM and every element within %.0e of the double "
              "reference (%d kernels wrong)\n",
              ok ? "PASS" : "FAIL", tolerance, wrong);
  if (stats.memory_misses != uint64_t(kernels) || stats.memory_hits != 0 ||
      stats.disk_hits + stats.disk_misses + stats.disk_writes != 0) {
    std::printf("UNEXPECTED cache counts: memory %llu hits %llu misses, disk %llu hits %llu misses "
                "%llu writes\n",
                (unsigned long long)stats.memory_hits, (unsigned long long)stats.memory_misses,
                (unsigned long long)stats.disk_hits, (unsigned long long)stats.disk_misses,
                (unsigned long long)stats.disk_writes);
    ok = false;
  }
  bool flat = growth_mib <= max_growth_mib;
  std::printf("CHECK %s resident memory growth %.1f MiB (allowed %.0f MiB)\n",
              flat ? "PASS" : "FAIL", growth_mib, max_growth_mib);
  std::printf("loom_memory_bench: %s\n", ok && flat ? "all checks passed" : "SOME CHECK FAILED");
  return ok && flat ? 0 : 1;
}
