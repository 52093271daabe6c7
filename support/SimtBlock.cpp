#include "support/SimtBlock.h"

#include "support/Error.h"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

// Sanitizers must be told about every stack switch: ASan to know which stack it is on (for
// exceptions, which unpoison the current stack, and for its fake stacks), TSan to give each fiber
// its own shadow call stack and to order the fibers' accesses by the switches. Without sanitizers
// none of this is compiled.
#if defined(__SANITIZE_ADDRESS__)
#define LOOM_SIMT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LOOM_SIMT_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define LOOM_SIMT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LOOM_SIMT_TSAN 1
#endif
#endif

#ifdef LOOM_SIMT_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef LOOM_SIMT_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace loom::support {

namespace {

// The only state shared between a block's fibers and its scheduler that is not in the SimtBlock:
// which block the fibers of this OS thread belong to.
thread_local SimtBlock *current_block = nullptr;

constexpr size_t min_stack_bytes = 16 * 1024;

size_t page_size() {
  static const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

enum class State : uint8_t {
  idle,    // not started in this run
  ready,   // started, in the ready queue
  running, // its body is running now
  barrier, // blocked in barrier()
  warp,    // blocked in warp_exchange()
  done,    // its body returned (or threw)
};

} // namespace

struct SimtBlock::Fiber {
  ucontext_t context;
  char *mapping = nullptr; // the guard page, then the stack; nullptr until first needed
  State state = State::idle;
  // Stopped in the middle of its body by a failed run: its stack holds stale frames.
  bool abandoned = false;
#ifdef LOOM_SIMT_ASAN
  void *fake_stack = nullptr; // ASan's fake stack while switched out
  const void *stack_bottom = nullptr;
  size_t stack_size = 0;
#endif
#ifdef LOOM_SIMT_TSAN
  void *tsan_fiber = nullptr;
#endif
};

// A warp's collective: the contributions of generation `generation` go to buffer[generation % 2].
// Two buffers, because lanes released from one generation run one after another: the first may
// already contribute to the next generation while later lanes have not yet read the last result.
// A third generation cannot start before every unfinished lane has contributed to the second,
// that is, has moved past the first, so its buffer is free again by then.
struct SimtBlock::Warp {
  WarpValues buffer[2];
  unsigned generation = 0;
  int unfinished = 0; // lanes of this run whose body has not returned
  int waiting = 0;    // lanes blocked in this generation
};

SimtBlock::SimtBlock(int threads, size_t stack_bytes) : capacity_(threads) {
  if (threads < 1 || threads > max_threads)
    throw ArgumentError("SimtBlock: a block has 1 to " + std::to_string(max_threads) +
                        " threads, not " + std::to_string(threads));
  if (stack_bytes < min_stack_bytes)
    throw ArgumentError("SimtBlock: a fiber stack needs at least " +
                        std::to_string(min_stack_bytes) + " bytes, not " +
                        std::to_string(stack_bytes));
  size_t page = page_size();
  stack_bytes_ = (stack_bytes + page - 1) / page * page;
  // Not make_unique: that would zero every ucontext_t (about 1 KiB each) only to overwrite it.
  fibers_.reset(new Fiber[threads]);
  warps_ = std::make_unique<Warp[]>((threads + warp_size - 1) / warp_size);
  main_ = std::make_unique<Fiber>();
  ready_ = std::make_unique<int[]>(threads);
}

SimtBlock::~SimtBlock() {
  assert(current_block != this && "SimtBlock destroyed from inside its own run()");
  for (int t = 0; t < capacity_; ++t) {
    Fiber &fiber = fibers_[t];
#ifdef LOOM_SIMT_ASAN
    // Frames still on the stack (a fiber left at a barrier, or abandoned) keep their redzones
    // poisoned, and the shadow outlives the mapping: memory mapped there later (by the CPU JIT's
    // linker) would read as a stack underflow.
    if (fiber.mapping)
      __asan_unpoison_memory_region(fiber.mapping + page_size(), stack_bytes_);
#endif
    if (fiber.mapping)
      munmap(fiber.mapping, page_size() + stack_bytes_);
#ifdef LOOM_SIMT_TSAN
    if (fiber.tsan_fiber)
      __tsan_destroy_fiber(fiber.tsan_fiber);
#endif
  }
}

SimtBlock *SimtBlock::current() {
  return current_block;
}

void SimtBlock::allocate(Fiber &fiber) {
  size_t page = page_size(), bytes = page + stack_bytes_;
  void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  // ENOMEM here means too many mappings, not too little memory (nothing is committed yet): each
  // stack is two, its guard page and the rest, and a process has vm.max_map_count (65530 by
  // default), so that many OS threads each running a block of 1024 fibers run out near 32.
  auto failure = [&](const char *what, int error) {
    std::string message = std::string("SimtBlock: cannot ") + what + ": " + std::strerror(error);
    if (error == ENOMEM)
      message += " (each fiber stack takes two memory mappings; see vm.max_map_count)";
    return Error(message);
  };
  if (p == MAP_FAILED)
    throw failure("map a fiber stack", errno);
  if (mprotect(p, page, PROT_NONE) != 0) {
    int error = errno;
    munmap(p, bytes);
    throw failure("protect a fiber stack's guard page", error);
  }
  // getcontext only once per fiber: makecontext may reuse a context that swapcontext saved
  // since (it saves what getcontext does), which spares a system call per thread and run.
  if (getcontext(&fiber.context) != 0) {
    int error = errno;
    munmap(p, bytes);
    throw failure("get a fiber's context", error);
  }
  fiber.mapping = static_cast<char *>(p);
}

void SimtBlock::prepare(int threads) {
  // Bodies start with the caller's signal mask: setcontext installs the context's mask, and the
  // one a reused context holds may be stale.
  sigset_t mask;
  pthread_sigmask(SIG_SETMASK, nullptr, &mask);
  for (int t = 0; t < threads; ++t) {
    Fiber &fiber = fibers_[t];
    if (!fiber.mapping)
      allocate(fiber);
    if (fiber.abandoned) {
#ifdef LOOM_SIMT_ASAN
      // The abandoned frames never returned, so their redzones are still poisoned.
      __asan_unpoison_memory_region(fiber.mapping + page_size(), stack_bytes_);
#endif
#ifdef LOOM_SIMT_TSAN
      // Its shadow call stack still holds the abandoned frames; start afresh.
      __tsan_destroy_fiber(fiber.tsan_fiber);
      fiber.tsan_fiber = nullptr;
#endif
      fiber.abandoned = false;
    }
#ifdef LOOM_SIMT_TSAN
    if (!fiber.tsan_fiber)
      fiber.tsan_fiber = __tsan_create_fiber(0);
#endif
    fiber.context.uc_stack.ss_sp = fiber.mapping + page_size();
    fiber.context.uc_stack.ss_size = stack_bytes_;
    fiber.context.uc_link = nullptr; // entry() never returns
    fiber.context.uc_sigmask = mask;
    makecontext(&fiber.context, &SimtBlock::entry, 0);
#ifdef LOOM_SIMT_ASAN
    // ASan's swapcontext interceptor clears the shadow of the stack uc_stack names on every
    // switch to it, which would erase the redzones of the frames live across a barrier and hide
    // overflows in them. Only makecontext reads uc_stack, and the annotations tell ASan the rest.
    fiber.context.uc_stack.ss_sp = nullptr;
    fiber.context.uc_stack.ss_size = 0;
#endif
    fiber.state = State::idle;
  }
  int warps = (threads + warp_size - 1) / warp_size;
  for (int w = 0; w < warps; ++w) {
    Warp &warp = warps_[w];
    warp.generation = 0;
    warp.unfinished = std::min(warp_size, threads - w * warp_size);
    warp.waiting = 0;
    warp.buffer[0].value.fill(0);
    warp.buffer[0].active = 0;
  }
}

void SimtBlock::run(int threads, const std::function<void(int)> &body) {
  if (current_block)
    throw ArgumentError("SimtBlock::run called from inside the body of a block");
  if (threads < 1 || threads > capacity_)
    throw ArgumentError("SimtBlock::run: this block runs 1 to " + std::to_string(capacity_) +
                        " threads, not " + std::to_string(threads));
  prepare(threads);
  body_ = &body;
  threads_ = threads;
  finished_ = 0;
  barrier_waiting_ = 0;
  exception_ = nullptr;
  ready_head_ = ready_count_ = 0;
  for (int t = 0; t < threads; ++t)
    push(t);

  current_block = this;
#ifdef LOOM_SIMT_TSAN
  main_->tsan_fiber = __tsan_get_current_fiber();
#endif
  while (ready_count_ > 0 && !exception_) {
    int t = ready_[ready_head_];
    ready_head_ = ready_head_ + 1 == capacity_ ? 0 : ready_head_ + 1;
    --ready_count_;
    resume(t);
  }
  current_block = nullptr;
  thread_ = -1;
  body_ = nullptr;

  if (exception_) {
    abandon();
    std::exception_ptr exception = std::move(exception_);
    exception_ = nullptr;
    std::rethrow_exception(exception);
  }
  if (finished_ < threads) {
    // Nothing is ready, so every unfinished thread waits for a barrier or a warp collective that
    // cannot complete.
    int warp_waiting = 0;
    for (int w = 0; w < (threads + warp_size - 1) / warp_size; ++w)
      warp_waiting += warps_[w].waiting;
    abandon();
    throw DeadlockError("SIMT block of " + std::to_string(threads) +
                        " threads deadlocked: " + std::to_string(barrier_waiting_) +
                        " wait at a barrier, " + std::to_string(warp_waiting) +
                        " at a warp collective, " + std::to_string(finished_) +
                        " have finished (threads wait at different sync points, e.g. a "
                        "barrier in a branch not all threads take)");
  }
}

void SimtBlock::abandon() {
  for (int t = 0; t < threads_; ++t) {
    Fiber &fiber = fibers_[t];
    if (fiber.state != State::idle && fiber.state != State::done)
      fiber.abandoned = true;
  }
}

void SimtBlock::push(int thread) {
  int slot = ready_head_ + ready_count_;
  ready_[slot >= capacity_ ? slot - capacity_ : slot] = thread;
  ++ready_count_;
}

// Switches from the scheduler to `thread`, and back once it blocks or finishes.
void SimtBlock::resume(int thread) {
  Fiber &fiber = fibers_[thread];
  thread_ = thread;
  fiber.state = State::running;
#ifdef LOOM_SIMT_ASAN
  void *fake_stack = nullptr;
  __sanitizer_start_switch_fiber(&fake_stack, fiber.mapping + page_size(), stack_bytes_);
#endif
#ifdef LOOM_SIMT_TSAN
  __tsan_switch_to_fiber(fiber.tsan_fiber, 0);
#endif
  swapcontext(&main_->context, &fiber.context);
#ifdef LOOM_SIMT_ASAN
  __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
#endif
}

// Switches from the running fiber back to the scheduler; returns when resume() picks it again.
// `last`: the fiber has finished and is never resumed (until a later run restarts it).
void SimtBlock::suspend(Fiber &fiber, [[maybe_unused]] bool last) {
#ifdef LOOM_SIMT_ASAN
  // Passing no save slot for the last switch frees the fiber's fake stack.
  __sanitizer_start_switch_fiber(last ? nullptr : &fiber.fake_stack, main_->stack_bottom,
                                 main_->stack_size);
#endif
#ifdef LOOM_SIMT_TSAN
  __tsan_switch_to_fiber(main_->tsan_fiber, 0);
#endif
  swapcontext(&fiber.context, &main_->context);
#ifdef LOOM_SIMT_ASAN
  // The caller of run() may differ from run to run: learn its stack again.
  __sanitizer_finish_switch_fiber(fiber.fake_stack, &main_->stack_bottom, &main_->stack_size);
  // In use again: only a fiber switched out in the middle of its body may hold one here (the
  // last switch frees it), and entry() adopts what it finds.
  fiber.fake_stack = nullptr;
#endif
}

// The function every fiber starts in. It must never return (there is nothing to return to) and
// nothing may unwind past it, so it catches everything and switches away for good.
void SimtBlock::entry() {
  SimtBlock *block = current_block;
  int thread = block->thread_;
  Fiber &fiber = block->fibers_[thread];
#ifdef LOOM_SIMT_ASAN
  // A fiber abandoned by an earlier run left its fake stack behind; this fiber adopts it rather
  // than leak it.
  __sanitizer_finish_switch_fiber(fiber.fake_stack, &block->main_->stack_bottom,
                                  &block->main_->stack_size);
  fiber.fake_stack = nullptr;
#endif
  try {
    (*block->body_)(thread);
  } catch (...) {
    block->exception_ = std::current_exception();
  }
  if (block->exception_)
    fiber.state = State::done; // run() stops scheduling; no sync point needs to learn of it
  else
    block->finish(thread);
  block->suspend(fiber, /*last=*/true);
  std::abort(); // a finished fiber is never resumed
}

void SimtBlock::finish(int thread) {
  fibers_[thread].state = State::done;
  ++finished_;
  // A thread that returns no longer counts at barriers and in its warp: both may complete now.
  Warp &warp = warps_[thread / warp_size];
  --warp.unfinished;
  release_warp(thread / warp_size);
  release_barrier();
}

void SimtBlock::barrier() {
  if (current_block != this || thread_ < 0)
    throw ArgumentError("SimtBlock::barrier called outside a body of this block");
  Fiber &fiber = fibers_[thread_];
  fiber.state = State::barrier;
  ++barrier_waiting_;
  release_barrier();
  suspend(fiber, /*last=*/false);
}

void SimtBlock::yield() {
  if (current_block != this || thread_ < 0)
    throw ArgumentError("SimtBlock::yield called outside a body of this block");
  Fiber &fiber = fibers_[thread_];
  fiber.state = State::ready;
  push(thread_);
  suspend(fiber, /*last=*/false);
}

void SimtBlock::release_barrier() {
  if (barrier_waiting_ == 0 || barrier_waiting_ != threads_ - finished_)
    return;
  barrier_waiting_ = 0;
  for (int t = 0; t < threads_; ++t) {
    if (fibers_[t].state == State::barrier) {
      fibers_[t].state = State::ready;
      push(t);
    }
  }
}

const SimtBlock::WarpValues &SimtBlock::warp_exchange(uint64_t value) {
  if (current_block != this || thread_ < 0)
    throw ArgumentError("SimtBlock::warp_exchange called outside a body of this block");
  int w = thread_ / warp_size, lane = thread_ % warp_size;
  Warp &warp = warps_[w];
  WarpValues &result = warp.buffer[warp.generation % 2];
  result.value[lane] = value;
  result.active |= uint32_t(1) << lane;
  Fiber &fiber = fibers_[thread_];
  fiber.state = State::warp;
  ++warp.waiting;
  release_warp(w);
  suspend(fiber, /*last=*/false);
  return result;
}

void SimtBlock::release_warp(int w) {
  Warp &warp = warps_[w];
  if (warp.waiting == 0 || warp.waiting != warp.unfinished)
    return;
  // Every lane that reads the other buffer's result (generation - 1) has contributed to this
  // generation since, so the other buffer can take the next generation's contributions.
  WarpValues &next = warp.buffer[(warp.generation + 1) % 2];
  next.value.fill(0);
  next.active = 0;
  ++warp.generation;
  warp.waiting = 0;
  int end = std::min(threads_, (w + 1) * warp_size);
  for (int t = w * warp_size; t < end; ++t) {
    if (fibers_[t].state == State::warp) {
      fibers_[t].state = State::ready;
      push(t);
    }
  }
}

} // namespace loom::support
