// The tile schedule on Hopper's warpgroup instructions (ir/TileWgmma.cpp): how a tile splits
// among warpgroups (Plan), and the tiler that writes a tile's threads, shared by the f16/bf16
// copies and multipliers (ir/TileWgmma.cpp) and TF32's producer (ir/TileWgmmaTf32.cpp).
#pragma once

#include "ir/Build.h"
#include "ir/Passes.h"
#include "ir/TileForm.h"

#include <array>

namespace loom::ir::wgmma {

// The tile schedule's shared pieces (ir/TileForm.h): patterns, declarations, the elements a
// thread holds, the loop over tiles.
using namespace tile;

inline constexpr int64_t vec = 8;          // 16-bit elements in a 16-byte group (one cp.async)
inline constexpr int64_t swizzle_row = 64; // 16-bit elements in a swizzled 128-byte row
// TF32: f32 elements in a 16-byte group, in a swizzled 128-byte row (a chunk's depth).
inline constexpr int64_t tf32_vec = 4, tf32_row = 32;
inline constexpr int64_t atom_bytes = 1024;

// How a tile's warpgroups split it: groups_m x groups_n of them, each blocks_m products of 64
// rows x n columns per 16 steps of k; `stages` chunks of depth steps in flight.
// With `producer`, one more warpgroup (the last) makes the copies, and the others multiply.
// With `tf32`, f32 arrays read as TF32: both operands staged along k (wgmma's tf32 takes no
// other layout), the producer rounding each element as it copies it.
struct Plan {
  int64_t threads = 0, groups_m = 0, groups_n = 0, blocks_m = 0, n = 0, stages = 0;
  int64_t stage_a = 0, stage_b = 0;          // elements of a stage of A, of B
  bool a_k_major = false, b_k_major = false; // as staged
  bool producer = false, tf32 = false;
  // TF32: the chunks the producer's copies land in as they are in the arrays, before it rounds
  // and stages them (`raw_slots` of them after the stages, each of a stage's size).
  int64_t raw_slots = 0;
  int64_t element() const { return tf32 ? 4 : 2; } // bytes
  int64_t k_step() const { return tf32 ? 8 : 16; } // k of one instruction
  int64_t raw_base() const { return stages * (stage_a + stage_b); }
  // The stages' elements (and the raw slots'); with a producer, each stage's two memory barriers
  // (8 bytes each) after, then each raw slot's two.
  int64_t barrier_base() const { return (stages + raw_slots) * (stage_a + stage_b); }
  int64_t barriers() const { return producer ? 2 * (stages + raw_slots) : 0; }
  int64_t bytes() const { return barrier_base() * element() + barriers() * 8; }
  int64_t block_threads() const { return threads + (producer ? 128 : 0); }
};

// Why `tile` cannot run on the warpgroup instructions, or empty (and `plan` filled in).
std::string plan_tiles(const TileSchedule &tile, const MatmulForm &form, Plan &plan);

// Whether the rows of the array `p` reads are multiples of `elements` (a copy's bytes), and a
// group read along k starts at one: where the loop's first k is a multiple too.
Expr rows_aligned(const Pattern &p, const Expr &kb, int64_t elements);

inline Expr bits(BinaryOp op, Expr a, int64_t b) {
  return Binary::make(op, std::move(a), i64(b));
}
inline Expr bit_xor(Expr a, Expr b) {
  return Binary::make(BinaryOp::BitXor, std::move(a), std::move(b));
}

// The statements of a tile's threads.
class WgmmaTiler {
public:
  WgmmaTiler(const std::vector<Param> &params, const TileSchedule &tile, const Plan &plan,
             const MatmulForm &form, Shared smem)
      : params_(params), tile_(tile), plan_(plan), form_(form), smem_(std::move(smem)) {}

  // The counters a thread of a tile with a producer warpgroup keeps from one tile to the next: the
  // stage of its next chunk and the parity of that stage's phase, and (a multiplier's) the stage
  // it releases next.
  struct Counters {
    Var stage, phase, handed;
    Var raw, raw_phase, fill, fill_phase; // TF32's raw slots: the next to read, the next to fill
  };

  // A thread's statements for the tile at (i0, j0) of the loop's m x n extents (`counters`: with
  // a producer warpgroup).
  void thread_body(std::vector<Stmt> &out, const Expr &i0, const Expr &j0, const Expr &m,
                   const Expr &n, const Counters *counters);

  // Stage s's memory barriers, after the stages: `full` completes a phase when the producer's
  // 128 threads have copied a chunk into it, `empty` when the multipliers' threads have read one;
  // TF32's raw slot r: `raw_full` when the producer's copies into it have landed, `raw_empty`
  // when its 128 threads have read it.
  Expr full(const Expr &stage) const;
  Expr empty(const Expr &stage) const;
  Expr raw_full(const Expr &slot) const;
  Expr raw_empty(const Expr &slot) const;

private:
  // Where and how a tile's chunks are copied: the inner loop's range, the tile's origin and the
  // loop's extents, the copying thread's index among `threads` that share the copies, and whether
  // the tile is whole (see copy_chunk).
  //   Whole: a whole tile, every copy 16 bytes;
  //   Async: a chunk inside the loops' extents, each operand's copies 16 or 8 bytes;
  //   Interior: the same chunk, 16 or 8 bytes or element by element as the rows allow;
  //   Edge: anywhere, zero-filling past the loops' ends.
  enum class Mode { Whole, Async, Interior, Edge };
  struct Copying {
    Expr kb, ke, i0, j0, m, n, tid;
    int64_t threads;
    Mode mode;
  };

  // An operand's part of a stage: `extent` rows (A) or columns (B), `k_major` as it lies, in
  // swizzled rows of `row` elements, 16-byte groups of `group`.
  struct Operand {
    Pattern pattern;
    int64_t extent;
    bool k_major;
    int64_t row = swizzle_row, group = vec;
    Expr stage_base(const Expr &stage, const Plan &p, bool is_a) const;
    // Where element (x, kk) of a stage lies from the stage's start: the swizzled layouts of
    // ir::WarpgroupMma.
    Expr index(const Expr &x, const Expr &kk) const;
    // The first element of the block of 64 rows or n columns at x0, and its descriptor's layout.
    Expr block(const Expr &x0) const;
    WarpgroupMma::Layout layout() const;
  };
  std::array<Operand, 2> operands() const;

  int64_t per_barrier() const { return 8 / plan_.element(); } // a barrier's elements
  void advance(std::vector<Stmt> &out, const Var &stage, const Var *phase = nullptr,
               int64_t count = 0) const;

  // Without a producer (ir/TileWgmma.cpp): every warpgroup copies and multiplies.
  void multiplier_body(std::vector<Stmt> &out, const Expr &i0, const Expr &j0, const Expr &m,
                       const Expr &n, const Expr &tid, const Expr &group, const Counters *counters);
  Expr inside(const Expr &i0, const Expr &j0, const Expr &m, const Expr &n) const;
  Expr whole_tile(const Expr &i0, const Expr &j0, const Expr &m, const Expr &n, const Expr &kb,
                  const Expr &ke) const;
  Stmt staged_loop(const Expr &kb, const Expr &ke, const Expr &i0, const Expr &j0, const Expr &m,
                   const Expr &n, const Expr &tid, const Expr &group_row, const Expr &group_col,
                   const std::vector<std::vector<Var>> &acc, bool whole_tile);
  void copy_chunk(std::vector<Stmt> &into, const Copying &c, const Expr &k0,
                  const Expr &stage) const;
  Stmt products(const Expr &stage, const Expr &group_row, const Expr &group_col,
                const std::vector<std::vector<Var>> &acc, int k_steps, int pending) const;

  // With a producer warpgroup (ir/TileWgmma.cpp): it copies, the others multiply.
  void producer_body(std::vector<Stmt> &out, const Expr &i0, const Expr &j0, const Expr &m,
                     const Expr &n, const Expr &tid, const Counters &cn) const;
  Stmt multiplier_loop(const Expr &kb, const Expr &ke, const Expr &group_row, const Expr &group_col,
                       const std::vector<std::vector<Var>> &acc, const Counters &cn) const;

  // TF32's producer (ir/TileWgmmaTf32.cpp): raw slots, rounded and staged along k.
  void tf32_producer_body(std::vector<Stmt> &out, const Expr &i0, const Expr &j0, const Expr &m,
                          const Expr &n, const Expr &tid, const Counters &cn) const;
  Expr raw_region(const Expr &slot, int s) const;
  void copy_raw(std::vector<Stmt> &into, const Copying &c, const Expr &kc, const Expr &slot,
                bool whole) const;
  void round_raw(std::vector<Stmt> &into, const Expr &tid, const Expr &slot,
                 const Expr &stage) const;

  const std::vector<Param> &params_;
  const TileSchedule &tile_;
  const Plan &plan_;
  const MatmulForm &form_;
  Shared smem_;
};

} // namespace loom::ir::wgmma
