// Base classes for passes: a read-only visitor and a rebuilding mutator.
//
// The mutator returns the original node when none of its children changed, so passes that touch
// little allocate little and `same_as` tells whether anything happened.
#pragma once

#include "ir/IR.h"

#include <map>

namespace loom::ir {

class Visitor {
public:
  virtual ~Visitor() = default;
  virtual void visit(const Expr &e);
  virtual void visit(const Stmt &s);

protected:
#define LOOM_X(name) virtual void visit_node(const name *);
  LOOM_EXPR_NODES(LOOM_X)
  LOOM_STMT_NODES(LOOM_X)
#undef LOOM_X
};

namespace detail {
template <class... Nodes> struct Finds : Visitor {
  using Visitor::visit_node;
  bool found = false;
};
template <class N, class... Rest> struct Finds<N, Rest...> : Finds<Rest...> {
  using Finds<Rest...>::visit_node;
  void visit_node(const N *) override { this->found = true; }
};
} // namespace detail

// Whether `s` holds a node of any of the kinds Nodes, statements or expressions:
// contains<For, While>(body) for a loop.
template <class... Nodes> bool contains(const Stmt &s) {
  detail::Finds<Nodes...> finder;
  finder.visit(s);
  return finder.found;
}

class Mutator {
public:
  virtual ~Mutator() = default;
  virtual Expr mutate(const Expr &e);
  virtual Stmt mutate(const Stmt &s);

protected:
#define LOOM_X(name) virtual Expr mutate_node(const name *, const Expr &self);
  LOOM_EXPR_NODES(LOOM_X)
#undef LOOM_X
#define LOOM_X(name) virtual Stmt mutate_node(const name *, const Stmt &self);
  LOOM_STMT_NODES(LOOM_X)
#undef LOOM_X
  std::vector<Expr> mutate_all(const std::vector<Expr> &es, bool &changed);
};

// Puts expressions in place of variables: every reference to a variable of `to` becomes its
// expression (itself substituted). Assignments are left alone: the variables replaced are those
// nothing assigns (a local's definition, a loop variable's value in another loop).
class SubstituteVars : public Mutator {
public:
  std::map<const Variable *, Expr> to;

  SubstituteVars() = default;
  explicit SubstituteVars(std::map<const Variable *, Expr> values) : to(std::move(values)) {}

protected:
  Expr mutate_node(const VarRef *n, const Expr &self) override;
};

// Puts other variables in place of some: every reference to, assignment to and atomic result in a
// variable of `to` names its replacement instead. With `fresh_locals`, every variable the code
// declares (Declare, a loop's) becomes a new one of the same name and type, added to `to`, so that
// copies of one body can stand side by side.
class RenameVars : public Mutator {
public:
  std::map<const Variable *, Var> to;
  bool fresh_locals = false;

protected:
  Expr mutate_node(const VarRef *n, const Expr &self) override;
  Stmt mutate_node(const Assign *n, const Stmt &self) override;
  Stmt mutate_node(const Atomic *n, const Stmt &self) override;
  Stmt mutate_node(const Mma *n, const Stmt &self) override;
  Stmt mutate_node(const WarpgroupMma *n, const Stmt &self) override;
  Stmt mutate_node(const Declare *n, const Stmt &self) override;
  Stmt mutate_node(const For *n, const Stmt &self) override;

private:
  Var fresh(const Var &v); // with fresh_locals: v's new variable, else v
};

} // namespace loom::ir
