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
// The box is found from the indices, affine in the loops' variables (ir/LinearForm.h): taking one
// store's indices as the base (their terms in variables the loop does not change), every access
// of the array in the loop is either the base plus terms in the loop's own variables, bounded by
// their ranges (in the box), or provably outside the box in some dimension over the ranges of
// every loop around it, the parallel loop's included (`o + k < col + j` above, as k < 15 and
// col >= o + 16). Locals declared once from such variables (`col`) read as their definitions.
// Every store must be in the box, which holds at most 32 elements; updates in place (`+=` that
// lower_reductions left a Reduce or made atomic) rule the array out. The copy-in reads every
// element of the box whose indices are within the array's extents, so it reads no element out of
// range; elements the loop never reads are read and not used. Results are unchanged, bit for bit:
// each read gets the value the array holds (the iteration alone writes the box's elements it
// stores; another iteration writing them would be a race in the program itself). Not on the CPU
// (its L1 cache forwards a store to the next load), not under bounds checks (which report the
// first bad index where the program makes it), and only under the default mapping (the tile
// schedule and block_per_iteration do not keep an iteration on one thread).
#include "ir/Build.h"
#include "ir/LinearForm.h"
#include "ir/Mutator.h"
#include "ir/Passes.h"
#include "ir/Printer.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace loom::ir {

namespace {

// The most elements a box may hold: lud's 16 with room for a row of 32 (registers when the
// loop's indices become constants, else the thread's local memory).
constexpr int64_t most_elements = 32;

// Locals declared once from loop variables, parameters and other such locals, never assigned:
// their definitions (SubstituteVars::to) stand in for them in the indices the pass compares.
using Expand = SubstituteVars;

// Whether an expression reads memory or anything else that a loop may change under it.
struct ReadsState : Visitor {
  bool found = false;
  void visit_node(const Load *) override { found = true; }
  void visit_node(const SharedLoad *) override { found = true; }
  void visit_node(const Call *) override { found = true; }
  void visit_node(const WarpOp *) override { found = true; }
  void visit_node(const SpecialReg *) override { found = true; }
};

// The variables an expression names.
struct Names : Visitor {
  std::set<const Variable *> vars;
  void visit_node(const VarRef *n) override { vars.insert(n->var.get()); }
};

// A Linear back as an i64 expression.
Expr expr_of(const Linear &l) {
  Expr e;
  for (const auto &[atom, k] : l.terms) {
    if (k == 0)
      continue;
    Expr a = atom.type() == ScalarType::I64 ? atom : to_i64(atom);
    if (e.defined() && k < 0) // e - 16 * x, not e + -16 * x
      e = sub(e, k == -1 ? a : mul(i64(-k), a));
    else
      e = e.defined() ? add(e, k == 1 ? a : mul(i64(k), a)) : (k == 1 ? a : mul(i64(k), a));
  }
  if (!e.defined())
    return i64(l.constant);
  if (l.constant == 0)
    return e;
  return l.constant > 0 ? add(e, i64(l.constant)) : sub(e, i64(-l.constant));
}

// One access of the array in the loop: its indices, expanded, and the ranges around it.
struct Access {
  const void *node;
  bool store;
  std::vector<Linear> index;
  std::vector<Range> ranges;
};

// The loop's accesses of one array, and what rules the array out.
struct Accesses : Visitor {
  int array;
  const Expand *expand;
  std::vector<Range> ranges;          // around the node being visited
  std::set<const Variable *> fixed;   // variables loop bounds may name
  std::set<const Variable *> inner;   // the loops' variables, this loop's and those inside
  std::set<const Variable *> changed; // variables the loop declares or assigns
  std::vector<Access> found;
  bool ok = true;

  Linear index_form(const Expr &e) const { return linear(const_cast<Expand *>(expand)->mutate(e)); }
  void add(const void *node, bool store, const std::vector<Expr> &indices) {
    Access a{node, store, {}, ranges};
    for (const Expr &i : indices)
      a.index.push_back(index_form(i));
    found.push_back(std::move(a));
  }
  void visit_node(const Load *n) override {
    if (n->array == array)
      add(n, false, n->indices);
    Visitor::visit_node(n);
  }
  void visit_node(const Store *n) override {
    if (n->array == array)
      add(n, true, n->indices);
    Visitor::visit_node(n);
  }
  void visit_node(const Reduce *n) override {
    ok = ok && n->array != array;
    Visitor::visit_node(n);
  }
  void visit_node(const Atomic *n) override {
    ok = ok && n->array != array;
    Visitor::visit_node(n);
  }
  void visit_node(const Declare *n) override {
    changed.insert(n->var.get());
    Visitor::visit_node(n);
  }
  void visit_node(const Assign *n) override {
    changed.insert(n->var.get());
    Visitor::visit_node(n);
  }
  void visit_node(const For *n) override {
    changed.insert(n->var.get());
    inner.insert(n->var.get());
    visit(n->begin);
    visit(n->end);
    visit(n->step);
    auto *ex = const_cast<Expand *>(expand);
    fixed.insert(n->var.get());
    ranges.push_back(range_of(n->var.get(), ex->mutate(n->begin), ex->mutate(n->end), fixed));
    if (!is_int_const(n->step, 1))
      ranges.back() = Range{nullptr, {}, {}};
    visit(n->body);
    ranges.pop_back();
  }
};

// The box: per dimension, the base (terms the loop does not change) and the offsets from it
// that the loop's accesses in the box take, [lo, hi].
struct Box {
  std::vector<Linear> base;
  std::vector<int64_t> lo, hi;
  size_t rank() const { return base.size(); }
  int64_t extent(size_t d) const { return hi[d] - lo[d] + 1; }
  int64_t size() const {
    int64_t n = 1;
    for (size_t d = 0; d < lo.size(); ++d)
      n *= extent(d);
    return n;
  }
  // The box's elements in a row-major order: slot r's offset in dimension d is r / stride(d) %
  // extent(d).
  int64_t stride(size_t d) const {
    int64_t s = 1;
    for (size_t e = d + 1; e < rank(); ++e)
      s *= extent(e);
    return s;
  }
  // The offset of an index from the base, in dimension d.
  Linear offset(const Linear &index, size_t d) const {
    Linear off = index;
    off.add(base[d], -1);
    return off;
  }
  // An access's slot, from its indices' offsets (whose terms remain as they are).
  Expr slot(const std::vector<Linear> &index) const {
    Expr flat;
    for (size_t d = 0; d < rank(); ++d) {
      Linear off = offset(index[d], d);
      off.plus(off.constant, -lo[d]);
      Expr e = stride(d) == 1 ? expr_of(off) : mul(i64(stride(d)), expr_of(off));
      flat = flat.defined() ? add(flat, e) : e;
    }
    return flat;
  }
  // The indices of slot `r` (an i64 expression) in `array`, each clamped to the array's extent
  // (a slot out of range is one no access reads), and whether the array has elements at all.
  std::vector<Expr> indices_of(const Expr &r, int array, Expr &nonempty) const {
    std::vector<Expr> at;
    for (size_t d = 0; d < rank(); ++d) {
      Linear i = base[d];
      i.plus(i.constant, lo[d]);
      Expr step = r;
      if (stride(d) > 1)
        step = div(step, i64(stride(d)));
      if (extent(d) < size() / stride(d))
        step = mod(step, i64(extent(d)));
      Expr index = extent(d) == 1 ? expr_of(i) : add(expr_of(i), step);
      at.push_back(min(max(index, i64(0)), sub(ArrayExtent::make(array, int(d)), i64(1))));
      Expr ok = lt(i64(0), ArrayExtent::make(array, int(d)));
      nonempty = nonempty.defined() ? logical_and(nonempty, ok) : ok;
    }
    return at;
  }
  // [r, 0..23], [o + 0..15, col + j]: each dimension's base and the offsets the accesses take.
  std::string to_text(const std::vector<Param> &params) const {
    std::string text;
    for (size_t d = 0; d < rank(); ++d) {
      const std::string offsets = std::to_string(lo[d]) + ".." + std::to_string(hi[d]);
      Linear b = base[d];
      text += d ? ", " : "";
      if (hi[d] == lo[d]) {
        b.plus(b.constant, lo[d]);
        text += to_string(expr_of(b), params);
      } else if (b.constant_only() && b.constant == 0) {
        text += offsets;
      } else {
        text += to_string(expr_of(b), params) + " + " + offsets;
      }
    }
    return "[" + text + "]";
  }
};

bool is_inner(const Expr &atom, const Accesses &acc) {
  auto *v = atom.as<VarRef>();
  return v && acc.inner.count(v->var.get());
}

// The base from an access's indices: their terms in variables the region does not change,
// which must read no memory. False when there is none.
bool make_base(const Accesses &acc, const Access &first, Box &box) {
  for (const Linear &index : first.index) {
    Linear base;
    base.constant = index.constant;
    if (!index.exact)
      return false;
    for (const auto &[atom, k] : index.terms) {
      if (k == 0 || is_inner(atom, acc))
        continue;
      ReadsState reads;
      reads.visit(atom);
      Names names;
      names.visit(atom);
      for (const Variable *v : names.vars)
        if (acc.changed.count(v))
          return false;
      if (reads.found)
        return false;
      base.terms.emplace_back(atom, k);
    }
    box.base.push_back(base);
  }
  return true;
}

// Whether an access is the base plus terms in the region's own variables, and its offsets' range.
bool in_box(const Accesses &acc, const Box &box, const Access &a, std::vector<int64_t> &lo,
            std::vector<int64_t> &hi) {
  for (size_t d = 0; d < box.rank(); ++d) {
    Linear off = box.offset(a.index[d], d);
    for (const auto &[atom, k] : off.terms)
      if (k != 0 && !is_inner(atom, acc))
        return false;
    Linear minus;
    minus.add(off, -1);
    std::optional<int64_t> most = max_of(off, a.ranges), least = max_of(minus, a.ranges);
    if (!most || !least)
      return false;
    lo.push_back(-*least);
    hi.push_back(*most);
  }
  return true;
}

// Widens the box to take an access's offsets.
void widen(Box &box, const std::vector<int64_t> &lo, const std::vector<int64_t> &hi) {
  if (box.lo.empty()) {
    box.lo = lo;
    box.hi = hi;
  }
  for (size_t d = 0; d < box.rank(); ++d) {
    box.lo[d] = std::min(box.lo[d], lo[d]);
    box.hi[d] = std::max(box.hi[d], hi[d]);
  }
}

// Whether some read in the box is of other indices than every store's: the region reads back
// what it stored (an element read and then updated at the same indices, as `y[r, i] += x[r]`,
// takes no round trip).
bool reads_back(const Accesses &acc, const std::vector<bool> &in) {
  auto same = [&](const Access &a, const Access &b) {
    for (size_t d = 0; d < a.index.size(); ++d) {
      Linear diff = a.index[d];
      diff.add(b.index[d], -1);
      if (!diff.exact || !diff.constant_only() || diff.constant != 0)
        return false;
    }
    return true;
  };
  for (size_t k = 0; k < acc.found.size(); ++k) {
    if (!in[k] || acc.found[k].store)
      continue;
    bool at_a_store = false;
    for (size_t s = 0; s < acc.found.size(); ++s)
      at_a_store = at_a_store || (acc.found[s].store && same(acc.found[k], acc.found[s]));
    if (!at_a_store)
      return true;
  }
  return false;
}

bool stageable(ScalarType t) {
  return t == ScalarType::F32 || t == ScalarType::F64 || t == ScalarType::I32 ||
         t == ScalarType::I64;
}

// The region's reads and writes of `array` rewritten to `staged`: a read in the box reads its
// slot, a store writes its slot and the array. `slot` gives an access's slot, or none for an
// access left as it is.
class UseStaged : public Mutator {
public:
  int array;
  Shared staged;
  std::function<std::optional<Expr>(const void *, const std::vector<Expr> &)> slot;

protected:
  Expr mutate_node(const Load *n, const Expr &self) override {
    if (n->array == array)
      if (std::optional<Expr> s = slot(n, n->indices))
        return SharedLoad::make(staged, {*s});
    return Mutator::mutate_node(n, self);
  }
  Stmt mutate_node(const Store *n, const Stmt &self) override {
    if (n->array != array)
      return Mutator::mutate_node(n, self);
    std::optional<Expr> s = slot(n, n->indices);
    if (!s)
      return Mutator::mutate_node(n, self);
    Expr value = mutate(n->value);
    Var v = make_var(staged->name + "_value", value.type());
    return Block::make({Declare::make(v, value), SharedStore::make(staged, {*s}, var_ref(v)),
                        Store::make(n->array, n->indices, var_ref(v))});
  }
};

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

// The most elements a serial block's box may hold in shared memory: lud's 16 x 16 block, and
// more (4 KiB of f32).
constexpr int64_t most_block_elements = 1024;

} // namespace

Task stage_serial_block(const Task &serial, const Task &block, const std::vector<Param> &params,
                        std::vector<Shared> &shared) {
  if (serial.kind != TaskKind::Serial || block.threads == 0)
    return block;
  std::vector<int> arrays;
  struct Stores : Visitor {
    std::vector<int> arrays;
    void visit_node(const Store *s) override {
      if (std::find(arrays.begin(), arrays.end(), s->array) == arrays.end())
        arrays.push_back(s->array);
      Visitor::visit_node(s);
    }
  } stores;
  stores.visit(serial.body);
  Task out = block;
  std::vector<Stmt> copy_in;
  int64_t shared_bytes = 0;
  shared_offsets(shared, &shared_bytes);
  Expand none;
  for (int array : stores.arrays) {
    const Param &p = params[static_cast<size_t>(array)];
    if (!stageable(p.type))
      continue;
    // Every access of the array in the task, in one box over the task's loops.
    Accesses acc;
    acc.array = array;
    acc.expand = &none;
    for (const Param &q : params)
      if (q.var)
        acc.fixed.insert(q.var.get());
    acc.visit(serial.body);
    if (!acc.ok)
      continue;
    const Access *first = nullptr;
    for (const Access &a : acc.found)
      if (a.store && !first)
        first = &a;
    Box box;
    if (!first || !make_base(acc, *first, box))
      continue;
    bool all = true;
    for (const Access &a : acc.found) {
      std::vector<int64_t> lo, hi;
      all = all && in_box(acc, box, a, lo, hi);
      if (all)
        widen(box, lo, hi);
    }
    const int64_t bytes = box.size() * int64_t(byte_size(p.type));
    if (!all || !reads_back(acc, std::vector<bool>(acc.found.size(), true)) ||
        box.size() > most_block_elements || shared_bytes + bytes + 16 > max_shared_bytes)
      continue;
    // The block's code: its accesses of the array read and write the shared array, each slot
    // from its indices' offsets, which the lowering left in the loops' variables.
    Shared staged =
        make_shared_array(p.name + "_block" + std::to_string(shared.size()), p.type, {box.size()});
    bool ok = true;
    UseStaged rewrite;
    rewrite.array = array;
    rewrite.staged = staged;
    rewrite.slot = [&](const void *, const std::vector<Expr> &indices) -> std::optional<Expr> {
      std::vector<Linear> index;
      for (size_t d = 0; d < indices.size(); ++d) {
        index.push_back(linear(indices[d]));
        for (const auto &[atom, k] : box.offset(index.back(), d).terms)
          ok = ok && (k == 0 || atom.as<VarRef>());
      }
      return box.slot(index);
    };
    Stmt body = rewrite.mutate(out.body);
    if (!ok)
      continue;
    shared.push_back(staged);
    shared_bytes += bytes + 16;
    out.body = body;
    // The copy-in, split among the block's threads.
    Var r = make_var(staged->name + "_slot", ScalarType::I64);
    Expr nonempty;
    std::vector<Expr> at = box.indices_of(var_ref(r), array, nonempty);
    copy_in.push_back(IfThenElse::make(
        nonempty,
        For::make(r, reg_i64(Reg::ThreadIdx, 0), i64(box.size()), reg_i64(Reg::BlockDim, 0),
                  SharedStore::make(staged, {var_ref(r)}, Load::make(p.type, array, at)))));
    out.staged.push_back("array " + p.name + ": the " + std::to_string(box.size()) + " elements " +
                         box.to_text(params) +
                         " that the block reads and writes are kept in shared memory (" +
                         staged->name +
                         "), copied in by its threads, the stores still written "
                         "through");
  }
  if (copy_in.empty())
    return block;
  // At the top of the loop over blocks: the launch's other blocks, if any, run nothing.
  copy_in.push_back(Barrier::make());
  std::vector<Stmt> top = statements_of(out.body);
  for (Stmt &s : top)
    if (auto *loop = s.as<For>();
        loop && loop->begin.as<Cast>() && loop->begin.as<Cast>()->a.as<SpecialReg>() &&
        loop->begin.as<Cast>()->a.as<SpecialReg>()->reg == Reg::BlockIdx) {
      copy_in.push_back(loop->body);
      s = For::make(loop->var, loop->begin, loop->end, loop->step, Block::make(std::move(copy_in)));
      out.body = Block::make(std::move(top));
      return out;
    }
  return block;
}

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
