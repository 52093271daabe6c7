#include "runtime/CpuSimt.h"

#include "ir/IR.h"
#include "ir/Semantics.h"
#include "runtime/CpuLaunch.h"
#include "support/Error.h"
#include "support/SimtBlock.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <omp.h>
#include <vector>

namespace loom::runtime {

namespace {

// The thread whose entry is starting on this OS thread: generated code asks for it first thing
// (loom_simt_thread), before any switch to another fiber.
thread_local const SimtThread *starting_thread = nullptr;

// One OS thread's working storage for the blocks it runs.
struct BlockWorker {
  std::vector<SimtThread> threads;
  std::unique_ptr<unsigned char[]> shared; // the block's shared arrays
  std::unique_ptr<support::SimtBlock> fibers;
};

unsigned char *aligned_buffer(std::unique_ptr<unsigned char[]> &buffer, size_t bytes) {
  // new[] of unsigned char is aligned to __STDCPP_DEFAULT_NEW_ALIGNMENT__ (16 on x86-64 Linux).
  static_assert(__STDCPP_DEFAULT_NEW_ALIGNMENT__ >= 16);
  buffer.reset(new unsigned char[std::max<size_t>(bytes, 16)]);
  return buffer.get();
}

} // namespace

void run_cpu_simt_task(CpuTaskFn fn, void *const *params, const SimtShape &shape,
                       int64_t static_shared_bytes, bool synchronizes) {
  // The dynamic shared array starts after the static ones, 16-byte aligned (ir::shared_offsets).
  const int64_t shared_bytes =
      shape.dynamic_shared_bytes > 0
          ? (static_shared_bytes + 15) / 16 * 16 + shape.dynamic_shared_bytes
          : static_shared_bytes;
  const int64_t block_threads = int64_t(shape.block[0]) * shape.block[1] * shape.block[2];
  const int64_t blocks = int64_t(shape.grid[0]) * shape.grid[1] * shape.grid[2];
  if (block_threads <= 0 || blocks <= 0)
    return;
  if (block_threads > support::SimtBlock::max_threads)
    throw ArgumentError("a block of " + std::to_string(block_threads) +
                        " threads; blocks have at most " +
                        std::to_string(support::SimtBlock::max_threads));
  // Each fiber's stack is two memory mappings (its guard page and itself), and Linux allows a
  // process 65530 by default (vm.max_map_count): the workers' fibers together stay at 16384.
  const int64_t fiber_budget = synchronizes ? std::max<int64_t>(16384 / block_threads, 1) : blocks;
  const int workers = static_cast<int>(
      std::min({int64_t(cpu_thread_count()), std::max<int64_t>(blocks, 1), fiber_budget}));
  std::exception_ptr failure;
  std::mutex failure_mutex;

  // Every worker's storage is made before the parallel region: an allocation failing inside it
  // would leave its thread out of the team's loop. (Fiber stacks come on a block's first run,
  // inside the loop, where a failure is caught like the block's own.)
  std::vector<BlockWorker> pool(static_cast<size_t>(workers));
  for (BlockWorker &w : pool) {
    w.threads.resize(block_threads);
    unsigned char *shared = aligned_buffer(w.shared, static_cast<size_t>(shared_bytes));
    if (synchronizes)
      w.fibers = std::make_unique<support::SimtBlock>(static_cast<int>(block_threads));
    // Each thread's registers but the block index, once.
    for (int64_t t = 0; t < block_threads; ++t) {
      SimtThread &th = w.threads[t];
      const int64_t x = t % shape.block[0], y = t / shape.block[0] % shape.block[1],
                    z = t / (int64_t(shape.block[0]) * shape.block[1]);
      const int64_t regs[3] = {x, y, z};
      for (int d = 0; d < 3; ++d) {
        th.regs[int(ir::Reg::ThreadIdx)][d] = static_cast<int32_t>(regs[d]);
        th.regs[int(ir::Reg::BlockDim)][d] = static_cast<int32_t>(shape.block[d]);
        th.regs[int(ir::Reg::GridDim)][d] = static_cast<int32_t>(shape.grid[d]);
      }
      th.shared = shared;
      th.dynamic_shared_bytes = shape.dynamic_shared_bytes;
    }
  }

#pragma omp parallel num_threads(workers)
  {
    // The team may be smaller than asked, never larger.
    BlockWorker &w = pool[static_cast<size_t>(omp_get_thread_num())];
    unsigned char *shared = w.shared.get();
#pragma omp for schedule(dynamic)
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t bx = b % shape.grid[0], by = b / shape.grid[0] % shape.grid[1],
                    bz = b / (int64_t(shape.grid[0]) * shape.grid[1]);
      for (SimtThread &th : w.threads) {
        th.regs[int(ir::Reg::BlockIdx)][0] = static_cast<int32_t>(bx);
        th.regs[int(ir::Reg::BlockIdx)][1] = static_cast<int32_t>(by);
        th.regs[int(ir::Reg::BlockIdx)][2] = static_cast<int32_t>(bz);
      }
      // Shared memory starts zeroed in every block (on the GPU its contents are undefined).
      std::memset(shared, 0, static_cast<size_t>(shared_bytes));
      {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (failure)
          continue; // the launch failed: the remaining blocks are skipped
      }
      try {
        if (synchronizes) {
          w.fibers->run(static_cast<int>(block_threads), [&](int t) {
            starting_thread = &w.threads[t];
            fn(params, 0, 0, 0);
          });
        } else {
          for (const SimtThread &th : w.threads) {
            starting_thread = &th;
            fn(params, 0, 0, 0);
          }
        }
      } catch (...) { // an exception must not leave the parallel region
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure)
          failure = std::current_exception();
      }
    }
    starting_thread = nullptr;
  }
  if (failure)
    std::rethrow_exception(failure);
}

} // namespace loom::runtime

// ---- what generated code calls (support/Abi.h) --------------------------------------------------

using loom::support::SimtBlock;

extern "C" const loom::SimtThread *loom_simt_thread() {
  return loom::runtime::starting_thread;
}

extern "C" void loom_simt_barrier() {
  SimtBlock::current()->barrier();
}

extern "C" uint64_t loom_simt_warp(int32_t op, uint64_t value, int32_t operand) {
  SimtBlock *block = SimtBlock::current();
  const int lane = block->thread() % SimtBlock::warp_size;
  const SimtBlock::WarpValues &warp = block->warp_exchange(value);
  // The interpreter computes warp collectives with the same function (ir/Semantics.h).
  return loom::ir::warp_result(static_cast<loom::ir::WarpOpKind>(op), warp.value.data(),
                               warp.active, lane, value, operand);
}

namespace {
// The CPU JIT finds the three entry points here (support/Abi.h), and print's (CpuPrint.cpp).
const bool entry_points_registered = [] {
  loom::simt_entry_points() = {&loom_simt_thread, &loom_simt_barrier, &loom_simt_warp};
  loom::print_entry_point().print = &loom::loom_print;
  return true;
}();
} // namespace
