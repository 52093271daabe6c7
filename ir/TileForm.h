// What the two forms of the tile schedule share (ir/Tile.cpp, and ir/TileMma.cpp on the tensor
// cores): the patterns of the inner loop's loads, what an iteration writes and mentions, and the
// copy of an iteration's statements a thread runs for one of its iterations.
#pragma once

#include "ir/Build.h"
#include "ir/Mutator.h"

#include <map>
#include <optional>
#include <set>

namespace loom::ir::tile {

// An array the inner loop reads at [x, k] or [k, x], x one of the parallel loop's variables.
struct Pattern {
  int array;
  int k_dim; // the index that is the inner loop's variable
  int axis;  // 0: x is the loop's first variable (rows), 1: its second (columns)
  auto operator<=>(const Pattern &) const = default;
};

// The pattern of a load, if it has one.
inline std::optional<Pattern> pattern_of(const Load *n, const Variable *i, const Variable *j,
                                         const Variable *k) {
  if (n->indices.size() != 2)
    return std::nullopt;
  for (int kd = 0; kd < 2; ++kd) {
    if (!is_var(n->indices[kd], k))
      continue;
    const Expr &other = n->indices[1 - kd];
    if (is_var(other, i))
      return Pattern{n->array, kd, 0};
    if (is_var(other, j))
      return Pattern{n->array, kd, 1};
  }
  return std::nullopt;
}

// The loads of an expression, with the patterns they have.
struct Loads : Visitor {
  const Variable *i, *j, *k;
  std::set<Pattern> found;
  void visit_node(const Load *n) override {
    if (auto p = pattern_of(n, i, j, k))
      found.insert(*p);
    Visitor::visit_node(n);
  }
};

// What the loop body writes and reads.
struct Effects : Visitor {
  std::set<int> written;
  std::set<const Variable *> mentioned;
  void visit_node(const Store *n) override {
    written.insert(n->array);
    Visitor::visit_node(n);
  }
  void visit_node(const Reduce *n) override {
    written.insert(n->array);
    Visitor::visit_node(n);
  }
  void visit_node(const Atomic *n) override {
    written.insert(n->array);
    Visitor::visit_node(n);
  }
  void visit_node(const VarRef *n) override { mentioned.insert(n->var.get()); }
};

// One copy of an iteration's statements: the loop's variables replaced, locals renamed, loads of
// staged arrays read from shared memory, and writes made only where `valid`.
class Copy : public RenameVars {
public:
  Copy() { fresh_locals = true; }
  std::map<const Variable *, Expr> values;
  std::map<Pattern, Expr> staged; // what a staged load reads instead
  const Variable *i = nullptr, *j = nullptr, *k = nullptr;
  Expr valid; // null: writes unguarded

protected:
  Expr mutate_node(const VarRef *n, const Expr &self) override {
    if (auto it = values.find(n->var.get()); it != values.end())
      return it->second;
    return RenameVars::mutate_node(n, self);
  }
  Expr mutate_node(const Load *n, const Expr &self) override {
    if (k)
      if (auto p = pattern_of(n, i, j, k))
        if (auto it = staged.find(*p); it != staged.end())
          return it->second;
    return Mutator::mutate_node(n, self);
  }
  Stmt mutate_node(const Store *n, const Stmt &self) override {
    return guarded(Mutator::mutate_node(n, self));
  }
  Stmt mutate_node(const Reduce *n, const Stmt &self) override {
    return guarded(Mutator::mutate_node(n, self));
  }
  Stmt mutate_node(const Atomic *n, const Stmt &self) override {
    return guarded(RenameVars::mutate_node(n, self));
  }

private:
  Stmt guarded(Stmt s) { return valid.defined() ? IfThenElse::make(valid, std::move(s)) : s; }
};

// The last parallel loop at the top of the task's body (split_into_tasks leaves one), or null.
inline const ParallelFor *top_parallel_loop(const Task &task) {
  const ParallelFor *loop = nullptr;
  for (const Stmt &s : statements_of(task.body))
    if (auto *p = s.as<ParallelFor>())
      loop = p;
  return loop;
}

} // namespace loom::ir::tile
