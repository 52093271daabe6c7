// Integer index expressions as linear forms, and what loop ranges prove about them
// (ir/LinearForm.h).
#include "ir/LinearForm.h"
#include "ir/Mutator.h"

namespace loom::ir {

namespace {

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

} // namespace

Linear linear(const Expr &e) {
  Linear out;
  linearize(e, 1, out);
  return out;
}

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

bool distinct(const std::vector<Expr> &a, const std::vector<Expr> &b,
              const std::vector<Range> &ranges) {
  std::vector<Linear> la, lb;
  for (const Expr &e : a)
    la.push_back(linear(e));
  for (const Expr &e : b)
    lb.push_back(linear(e));
  return distinct(la, lb, ranges);
}

bool distinct(const std::vector<Linear> &a, const std::vector<Linear> &b,
              const std::vector<Range> &ranges) {
  for (size_t k = 0; k < a.size() && k < b.size(); ++k) {
    Linear d = a[k];
    d.add(b[k], -1);
    Linear minus_d;
    minus_d.add(d, -1);
    std::optional<int64_t> most = max_of(d, ranges), least = max_of(minus_d, ranges);
    if ((most && *most < 0) || (least && *least < 0))
      return true;
  }
  return false;
}

LoopRanges::LoopRanges(const std::vector<Param> &params) {
  for (const Param &p : params)
    if (p.var)
      fixed.insert(p.var.get());
}

bool same_value(const Expr &a, const Expr &b) {
  if (equal(a, b))
    return true;
  auto *x = a.as<Binary>(), *y = b.as<Binary>();
  if (x && y && x->op == y->op && (x->op == BinaryOp::Mod || x->op == BinaryOp::Div))
    return equal(x->b, y->b) && same_value(x->a, y->a);
  Linear d = linear(a);
  d.add(linear(b), -1);
  return d.exact && d.constant_only() && d.constant == 0;
}

void LoopRanges::enter(const Variable *var, const Expr &begin, const Expr &end) {
  fixed.insert(var);
  ranges.push_back(range_of(var, begin, end, fixed));
}

} // namespace loom::ir
