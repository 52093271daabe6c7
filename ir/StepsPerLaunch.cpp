// GPU: several steps of a sequential loop around a 1-D stencil in one launch (overlapped tiles,
// "temporal blocking"), where each step's launch would be too short to pay for itself:
//
//   for t in range(b, T):                        copy task:  Z[0, c] = A[r(b), c] for every c
//     for n in parallel(C):                 =>   loop t in range(b, T, K):
//       A[w(t), n] = f(A[r(t), n + d], ...)        steps task: each block of P threads computes
//                                                    K steps of C' = P - K(L + R) columns
//
// Rodinia's pathfinder has the form: one row of 100,000 cells a step, each step a launch of about
// 1.7 us, most of it the launch's own cost. Its CUDA version computes 20 rows a launch (a
// "pyramid"); this pass does the same for any loop of the form.
//
// The form: a task loop of one parallel task over one dimension n in [0, C), which stores one
// array A once, at the top level of its body, at [w(t), n] (w naming only the loop's variable and
// scalars), stores nothing else, and reads A only at [r(t), e] where r(t) is w(t - step), the row
// the step before wrote, and e provably lies in [n - L, n + R] and in [0, C) for every n (n plus a
// constant, clamped by min and max against 0 and C - 1). Nothing else in the body reaches past
// its own iteration (no atomics, reductions, prints, warp operations or local arrays).
//
// Each launch covers K steps t .. t + (K - 1) step, and reads the row its first step reads from a
// scratch array Z of two rows (LoweredKernel::scratch), not from A: a later step of the same
// launch may write that row of A while another block still reads it. A copy task before the loop
// fills Z's row 0; the j-th launch reads row j % 2 and leaves its last step's row in row
// (j + 1) % 2 for the next. The steps task's block b owns columns [bC', bC' + C'); its thread x
// stands for column c = bC' - KL + x. It copies Z's columns into shared memory, then runs each
// step s on the columns that the steps after it still need, [bC' - (K-1-s)L, bC' + C' +
// (K-1-s)R) (a window that narrows by L and R each step, down to the block's own), reading the
// step before's values from shared memory (two rows, taking turns, a barrier between steps) and
// writing its own to shared memory and, for the block's own columns, to A. The body's loads of
// other arrays at its top level are issued a step ahead, before the barrier of the step before,
// so that their latency passes while the block computes (the loop stores no other array, and the
// next step's window lies in this one's: a load issued is one the next step makes). Every element
// of A is written by one thread with the value the loop computes for it: results are unchanged,
// bit for bit; the columns near a block's edges are computed by its neighbours too, K(L + R) / C'
// more work in all.
#include "ir/Build.h"
#include "ir/LinearForm.h"
#include "ir/Mutator.h"
#include "ir/Passes.h"
#include "ir/Printer.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>

namespace loom::ir {

namespace {

// The threads of a block: with the 16 steps a launch of LOOM_STEPS_PER_LAUNCH's default, 256
// threads compute 224 columns of a stencil reaching one column each side (pathfinder's), 14%
// more work than one step a launch.
constexpr int block_threads = 256;
// The farthest a stencil may reach (L and R each), and the fewest columns a block keeps as its
// own: fewer steps a launch where more would leave it less.
constexpr int64_t most_reach = 4;
constexpr int64_t fewest_own_columns = 64;

// Bounds of an index e of the loop variable n in [0, C): of e - n (its reach), and of e itself
// (at least `lo`, at most C + `hi_past`, i.e. below C when hi_past <= -1). Unknown bounds are
// nullopt.
struct Bounds {
  std::optional<int64_t> reach_lo, reach_hi, lo, hi_past;
};

std::optional<int64_t> larger(std::optional<int64_t> a, std::optional<int64_t> b) {
  return a && b ? std::optional(std::max(*a, *b)) : std::nullopt;
}
std::optional<int64_t> smaller(std::optional<int64_t> a, std::optional<int64_t> b) {
  return a && b ? std::optional(std::min(*a, *b)) : std::nullopt;
}
// The larger of two lower bounds where either is known (an unknown one is -infinity).
std::optional<int64_t> larger_known(std::optional<int64_t> a, std::optional<int64_t> b) {
  return a && b ? std::optional(std::max(*a, *b)) : a ? a : b;
}
std::optional<int64_t> smaller_known(std::optional<int64_t> a, std::optional<int64_t> b) {
  return a && b ? std::optional(std::min(*a, *b)) : a ? a : b;
}

Bounds bounds_of(const Expr &e, const Variable *n, const Expr &extent) {
  Bounds b;
  auto *bin = e.as<Binary>();
  if (bin && (bin->op == BinaryOp::Max || bin->op == BinaryOp::Min)) {
    const Bounds x = bounds_of(bin->a, n, extent), y = bounds_of(bin->b, n, extent);
    if (bin->op == BinaryOp::Max) { // at least either's lower bound, at most both's upper
      b = {larger_known(x.reach_lo, y.reach_lo), larger(x.reach_hi, y.reach_hi),
           larger_known(x.lo, y.lo), larger(x.hi_past, y.hi_past)};
    } else {
      b = {smaller(x.reach_lo, y.reach_lo), smaller_known(x.reach_hi, y.reach_hi),
           smaller(x.lo, y.lo), smaller_known(x.hi_past, y.hi_past)};
    }
  } else {
    Linear l = linear(e);
    const int64_t k = l.coefficient(n);
    int64_t extent_k = 0;
    bool other = false;
    for (const auto &[atom, c] : l.terms) {
      if (c == 0 || is_var(atom, n))
        continue;
      if (equal(atom, extent))
        extent_k = c;
      else
        other = true;
    }
    if (!l.exact || other)
      return b;
    if (k == 1 && extent_k == 0) // n + c
      b = {l.constant, l.constant, l.constant, l.constant - 1};
    else if (k == 0 && extent_k == 0) // c: e - n <= c (n >= 0)
      b = {std::nullopt, l.constant, l.constant, std::nullopt};
    else if (k == 0 && extent_k == 1) // C + c: e - n >= c + 1 (n < C), e >= c + 1 (C >= 1)
      b = {l.constant + 1, std::nullopt, l.constant + 1, l.constant};
  }
  // n is in [0, C): e >= n + reach_lo >= reach_lo, and e <= n + reach_hi <= C + reach_hi - 1.
  b.lo = larger_known(b.lo, b.reach_lo);
  if (b.reach_hi)
    b.hi_past = smaller_known(b.hi_past, *b.reach_hi - 1);
  return b;
}

// The body's reads of A and how far they reach, and what rules the body out.
struct Stencil : Visitor {
  const Variable *n = nullptr;
  Expr extent;
  int array = -1; // A, the array the body stores
  const Store *store = nullptr;
  std::vector<const Load *> loads; // of A
  int64_t reach_left = 0, reach_right = 0;
  bool ok = true;

  void refuse(const char * /* why, in words */) { ok = false; }
  void visit_node(const Store *s) override {
    if (s->array != array || store != s)
      refuse("it stores more than one element a step");
    Visitor::visit_node(s);
  }
  void visit_node(const Load *l) override {
    if (l->array == array) {
      loads.push_back(l);
      const Bounds b = bounds_of(l->indices.back(), n, extent);
      if (!b.reach_lo || !b.reach_hi || !b.lo || !b.hi_past || *b.lo < 0 || *b.hi_past > -1)
        refuse("a read of the array it stores is not provably within a few columns of its own");
      else if (*b.reach_lo < -most_reach || *b.reach_hi > most_reach)
        refuse("a read of the array it stores reaches more than most_reach columns away");
      else
        reach_left = std::max(reach_left, -*b.reach_lo),
        reach_right = std::max(reach_right, *b.reach_hi);
    }
    Visitor::visit_node(l);
  }
  void visit_node(const Reduce *) override { refuse("it updates array elements"); }
  void visit_node(const Atomic *) override { refuse("it has atomics"); }
  void visit_node(const Print *) override { refuse("it prints"); }
  void visit_node(const Assert *) override { refuse("it asserts"); }
  void visit_node(const WarpOp *) override { refuse("it has warp operations"); }
  void visit_node(const Barrier *) override { refuse("it has barriers"); }
  void visit_node(const ParallelFor *) override { refuse("it has nested parallel loops"); }
  void visit_node(const SharedLoad *) override { refuse("it has local arrays"); }
  void visit_node(const SharedStore *) override { refuse("it has local arrays"); }
};

// Whether `e` names only the variables in `fixed`.
bool names_only(const Expr &e, const std::set<const Variable *> &fixed) {
  struct Names : Visitor {
    const std::set<const Variable *> &fixed;
    bool ok = true;
    explicit Names(const std::set<const Variable *> &f) : fixed(f) {}
    void visit_node(const VarRef *r) override { ok = ok && fixed.count(r->var.get()); }
    void visit_node(const Load *) override { ok = false; }
  } names(fixed);
  names.visit(e);
  return names.ok;
}

// The body with A's reads from the shared rows and its store to shared memory and, for the
// block's own columns, to A.
class ToShared : public Mutator {
public:
  ToShared(int array, Shared rows, Expr read_row, Expr write_row, Expr first_column, Expr thread,
           Expr owned)
      : array_(array), rows_(std::move(rows)), read_row_(std::move(read_row)),
        write_row_(std::move(write_row)), first_(std::move(first_column)),
        thread_(std::move(thread)), owned_(std::move(owned)) {}
  // The block's own values also to `array` at `at` when `when` holds.
  void also_to(int array, Expr when, std::vector<Expr> at) {
    also_array_ = array;
    also_when_ = std::move(when);
    also_at_ = std::move(at);
  }

protected:
  Expr mutate_node(const Load *l, const Expr &self) override {
    if (l->array != array_)
      return Mutator::mutate_node(l, self);
    Expr column = mutate(l->indices.back());
    return SharedLoad::make(rows_, {read_row_, sub(column, first_)});
  }
  Stmt mutate_node(const Store *s, const Stmt &) override {
    Var v = make_var("step_value", s->value->type);
    Expr value = mutate(s->value);
    std::vector<Expr> indices;
    for (const Expr &i : s->indices)
      indices.push_back(mutate(i));
    Stmt to_array = Store::make(array_, indices, var_ref(v));
    if (also_array_ >= 0)
      to_array = Block::make(
          {to_array, IfThenElse::make(also_when_, Store::make(also_array_, also_at_, var_ref(v)))});
    return Block::make({Declare::make(v, value),
                        SharedStore::make(rows_, {write_row_, thread_}, var_ref(v)),
                        IfThenElse::make(owned_, to_array)});
  }

private:
  int array_;
  Shared rows_;
  Expr read_row_, write_row_, first_, thread_, owned_;
  int also_array_ = -1;
  Expr also_when_;
  std::vector<Expr> also_at_;
};

// The loads a step issues a step ahead: of arrays other than A (which the loop never stores), at
// the top level of the body (so run whenever the body runs), at indices naming only `fixed` (the
// column, the step's variable, scalars). Each distinct one once.
std::vector<Expr> loads_ahead(const Stmt &body, int array,
                              const std::set<const Variable *> &fixed) {
  return top_level_loads(body, [&](const Load *l) {
    bool plain = l->array != array;
    for (const Expr &i : l->indices)
      plain = plain && names_only(i, fixed);
    return plain;
  });
}

// The body with the loads of `loads` read from `values` instead.
class LoadedAhead : public Mutator {
public:
  LoadedAhead(const std::vector<Expr> &loads, const std::vector<Var> &values)
      : loads_(loads), values_(values) {}

protected:
  Expr mutate_node(const Load *l, const Expr &self) override {
    for (size_t k = 0; k < loads_.size(); ++k)
      if (equal(self, loads_[k]))
        return var_ref(values_[k]);
    return Mutator::mutate_node(l, self);
  }

private:
  const std::vector<Expr> &loads_;
  const std::vector<Var> &values_;
};

// A task loop's task of the form: its parallel loop, the array A it stores, the store and the
// row the first step reads, how far the reads of A reach, and the variables rows may name.
struct Form {
  const ParallelFor *loop = nullptr;
  Var n;
  Expr extent;
  const Store *store = nullptr;
  int array = -1;
  std::vector<Expr> first_row;
  int64_t left = 0, right = 0;
  std::set<const Variable *> fixed; // the loop's variable and the scalar parameters
};

std::optional<Form> stencil_form(const TaskLoop &loop, const Task &task,
                                 const std::vector<Param> &params,
                                 const std::vector<TaskLoop> &loops) {
  if (task.kind != TaskKind::Parallel || task.domain.size() != 1 || !task.reductions.empty() ||
      task.threads != 0)
    return std::nullopt;
  const std::vector<Stmt> top = statements_of(task.body);
  auto *pfor = top.size() == 1 ? top[0].as<ParallelFor>() : nullptr;
  if (!pfor || pfor->vars.size() != 1)
    return std::nullopt;
  Form f;
  f.loop = pfor;
  f.n = pfor->vars[0];
  f.extent = pfor->extents[0];
  // The same columns in every step, known before the loops run (the scratch rows' extent): the
  // extent names no task loop's variable.
  std::set<const Variable *> scalars;
  for (const Param &p : params)
    if (p.var)
      scalars.insert(p.var.get());
  for (const TaskLoop &l : loops)
    scalars.erase(l.var.get());
  if (!names_only(f.extent, scalars))
    return std::nullopt;
  // The one store, at the top level of the body, at [w(t), n], w naming the loop's variable and
  // scalars only.
  for (const Stmt &s : statements_of(pfor->body))
    if (auto *st = s.as<Store>())
      f.store = f.store ? nullptr : st;
  if (!f.store || params[static_cast<size_t>(f.store->array)].kind != ParamKind::Array ||
      f.store->indices.size() < 2 || !is_var(f.store->indices.back(), f.n.get()))
    return std::nullopt;
  f.array = f.store->array;
  f.fixed = {loop.var.get()};
  for (const Param &p : params)
    if (p.var)
      f.fixed.insert(p.var.get());
  for (size_t d = 0; d + 1 < f.store->indices.size(); ++d)
    if (!names_only(f.store->indices[d], f.fixed))
      return std::nullopt;
  Stencil stencil;
  stencil.n = f.n.get();
  stencil.extent = f.extent;
  stencil.array = f.array;
  stencil.store = f.store;
  stencil.visit(pfor->body);
  if (!stencil.ok || stencil.loads.empty())
    return std::nullopt;
  // Every read of A is of the row the step before wrote (compared at a step u: the read at u
  // against the store at u - step).
  Var u = make_var(loop.var->name, ScalarType::I64);
  SubstituteVars at_u({{loop.var.get(), var_ref(u)}});
  SubstituteVars before({{loop.var.get(), sub(var_ref(u), loop.step)}});
  for (const Load *l : stencil.loads)
    for (size_t d = 0; d + 1 < l->indices.size(); ++d)
      if (!names_only(l->indices[d], f.fixed) ||
          !same_value(at_u.mutate(l->indices[d]), before.mutate(f.store->indices[d])))
        return std::nullopt;
  f.first_row.assign(stencil.loads[0]->indices.begin(), stencil.loads[0]->indices.end() - 1);
  f.left = stencil.reach_left;
  f.right = stencil.reach_right;
  return f;
}

// The copy task, before the loop: row r(begin) of A, the row the loop's first step reads, into row
// 0 of scratch array z (none when the loop runs no step).
Task copy_task(const Task &task, const TaskLoop &loop, const Form &f, int z,
               const std::vector<Param> &params) {
  const Param &pa = params[static_cast<size_t>(f.array)];
  SubstituteVars at_begin({{loop.var.get(), loop.begin}});
  std::vector<Expr> from;
  std::string row;
  for (const Expr &e : f.first_row) {
    from.push_back(simplify(at_begin.mutate(e)));
    row += (row.empty() ? "" : ", ") + to_string(from.back(), params);
  }
  const Expr extent = Select::make(lt(loop.begin, loop.end), f.extent, i64(0));
  Var c = make_var("c", ScalarType::I64);
  from.push_back(var_ref(c));
  Task copy;
  copy.name = task.name + "_first_row";
  copy.kind = TaskKind::Parallel;
  copy.domain = {extent};
  copy.body = ParallelFor::make(
      {c}, {extent}, Store::make(z, {i64(0), var_ref(c)}, Load::make(pa.type, f.array, from)));
  copy.steps_per_launch =
      "copies row [" + row + "] of '" + pa.name + "' for the loop's first launch to read";
  return copy;
}

// The steps task: blocks of block_threads threads, each through k steps of `own` columns, the
// rows in shared array `rows`, the first read from scratch array z.
Task steps_task(const Task &task, const TaskLoop &loop, const Form &f, int z, int64_t k,
                int64_t own, const Shared &rows, const std::vector<Param> &params) {
  const Param &pa = params[static_cast<size_t>(f.array)];
  const Expr &extent = f.extent;
  Var b = make_var("block", ScalarType::I64), x = make_var("x", ScalarType::I64),
      first = make_var("first_column", ScalarType::I64), c = make_var(f.n->name, ScalarType::I64),
      s = make_var("step", ScalarType::I64), ts = make_var(loop.var->name, ScalarType::I64),
      count = make_var("steps", ScalarType::I64);
  const Expr blocks = div(add(extent, i64(own - 1)), i64(own));
  // The launch's row of z, j % 2 for its j-th launch, and the next launch's.
  const Expr launch = div(sub(var_ref(loop.var), loop.begin), mul(loop.step, i64(k)));
  const Expr z_row = mod(launch, i64(2)), z_next = mod(add(launch, i64(1)), i64(2));
  const Expr own_first = mul(var_ref(b), i64(own));
  const Expr in_columns = logical_and(le(i64(0), var_ref(c)), lt(var_ref(c), extent));
  // Step s computes [bC' - (K-1-s)L, bC' + C' + (K-1-s)R), the threads [(s+1)L, P - (s+1)R) of
  // the block (c = bC' - KL + x), of the columns there are; the block's own are its threads
  // [KL, KL + C').
  const int64_t threads = block_threads;
  auto window_at = [&](const Expr &step) {
    const Expr past = add(step, i64(1));
    return logical_and(logical_and(le(mul(past, i64(f.left)), var_ref(x)),
                                   lt(var_ref(x), sub(i64(threads), mul(past, i64(f.right))))),
                       in_columns);
  };
  const Expr owned =
      logical_and(le(i64(k * f.left), var_ref(x)), lt(var_ref(x), i64(k * f.left + own)));

  // The step's body: A's reads from the shared rows (step s reads row (s + 1) % 2, the copy's
  // row 1 at s = 0, and writes row s % 2), the other arrays' loads from `current`, each loaded
  // into `next` in the step before (before its barrier), so that their latency passes while the
  // block computes.
  // The last step's own columns also go to the next launch's row of z.
  ToShared to_shared(f.array, rows, mod(add(var_ref(s), i64(1)), i64(2)), mod(var_ref(s), i64(2)),
                     var_ref(first), var_ref(x), owned);
  to_shared.also_to(z, eq(var_ref(s), sub(var_ref(count), i64(1))), {z_next, var_ref(c)});
  SubstituteVars rename({{f.n.get(), var_ref(c)}, {loop.var.get(), var_ref(ts)}});
  Stmt body = rename.mutate(f.loop->body);
  std::set<const Variable *> ahead_names = f.fixed;
  ahead_names.insert(c.get());
  ahead_names.insert(ts.get());
  ahead_names.erase(loop.var.get());
  const std::vector<Expr> ahead = loads_ahead(body, f.array, ahead_names);
  std::vector<Var> next, current;
  for (const Expr &l : ahead) {
    next.push_back(make_var("next", l.type()));
    current.push_back(make_var("loaded", l.type()));
  }
  Stmt step_body = to_shared.mutate(LoadedAhead(ahead, current).mutate(body));
  auto load_ahead = [&](const Expr &step) {
    SubstituteVars at({{ts.get(), add(var_ref(loop.var), mul(step, loop.step))}});
    std::vector<Stmt> out;
    for (size_t l = 0; l < ahead.size(); ++l)
      out.push_back(Assign::make(next[l], at.mutate(ahead[l])));
    return Block::make(std::move(out));
  };

  // Step s: its loop variable, its loads, the next step's loads, the body, a barrier.
  std::vector<Stmt> each_step = {
      Declare::make(ts, add(var_ref(loop.var), mul(var_ref(s), loop.step)))};
  for (size_t l = 0; l < ahead.size(); ++l)
    each_step.push_back(Declare::make(current[l], var_ref(next[l])));
  const Expr after = add(var_ref(s), i64(1));
  if (!ahead.empty())
    each_step.push_back(IfThenElse::make(logical_and(lt(after, var_ref(count)), window_at(after)),
                                         load_ahead(after)));
  each_step.push_back(IfThenElse::make(window_at(var_ref(s)), step_body));
  each_step.push_back(Barrier::make());

  // A block's tile: its column, the launch's steps (K, or those left before the loop's end), the
  // first step's loads, its columns of the scratch row into shared row 1, then the steps.
  const Expr left_steps =
      div(add(sub(loop.end, var_ref(loop.var)), sub(loop.step, i64(1))), loop.step);
  std::vector<Stmt> tile = {
      Declare::make(x, reg_i64(Reg::ThreadIdx, 0)),
      Declare::make(first, sub(own_first, i64(k * f.left))),
      Declare::make(c, add(var_ref(first), var_ref(x))),
      Declare::make(count, min(i64(k), left_steps)),
  };
  for (size_t l = 0; l < ahead.size(); ++l)
    tile.push_back(Declare::make(next[l], zero_of(ahead[l].type())));
  if (!ahead.empty())
    tile.push_back(IfThenElse::make(window_at(i64(0)), load_ahead(i64(0))));
  tile.push_back(
      IfThenElse::make(in_columns, SharedStore::make(rows, {i64(1), var_ref(x)},
                                                     Load::make(pa.type, z, {z_row, var_ref(c)}))));
  tile.push_back(Barrier::make());
  tile.push_back(For::make(s, i64(0), var_ref(count), i64(1), Block::make(std::move(each_step))));

  Task out = task;
  out.name = task.name + "_steps";
  out.domain = {blocks};
  out.threads = block_threads;
  out.body = For::make(b, reg_i64(Reg::BlockIdx, 0), blocks, reg_i64(Reg::GridDim, 0),
                       Block::make(std::move(tile)));
  out.steps_per_launch = std::to_string(k) + " steps of the loop over '" + loop.var->name +
                         "' a launch: blocks of " + std::to_string(block_threads) +
                         " threads compute " + std::to_string(own) + " columns of '" + pa.name +
                         "' each, reaching " + std::to_string(f.left) + " left and " +
                         std::to_string(f.right) + " right a step";
  return out;
}

} // namespace

bool run_steps_per_launch(std::vector<Task> &tasks, std::vector<TaskLoop> &loops,
                          std::vector<Param> &params, std::vector<Shared> &shared,
                          std::vector<ScratchArray> &scratch, int steps) {
  bool changed = false;
  for (size_t li = 0; steps > 1 && li < loops.size(); ++li) {
    TaskLoop &loop = loops[li];
    // One task, directly in the loop.
    bool nested = false;
    for (size_t o = 0; o < loops.size(); ++o)
      nested = nested || (o != li && loops[o].first >= loop.first && loops[o].last <= loop.last);
    if (loop.last != loop.first + 1 || nested)
      continue;
    const Task &task = tasks[loop.first];
    const std::optional<Form> form = stencil_form(loop, task, params, loops);
    if (!form)
      continue;
    // Fewer steps for a stencil that reaches further, so that a block keeps its columns.
    const int64_t reach = form->left + form->right;
    const int64_t k =
        reach == 0 ? steps : std::min<int64_t>(steps, (block_threads - fewest_own_columns) / reach);
    const int64_t own = block_threads - k * reach;

    const Param &pa = params[static_cast<size_t>(form->array)];
    const int z = static_cast<int>(params.size());
    params.push_back({pa.name + "_rows", ParamKind::Array, pa.type, 2, Var()});
    scratch.push_back({z, {i64(2), form->extent}});
    Shared rows = make_shared_array(pa.name + "_steps", pa.type, {2, block_threads});
    shared.push_back(rows);
    Task copy = copy_task(task, loop, *form, z, params);
    Task stepped = steps_task(task, loop, *form, z, k, own, rows, params);

    // The copy before the loop (inside those around it), the loop of K steps a launch.
    loop.step = mul(loop.step, i64(k));
    const size_t at = loop.first;
    tasks[at] = std::move(stepped);
    tasks.insert(tasks.begin() + static_cast<std::ptrdiff_t>(at), std::move(copy));
    for (TaskLoop &l : loops) {
      if (l.first > at || &l == &loop)
        ++l.first;
      if (l.last > at)
        ++l.last;
    }
    changed = true;
  }
  return changed;
}

} // namespace loom::ir
