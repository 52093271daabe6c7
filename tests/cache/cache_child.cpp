// A separate process for the cache tests: compiles saxpy and matmul (on the target LOOM_TARGET
// picks) with the environment it was given, checks their results, and writes what happened to
// the file named by its argument:
//
//   saxpy <source> matmul <source> hits <n> misses <n> rejected <n> writes <n> failures <n>
//
// Exit status 0 when both results are right. With a second argument, it first waits until that
// file exists, so that several children can be started together and compile at once.
#include "CacheTestUtil.h"

#include <chrono>
#include <cstdio>
#include <thread>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: cache_child RESULT_FILE [START_FILE]\n");
    return 2;
  }
  if (argc > 2) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (access(argv[2], F_OK) != 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        std::fprintf(stderr, "cache_child: %s never appeared\n", argv[2]);
        return 3;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
  try {
    loom::Kernel saxpy = loomtest::make_saxpy(), matmul = loomtest::make_matmul();
    bool ok = loomtest::saxpy_is_correct(saxpy);
    ok &= loomtest::matmul_is_correct(matmul);
    loom::CacheStats s = loom::cache_stats();
    std::ofstream out(argv[1]);
    out << "saxpy " << int(saxpy.compile_times().source) << " matmul "
        << int(matmul.compile_times().source) << " hits " << s.disk_hits << " misses "
        << s.disk_misses << " rejected " << s.disk_rejected << " writes " << s.disk_writes
        << " failures " << s.disk_write_failures << "\n";
    if (!s.last_problem.empty())
      std::fprintf(stderr, "cache_child: %s\n", s.last_problem.c_str());
    return ok ? 0 : 1;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "cache_child: %s\n", e.what());
    return 4;
  }
}
