// The tile schedule on the tensor cores: a 2-D parallel loop of the matmul form over 16-bit float
// arrays runs as tiles whose products are warps' mma.sync instructions (ir::Mma), on sm_80 and
// later:
//
//   for i, j in parallel(M, N):         for tile = blockIdx.x; tile < tiles; tile += gridDim.x:
//     acc = 0.0                           each element e the lane holds: acc_e = 0.0
//     for k in range(K):        ==>       tiles[0] = A, B at [its rows, k0 .. k0+depth); barrier
//       acc += A[i, k] * B[k, j]          for k0 in range(0, K, depth):
//     C[i, j] = acc                         copy the next chunk into tiles[1 - buf] (cp.async)
//                                           for each 16 of the chunk's k, each 16 x 8 block of
//                                             the warp's: mma(A_tile, B_tile) into its acc_e
//                                           wait for the copies; barrier; buf = 1 - buf
//                                         each element in range: C[i, j] = acc_e
//
// Both tiles lie in shared memory in their arrays' own layout ([buffer][row][k] or
// [buffer][k][row], 8 elements of padding per row; a k-major block is read with ldmatrix .trans).
// Chunk elements past the inner loop's end are zeros; rows and columns past the loop's extents are
// the last row's or column's (clamped) and are never written.
//
// The form: the iteration's one inner loop (step 1, bounds free of the iteration's variables)
// has one statement, `acc = acc + A[..] * B[..]` (either operand order, the product rounded to
// the arrays' type or not, conversions to f32 allowed), with `acc` an f32 local the iteration
// declares before the loop, and A and B f16 arrays or bf16 arrays read at [i, k] or [k, i] and
// [k, j] or [j, k]. The tensor cores add the exact products in an order of their own (see
// docs/semantics.md), so the result is the default mapping's within the stated tolerance, not bit
// for bit.
#include "ir/Build.h"
#include "ir/Passes.h"
#include "ir/Synchronizes.h"
#include "ir/TileForm.h"
#include "support/Error.h"

namespace loom::ir {

namespace {

using namespace tile;

// The bytes each thread copies at once: one cp.async, 8 f16 or bf16 elements or 4 f32s.
constexpr int64_t group_bytes = 16;
// Elements of padding after each row of a shared tile: 16 bytes keep every row 16-byte aligned
// (ldmatrix reads 16-byte rows) and put the 8 rows of an 8 x 8 matrix of 16-byte rows in distinct
// banks; a k-major f32 (TF32) tile, read element by element (lane l at k l % 4, row l / 4), pads
// 8 elements, so that its 4 k rows start 8 banks apart.
int64_t padding(ScalarType input, bool k_last) {
  const int64_t size = byte_size(input);
  return (k_last || size == 2 ? 16 : 32) / size;
}
// The most f32 accumulators a thread keeps (4 per 16 x 8 block of its warp's).
constexpr int64_t max_accumulators = 128;

// A conversion to f32 of an f32 value (the front ends' f32(A[i, k]) after expand_half) is none.
Expr strip_casts(Expr e) {
  while (auto *c = e.as<Cast>())
    if (c->a.type() == c->type)
      e = c->a;
    else
      break;
  return e;
}

} // namespace

std::string tile::match_matmul(const ParallelFor *loop, const std::vector<Param> &params, bool tf32,
                               MatmulForm &form) {
  form.i = loop->vars[0].get(), form.j = loop->vars[1].get();
  Stmt inner;
  for (const Stmt &s : statements_of(loop->body)) {
    if (s.as<For>() || s.as<While>()) {
      if (inner.defined())
        return "the iteration has more than one loop";
      if (!s.as<For>())
        return "the iteration's loop is a while loop";
      inner = s;
      continue;
    }
    (inner.defined() ? form.after : form.before).push_back(s);
  }
  if (!inner.defined())
    return "the iteration has no inner range loop";
  const For *f = form.inner = inner.as<For>();
  if (!is_int_const(f->step, 1))
    return "the inner loop's step is not 1";
  std::set<const Variable *> locals;
  for (const Stmt &s : form.before)
    if (auto *d = s.as<Declare>())
      locals.insert(d->var.get());
  Effects bounds;
  bounds.visit(f->begin), bounds.visit(f->end);
  for (const Variable *v : bounds.mentioned)
    if (v == form.i || v == form.j || locals.count(v))
      return "the inner loop's bounds depend on '" + v->name + "'";
  std::vector<Stmt> body = statements_of(f->body);
  const Assign *update = body.size() == 1 ? body[0].as<Assign>() : nullptr;
  const Binary *sum = update ? update->value.as<Binary>() : nullptr;
  if (!sum || sum->op != BinaryOp::Add)
    return "the inner loop's body is not the one update acc += A[i, k] * B[k, j]";
  Expr product = is_var(sum->a, update->var.get())   ? sum->b
                 : is_var(sum->b, update->var.get()) ? sum->a
                                                     : Expr();
  if (!product.defined())
    return "the inner loop's update does not add to the variable it assigns";
  if (update->var->type != ScalarType::F32)
    return std::string("the accumulator '") + update->var->name + "' is " +
           type_name(update->var->type) + "; the tensor cores accumulate in f32";
  if (!locals.count(update->var.get()))
    return "the accumulator '" + update->var->name +
           "' is not a local the iteration declares before its inner loop";
  form.acc = update->var;
  if (auto *u = product.as<Unary>(); u && is_rounding(u->op))
    product = u->a; // the product rounded to the arrays' type: the tensor cores keep it exact
  auto *mul = strip_casts(product).as<Binary>();
  if (!mul || mul->op != BinaryOp::Mul)
    return "the inner loop's update adds no product A[i, k] * B[k, j]";
  std::optional<Pattern> p[2];
  ScalarType types[2];
  const Expr operands[2] = {mul->a, mul->b};
  for (int s = 0; s < 2; ++s) {
    auto *load = strip_casts(operands[s]).as<Load>();
    if (load)
      p[s] = pattern_of(load, form.i, form.j, f->var.get());
    if (!p[s])
      return "a factor of the product is not an array read at [i, k], [k, i], [k, j] or [j, k]";
    types[s] = params[p[s]->array].type;
  }
  if (p[0]->axis == p[1]->axis)
    return "both factors of the product are read along the same loop variable";
  form.a = p[0]->axis == 0 ? *p[0] : *p[1];
  form.b = p[0]->axis == 0 ? *p[1] : *p[0];
  if (types[0] == ScalarType::F32 && types[1] == ScalarType::F32 && !tf32)
    return "the product's arrays are f32; the tensor cores read f32 as TF32 (10 significand "
           "bits) only when the kernel allows it: @kernel(tf32=True), Kernel::allow_tf32()";
  if (types[0] != types[1] || !(is_half_float(types[0]) || types[0] == ScalarType::F32))
    return std::string("the product's arrays are ") + type_name(types[0]) + " and " +
           type_name(types[1]) + "; the tensor cores take two f16, two bf16 or (TF32) two f32 " +
           "arrays";
  form.input = types[0];
  Effects all;
  all.visit(loop->body);
  if (all.written.count(form.a.array) || all.written.count(form.b.array))
    return "the iteration writes to an array the product reads";
  return "";
}

namespace {

// How a tile's threads split it: warps_m x warps_n warps, each computing a block of
// warp_rows x warp_cols as blocks_m x blocks_n products of 16 x 8.
struct Plan {
  int64_t threads = 0, warps_m = 0, warps_n = 0, warp_rows = 0, warp_cols = 0;
  int64_t blocks_m = 0, blocks_n = 0;
};

// Why `tile` cannot run on the tensor cores, or empty (and `plan` filled in).
std::string plan_tiles(const TileSchedule &tile, ScalarType input, Plan &plan) {
  const int64_t threads = plan.threads = tile.threads();
  if (threads % 32 != 0)
    return "the tile's " + std::to_string(threads) + " threads are not whole warps";
  if (tile.depth <= 0 || tile.depth % 16 != 0)
    return "the depth " + std::to_string(tile.depth) +
           " is not a positive multiple of 16, the k of one mma";
  const int64_t warps = threads / 32;
  for (int64_t m = 1; m <= warps; ++m) {
    if (warps % m != 0)
      continue;
    const int64_t n = warps / m;
    if (tile.rows % (16 * m) != 0 || tile.cols % (8 * n) != 0)
      continue;
    const int64_t rows = tile.rows / m, cols = tile.cols / n;
    // The squarest warp block: the fewest fragment loads per product.
    if (plan.warps_m == 0 ||
        std::abs(rows - 2 * cols) < std::abs(plan.warp_rows - 2 * plan.warp_cols))
      plan = Plan{threads, m, n, rows, cols, rows / 16, cols / 8};
  }
  if (plan.warps_m == 0)
    return "the " + std::to_string(tile.rows) + " x " + std::to_string(tile.cols) +
           " tile does not split among " + std::to_string(warps) +
           " warps into blocks of whole 16 x 8 products";
  if (plan.blocks_m * plan.blocks_n * 4 > max_accumulators)
    return "each thread would keep " + std::to_string(plan.blocks_m * plan.blocks_n * 4) +
           " accumulators (at most " + std::to_string(max_accumulators) +
           "); use more threads or a smaller tile";
  // A tile k-major (A[k, i], B[k, j]) pads its rows of `rows` or `cols` elements instead.
  const int64_t size = byte_size(input);
  const int64_t bytes = 2 * size *
                        std::max((tile.rows + tile.cols) * (tile.depth + padding(input, true)),
                                 tile.depth * (tile.rows + tile.cols + 2 * padding(input, false)));
  if (bytes > max_shared_bytes)
    return "the staged tiles need " + std::to_string(bytes) +
           " bytes of shared memory, more than " + "a block's " + std::to_string(max_shared_bytes) +
           "; use a smaller depth or tile";
  const int64_t vec = group_bytes / size;
  if ((tile.rows * tile.depth / vec) % threads != 0 ||
      (tile.cols * tile.depth / vec) % threads != 0)
    return "the tile's threads do not divide its chunks of " + std::to_string(tile.depth) +
           " steps into equal shares of " + std::to_string(vec) + "-element groups";
  return "";
}

class MmaTiler {
public:
  MmaTiler(const std::vector<Param> &params, const TileSchedule &tile, const Plan &plan,
           const MatmulForm &form, std::vector<Shared> &shared)
      : params_(params), tile_(tile), plan_(plan), form_(form), shared_(shared) {}

  void thread_body(std::vector<Stmt> &out, const Expr &i0, const Expr &j0, const Expr &m,
                   const Expr &n) {
    Var tid = declare(out, "thread", reg_i64(Reg::ThreadIdx, 0));
    Var warp = declare(out, "warp", div(var_ref(tid), i64(32)));
    Var lane = declare(out, "lane", mod(var_ref(tid), i64(32)));
    Var warp_row =
        declare(out, "warp_row", mul(div(var_ref(warp), i64(plan_.warps_n)), i64(plan_.warp_rows)));
    Var warp_col =
        declare(out, "warp_col", mul(mod(var_ref(warp), i64(plan_.warps_n)), i64(plan_.warp_cols)));
    // The rows (16 x 8 block bm, half h) and columns (block bn, pair member q) the lane holds.
    Var group = declare(out, "group", div(var_ref(lane), i64(4)));
    Var pair = declare(out, "pair", mul(mod(var_ref(lane), i64(4)), i64(2)));
    TileElements held; // rows[bm * 2 + h], cols[bn * 2 + q]
    for (int64_t bm = 0; bm < plan_.blocks_m; ++bm)
      for (int h = 0; h < 2; ++h)
        held.rows.push_back(TileElements::position(
            out, form_.i->name,
            add(add(i0, var_ref(warp_row)), add(var_ref(group), i64(bm * 16 + h * 8))), m));
    for (int64_t bn = 0; bn < plan_.blocks_n; ++bn)
      for (int q = 0; q < 2; ++q)
        held.cols.push_back(TileElements::position(
            out, form_.j->name,
            add(add(j0, var_ref(warp_col)), add(var_ref(pair), i64(bn * 8 + q))), n));
    for (int64_t bm = 0; bm < plan_.blocks_m; ++bm)
      for (int64_t bn = 0; bn < plan_.blocks_n; ++bn)
        for (int r = 0; r < 4; ++r)
          held.add(out, form_, bm * 2 + r / 2, bn * 2 + r % 2);

    Var kb = declare(out, form_.inner->var->name + "_begin", form_.inner->begin);
    Var ke = declare(out, form_.inner->var->name + "_end", form_.inner->end);
    out.push_back(
        IfThenElse::make(lt(var_ref(kb), var_ref(ke)),
                         staged_loop(var_ref(kb), var_ref(ke), i0, j0, m, n, var_ref(tid),
                                     var_ref(warp_row), var_ref(warp_col), held.elements)));
    held.finish(out, form_);
  }

private:
  // An operand staged through shared memory in its array's own layout: tile[buffer][row][k]
  // (k_last, A[i, k] or B[j, k]) or tile[buffer][k][row] (A[k, i], B[k, j]). Each thread copies
  // groups of 8 elements neighbouring along the last dimension (16 bytes).
  struct Staged {
    Pattern pattern;
    int64_t extent; // the tile's rows (A) or columns (B)
    Shared tile;
    bool k_last;
    int64_t fast; // the last dimension's length in the tile: depth or extent
  };

  template <class Elements>
  Stmt staged_loop(const Expr &kb, const Expr &ke, const Expr &i0, const Expr &j0, const Expr &m,
                   const Expr &n, const Expr &tid, const Expr &warp_row, const Expr &warp_col,
                   Elements &elements) {
    const int64_t depth = tile_.depth, threads = plan_.threads;
    const int64_t vec = group_bytes / byte_size(form_.input); // elements per 16-byte group
    Staged staged[2] = {{form_.a, tile_.rows, nullptr, form_.a.k_dim == 1, 0},
                        {form_.b, tile_.cols, nullptr, form_.b.k_dim == 1, 0}};
    for (Staged &s : staged) {
      s.fast = s.k_last ? depth : s.extent;
      const int64_t slow = s.k_last ? s.extent : depth;
      s.tile = make_staging_array(params_[s.pattern.array].name + "_tile", form_.input,
                                  {2, slow, s.fast + padding(form_.input, s.k_last)});
      shared_.push_back(s.tile);
    }
    // Element v of group l of this thread's share of a chunk: group tid + l * threads, the groups
    // numbered along the last dimension first (coalesced 16-byte reads).
    auto element = [&](const Staged &s, int64_t l, int v, Expr &kk, Expr &pos) {
      Expr g = add(tid, i64(l * threads));
      Expr fast = add(mul(mod(g, i64(s.fast / vec)), i64(vec)), i64(v));
      Expr slow = div(g, i64(s.fast / vec));
      kk = s.k_last ? fast : slow;
      pos = s.k_last ? slow : fast;
    };
    auto groups = [&](const Staged &s) { return s.extent * depth / vec / threads; };
    // The chunk at k0 into buffer `into_buf`, each operand on its own. Where its chunk lies whole
    // inside the array and its rows are multiples of 16 bytes (so that every group is 16 aligned
    // bytes, which the assumption records), asynchronous 16-byte copies (cp.async); elsewhere
    // element by element, indices clamped into the array and zeros past the inner loop's end.
    auto copy_chunk = [&](std::vector<Stmt> &into, const Expr &k0, const Expr &into_buf) {
      for (Staged &s : staged) {
        std::vector<Stmt> whole, edge;
        const Expr &base = s.pattern.axis == 0 ? i0 : j0;
        const Expr &extent = s.pattern.axis == 0 ? m : n;
        // Each operand on its own: one whose rows are multiples of 16 bytes copies whole chunks
        // asynchronously even where the other's are element by element.
        Expr inside =
            logical_and(le(add(k0, i64(depth)), ke), le(add(base, i64(s.extent)), extent));
        Expr aligned =
            eq(Binary::make(BinaryOp::BitAnd, ArrayExtent::make(s.pattern.array, 1), i64(vec - 1)),
               i64(0));
        if (s.k_last) // a group starts at a k: the loop's first one aligned too
          aligned =
              logical_and(aligned, eq(Binary::make(BinaryOp::BitAnd, kb, i64(vec - 1)), i64(0)));
        auto at = [&](const Expr &k, const Expr &x) {
          return s.pattern.k_dim == 0 ? std::vector<Expr>{k, x} : std::vector<Expr>{x, k};
        };
        auto in_tile = [&](const Expr &kk, const Expr &pos) {
          return s.k_last ? std::vector<Expr>{into_buf, pos, kk}
                          : std::vector<Expr>{into_buf, kk, pos};
        };
        for (int64_t l = 0; l < groups(s); ++l) {
          Expr kk, pos;
          element(s, l, 0, kk, pos);
          whole.push_back(AsyncCopy::make(s.tile, in_tile(kk, pos), s.pattern.array, form_.input,
                                          at(add(k0, kk), add(base, pos))));
          for (int v = 0; v < vec; ++v) {
            element(s, l, v, kk, pos);
            Expr k = add(k0, kk), x = add(base, pos);
            Expr clamped = Load::make(form_.input, s.pattern.array,
                                      at(min(k, sub(ke, i64(1))), min(x, sub(extent, i64(1)))));
            edge.push_back(SharedStore::make(
                s.tile, in_tile(kk, pos),
                Select::make(lt(k, ke), clamped, FloatConst::make(ScalarType::F32, 0.0))));
          }
        }
        if (params_[s.pattern.array].strided) {
          into.push_back(Block::make(std::move(edge)));
          continue;
        }
        whole.insert(whole.begin(), Assume::make(logical_and(inside, aligned)));
        into.push_back(IfThenElse::make(logical_and(inside, aligned), Block::make(std::move(whole)),
                                        Block::make(std::move(edge))));
      }
    };
    std::vector<Stmt> out;
    copy_chunk(out, kb, i64(0));
    out.push_back(AsyncWait::make());
    out.push_back(Barrier::make());
    Var buf = make_var("buffer", ScalarType::I64);
    out.push_back(Declare::make(buf, i64(0)));
    Var k0 = make_var("chunk", ScalarType::I64);
    std::vector<Stmt> chunk, next;
    // The next chunk's copies run while this one's products do.
    copy_chunk(next, add(var_ref(k0), i64(depth)), sub(i64(1), var_ref(buf)));
    chunk.push_back(
        IfThenElse::make(lt(add(var_ref(k0), i64(depth)), ke), Block::make(std::move(next))));
    auto origin = [&](const Staged &s, const Expr &row, int64_t ks) {
      return s.k_last ? std::vector<Expr>{var_ref(buf), row, i64(ks)}
                      : std::vector<Expr>{var_ref(buf), i64(ks), row};
    };
    for (int64_t ks = 0; ks < depth; ks += 16)
      for (int64_t bm = 0; bm < plan_.blocks_m; ++bm)
        for (int64_t bn = 0; bn < plan_.blocks_n; ++bn) {
          std::array<Var, 4> acc;
          for (int r = 0; r < 4; ++r)
            acc[r] = elements[size_t((bm * plan_.blocks_n + bn) * 4 + r)].acc;
          chunk.push_back(
              Mma::make(staged[0].tile, origin(staged[0], add(warp_row, i64(bm * 16)), ks),
                        staged[0].k_last, staged[1].tile,
                        origin(staged[1], add(warp_col, i64(bn * 8)), ks), staged[1].k_last, acc));
        }
    chunk.push_back(AsyncWait::make());
    chunk.push_back(Barrier::make()); // the next chunk is in; this one's reads are done
    chunk.push_back(Assign::make(buf, sub(i64(1), var_ref(buf))));
    out.push_back(For::make(k0, kb, ke, i64(depth), Block::make(std::move(chunk))));
    return Block::make(std::move(out));
  }

  const std::vector<Param> &params_;
  const TileSchedule &tile_;
  const Plan &plan_;
  const MatmulForm &form_;
  std::vector<Shared> &shared_;
};

} // namespace

std::optional<Task> map_tile_mma(const Task &task, const std::vector<Param> &params,
                                 const TileSchedule &tile, int sm, bool tf32,
                                 std::vector<Shared> &shared, std::string &why_not) {
  const ParallelFor *loop = top_parallel_loop(task);
  MatmulForm form;
  Plan plan;
  if (!loop || loop->vars.size() != 2) {
    why_not = "the task has no 2-D parallel loop";
    return std::nullopt;
  }
  if (!task.reductions.empty()) {
    why_not = "the loop reduces into an array element all iterations share";
    return std::nullopt;
  }
  why_not = match_matmul(loop, params, tf32, form);
  if (!why_not.empty())
    return std::nullopt;
  if (sm < 80) {
    why_not = sm > 0 ? "the GPU is sm_" + std::to_string(sm) + "; mma.sync needs sm_80 or later"
                     : "the GPU's architecture is not known";
    return std::nullopt;
  }
  // Hopper: its warpgroup instructions where the tile allows them.
  std::string not_wgmma;
  if (sm == 90) {
    std::vector<Shared> with = shared;
    if (std::optional<Task> mapped = map_tile_wgmma(task, params, tile, form, with, not_wgmma)) {
      shared = std::move(with);
      return mapped;
    }
  }
  why_not = plan_tiles(tile, form.input, plan);
  if (!why_not.empty())
    return std::nullopt;
  std::vector<Shared> staged = shared;
  std::vector<Stmt> out;
  Expr tiles;
  for (const Stmt &s : statements_of(task.body))
    out.push_back(
        s.as<ParallelFor>() == loop
            ? tile_loop(
                  loop, tile.rows, tile.cols, tiles,
                  [&](std::vector<Stmt> &body, const Expr &i0, const Expr &j0, const Expr &m,
                      const Expr &n) {
                    MmaTiler(params, tile, plan, form, staged).thread_body(body, i0, j0, m, n);
                  })
            : s);
  shared = std::move(staged);
  Task mapped = task;
  mapped.body = out.size() == 1 ? out[0] : Block::make(std::move(out));
  mapped.domain = {tiles};
  mapped.tile = tile;
  mapped.threads = tile.threads();
  mapped.tensor_cores =
      std::string(form.input == ScalarType::F32
                      ? "mma.sync m16n8k8, f32 read as TF32"
                      : std::string("mma.sync m16n8k16, ") + type_name(form.input)) +
      " products into f32: " + std::to_string(plan.warps_m) + " x " + std::to_string(plan.warps_n) +
      " warps, each a " + std::to_string(plan.warp_rows) + " x " + std::to_string(plan.warp_cols) +
      " block (" + std::to_string(plan.blocks_m) + " x " + std::to_string(plan.blocks_n) +
      " products of 16 x 8) per " + std::to_string(tile.depth) + " steps of k" +
      (not_wgmma.empty() ? "" : "; not wgmma: " + not_wgmma);
  return mapped;
}

} // namespace loom::ir
