// lower_asserts: what a failed assertion does to the code after it, and where it fails.
//
// A failed assertion (ir::Assert) ends its parallel iteration: the statements after it in the
// iteration's body do not run, so that code guarded by the assertion (`assert i < n` before
// `x[i]`) never runs with the condition false. The pass makes that explicit with ifs:
//
//   assert c              ok = c; assert ok
//   rest                  if ok: rest
//
// and, for an assertion inside an if or a sequential loop of the iteration, a flag that the rest
// of the iteration tests (`alive`): set false by a failure, it skips the remaining statements of
// every enclosing block, the remaining trips of every enclosing loop, and the statements after
// them. Outside parallel loops (a kernel's serial code) and in SIMT kernels, a failed assertion
// is recorded and execution carries on: a SIMT thread that stopped would leave its block's
// barriers waiting. The code is the same on every backend; only recording differs.
//
// A SIMT kernel's assertions name the thread that failed: its block and thread indices. With
// assertions off (Kernel::asserts), they go, conditions and all.
#include "ir/Mutator.h"
#include "ir/Passes.h"

namespace loom::ir {

namespace {

bool has_assert(const Stmt &s) {
  return contains<Assert>(s);
}

class DropAsserts : public Mutator {
protected:
  Stmt mutate_node(const Assert *, const Stmt &) override { return Block::make({}); }
};

class SimtIndices : public Mutator {
protected:
  Stmt mutate_node(const Assert *n, const Stmt &) override {
    std::vector<Expr> at;
    for (Reg r : {Reg::BlockIdx, Reg::ThreadIdx})
      for (int d = 0; d < 3; ++d)
        at.push_back(SpecialReg::make(r, d));
    return Assert::make(n->cond, n->site, std::move(at));
  }
};

// One parallel iteration's body, its assertions ending it.
class Iteration {
public:
  Stmt run(const Stmt &body) {
    Stmt out = guard(body, true).stmt;
    if (!alive_)
      return out;
    return Block::make({Declare::make(alive_, BoolConst::make(true)), out});
  }

private:
  struct Guarded {
    Stmt stmt;
    bool may_fail; // the statement may end the iteration: what follows tests `alive`
  };

  Var alive() {
    if (!alive_)
      alive_ = make_var("alive", ScalarType::Bool);
    return alive_;
  }

  // `top`: the statement is the iteration's body itself, so a failure needs no flag.
  Guarded guard(const Stmt &s, bool top) {
    if (!s.defined() || !has_assert(s))
      return {s, false};
    switch (s.kind()) {
    case StmtKind::Block:
      return sequence(s.as<Block>()->stmts, 0, top);
    case StmtKind::Assert:
      return sequence({s}, 0, top);
    case StmtKind::IfThenElse: {
      auto *n = s.as<IfThenElse>();
      Guarded t = guard(n->then_case, false), e = guard(n->else_case, false);
      return {IfThenElse::make(n->cond, t.stmt, e.stmt), t.may_fail || e.may_fail};
    }
    case StmtKind::For: {
      auto *n = s.as<For>();
      Guarded b = guard(n->body, false);
      return {For::make(n->var, n->begin, n->end, n->step,
                        IfThenElse::make(VarRef::make(alive()), b.stmt)),
              true};
    }
    case StmtKind::While: {
      auto *n = s.as<While>();
      Guarded b = guard(n->body, false);
      return {While::make(Binary::make(BinaryOp::And, VarRef::make(alive()), n->cond), b.stmt),
              true};
    }
    case StmtKind::ParallelFor: { // an iteration of its own
      auto *n = s.as<ParallelFor>();
      return {ParallelFor::make(n->vars, n->extents, Iteration().run(n->body)), false};
    }
    default:
      return {s, false};
    }
  }

  // stmts[from...], a failure in one skipping the ones after it.
  Guarded sequence(const std::vector<Stmt> &stmts, size_t from, bool top) {
    std::vector<Stmt> out;
    for (size_t k = from; k < stmts.size(); ++k) {
      const Stmt &s = stmts[k];
      if (auto *a = s.as<Assert>()) {
        Var ok = make_var("ok", ScalarType::Bool);
        out.push_back(Declare::make(ok, a->cond));
        out.push_back(Assert::make(VarRef::make(ok), a->site, a->indices));
        if (!top)
          out.push_back(IfThenElse::make(Unary::make(UnaryOp::Not, VarRef::make(ok)),
                                         Assign::make(alive(), BoolConst::make(false))));
        Guarded rest = sequence(stmts, k + 1, top);
        if (rest.stmt.defined())
          out.push_back(IfThenElse::make(VarRef::make(ok), rest.stmt));
        return {Block::make(std::move(out)), true};
      }
      Guarded g = guard(s, false);
      out.push_back(g.stmt);
      if (g.may_fail) {
        Guarded rest = sequence(stmts, k + 1, top);
        if (rest.stmt.defined())
          out.push_back(IfThenElse::make(VarRef::make(alive()), rest.stmt));
        return {Block::make(std::move(out)), true};
      }
    }
    if (out.empty())
      return {Stmt(), false};
    return {Block::make(std::move(out)), false};
  }

  Var alive_;
};

// Each parallel loop's iterations, outside them nothing.
class Iterations : public Mutator {
protected:
  Stmt mutate_node(const ParallelFor *n, const Stmt &self) override {
    if (!has_assert(n->body))
      return self;
    return ParallelFor::make(n->vars, n->extents, Iteration().run(n->body));
  }
};

} // namespace

Kernel lower_asserts(const Kernel &kernel) {
  if (kernel.assert_sites.empty() || !has_assert(kernel.body)) {
    if (kernel.assert_sites.empty())
      return kernel;
    Kernel out = kernel;
    out.assert_sites.clear();
    return out;
  }
  Kernel out = kernel;
  if (!kernel.asserts) {
    out.body = DropAsserts().mutate(kernel.body);
    out.assert_sites.clear();
    return out;
  }
  if (kernel.simt()) {
    out.body = SimtIndices().mutate(kernel.body);
    for (AssertSite &site : out.assert_sites)
      site.index_names = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z",
                          "threadIdx.x", "threadIdx.y", "threadIdx.z"};
    return out;
  }
  out.body = Iterations().mutate(kernel.body);
  return out;
}

} // namespace loom::ir
