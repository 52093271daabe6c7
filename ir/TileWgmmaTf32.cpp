// TF32 on Hopper's warpgroup instructions: the producer warpgroup of a tile over f32 arrays read
// as TF32 (ir/TileWgmma.cpp plans the tile and writes its multipliers). wgmma's tf32 form reads
// both operands along k and would drop an f32's low 13 bits; loom rounds to nearest. So each
// chunk passes through the producer's threads: copied by cp.async as it lies in the arrays into a
// raw slot, rounded (cvt.rna.tf32.f32), and written along k into its stage, shared memory to
// shared memory, transposing an operand that runs along its rows or columns in 4 x 4 blocks.
#include "ir/TileWgmma.h"

namespace loom::ir::wgmma {

// TF32's producer: each chunk is copied by cp.async as it lies in the arrays into one of two raw
// slots, then rounded to TF32 and written along k into its stage, shared memory to shared
// memory. The copies of the chunk two ahead are in flight while a chunk is rounded: the
// latency of global memory is not the producer's. A raw slot is handed over through its two
// memory barriers among the producer's own threads (raw_full: its copies landed, raw_empty:
// every thread has read it).
void WgmmaTiler::tf32_producer_body(std::vector<Stmt> &out, const Expr &i0, const Expr &j0,
                                    const Expr &m, const Expr &n, const Expr &tid,
                                    const Counters &cn) const {
  const int64_t depth = tile_.depth, slots = plan_.raw_slots;
  Var copier = declare(out, "copier", sub(tid, i64(plan_.threads)));
  Var kb = declare(out, form_.inner->var->name + "_begin", form_.inner->begin);
  Var ke = declare(out, form_.inner->var->name + "_end", form_.inner->end);
  Expr aligned = BoolConst::make(true);
  for (const Pattern &p : {form_.a, form_.b})
    aligned = params_[p.array].strided
                  ? BoolConst::make(false)
                  : logical_and(aligned, rows_aligned(p, var_ref(kb), tf32_vec));
  Var within = declare(out, "tile_inside", logical_and(inside(i0, j0, m, n), aligned));
  const Copying c{var_ref(kb), var_ref(ke), i0, j0, m, n, var_ref(copier), 128, Mode::Edge};
  // The chunk at kc into the next raw slot, once every producing thread has read what it held.
  auto issue = [&](const Expr &kc) {
    std::vector<Stmt> body;
    body.push_back(Mbarrier::make(Mbarrier::Op::Wait, smem_, raw_empty(var_ref(cn.fill)),
                                  bit_xor(var_ref(cn.fill_phase), i64(1))));
    std::vector<Stmt> whole, edge;
    copy_raw(whole, c, kc, var_ref(cn.fill), true);
    copy_raw(edge, c, kc, var_ref(cn.fill), false);
    body.push_back(
        IfThenElse::make(logical_and(var_ref(within), le(add(kc, i64(depth)), var_ref(ke))),
                         Block::make(std::move(whole)), Block::make(std::move(edge))));
    body.push_back(Mbarrier::make(Mbarrier::Op::ArriveOnCopies, smem_, raw_full(var_ref(cn.fill))));
    advance(body, cn.fill, &cn.fill_phase, slots);
    return Block::make(std::move(body));
  };
  for (int64_t s = 0; s < slots; ++s)
    out.push_back(IfThenElse::make(lt(add(var_ref(kb), i64(s * depth)), var_ref(ke)),
                                   issue(add(var_ref(kb), i64(s * depth)))));
  Var k0 = make_var("chunk", ScalarType::I64);
  std::vector<Stmt> chunk;
  chunk.push_back(
      Mbarrier::make(Mbarrier::Op::Wait, smem_, raw_full(var_ref(cn.raw)), var_ref(cn.raw_phase)));
  chunk.push_back(Mbarrier::make(Mbarrier::Op::Wait, smem_, empty(var_ref(cn.stage)),
                                 bit_xor(var_ref(cn.phase), i64(1))));
  round_raw(chunk, var_ref(copier), var_ref(cn.raw), var_ref(cn.stage));
  chunk.push_back(AsyncWait::make(AsyncWait::fence_only, true));
  chunk.push_back(Mbarrier::make(Mbarrier::Op::Arrive, smem_, full(var_ref(cn.stage))));
  advance(chunk, cn.stage, &cn.phase);
  chunk.push_back(Mbarrier::make(Mbarrier::Op::Arrive, smem_, raw_empty(var_ref(cn.raw))));
  advance(chunk, cn.raw, &cn.raw_phase, slots);
  Expr ahead = add(var_ref(k0), i64(slots * depth));
  chunk.push_back(IfThenElse::make(lt(ahead, var_ref(ke)), issue(ahead)));
  out.push_back(For::make(k0, var_ref(kb), var_ref(ke), i64(depth), Block::make(std::move(chunk))));
}

// Where raw slot `slot`'s part of operand s starts.
Expr WgmmaTiler::raw_region(const Expr &slot, int s) const {
  return add(add(i64(plan_.raw_base()), mul(slot, i64(plan_.stage_a + plan_.stage_b))),
             i64(s == 0 ? 0 : plan_.stage_a));
}

// TF32: the chunk at kc into raw slot `slot`, in 16-byte groups of 4 elements neighbouring in
// the array. An operand whose array runs along k lies as its stage does (rows of 32 steps of k,
// group g of row x at g ^ x % 8); one that runs along its rows or columns in rows of its
// `extent` elements, one per step of k, group g of row kk at g ^ (kk / 4) % 8 (so that
// round_raw's reads of 4 x 4 blocks meet each bank no more often than they must). `whole`:
// the chunk is inside the loops' extents and the rows are multiples of 16 bytes (16-byte
// copies); otherwise 4-byte copies, zeros past the loops' ends. A thread's groups are a
// constant apart in the slot (registers for one address, not one each).
void WgmmaTiler::copy_raw(std::vector<Stmt> &into, const Copying &c, const Expr &kc,
                          const Expr &slot, bool whole) const {
  const int64_t depth = tile_.depth;
  const std::array<Operand, 2> ops = operands();
  for (int s = 0; s < 2; ++s) {
    const Operand &op = ops[s];
    const Expr &base = s == 0 ? c.i0 : c.j0;
    const Expr &extent = s == 0 ? c.m : c.n;
    const bool along = op.pattern.k_dim == 1;
    auto at = [&](const Expr &k, const Expr &x) {
      return along ? std::vector<Expr>{x, k} : std::vector<Expr>{k, x};
    };
    // Along k: 8 threads a row (q = tid % 8 its group), rows tid / 8 + 16 l. Across: 32
    // threads a row (q = tid % 32 + 32 h), rows tid / 32 + 4 p; the swizzle of row kk is then p.
    Expr q0 = mod(c.tid, i64(along ? 8 : 32)), r0 = div(c.tid, i64(along ? 8 : 32));
    const int64_t halves = along ? 1 : op.extent / tf32_vec / 32;
    const int64_t count = op.extent * depth / tf32_vec / 128;
    Expr first = along ? add(mul(r0, i64(tf32_row)),
                             bits(BinaryOp::Shl, bit_xor(q0, bits(BinaryOp::BitAnd, r0, 7)), 2))
                       : mul(r0, i64(op.extent));
    Expr region = add(raw_region(slot, s), first);
    for (int64_t l = 0; l < count; ++l) {
      const int64_t h = l % halves, p = l / halves;
      Expr dst, kk, x;
      if (along) {
        dst = add(region, i64(l * 16 * tf32_row));
        kk = mul(q0, i64(tf32_vec)), x = add(r0, i64(16 * l));
      } else {
        dst = add(add(region, bits(BinaryOp::Shl, bit_xor(q0, i64(p & 7)), 2)),
                  i64(4 * p * op.extent + 32 * h * tf32_vec));
        kk = add(r0, i64(4 * p)), x = mul(add(q0, i64(32 * h)), i64(tf32_vec));
      }
      Expr k = add(kc, kk), xa = add(base, x);
      if (whole) {
        into.push_back(AsyncCopy::make(smem_, {dst}, op.pattern.array, ScalarType::F32, at(k, xa)));
        continue;
      }
      for (int64_t e = 0; e < tf32_vec; ++e) {
        Expr ke = along ? add(k, i64(e)) : k, xe = along ? xa : add(xa, i64(e));
        Expr in = logical_and(lt(ke, c.ke), lt(xe, extent));
        into.push_back(AsyncCopy::make(smem_, {add(dst, i64(e))}, op.pattern.array, ScalarType::F32,
                                       at(Select::make(in, ke, c.kb), Select::make(in, xe, i64(0))),
                                       4, Select::make(in, i64(1), i64(0))));
      }
    }
  }
}

// TF32: raw slot `slot` into stage `stage`, each element rounded to TF32 (UnaryOp::RoundTF32, as
// mma.sync's path and the interpreter round; the tensor cores would drop the low bits). A
// thread takes steps of k from 4 (tid % 8) of rows or columns tid / 8 + 16 l. An operand that
// runs along k keeps its place; one that runs along its rows or columns is transposed in blocks
// of 4 x 4 (a thread reads 4 steps of k of 4 neighbouring columns, and writes each column's 4
// steps as one 16-byte group). A thread's reads come before its roundings, and those before its
// writes, so that LLVM merges neighbouring reads and writes into 16-byte ones across no
// conversion (cvt.rna.tf32.f32 blocks the merge); each is a constant from the thread's first.
void WgmmaTiler::round_raw(std::vector<Stmt> &into, const Expr &tid, const Expr &slot,
                           const Expr &stage) const {
  const int64_t quads = tile_.depth / tf32_vec;
  const std::array<Operand, 2> ops = operands();
  Expr kq = mod(tid, i64(quads)), xg = div(tid, i64(quads));
  for (int s = 0; s < 2; ++s) {
    const Operand &op = ops[s];
    const bool along = op.pattern.k_dim == 1;
    Expr from = raw_region(slot, s), to = op.stage_base(stage, plan_, s == 0);
    std::vector<Stmt> loads, rounds, stores;
    auto move = [&](const Expr &src, int64_t src_step, const Expr &dst, int64_t dst_step) {
      Var v = declare(loads, "f32", SharedLoad::make(smem_, {add(src, i64(src_step))}));
      Var r = declare(rounds, "tf32", Unary::make(UnaryOp::RoundTF32, var_ref(v)));
      stores.push_back(SharedStore::make(smem_, {add(dst, i64(dst_step))}, var_ref(r)));
    };
    const int64_t units = along ? op.extent * quads : op.extent / tf32_vec * quads;
    if (along) { // row xg + 16 l, steps of k from 4 kq: the same place in both
      Expr at = op.index(xg, mul(kq, i64(tf32_vec)));
      Expr src = add(from, at), dst = add(to, at);
      for (int64_t l = 0; l < units / 128; ++l)
        for (int64_t e = 0; e < tf32_vec; ++e)
          move(src, l * 16 * tf32_row + e, dst, l * 16 * tf32_row + e);
    } else {
      // Columns from 4 (xg + 16 l), steps of k from 4 kq: raw row 4 kq + a holds the group at
      // (xg + 16 l) ^ kq % 8, which is (xg ^ kq % 8) + 16 l.
      Expr src = add(from, add(mul(kq, i64(tf32_vec * op.extent)),
                               bits(BinaryOp::Shl, bit_xor(xg, bits(BinaryOp::BitAnd, kq, 7)), 2)));
      std::array<Expr, tf32_vec> dst; // column 4 xg + b of the stage, steps from 4 kq
      for (int64_t b = 0; b < tf32_vec; ++b)
        dst[size_t(b)] =
            add(to, op.index(add(mul(xg, i64(tf32_vec)), i64(b)), mul(kq, i64(tf32_vec))));
      for (int64_t l = 0; l < units / 128; ++l) {
        std::vector<Var> block;
        for (int64_t a = 0; a < tf32_vec; ++a)
          for (int64_t b = 0; b < tf32_vec; ++b)
            block.push_back(
                declare(loads, "f32",
                        SharedLoad::make(smem_, {add(src, i64(a * op.extent + 64 * l + b))})));
        for (int64_t b = 0; b < tf32_vec; ++b)
          for (int64_t a = 0; a < tf32_vec; ++a) {
            Var r =
                declare(rounds, "tf32",
                        Unary::make(UnaryOp::RoundTF32, var_ref(block[size_t(a * tf32_vec + b)])));
            stores.push_back(SharedStore::make(
                smem_, {add(dst[size_t(b)], i64(64 * l * tf32_row + a))}, var_ref(r)));
          }
      }
    }
    for (const std::vector<Stmt> *phase : {&loads, &rounds, &stores})
      into.insert(into.end(), phase->begin(), phase->end());
  }
}

} // namespace loom::ir::wgmma
