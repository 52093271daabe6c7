// Integer index expressions as linear forms over atoms (variables, shapes, loads), and what the
// ranges of the loops around an expression prove about it: the largest value a difference of two
// indices takes, which says that two accesses never meet (ir/PromoteUpdates.cpp) or that a loop
// takes at most so many steps (ir/ShortLoops.cpp).
#pragma once

#include "ir/Build.h"

#include <optional>
#include <set>
#include <vector>

namespace loom::ir {

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

// `e` as a linear form.
Linear linear(const Expr &e);

// Whether two integer expressions provably have the same value: the same linear form, or the
// same remainder or quotient by the same divisor of such forms (`t % 2` and `((t - 1) + 1) % 2`).
bool same_value(const Expr &a, const Expr &b);

// A loop variable around an access and its range: begin <= var <= last.
struct Range {
  const Variable *var;
  Linear begin, last;
};

// The largest value `d` takes where `ranges` (outermost first) hold, when that is a constant:
// each loop variable, innermost first, is replaced by its last value where its coefficient is
// positive and by its first where negative (a bound may name outer variables, replaced after).
std::optional<int64_t> max_of(Linear d, const std::vector<Range> &ranges);

// The range of a loop's variable, begin <= var <= end - 1, when its bounds hold throughout the
// body (they name only `fixed` variables: loop variables and scalar parameters, which nothing
// assigns); else a range of no variable, which proves nothing (a variable with no range is left
// in the difference).
Range range_of(const Variable *var, const Expr &begin, const Expr &end,
               const std::set<const Variable *> &fixed);

// Whether indices `a` and `b` are of different elements wherever `ranges` hold: in some
// dimension their difference is always positive or always negative.
bool distinct(const std::vector<Expr> &a, const std::vector<Expr> &b,
              const std::vector<Range> &ranges);
// The same for indices already in linear form.
bool distinct(const std::vector<Linear> &a, const std::vector<Linear> &b,
              const std::vector<Range> &ranges);

// The loops around a node as a pass walks into them: their variables with the scalar parameters
// (`fixed`: nothing assigns them, so bounds that name only them hold throughout a loop) and
// their ranges, outermost first.
struct LoopRanges {
  std::set<const Variable *> fixed;
  std::vector<Range> ranges;

  explicit LoopRanges(const std::vector<Param> &params);
  // Into a loop over [begin, end), and out of the last loop entered. (The passes that use them
  // run on mapped tasks, whose parallel loops are loops over threads or chunks.)
  void enter(const Variable *var, const Expr &begin, const Expr &end);
  void leave() { ranges.pop_back(); }
};

} // namespace loom::ir
