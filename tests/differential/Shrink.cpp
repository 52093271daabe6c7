#include "differential/Shrink.h"

#include "ir/Mutator.h"

#include <algorithm>

namespace loom::difftest {

using namespace loom::ir;

namespace {

// A complex constant is complex(value, 0), as the generator writes complex constants.
Expr constant(ScalarType t, int value) {
  if (t == ScalarType::Bool)
    return BoolConst::make(value != 0);
  if (is_int(t))
    return IntConst::make(t, value);
  if (is_complex(t))
    return Call::make(MathFn::Complex,
                      {FloatConst::make(part_type(t), value), FloatConst::make(part_type(t), 0)});
  return FloatConst::make(t, value);
}

bool is_constant(const Expr &e) {
  if (auto *c = e.as<Call>(); c && c->fn == MathFn::Complex)
    return is_constant(c->args[0]) && is_constant(c->args[1]);
  return e.as<IntConst>() || e.as<FloatConst>() || e.as<BoolConst>();
}

std::vector<Expr> same_typed_operands(const Expr &e) {
  std::vector<Expr> out;
  auto add = [&](const Expr &c) {
    if (c.defined() && c.type() == e.type())
      out.push_back(c);
  };
  if (auto *n = e.as<Unary>())
    add(n->a);
  else if (auto *n = e.as<Binary>())
    add(n->a), add(n->b);
  else if (auto *n = e.as<Select>())
    add(n->a), add(n->b);
  else if (auto *n = e.as<Call>())
    for (const Expr &a : n->args)
      add(a);
  return out;
}

// Replaces uses of a variable by an expression.
class Substitute : public Mutator {
public:
  Substitute(Var v, Expr e) : var_(std::move(v)), value_(std::move(e)) {}

protected:
  Expr mutate_node(const VarRef *n, const Expr &self) override {
    return n->var == var_ ? value_ : self;
  }

private:
  Var var_;
  Expr value_;
};

// Applies the reduction numbered `target` (in a fixed traversal order) and nothing else.
class Reducer : public Mutator {
public:
  explicit Reducer(int target) : target_(target) {}
  bool applied() const { return done_; }

  Expr mutate(const Expr &e) override {
    if (done_ || !e.defined())
      return e;
    if (!is_constant(e)) {
      if (site())
        return constant(e.type(), 0);
      if (site())
        return constant(e.type(), 1);
    }
    for (const Expr &operand : same_typed_operands(e))
      if (site())
        return operand;
    return Mutator::mutate(e);
  }

  Stmt mutate(const Stmt &s) override { return done_ ? s : Mutator::mutate(s); }

protected:
  Stmt mutate_node(const Block *n, const Stmt &self) override {
    for (size_t k = 0; k < n->stmts.size(); ++k)
      if (site()) {
        std::vector<Stmt> rest = n->stmts;
        rest.erase(rest.begin() + k);
        return Block::make(std::move(rest));
      }
    return Mutator::mutate_node(n, self);
  }

  Stmt mutate_node(const IfThenElse *n, const Stmt &self) override {
    if (site())
      return n->then_case.defined() ? n->then_case : Block::make({});
    if (n->else_case.defined()) {
      if (site())
        return n->else_case;
      if (site())
        return IfThenElse::make(n->cond, n->then_case);
    }
    return Mutator::mutate_node(n, self);
  }

  Stmt mutate_node(const ParallelFor *n, const Stmt &self) override {
    for (size_t k = 0; k < n->extents.size(); ++k) {
      auto *c = n->extents[k].as<IntConst>();
      if ((!c || c->value != 1) && site()) {
        std::vector<Expr> extents = n->extents;
        extents[k] = IntConst::make(ScalarType::I64, 1);
        return ParallelFor::make(n->vars, extents, n->body);
      }
    }
    return Mutator::mutate_node(n, self);
  }

  Stmt mutate_node(const For *n, const Stmt &self) override {
    if (site()) // one iteration, inline: the index becomes its first value
      return Substitute(n->var, n->begin).mutate(n->body);
    return Mutator::mutate_node(n, self);
  }

  Stmt mutate_node(const While *n, const Stmt &self) override {
    if (site())
      return n->body;
    return Mutator::mutate_node(n, self);
  }

private:
  bool site() {
    if (done_)
      return false;
    if (count_++ == target_)
      done_ = true;
    return done_;
  }

  int target_;
  int count_ = 0;
  bool done_ = false;
};

class NodeCount : public Visitor {
public:
  int count = 0;
  void visit(const Expr &e) override {
    count += e.defined();
    Visitor::visit(e);
  }
  void visit(const Stmt &s) override {
    count += s.defined() && s.kind() != StmtKind::Block;
    Visitor::visit(s);
  }
};

} // namespace

int program_size(const Program &program) {
  NodeCount n;
  n.visit(program.kernel.body);
  return n.count;
}

Program shrink_while(const Program &program,
                     const std::function<bool(const Program &)> &still_fails, int max_tries,
                     int *tried, int *kept) {
  Program current = program;
  int target = 0, runs = 0, reductions = 0;
  bool progress = false;
  while (runs < max_tries) {
    Reducer reducer(target);
    Stmt body = reducer.mutate(current.kernel.body);
    if (!reducer.applied()) {
      if (!progress)
        break; // a full pass without a kept reduction: done
      target = 0;
      progress = false;
      continue;
    }
    Program candidate = current;
    candidate.kernel.body = body;
    runs++;
    if (still_fails(candidate)) {
      current = std::move(candidate);
      reductions++;
      progress = true; // the same number now names the next reduction
    } else {
      target++;
    }
  }
  if (tried)
    *tried = runs;
  if (kept)
    *kept = reductions;
  return current;
}

ShrinkResult shrink(const Program &program, const Failure &failure, const CheckOptions &options,
                    int max_tries) {
  ShrinkResult r{program, failure};
  CheckOptions o = options;
  o.only = {failure.check};
  // A candidate whose loop no longer ends should fail fast, not run to the default limit.
  Verdict first = check_program(program, o);
  o.step_limit = std::min<uint64_t>(options.step_limit, first.steps * 4 + 100000);
  auto still_fails = [&](const Program &candidate) {
    Verdict v = check_program(candidate, o);
    auto same = std::find_if(v.failures.begin(), v.failures.end(), [&](const Failure &f) {
      return f.check == failure.check && f.kind == failure.kind;
    });
    if (!v.invalid.empty() || same == v.failures.end())
      return false;
    r.failure = *same;
    return true;
  };
  r.program = shrink_while(program, still_fails, max_tries, &r.tried, &r.kept);
  // The views the failure does not need, passed dense instead (the others keep their layouts).
  for (size_t p = 0; p < r.program.views.size() && r.tried < max_tries; ++p) {
    if (!r.program.views[p].strided())
      continue;
    Program candidate = r.program;
    candidate.views[p] = ViewLayout{};
    if (std::none_of(candidate.views.begin(), candidate.views.end(),
                     [](const ViewLayout &v) { return v.strided(); }))
      candidate.views.clear();
    ++r.tried;
    if (still_fails(candidate)) {
      r.program = std::move(candidate);
      ++r.kept;
      p = static_cast<size_t>(-1); // from the first again (the views may have been cleared)
    }
  }
  return r;
}

} // namespace loom::difftest
