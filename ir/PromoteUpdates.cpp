// An array element that a sequential loop updates at the same indices in every step lives in a
// local for the loop's duration: loaded before the first step, stored after the last. The loop's
// other reads of the array must provably be of other elements, which the pass shows from the
// ranges of the loops around them (lud's diagonal block: `a[i, j] -= a[i, k] * a[k, j]` with
// k < i <= j). LLVM cannot: the reads are of the same array, so it keeps a store and a load of
// the element in every step, a round trip through memory that on the GPU costs a cache's latency
// per step (docs/semantics.md, "Updates in sequential loops").
#include "ir/Build.h"
#include "ir/Mutator.h"
#include "ir/Passes.h"

#include <optional>
#include <set>
#include <vector>

namespace loom::ir {

namespace {

// An integer expression as a sum of terms (atoms times constants) plus a constant. Atoms are
// the subexpressions the form does not look into: variables, shapes, loads, products of two
// non-constants. A form whose arithmetic overflowed proves nothing (`exact` false).
struct Linear {
  std::vector<std::pair<Expr, int64_t>> terms;
  int64_t constant = 0;
  bool exact = true;

  int64_t times(int64_t a, int64_t b) {
    int64_t r = 0;
    exact = exact && !__builtin_mul_overflow(a, b, &r);
    return r;
  }
  void plus(int64_t &to, int64_t c) { exact = exact && !__builtin_add_overflow(to, c, &to); }
  void add(const Expr &atom, int64_t c) {
    for (auto &[a, k] : terms)
      if (equal(a, atom)) {
        plus(k, c);
        return;
      }
    terms.emplace_back(atom, c);
  }
  void add(const Linear &o, int64_t scale) {
    exact = exact && o.exact;
    for (const auto &[a, k] : o.terms)
      add(a, times(k, scale));
    plus(constant, times(o.constant, scale));
  }
  int64_t coefficient(const Variable *v) const {
    for (const auto &[a, k] : terms)
      if (is_var(a, v))
        return k;
    return 0;
  }
  bool constant_only() const {
    for (const auto &[a, k] : terms)
      if (k != 0)
        return false;
    return true;
  }
};

void linearize(const Expr &e, int64_t scale, Linear &out) {
  if (auto *c = e.as<IntConst>()) {
    out.plus(out.constant, out.times(c->value, scale));
    return;
  }
  if (auto *b = e.as<Binary>()) {
    switch (b->op) {
    case BinaryOp::Add:
      linearize(b->a, scale, out);
      linearize(b->b, scale, out);
      return;
    case BinaryOp::Sub:
      linearize(b->a, scale, out);
      linearize(b->b, out.times(scale, -1), out);
      return;
    case BinaryOp::Mul:
      if (auto *c = b->a.as<IntConst>())
        return linearize(b->b, out.times(scale, c->value), out);
      if (auto *c = b->b.as<IntConst>())
        return linearize(b->a, out.times(scale, c->value), out);
      break;
    default:
      break;
    }
  }
  if (auto *u = e.as<Unary>(); u && u->op == UnaryOp::Neg)
    return linearize(u->a, out.times(scale, -1), out);
  // A widening of an integer index keeps its value.
  if (auto *c = e.as<Cast>();
      c && c->type == ScalarType::I64 &&
      (is_signed_int(c->a.type()) || (is_unsigned(c->a.type()) && bit_width(c->a.type()) < 64)))
    return linearize(c->a, scale, out);
  out.add(e, scale);
}

Linear linear(const Expr &e) {
  Linear out;
  linearize(e, 1, out);
  return out;
}

// A loop variable around an access and its range: begin <= var <= last.
struct Range {
  const Variable *var;
  Linear begin, last;
};

// The largest value `d` takes where `ranges` (outermost first) hold, when that is a constant:
// each loop variable, innermost first, is replaced by its last value where its coefficient is
// positive and by its first where negative (a bound may name outer variables, replaced after).
std::optional<int64_t> max_of(Linear d, const std::vector<Range> &ranges) {
  for (auto r = ranges.rbegin(); r != ranges.rend(); ++r) {
    int64_t c = d.coefficient(r->var);
    if (c == 0)
      continue;
    for (auto &[a, k] : d.terms)
      if (is_var(a, r->var))
        k = 0;
    d.add(c > 0 ? r->last : r->begin, c);
  }
  if (!d.exact || !d.constant_only())
    return std::nullopt;
  return d.constant;
}

// Whether indices `a` and `b` are of different elements wherever `ranges` hold: in some
// dimension their difference is always positive or always negative.
bool distinct(const std::vector<Expr> &a, const std::vector<Expr> &b,
              const std::vector<Range> &ranges) {
  for (size_t k = 0; k < a.size() && k < b.size(); ++k) {
    Linear d = linear(a[k]);
    d.add(linear(b[k]), -1);
    Linear minus_d;
    minus_d.add(d, -1);
    std::optional<int64_t> most = max_of(d, ranges), least = max_of(minus_d, ranges);
    if ((most && *most < 0) || (least && *least < 0))
      return true;
  }
  return false;
}

// Variables a loop's bounds may name for its range to hold throughout its body: loop variables
// and scalar parameters, which nothing assigns.
struct BoundNames : Visitor {
  const std::set<const Variable *> *fixed;
  bool ok = true;
  void visit_node(const VarRef *n) override { ok = ok && fixed->count(n->var.get()); }
  void visit_node(const Load *) override { ok = false; }
  void visit_node(const SharedLoad *) override { ok = false; }
  void visit_node(const WarpOp *) override { ok = false; }
};

// The range of a loop's variable, begin <= var <= end - 1, when its bounds hold throughout the
// body (they name only `fixed` variables); else a range of no variable, which proves nothing (a
// variable with no range is left in the difference).
Range range_of(const Variable *var, const Expr &begin, const Expr &end,
               const std::set<const Variable *> &fixed) {
  BoundNames names;
  names.fixed = &fixed;
  names.visit(begin);
  names.visit(end);
  if (!names.ok)
    return Range{nullptr, {}, {}};
  Range r{var, linear(begin), linear(end)};
  r.last.plus(r.last.constant, -1);
  return r;
}

// What a loop's body does to one array, and everything that rules a promotion out.
struct LoopBody : Visitor {
  int array;
  std::vector<Expr> element;               // the indices of the body's unconditional store
  std::set<const Variable *> changed;      // variables the body declares or assigns
  std::vector<Range> ranges;               // at the access being visited
  const std::set<const Variable *> *fixed; // see BoundNames
  bool ok = true;

  void visit_node(const Store *n) override {
    if (n->array == array && !equal_all(n->indices, element))
      ok = false;
    Visitor::visit_node(n);
  }
  void visit_node(const Load *n) override {
    if (n->array == array && !equal_all(n->indices, element) &&
        !distinct(n->indices, element, ranges))
      ok = false;
    Visitor::visit_node(n);
  }
  void visit_node(const Reduce *n) override {
    ok = ok && n->array != array;
    Visitor::visit_node(n);
  }
  void visit_node(const Atomic *) override { ok = false; }
  void visit_node(const ParallelFor *) override { ok = false; }
  void visit_node(const Barrier *) override { ok = false; }
  void visit_node(const WarpOp *) override { ok = false; }
  void visit_node(const Mma *) override { ok = false; }
  void visit_node(const AsyncCopy *) override { ok = false; }
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
    visit(n->begin);
    visit(n->end);
    visit(n->step);
    ranges.push_back(range_of(n->var.get(), n->begin, n->end, *fixed));
    visit(n->body);
    ranges.pop_back();
  }
};

// The statements a loop's body runs in every step: its top level, through nested blocks.
void unconditional(const Stmt &s, std::vector<Stmt> &out) {
  if (auto *b = s.as<Block>()) {
    for (const Stmt &t : b->stmts)
      unconditional(t, out);
    return;
  }
  out.push_back(s);
}

// The element's reads and writes in a loop body become the local's.
class UseLocal : public Mutator {
public:
  int array;
  std::vector<Expr> element;
  Var local;

protected:
  Expr mutate_node(const Load *n, const Expr &self) override {
    if (n->array == array && equal_all(n->indices, element))
      return VarRef::make(local);
    return Mutator::mutate_node(n, self);
  }
  Stmt mutate_node(const Store *n, const Stmt &self) override {
    if (n->array == array && equal_all(n->indices, element))
      return Assign::make(local, mutate(n->value));
    return Mutator::mutate_node(n, self);
  }
};

class Promote : public Mutator {
public:
  const std::vector<Param> *params;
  std::set<const Variable *> fixed; // loop variables and scalar parameters
  std::vector<Range> ranges;        // the loops around the node being rewritten

protected:
  Stmt mutate_node(const ParallelFor *n, const Stmt &self) override {
    for (size_t k = 0; k < n->vars.size(); ++k) {
      fixed.insert(n->vars[k].get());
      ranges.push_back(
          range_of(n->vars[k].get(), IntConst::make(ScalarType::I64, 0), n->extents[k], fixed));
    }
    Stmt out = Mutator::mutate_node(n, self);
    ranges.resize(ranges.size() - n->vars.size());
    return out;
  }
  Stmt mutate_node(const For *n, const Stmt &self) override {
    fixed.insert(n->var.get());
    const Range own = range_of(n->var.get(), n->begin, n->end, fixed);
    ranges.push_back(own);
    Stmt inner = Mutator::mutate_node(n, self);
    ranges.pop_back();
    auto *loop = inner.as<For>();

    std::vector<Stmt> top;
    unconditional(loop->body, top);
    std::vector<Stmt> before, after;
    Stmt body = loop->body;
    std::set<int> done;
    for (const Stmt &s : top) {
      auto *store = s.as<Store>();
      if (!store || done.count(store->array))
        continue;
      done.insert(store->array);
      const ScalarType t = (*params)[store->array].type;
      if (t != ScalarType::F32 && t != ScalarType::F64 && t != ScalarType::I32 &&
          t != ScalarType::I64)
        continue;
      LoopBody use;
      use.array = store->array;
      use.element = store->indices;
      use.fixed = &fixed;
      use.ranges = ranges;
      use.ranges.push_back(own);
      use.visit(loop->body);
      // The indices are the same in every step: they read no array and no variable the body
      // changes, nor the loop's own.
      struct Reads : Visitor {
        std::set<const Variable *> vars;
        bool loads = false;
        void visit_node(const VarRef *n) override { vars.insert(n->var.get()); }
        void visit_node(const Load *) override { loads = true; }
        void visit_node(const SharedLoad *) override { loads = true; }
      } reads;
      for (const Expr &i : store->indices)
        reads.visit(i);
      bool invariant = !reads.loads && !reads.vars.count(loop->var.get());
      for (const Variable *v : reads.vars)
        invariant = invariant && !use.changed.count(v);
      if (!use.ok || !invariant)
        continue;
      Var local = make_var((*params)[store->array].name + "_element", t);
      UseLocal rewrite;
      rewrite.array = store->array;
      rewrite.element = store->indices;
      rewrite.local = local;
      body = rewrite.mutate(body);
      before.push_back(Declare::make(local, Load::make(t, store->array, store->indices)));
      after.push_back(Store::make(store->array, store->indices, VarRef::make(local)));
    }
    if (before.empty())
      return inner;
    // Only when the loop takes a step: the element is then read and written by the first one.
    std::vector<Stmt> stmts = std::move(before);
    stmts.push_back(For::make(loop->var, loop->begin, loop->end, loop->step, body));
    stmts.insert(stmts.end(), after.begin(), after.end());
    return IfThenElse::make(Binary::make(BinaryOp::Lt, loop->begin, loop->end),
                            Block::make(std::move(stmts)));
  }
};

} // namespace

Task promote_element_updates(const Task &task, const std::vector<Param> &params) {
  if (task.kind == TaskKind::Simt)
    return task;
  Promote promote;
  promote.params = &params;
  for (const Param &p : params)
    if (p.var)
      promote.fixed.insert(p.var.get());
  Task out = task;
  out.body = promote.mutate(task.body);
  return out;
}

} // namespace loom::ir
