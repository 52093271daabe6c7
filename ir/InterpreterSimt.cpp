// The interpreter's SIMT scheduler: a launch's blocks one after another, a block's threads one
// after another or, when the body synchronizes them, on the fibers of a support::SimtBlock that
// switch at each barrier and warp collective, as compiled CPU code does.
#include "ir/InterpreterMachine.h"

#include "ir/DynamicShared.h"

#include "ir/Synchronizes.h"
#include "support/Error.h"
#include "support/SimtBlock.h"

#include <algorithm>
#include <memory>

namespace loom::ir::interpreter {

void Machine::run_simt(const Stmt &body, const std::vector<Shared> &shared,
                       const std::array<unsigned, 3> &grid, const std::array<unsigned, 3> &block,
                       int64_t dynamic_shared_bytes, bool block_races) {
  auto text = [](const std::array<unsigned, 3> &v) {
    return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) +
           ")";
  };
  const int64_t threads = int64_t(block[0]) * block[1] * block[2];
  if (threads == 0 || grid[0] == 0 || grid[1] == 0 || grid[2] == 0 ||
      threads > support::SimtBlock::max_threads)
    throw ArgumentError("kernel '" + name_ + "': launch shape grid " + text(grid) + " x block " +
                        text(block) + ": " +
                        (threads > support::SimtBlock::max_threads
                             ? "a block has at most " +
                                   std::to_string(support::SimtBlock::max_threads) +
                                   " threads, this one " + std::to_string(threads)
                             : std::string("every extent must be at least 1")));
  // The dynamic shared array as the CPU runtime sizes it, with the CPU's limit.
  dynamic_extent_ = dynamic_shared_extent(name_, shared, dynamic_shared_bytes);
  int64_t static_bytes = 0;
  shared_offsets(shared, &static_bytes);
  check_block_shared_bytes(name_, static_bytes, dynamic_shared_bytes, max_cpu_block_shared_bytes,
                           "the CPU (and in the interpreter)");
  shared_ = shared;
  shared_buffers_.clear();
  shared_shadows_.assign(shared.size(), {});
  for (const Shared &a : shared)
    shared_buffers_.emplace_back(a->type,
                                 a->dynamic ? std::vector<int64_t>{dynamic_extent_} : a->extents);
  // Fiber stacks commit memory only as they are used; the interpreter recurses more deeply
  // than compiled code, so they are larger than the CPU runtime's.
  std::unique_ptr<support::SimtBlock> fibers;
  if (synchronizes(body))
    fibers = std::make_unique<support::SimtBlock>(static_cast<int>(threads), 1024 * 1024);
  fibers_ = fibers.get();
  threads_.resize(static_cast<size_t>(threads));
  simt_ = true;
  block_races_ = block_races;
  block_writes_.assign(args_.size(), {});
  block_reads_.assign(args_.size(), {});
  ++loop_run_; // float sums into array parameters: unordered within the launch
  for (unsigned bz = 0; bz < grid[2]; ++bz)
    for (unsigned by = 0; by < grid[1]; ++by)
      for (unsigned bx = 0; bx < grid[0]; ++bx) {
        ++block_run_; // and into shared arrays, within the block
        mbarriers_.clear(), idle_yields_ = 0;
        for (size_t a = 0; a < shared_buffers_.size(); ++a) {
          std::fill(shared_buffers_[a].bytes.begin(), shared_buffers_[a].bytes.end(), 0);
          if (track_)
            shared_shadows_[a].assign(static_cast<size_t>(shared_buffers_[a].size()), {});
        }
        const unsigned b[3] = {bx, by, bz};
        for (int64_t t = 0; t < threads; ++t) {
          ThreadState &th = threads_[t];
          th.current = nullptr;
          th.locals.clear();
          th.linear = static_cast<int>(t);
          th.warp_calls = 0;
          th.barriers = 0;
          const unsigned idx[3] = {static_cast<unsigned>(t % block[0]),
                                   static_cast<unsigned>(t / block[0] % block[1]),
                                   static_cast<unsigned>(t / (int64_t(block[0]) * block[1]))};
          for (int d = 0; d < 3; ++d) {
            th.special[static_cast<int>(Reg::ThreadIdx)][d] = idx[d];
            th.special[static_cast<int>(Reg::BlockIdx)][d] = b[d];
            th.special[static_cast<int>(Reg::BlockDim)][d] = block[d];
            th.special[static_cast<int>(Reg::GridDim)][d] = grid[d];
          }
          thread_ = &th;
          bind_params();
        }
        if (!fibers) {
          for (ThreadState &th : threads_) {
            thread_ = &th;
            exec(body);
          }
          continue;
        }
        try {
          fibers->run(static_cast<int>(threads), [&](int t) {
            thread_ = &threads_[t];
            exec(body);
          });
        } catch (const DeadlockError &e) { // an InterpreterError, as every stop of the interpreter
          throw InterpreterError("kernel '" + name_ + "', block " + text({bx, by, bz}) + ": " +
                                 e.what());
        }
      }
  simt_ = false;
  block_races_ = false;
  block_writes_.clear(), block_reads_.clear();
  fibers_ = nullptr;
  thread_ = &main_thread_;
}

support::SimtBlock &Machine::simt_block(const char *what) {
  if (!fibers_)
    throw InterpreterError("kernel '" + name_ + "': " + what + " outside a SIMT kernel" + where());
  return *fibers_;
}

void Machine::barrier() {
  ThreadState *self = thread_;
  simt_block("a barrier").barrier(); // the block's other threads run meanwhile
  thread_ = self;
  ++self->barriers;
}

void Machine::check_block_race(int array, int64_t k, bool write) {
  std::vector<BlockAccess> &writes = block_writes_[array], &reads = block_reads_[array];
  if (writes.empty()) {
    writes.resize(size_t(args_[array].array.size()));
    reads.resize(writes.size());
  }
  const BlockAccess me{block_run_, thread_->barriers, thread_->linear};
  // Another thread's access with no barrier between, or another block's.
  auto unordered = [&](const BlockAccess &a) {
    return a.thread != -1 &&
           (a.block != me.block || (a.epoch == me.epoch && a.thread != me.thread));
  };
  BlockAccess &w = writes[size_t(k)], &r = reads[size_t(k)];
  const BlockAccess *other = unordered(w) ? &w : write && unordered(r) ? &r : nullptr;
  if (other) {
    const std::string who = other->thread == -2 ? std::string("several threads")
                                                : "thread " + std::to_string(other->thread);
    throw InterpreterError(
        "kernel '" + name_ + "': the lowered code races on element " + std::to_string(k) + " of '" +
        params_[array].name + "': thread " + std::to_string(me.thread) +
        (write ? " writes it and " : " reads it and ") + who +
        (other == &w ? " wrote it" : " read it") +
        (other->block != me.block ? " in another block" : " with no barrier between") + where());
  }
  if (write)
    w = me, r = BlockAccess{};
  else if (r.thread != -1 && r.block == me.block && r.epoch == me.epoch && r.thread != me.thread)
    r.thread = -2;
  else if (r.thread != -2 || r.block != me.block || r.epoch != me.epoch)
    r = me;
}

// A warp collective: the thread gives its value and waits, while the other threads run, until
// every unfinished lane of its warp has given one; the result is ir::warp_result's.
Value Machine::warp(const WarpOp *n) {
  const Value v = eval(n->value);
  const Value operand = n->operand.defined() ? eval(n->operand) : Value{};
  const uint64_t bits = value_bits(n->value.type(), v.v);
  ThreadState *self = thread_;
  support::SimtBlock &block = simt_block("a warp collective");
  const int lane = self->linear % support::SimtBlock::warp_size;
  const unsigned generation = self->warp_calls++;
  if (track_)
    self->warp_u[generation % 2] = v.u;
  const support::SimtBlock::WarpValues &w = block.warp_exchange(bits);
  thread_ = self; // the other threads ran meanwhile
  const int32_t d = static_cast<int32_t>(operand.v.i);
  Value r{value_from_bits(n->type, warp_result(n->op, w.value.data(), w.active, lane, bits, d)),
          {}};
  if (!track_)
    return r;
  // The lanes' uncertainties, read before this thread's next collective (after it, a lane may
  // overwrite the slot; two slots suffice, as for SimtBlock's buffers).
  const ThreadState *warp0 = self - lane;
  const bool vote =
      n->op == WarpOpKind::Any || n->op == WarpOpKind::All || n->op == WarpOpKind::Ballot;
  if (vote) {
    for (int l = 0; l < support::SimtBlock::warp_size; ++l)
      if ((w.active >> l & 1u) && warp0[l].warp_u[generation % 2].unknown())
        r.u = Uncertainty::any();
  } else if (operand.u.unknown()) {
    r.u = Uncertainty::any();
  } else {
    // Which lane the value came from: the same selection applied to the lane numbers.
    static constexpr auto lanes = [] {
      std::array<uint64_t, 32> l{};
      for (int k = 0; k < 32; ++k)
        l[k] = static_cast<uint64_t>(k);
      return l;
    }();
    const int source = static_cast<int>(
        warp_result(n->op, lanes.data(), w.active, lane, static_cast<uint64_t>(lane), d));
    r.u = {warp0[source].warp_u[generation % 2].error, 0};
  }
  return r;
}

} // namespace loom::ir::interpreter
