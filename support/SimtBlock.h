// Runs one SIMT thread block (CUDA's model: thread indices, __syncthreads barriers, warp shuffles
// and votes) on the CPU: the block's threads are fibers on the calling OS thread, and they switch
// only where CUDA threads synchronize, at barriers and warp collectives. Between those points a
// thread runs alone, so a kernel's plain code needs no locks or atomics to be correct here.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>

namespace loom::support {

// The fibers of one block, reused from run to run. Not thread-safe: one SimtBlock is used by one
// OS thread at a time, but any number of OS threads may each run their own SimtBlock at once
// (loom runs a grid's blocks in parallel, one per OpenMP thread); they share no mutable state.
class SimtBlock {
public:
  static constexpr int warp_size = 32;
  static constexpr int max_threads = 1024;

  // Fibers for blocks of up to `threads` threads (1..max_threads, else loom::ArgumentError). Each
  // gets a stack of `stack_bytes` (rounded up to whole pages; at least 16 KiB, else ArgumentError),
  // mmap'ed with MAP_NORESERVE above a PROT_NONE guard page, so that a stack commits memory only as
  // it is used and an overflow faults instead of corrupting the neighbouring stack. Stacks are
  // allocated lazily, the first time a run() needs that many threads, and kept until destruction.
  explicit SimtBlock(int threads, size_t stack_bytes = 256 * 1024);
  ~SimtBlock();
  SimtBlock(const SimtBlock &) = delete;
  SimtBlock &operator=(const SimtBlock &) = delete;

  // The most threads one run() may ask for: the constructor's `threads`.
  int capacity() const { return capacity_; }

  // Runs body(t) for every thread t in [0, threads) of one block (1 <= threads <= capacity(), else
  // loom::ArgumentError) on the calling OS thread, and returns once every body has returned.
  // Threads start in order 0, 1, 2, ...; each runs until it returns or blocks in barrier() or
  // warp_exchange(), and blocked threads resume round-robin, in thread order, once what they wait
  // for is complete. May be called any number of times, but not from inside a body (of any block:
  // ArgumentError).
  //
  // If a body throws, run() schedules no other thread and rethrows that exception. The other
  // threads are abandoned where they stand, not unwound: destructors of objects on their stacks
  // never run, so whatever those objects own (heap memory, locks) stays leaked or held. Bodies
  // that may throw should keep such objects outside the body.
  //
  // If every unfinished thread is blocked and no barrier or warp collective can complete (threads
  // wait at different sync points, e.g. a barrier inside a branch only some threads take), run()
  // abandons the threads the same way and throws loom::DeadlockError saying that the block
  // deadlocked: how many threads wait at a barrier, how many at a warp collective and how many
  // have finished. It never hangs.
  //
  // Stack overflow in a body (deeper than stack_bytes) is a segmentation fault on the guard page.
  // A body must not block in barrier() or warp_exchange() inside a catch handler or a destructor
  // that runs during unwinding: the C++ runtime keeps its record of the exceptions in flight and
  // being handled per OS thread, not per fiber, so another fiber's exceptions would corrupt it.
  void run(int threads, const std::function<void(int thread)> &body);

  // Called from inside a body of this block (else ArgumentError): __syncthreads. Returns once
  // every thread of the block that has not finished has arrived; threads that already returned
  // do not count, as with independent thread scheduling (sm_70+). Memory written before the
  // barrier is visible after it: all threads share one OS thread.
  void barrier();

  // Called from inside a body of this block: lets the block's other ready threads run, and
  // returns when the scheduler comes back to this one (a thread spinning on a condition that
  // other threads make true: a memory barrier's phase, ir::Mbarrier in the interpreter).
  void yield();

  // What a warp collective gives every participating lane: each lane's contribution, and `active`
  // with bit l set for each lane l that contributed. Lanes that did not (they finished, or lie
  // beyond the block in a partial last warp) hold 0.
  struct WarpValues {
    std::array<uint64_t, warp_size> value;
    uint32_t active;
  };

  // Called from inside a body of this block (else ArgumentError): one warp collective, from which
  // shuffles, votes, ballots and warp reductions are built. Threads [32w, 32w+32) form warp w (the
  // last warp may be partial). Every unfinished thread of the calling thread's warp contributes
  // `value`; returns once all of them have. The result stays valid until the calling thread's
  // next barrier() or warp_exchange(), so read what you need from it before then.
  const WarpValues &warp_exchange(uint64_t value);

  // The SimtBlock running a body on this OS thread, or nullptr outside run().
  static SimtBlock *current();
  // The index of the thread whose body is running, or -1 outside run().
  int thread() const { return thread_; }

private:
  struct Fiber;
  struct Warp;

  static void entry();
  void prepare(int threads);
  void allocate(Fiber &fiber);
  void resume(int thread);
  void suspend(Fiber &fiber, bool last);
  void push(int thread);
  void finish(int thread);
  void release_barrier();
  void release_warp(int warp);
  void abandon();

  int capacity_;
  size_t stack_bytes_;
  std::unique_ptr<Fiber[]> fibers_;
  std::unique_ptr<Warp[]> warps_;
  std::unique_ptr<Fiber> main_; // the caller of run(), on its own stack

  // The ready queue: a ring of thread indices; a thread is in it at most once.
  std::unique_ptr<int[]> ready_;
  int ready_head_ = 0, ready_count_ = 0;

  // The state of the run in progress.
  const std::function<void(int)> *body_ = nullptr;
  int threads_ = 0;         // of this run
  int thread_ = -1;         // running now
  int finished_ = 0;        // threads whose body returned
  int barrier_waiting_ = 0; // threads blocked in barrier()
  std::exception_ptr exception_;
};

} // namespace loom::support
