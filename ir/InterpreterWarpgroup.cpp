// The interpreter's Hopper warpgroup level: memory barriers (ir::Mbarrier) and the warpgroup
// matrix products (ir::WarpgroupMma) that ir/TileWgmma.cpp builds, so that a warp-specialized
// tile runs, and is checked, on the CPU. Copies are made at once (ir::AsyncCopy), so an
// arrival on copies is an arrival; a thread that waits for a phase lets the block's other
// threads run until it completes. A warpgroup's products are each thread's own accumulators,
// summed from the shared operands where the matrix descriptors' layouts put them.
#include "ir/InterpreterMachine.h"

#include "support/Error.h"
#include "support/SimtBlock.h"

#include <cmath>

namespace loom::ir::interpreter {

void Machine::mbarrier(const Mbarrier *n) {
  if (!thread_ || thread_->linear < 0)
    throw InterpreterError("kernel '" + name_ + "': a memory barrier outside a SIMT thread" +
                           where());
  const int a = shared_index(n->barriers);
  bool uncertain;
  const int64_t element = shared_element(a, {n->index}, false, &uncertain);
  const std::pair<int, int64_t> key{a, element * byte_size(n->barriers->type)};
  if (key.second % 8 != 0)
    throw InterpreterError("kernel '" + name_ + "': a memory barrier at byte " +
                           std::to_string(key.second) + " of shared array '" + n->barriers->name +
                           "', not a multiple of 8" + where());
  auto found = mbarriers_.find(key);
  if (n->op == Mbarrier::Op::Init) {
    const int64_t count = integer(eval(n->value), "a memory barrier's count");
    if (count < 1)
      throw InterpreterError("kernel '" + name_ + "': a memory barrier initialised for " +
                             std::to_string(count) + " arrivals" + where());
    mbarriers_[key] = MemoryBarrier{count, count, 0};
    idle_yields_ = 0;
    return;
  }
  if (found == mbarriers_.end())
    throw InterpreterError("kernel '" + name_ + "': a memory barrier used before its init" +
                           where());
  MemoryBarrier &b = found->second;
  if (n->op != Mbarrier::Op::Wait) { // Arrive, ArriveOnCopies: the copies are complete already
    if (--b.pending == 0)
      b.pending = b.count, b.phase ^= 1;
    idle_yields_ = 0;
    return;
  }
  // The phase of parity p is complete once the phase in progress has the other parity.
  const int64_t parity = integer(eval(n->value), "a memory barrier's parity") & 1;
  ThreadState *self = thread_;
  support::SimtBlock &block = simt_block("a memory barrier's wait");
  while (mbarriers_.at(key).phase == parity) {
    // Every thread that could arrive has run since the last arrival, twice: none will.
    if (++idle_yields_ > 2 * uint64_t(threads_.size()) + 2)
      throw InterpreterError("kernel '" + name_ +
                             "': a memory barrier's wait for the phase of "
                             "parity " +
                             std::to_string(parity) +
                             " can never end: the block's threads all wait, and none arrives" +
                             where());
    block.yield();
    thread_ = self;
  }
}

namespace {

// The byte, from a product's first element, of element (x, k) of an operand in the 128-byte
// swizzled layouts ir::WarpgroupMma describes: x its row (A: m; B: n), k its step of k.
int64_t operand_byte(const WarpgroupMma::Layout &l, int64_t x, int64_t k, int64_t element) {
  if (l.k_major) {
    const int64_t kb = k * element; // within the row's 128 bytes
    return x / 8 * l.sbo + x % 8 * 128 + ((kb / 16) ^ (x % 8)) * 16 + kb % 16;
  }
  const int64_t xb = x % 64 * element; // 64 elements of m or n a row, one row per k
  return x / 64 * l.lbo + k / 8 * l.sbo + k % 8 * 128 + ((xb / 16) ^ (k % 8)) * 16 + xb % 16;
}

} // namespace

// Each product's accumulators this thread holds (the fragment layout of ir::WarpgroupMma),
// each plus its k_steps * 16 (TF32: * 8) products in k order (product_sum).
void Machine::warpgroup_mma(const WarpgroupMma *n) {
  if (!thread_ || thread_->linear < 0)
    throw InterpreterError("kernel '" + name_ + "': a warpgroup mma outside a SIMT thread" +
                           where());
  if (n->k_steps == 0)
    return; // products are complete at once: nothing to wait for
  const int t = thread_->linear % 128;
  const int64_t element = byte_size(n->input),
                depth = n->k_steps * (n->input == ScalarType::F32 ? 8 : 16);
  const int a = shared_index(n->smem);
  const Buffer &buffer = shared_buffers_[a];
  auto read = [&](int64_t first, const WarpgroupMma::Layout &l, int64_t x, int64_t k) {
    const int64_t at = (first * element + operand_byte(l, x, k, element)) / element;
    if (at < 0 || at >= buffer.size())
      throw InterpreterError("kernel '" + name_ + "': a warpgroup mma reads element " +
                             std::to_string(at) + " of shared array '" + n->smem->name +
                             "' (extent " + std::to_string(buffer.size()) + ")" + where());
    return product_operand(n->input, buffer.get(at).f,
                           track_ ? shared_shadows_[a][size_t(at)] : Uncertainty{});
  };
  for (const WarpgroupMma::Product &p : n->products) {
    const int64_t a_first = integer(eval(p.a_offset), "a warpgroup mma's offset"),
                  b_first = integer(eval(p.b_offset), "a warpgroup mma's offset");
    for (size_t e = 0; e < p.acc.size(); ++e) {
      const int64_t row = 16 * (t / 32) + (t % 32) / 4 + 8 * (int64_t(e) % 4 / 2),
                    col = 8 * (int64_t(e) / 4) + 2 * (t % 4) + int64_t(e) % 2;
      lookup(p.acc[e]) = product_sum(lookup(p.acc[e]), depth, [&](int64_t k) {
        return std::pair{read(a_first, n->a, row, k), read(b_first, n->b, col, k)};
      });
    }
  }
}

} // namespace loom::ir::interpreter
