#include "ir/StagedBox.h"

#include <algorithm>

namespace loom::ir::staging {

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

bool is_inner(const Expr &atom, const Accesses &acc) {
  auto *v = atom.as<VarRef>();
  return v && acc.inner.count(v->var.get());
}

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

} // namespace loom::ir::staging
