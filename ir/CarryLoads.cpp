// GPU: a thread that walks the outermost dimension of a 3-D loop (one block along z,
// runtime/GridShape.cpp; that loop innermost, ir/MapParallelLoops.cpp) keeps in registers what
// one step loads and the next step loads again, as Rodinia's hotspot3D kernel keeps each column's
// bottom, centre and top:
//
//   for z in first .. Z step stride:          if stride == 1:
//     b = t[max(z - 1, 0), y, x]                 (b, c, u) = t[...] at z = first, if first < Z
//     c = t[z, y, x]                       =>    for z in first .. Z step 1:
//     u = t[min(z + 1, T - 1), y, x]               the body, reading b, c and u
//     ...                                          if z + 1 < Z: (b, c, u) = (c, u, t[min(z + 2, T
//     - 1), y, x])
//                                               else: the loop as it was
//
// The loads: of an array the task never stores, at the top level of the loop's body (so made in
// every step), whose indices name z in one dimension d only, the others the same in each load of
// the group and the same in every step. A load at f(z) takes, for the next step, the value of the
// group's load at g(z) where f(z + 1) = g(z) wherever the next step runs: z >= 0 there, and where
// a load of the group is at exactly [.., z, ..] (made in that step too, in bounds) z + 1 is at
// most the extent of d less 1; min and max whose order those facts settle are resolved
// (max(z, 0) is z, min(z + 1, T - 1) is z + 1). The others are loaded for the next step at the
// end of this one. Results are unchanged, bit for bit: every value is an element the loop loads
// in that step, of an array nothing stores while the task runs.
#include "ir/Build.h"
#include "ir/LinearForm.h"
#include "ir/Mutator.h"
#include "ir/Passes.h"
#include "ir/Printer.h"

#include <map>
#include <optional>
#include <set>
#include <vector>

namespace loom::ir {

namespace {

// Whether `e` names any variable of `vars`.
bool names_any(const Expr &e, const std::set<const Variable *> &vars) {
  struct Names : Visitor {
    const std::set<const Variable *> &vars;
    bool found = false;
    explicit Names(const std::set<const Variable *> &v) : vars(v) {}
    void visit_node(const VarRef *r) override { found = found || vars.count(r->var.get()); }
  } names(vars);
  names.visit(e);
  return names.found;
}

// What holds where the next step runs: z >= 0, and, with `bounded`, z + 1 <= extent - 1.
struct Facts {
  const Variable *z;
  Expr extent;
  bool bounded;

  // Whether d >= 0 follows.
  bool nonnegative(const Linear &d) const {
    if (!d.exact)
      return false;
    int64_t kz = 0, ke = 0;
    for (const auto &[atom, k] : d.terms) {
      if (k == 0)
        continue;
      if (is_var(atom, z))
        kz += k;
      else if (equal(atom, extent))
        ke += k;
      else
        return false;
    }
    if (ke == 0) // kz z + c with z >= 0
      return kz >= 0 && d.constant >= 0;
    // ke (extent - z) + c with extent - z >= 2
    return bounded && ke > 0 && kz == -ke && 2 * ke + d.constant >= 0;
  }

  // `e` with the min and max that the facts settle resolved.
  Expr resolve(const Expr &e) const {
    auto *b = e.as<Binary>();
    if (!b || (b->op != BinaryOp::Min && b->op != BinaryOp::Max))
      return e;
    Expr x = resolve(b->a), y = resolve(b->b);
    Linear d = linear(x);
    d.add(linear(y), -1); // x - y
    Linear minus = linear(y);
    minus.add(linear(x), -1); // y - x
    const bool x_larger = nonnegative(d), y_larger = nonnegative(minus);
    if (b->op == BinaryOp::Max)
      return x_larger ? x : y_larger ? y : Binary::make(BinaryOp::Max, x, y);
    return y_larger ? x : x_larger ? y : Binary::make(BinaryOp::Min, x, y);
  }
};

// One load the walk carries: its expression and, for the next step, the member of its group whose
// value it takes (-1: loaded again).
struct Carried {
  Expr load;
  int from = -1;
  Var value; // the current step's value
};

// The loads of a walk's body, replaced by the values carried.
class UseCarried : public Mutator {
public:
  explicit UseCarried(const std::vector<Carried> &carried) : carried_(carried) {}

protected:
  Expr mutate_node(const Load *l, const Expr &self) override {
    for (const Carried &c : carried_)
      if (equal(self, c.load))
        return var_ref(c.value);
    return Mutator::mutate_node(l, self);
  }

private:
  const std::vector<Carried> &carried_;
};

class CarryLoads : public Mutator {
public:
  CarryLoads(const std::set<int> &stored, const std::vector<Param> &params)
      : stored_(stored), params_(params) {}
  std::vector<std::string> lines; // Task::carried

protected:
  Stmt mutate_node(const For *f, const Stmt &self) override {
    if (!equal(f->step, mul(reg_i64(Reg::BlockDim, 2), reg_i64(Reg::GridDim, 2))))
      return Mutator::mutate_node(f, self);
    std::vector<Carried> carried = carried_loads(f);
    if (carried.empty())
      return self;
    std::string loads;
    size_t again = 0;
    for (const Carried &c : carried) {
      loads += (loads.empty() ? "" : ", ") + to_string(c.load, params_);
      again += c.from < 0;
    }
    lines.push_back("where the launch has one block along z, each thread walks '" + f->var->name +
                    "' keeping " + loads + " in registers, " + std::to_string(again) + " of " +
                    std::to_string(carried.size()) + " loaded a step");
    return walk(f, self, carried);
  }

private:
  // The loads of the loop's body the walk carries, in groups; empty when none takes another's
  // value.
  std::vector<Carried> carried_loads(const For *f) const {
    const Variable *z = f->var.get();
    std::set<const Variable *> varying = changed_vars(f->body);
    varying.insert(z);
    // A step that is not straight-line code has no walk to carry along.
    for (const Stmt &s : statements_of(f->body))
      if (s.as<For>() || s.as<While>() || s.as<ParallelFor>() || s.as<Barrier>())
        return {};
    // The top-level loads of arrays the task does not store, at indices that read no memory
    // (t[idx[z], y, x] may read what the step changes before it), one of each.
    const std::vector<Expr> loads = top_level_loads(f->body, [&](const Load *l) {
      if (stored_.count(l->array))
        return false;
      detail::Finds<Load, SharedLoad> reads;
      for (const Expr &i : l->indices)
        reads.visit(i);
      return !reads.found;
    });
    // Groups: the same array, z in the same one dimension, the other indices the same and the
    // same in every step.
    struct Member {
      Expr expr; // the load
      const Load *load;
      int dim;
    };
    std::vector<std::vector<Member>> groups;
    for (const Expr &e : loads) {
      const Load *l = e.as<Load>();
      int dim = -1;
      bool ok = true;
      for (size_t d = 0; d < l->indices.size(); ++d) {
        if (!names_any(l->indices[d], varying))
          continue;
        std::set<const Variable *> others = varying;
        others.erase(z);
        if (dim >= 0 || names_any(l->indices[d], others))
          ok = false;
        dim = static_cast<int>(d);
      }
      if (!ok || dim < 0)
        continue;
      bool placed = false;
      for (std::vector<Member> &g : groups) {
        const Load *o = g[0].load;
        bool same = o->array == l->array && g[0].dim == dim;
        for (size_t d = 0; same && d < l->indices.size(); ++d)
          same = static_cast<int>(d) == dim || equal(o->indices[d], l->indices[d]);
        if (same) {
          g.push_back({e, l, dim});
          placed = true;
          break;
        }
      }
      if (!placed)
        groups.push_back({{e, l, dim}});
    }
    std::vector<Carried> out;
    for (const std::vector<Member> &g : groups) {
      if (g.size() < 2)
        continue;
      const int dim = g[0].dim;
      const int array = g[0].load->array;
      // Compared at a step u: the member's index at u + 1 against the others' at u.
      Var u = make_var(f->var->name, ScalarType::I64);
      Facts facts{u.get(), ArrayExtent::make(array, dim), false};
      for (const Member &m : g)
        facts.bounded = facts.bounded || is_var(m.load->indices[static_cast<size_t>(dim)], z);
      SubstituteVars next({{z, add(var_ref(u), i64(1))}}), now({{z, var_ref(u)}});
      std::vector<Carried> group;
      bool any = false;
      for (const Member &m : g) {
        Carried c;
        c.load = m.expr;
        const Expr at_next = facts.resolve(next.mutate(m.load->indices[static_cast<size_t>(dim)]));
        for (size_t j = 0; j < g.size() && c.from < 0; ++j)
          if (same_value(at_next,
                         facts.resolve(now.mutate(g[j].load->indices[static_cast<size_t>(dim)]))))
            c.from = static_cast<int>(out.size() + j);
        any = any || c.from >= 0;
        group.push_back(c);
      }
      if (any)
        out.insert(out.end(), group.begin(), group.end());
    }
    for (Carried &c : out)
      c.value = make_var("carried", c.load.type());
    return out;
  }

  // if stride == 1: the walk, else the loop as it was.
  Stmt walk(const For *f, const Stmt &self, const std::vector<Carried> &carried) const {
    const Expr z = var_ref(f->var);
    SubstituteVars at_begin({{f->var.get(), f->begin}});
    Var z_next = make_var(f->var->name, ScalarType::I64);
    SubstituteVars at_next({{f->var.get(), var_ref(z_next)}});
    std::vector<Stmt> out;
    std::vector<Stmt> first;
    for (const Carried &c : carried) {
      out.push_back(Declare::make(c.value, zero_of(c.load.type())));
      first.push_back(Assign::make(c.value, at_begin.mutate(c.load)));
    }
    out.push_back(IfThenElse::make(lt(f->begin, f->end), Block::make(std::move(first))));
    // The next step's values: taken from this step's, or loaded; then moved in.
    std::vector<Stmt> next = {Declare::make(z_next, add(z, i64(1)))}, move;
    for (const Carried &c : carried) {
      Var v = make_var("next", c.load.type());
      next.push_back(Declare::make(v, c.from >= 0
                                          ? var_ref(carried[static_cast<size_t>(c.from)].value)
                                          : at_next.mutate(c.load)));
      move.push_back(Assign::make(c.value, var_ref(v)));
    }
    for (Stmt &s : move)
      next.push_back(std::move(s));
    Stmt body = Block::make({UseCarried(carried).mutate(f->body),
                             IfThenElse::make(lt(add(z, i64(1)), f->end), Block::make(next))});
    out.push_back(For::make(f->var, f->begin, f->end, i64(1), body));
    // The walk's declarations are its own: the loop as it was stands beside it.
    RenameVars fresh;
    fresh.fresh_locals = true;
    Stmt walked = fresh.mutate(Block::make(std::move(out)));
    return IfThenElse::make(eq(f->step, i64(1)), walked, self);
  }

  const std::set<int> &stored_;
  const std::vector<Param> &params_;
};

} // namespace

Task carry_loads_along_walks(const Task &task, const std::vector<Param> &params) {
  if (task.kind != TaskKind::Parallel || task.threads != 0 || task.covering)
    return task;
  const std::set<int> stored = stored_arrays(task.body);
  CarryLoads carry(stored, params);
  Task out = task;
  out.body = carry.mutate(task.body);
  out.carried = std::move(carry.lines);
  return out;
}

} // namespace loom::ir
