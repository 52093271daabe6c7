// GPU: the elements that one iteration of a parallel loop writes and reads back in a sequential
// loop, when they lie in a small box the loop's variables walk, live in a local array for the
// loop: copied in before it, read from it, and written to it and to the array at each store.
//
//   for chunk, j in parallel(...):                    for chunk, j in parallel(...):
//     col = o + 16 * (chunk + 1)                        col = o + 16 * (chunk + 1)
//     for i in range(16):                       =>      stage[r] = a[o + r, col + j]   (r < 16)
//       s = 0                                           for i in range(16):
//       for k in range(i):                                s = 0
//         s += a[o + i, o + k] * a[o + k, col + j]         for k in range(i):
//       a[o + i, col + j] -= s                               s += a[o + i, o + k] * stage[k]
//                                                          t = stage[i] - s
//                                                          stage[i] = t; a[o + i, col + j] = t
//
// Rodinia's lud solves its perimeter blocks so, a thread per column or row: each of its 16 rows
// reads the elements the rows before it stored, and on the GPU each such read went back to the
// L2 cache (a store does not keep the line in L1), about a microsecond a row. From the local
// array (registers, or local memory in L1) the reads take a few cycles; the stores still go out,
// and no other read waits for them.
//
// The box is found from the indices, affine in the loops' variables (ir/StagedBox.h, over
// ir/LinearForm.h): taking one store's indices as the base (their terms in variables the loop does
// not change), every access of the array in the loop is either the base plus terms in the loop's
// own variables, bounded by their ranges (in the box), or provably outside the box in some
// dimension over the ranges of every loop around it, the parallel loop's included (`o + k < col +
// j` above, as k < 15 and col >= o + 16). Locals declared once from such variables (`col`) read as
// their definitions. Every store must be in the box, which holds at most 32 elements; updates in
// place (`+=` that lower_reductions left a Reduce or made atomic) rule the array out. The copy-in
// reads every element of the box whose indices are within the array's extents, so it reads no
// element out of range; elements the loop never reads are read and not used. Results are unchanged,
// bit for bit: each read gets the value the array holds (the iteration alone writes the box's
// elements it stores; another iteration writing them would be a race in the program itself). Not on
// the CPU (its L1 cache forwards a store to the next load), not under bounds checks (which report
// the first bad index where the program makes it), and only under the default mapping (the tile
// schedule and block_per_iteration do not keep an iteration on one thread).
#include "ir/Passes.h"
#include "ir/StagedBox.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace loom::ir {

namespace {

using namespace staging;

// The most elements a box may hold: lud's 16 with room for a row of 32 (registers when the
// loop's indices become constants, else the thread's local memory).
constexpr int64_t most_elements = 32;

class StagePrivate : public Mutator {
public:
  StagePrivate(const std::vector<Param> &params, std::vector<Shared> &locals,
               std::vector<std::string> &staged)
      : params_(params), locals_(locals), staged_(staged) {
    for (const Param &p : params)
      if (p.var)
        fixed_.insert(p.var.get());
  }
  std::set<const Variable *> assigned; // anywhere in the task

protected:
  Stmt mutate_node(const ParallelFor *n, const Stmt &self) override {
    for (size_t d = 0; d < n->vars.size(); ++d) {
      fixed_.insert(n->vars[d].get());
      ranges_.push_back(range_of(n->vars[d].get(), i64(0), expand_.mutate(n->extents[d]), fixed_));
    }
    ++parallel_;
    Stmt out = Mutator::mutate_node(n, self);
    --parallel_;
    ranges_.resize(ranges_.size() - n->vars.size());
    return out;
  }
  // `if v < e` over a loop variable v: v < e in the branch taken, v >= e in the other (a fused
  // task's halves, ir/FuseTasks.cpp).
  Stmt mutate_node(const IfThenElse *n, const Stmt &self) override {
    auto *cond = n->cond.as<Binary>();
    auto *v = cond && cond->op == BinaryOp::Lt ? cond->a.as<VarRef>() : nullptr;
    const Range *around = nullptr;
    for (const Range &r : ranges_)
      if (v && r.var == v->var.get())
        around = &r;
    Names names;
    if (around)
      names.visit(cond->b);
    bool fixed = around != nullptr;
    for (const Variable *u : names.vars)
      fixed = fixed && fixed_.count(u);
    if (!fixed || parallel_ == 0)
      return Mutator::mutate_node(n, self);
    Linear bound = linear(expand_.mutate(cond->b)), last = bound;
    last.plus(last.constant, -1);
    const Range taken{around->var, around->begin, last}, other{around->var, bound, around->last};
    around = nullptr; // ranges_ grows below
    ranges_.push_back(taken);
    Stmt then_case = mutate(n->then_case);
    ranges_.back() = other;
    Stmt else_case = n->else_case.defined() ? mutate(n->else_case) : Stmt();
    ranges_.pop_back();
    if (then_case.same_as(n->then_case) &&
        (!else_case.defined() || else_case.same_as(n->else_case)))
      return self;
    return IfThenElse::make(n->cond, then_case, else_case);
  }
  Stmt mutate_node(const Declare *n, const Stmt &self) override {
    ReadsState reads;
    reads.visit(n->init);
    Names names;
    names.visit(n->init);
    bool fixed = true;
    for (const Variable *v : names.vars)
      fixed = fixed && (fixed_.count(v) || expand_.to.count(v));
    if (parallel_ > 0 && fixed && !reads.found && !assigned.count(n->var.get()) &&
        is_int(n->var->type))
      expand_.to[n->var.get()] = expand_.mutate(n->init);
    return Mutator::mutate_node(n, self);
  }
  Stmt mutate_node(const For *n, const Stmt &self) override {
    if (parallel_ == 0)
      return Mutator::mutate_node(n, self);
    Stmt loop = self;
    std::vector<Stmt> before;
    std::set<int> tried;
    struct Stores : Visitor {
      std::vector<int> arrays;
      void visit_node(const Store *s) override {
        arrays.push_back(s->array);
        Visitor::visit_node(s);
      }
    } stores;
    stores.visit(n->body);
    for (int array : stores.arrays)
      if (tried.insert(array).second)
        stage(array, loop, before);
    // The loops inside, for the arrays not staged here.
    auto *l = loop.as<For>();
    fixed_.insert(l->var.get());
    ranges_.push_back(
        range_of(l->var.get(), expand_.mutate(l->begin), expand_.mutate(l->end), fixed_));
    if (!is_int_const(l->step, 1))
      ranges_.back() = Range{nullptr, {}, {}};
    Stmt body = mutate(l->body);
    ranges_.pop_back();
    if (!body.same_as(l->body))
      loop = For::make(l->var, l->begin, l->end, l->step, body);
    if (before.empty())
      return loop;
    before.push_back(loop);
    return Block::make(std::move(before));
  }

private:
  // Stages `array`'s box in `loop` when it has one: the copy-in goes to `before`.
  void stage(int array, Stmt &loop, std::vector<Stmt> &before) {
    const Param &p = params_[static_cast<size_t>(array)];
    if (!stageable(p.type))
      return;
    const std::string loop_var = loop.as<For>()->var->name;
    Accesses acc;
    acc.array = array;
    acc.expand = &expand_;
    acc.ranges = ranges_;
    acc.fixed = fixed_;
    acc.visit(loop);
    if (!acc.ok || acc.found.empty())
      return;

    // The base: the first store's.
    const Access *first = nullptr;
    for (const Access &a : acc.found)
      if (a.store && !first)
        first = &a;
    Box box;
    if (!make_base(acc, *first, box))
      return;
    std::vector<bool> in(acc.found.size(), false);
    std::set<const void *> in_nodes;
    bool reads = false, writes = false;
    for (size_t k = 0; k < acc.found.size(); ++k) {
      std::vector<int64_t> lo, hi;
      if (!in_box(acc, box, acc.found[k], lo, hi)) {
        if (acc.found[k].store)
          return;
        continue;
      }
      in[k] = true;
      in_nodes.insert(acc.found[k].node);
      (acc.found[k].store ? writes : reads) = true;
      widen(box, lo, hi);
    }
    if (!reads || !writes || !reads_back(acc, in) || box.size() > most_elements)
      return;
    // Every other access is outside the box in some dimension.
    for (size_t k = 0; k < acc.found.size(); ++k) {
      if (in[k])
        continue;
      bool outside = false;
      for (size_t d = 0; d < box.rank() && !outside; ++d) {
        Linear off = box.offset(acc.found[k].index[d], d), minus;
        minus.add(off, -1);
        std::optional<int64_t> most = max_of(off, acc.found[k].ranges),
                               least = max_of(minus, acc.found[k].ranges);
        outside = (most && *most < box.lo[d]) || (least && -*least > box.hi[d]);
      }
      if (!outside)
        return;
    }

    // The local array, its copy-in and the loop's accesses rewritten. The copy-in: for r in
    // 0 .. size, local[r] = array[base + lo + the offsets of slot r], under `if` the array has
    // elements; a loop of constant count with no branch in it, which LLVM unrolls whole: the
    // loads issue together.
    Shared local =
        make_local_array(p.name + "_staged" + std::to_string(locals_.size()), p.type, {box.size()});
    locals_.push_back(local);
    Var r = make_var(local->name + "_slot", ScalarType::I64);
    Expr nonempty;
    std::vector<Expr> at = box.indices_of(var_ref(r), array, nonempty);
    before.push_back(IfThenElse::make(
        nonempty,
        For::make(r, i64(0), i64(box.size()), i64(1),
                  SharedStore::make(local, {var_ref(r)}, Load::make(p.type, array, at)))));
    UseStaged rewrite;
    rewrite.array = array;
    rewrite.staged = local;
    rewrite.slot = [&](const void *node, const std::vector<Expr> &indices) -> std::optional<Expr> {
      if (!in_nodes.count(node))
        return std::nullopt;
      std::vector<Linear> index;
      for (const Expr &i : indices)
        index.push_back(linear(expand_.mutate(i)));
      return box.slot(index);
    };
    loop = rewrite.mutate(loop);
    staged_.push_back("array " + p.name + ": the " + std::to_string(box.size()) + " elements " +
                      box.to_text(params_) +
                      " that each iteration writes and reads back in its loop over " + loop_var +
                      " are kept in a local array (" + local->name +
                      "), the stores still written through");
  }

  const std::vector<Param> &params_;
  std::vector<Shared> &locals_;
  std::vector<std::string> &staged_;
  Expand expand_;
  std::set<const Variable *> fixed_;
  std::vector<Range> ranges_;
  int parallel_ = 0;
};

} // namespace

Task stage_private_elements(const Task &task, const std::vector<Param> &params,
                            std::vector<Shared> &locals) {
  if (task.kind != TaskKind::Parallel)
    return task;
  struct Assigned : Visitor {
    std::set<const Variable *> vars;
    void visit_node(const Assign *n) override {
      vars.insert(n->var.get());
      Visitor::visit_node(n);
    }
    void visit_node(const Atomic *n) override {
      if (n->result)
        vars.insert(n->result.get());
      Visitor::visit_node(n);
    }
  } assigned;
  assigned.visit(task.body);
  Task out = task;
  StagePrivate stage(params, locals, out.staged);
  stage.assigned = std::move(assigned.vars);
  out.body = stage.mutate(task.body);
  return out;
}

} // namespace loom::ir
