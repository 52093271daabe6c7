#include "ir/Mutator.h"

namespace loom::ir {

void Visitor::visit(const Expr &e) {
  if (!e.defined())
    return;
  switch (e.kind()) {
#define LOOM_X(name)                                                                               \
  case ExprKind::name:                                                                             \
    return visit_node(static_cast<const name *>(e.get()));
    LOOM_EXPR_NODES(LOOM_X)
#undef LOOM_X
  }
}

void Visitor::visit(const Stmt &s) {
  if (!s.defined())
    return;
  switch (s.kind()) {
#define LOOM_X(name)                                                                               \
  case StmtKind::name:                                                                             \
    return visit_node(static_cast<const name *>(s.get()));
    LOOM_STMT_NODES(LOOM_X)
#undef LOOM_X
  }
}

void Visitor::visit_node(const IntConst *) {}
void Visitor::visit_node(const FloatConst *) {}
void Visitor::visit_node(const BoolConst *) {}
void Visitor::visit_node(const VarRef *) {}
void Visitor::visit_node(const ArrayExtent *) {}
void Visitor::visit_node(const SpecialReg *) {}
void Visitor::visit_node(const SharedExtent *) {}
void Visitor::visit_node(const SharedLoad *n) {
  for (const Expr &i : n->indices)
    visit(i);
}
void Visitor::visit_node(const WarpOp *n) {
  visit(n->value);
  visit(n->operand);
}
void Visitor::visit_node(const SharedStore *n) {
  for (const Expr &i : n->indices)
    visit(i);
  visit(n->value);
}
void Visitor::visit_node(const Barrier *) {}
void Visitor::visit_node(const AsyncCopy *n) {
  for (const Expr &i : n->dst_index)
    visit(i);
  for (const Expr &i : n->src_index)
    visit(i);
  if (n->valid.defined())
    visit(n->valid);
}
void Visitor::visit_node(const AsyncWait *) {}
void Visitor::visit_node(const WarpgroupMma *n) {
  for (const WarpgroupMma::Product &p : n->products) {
    visit(p.a_offset);
    visit(p.b_offset);
  }
}
void Visitor::visit_node(const Mbarrier *n) {
  visit(n->index);
  if (n->value.defined())
    visit(n->value);
}
void Visitor::visit_node(const Assume *n) {
  visit(n->cond);
}
void Visitor::visit_node(const Mma *n) {
  for (const Expr &i : n->a_origin)
    visit(i);
  for (const Expr &i : n->b_origin)
    visit(i);
}
void Visitor::visit_node(const Print *n) {
  for (const PrintItem &item : n->items) {
    visit(item.value);
    visit(item.imag);
  }
}
void Visitor::visit_node(const Assert *n) {
  visit(n->cond);
  for (const Expr &i : n->indices)
    visit(i);
}
void Visitor::visit_node(const Atomic *n) {
  for (const Expr &i : n->indices)
    visit(i);
  visit(n->value);
  visit(n->compare);
}
void Visitor::visit_node(const Load *n) {
  for (const Expr &i : n->indices)
    visit(i);
}
void Visitor::visit_node(const Unary *n) {
  visit(n->a);
}
void Visitor::visit_node(const Binary *n) {
  visit(n->a);
  visit(n->b);
}
void Visitor::visit_node(const Select *n) {
  visit(n->cond);
  visit(n->a);
  visit(n->b);
}
void Visitor::visit_node(const Cast *n) {
  visit(n->a);
}
void Visitor::visit_node(const Call *n) {
  for (const Expr &a : n->args)
    visit(a);
}
void Visitor::visit_node(const Block *n) {
  for (const Stmt &s : n->stmts)
    visit(s);
}
void Visitor::visit_node(const Declare *n) {
  visit(n->init);
}
void Visitor::visit_node(const Assign *n) {
  visit(n->value);
}
void Visitor::visit_node(const Store *n) {
  for (const Expr &i : n->indices)
    visit(i);
  visit(n->value);
}
void Visitor::visit_node(const Reduce *n) {
  for (const Expr &i : n->indices)
    visit(i);
  visit(n->value);
}
void Visitor::visit_node(const IfThenElse *n) {
  visit(n->cond);
  visit(n->then_case);
  visit(n->else_case);
}
void Visitor::visit_node(const For *n) {
  visit(n->begin);
  visit(n->end);
  visit(n->step);
  visit(n->body);
}
void Visitor::visit_node(const While *n) {
  visit(n->cond);
  visit(n->body);
}
void Visitor::visit_node(const ParallelFor *n) {
  for (const Expr &e : n->extents)
    visit(e);
  visit(n->body);
}

Expr Mutator::mutate(const Expr &e) {
  if (!e.defined())
    return e;
  switch (e.kind()) {
#define LOOM_X(name)                                                                               \
  case ExprKind::name:                                                                             \
    return mutate_node(static_cast<const name *>(e.get()), e);
    LOOM_EXPR_NODES(LOOM_X)
#undef LOOM_X
  }
  return e;
}

Stmt Mutator::mutate(const Stmt &s) {
  if (!s.defined())
    return s;
  switch (s.kind()) {
#define LOOM_X(name)                                                                               \
  case StmtKind::name:                                                                             \
    return mutate_node(static_cast<const name *>(s.get()), s);
    LOOM_STMT_NODES(LOOM_X)
#undef LOOM_X
  }
  return s;
}

std::vector<Expr> Mutator::mutate_all(const std::vector<Expr> &es, bool &changed) {
  std::vector<Expr> out;
  out.reserve(es.size());
  for (const Expr &e : es) {
    out.push_back(mutate(e));
    changed |= !out.back().same_as(e);
  }
  return out;
}

Expr Mutator::mutate_node(const IntConst *, const Expr &self) {
  return self;
}
Expr Mutator::mutate_node(const FloatConst *, const Expr &self) {
  return self;
}
Expr Mutator::mutate_node(const BoolConst *, const Expr &self) {
  return self;
}
Expr Mutator::mutate_node(const VarRef *, const Expr &self) {
  return self;
}
Expr Mutator::mutate_node(const ArrayExtent *, const Expr &self) {
  return self;
}
Expr Mutator::mutate_node(const SpecialReg *, const Expr &self) {
  return self;
}
Expr Mutator::mutate_node(const SharedExtent *, const Expr &self) {
  return self;
}
Expr Mutator::mutate_node(const SharedLoad *n, const Expr &self) {
  bool changed = false;
  auto idx = mutate_all(n->indices, changed);
  return changed ? SharedLoad::make(n->array, std::move(idx)) : self;
}
Expr Mutator::mutate_node(const WarpOp *n, const Expr &self) {
  Expr v = mutate(n->value), x = mutate(n->operand);
  return v.same_as(n->value) && x.same_as(n->operand) ? self : WarpOp::make(n->op, v, x);
}
Stmt Mutator::mutate_node(const SharedStore *n, const Stmt &self) {
  bool changed = false;
  auto idx = mutate_all(n->indices, changed);
  Expr v = mutate(n->value);
  return changed || !v.same_as(n->value) ? SharedStore::make(n->array, std::move(idx), v) : self;
}
Stmt Mutator::mutate_node(const Barrier *, const Stmt &self) {
  return self;
}
Stmt Mutator::mutate_node(const AsyncCopy *n, const Stmt &self) {
  bool changed = false;
  auto d = mutate_all(n->dst_index, changed);
  auto src = mutate_all(n->src_index, changed);
  Expr valid = n->valid.defined() ? mutate(n->valid) : Expr();
  changed = changed || !valid.same_as(n->valid);
  return changed ? AsyncCopy::make(n->dst, std::move(d), n->array, n->dst->type, std::move(src),
                                   int(n->count * byte_size(n->dst->type)), valid)
                 : self;
}
Stmt Mutator::mutate_node(const AsyncWait *, const Stmt &self) {
  return self;
}
Stmt Mutator::mutate_node(const WarpgroupMma *n, const Stmt &self) {
  bool changed = false;
  std::vector<WarpgroupMma::Product> products = n->products;
  for (WarpgroupMma::Product &p : products) {
    Expr a = mutate(p.a_offset), b = mutate(p.b_offset);
    changed = changed || !a.same_as(p.a_offset) || !b.same_as(p.b_offset);
    p.a_offset = a, p.b_offset = b;
  }
  return changed ? WarpgroupMma::make(n->smem, n->n, n->k_steps, n->a, n->b, std::move(products),
                                      n->pending)
                 : self;
}
Stmt Mutator::mutate_node(const Mbarrier *n, const Stmt &self) {
  Expr index = mutate(n->index);
  Expr value = n->value.defined() ? mutate(n->value) : Expr();
  return index.same_as(n->index) && value.same_as(n->value)
             ? self
             : Mbarrier::make(n->op, n->barriers, std::move(index), std::move(value));
}
Stmt Mutator::mutate_node(const Assume *n, const Stmt &self) {
  Expr c = mutate(n->cond);
  return c.same_as(n->cond) ? self : Assume::make(c);
}
Stmt Mutator::mutate_node(const Mma *n, const Stmt &self) {
  bool changed = false;
  auto a = mutate_all(n->a_origin, changed);
  auto b = mutate_all(n->b_origin, changed);
  return changed
             ? Mma::make(n->a, std::move(a), n->a_k_last, n->b, std::move(b), n->b_k_last, n->acc)
             : self;
}
Stmt Mutator::mutate_node(const Print *n, const Stmt &self) {
  bool changed = false;
  std::vector<PrintItem> items = n->items;
  for (PrintItem &item : items) {
    // Undefined for text (a mutator's own mutate(Expr) need not take undefined ones).
    Expr v = item.value.defined() ? mutate(item.value) : item.value;
    Expr im = item.imag.defined() ? mutate(item.imag) : item.imag;
    changed |= !v.same_as(item.value) || !im.same_as(item.imag);
    item.value = v, item.imag = im;
  }
  return changed ? Print::make(std::move(items)) : self;
}
Stmt Mutator::mutate_node(const Assert *n, const Stmt &self) {
  bool changed = false;
  Expr c = mutate(n->cond);
  auto idx = mutate_all(n->indices, changed);
  return changed || !c.same_as(n->cond) ? Assert::make(c, n->site, std::move(idx)) : self;
}
Stmt Mutator::mutate_node(const Atomic *n, const Stmt &self) {
  bool changed = false;
  auto idx = mutate_all(n->indices, changed);
  Expr v = mutate(n->value), c = mutate(n->compare);
  if (!changed && v.same_as(n->value) && c.same_as(n->compare))
    return self;
  return Atomic::make(n->op, n->array, n->shared, v.type(), std::move(idx), v, c, n->result);
}
Expr Mutator::mutate_node(const Load *n, const Expr &self) {
  bool changed = false;
  auto idx = mutate_all(n->indices, changed);
  return changed ? Load::make(n->type, n->array, std::move(idx)) : self;
}
Expr Mutator::mutate_node(const Unary *n, const Expr &self) {
  Expr a = mutate(n->a);
  return a.same_as(n->a) ? self : Unary::make(n->op, a);
}
Expr Mutator::mutate_node(const Binary *n, const Expr &self) {
  Expr a = mutate(n->a), b = mutate(n->b);
  return a.same_as(n->a) && b.same_as(n->b) ? self : Binary::make(n->op, a, b);
}
Expr Mutator::mutate_node(const Select *n, const Expr &self) {
  Expr c = mutate(n->cond), a = mutate(n->a), b = mutate(n->b);
  return c.same_as(n->cond) && a.same_as(n->a) && b.same_as(n->b) ? self : Select::make(c, a, b);
}
Expr Mutator::mutate_node(const Cast *n, const Expr &self) {
  Expr a = mutate(n->a);
  return a.same_as(n->a) ? self : Cast::make(n->type, a);
}
Expr Mutator::mutate_node(const Call *n, const Expr &self) {
  bool changed = false;
  auto args = mutate_all(n->args, changed);
  return changed ? Call::make(n->fn, std::move(args)) : self;
}

Stmt Mutator::mutate_node(const Block *n, const Stmt &self) {
  bool changed = false;
  std::vector<Stmt> out;
  out.reserve(n->stmts.size());
  for (const Stmt &s : n->stmts) {
    out.push_back(mutate(s));
    changed |= !out.back().same_as(s);
  }
  return changed ? Block::make(std::move(out)) : self;
}
Stmt Mutator::mutate_node(const Declare *n, const Stmt &self) {
  Expr e = mutate(n->init);
  return e.same_as(n->init) ? self : Declare::make(n->var, e);
}
Stmt Mutator::mutate_node(const Assign *n, const Stmt &self) {
  Expr e = mutate(n->value);
  return e.same_as(n->value) ? self : Assign::make(n->var, e);
}
Stmt Mutator::mutate_node(const Store *n, const Stmt &self) {
  bool changed = false;
  auto idx = mutate_all(n->indices, changed);
  Expr v = mutate(n->value);
  return changed || !v.same_as(n->value) ? Store::make(n->array, std::move(idx), v) : self;
}
Stmt Mutator::mutate_node(const Reduce *n, const Stmt &self) {
  bool changed = false;
  auto idx = mutate_all(n->indices, changed);
  Expr v = mutate(n->value);
  return changed || !v.same_as(n->value) ? Reduce::make(n->op, n->array, std::move(idx), v) : self;
}
Stmt Mutator::mutate_node(const IfThenElse *n, const Stmt &self) {
  Expr c = mutate(n->cond);
  Stmt t = mutate(n->then_case), e = mutate(n->else_case);
  return c.same_as(n->cond) && t.same_as(n->then_case) && e.same_as(n->else_case)
             ? self
             : IfThenElse::make(c, t, e);
}
Stmt Mutator::mutate_node(const For *n, const Stmt &self) {
  Expr b = mutate(n->begin), e = mutate(n->end), st = mutate(n->step);
  Stmt body = mutate(n->body);
  return b.same_as(n->begin) && e.same_as(n->end) && st.same_as(n->step) && body.same_as(n->body)
             ? self
             : For::make(n->var, b, e, st, body);
}
Stmt Mutator::mutate_node(const While *n, const Stmt &self) {
  Expr c = mutate(n->cond);
  Stmt body = mutate(n->body);
  return c.same_as(n->cond) && body.same_as(n->body) ? self : While::make(c, body);
}
Stmt Mutator::mutate_node(const ParallelFor *n, const Stmt &self) {
  bool changed = false;
  auto ext = mutate_all(n->extents, changed);
  Stmt body = mutate(n->body);
  return changed || !body.same_as(n->body) ? ParallelFor::make(n->vars, std::move(ext), body)
                                           : self;
}

Var RenameVars::fresh(const Var &v) {
  if (!fresh_locals)
    return v;
  Var renamed = make_var(v->name, v->type);
  to[v.get()] = renamed;
  return renamed;
}
Expr SubstituteVars::mutate_node(const VarRef *n, const Expr &self) {
  auto it = to.find(n->var.get());
  return it == to.end() ? self : mutate(it->second);
}

Expr RenameVars::mutate_node(const VarRef *n, const Expr &self) {
  auto it = to.find(n->var.get());
  return it == to.end() ? self : VarRef::make(it->second);
}
Stmt RenameVars::mutate_node(const Assign *n, const Stmt &self) {
  Expr value = mutate(n->value);
  auto it = to.find(n->var.get());
  if (it != to.end())
    return Assign::make(it->second, value);
  return value.same_as(n->value) ? self : Assign::make(n->var, value);
}
Stmt RenameVars::mutate_node(const Atomic *n, const Stmt &self) {
  Stmt s = Mutator::mutate_node(n, self);
  auto it = n->result ? to.find(n->result.get()) : to.end();
  if (it == to.end())
    return s;
  auto *a = s.as<Atomic>();
  return Stmt(std::make_shared<Atomic>(a->op, a->array, a->shared, a->indices, a->value, a->compare,
                                       it->second));
}
Stmt RenameVars::mutate_node(const Mma *n, const Stmt &self) {
  Stmt s = Mutator::mutate_node(n, self);
  auto *m = s.as<Mma>();
  std::array<Var, 4> acc = m->acc;
  bool renamed = false;
  for (Var &v : acc)
    if (auto it = to.find(v.get()); it != to.end())
      v = it->second, renamed = true;
  return renamed ? Mma::make(m->a, m->a_origin, m->a_k_last, m->b, m->b_origin, m->b_k_last, acc)
                 : s;
}
Stmt RenameVars::mutate_node(const WarpgroupMma *n, const Stmt &self) {
  Stmt s = Mutator::mutate_node(n, self);
  auto *m = s.as<WarpgroupMma>();
  std::vector<WarpgroupMma::Product> products = m->products;
  bool renamed = false;
  for (WarpgroupMma::Product &p : products)
    for (Var &v : p.acc)
      if (auto it = to.find(v.get()); it != to.end())
        v = it->second, renamed = true;
  return renamed ? WarpgroupMma::make(m->smem, m->n, m->k_steps, m->a, m->b, std::move(products),
                                      m->pending)
                 : s;
}
Stmt RenameVars::mutate_node(const Declare *n, const Stmt &self) {
  Expr init = mutate(n->init);
  Var v = fresh(n->var);
  return v == n->var && init.same_as(n->init) ? self : Declare::make(v, init);
}
Stmt RenameVars::mutate_node(const For *n, const Stmt &self) {
  Expr b = mutate(n->begin), e = mutate(n->end), step = mutate(n->step);
  Var v = fresh(n->var);
  Stmt body = mutate(n->body);
  if (v == n->var && b.same_as(n->begin) && e.same_as(n->end) && step.same_as(n->step) &&
      body.same_as(n->body))
    return self;
  return For::make(v, b, e, step, body);
}

} // namespace loom::ir
