// The tile schedule on the GPU: a 2-D parallel loop runs as tiles of rows x cols iterations, one
// thread block per tile, each thread taking thread_rows x thread_cols of the tile's iterations
// (their inner loops fused, so that one loaded value serves several iterations). With a depth,
// the arrays the inner loop reads at [i, k] or [k, j] (either order) are staged through shared
// memory, depth steps of k at a time, double-buffered and prefetched into registers:
//
//   for i, j in parallel(M, N):         for tile = blockIdx.x; tile < tiles; tile += gridDim.x:
//     acc = 0                             each of the thread's (i, j): acc_r = 0
//     for k in range(K):        ==>       next = A[its rows, k0 .. k0+depth), B[...]  (registers)
//       acc += A[i, k] * B[k, j]          for k0 in range(0, K, depth):
//     C[i, j] = acc                         A_tile[buf] = next; B_tile[buf] = next; barrier
//                                           next = the chunk after (prefetch)
//                                           for kk in range(depth): for each (i, j): acc_r += ...
//                                         each of the thread's (i, j) in range: C[i, j] = acc_r
//
// Each iteration's statements run in the order written, its inner loop's steps in order: results
// are those of the default mapping, bit for bit. Iterations past the loop's extents (the edge
// tiles') compute the last row's or column's values again, reading only what the loop reads,
// and write nothing. What the schedule cannot do is a CompileError that says why.
#include "ir/Build.h"
#include "ir/Mutator.h"
#include "ir/Passes.h"
#include "ir/Printer.h"
#include "ir/Synchronizes.h"
#include "ir/TileForm.h"
#include "support/Error.h"

#include <map>
#include <set>

namespace loom::ir {

namespace {

using namespace tile;

// Elements of a shared array's row beyond the tile's: stores of a transposed tile then fall in
// distinct banks, and 4 elements keep every row 16-byte aligned (vector loads).
constexpr int64_t row_padding = 4;

// An array staged through shared memory: tile[buffer][kk][position], filled cooperatively.
struct Staged {
  Pattern pattern;
  ScalarType type;
  Shared tile;
  int64_t extent;        // the tile's rows or columns
  std::vector<Var> next; // this thread's prefetched elements
};

class Tiler {
public:
  Tiler(const std::string &kernel, const std::vector<Param> &params, const TileSchedule &tile,
        std::vector<Shared> &shared, Target target)
      : kernel_(kernel), params_(params), tile_(tile), shared_(shared),
        gpu_(target == Target::GPU) {}

  [[noreturn]] void fail(const std::string &what, const Stmt &where = Stmt()) {
    std::string msg = "kernel '" + kernel_ + "', schedule tile: " + what;
    if (where.defined())
      msg += "\n  in: " + to_string(where, params_);
    throw CompileError(msg);
  }

  // The loop as the GPU's blocks run it: a grid-stride loop over tiles, a block per tile; on the
  // CPU a parallel loop over tiles, each tile's threads' shares one after another. `tiles`
  // receives the number of tiles (the task's domain).
  Stmt map(const ParallelFor *loop, const Stmt &where, Expr &tiles) {
    if (Problem p = split(loop, where); !p.what.empty())
      fail(p.what, p.where);

    std::vector<Stmt> out;
    Var m = make_var("rows", ScalarType::I64), n = make_var("cols", ScalarType::I64);
    out.push_back(Declare::make(m, loop->extents[0]));
    out.push_back(Declare::make(n, loop->extents[1]));
    Expr tiles_j = div(add(var_ref(n), i64(tile_.cols - 1)), i64(tile_.cols));
    Expr tiles_i = div(add(loop->extents[0], i64(tile_.rows - 1)), i64(tile_.rows));
    tiles = mul(tiles_i, div(add(loop->extents[1], i64(tile_.cols - 1)), i64(tile_.cols)));
    Var t = make_var("tile", ScalarType::I64);
    std::vector<Stmt> body;
    Var i0 = make_var("tile_row", ScalarType::I64), j0 = make_var("tile_col", ScalarType::I64);
    body.push_back(Declare::make(i0, mul(div(var_ref(t), tiles_j), i64(tile_.rows))));
    body.push_back(Declare::make(j0, mul(mod(var_ref(t), tiles_j), i64(tile_.cols))));
    const int64_t col_threads = tile_.cols / tile_.thread_cols;
    if (!gpu_) {
      // Each share whole in the loop's extents runs without clamps or guards (the common case,
      // and the one the vectorizer gets to work on), the others clamped and guarded.
      Var tr = make_var("thread_row", ScalarType::I64),
          tc = make_var("thread_col", ScalarType::I64);
      Expr r0 = add(var_ref(i0), mul(var_ref(tr), i64(tile_.thread_rows)));
      Expr c0 = add(var_ref(j0), mul(var_ref(tc), i64(tile_.thread_cols)));
      std::vector<Stmt> interior;
      thread_body(interior, var_ref(i0), var_ref(j0), var_ref(m), var_ref(n), var_ref(tr),
                  var_ref(tc), Expr(), true);
      Stmt edge = edge_share(loop, r0, c0, var_ref(m), var_ref(n));
      Expr whole = logical_and(le(add(r0, i64(tile_.thread_rows)), var_ref(m)),
                               le(add(c0, i64(tile_.thread_cols)), var_ref(n)));
      Expr some = logical_and(lt(r0, var_ref(m)), lt(c0, var_ref(n)));
      Stmt share =
          IfThenElse::make(whole, Block::make(std::move(interior)), IfThenElse::make(some, edge));
      body.push_back(For::make(tr, i64(0), i64(tile_.rows / tile_.thread_rows), i64(1),
                               For::make(tc, i64(0), i64(col_threads), i64(1), share)));
      out.push_back(ParallelFor::make({t}, {tiles}, Block::make(std::move(body))));
      return Block::make(std::move(out));
    }
    Var tid = make_var("thread", ScalarType::I64);
    body.push_back(Declare::make(tid, reg_i64(Reg::ThreadIdx, 0)));
    thread_body(body, var_ref(i0), var_ref(j0), var_ref(m), var_ref(n),
                div(var_ref(tid), i64(col_threads)), mod(var_ref(tid), i64(col_threads)),
                var_ref(tid), false);
    body.push_back(Barrier::make()); // the next tile's stores wait for this one's last reads
    out.push_back(For::make(t, reg_i64(Reg::BlockIdx, 0), tiles, reg_i64(Reg::GridDim, 0),
                            Block::make(std::move(body))));
    return Block::make(std::move(out));
  }

  // Why the loop is not of the form the schedule takes (`what` empty where it is), and the
  // statement in question.
  struct Problem {
    std::string what;
    Stmt where;
  };

  // Splits the iteration's statements into those before its inner loop, the loop, and those
  // after it, checking the form on the way.
  Problem split(const ParallelFor *loop, const Stmt &where) {
    i_ = loop->vars[0].get(), j_ = loop->vars[1].get();
    std::vector<Stmt> top = statements_of(loop->body);
    for (const Stmt &s : top) {
      if (s.as<For>() || s.as<While>()) {
        if (inner_.defined())
          return {"the iteration has more than one loop; the schedule fuses the inner loops of "
                  "the iterations a thread takes, and needs exactly one",
                  where};
        if (!s.as<For>())
          return {"the iteration's loop is a while loop; the schedule needs a range loop", s};
        inner_ = s;
        continue;
      }
      (inner_.defined() ? after_ : before_).push_back(s);
    }
    if (!inner_.defined())
      return {"the iteration has no inner range loop to fuse and stage (use the default mapping)",
              where};
    const For *f = inner_.as<For>();
    Effects body_effects;
    body_effects.visit(f->body);
    if (!body_effects.written.empty())
      return {"the inner loop writes to array '" + params_[*body_effects.written.begin()].name +
                  "'; the schedule fuses the inner loops of several iterations, so it may only "
                  "update locals",
              inner_};
    if (synchronizes(f->body))
      return {"the inner loop has barriers or warp operations", inner_};
    std::set<const Variable *> locals;
    for (const Stmt &s : before_)
      if (auto *d = s.as<Declare>())
        locals.insert(d->var.get());
    Effects bounds;
    bounds.visit(f->begin), bounds.visit(f->end), bounds.visit(f->step);
    for (const Variable *v : bounds.mentioned)
      if (v == i_ || v == j_ || locals.count(v))
        return {"the inner loop's bounds depend on '" + v->name +
                    "'; the iterations a block runs share the loop, so its bounds may depend "
                    "only on parameters and array shapes",
                inner_};
    auto *step = f->step.as<IntConst>();
    if (tile_.depth > 0 && (!step || step->value != 1))
      return {"the inner loop's step is not 1; staging takes `depth` consecutive steps at a time",
              inner_};
    Effects all;
    for (const Stmt &s : top)
      all.visit(s);
    written_ = all.written;
    return {};
  }

private:
  // A CPU share that reaches past the loop's extents: its iterations in range one after another,
  // each the loop's own body as written (the share's rows, then its columns). Few shares are at
  // an edge, and one copy of the body there keeps the code the compiler works on small.
  Stmt edge_share(const ParallelFor *loop, const Expr &r0, const Expr &c0, const Expr &m,
                  const Expr &n) {
    Var r = make_var(i_->name + "_edge", ScalarType::I64);
    Var c = make_var(j_->name + "_edge", ScalarType::I64);
    Copy copy;
    copy.values[i_] = var_ref(r);
    copy.values[j_] = var_ref(c);
    Stmt body = copy.mutate(loop->body);
    return For::make(r, r0, min(add(r0, i64(tile_.thread_rows)), m), i64(1),
                     For::make(c, c0, min(add(c0, i64(tile_.thread_cols)), n), i64(1), body));
  }

  // Where along its axis of the tile the r-th of a thread's iterations lies, for thread t of
  // `threads` along that axis taking `per_thread`. GPU: groups of 4 consecutive iterations, the
  // threads' groups side by side (16-byte vector reads of shared memory in neighbouring banks);
  // CPU: all of a thread's consecutive (vector loads from memory). The position is
  // base + offset(r), base = t * group the same for all r: loads at constant distances, which
  // the vectorizers merge.
  int64_t group(int per_thread) const { return gpu_ && per_thread % 4 == 0 ? 4 : per_thread; }
  Expr position_base(const Expr &t, int per_thread) const { return mul(t, i64(group(per_thread))); }
  int64_t offset(int64_t threads, int per_thread, int r) const {
    const int64_t g = group(per_thread);
    return (r / g) * threads * g + r % g;
  }

  // A thread's iterations along one axis of the tile, for thread t of `threads` along it taking
  // `per_thread`, the tile starting at `origin` of the loop's `extent`.
  struct Axis {
    std::vector<Expr> position; // in the tile: base + offset (loads at constant distances)
    std::vector<Expr> in_range; // origin + position: the loop's index where it is in range
    std::vector<Expr> index;    // the index the iteration runs with: clamped into the extent
    std::vector<Expr> valid;    // whether it is in range (edge threads only)
  };
  Axis axis(std::vector<Stmt> &out, const std::string &name, const Expr &t, const Expr &origin,
            const Expr &extent, int64_t threads, int per_thread, bool interior) {
    Axis a;
    Var base = make_var(name + "_base", ScalarType::I64);
    out.push_back(Declare::make(base, position_base(t, per_thread)));
    // Inside the extents the indices are first + offset, the same constant distances apart.
    Var first = make_var(name + "_first", ScalarType::I64);
    out.push_back(Declare::make(first, add(origin, var_ref(base))));
    for (int r = 0; r < per_thread; ++r) {
      Expr off = i64(offset(threads, per_thread, r));
      a.position.push_back(add(var_ref(base), off));
      a.in_range.push_back(add(var_ref(first), off));
      if (interior) {
        a.index.push_back(a.in_range.back());
        continue;
      }
      Var valid = make_var(name + "_valid", ScalarType::Bool);
      out.push_back(Declare::make(valid, lt(a.in_range.back(), extent)));
      a.valid.push_back(var_ref(valid));
      Var clamped = make_var(name, ScalarType::I64);
      out.push_back(Declare::make(clamped, min(a.in_range.back(), sub(extent, i64(1)))));
      a.index.push_back(var_ref(clamped));
    }
    return a;
  }

  // What the thread at (trow, tcol) of the tile runs (`tid`: its number, on the GPU). An
  // `interior` thread's iterations are all in the loop's extents: no clamps and no guards.
  void thread_body(std::vector<Stmt> &out, const Expr &i0, const Expr &j0, const Expr &m,
                   const Expr &n, const Expr &trow, const Expr &tcol, const Expr &tid,
                   bool interior) {
    const int64_t col_threads = tile_.cols / tile_.thread_cols;
    const int64_t row_threads = tile_.rows / tile_.thread_rows;
    const int64_t threads = row_threads * col_threads;

    // The thread's iterations: (r, c) is row iteration r and column iteration c of its block.
    Axis rows = axis(out, i_->name, trow, i0, m, row_threads, tile_.thread_rows, interior);
    Axis cols = axis(out, j_->name, tcol, j0, n, col_threads, tile_.thread_cols, interior);
    struct Replica {
      int r, c;
      Copy copy;
    };
    std::vector<Replica> replicas;
    replicas.reserve(size_t(tile_.thread_rows) * tile_.thread_cols);
    for (int r = 0; r < tile_.thread_rows; ++r)
      for (int c = 0; c < tile_.thread_cols; ++c) {
        Replica &x = replicas.emplace_back(Replica{r, c, Copy()});
        x.copy.values[i_] = rows.index[r];
        x.copy.values[j_] = cols.index[c];
        if (!interior) {
          Var valid = make_var("valid", ScalarType::Bool);
          out.push_back(Declare::make(valid, logical_and(rows.valid[r], cols.valid[c])));
          x.copy.valid = var_ref(valid);
        }
      }

    // The statements before the inner loop, iteration by iteration.
    for (Replica &x : replicas)
      for (const Stmt &s : before_)
        out.push_back(x.copy.mutate(s));

    const For *f = inner_.as<For>();
    std::vector<Staged> staged = choose_staged(f);
    Var kb = make_var(f->var->name + "_begin", ScalarType::I64);
    Var ke = make_var(f->var->name + "_end", ScalarType::I64);
    out.push_back(Declare::make(kb, f->begin));
    out.push_back(Declare::make(ke, f->end));
    const Variable *k = f->var.get();

    // One step k of the fused loop: the staged elements the thread's iterations read, one after
    // another (neighbours merge into vector loads), then every iteration's copy of the loop body.
    // `kk`: the step's place in the staged chunk (staging only).
    auto fused_step = [&](std::vector<Stmt> &into, const Expr &kval, const Expr &buf,
                          const Expr &kk) {
      Var kv = make_var(f->var->name, ScalarType::I64);
      into.push_back(Declare::make(kv, kval));
      std::map<std::pair<Pattern, int>, Expr> elements; // (pattern, r or c) -> local
      for (const Staged &s : staged) {
        const Axis &along = s.pattern.axis == 0 ? rows : cols;
        for (size_t r = 0; r < along.position.size(); ++r) {
          Var e = make_var(params_[s.pattern.array].name + "_element", s.type);
          Expr value;
          if (gpu_) {
            value = SharedLoad::make(s.tile, {buf, kk, along.position[r]});
          } else {
            Expr x = along.index[r];
            value = Load::make(s.type, s.pattern.array,
                               s.pattern.k_dim == 0 ? std::vector<Expr>{var_ref(kv), x}
                                                    : std::vector<Expr>{x, var_ref(kv)});
          }
          into.push_back(Declare::make(e, value));
          elements[{s.pattern, int(r)}] = var_ref(e);
        }
      }
      for (Replica &x : replicas) {
        x.copy.values[k] = var_ref(kv);
        x.copy.i = i_, x.copy.j = j_, x.copy.k = staged.empty() ? nullptr : k;
        x.copy.staged.clear();
        for (const Staged &s : staged)
          x.copy.staged[s.pattern] = elements.at({s.pattern, s.pattern.axis == 0 ? x.r : x.c});
        x.copy.valid = Expr(); // the loop body writes only locals
        into.push_back(x.copy.mutate(f->body));
      }
    };

    if (!gpu_ || staged.empty()) {
      Var kv = make_var(f->var->name + "_step", ScalarType::I64);
      std::vector<Stmt> step;
      fused_step(step, var_ref(kv), Expr(), Expr());
      out.push_back(For::make(kv, var_ref(kb), var_ref(ke), f->step, Block::make(std::move(step))));
    } else {
      out.push_back(IfThenElse::make(
          lt(var_ref(kb), var_ref(ke)),
          staged_loop(staged, var_ref(kb), var_ref(ke), i0, j0, m, n, tid, threads, fused_step)));
    }
    // The statements after the inner loop, in the iterations in range only: there the indices
    // need no clamping (nor the values they keep in registers through the loop).
    for (Replica &x : replicas) {
      x.copy.k = nullptr;
      x.copy.values.erase(k);
      x.copy.values[i_] = rows.in_range[x.r];
      x.copy.values[j_] = cols.in_range[x.c];
      x.copy.valid = Expr();
      std::vector<Stmt> after;
      for (const Stmt &s : after_)
        after.push_back(x.copy.mutate(s));
      if (interior)
        out.insert(out.end(), after.begin(), after.end());
      else if (!after.empty())
        out.push_back(IfThenElse::make(logical_and(rows.valid[x.r], cols.valid[x.c]),
                                       Block::make(std::move(after))));
    }
  }

  // The arrays worth staging: read at a pattern unconditionally in every step of the inner loop
  // (so the original reads every element the tile holds), never written, with an element type
  // shared memory holds.
  //
  // On the CPU the same arrays are read once per step into locals the thread's iterations share
  // (their elements along the other axis of the block): the code holds one load per element
  // instead of one per iteration, and compiles faster for it.
  std::vector<Staged> choose_staged(const For *f) {
    std::vector<Staged> out;
    if (gpu_ && tile_.depth == 0)
      return out;
    Loads loads;
    loads.i = i_, loads.j = j_, loads.k = f->var.get();
    std::vector<Stmt> top = statements_of(f->body);
    for (const Stmt &s : top) {
      if (auto *d = s.as<Declare>())
        loads.visit(d->init);
      else if (auto *a = s.as<Assign>())
        loads.visit(a->value);
    }
    int64_t bytes = 0;
    shared_offsets(shared_, &bytes);
    for (const Pattern &p : loads.found) {
      const Param &param = params_[p.array];
      ScalarType t = param.type;
      if (written_.count(p.array) || !(t == ScalarType::F32 || t == ScalarType::F64 ||
                                       t == ScalarType::I32 || t == ScalarType::I64))
        continue;
      Staged s;
      s.pattern = p;
      s.type = t;
      s.extent = p.axis == 0 ? tile_.rows : tile_.cols;
      if (!gpu_) {
        out.push_back(s);
        continue;
      }
      s.tile = make_shared_array(param.name + "_tile", t, {2, tile_.depth, s.extent + row_padding});
      out.push_back(s);
      shared_.push_back(s.tile);
    }
    int64_t total = 0;
    shared_offsets(shared_, &total);
    if (total > max_shared_bytes)
      fail("the staged tiles need " + std::to_string(total - bytes) +
           " bytes of shared memory (two buffers of depth x tile elements each), more than a "
           "block's " +
           std::to_string(max_shared_bytes) + "; use a smaller depth or tile");
    return out;
  }

  // The staged inner loop: chunks of `depth` steps, each chunk's tiles stored from the registers
  // the previous chunk prefetched them into.
  template <class Step>
  Stmt staged_loop(std::vector<Staged> &staged, const Expr &kb, const Expr &ke, const Expr &i0,
                   const Expr &j0, const Expr &m, const Expr &n, const Expr &tid, int64_t threads,
                   Step &fused_step) {
    const int64_t depth = tile_.depth;
    std::vector<Stmt> out;
    // The elements of chunk `k0` this thread loads: element e = tid + l * threads of the tile,
    // numbered along the array's contiguous dimension first (coalesced reads).
    auto element = [&](const Staged &s, int64_t l, Expr &kk, Expr &pos) {
      Expr e = add(tid, i64(l * threads));
      const int64_t fast = s.pattern.k_dim == 1 ? depth : s.extent;
      Expr inner = mod(e, i64(fast)), outer = div(e, i64(fast));
      kk = s.pattern.k_dim == 1 ? inner : outer;
      pos = s.pattern.k_dim == 1 ? outer : inner;
    };
    auto count = [&](const Staged &s) { return (s.extent * depth + threads - 1) / threads; };
    auto in_tile = [&](const Staged &s, int64_t l) {
      return (l + 1) * threads <= s.extent * depth; // every thread's element l exists
    };
    auto prefetch = [&](std::vector<Stmt> &into, const Expr &k0, bool declare) {
      for (Staged &s : staged)
        for (int64_t l = 0; l < count(s); ++l) {
          Expr kk, pos;
          element(s, l, kk, pos);
          Expr k = min(add(k0, kk), sub(ke, i64(1)));
          const Expr &base = s.pattern.axis == 0 ? i0 : j0;
          const Expr &extent = s.pattern.axis == 0 ? m : n;
          Expr x = min(add(base, pos), sub(extent, i64(1)));
          std::vector<Expr> idx =
              s.pattern.k_dim == 0 ? std::vector<Expr>{k, x} : std::vector<Expr>{x, k};
          Expr value = Load::make(s.type, s.pattern.array, idx);
          if (declare) {
            s.next.push_back(make_var(params_[s.pattern.array].name + "_next", s.type));
            into.push_back(Declare::make(s.next.back(), value));
          } else {
            into.push_back(Assign::make(s.next[l], value));
          }
        }
    };
    prefetch(out, kb, true);
    Var buf = make_var("buffer", ScalarType::I64);
    out.push_back(Declare::make(buf, i64(0)));
    Var k0 = make_var("chunk", ScalarType::I64);
    std::vector<Stmt> chunk;
    for (const Staged &s : staged)
      for (int64_t l = 0; l < count(s); ++l) {
        Expr kk, pos;
        element(s, l, kk, pos);
        Stmt store = SharedStore::make(s.tile, {var_ref(buf), kk, pos}, var_ref(s.next[l]));
        if (!in_tile(s, l))
          store = IfThenElse::make(lt(add(tid, i64(l * threads)), i64(s.extent * depth)), store);
        chunk.push_back(store);
      }
    chunk.push_back(Barrier::make());
    prefetch(chunk, add(var_ref(k0), i64(depth)), false);
    // A whole chunk runs `depth` steps; the last, partial one checks each step.
    Var kk = make_var("kk", ScalarType::I64), kt = make_var("kk", ScalarType::I64);
    std::vector<Stmt> whole, partial;
    fused_step(whole, add(var_ref(k0), var_ref(kk)), var_ref(buf), var_ref(kk));
    fused_step(partial, add(var_ref(k0), var_ref(kt)), var_ref(buf), var_ref(kt));
    chunk.push_back(
        IfThenElse::make(le(add(var_ref(k0), i64(depth)), ke),
                         For::make(kk, i64(0), i64(depth), i64(1), Block::make(std::move(whole))),
                         For::make(kt, i64(0), i64(depth), i64(1),
                                   IfThenElse::make(lt(add(var_ref(k0), var_ref(kt)), ke),
                                                    Block::make(std::move(partial))))));
    chunk.push_back(Assign::make(buf, sub(i64(1), var_ref(buf))));
    out.push_back(For::make(k0, kb, ke, i64(depth), Block::make(std::move(chunk))));
    return Block::make(std::move(out));
  }

  const std::string &kernel_;
  const std::vector<Param> &params_;
  const TileSchedule &tile_;
  std::vector<Shared> &shared_;
  bool gpu_;
  const Variable *i_ = nullptr, *j_ = nullptr;
  std::vector<Stmt> before_, after_;
  Stmt inner_;
  std::set<int> written_;
};

} // namespace

std::string tile_form_problem(const Task &task, const std::vector<Param> &params) {
  if (!has_2d_parallel_loop(task))
    return "the task has no 2-D parallel loop";
  if (!task.reductions.empty())
    return "the parallel loop reduces into an array element all iterations share";
  std::vector<Shared> shared;
  const TileSchedule tile{1, 1};
  Tiler tiler("", params, tile, shared, Target::CPU);
  return tiler.split(top_parallel_loop(task), Stmt()).what;
}

bool has_2d_parallel_loop(const Task &task) {
  if (task.kind != TaskKind::Parallel)
    return false;
  const ParallelFor *loop = top_parallel_loop(task);
  return loop && loop->vars.size() == 2;
}

Task map_tile(const Task &task, const std::string &kernel, const std::vector<Param> &params,
              const TileSchedule &tile, std::vector<Shared> &shared, Target target) {
  if (!has_2d_parallel_loop(task))
    throw CompileError("internal error: kernel '" + kernel +
                       "', schedule tile, on a task without a 2-D parallel loop");
  std::vector<Stmt> top = statements_of(task.body);
  const ParallelFor *loop = top_parallel_loop(task);
  if (!task.reductions.empty())
    throw CompileError("kernel '" + kernel +
                       "', schedule tile: the parallel loop reduces into an array element all "
                       "iterations share, which the schedule does not support");
  std::vector<Stmt> out;
  Expr tiles;
  for (const Stmt &s : top) {
    if (s.as<ParallelFor>()) {
      Tiler tiler(kernel, params, tile, shared, target);
      out.push_back(tiler.map(loop, s, tiles));
    } else {
      out.push_back(s);
    }
  }
  Task mapped = task;
  mapped.body = out.size() == 1 ? out[0] : Block::make(std::move(out));
  mapped.domain = {tiles};
  mapped.tile = tile;
  if (target == Target::GPU)
    mapped.threads = tile.threads();
  return mapped;
}

} // namespace loom::ir
