// GPU: a block of threads for each iteration of a parallel loop's outer dimensions, the elements
// that all its threads read in a sequential loop staged once in shared memory:
//
//   for o, i in parallel(E, C):            for b in blockIdx.x .. E step gridDim.x:  (C threads)
//     ...                                    o = b; i = threadIdx.x
//     for j in lo .. lo + T:         =>      ...
//       ... A[f(j)] ...                      base = lo
//                                            for t in i .. T step C: S[t] = A[f(base + t)]
//                                            barrier
//                                            for j in base .. base + T: ... S[j - base] ...
//                                            barrier
//
// Rodinia's lavaMD has the form: each of a box's 100 particles (i) sums over the particles of the
// box's neighbours (j), which are the same for every particle of the box (o). Under the default
// mapping every thread loads each neighbour particle from global memory; its CUDA version gives a
// block to each box and copies each neighbour box's particles to shared memory once. This pass
// does the same for any loop of the form.
//
// The form: a parallel task of two or more dimensions whose innermost extent is a constant C of
// 64 to 1024 (a block's threads, one an iteration; the block's iterations share the outer
// indices), without updates that combine (reductions, atomics), warp operations, barriers or
// shared arrays. In it, a sequential loop over j with step 1 and a constant count T (16 to 4096)
// that every thread of a block reaches together: its bounds, and the condition and bounds of
// every if and loop around it, are uniform (the same on every thread of the block). Uniform are
// constants, shapes, scalar parameters, the outer parallel indices, loads at uniform indices of
// arrays the task never writes, and the locals and loop variables whose every definition is a
// uniform value at a uniform place (the largest such set: a definition's value may name the
// local itself). Staged are the loads in the statements at the top level of j's body (not in an
// if, a loop or an arm of a select: each runs once every step) of an array the task never writes,
// whose indices name j and otherwise only uniform variables that j's body does not assign: each
// step of the loop loads them on every thread, so the copy before the loop, T elements of each,
// reads only elements the loop reads. Each element then comes from global memory once a block
// instead of once a thread, and the block's threads copy T / C of them each.
//
// Results are unchanged, bit for bit: the same elements, the same operations in the same order.
// Not under bounds checks (each access stays where the program has it) nor with loop schedules.
#include "ir/Build.h"
#include "ir/LinearForm.h"
#include "ir/Mutator.h"
#include "ir/Passes.h"
#include "ir/Printer.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace loom::ir {

namespace {

// The block's threads: one an iteration of the innermost dimension, whose extent must be a
// constant in this range (fewer threads a block would leave an SM's warps short).
constexpr int64_t fewest_threads = 64;
constexpr int64_t most_threads = 1024;
// The count of a loop whose reads are staged: enough to pay for two barriers, few enough to fit.
constexpr int64_t fewest_steps = 16;
constexpr int64_t most_steps = 4096;
// The shared memory the staged copies of one task may take.
constexpr int64_t most_bytes = 32 * 1024;

// What rules a task out: updates that combine, warp-level and block-level operations.
struct Refuses : Visitor {
  bool found = false;
  void visit_node(const Reduce *) override { found = true; }
  void visit_node(const Atomic *) override { found = true; }
  void visit_node(const Barrier *) override { found = true; }
  void visit_node(const Mma *) override { found = true; }
  void visit_node(const WarpgroupMma *) override { found = true; }
  void visit_node(const AsyncCopy *) override { found = true; }
  void visit_node(const AsyncWait *) override { found = true; }
  void visit_node(const Mbarrier *) override { found = true; }
  void visit_node(const WarpOp *) override { found = true; }
  void visit_node(const SharedLoad *n) override {
    found = found || !n->array->local();
    Visitor::visit_node(n);
  }
  void visit_node(const SharedStore *n) override {
    found = found || !n->array->local();
    Visitor::visit_node(n);
  }
};

// Which values are the same on every thread of a block.
class Uniformity {
public:
  Uniformity(const Stmt &body, const ParallelFor &loop, std::set<int> written)
      : written_(std::move(written)) {
    collect(body, {});
    for (const auto &[v, ds] : defs_)
      uniform_.insert(v);
    uniform_.erase(loop.vars.back().get());
    // The largest set of variables whose definitions are uniform: drop those that are not
    // until none is dropped.
    for (bool changed = true; changed;) {
      changed = false;
      for (auto it = uniform_.begin(); it != uniform_.end();) {
        bool ok = true;
        for (const Def &d : defs_.at(*it)) {
          ok = ok && uniform(d.value);
          for (const Expr &c : d.context)
            ok = ok && uniform(c);
        }
        if (ok) {
          ++it;
        } else {
          it = uniform_.erase(it);
          changed = true;
        }
      }
    }
  }

  // Whether `e` has one value on every thread of the block, given that `except` may differ.
  bool uniform(const Expr &e, const std::set<const Variable *> &except = {}) const {
    struct Check : Visitor {
      const Uniformity *u;
      const std::set<const Variable *> *except;
      bool ok = true;
      void visit_node(const VarRef *n) override {
        const Variable *v = n->var.get();
        // Variables the task does not define are the kernel's scalar parameters.
        ok = ok && !except->count(v) && (!u->defs_.count(v) || u->uniform_.count(v));
      }
      void visit_node(const Load *n) override {
        ok = ok && !u->written_.count(n->array);
        Visitor::visit_node(n);
      }
      void visit_node(const SharedLoad *) override { ok = false; }
      void visit_node(const SharedExtent *) override { ok = false; }
      void visit_node(const SpecialReg *) override { ok = false; }
      void visit_node(const WarpOp *) override { ok = false; }
    } check;
    check.u = this;
    check.except = &except;
    if (e.defined())
      check.visit(e);
    return check.ok;
  }
  bool written(int array) const { return written_.count(array) > 0; }

private:
  // A definition of a variable: its value (undefined: one per thread), and what must be uniform
  // for the place it is made to be (the conditions and bounds around it).
  struct Def {
    Expr value;
    std::vector<Expr> context;
  };

  void collect(const Stmt &s, std::vector<Expr> context) {
    if (!s.defined())
      return;
    if (auto *b = s.as<Block>()) {
      for (const Stmt &x : b->stmts)
        collect(x, context);
    } else if (auto *d = s.as<Declare>()) {
      defs_[d->var.get()].push_back({d->init, context});
    } else if (auto *a = s.as<Assign>()) {
      defs_[a->var.get()].push_back({a->value, context});
    } else if (auto *f = s.as<For>()) {
      context.insert(context.end(), {f->begin, f->end, f->step});
      defs_[f->var.get()].push_back({f->begin, context});
      collect(f->body, context);
    } else if (auto *w = s.as<While>()) {
      context.push_back(w->cond);
      collect(w->body, context);
    } else if (auto *i = s.as<IfThenElse>()) {
      context.push_back(i->cond);
      collect(i->then_case, context);
      collect(i->else_case, context);
    } else if (auto *p = s.as<ParallelFor>()) {
      // The block's iterations share the outer indices; the innermost is the thread's.
      for (const Var &v : p->vars)
        defs_[v.get()].push_back({IntConst::make(ScalarType::I64, 0), context});
      collect(p->body, context);
    }
  }

  std::set<int> written_;
  std::map<const Variable *, std::vector<Def>> defs_;
  std::set<const Variable *> uniform_;
};

// The loads in the statements at the top level of a loop's body that the pass may stage, each
// once: outside the arms of selects, and not inside another such load's indices.
class StagedLoads : public Visitor {
public:
  StagedLoads(const Uniformity &u, const Variable *j, std::set<const Variable *> assigned)
      : u_(u), j_(j), assigned_(std::move(assigned)) {}
  std::vector<Expr> found;

  void statement(const Stmt &s) {
    if (auto *d = s.as<Declare>()) {
      visit(d->init);
    } else if (auto *a = s.as<Assign>()) {
      visit(a->value);
    } else if (auto *st = s.as<Store>()) {
      for (const Expr &i : st->indices)
        visit(i);
      visit(st->value);
    }
  }

protected:
  void visit_node(const Select *n) override { visit(n->cond); }
  void visit_node(const Load *n) override {
    const ScalarType t = n->type;
    const bool kind = t == ScalarType::Bool || t == ScalarType::I32 || t == ScalarType::I64 ||
                      t == ScalarType::F32 || t == ScalarType::F64;
    bool names_j = false, ok = kind && !u_.written(n->array);
    for (const Expr &i : n->indices) {
      names_j = names_j || mentions(i, j_) > 0;
      ok = ok && u_.uniform(i, assigned_);
    }
    if (!ok || !names_j) {
      Visitor::visit_node(n);
      return;
    }
    Expr load = Load::make(n->type, n->array, n->indices);
    for (const Expr &f : found)
      if (equal(f, load))
        return;
    found.push_back(load);
  }

private:
  const Uniformity &u_;
  const Variable *j_;
  std::set<const Variable *> assigned_;
};

// One loop whose reads are staged: its count and the loads with their shared copies.
struct Staging {
  int64_t count = 0;
  std::vector<Expr> loads;
  std::vector<Shared> copies;
};

// The loops of a body that every thread of a block reaches together and whose reads the pass
// stages (not those inside such a loop).
class FindLoops {
public:
  FindLoops(const Uniformity &u, const std::vector<Param> &params, int64_t budget)
      : u_(u), params_(params), budget_(budget) {}
  std::vector<std::pair<const For *, Staging>> loops; // in the order of the body

  void walk(const Stmt &s) {
    if (!s.defined())
      return;
    if (auto *b = s.as<Block>()) {
      for (const Stmt &x : b->stmts)
        walk(x);
    } else if (auto *i = s.as<IfThenElse>()) {
      if (u_.uniform(i->cond)) {
        walk(i->then_case);
        walk(i->else_case);
      }
    } else if (auto *w = s.as<While>()) {
      if (u_.uniform(w->cond))
        walk(w->body);
    } else if (auto *f = s.as<For>()) {
      if (u_.uniform(f->begin) && u_.uniform(f->end) && u_.uniform(f->step) && !stage(f))
        walk(f->body);
    } else if (auto *p = s.as<ParallelFor>()) {
      walk(p->body);
    }
  }

private:
  bool stage(const For *f) {
    if (!is_int_const(f->step, 1))
      return false;
    const Linear d = linear(sub(f->end, f->begin));
    if (!d.exact || !d.constant_only() || d.constant < fewest_steps || d.constant > most_steps)
      return false;
    StagedLoads staged(u_, f->var.get(), changed_vars(f->body));
    for (const Stmt &s : statements_of(f->body))
      staged.statement(s);
    if (staged.found.empty())
      return false;
    Staging st;
    st.count = d.constant;
    int64_t more = 0;
    for (const Expr &l : staged.found) {
      const Param &p = params_.at(static_cast<size_t>(l.as<Load>()->array));
      st.copies.push_back(make_shared_array(p.name + "_block", l.type(), {d.constant}));
      more += d.constant * byte_size(l.type());
    }
    if (more > budget_)
      return false;
    budget_ -= more;
    st.loads = std::move(staged.found);
    loops.emplace_back(f, std::move(st));
    return true;
  }

  const Uniformity &u_;
  const std::vector<Param> &params_;
  int64_t budget_; // the bytes of shared memory left to the copies
};

// The staged loops rewritten: each copy filled by the block's threads before the loop, read in it.
class Rewrite : public Mutator {
public:
  Rewrite(const std::vector<std::pair<const For *, Staging>> &loops, Expr thread, int64_t threads)
      : loops_(loops), thread_(std::move(thread)), threads_(threads) {}

protected:
  Stmt mutate_node(const For *n, const Stmt &self) override {
    const Staging *found = nullptr;
    for (const auto &[f, st] : loops_)
      found = f == n ? &st : found;
    if (!found)
      return Mutator::mutate_node(n, self);
    const Staging &st = *found;
    Var base = make_var(n->var->name + "_first", ScalarType::I64);
    Var t = make_var(n->var->name + "_copied", ScalarType::I64);
    std::vector<Stmt> fill;
    SubstituteVars at({{n->var.get(), add(var_ref(base), var_ref(t))}});
    for (size_t k = 0; k < st.loads.size(); ++k)
      fill.push_back(SharedStore::make(st.copies[k], {var_ref(t)}, at.mutate(st.loads[k])));
    FromCopies from(st, sub(var_ref(n->var), var_ref(base)));
    Stmt body = from.mutate(n->body);
    return Block::make({
        Declare::make(base, n->begin),
        For::make(t, thread_, i64(st.count), i64(threads_), Block::make(std::move(fill))),
        Barrier::make(),
        For::make(n->var, var_ref(base), add(var_ref(base), i64(st.count)), n->step, body),
        Barrier::make(),
    });
  }

private:
  class FromCopies : public Mutator {
  public:
    FromCopies(const Staging &st, Expr offset) : st_(st), offset_(std::move(offset)) {}

  protected:
    Expr mutate_node(const Load *n, const Expr &self) override {
      for (size_t k = 0; k < st_.loads.size(); ++k)
        if (equal(st_.loads[k], self))
          return SharedLoad::make(st_.copies[k], {offset_});
      return Mutator::mutate_node(n, self);
    }

  private:
    const Staging &st_;
    Expr offset_;
  };

  const std::vector<std::pair<const For *, Staging>> &loops_;
  Expr thread_;
  int64_t threads_;
};

std::string loads_text(const Staging &st, const std::vector<Param> &params) {
  std::string out;
  for (size_t k = 0; k < st.loads.size(); ++k)
    out += (k ? ", " : "") + to_string(st.loads[k], params);
  return out;
}

} // namespace

Task stage_block_reads(const Task &task, const std::vector<Param> &params,
                       std::vector<Shared> &shared) {
  if (task.kind != TaskKind::Parallel || task.threads != 0 || !task.reductions.empty())
    return task;
  std::vector<Stmt> top = statements_of(task.body);
  const ParallelFor *loop = nullptr;
  for (const Stmt &s : top)
    if (auto *p = s.as<ParallelFor>())
      loop = loop ? nullptr : p; // one parallel loop
  if (!loop || loop->vars.size() < 2)
    return task;
  auto *inner = loop->extents.back().as<IntConst>();
  if (!inner || inner->value < fewest_threads || inner->value > most_threads)
    return task;
  Refuses refuses;
  refuses.visit(task.body);
  if (refuses.found)
    return task;
  int64_t bytes = 0; // the kernel's shared arrays so far
  shared_offsets(shared, &bytes);
  const Uniformity u(task.body, *loop, stored_arrays(task.body));
  FindLoops find(u, params, std::min(most_bytes, max_shared_bytes - bytes));
  find.walk(loop->body);
  if (find.loops.empty())
    return task;

  // Block b of `threads`: the outer indices of iteration b (row-major), the thread's inner one.
  const int64_t threads = inner->value;
  const Var &thread = loop->vars.back();
  const size_t outer = loop->vars.size() - 1;
  Expr blocks = loop->extents[0];
  for (size_t k = 1; k < outer; ++k)
    blocks = mul(blocks, loop->extents[k]);
  Var b = make_var("block", ScalarType::I64);
  std::vector<Stmt> iteration;
  Expr below = i64(1); // the product of the extents inside dimension k
  for (size_t k = outer; k-- > 0;) {
    Expr index = k + 1 == outer ? var_ref(b) : div(var_ref(b), below);
    iteration.insert(iteration.begin(),
                     Declare::make(loop->vars[k], k == 0 ? index : mod(index, loop->extents[k])));
    below = mul(below, loop->extents[k]);
  }
  iteration.push_back(Declare::make(thread, reg_i64(Reg::ThreadIdx, 0)));
  Rewrite rewrite(find.loops, var_ref(thread), threads);
  iteration.push_back(rewrite.mutate(loop->body));

  Task out = task;
  std::vector<Stmt> body;
  for (const Stmt &s : top)
    body.push_back(s.as<ParallelFor>() ? For::make(b, reg_i64(Reg::BlockIdx, 0), blocks,
                                                   reg_i64(Reg::GridDim, 0), Block::make(iteration))
                                       : s);
  out.body = body.size() == 1 ? body[0] : Block::make(std::move(body));
  out.domain = {blocks};
  out.threads = static_cast<int>(threads);
  std::string outer_names;
  for (size_t k = 0; k < outer; ++k)
    outer_names += (k ? ", " : "") + loop->vars[k]->name;
  for (const auto &[f, st] : find.loops) {
    for (const Shared &c : st.copies)
      shared.push_back(c);
    out.block_reads.push_back(
        "a block of " + std::to_string(threads) + " threads for each (" + outer_names +
        "), one for each '" + thread->name + "'; before each run of the loop over '" +
        f->var->name + "' its threads copy " + std::to_string(st.count) + " elements of each of " +
        loads_text(st, params) + " to shared memory, which all of them read there");
  }
  return out;
}

} // namespace loom::ir
