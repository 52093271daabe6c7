// Warp-level matrix products on the tensor cores at the SIMT level, for kernels that do their own
// tiling (as CUDA's mma.sync and wmma, and Triton's tl.dot, let them):
//
//     auto As = loom::shared_array<loom::f16>(64, 24);   // rows of a multiple of 8 elements
//     auto Bs = loom::shared_array<loom::f16>(16, 72);
//     auto acc = loom::local_array<float>(4);            // the lane's 4 elements of a 16 x 8 block
//     ... fill As and Bs, loom::barrier(), set acc[0..3] ...
//     loom::mma_sync(acc, As, row, k, Bs, k, col);        // every lane of the warp, together
//
// The text DSL's `mma_sync(acc, As, row, k, Bs, k2, col)` is the same statement.
#pragma once

#include "frontend/LocalArray.h"
#include "frontend/Simt.h"

namespace loom {

// The warp's product of the 16 x 16 block of A at (row, k) (rows along A's first dimension, k
// along its second) and the 16 x 8 block of B at (k2, col) (k along B's first dimension), added
// into acc: acc[r] += sum over kk < 16 of A(row + m, k + kk) * B(k2 + kk, col + n), where
// (m, n) = (lane / 4 + 8 * (r / 2), 2 * (lane % 4) + r % 2) is lane `lane_id()`'s element r
// (PTX's fragment layout for mma.m16n8k16). A and B are 2-D shared arrays of f16, or of bf16,
// whose rows are multiples of 8 elements; k and col must be multiples of 8 (16-byte rows). The
// products are exact and each sum is rounded to f32 in an order the GPU chooses (docs/
// semantics.md, "Tensor cores"): results agree across targets within that bound, not bit for
// bit. On sm_80 and later one mma.sync with ldmatrix loads; on the CPU and in the interpreter each
// lane's elements from shared memory. Every lane of the warp must call it together, with the
// same arguments but acc, as for the warp shuffles.
template <class H, Operand R, Operand K, Operand K2, Operand C>
void mma_sync(const LocalArray<float, 1> &acc, const SharedArray<H, 2> &A, const R &row, const K &k,
              const SharedArray<H, 2> &B, const K2 &k2, const C &col) {
  // Fires for mma_sync over shared arrays of float, double or integers.
  static_assert(is_half_v<H>, "mma_sync multiplies shared arrays of loom::f16 or of loom::bf16");
  frontend::Tracer &t = detail::simt_tracer("mma_sync()");
  if (acc.size() != 4)
    throw DslError("mma_sync(): the accumulator is a local_array<float>(4), the lane's four "
                   "elements of the 16 x 8 block; this one has " +
                   std::to_string(acc.size()) + " elements");
  for (const ir::Shared &s : {A.array(), B.array()})
    if (s->extents[1] % 8 != 0)
      throw DslError("mma_sync(): shared array '" + s->name + "' has rows of " +
                     std::to_string(s->extents[1]) +
                     " elements; the tensor cores read rows of 16 bytes, so its last extent "
                     "must be a multiple of 8");
  std::array<ir::Var, 4> parts;
  for (int r = 0; r < 4; ++r) {
    parts[size_t(r)] = ir::make_var("acc", ir::ScalarType::F32);
    t.emit(ir::Declare::make(parts[size_t(r)], acc[r].value().expr()));
  }
  t.emit(ir::Mma::make(
      A.array(), {detail::to_expr<int64_t>(row), detail::to_expr<int64_t>(k)}, true, B.array(),
      {detail::to_expr<int64_t>(k2), detail::to_expr<int64_t>(col)}, false, parts));
  for (int r = 0; r < 4; ++r)
    acc[r] = Value<float>(ir::VarRef::make(parts[size_t(r)]));
}

} // namespace loom
