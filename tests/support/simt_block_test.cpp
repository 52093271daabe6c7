// support::SimtBlock, the fiber scheduler that runs a SIMT thread block on one OS thread: every
// thread runs once and in order, barriers and warp exchanges hold back exactly the threads they
// should (finished threads do not count), back-to-back warp exchanges keep their generations
// apart, a deadlock or a throwing thread ends run() with an error and leaves the object usable,
// stacks are reused across runs, and blocks on different OS threads do not interfere.
#include "support/SimtBlock.h"

#include "support/Error.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using loom::support::SimtBlock;

namespace {

constexpr int W = SimtBlock::warp_size;

// Lines of /proc/self/maps: one per mapping, so a leaked fiber stack shows as two more.
int mapping_count() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  int n = 0;
  while (std::getline(maps, line))
    ++n;
  return n;
}

TEST(SimtBlock, EveryThreadRunsOnceInOrder) {
  SimtBlock shared(SimtBlock::max_threads);
  for (int n : {1, 31, 32, 33, 256, 1024}) {
    SimtBlock own(n);
    for (SimtBlock *block : {&own, &shared}) {
      std::vector<int> order;
      std::vector<int> runs(n, 0);
      bool current_ok = true;
      block->run(n, [&](int t) {
        order.push_back(t);
        ++runs[t];
        current_ok &= SimtBlock::current() == block && block->thread() == t;
      });
      std::vector<int> expected(n);
      std::iota(expected.begin(), expected.end(), 0);
      EXPECT_EQ(order, expected) << n << " threads";
      EXPECT_EQ(runs, std::vector<int>(n, 1)) << n << " threads";
      EXPECT_TRUE(current_ok) << n << " threads";
      EXPECT_EQ(SimtBlock::current(), nullptr);
      EXPECT_EQ(block->thread(), -1);
    }
  }
}

TEST(SimtBlock, RejectsBadSizes) {
  EXPECT_THROW(SimtBlock(0), loom::ArgumentError);
  EXPECT_THROW(SimtBlock(SimtBlock::max_threads + 1), loom::ArgumentError);
  EXPECT_THROW(SimtBlock(32, 1024), loom::ArgumentError);
  SimtBlock block(64);
  EXPECT_THROW(block.run(0, [](int) {}), loom::ArgumentError);
  EXPECT_THROW(block.run(65, [](int) {}), loom::ArgumentError);
  EXPECT_THROW(block.barrier(), loom::ArgumentError);
  EXPECT_THROW(block.warp_exchange(1), loom::ArgumentError);
  // Nested runs and sync calls on another block fail in the body and come out of run().
  SimtBlock other(4);
  EXPECT_THROW(block.run(4, [&](int) { other.run(4, [](int) {}); }), loom::ArgumentError);
  EXPECT_THROW(block.run(4, [&](int) { other.barrier(); }), loom::ArgumentError);
  int sum = 0;
  block.run(64, [&](int t) { sum += t; });
  EXPECT_EQ(sum, 64 * 63 / 2);
}

TEST(SimtBlock, BarrierPublishesNeighbourWrites) {
  for (int n : {1, 2, 33, 256, 1024}) {
    SimtBlock block(n);
    std::vector<int> slot(n, -1), seen(n, -1);
    block.run(n, [&](int t) {
      slot[t] = 1000 + t;
      block.barrier();
      seen[t] = slot[(t + 1) % n];
    });
    for (int t = 0; t < n; ++t)
      ASSERT_EQ(seen[t], 1000 + (t + 1) % n) << "thread " << t << " of " << n;
  }
}

TEST(SimtBlock, BarrierSeparatesPhases) {
  const int n = 256, phases = 100;
  SimtBlock block(n);
  long counter = 0;
  int early = 0, late = 0;
  block.run(n, [&](int) {
    for (int k = 0; k < phases; ++k) {
      ++counter;
      block.barrier();
      // Every thread has counted phase k; those resumed before this one may have counted k+1.
      early += counter < long(k + 1) * n;
      late += counter >= long(k + 2) * n;
    }
  });
  EXPECT_EQ(counter, long(n) * phases);
  EXPECT_EQ(early, 0);
  EXPECT_EQ(late, 0);
}

TEST(SimtBlock, FinishedThreadsDoNotHoldBarriers) {
  const int n = 64;
  SimtBlock block(n);
  // Half the threads return before any barrier.
  std::vector<int> after(n, 0);
  block.run(n, [&](int t) {
    if (t % 2)
      return;
    for (int k = 0; k < 3; ++k)
      block.barrier();
    after[t] = 1;
  });
  for (int t = 0; t < n; ++t)
    EXPECT_EQ(after[t], t % 2 ? 0 : 1) << t;

  // Threads leave one by one between barriers: thread t passes t barriers and returns, so the
  // last thread passes n - 1 of them while the others drop out.
  std::vector<int> passed(n, 0);
  block.run(n, [&](int t) {
    for (int k = 0; k < t; ++k) {
      block.barrier();
      ++passed[t];
    }
  });
  for (int t = 0; t < n; ++t)
    EXPECT_EQ(passed[t], t) << t;
}

TEST(SimtBlock, WarpExchangeSumsLanes) {
  const int n = 96;
  SimtBlock block(n);
  std::vector<uint64_t> sums(n, 0);
  std::vector<uint32_t> masks(n, 0);
  block.run(n, [&](int t) {
    const SimtBlock::WarpValues &r = block.warp_exchange(uint64_t(t) * t);
    uint64_t s = 0;
    for (uint64_t v : r.value)
      s += v;
    sums[t] = s;
    masks[t] = r.active;
  });
  for (int t = 0; t < n; ++t) {
    uint64_t expected = 0;
    for (int u = t / W * W; u < t / W * W + W; ++u)
      expected += uint64_t(u) * u;
    EXPECT_EQ(sums[t], expected) << t;
    EXPECT_EQ(masks[t], 0xffffffffu) << t;
  }
}

TEST(SimtBlock, ShuffleDownReduction) {
  const int n = 64;
  SimtBlock block(n);
  std::vector<uint64_t> got(n);
  block.run(n, [&](int t) {
    int lane = t % W;
    uint64_t v = uint64_t(t) * 7 + 3;
    for (int offset = W / 2; offset > 0; offset /= 2) {
      const SimtBlock::WarpValues &r = block.warp_exchange(v);
      // __shfl_down_sync: lanes past the end keep their own value.
      v += lane + offset < W ? r.value[lane + offset] : v;
    }
    got[t] = v;
  });
  // The same tree computed serially, one warp at a time.
  for (int w = 0; w < n / W; ++w) {
    std::vector<uint64_t> v(W);
    for (int l = 0; l < W; ++l)
      v[l] = uint64_t(w * W + l) * 7 + 3;
    for (int offset = W / 2; offset > 0; offset /= 2) {
      std::vector<uint64_t> old = v;
      for (int l = 0; l < W; ++l)
        v[l] += l + offset < W ? old[l + offset] : old[l];
    }
    uint64_t warp_sum = 0;
    for (int l = 0; l < W; ++l)
      warp_sum += uint64_t(w * W + l) * 7 + 3;
    EXPECT_EQ(got[w * W], warp_sum) << "warp " << w;
    for (int l = 0; l < W; ++l)
      EXPECT_EQ(got[w * W + l], v[l]) << "warp " << w << " lane " << l;
  }
}

TEST(SimtBlock, PartialWarpAndFinishedLanes) {
  // 40 threads: warp 1 has lanes 0..7 only.
  const int n = 40;
  SimtBlock block(n);
  std::vector<SimtBlock::WarpValues> got(n);
  block.run(n, [&](int t) { got[t] = block.warp_exchange(100 + t); });
  for (int t = 0; t < n; ++t) {
    int w = t / W;
    EXPECT_EQ(got[t].active, w == 0 ? 0xffffffffu : 0xffu) << t;
    for (int l = 0; l < W; ++l) {
      uint64_t expected = w * W + l < n ? 100 + w * W + l : 0;
      EXPECT_EQ(got[t].value[l], expected) << "thread " << t << " lane " << l;
    }
  }

  // Lanes 3, 7, 11, ... return first: they neither contribute nor hold the others back.
  block.run(n, [&](int t) {
    if (t % 4 == 3)
      return;
    got[t] = block.warp_exchange(t + 1);
  });
  for (int t = 0; t < n; ++t) {
    if (t % 4 == 3)
      continue;
    EXPECT_EQ(got[t].active, t < W ? 0x77777777u : 0x77u) << t;
    for (int l = 0; l < W; ++l) {
      int u = t / W * W + l;
      EXPECT_EQ(got[t].value[l], u < n && u % 4 != 3 ? uint64_t(u + 1) : 0) << t << " " << l;
    }
  }
}

uint64_t contribution(int step, int thread) {
  return (uint64_t(step) << 32) ^ (uint64_t(thread) * 0x9e3779b97f4a7c15ull);
}

TEST(SimtBlock, BackToBackExchangesKeepGenerationsApart) {
  // Lane l of each warp takes part in 1000 - 13 * l exchanges, so the set of lanes shrinks as the
  // run goes on; each lane checks every result in full. Between exchanges lanes do different
  // amounts of work and read their result at different times, after the lanes resumed before
  // them have already contributed to the next generation.
  const int n = 64, steps = 1000;
  SimtBlock block(n);
  std::vector<long> bad(n, 0), done(n, 0);
  block.run(n, [&](int t) {
    int lane = t % W, base = t / W * W;
    int my_steps = steps - 13 * lane;
    uint64_t noise = 0;
    for (int k = 0; k < my_steps; ++k) {
      const SimtBlock::WarpValues &r = block.warp_exchange(contribution(k, t));
      for (int i = 0; i < (lane * 7 + k) % 23; ++i)
        noise += i * k;
      uint32_t expected_active = 0;
      for (int l = 0; l < W; ++l) {
        bool in = k < steps - 13 * l;
        expected_active |= uint32_t(in) << l;
        bad[t] += r.value[l] != (in ? contribution(k, base + l) : 0);
      }
      bad[t] += r.active != expected_active;
      ++done[t];
    }
    bad[t] += noise == 1; // keep the work
  });
  for (int t = 0; t < n; ++t) {
    EXPECT_EQ(bad[t], 0) << t;
    EXPECT_EQ(done[t], steps - 13 * (t % W)) << t;
  }
}

TEST(SimtBlock, DeadlockIsReportedAndTheBlockStaysUsable) {
  const int n = 32;
  SimtBlock block(n);
  try {
    block.run(n, [&](int t) {
      if (t % 2 == 0)
        block.barrier();
      else
        block.warp_exchange(t);
    });
    FAIL() << "run() returned from a deadlocked block";
  } catch (const loom::DeadlockError &e) {
    std::string what = e.what();
    EXPECT_NE(what.find("deadlock"), std::string::npos) << what;
    EXPECT_NE(what.find("16 wait at a barrier"), std::string::npos) << what;
    EXPECT_NE(what.find("16 at a warp collective"), std::string::npos) << what;
    EXPECT_NE(what.find("0 have finished"), std::string::npos) << what;
  }
  EXPECT_EQ(SimtBlock::current(), nullptr);

  // A barrier only some threads reach, after others have finished.
  try {
    block.run(n, [&](int t) {
      if (t < 4)
        return;
      if (t < 20)
        block.barrier();
      else
        block.warp_exchange(0);
    });
    FAIL() << "run() returned from a deadlocked block";
  } catch (const loom::DeadlockError &e) {
    std::string what = e.what();
    EXPECT_NE(what.find("16 wait at a barrier, 12 at a warp collective, 4 have finished"),
              std::string::npos)
        << what;
  }

  std::vector<int> seen(n, -1);
  block.run(n, [&](int t) {
    const SimtBlock::WarpValues &r = block.warp_exchange(t);
    int next = int(r.value[(t + 1) % W]);
    block.barrier();
    seen[t] = next;
  });
  for (int t = 0; t < n; ++t)
    EXPECT_EQ(seen[t], (t + 1) % n) << t;
}

struct Boom : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Fills a stack buffer through a call the compiler cannot see into, so that the buffer is real
// (with ASan: between redzones) and every byte of it is written (with ASan: checked).
__attribute__((noinline)) int fill(char *buffer, int n, char value) {
  std::memset(buffer, value, n);
  int sum = 0;
  for (int i = 0; i < n; ++i)
    sum += buffer[i];
  return sum;
}

// A buffer in a frame ASan does not instrument, so nothing resets the shadow under it: with
// ASan, fill() reports any stale redzone left there by frames that never returned.
__attribute__((noinline, no_sanitize_address)) int fill_unchecked_frame() {
  char buffer[8192];
  return fill(buffer, sizeof buffer, 3);
}

TEST(SimtBlock, ExceptionPropagatesAndTheBlockStaysUsable) {
  const int n = 64;
  SimtBlock block(n);
  int started_second_phase = 0;
  try {
    block.run(n, [&](int t) {
      char small[40];
      fill(small, sizeof small, 1);
      block.barrier();
      ++started_second_phase;
      if (t == 5)
        throw Boom("thread 5 failed");
      block.barrier();
      fill(small, sizeof small, 2);
    });
    FAIL() << "run() swallowed the exception";
  } catch (const Boom &e) {
    EXPECT_STREQ(e.what(), "thread 5 failed");
  }
  // Scheduling stopped at the throw: threads 6.. never got past the first barrier.
  EXPECT_EQ(started_second_phase, 6);
  EXPECT_EQ(SimtBlock::current(), nullptr);
  EXPECT_EQ(block.thread(), -1);

  // Fibers abandoned mid-body start afresh, on stacks that still hold the abandoned frames (with
  // ASan: the redzones around `small`, which must not be reported).
  for (int round = 0; round < 3; ++round) {
    std::vector<int> seen(n, -1), sums(n, 0);
    block.run(n, [&](int t) {
      const SimtBlock::WarpValues &r = block.warp_exchange(t * 2);
      int v = int(r.value[W - 1 - t % W]);
      block.barrier();
      seen[t] = v;
      sums[t] = fill_unchecked_frame();
    });
    for (int t = 0; t < n; ++t) {
      EXPECT_EQ(seen[t], 2 * (t / W * W + W - 1 - t % W)) << t;
      EXPECT_EQ(sums[t], 3 * 8192) << t;
    }
  }

  // The first thread throwing before anything else ran.
  EXPECT_THROW(block.run(n, [](int) { throw Boom("first"); }), Boom);
  int sum = 0;
  block.run(n, [&](int t) { sum += t; });
  EXPECT_EQ(sum, n * (n - 1) / 2);
}

TEST(SimtBlock, ReuseKeepsItsStacks) {
  const int n = 64;
  SimtBlock block(n);
  long total = 0;
  auto body = [&](int t) {
    const SimtBlock::WarpValues &r = block.warp_exchange(1);
    total += __builtin_popcount(r.active);
    block.barrier();
    total += t;
  };
  block.run(n, body);
  int before = mapping_count();
  for (int i = 1; i < 1000; ++i)
    block.run(n, body);
  int after = mapping_count();
  EXPECT_EQ(total, 1000L * (n * W + n * (n - 1) / 2));
  // A leak would be two mappings per thread and run; allow the allocator a few of its own.
  EXPECT_LT(after - before, 16) << before << " mappings before, " << after << " after";
}

TEST(SimtBlock, BlocksOnSeveralThreadsRunConcurrently) {
  const int n = 256, runs = 50, os_threads = 4;
  std::atomic<int> failures{0};
  std::vector<std::thread> pool;
  for (int p = 0; p < os_threads; ++p) {
    pool.emplace_back([&, p] {
      SimtBlock block(n);
      std::vector<uint64_t> slot(n), out(n);
      for (int r = 0; r < runs; ++r) {
        block.run(n, [&](int t) {
          if (SimtBlock::current() != &block)
            ++failures;
          const SimtBlock::WarpValues &x = block.warp_exchange(uint64_t(p) * 1000000 + t);
          uint64_t warp_sum = 0;
          for (uint64_t v : x.value)
            warp_sum += v;
          slot[t] = warp_sum + r;
          block.barrier();
          out[t] = slot[(t + W) % n];
        });
        for (int t = 0; t < n; ++t) {
          int w = (t + W) % n / W;
          uint64_t expected = uint64_t(p) * 1000000 * W + uint64_t(w * W) * W + W * (W - 1) / 2;
          if (out[t] != expected + r)
            ++failures;
        }
      }
    });
  }
  for (std::thread &t : pool)
    t.join();
  EXPECT_EQ(failures.load(), 0);
}

} // namespace
