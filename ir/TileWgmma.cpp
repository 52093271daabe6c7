// The tile schedule on Hopper's warpgroup tensor-core instructions (sm_90a's wgmma.mma_async),
// for the matmul form over f16 or bf16 arrays (ir/TileMma.cpp finds it, and takes mma.sync where
// this does not apply). With S stages (S >= 3; A = S - 2 chunks copied ahead):
//
//   for tile = blockIdx.x; tile < tiles; tile += gridDim.x:
//     each element e the thread holds: acc_e = 0.0
//     chunks 0 .. A-1 into stages 0 .. A-1 (cp.async, a group each)
//     for k0 in range(k_begin, k_end, depth):
//       barrier (every warpgroup is done with the chunk two before)
//       the chunk A ahead into that chunk's stage (cp.async)
//       wait until this chunk's group is in; fence the async proxy; barrier
//       each warpgroup: its products of this chunk, 64 rows x n columns each (wgmma, the
//         operands read by the tensor cores straight from shared memory), left running while
//         the previous chunk's are waited for
//     wait for the last chunk's products
//     each element in range: C[i, j] = acc_e
//
// (With two stages: one chunk ahead, each chunk's products waited for, then a barrier.) The
// stages live in one dynamic shared array, 1024-byte aligned, in the 128-byte swizzled layouts
// wgmma's matrix descriptors describe (ir::WarpgroupMma): an operand read along k (A[i, k],
// B[j, k]) in rows of its 64 steps of k, one per row or column of the tile; one read along i or
// j (A[k, i], B[k, j]) in rows of 64 rows or columns, one per step of k. A 16-byte group of 8
// elements neighbouring in the array stays together either way, so each thread's copies are
// cp.async's 16 bytes as on the mma.sync tile. The thread holding accumulator e of a product
// is the one wgmma's fragment layout names (ir::WarpgroupMma).
#include "ir/TileWgmma.h"

namespace loom::ir {

namespace wgmma {

namespace {

// sm_90's shared memory: at most 227 KiB a block, 228 KiB an SM, 1 KiB of it reserved a block.
constexpr int64_t block_limit = 227 * 1024, sm_limit = 228 * 1024, reserved = 1024;
constexpr int64_t max_stages = 5;
// The most f32 accumulators a thread keeps (a warpgroup's 64 x 256 block: 128).
constexpr int64_t max_accumulators = 128;
// The registers a thread needs beside its accumulators: ptxas asked for 154 for a 64 x 256 block
// (128 accumulators) and assembled a 64 x 128 one (64) in 128.
constexpr int64_t reserved_registers = 32;

} // namespace

std::string plan_tiles(const TileSchedule &tile, const MatmulForm &form, Plan &plan) {
  plan.threads = tile.threads();
  plan.tf32 = form.input == ScalarType::F32;
  plan.a_k_major = plan.tf32 || form.a.k_dim == 1; // A[i, k]
  plan.b_k_major = plan.tf32 || form.b.k_dim == 1; // B[j, k]
  if (plan.threads % 128 != 0)
    return "the tile's " + std::to_string(plan.threads) +
           " threads are not whole warpgroups of 128";
  if (plan.tf32 && tile.depth != tf32_row)
    return "TF32 stages both operands along k in rows of 32 steps of k (128 swizzled bytes), and "
           "the depth is " +
           std::to_string(tile.depth) + ", not 32";
  if (plan.tf32 &&
      (tile.rows * tile.depth / 16 % 128 != 0 || tile.cols * tile.depth / 16 % 128 != 0))
    return "the producer warpgroup's 128 threads do not divide the tile's chunks into equal "
           "shares of 4 x 4 blocks";
  if (!plan.tf32 && (plan.a_k_major || plan.b_k_major) && tile.depth != swizzle_row)
    return "an operand read along k (A[i, k] or B[j, k]) is staged in rows of 64 steps of k "
           "(128 swizzled bytes), and the depth is " +
           std::to_string(tile.depth) + ", not 64";
  if (tile.depth <= 0 || tile.depth % 16 != 0)
    return "the depth " + std::to_string(tile.depth) + " is not a positive multiple of 16";
  const int64_t groups = plan.threads / 128;
  for (int64_t gm = groups; gm >= 1 && plan.groups_m == 0; --gm) {
    if (groups % gm != 0)
      continue;
    const int64_t gn = groups / gm;
    if (tile.rows % (64 * gm) != 0 || tile.cols % gn != 0)
      continue;
    const int64_t n = tile.cols / gn, blocks_m = tile.rows / (64 * gm);
    if (n % 8 != 0 || n > 256 || (!plan.b_k_major && n % swizzle_row != 0) ||
        blocks_m * n / 2 > max_accumulators)
      continue;
    plan.groups_m = gm, plan.groups_n = gn, plan.blocks_m = blocks_m, plan.n = n;
  }
  if (plan.groups_m == 0)
    return "the " + std::to_string(tile.rows) + " x " + std::to_string(tile.cols) +
           " tile does not split among " + std::to_string(groups) +
           " warpgroups into blocks of 64 rows and at most 256 columns (multiples of 64 where B "
           "is read along its columns), at most " +
           std::to_string(max_accumulators) + " accumulators a thread";
  // A launch bound leaves each thread 65536 / (threads x blocks) registers (ptxas's cap: 255);
  // wgmma's accumulators must fit in them with the descriptors, addresses and indices beside
  // (ptxas refuses the instruction otherwise). A producer warpgroup takes its share too: the
  // tile has one where its registers leave enough.
  const int64_t blocks = std::max(tile.min_blocks, 1);
  auto registers = [&](int64_t threads) {
    return std::min<int64_t>(255, 65536 / (threads * blocks) / 8 * 8);
  };
  const int64_t needed = plan.blocks_m * plan.n / 2 + reserved_registers;
  if (tile.min_blocks > 0 && needed > registers(plan.threads))
    return "with " + std::to_string(tile.min_blocks) + " blocks an SM a thread has " +
           std::to_string(registers(plan.threads)) + " registers, fewer than its " +
           std::to_string(plan.blocks_m * plan.n / 2) + " accumulators and " +
           std::to_string(reserved_registers) + " others need";
  plan.producer = plan.threads + 128 <= 1024 && needed <= registers(plan.threads + 128);
  if (plan.tf32 && !plan.producer)
    return "TF32 needs a producer warpgroup (to round the operands and stage them along k), and " +
           std::to_string(plan.threads + 128) + " threads " +
           (plan.threads + 128 > 1024
                ? "are more than a block has"
                : "leave " + std::to_string(registers(plan.threads + 128)) +
                      " registers a thread, fewer than " + std::to_string(needed));
  if (!plan.tf32 && ((tile.rows * tile.depth / vec) % plan.threads != 0 ||
                     (tile.cols * tile.depth / vec) % plan.threads != 0))
    return "the tile's threads do not divide its chunks into equal shares of 8-element groups";
  plan.stage_a = tile.rows * tile.depth;
  plan.stage_b = tile.cols * tile.depth;
  const int64_t limit =
      std::min(block_limit, sm_limit / blocks - reserved) - (plan.producer ? 128 : 0); // barriers
  const int64_t stage_bytes = (plan.stage_a + plan.stage_b) * plan.element();
  plan.raw_slots = plan.tf32 ? 2 : 0;
  plan.stages = std::min(max_stages, limit / stage_bytes - plan.raw_slots);
  if (plan.stages < 2)
    return "two stages of the tile take " + std::to_string(2 * stage_bytes) +
           " bytes of shared memory, more than the " + std::to_string(limit) + " a block has" +
           (blocks > 1 ? " with " + std::to_string(blocks) + " blocks an SM" : "");
  return "";
}

// Whether the rows of the array `p` reads are multiples of `elements` (a copy's bytes), and a

Expr rows_aligned(const Pattern &p, const Expr &kb, int64_t elements) {
  Expr ok =
      eq(Binary::make(BinaryOp::BitAnd, ArrayExtent::make(p.array, 1), i64(elements - 1)), i64(0));
  if (p.k_dim == 1)
    ok = logical_and(ok, eq(Binary::make(BinaryOp::BitAnd, kb, i64(elements - 1)), i64(0)));
  return ok;
}

void WgmmaTiler::thread_body(std::vector<Stmt> &out, const Expr &i0, const Expr &j0, const Expr &m,
                             const Expr &n, const Counters *counters) {
  Var tid = declare(out, "thread", reg_i64(Reg::ThreadIdx, 0));
  Var group = declare(out, "warpgroup", div(var_ref(tid), i64(128)));
  if (!counters) {
    multiplier_body(out, i0, j0, m, n, var_ref(tid), var_ref(group), nullptr);
    return;
  }
  std::vector<Stmt> produce, multiply;
  if (plan_.tf32)
    tf32_producer_body(produce, i0, j0, m, n, var_ref(tid), *counters);
  else
    producer_body(produce, i0, j0, m, n, var_ref(tid), *counters);
  multiplier_body(multiply, i0, j0, m, n, var_ref(tid), var_ref(group), counters);
  out.push_back(IfThenElse::make(eq(var_ref(group), i64(plan_.threads / 128)),
                                 Block::make(std::move(produce)),
                                 Block::make(std::move(multiply))));
}

// A warpgroup that multiplies (every one without a producer, and then it copies too): its
// accumulators, its loop over the chunks, the statements after the inner loop.
void WgmmaTiler::multiplier_body(std::vector<Stmt> &out, const Expr &i0, const Expr &j0,
                                 const Expr &m, const Expr &n, const Expr &tid, const Expr &group,
                                 const Counters *counters) {
  Var warp = declare(out, "warp", div(mod(tid, i64(128)), i64(32)));
  Var lane = declare(out, "lane", mod(tid, i64(32)));
  Var group_row =
      declare(out, "group_row", mul(div(group, i64(plan_.groups_n)), i64(plan_.blocks_m * 64)));
  Var group_col = declare(out, "group_col", mul(mod(group, i64(plan_.groups_n)), i64(plan_.n)));
  Var quad = declare(out, "quad", div(var_ref(lane), i64(4)));
  Var pair = declare(out, "pair", mul(mod(var_ref(lane), i64(4)), i64(2)));
  // rows[bm * 2 + h]: block bm's row 16 warp + quad + 8 h; cols[c * 2 + q]: column 8 c + pair +
  // q. Declared before the loop for the statements before it, and again after it for the ones
  // after (those before it seldom read them: an accumulator's 0): no register holds them
  // through the loop.
  TileElements held;
  auto positions = [&] {
    held.rows.clear(), held.cols.clear();
    for (int64_t bm = 0; bm < plan_.blocks_m; ++bm)
      for (int h = 0; h < 2; ++h)
        held.rows.push_back(TileElements::position(
            out, form_.i->name,
            add(add(i0, var_ref(group_row)),
                add(add(mul(var_ref(warp), i64(16)), var_ref(quad)), i64(bm * 64 + h * 8))),
            m));
    for (int64_t c = 0; c < plan_.n / 8; ++c)
      for (int q = 0; q < 2; ++q)
        held.cols.push_back(TileElements::position(
            out, form_.j->name,
            add(add(j0, var_ref(group_col)), add(var_ref(pair), i64(c * 8 + q))), n));
  };
  positions();
  // Product bm's accumulator e is element bm * n / 2 + e.
  std::vector<std::vector<Var>> acc(size_t(plan_.blocks_m));
  for (int64_t bm = 0; bm < plan_.blocks_m; ++bm)
    for (int64_t e = 0; e < plan_.n / 2; ++e) {
      held.add(out, form_, bm * 2 + (e % 4) / 2, (e / 4) * 2 + e % 2);
      acc[size_t(bm)].push_back(held.elements.back().acc);
    }

  Var kb = declare(out, form_.inner->var->name + "_begin", form_.inner->begin);
  Var ke = declare(out, form_.inner->var->name + "_end", form_.inner->end);
  if (counters) {
    out.push_back(IfThenElse::make(lt(var_ref(kb), var_ref(ke)),
                                   multiplier_loop(var_ref(kb), var_ref(ke), var_ref(group_row),
                                                   var_ref(group_col), acc, *counters)));
  } else {
    // A tile inside the loop's extents, of whole chunks, whose operands' rows are multiples of 16
    // bytes runs a loop of 16-byte asynchronous copies only; the others (at the loops' ends, or
    // of odd extents) one that zero-fills and chooses narrower copies or element ones where it
    // must. Two loops: the second one's indices would otherwise take registers through the first.
    auto loop = [&](bool whole) {
      return staged_loop(var_ref(kb), var_ref(ke), i0, j0, m, n, tid, var_ref(group_row),
                         var_ref(group_col), acc, whole);
    };
    Var fast = declare(out, "whole_tile", whole_tile(i0, j0, m, n, var_ref(kb), var_ref(ke)));
    out.push_back(IfThenElse::make(
        lt(var_ref(kb), var_ref(ke)),
        IfThenElse::make(var_ref(fast), Block::make({Assume::make(var_ref(fast)), loop(true)}),
                         loop(false))));
  }

  positions();
  held.finish(out, form_);
}

// Whether the tile at (i0, j0) lies inside the loop's m x n extents.
Expr WgmmaTiler::inside(const Expr &i0, const Expr &j0, const Expr &m, const Expr &n) const {
  return logical_and(le(add(i0, i64(tile_.rows)), m), le(add(j0, i64(tile_.cols)), n));
}

// Whether the tile at (i0, j0) is inside the loop's extents, its k range whole chunks, and its
// operands' rows multiples of 16 bytes (copy_chunk).
Expr WgmmaTiler::whole_tile(const Expr &i0, const Expr &j0, const Expr &m, const Expr &n,
                            const Expr &kb, const Expr &ke) const {
  Expr whole = logical_and(inside(i0, j0, m, n), eq(mod(sub(ke, kb), i64(tile_.depth)), i64(0)));
  for (const Pattern &p : {form_.a, form_.b})
    whole = params_[p.array].strided ? BoolConst::make(false)
                                     : logical_and(whole, rows_aligned(p, kb, vec));
  return whole;
}

// Stage s's memory barriers, 8 bytes each after the stages: `full` completes a phase when the
// producer's 128 threads have copied a chunk into it; `empty` when the multipliers' threads have
// read one (their products of it are done).
Expr WgmmaTiler::full(const Expr &stage) const {
  return add(i64(plan_.barrier_base()), mul(stage, i64(per_barrier())));
}

Expr WgmmaTiler::empty(const Expr &stage) const {
  return add(i64(plan_.barrier_base() + per_barrier() * plan_.stages),
             mul(stage, i64(per_barrier())));
}

// TF32's raw slot r: `raw_full` completes a phase when the producer's copies into it have
// landed, `raw_empty` when its 128 threads have read it.
Expr WgmmaTiler::raw_full(const Expr &slot) const {
  return add(i64(plan_.barrier_base() + per_barrier() * 2 * plan_.stages),
             mul(slot, i64(per_barrier())));
}

Expr WgmmaTiler::raw_empty(const Expr &slot) const {
  return add(i64(plan_.barrier_base() + per_barrier() * (2 * plan_.stages + plan_.raw_slots)),
             mul(slot, i64(per_barrier())));
}

// Moves `stage` on to the next stage, around; with `phase`, its parity flips on the way around.
// (Or around `count` raw slots.)
void WgmmaTiler::advance(std::vector<Stmt> &out, const Var &stage, const Var *phase,
                         int64_t count) const {
  const int64_t around = count > 0 ? count : plan_.stages;
  Expr up = add(var_ref(stage), i64(1));
  if (phase)
    out.push_back(
        Assign::make(*phase, Select::make(eq(up, i64(around)), bit_xor(var_ref(*phase), i64(1)),
                                          var_ref(*phase))));
  out.push_back(Assign::make(stage, Select::make(eq(up, i64(around)), i64(0), up)));
}

// The producer warpgroup: each chunk of the tile into the next stage once the multipliers have
// released it, in the copies copy_chunk makes. A chunk inside the loops' extents whose
// operands' rows are multiples of 8 bytes is all cp.async of 16 or 8 bytes: each thread
// arrives at the stage's `full` barrier when its copies complete, without waiting for them.
// Other chunks (rows of other lengths: element by element; the loops' ends: zero-filled) are
// waited for and fenced for the tensor cores' proxy before the thread arrives.
void WgmmaTiler::producer_body(std::vector<Stmt> &out, const Expr &i0, const Expr &j0,
                               const Expr &m, const Expr &n, const Expr &tid,
                               const Counters &cn) const {
  Var copier = declare(out, "copier", sub(tid, i64(plan_.threads)));
  Var kb = declare(out, form_.inner->var->name + "_begin", form_.inner->begin);
  Var ke = declare(out, form_.inner->var->name + "_end", form_.inner->end);
  Expr async = BoolConst::make(true);
  for (const Pattern &p : {form_.a, form_.b})
    async = params_[p.array].strided ? BoolConst::make(false)
                                     : logical_and(async, rows_aligned(p, var_ref(kb), vec / 2));
  Var within = declare(out, "tile_inside", inside(i0, j0, m, n));
  Var all_async = declare(out, "rows_copied_async", async);
  Var k0 = make_var("chunk", ScalarType::I64);
  auto copies = [&](Mode mode) {
    std::vector<Stmt> body;
    const Copying c{var_ref(kb), var_ref(ke), i0, j0, m, n, var_ref(copier), 128, mode};
    copy_chunk(body, c, var_ref(k0), var_ref(cn.stage));
    if (mode == Mode::Async) {
      body.push_back(Mbarrier::make(Mbarrier::Op::ArriveOnCopies, smem_, full(var_ref(cn.stage))));
    } else {
      body.push_back(AsyncWait::make(-1, true));
      body.push_back(Mbarrier::make(Mbarrier::Op::Arrive, smem_, full(var_ref(cn.stage))));
    }
    return Block::make(std::move(body));
  };
  std::vector<Stmt> chunk;
  // The stage is free once the multipliers released the chunk `stages` before (a stage not yet
  // used: the phase before the first, complete).
  chunk.push_back(Mbarrier::make(Mbarrier::Op::Wait, smem_, empty(var_ref(cn.stage)),
                                 bit_xor(var_ref(cn.phase), i64(1))));
  chunk.push_back(IfThenElse::make(
      logical_and(var_ref(within), le(add(var_ref(k0), i64(tile_.depth)), var_ref(ke))),
      IfThenElse::make(var_ref(all_async), copies(Mode::Async), copies(Mode::Interior)),
      copies(Mode::Edge)));
  advance(chunk, cn.stage, &cn.phase);
  out.push_back(
      For::make(k0, var_ref(kb), var_ref(ke), i64(tile_.depth), Block::make(std::move(chunk))));
}

// The multipliers' loop over the chunks with a producer: each chunk's products once its stage
// is full, left running while the previous chunk's are waited for; that chunk's stage is then
// released (every multiplying thread arrives).
Stmt WgmmaTiler::multiplier_loop(const Expr &kb, const Expr &ke, const Expr &group_row,
                                 const Expr &group_col, const std::vector<std::vector<Var>> &acc,
                                 const Counters &cn) const {
  auto release = [&](std::vector<Stmt> &into) {
    into.push_back(Mbarrier::make(Mbarrier::Op::Arrive, smem_, empty(var_ref(cn.handed))));
    advance(into, cn.handed);
  };
  Var k0 = make_var("chunk", ScalarType::I64);
  std::vector<Stmt> chunk;
  chunk.push_back(
      Mbarrier::make(Mbarrier::Op::Wait, smem_, full(var_ref(cn.stage)), var_ref(cn.phase)));
  chunk.push_back(
      products(var_ref(cn.stage), group_row, group_col, acc, int(tile_.depth / plan_.k_step()), 1));
  std::vector<Stmt> previous; // the chunk before this one is done
  release(previous);
  chunk.push_back(IfThenElse::make(gt(var_ref(k0), kb), Block::make(std::move(previous))));
  advance(chunk, cn.stage, &cn.phase);
  std::vector<Stmt> out;
  out.push_back(For::make(k0, kb, ke, i64(tile_.depth), Block::make(std::move(chunk))));
  out.push_back(products(var_ref(cn.stage), group_row, group_col, acc, 0, 0));
  release(out);
  return Block::make(std::move(out));
}

std::array<WgmmaTiler::Operand, 2> WgmmaTiler::operands() const {
  const int64_t row = plan_.tf32 ? tf32_row : swizzle_row, group = plan_.tf32 ? tf32_vec : vec;
  return {Operand{form_.a, tile_.rows, plan_.a_k_major, row, group},
          Operand{form_.b, tile_.cols, plan_.b_k_major, row, group}};
}

// Each warpgroup's products of the chunk in `stage` (its blocks of 64 rows from group_row, n
// columns from group_col), k_steps steps of 16 (0: only the wait), leaving `pending` running.
Stmt WgmmaTiler::products(const Expr &stage, const Expr &group_row, const Expr &group_col,
                          const std::vector<std::vector<Var>> &acc, int k_steps,
                          int pending) const {
  const std::array<Operand, 2> ops = operands();
  std::vector<WarpgroupMma::Product> products;
  for (int64_t bm = 0; bm < plan_.blocks_m; ++bm)
    products.push_back(
        {add(ops[0].stage_base(stage, plan_, true), ops[0].block(add(group_row, i64(bm * 64)))),
         add(ops[1].stage_base(stage, plan_, false), ops[1].block(group_col)), acc[size_t(bm)]});
  return WarpgroupMma::make(smem_, plan_.n, k_steps, ops[0].layout(), ops[1].layout(),
                            std::move(products), pending);
}

// The chunk at k0 into stage `stage`, each operand on its own, as 16-byte groups of 8 elements
// neighbouring along the array's last dimension (which stay together in the swizzled
// layout): where the array's rows are multiples of 16 bytes, cp.async copies of 16 bytes; of 8
// bytes, two of 8; the elements past the inner loop's end or the loop's extent zero-filled
// (cp.async's src-size). Elsewhere element by element, clamped into the array, zeros past the
// inner loop's end. A whole tile (both operands' rows multiples of 16 bytes, the tile inside
// the loop's extents, its k range whole chunks) copies 16 bytes at a time, nothing to fill:
// the valid counts' arithmetic cost it a fifth of its speed on the H200 (bench/RESULTS.md).
void WgmmaTiler::copy_chunk(std::vector<Stmt> &into, const Copying &c, const Expr &k0,
                            const Expr &stage) const {
  const int64_t depth = tile_.depth, threads = c.threads;
  const Expr &kb = c.kb, &ke = c.ke, &tid = c.tid;
  const std::array<Operand, 2> ops = operands();
  for (int s = 0; s < 2; ++s) {
    const Operand &op = ops[s];
    const Expr &base = s == 0 ? c.i0 : c.j0;
    const Expr &extent = s == 0 ? c.m : c.n;
    const int64_t fast = op.k_major ? depth : op.extent; // along the array's last dimension
    Expr region = op.stage_base(stage, plan_, s == 0);
    std::vector<Stmt> whole, half, wide, narrow, single, bare;
    const bool strided = params_[op.pattern.array].strided; // element by element only
    auto at = [&](const Expr &k, const Expr &x) {
      return op.pattern.k_dim == 0 ? std::vector<Expr>{k, x} : std::vector<Expr>{x, k};
    };
    for (int64_t l = 0; l < op.extent * depth / vec / threads; ++l) {
      Expr g = add(tid, i64(l * threads));
      Expr along = mul(mod(g, i64(fast / vec)), i64(vec)), across = div(g, i64(fast / vec));
      Expr kk = op.k_major ? along : across, x = op.k_major ? across : along;
      Expr k = add(k0, kk), xa = add(base, x);
      Expr dst = add(region, op.index(x, kk));
      // The elements of the group from its element `from` on that are in range (at most
      // `count`), and where a copy of them reads (an element in range when there is none).
      auto copy = [&](int64_t from, int64_t count) {
        Expr valid, src;
        if (op.k_major) {
          Expr left = sub(ke, add(k, i64(from)));
          valid = Select::make(lt(xa, extent), max(min(left, i64(count)), i64(0)), i64(0));
        } else {
          Expr left = sub(extent, add(xa, i64(from)));
          valid = Select::make(lt(k, ke), max(min(left, i64(count)), i64(0)), i64(0));
        }
        Expr some = gt(valid, i64(0));
        Expr sk = Select::make(some, op.k_major ? add(k, i64(from)) : k, kb);
        Expr sx = Select::make(some, op.k_major ? xa : add(xa, i64(from)), i64(0));
        return AsyncCopy::make(smem_, {add(dst, i64(from))}, op.pattern.array, form_.input,
                               at(sk, sx), int(count * 2), valid);
      };
      if (c.mode != Mode::Edge) {
        if (!strided) {
          whole.push_back(AsyncCopy::make(smem_, {dst}, op.pattern.array, form_.input, at(k, xa)));
          for (int64_t from : {int64_t(0), vec / 2})
            half.push_back(AsyncCopy::make(
                smem_, {add(dst, i64(from))}, op.pattern.array, form_.input,
                at(op.k_major ? add(k, i64(from)) : k, op.k_major ? xa : add(xa, i64(from))),
                int(vec)));
        }
        if (c.mode == Mode::Interior)
          for (int v = 0; v < vec; ++v)
            bare.push_back(SharedStore::make(smem_, {add(dst, i64(v))},
                                             Load::make(form_.input, op.pattern.array,
                                                        at(op.k_major ? add(k, i64(v)) : k,
                                                           op.k_major ? xa : add(xa, i64(v))))));
        continue;
      }
      if (!strided) {
        wide.push_back(copy(0, vec));
        narrow.push_back(copy(0, vec / 2));
        narrow.push_back(copy(vec / 2, vec / 2));
      }
      for (int v = 0; v < vec; ++v) {
        Expr kv = op.k_major ? add(k, i64(v)) : k, xv = op.k_major ? xa : add(xa, i64(v));
        Expr clamped = Load::make(form_.input, op.pattern.array,
                                  at(min(kv, sub(ke, i64(1))), min(xv, sub(extent, i64(1)))));
        single.push_back(SharedStore::make(
            smem_, {add(dst, i64(v))},
            Select::make(lt(kv, ke), clamped, FloatConst::make(ScalarType::F32, 0.0))));
      }
    }
    Expr aligned16 = rows_aligned(op.pattern, kb, vec),
         aligned8 = rows_aligned(op.pattern, kb, vec / 2);
    if (c.mode == Mode::Whole)
      into.push_back(Block::make(std::move(whole)));
    else if (c.mode == Mode::Async)
      into.push_back(
          IfThenElse::make(aligned16, Block::make(std::move(whole)), Block::make(std::move(half))));
    else if (c.mode == Mode::Interior && strided)
      into.push_back(Block::make(std::move(bare)));
    else if (c.mode == Mode::Interior)
      into.push_back(IfThenElse::make(
          aligned16, Block::make(std::move(whole)),
          IfThenElse::make(aligned8, Block::make(std::move(half)), Block::make(std::move(bare)))));
    else if (strided)
      into.push_back(Block::make(std::move(single)));
    else
      into.push_back(IfThenElse::make(
          rows_aligned(op.pattern, kb, vec), Block::make(std::move(wide)),
          IfThenElse::make(rows_aligned(op.pattern, kb, vec / 2), Block::make(std::move(narrow)),
                           Block::make(std::move(single)))));
  }
}

Stmt WgmmaTiler::staged_loop(const Expr &kb, const Expr &ke, const Expr &i0, const Expr &j0,
                             const Expr &m, const Expr &n, const Expr &tid, const Expr &group_row,
                             const Expr &group_col, const std::vector<std::vector<Var>> &acc,
                             bool whole_tile) {
  const int64_t depth = tile_.depth, stages = plan_.stages;
  const Copying c{kb, ke, i0, j0, m, n, tid, plan_.threads, whole_tile ? Mode::Whole : Mode::Edge};
  // With three stages or more, each chunk's products run on while the next chunk's copies are
  // made: a stage is copied into two chunks after it was read (the chunk before it, still
  // running, reads another). With two, a chunk's products end before the next copies.
  const bool overlap = stages >= 3;
  const int64_t ahead = overlap ? stages - 2 : stages - 1;
  std::vector<Stmt> out;
  for (int64_t s = 0; s < ahead; ++s) {
    std::vector<Stmt> copy;
    copy_chunk(copy, c, add(kb, i64(s * depth)), i64(s));
    out.push_back(IfThenElse::make(lt(add(kb, i64(s * depth)), ke), Block::make(std::move(copy))));
    out.push_back(AsyncWait::make(int(ahead))); // a group per chunk, complete or not
  }
  Var stage = make_var("stage", ScalarType::I64), next = make_var("stage_ahead", ScalarType::I64);
  out.push_back(Declare::make(stage, i64(0)));
  out.push_back(Declare::make(next, i64(ahead)));
  Var k0 = make_var("chunk", ScalarType::I64);
  std::vector<Stmt> chunk, copy;
  if (overlap) // every warpgroup is done with the chunk two before: its stage is free
    chunk.push_back(Barrier::make());
  Expr k_ahead = add(var_ref(k0), i64(ahead * depth));
  copy_chunk(copy, c, k_ahead, var_ref(next));
  chunk.push_back(IfThenElse::make(lt(k_ahead, ke), Block::make(std::move(copy))));
  // This chunk's group is in once at most `ahead` newer ones are pending; then its bytes,
  // written through the generic proxy, are fenced for the tensor cores' async proxy.
  chunk.push_back(AsyncWait::make(int(ahead), true));
  chunk.push_back(Barrier::make());
  chunk.push_back(products(var_ref(stage), group_row, group_col, acc, int(depth / plan_.k_step()),
                           overlap ? 1 : 0));
  if (!overlap)
    chunk.push_back(Barrier::make()); // every warpgroup's reads of the stage are done
  advance(chunk, stage);
  advance(chunk, next);
  out.push_back(For::make(k0, kb, ke, i64(depth), Block::make(std::move(chunk))));
  if (overlap) // the last chunk's products, before anything reads the accumulators
    out.push_back(products(var_ref(stage), group_row, group_col, acc, 0, 0));
  return Block::make(std::move(out));
}

Expr WgmmaTiler::Operand::stage_base(const Expr &stage, const Plan &p, bool is_a) const {
  return is_a ? mul(stage, i64(p.stage_a))
              : add(i64(p.stages * p.stage_a), mul(stage, i64(p.stage_b)));
}

// Where element (x, kk) of a stage lies from the stage's start: the swizzled layouts of
// ir::WarpgroupMma.
Expr WgmmaTiler::Operand::index(const Expr &x, const Expr &kk) const {
  const int shift = group == 8 ? 3 : 2;
  if (k_major)
    return add(
        add(mul(x, i64(row)),
            bits(BinaryOp::Shl,
                 bit_xor(bits(BinaryOp::Shr, kk, shift), bits(BinaryOp::BitAnd, x, 7)), shift)),
        bits(BinaryOp::BitAnd, kk, group - 1));
  Expr atom =
      add(mul(bits(BinaryOp::Shr, kk, 3), i64(extent / swizzle_row)), bits(BinaryOp::Shr, x, 6));
  Expr group =
      bit_xor(bits(BinaryOp::BitAnd, bits(BinaryOp::Shr, x, 3), 7), bits(BinaryOp::BitAnd, kk, 7));
  return add(
      add(mul(atom, i64(atom_bytes / 2)), bits(BinaryOp::Shl, bits(BinaryOp::BitAnd, kk, 7), 6)),
      add(bits(BinaryOp::Shl, group, 3), bits(BinaryOp::BitAnd, x, 7)));
}

// The first element of the block of 64 rows or n columns at x0 (a multiple of 64, or of 8
// when k-major), and its descriptor's layout.
Expr WgmmaTiler::Operand::block(const Expr &x0) const {
  return k_major ? mul(x0, i64(row)) : mul(div(x0, i64(swizzle_row)), i64(atom_bytes / 2));
}

WarpgroupMma::Layout WgmmaTiler::Operand::layout() const {
  if (k_major) // 8 rows of 128 bytes to the next 8; the next 16 steps of k 32 bytes on
    return {true, 16, atom_bytes, 32};
  const int64_t sbo = extent / swizzle_row * atom_bytes; // the next 8 steps of k
  return {false, atom_bytes, sbo, 2 * sbo};
}

} // namespace wgmma

using namespace wgmma;

std::optional<Task> map_tile_wgmma(const Task &task, const std::vector<Param> &params,
                                   const TileSchedule &tile, const MatmulForm &form,
                                   std::vector<Shared> &shared, std::string &why_not) {
  const ParallelFor *loop = top_parallel_loop(task);
  Plan plan;
  why_not = plan_tiles(tile, form, plan);
  if (!why_not.empty())
    return std::nullopt;
  Shared smem = make_dynamic_staging_array("tiles", form.input);
  for (const Shared &s : shared)
    if (s->dynamic) {
      why_not = "the kernel has a dynamic shared array of its own";
      return std::nullopt;
    }
  WgmmaTiler tiler(params, tile, plan, form, smem);
  // With a producer: thread 0 sets up each stage's two memory barriers, and every thread's
  // counters start at stage 0, phase 0, before the tiles.
  std::vector<Stmt> setup;
  WgmmaTiler::Counters counters;
  if (plan.producer) {
    std::vector<Stmt> init;
    for (int64_t s = 0; s < plan.stages; ++s) {
      init.push_back(Mbarrier::make(Mbarrier::Op::Init, smem, tiler.full(i64(s)), i64(128)));
      init.push_back(
          Mbarrier::make(Mbarrier::Op::Init, smem, tiler.empty(i64(s)), i64(plan.threads)));
    }
    for (int64_t r = 0; r < plan.raw_slots; ++r) {
      init.push_back(Mbarrier::make(Mbarrier::Op::Init, smem, tiler.raw_full(i64(r)), i64(128)));
      init.push_back(Mbarrier::make(Mbarrier::Op::Init, smem, tiler.raw_empty(i64(r)), i64(128)));
    }
    setup.push_back(
        IfThenElse::make(eq(reg_i64(Reg::ThreadIdx, 0), i64(0)), Block::make(std::move(init))));
    setup.push_back(Barrier::make());
    counters = {declare(setup, "stage", i64(0)), declare(setup, "phase", i64(0)),
                declare(setup, "stage_handed", i64(0))};
    if (plan.tf32)
      for (Var *v : {&counters.raw, &counters.raw_phase, &counters.fill, &counters.fill_phase})
        *v = declare(setup,
                     v == &counters.raw         ? "raw"
                     : v == &counters.raw_phase ? "raw_phase"
                     : v == &counters.fill      ? "fill"
                                                : "fill_phase",
                     i64(0));
  }
  Expr tiles;
  std::vector<Stmt> out;
  for (const Stmt &s : statements_of(task.body)) {
    if (s.as<ParallelFor>() != loop) {
      out.push_back(s);
      continue;
    }
    Stmt tiled = tile_loop(
        loop, tile.rows, tile.cols, tiles,
        [&](std::vector<Stmt> &body, const Expr &i0, const Expr &j0, const Expr &m, const Expr &n) {
          tiler.thread_body(body, i0, j0, m, n, plan.producer ? &counters : nullptr);
        },
        !plan.producer);
    setup.push_back(tiled);
    out.push_back(setup.size() == 1 ? tiled : Block::make(std::move(setup)));
  }
  shared.push_back(smem);
  Task mapped = task;
  mapped.body = out.size() == 1 ? out[0] : Block::make(std::move(out));
  mapped.domain = {tiles};
  mapped.tile = tile;
  mapped.threads = plan.block_threads();
  if (plan.producer) { // the launch bound that limits ptxas's registers to the producer's share
    mapped.tile.min_blocks = std::max(tile.min_blocks, 1);
    mapped.persistent = true;
  }
  mapped.dynamic_shared_bytes = plan.bytes();
  mapped.arch_specific = true;
  auto major = [](bool k_major) { return k_major ? "along k" : "along its rows or columns"; };
  mapped.tensor_cores =
      std::string("wgmma m64n") + std::to_string(plan.n) + "k" + std::to_string(plan.k_step()) +
      " (sm_90a), " + (plan.tf32 ? "f32 read as TF32" : type_name(form.input)) +
      " products into f32: " + std::to_string(plan.groups_m) + " x " +
      std::to_string(plan.groups_n) + " warpgroups, each " + std::to_string(plan.blocks_m) +
      " product" + (plan.blocks_m > 1 ? "s" : "") + " of 64 x " + std::to_string(plan.n) + " per " +
      std::to_string(plan.k_step()) + " steps of k; " + std::to_string(plan.stages) +
      " stages of " + std::to_string(tile.depth) + " steps in " + std::to_string(plan.bytes()) +
      " bytes of dynamic shared memory (A staged " + major(plan.a_k_major) + ", B " +
      major(plan.b_k_major) + ", 128-byte swizzle), " +
      (plan.tf32 ? "cp.async copies into " + std::to_string(plan.raw_slots) +
                       " raw slots, rounded to TF32 and staged along k by a producer warpgroup, "
                       "handed over through mbarriers"
       : plan.producer ? "cp.async copies by a producer warpgroup, handed over through mbarriers"
                       : "cp.async copies");
  return mapped;
}

} // namespace loom::ir
