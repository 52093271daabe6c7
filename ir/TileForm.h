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

// The matmul form of a 2-D parallel loop's iteration (ir/TileMma.cpp says which loops have it):
// C[i, j] from an f32 local `acc` that one inner loop sums A[i, k] * B[k, j] into.
struct MatmulForm {
  const Variable *i = nullptr, *j = nullptr;
  std::vector<Stmt> before, after; // the iteration's statements around its inner loop
  const For *inner = nullptr;
  Var acc;
  Pattern a{}, b{}; // a.axis == 0 (rows), b.axis == 1 (columns)
  ScalarType input = ScalarType::F32;
};
// Why `loop` is not of the matmul form, or empty (and `form` filled in); f32 arrays only when
// `tf32`.
std::string match_matmul(const ParallelFor *loop, const std::vector<Param> &params, bool tf32,
                         MatmulForm &form);

// A local `name` = `value` declared in `out`.
inline Var declare(std::vector<Stmt> &out, const std::string &name, const Expr &value) {
  Var v = make_var(name, value.type());
  out.push_back(Declare::make(v, value));
  return v;
}

// The elements of the matmul form's loop that a thread of a tensor-core tile holds (ir/TileMma.cpp,
// ir/TileWgmma.cpp): the rows and columns it holds, and each element as a row and a column of
// those, with its copy of the iteration and its accumulator.
struct TileElements {
  struct Position {
    Expr in_range, clamped, valid; // where; clamped into the loop; whether in range
  };
  struct Element {
    int64_t row, col; // indices into rows and cols
    Copy copy;
    Var acc;
  };
  std::vector<Position> rows, cols;
  std::vector<Element> elements;

  // A row or column named `name` at `origin` of a loop of `extent` iterations, declared in `out`.
  static Position position(std::vector<Stmt> &out, const std::string &name, const Expr &origin,
                           const Expr &extent) {
    Var at = declare(out, name, origin);
    Var clamped = declare(out, name, min(var_ref(at), sub(extent, i64(1))));
    Var valid = declare(out, name + "_valid", lt(var_ref(at), extent));
    return Position{var_ref(at), var_ref(clamped), var_ref(valid)};
  }
  // Element (rows[row], cols[col]): its copies of the statements before the inner loop, at the
  // clamped position, writing only where it is in range; its accumulator is that copy's.
  void add(std::vector<Stmt> &out, const MatmulForm &form, int64_t row, int64_t col) {
    Element &e = elements.emplace_back(Element{row, col, Copy(), {}});
    e.copy.values[form.i] = rows[size_t(row)].clamped;
    e.copy.values[form.j] = cols[size_t(col)].clamped;
    e.copy.valid = logical_and(rows[size_t(row)].valid, cols[size_t(col)].valid);
    for (const Stmt &s : form.before)
      out.push_back(e.copy.mutate(s));
    e.acc = e.copy.to.at(form.acc.get());
  }
  // The statements after the inner loop, for each element in range.
  void finish(std::vector<Stmt> &out, const MatmulForm &form) {
    for (Element &e : elements) {
      const Position &r = rows[size_t(e.row)], &c = cols[size_t(e.col)];
      e.copy.values[form.i] = r.in_range;
      e.copy.values[form.j] = c.in_range;
      e.copy.valid = Expr();
      std::vector<Stmt> after;
      for (const Stmt &s : form.after)
        after.push_back(e.copy.mutate(s));
      if (!after.empty())
        out.push_back(
            IfThenElse::make(logical_and(r.valid, c.valid), Block::make(std::move(after))));
    }
  }
};

// The loop over the tiles of rows x cols iterations of a 2-D parallel loop that the tensor-core
// tiles run, a block per tile at a time (tile blockIdx.x, then + gridDim.x, ...), each row of
// tiles in turn; `tiles` becomes their number. `body(stmts, i0, j0, m, n)` adds the statements
// of the tile whose first iteration is (i0, j0), of a loop of m x n iterations; a barrier ends
// each tile, so that the next one's stores wait for this one's last reads (unless `barriers`
// is false: the tile's threads then hand shared memory over through memory barriers).
template <class Body>
Stmt tile_loop(const ParallelFor *loop, int64_t rows, int64_t cols, Expr &tiles, Body body,
               bool barriers = true) {
  std::vector<Stmt> out;
  Var m = make_var("rows", ScalarType::I64), n = make_var("cols", ScalarType::I64);
  out.push_back(Declare::make(m, loop->extents[0]));
  out.push_back(Declare::make(n, loop->extents[1]));
  Expr tiles_j = div(add(var_ref(n), i64(cols - 1)), i64(cols));
  tiles = mul(div(add(loop->extents[0], i64(rows - 1)), i64(rows)),
              div(add(loop->extents[1], i64(cols - 1)), i64(cols)));
  Var t = make_var("tile", ScalarType::I64);
  Var i0 = make_var("tile_row", ScalarType::I64), j0 = make_var("tile_col", ScalarType::I64);
  std::vector<Stmt> each;
  each.push_back(Declare::make(i0, mul(div(var_ref(t), tiles_j), i64(rows))));
  each.push_back(Declare::make(j0, mul(mod(var_ref(t), tiles_j), i64(cols))));
  body(each, var_ref(i0), var_ref(j0), var_ref(m), var_ref(n));
  if (barriers)
    each.push_back(Barrier::make());
  out.push_back(For::make(t, reg_i64(Reg::BlockIdx, 0), tiles, reg_i64(Reg::GridDim, 0),
                          Block::make(std::move(each))));
  return Block::make(std::move(out));
}

// The last parallel loop at the top of the task's body (split_into_tasks leaves one), or null.
inline const ParallelFor *top_parallel_loop(const Task &task) {
  const ParallelFor *loop = nullptr;
  for (const Stmt &s : statements_of(task.body))
    if (auto *p = s.as<ParallelFor>())
      loop = p;
  return loop;
}

} // namespace loom::ir::tile
