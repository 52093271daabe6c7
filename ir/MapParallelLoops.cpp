#include "ir/Build.h"
#include "ir/Mutator.h"
#include "ir/Passes.h"
#include "support/Error.h"

#include <algorithm>
#include <optional>
#include <set>

namespace loom::ir {

namespace {

// A GPU thread's first index along `axis` of a grid-stride loop, and the loop's stride.
Expr first_index(int axis) {
  return add(mul(reg_i64(Reg::BlockIdx, axis), reg_i64(Reg::BlockDim, axis)),
             reg_i64(Reg::ThreadIdx, axis));
}
Expr grid_stride(int axis) {
  return mul(reg_i64(Reg::BlockDim, axis), reg_i64(Reg::GridDim, axis));
}

// Whether a 1-D loop body over `v` suits runs of consecutive iterations per GPU thread: every
// access that depends on `v` is a 1-D array at exactly [v], or a part of a dense complex array at
// [v, 0] or [v, 1] (so a run's loads are neighbours, which LLVM merges into vector loads), and no
// loop inside makes the body heavy. Also finds the widest element it touches (a complex one's
// both parts).
class RunsOfIterations : public Visitor {
public:
  RunsOfIterations(const Var &v, const std::vector<Param> &params) : v_(v), params_(params) {}
  bool ok = true;
  std::string why; // when not ok: the first thing that rules runs out
  int widest = 1;  // bytes

protected:
  void visit_node(const Load *n) override {
    access(n->array, n->type, n->indices);
    Visitor::visit_node(n);
  }
  void visit_node(const Store *n) override {
    access(n->array, n->value.type(), n->indices);
    Visitor::visit_node(n);
  }
  void visit_node(const Reduce *n) override {
    access(n->array, n->value.type(), n->indices);
    Visitor::visit_node(n);
  }
  void visit_node(const For *) override { refuse("its body runs a loop"); }
  void visit_node(const While *) override { refuse("its body runs a loop"); }

private:
  void access(int array, ScalarType t, const std::vector<Expr> &indices) {
    const Param &p = params_.at(array);
    const bool parts = p.part == ComplexPart::Parts && !p.strided;
    widest = std::max(widest, byte_size(t) * (parts ? 2 : 1));
    int uses = 0;
    for (const Expr &i : indices)
      uses += mentions(i, v_.get());
    if (uses == 0)
      return;
    if (indices.size() == 1 && is_var(indices[0], v_.get()))
      return;
    if (parts && indices.size() == 2 && is_var(indices[0], v_.get()) && indices[1].as<IntConst>())
      return;
    refuse("it accesses an array at an index other than [" + v_->name + "]");
  }
  void refuse(const std::string &reason) {
    if (ok)
      why = reason;
    ok = false;
  }
  const Var &v_;
  const std::vector<Param> &params_;
};

// An iteration body that opens with an assertion as ir/LowerAsserts.cpp leaves it: declarations,
// `ok = cond`, `assert ok`, `if ok: rest`, where the declarations and the condition read no array
// the body writes (so they can be evaluated before any of a run's iterations runs).
struct AssertedOpening {
  std::vector<Stmt> prefix; // the declarations, then `ok = cond`
  Var ok;
  Stmt rest;
};

void flatten(const Stmt &s, std::vector<Stmt> &out) {
  if (auto *b = s.as<Block>()) {
    for (const Stmt &x : b->stmts)
      flatten(x, out);
  } else if (s.defined()) {
    out.push_back(s);
  }
}

std::optional<AssertedOpening> asserted_opening(const Stmt &body) {
  std::vector<Stmt> list;
  flatten(body, list);
  size_t a = 0;
  while (a < list.size() && list[a].as<Declare>())
    ++a;
  if (a == 0 || a + 2 != list.size() || !list[a].as<Assert>())
    return std::nullopt;
  auto *ok = list[a - 1].as<Declare>();
  auto *check = list[a].as<Assert>();
  auto *guard = list[a + 1].as<IfThenElse>();
  auto *cond = check->cond.as<VarRef>();
  auto *guard_cond = guard ? guard->cond.as<VarRef>() : nullptr;
  if (!cond || cond->var != ok->var || !guard_cond || guard_cond->var != ok->var ||
      guard->else_case.defined())
    return std::nullopt;
  struct Written : Visitor {
    std::set<int> arrays;
    bool other = false; // local or shared arrays, warp collectives: not hoisted
    void visit_node(const Store *n) override {
      arrays.insert(n->array);
      Visitor::visit_node(n);
    }
    void visit_node(const Reduce *n) override {
      arrays.insert(n->array);
      Visitor::visit_node(n);
    }
    void visit_node(const Atomic *n) override {
      if (!n->shared)
        arrays.insert(n->array);
      Visitor::visit_node(n);
    }
  } written;
  written.visit(body);
  struct Reads : Visitor {
    const std::set<int> &written;
    bool ok = true;
    explicit Reads(const std::set<int> &w) : written(w) {}
    void visit_node(const Load *n) override {
      ok &= !written.count(n->array);
      Visitor::visit_node(n);
    }
    void visit_node(const SharedLoad *) override { ok = false; }
    void visit_node(const WarpOp *) override { ok = false; }
  } reads(written.arrays);
  for (size_t k = 0; k < a; ++k)
    reads.visit(list[k]);
  if (!reads.ok)
    return std::nullopt;
  return AssertedOpening{std::vector<Stmt>(list.begin(), list.begin() + a), ok->var,
                         guard->then_case};
}

// Whether `body` holds a loop.
bool runs_a_loop(const Stmt &body) {
  return contains<For, While>(body);
}

class MapParallelLoops : public Mutator {
public:
  MapParallelLoops(const std::vector<Param> &params, Target target, Var chunk_begin, Var chunk_end,
                   bool reduces, bool covering, const LoopHints &runs)
      : params_(params), target_(target), chunk_begin_(std::move(chunk_begin)),
        chunk_end_(std::move(chunk_end)), reduces_(reduces), covering_(covering), runs_(runs) {}
  int64_t run = 1;      // the iterations a GPU thread takes at a time
  bool covered = false; // a GPU loop became one iteration per thread

protected:
  Stmt mutate_node(const ParallelFor *n, const Stmt &) override {
    const int dims = static_cast<int>(n->vars.size());
    // vectorize(v, width) of a parallel loop's variable: on the GPU, runs of `width`.
    int width = 0;
    for (const Var &v : n->vars)
      if (auto it = runs_.find(v); it != runs_.end())
        width = std::max(width, it->second.vectorize);
    if (width > 0 && dims != 1)
      throw CompileError("vectorize of a " + std::to_string(dims) +
                         "-D parallel loop on the GPU: runs of consecutive iterations per thread "
                         "are for 1-D parallel loops");
    if (width > 1) {
      RunsOfIterations check(n->vars[0], params_);
      check.visit(n->body);
      if (!check.ok)
        throw CompileError("vectorize('" + n->vars[0]->name + "', " + std::to_string(width) +
                           ") on the GPU: its threads cannot take runs of consecutive iterations, "
                           "as " +
                           check.why + " (runs need every access that depends on '" +
                           n->vars[0]->name + "' at exactly [" + n->vars[0]->name +
                           "] of a 1-D array, and no loop inside)");
      run = width;
      return runs_per_thread(n, run);
    } else if (target_ == Target::GPU && dims == 1 && width == 0) {
      RunsOfIterations check(n->vars[0], params_);
      check.visit(n->body);
      // Bytes of the widest array a run covers: 32 for a reduction, 16 for other loops, as
      // measured on the H200 (docs/decisions.md, "Grid-stride loops and a capped grid").
      if (check.ok) {
        run = std::clamp((reduces_ ? 32 : 16) / check.widest, 1, 8);
        if (run > 1)
          return runs_per_thread(n, run);
        run = 1;
      }
    }
    Stmt body = n->body;
    // One iteration per thread where the launch covers the domain: an inner loop nested in a
    // grid-stride loop ran slower on the H200 than the same loop under an `if` (ptxas schedules
    // it differently), and the guard leaves LLVM and ptxas less code (docs/decisions.md, "One
    // iteration per thread where the launch covers the domain").
    // Only bodies with a loop: a flat body (a stencil) ran faster on the H200 as a grid-stride
    // loop over a capped grid, its threads' iterations amortizing their setup (bench/RESULTS.md,
    // "eleventh run: where the naive matmul lost its time").
    const bool cover = target_ == Target::GPU && covering_ && !reduces_ && runs_a_loop(n->body);
    covered = covered || cover;
    // Build from the innermost dimension outwards. A 3-D grid-stride nest runs its outermost
    // dimension innermost (for y: for x: for z), so that a thread walking it (a short one, one
    // block along z: runtime/GridShape.cpp) computes what depends on y and x once for the walk:
    // hotspot3D's cell takes 53 SASS instructions so, against about 88 with the loops over y and x
    // entered again for each z (ptxas 13.0, sm_90).
    const bool z_inside = target_ == Target::GPU && !cover && dims == 3;
    for (int j = dims - 1; j >= 0; --j) {
      const int k = z_inside ? (j == 2 ? 0 : j + 1) : j;
      const Var &v = n->vars[k];
      const int axis = dims - 1 - k; // GPU: the innermost dimension -> x
      if (cover) {
        Expr in_range = lt(var_ref(v), n->extents[k]);
        body = Block::make({Declare::make(v, first_index(axis)), IfThenElse::make(in_range, body)});
      } else if (target_ == Target::GPU) {
        body = For::make(v, first_index(axis), n->extents[k], grid_stride(axis), body);
      } else if (k == 0) {
        body = For::make(v, var_ref(chunk_begin_), var_ref(chunk_end_), i64(1), body);
      } else {
        body = For::make(v, i64(0), n->extents[k], i64(1), body);
      }
    }
    return body;
  }

private:
  // A 1-D loop on the GPU, where each thread's loads in flight decide the speed: each thread
  // takes runs of `run` consecutive iterations (16 or 32 bytes of its widest array: one or two
  // 16-byte loads) in a grid-stride loop over the runs, then the last n % run iterations one per
  // thread.
  // Iterations are independent, so only the order of a thread's accumulation changes; it stays
  // fixed for a launch shape.
  Stmt runs_per_thread(const ParallelFor *n, int64_t run) {
    const Var &v = n->vars[0];
    const Expr &extent = n->extents[0];
    Var r = make_var(v->name + "_run", ScalarType::I64);
    Var k = make_var(v->name + "_in_run", ScalarType::I64);
    Expr first = first_index(0), stride = grid_stride(0);
    Expr runs = div(extent, i64(run));
    // The inner loop counts 0..run (a constant trip count LLVM unrolls whole) and sets v.
    Expr index = add(mul(var_ref(r), i64(run)), var_ref(k));
    Stmt in_run = Block::make({Declare::make(v, index), n->body});
    Stmt each = For::make(k, i64(0), i64(run), i64(1), in_run);
    if (std::optional<AssertedOpening> opening = asserted_opening(n->body)) {
      // A body guarded by an assertion: the run checks its iterations' conditions first and,
      // when all hold (the rule), runs the bodies without the branch, so that their neighbouring
      // loads and stores still merge into vector accesses; else the bodies as they are, which
      // record the failures. Each copy declares variables of its own.
      Var all = make_var("all_hold", ScalarType::Bool);
      std::vector<Stmt> check = {Declare::make(v, index)};
      check.insert(check.end(), opening->prefix.begin(), opening->prefix.end());
      check.push_back(
          Assign::make(all, Binary::make(BinaryOp::And, var_ref(all), var_ref(opening->ok))));
      std::vector<Stmt> fast = {Declare::make(v, index)};
      fast.insert(fast.end(), opening->prefix.begin(), opening->prefix.end() - 1);
      fast.push_back(opening->rest);
      auto copy = [](std::vector<Stmt> stmts) {
        RenameVars rename;
        rename.fresh_locals = true;
        return rename.mutate(Block::make(std::move(stmts)));
      };
      each = Block::make(
          {Declare::make(all, BoolConst::make(true)),
           For::make(k, i64(0), i64(run), i64(1), copy(std::move(check))),
           IfThenElse::make(var_ref(all),
                            For::make(k, i64(0), i64(run), i64(1), copy(std::move(fast))), each)});
    }
    Stmt whole = For::make(r, first, runs, stride, each);
    Stmt rest = For::make(v, add(mul(runs, i64(run)), first), extent, stride, n->body);
    return Block::make({whole, rest});
  }

  const std::vector<Param> &params_;
  Target target_;
  Var chunk_begin_, chunk_end_;
  bool reduces_, covering_;
  const LoopHints &runs_;
};

} // namespace

Task map_parallel_loops(const Task &task, const std::vector<Param> &params, Target target,
                        bool covering, const LoopHints &runs) {
  if (task.kind != TaskKind::Parallel)
    return task;
  Task out = task;
  if (target == Target::CPU) {
    out.chunk_begin = make_var("chunk_begin", ScalarType::I64);
    out.chunk_end = make_var("chunk_end", ScalarType::I64);
  }
  MapParallelLoops map(params, target, out.chunk_begin, out.chunk_end, !task.reductions.empty(),
                       covering, runs);
  out.body = map.mutate(task.body);
  out.run = map.run;
  out.covering = map.covered;
  return out;
}

} // namespace loom::ir
