#include "ir/RowAccess.h"

#include "ir/Mutator.h"
#include "ir/Printer.h"

#include <algorithm>

namespace loom::ir {

namespace {

// An index as a * i + b for the loop variable i, where a and b are integer constants.
struct Affine {
  int64_t a = 0, b = 0;
};

std::optional<Affine> affine(const Expr &e, const Variable *i) {
  if (const auto *c = e.as<IntConst>())
    return Affine{0, c->value};
  if (const auto *v = e.as<VarRef>())
    return v->var.get() == i ? std::optional<Affine>(Affine{1, 0}) : std::nullopt;
  if (const auto *c = e.as<Cast>())
    return is_int(c->a.type()) && is_int(e.type()) ? affine(c->a, i) : std::nullopt;
  if (const auto *b = e.as<Binary>()) {
    if (b->op != BinaryOp::Add && b->op != BinaryOp::Sub)
      return std::nullopt;
    auto x = affine(b->a, i), y = affine(b->b, i);
    if (!x || !y)
      return std::nullopt;
    return b->op == BinaryOp::Add ? Affine{x->a + y->a, x->b + y->b}
                                  : Affine{x->a - y->a, x->b - y->b};
  }
  return std::nullopt;
}

void add(RowSet &set, const std::vector<Expr> &indices, const Variable *i,
         const std::vector<Param> &params) {
  if (indices.empty())
    return;
  std::optional<Affine> f = affine(indices[0], i);
  if (f && f->a == 1) {
    set.lo = set.relative ? std::min(set.lo, f->b) : f->b;
    set.hi = set.relative ? std::max(set.hi, f->b) : f->b;
    set.relative = true;
  } else if (f && f->a == 0) {
    set.first = set.fixed ? std::min(set.first, f->b) : f->b;
    set.last = set.fixed ? std::max(set.last, f->b) : f->b;
    set.fixed = true;
  } else if (!set.any) {
    set.any = true;
    set.unbounded_index = to_string(indices[0], params);
  }
}

class Rows : public Visitor {
public:
  Rows(const Kernel &kernel, const Variable *i) : kernel_(kernel), i_(i) {
    rows.resize(kernel.params.size());
  }
  std::vector<ArrayRows> rows;

protected:
  void visit_node(const Load *n) override {
    add(rows[n->array].read, n->indices, i_, kernel_.params);
    Visitor::visit_node(n);
  }
  void visit_node(const Store *n) override {
    add(rows[n->array].written, n->indices, i_, kernel_.params);
    Visitor::visit_node(n);
  }
  void visit_node(const Reduce *n) override {
    ArrayRows &r = rows[n->array];
    add(r.reduced, n->indices, i_, kernel_.params);
    if (r.reduce_op && *r.reduce_op != n->op)
      r.mixed_reduce_ops = true;
    r.reduce_op = n->op;
    Visitor::visit_node(n);
  }
  void visit_node(const Atomic *n) override {
    if (n->array >= 0) { // an atomic reads and writes its element, and returns the old value
      add(rows[n->array].read, n->indices, i_, kernel_.params);
      add(rows[n->array].written, n->indices, i_, kernel_.params);
    }
    Visitor::visit_node(n);
  }

private:
  const Kernel &kernel_;
  const Variable *i_;
};

} // namespace

void RowSet::rows(int64_t begin, int64_t end, int64_t extent, int64_t *from, int64_t *to) const {
  int64_t low = extent, high = 0;            // empty
  auto include = [&](int64_t a, int64_t b) { // rows [a, b)
    a = std::max<int64_t>(a, 0), b = std::min(b, extent);
    if (a < b)
      low = std::min(low, a), high = std::max(high, b);
  };
  if (any)
    include(0, extent);
  if (relative && begin < end)
    include(begin + lo, end - 1 + hi + 1);
  if (fixed && begin < end)
    include(first, last + 1);
  *from = low < high ? low : 0;
  *to = low < high ? high : 0;
}

std::vector<ArrayRows> row_accesses(const Kernel &kernel, const ParallelFor &loop) {
  Rows visitor(kernel, loop.vars.at(0).get());
  visitor.visit(loop.body);
  for (const Expr &e : loop.extents) // extents are read before the loop: any row they read
    visitor.visit(e);
  return visitor.rows;
}

} // namespace loom::ir
