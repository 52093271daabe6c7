// run_cpu_task must hand every iteration to exactly one call, whatever the extent and thread count.
#include "runtime/CpuLaunch.h"
#include "support/Error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

using namespace loom;
using namespace loom::runtime;

namespace {

// What the test task records: the chunks it was called with and the threads that ran them.
struct Record {
  std::vector<std::pair<int64_t, int64_t>> chunks;
  std::vector<std::pair<int64_t, int64_t>> index_of_begin; // (chunk_begin, chunk_index)
  std::set<std::thread::id> threads;
};
struct LockedRecord {
  std::mutex mutex;
  Record record;
};

// Has the CpuTaskFn signature, as a compiled task entry does. params[0] is a per-iteration counter
// array, params[1] a LockedRecord.
void count_iterations(void *const *params, int64_t chunk_begin, int64_t chunk_end,
                      int64_t chunk_index) {
  auto *counters = static_cast<std::atomic<int> *>(params[0]);
  auto *log = static_cast<LockedRecord *>(params[1]);
  for (int64_t i = chunk_begin; i < chunk_end; ++i)
    counters[i].fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(log->mutex);
  log->record.chunks.emplace_back(chunk_begin, chunk_end);
  log->record.index_of_begin.emplace_back(chunk_begin, chunk_index);
  log->record.threads.insert(std::this_thread::get_id());
}

// Runs count_iterations over `extent` and checks that every index was counted exactly once.
Record run_and_check(int64_t extent, bool parallel, int64_t grain = 1) {
  auto counters =
      std::make_unique<std::atomic<int>[]>(static_cast<size_t>(std::max<int64_t>(extent, 1)));
  LockedRecord log;
  void *params[] = {counters.get(), &log};
  int64_t calls = run_cpu_task(count_iterations, params, extent, parallel, grain);
  EXPECT_EQ(static_cast<size_t>(calls), log.record.chunks.size()) << "extent " << extent;
  // Chunk indices are 0, 1, ... in iteration order.
  std::vector<std::pair<int64_t, int64_t>> order = log.record.index_of_begin;
  std::sort(order.begin(), order.end());
  for (size_t k = 0; k < order.size(); ++k)
    EXPECT_EQ(static_cast<int64_t>(k), order[k].second) << "extent " << extent;
  int64_t wrong = 0;
  for (int64_t i = 0; i < extent; ++i)
    wrong += counters[i].load() != 1;
  EXPECT_EQ(0, wrong) << "iterations not run exactly once, extent " << extent;
  return log.record;
}

// Sets an environment variable for one test.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }

private:
  const char *name_;
};

} // namespace

TEST(runtime_cpu_launch, EveryIndexExactlyOnce) {
  for (int64_t extent : {int64_t{0}, int64_t{1}, int64_t{7}, int64_t{1000}, int64_t{1'000'003}}) {
    Record record = run_and_check(extent, /*parallel=*/true);
    int64_t expected_calls = std::min<int64_t>(extent, cpu_thread_count());
    EXPECT_EQ(static_cast<size_t>(expected_calls), record.chunks.size()) << "extent " << extent;
  }
}

TEST(runtime_cpu_launch, ZeroExtentMakesNoCall) {
  Record record = run_and_check(0, /*parallel=*/true);
  EXPECT_TRUE(record.chunks.empty());
}

TEST(runtime_cpu_launch, SerialTaskIsOneCallWithAnEmptyChunk) {
  Record record = run_and_check(0, /*parallel=*/false);
  ASSERT_EQ(1u, record.chunks.size());
  EXPECT_EQ(std::make_pair(int64_t{0}, int64_t{0}), record.chunks[0]);
  EXPECT_EQ(1u, record.threads.count(std::this_thread::get_id()));
}

TEST(runtime_cpu_launch, ChunksAreContiguousAndBalanced) {
  ScopedEnv threads("LOOM_NUM_THREADS", "3");
  ASSERT_EQ(3, cpu_thread_count());
  Record record = run_and_check(1000, /*parallel=*/true);
  std::sort(record.chunks.begin(), record.chunks.end());
  std::vector<std::pair<int64_t, int64_t>> expected = {{0, 334}, {334, 667}, {667, 1000}};
  EXPECT_EQ(expected, record.chunks);
  EXPECT_EQ(3u, record.threads.size()); // one call per thread
}

TEST(runtime_cpu_launch, MoreThreadsThanCoresStillCoverOnce) {
  ScopedEnv threads("LOOM_NUM_THREADS", "8");
  Record record = run_and_check(1'000'003, /*parallel=*/true);
  EXPECT_EQ(8u, record.chunks.size());
  EXPECT_EQ(8u, record.threads.size());
}

TEST(runtime_cpu_launch, ExtentSmallerThanThreadCountGivesOneIterationPerCall) {
  ScopedEnv threads("LOOM_NUM_THREADS", "8");
  Record record = run_and_check(7, /*parallel=*/true);
  EXPECT_EQ(7u, record.chunks.size());
  for (auto [begin, end] : record.chunks)
    EXPECT_EQ(1, end - begin);
}

TEST(runtime_cpu_launch, GrainKeepsALightLoopOnTheCallingThread) {
  ScopedEnv threads("LOOM_NUM_THREADS", "4");
  // 1000 iterations with at least 1024 per thread: one call, no parallel region.
  Record record = run_and_check(1000, /*parallel=*/true, /*grain=*/1024);
  ASSERT_EQ(1u, record.chunks.size());
  EXPECT_EQ(std::make_pair(int64_t{0}, int64_t{1000}), record.chunks[0]);
  EXPECT_EQ(1u, record.threads.count(std::this_thread::get_id()));
  // 3000 iterations with 1024 per thread: two chunks.
  EXPECT_EQ(2u, run_and_check(3000, /*parallel=*/true, /*grain=*/1024).chunks.size());
}

TEST(runtime_cpu_launch, CallsFromManyThreadsAtOnce) {
  ScopedEnv threads("LOOM_NUM_THREADS", "2");
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([] { run_and_check(100'000, /*parallel=*/true); });
  for (std::thread &caller : callers)
    caller.join();
}

TEST(runtime_cpu_launch, ThreadCountFromEnvironment) {
  {
    ScopedEnv threads("LOOM_NUM_THREADS", "5");
    EXPECT_EQ(5, cpu_thread_count());
  }
  EXPECT_GE(cpu_thread_count(), 1);
  for (const char *bad : {"abc", "0", "-2", "4x"}) {
    ScopedEnv threads("LOOM_NUM_THREADS", bad);
    try {
      cpu_thread_count();
      FAIL() << "expected ArgumentError for " << bad;
    } catch (const ArgumentError &e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos)
          << e.what();
    }
  }
}
