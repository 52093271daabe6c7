// The box of elements that ir/StagePrivate.cpp (an iteration's, in a local array) and
// ir/StageSerialBlock.cpp (a serial block's, in shared memory) keep in a faster memory: the
// accesses of one array in a region as linear forms over the loops around them (ir/LinearForm.h),
// the box they take (a base the region does not change, plus offsets its loops' variables walk),
// the tests that put an access in it or prove it outside, and the rewrite of the region's accesses
// to the staged copy. Internal to those two passes.
#pragma once

#include "ir/Build.h"
#include "ir/LinearForm.h"
#include "ir/Mutator.h"
#include "ir/Printer.h"

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace loom::ir::staging {

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
Expr expr_of(const Linear &l);

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

// Whether `atom` is a variable of the region's loops.
bool is_inner(const Expr &atom, const Accesses &acc);
// The base from an access's indices: their terms in variables the region does not change,
// which must read no memory. False when there is none.
bool make_base(const Accesses &acc, const Access &first, Box &box);
// Whether an access is the base plus terms in the region's own variables, and its offsets' range.
bool in_box(const Accesses &acc, const Box &box, const Access &a, std::vector<int64_t> &lo,
            std::vector<int64_t> &hi);
// Widens the box to take an access's offsets.
void widen(Box &box, const std::vector<int64_t> &lo, const std::vector<int64_t> &hi);
// Whether some read in the box is of other indices than every store's: the region reads back
// what it stored (an element read and then updated at the same indices, as `y[r, i] += x[r]`,
// takes no round trip).
bool reads_back(const Accesses &acc, const std::vector<bool> &in);
// The element types a box may hold.
bool stageable(ScalarType t);

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

} // namespace loom::ir::staging
