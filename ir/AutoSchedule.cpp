// The schedule the CPU chooses itself: a 2-D parallel loop of the matmul form, written as every
// Numba or CUDA user writes it,
//
//   for i, j in parallel(M, N):
//     acc = 0
//     for k in range(K): acc += A[i, k] * B[k, j]
//     C[i, j] = acc
//
// runs a thread's iterations one at a time, each k step loading A[i, k] and B[k, j] for one
// multiply-add and its sum a chain of additions one latency apart: about 0.2x the same loop in
// C with its loops in i, k, j order. Under the tile schedule (ir/Tile.cpp) a thread takes blocks
// of rows x cols iterations whose k steps run together: each B element loaded serves `rows`
// iterations, each A element `cols`, the block's sums live in vector registers and run side by
// side. Every iteration's statements still run in the order written and its sum adds the same
// products in the same order, so the results are the default mapping's, bit for bit; the choice
// needs no trial runs.
//
// The cost model, from what the lowering knows (the loop's form, its element types, the host's
// vector registers) and nothing measured:
// - the loop must be the tile schedule's form (one inner range loop writing only locals,
//   its bounds the same for every iteration), with no local arrays, prints or atomics in it;
// - its inner loop must read, in every step, an array at [k, j] (j its last index: consecutive j
//   are neighbours in memory, so the block's columns are vector loads) of a type vectors hold;
// - the block: cols = two vectors of that type, rows = 4 (8 vector accumulators, half of the
//   16 registers of AVX2, a quarter of AVX-512's 32), both halved while the replicated body
//   exceeds a budget of IR nodes that bounds the compile time (about 40 ms for the matmul).
#include "ir/Build.h"
#include "ir/Passes.h"
#include "ir/Printer.h"
#include "ir/TileForm.h"

#include <set>
#include <sstream>

namespace loom::ir {

namespace {

using namespace tile;

// What the automatic schedule leaves alone: statements whose order among iterations is
// observable (prints, atomics), private arrays (a thread's block would share them), and loops
// inside the inner loop (each replica would copy the loop).
struct Unsuitable : Visitor {
  std::string found;
  void visit_node(const Print *n) override {
    found = "the iteration prints";
    Visitor::visit_node(n);
  }
  void visit_node(const Atomic *n) override {
    found = "the iteration has atomic updates";
    Visitor::visit_node(n);
  }
  void visit_node(const SharedLoad *n) override {
    if (n->array->local())
      found = "the iteration uses a local array";
    Visitor::visit_node(n);
  }
  void visit_node(const SharedStore *n) override {
    if (n->array->local())
      found = "the iteration uses a local array";
    Visitor::visit_node(n);
  }
};

// Budget of replicated IR nodes: the natural matmul's 4 x 32 block is about 2,300, and
// compiles in about 40 ms on a 2-core machine; lud's trailing update (an element's own update
// after its sum, offset indices) is about 3,600 in a 4 x 32 block, and its whole kernel (five
// tasks) compiles in the same time with that block as with 2 x 32.
constexpr int64_t node_budget = 4096;

// The element types a row of vector registers holds (as the tile schedule stages): their bytes,
// else 0.
int bytes_of(ScalarType t) {
  const bool blockable =
      t == ScalarType::F32 || t == ScalarType::F64 || t == ScalarType::I32 || t == ScalarType::I64;
  return blockable ? byte_size(t) : 0;
}

// The variables an iteration defines: the loop's own, its inner loop's, and its locals.
struct Defined : Visitor {
  std::set<const Variable *> vars;
  void visit_node(const Declare *n) override {
    vars.insert(n->var.get());
    Visitor::visit_node(n);
  }
  void visit_node(const For *n) override {
    vars.insert(n->var.get());
    Visitor::visit_node(n);
  }
};

// Whether `e` mentions none of `vars`: the same value in every iteration and every step.
bool invariant(const Expr &e, const std::set<const Variable *> &vars) {
  struct Mentions : Visitor {
    const std::set<const Variable *> *vars;
    bool found = false;
    void visit_node(const VarRef *n) override { found = found || vars->count(n->var.get()); }
  } m;
  m.vars = &vars;
  m.visit(e);
  return !m.found;
}

// IR nodes in a statement: what the block replicates rows x cols times. An expression the same
// in every iteration (`o + 16` in `a[o + 16 + i, j]`) is computed once for the block, not per
// replica, and does not count.
struct Size : Visitor {
  const std::set<const Variable *> *defined;
  int64_t nodes = 0;
  void visit(const Expr &e) override {
    if (invariant(e, *defined))
      return;
    ++nodes;
    Visitor::visit(e);
  }
  void visit(const Stmt &s) override {
    ++nodes;
    Visitor::visit(s);
  }
};

// Whether `e` is the variable `v` plus an offset the same for every iteration and step: `v`,
// `o + v` or `v + o` (lud's `a[o + k, o + 16 + j]`, a loop over range(o + 16, n) counting from 0).
bool steps_with(const Expr &e, const Variable *v, const std::set<const Variable *> &defined) {
  if (is_var(e, v))
    return true;
  auto *b = e.as<Binary>();
  if (!b || b->op != BinaryOp::Add)
    return false;
  return (steps_with(b->a, v, defined) && invariant(b->b, defined)) ||
         (steps_with(b->b, v, defined) && invariant(b->a, defined));
}

// The loads of the inner loop that a block of iterations shares: an array read at [k', j'] (a row
// along j; each primed index is its variable plus an invariant offset) serves the block's rows,
// one at [i', k'] or [k', i'] its columns.
struct SharedLoads : Visitor {
  const Variable *i, *j, *k;
  const std::set<const Variable *> *defined;
  std::map<Pattern, const Load *> found; // the first load of each pattern
  void visit_node(const Load *n) override {
    if (n->indices.size() == 2)
      for (int kd = 0; kd < 2; ++kd) {
        if (!steps_with(n->indices[kd], k, *defined))
          continue;
        const Expr &other = n->indices[1 - kd];
        if (steps_with(other, i, *defined))
          found.emplace(Pattern{n->array, kd, 0}, n);
        else if (steps_with(other, j, *defined))
          found.emplace(Pattern{n->array, kd, 1}, n);
      }
    Visitor::visit_node(n);
  }
};

} // namespace

std::optional<TileSchedule> auto_cpu_tile(const Task &task, const std::vector<Param> &params,
                                          int vector_bits, int registers, std::string &why) {
  why.clear();
  if (vector_bits <= 0 || !has_2d_parallel_loop(task))
    return std::nullopt;
  if (std::string problem = tile_form_problem(task, params); !problem.empty()) {
    why = "not register-blocked: " + problem;
    return std::nullopt;
  }
  const ParallelFor *loop = top_parallel_loop(task);
  Unsuitable unsuitable;
  unsuitable.visit(loop->body);
  if (!unsuitable.found.empty()) {
    why = "not register-blocked: " + unsuitable.found;
    return std::nullopt;
  }
  const For *inner = nullptr;
  for (const Stmt &s : statements_of(loop->body))
    if (auto *f = s.as<For>())
      inner = f;
  if (contains<For, While>(inner->body)) {
    why = "not register-blocked: the inner loop has loops of its own";
    return std::nullopt;
  }
  // The loads every step makes, at the inner loop's top level.
  Defined defined;
  defined.vars.insert(loop->vars[0].get());
  defined.vars.insert(loop->vars[1].get());
  defined.visit(loop->body);
  SharedLoads loads;
  loads.i = loop->vars[0].get(), loads.j = loop->vars[1].get(), loads.k = inner->var.get();
  loads.defined = &defined.vars;
  for (const Stmt &s : statements_of(inner->body)) {
    if (auto *d = s.as<Declare>())
      loads.visit(d->init);
    else if (auto *a = s.as<Assign>())
      loads.visit(a->value);
  }
  const Load *row = nullptr, *column = nullptr;
  for (const auto &[p, load] : loads.found) {
    if (p.axis == 1 && p.k_dim == 0 && bytes_of(params[p.array].type) > 0)
      row = row && bytes_of(params[row->array].type) >= bytes_of(params[p.array].type) ? row : load;
    else if (p.axis == 0 && !column)
      column = load;
  }
  auto text = [&](const Load *n) {
    return params[n->array].name + "[" + to_string(n->indices[0], params) + ", " +
           to_string(n->indices[1], params) + "]";
  };
  const std::string j = loop->vars[1]->name, k = inner->var->name;
  if (!row) {
    why = "not register-blocked: the inner loop reads no array at [" + k + ", " + j +
          "] (or [o + " + k + ", p + " + j +
          "], o and p the same in every step) in every step (a row along " + j +
          " that a block of iterations could load as vectors and share)";
    return std::nullopt;
  }
  const int lanes = vector_bits / (8 * bytes_of(params[row->array].type));
  TileSchedule tile;
  tile.thread_cols = 2 * lanes;
  tile.thread_rows = registers >= 16 ? 4 : 2;
  // What each replica holds: the iteration's statements, its inner loop's body but not the
  // loop's bounds (the block's iterations share the loop).
  Size size;
  size.defined = &defined.vars;
  for (const Stmt &s : statements_of(loop->body))
    size.visit(s.as<For>() == inner ? inner->body : s);
  while (int64_t(tile.thread_rows) * tile.thread_cols * size.nodes > node_budget) {
    if (tile.thread_rows > 1)
      tile.thread_rows /= 2;
    else if (tile.thread_cols > lanes)
      tile.thread_cols /= 2;
    else
      break;
  }
  if (int64_t(tile.thread_rows) * tile.thread_cols * size.nodes > node_budget) {
    why = "not register-blocked: the iteration (" + std::to_string(size.nodes) +
          " IR nodes) is too large to copy into a block of " + std::to_string(lanes) +
          " iterations within the compile-time budget (" + std::to_string(node_budget) + " nodes)";
    return std::nullopt;
  }
  tile.rows = 16 * tile.thread_rows;
  tile.cols = 4 * tile.thread_cols;
  const int accumulators = tile.thread_rows * tile.thread_cols / lanes;
  std::ostringstream os;
  os << "register blocks of " << tile.thread_rows << "x" << tile.thread_cols
     << " iterations, chosen by loom (the tile schedule {" << tile.rows << ", " << tile.cols << ", "
     << tile.thread_rows << ", " << tile.thread_cols << "}; k.schedule(loom::none) or "
     << "@kernel(schedule=None) turns it off): the inner loop reads " << text(row);
  if (column)
    os << " and " << text(column);
  os << " in every step, so a block loads each element once for all of its "
     << (column ? "rows or columns" : "rows") << ", and its " << accumulators << " " << vector_bits
     << "-bit vector accumulators (of " << registers
     << " registers) add side by side; each sum keeps its order, so results are the default "
        "mapping's, bit for bit";
  why = os.str();
  return tile;
}

} // namespace loom::ir
