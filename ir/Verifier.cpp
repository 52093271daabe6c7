#include "ir/Verifier.h"

#include "ir/Printer.h"
#include "support/Error.h"

#include <set>

namespace loom::ir {

namespace {

class Verifier {
public:
  // `simt`: the body is a SIMT kernel's (or task's), whose shared arrays are `shared`.
  Verifier(const std::string &kernel, const std::vector<Param> &params, bool lowered_gpu,
           bool simt = false, const std::vector<Shared> &shared = {},
           const std::vector<Shared> &locals = {})
      : kernel_(kernel), params_(params), lowered_gpu_(lowered_gpu), simt_(simt) {
    int dynamic = 0;
    for (const Shared &a : shared) {
      if (!a || a->local())
        fail("a shared array is missing or is a local array");
      if (a->dynamic && (++dynamic > 1 || a->extents.size() != 1))
        fail("dynamic shared array '" + a->name + "': a kernel has at most one, of rank 1");
      shared_.insert(a.get());
    }
    for (const Shared &a : locals) {
      if (!a || !a->local())
        fail("a local array is missing or is a shared array");
      locals_.insert(a.get());
    }
    for (const Param &p : params) {
      if (p.kind == ParamKind::Scalar) {
        if (!p.var || p.var->type != p.type)
          fail("scalar parameter '" + p.name + "' has no variable of its type");
        scope_.insert(p.var.get());
      } else if (p.rank < 1 || p.rank > kMaxRank + (p.part == ComplexPart::Parts ? 1 : 0)) {
        fail("array parameter '" + p.name + "' has rank " + std::to_string(p.rank) +
             "; loom supports ranks 1 to " + std::to_string(kMaxRank));
      }
    }
  }

  // Whether sequential loops at the top level may hold parallel loops (a kernel's body, not a
  // lowered task's).
  bool task_loops_allowed_ = false;

  void bind(const Var &v) {
    if (!v)
      fail("a loop or chunk variable is missing");
    scope_.insert(v.get());
  }

  // `depth` counts enclosing loops/ifs; `in_parallel` whether inside a parallel loop body.
  void stmt(const Stmt &s, bool top_level, bool in_parallel) {
    if (!s.defined())
      return;
    struct Restore {
      bool &flag, saved;
      ~Restore() { flag = saved; }
    } restore{in_parallel_, in_parallel_};
    in_parallel_ = in_parallel;
    switch (s.kind()) {
    case StmtKind::Block: {
      std::set<const Variable *> saved = scope_;
      for (const Stmt &c : s.as<Block>()->stmts)
        stmt(c, top_level, in_parallel);
      scope_ = saved;
      return;
    }
    case StmtKind::Declare: {
      auto *n = s.as<Declare>();
      expr(n->init, s);
      if (n->var->type != n->init.type())
        fail("declaration of '" + n->var->name + "' has an initialiser of another type", s);
      scope_.insert(n->var.get());
      return;
    }
    case StmtKind::Assign: {
      auto *n = s.as<Assign>();
      expr(n->value, s);
      if (!scope_.count(n->var.get()))
        fail("assignment to '" + n->var->name + "', which is not in scope", s);
      if (loop_vars_.count(n->var.get()))
        fail("assignment to loop index '" + n->var->name + "'", s);
      if (n->var->type != n->value.type())
        fail("assignment to '" + n->var->name + "' of another type", s);
      return;
    }
    case StmtKind::Store: {
      auto *n = s.as<Store>();
      const Param &p = array(n->array, n->indices.size(), s);
      for (const Expr &i : n->indices)
        expr(i, s);
      expr(n->value, s);
      if (n->value.type() != value_type(p.type))
        fail(std::string("store of a ") + type_name(n->value.type()) + " into '" + p.name +
                 "', an array of " + type_name(p.type),
             s);
      return;
    }
    case StmtKind::Reduce: {
      auto *n = s.as<Reduce>();
      const Param &p = array(n->array, n->indices.size(), s);
      for (const Expr &i : n->indices)
        expr(i, s);
      expr(n->value, s);
      if (n->value.type() != value_type(p.type))
        fail(std::string("reduction of a ") + type_name(n->value.type()) + " into '" + p.name +
                 "', an array of " + type_name(p.type),
             s);
      if (p.type == ScalarType::Bool)
        fail("reduction into '" + p.name + "', an array of bool", s);
      return;
    }
    case StmtKind::IfThenElse: {
      auto *n = s.as<IfThenElse>();
      expr(n->cond, s);
      stmt(n->then_case, false, in_parallel);
      stmt(n->else_case, false, in_parallel);
      return;
    }
    case StmtKind::For: {
      auto *n = s.as<For>();
      expr(n->begin, s);
      expr(n->end, s);
      expr(n->step, s);
      std::set<const Variable *> saved = scope_;
      bind(n->var);
      loop_vars_.insert(n->var.get());
      // A kernel's sequential loops at the top level may hold parallel loops (task loops).
      stmt(n->body, top_level && task_loops_allowed_, in_parallel);
      loop_vars_.erase(n->var.get());
      scope_ = saved;
      return;
    }
    case StmtKind::While: {
      auto *n = s.as<While>();
      expr(n->cond, s);
      stmt(n->body, false, in_parallel);
      return;
    }
    case StmtKind::SharedStore: {
      auto *n = s.as<SharedStore>();
      shared(n->array, s);
      for (const Expr &i : n->indices)
        expr(i, s);
      expr(n->value, s);
      return;
    }
    case StmtKind::Barrier:
      simt_only("a barrier", s);
      return;
    case StmtKind::AsyncCopy: {
      auto *n = s.as<AsyncCopy>();
      simt_only("an async copy", s);
      shared(n->dst, s);
      if (array(n->array, n->src_index.size(), s).type != n->dst->type)
        fail("async copy between arrays of different types", s);
      for (const Expr &i : n->dst_index)
        expr(i, s);
      for (const Expr &i : n->src_index)
        expr(i, s);
      if (n->valid.defined())
        expr(n->valid, s);
      return;
    }
    case StmtKind::AsyncWait:
      simt_only("an async wait", s);
      return;
    case StmtKind::WarpgroupMma: {
      auto *n = s.as<WarpgroupMma>();
      simt_only("a warpgroup mma", s);
      shared(n->smem, s);
      for (const WarpgroupMma::Product &p : n->products) {
        expr(p.a_offset, s);
        expr(p.b_offset, s);
        for (const Var &v : p.acc)
          if (!scope_.count(v.get()))
            fail("warpgroup mma accumulator '" + v->name + "', which is not in scope", s);
      }
      return;
    }
    case StmtKind::Mbarrier: {
      auto *n = s.as<Mbarrier>();
      simt_only("a memory barrier", s);
      shared(n->barriers, s);
      expr(n->index, s);
      if (n->value.defined())
        expr(n->value, s);
      return;
    }
    case StmtKind::Assume:
      expr(s.as<Assume>()->cond, s);
      return;
    case StmtKind::Mma: {
      auto *n = s.as<Mma>();
      simt_only("mma", s);
      shared(n->a, s);
      shared(n->b, s);
      for (const Expr &i : n->a_origin)
        expr(i, s);
      for (const Expr &i : n->b_origin)
        expr(i, s);
      for (const Var &v : n->acc)
        if (!scope_.count(v.get()))
          fail("mma accumulator '" + v->name + "', which is not in scope", s);
      return;
    }
    case StmtKind::Print:
      for (const PrintItem &item : s.as<Print>()->items) {
        if (item.value.defined())
          expr(item.value, s);
        if (item.imag.defined())
          expr(item.imag, s);
      }
      return;
    case StmtKind::Assert: {
      auto *n = s.as<Assert>();
      if (n->site >= sites_)
        fail("an assertion's site " + std::to_string(n->site) + " is not one of the kernel's " +
             std::to_string(sites_));
      expr(n->cond, s);
      for (const Expr &i : n->indices)
        expr(i, s);
      return;
    }
    case StmtKind::Atomic: {
      auto *n = s.as<Atomic>();
      simt_only(op_name(n->op), s);
      if (n->shared)
        shared(n->shared, s);
      else if (array(n->array, n->indices.size(), s).type != n->value.type())
        fail(std::string(op_name(n->op)) + " of a " + type_name(n->value.type()) + " into '" +
                 params_[n->array].name + "', an array of " + type_name(params_[n->array].type) +
                 " (atomics take i32, i64, f32 or f64 elements of the value's type)",
             s);
      for (const Expr &i : n->indices)
        expr(i, s);
      expr(n->value, s);
      if (n->compare.defined())
        expr(n->compare, s);
      if (n->result && !scope_.count(n->result.get()))
        fail(std::string(op_name(n->op)) + " result '" + n->result->name +
                 "' is not a local in scope",
             s);
      if (n->result && loop_vars_.count(n->result.get()))
        fail(std::string(op_name(n->op)) + " result into loop index '" + n->result->name + "'", s);
      return;
    }
    case StmtKind::ParallelFor: {
      auto *n = s.as<ParallelFor>();
      if (simt_)
        fail("a parallel loop in a SIMT kernel; each thread runs the body once (use the thread "
             "and block indices, or for_range)",
             s);
      if (in_parallel)
        fail("a parallel loop inside another parallel loop; use for_range for the inner loop", s);
      if (!top_level)
        fail(task_loops_allowed_
                 ? "a parallel loop inside an if, a while loop or a sequential loop in one; "
                   "parallel loops must be at the top level of the kernel or in sequential "
                   "loops there"
                 : "a parallel loop inside a sequential loop or an if in a task",
             s);
      for (const Expr &e : n->extents)
        expr(e, s);
      std::set<const Variable *> saved = scope_;
      for (const Var &v : n->vars) {
        bind(v);
        loop_vars_.insert(v.get());
      }
      stmt(n->body, false, true);
      for (const Var &v : n->vars)
        loop_vars_.erase(v.get());
      scope_ = saved;
      return;
    }
    }
  }

  void expr(const Expr &e, const Stmt &where) {
    if (!e.defined())
      fail("an expression is missing", where);
    switch (e.kind()) {
    case ExprKind::VarRef: {
      auto *n = e.as<VarRef>();
      if (!scope_.count(n->var.get()))
        fail("use of '" + n->var->name + "' outside its scope", where);
      return;
    }
    case ExprKind::ArrayExtent: {
      auto *n = e.as<ArrayExtent>();
      const Param &p = array(n->array, 0, where, false);
      if (n->dim < 0 || n->dim >= p.rank)
        fail("extent of dimension " + std::to_string(n->dim) + " of '" + p.name +
                 "', which has rank " + std::to_string(p.rank),
             where);
      return;
    }
    case ExprKind::Load: {
      auto *n = e.as<Load>();
      const Param &p = array(n->array, n->indices.size(), where);
      if (n->type != value_type(p.type))
        fail("load of " + std::string(type_name(n->type)) + " from '" + p.name + "'", where);
      for (const Expr &i : n->indices)
        expr(i, where);
      return;
    }
    case ExprKind::SpecialReg:
      if (!lowered_gpu_ && !simt_)
        fail("a GPU thread index outside a SIMT kernel", where);
      return;
    case ExprKind::SharedLoad: {
      auto *n = e.as<SharedLoad>();
      shared(n->array, where);
      for (const Expr &i : n->indices)
        expr(i, where);
      return;
    }
    case ExprKind::SharedExtent: {
      const Shared &a = e.as<SharedExtent>()->array;
      shared(a, where);
      if (!a->dynamic)
        fail("the extent of shared array '" + a->name + "', which is not dynamic", where);
      return;
    }
    case ExprKind::WarpOp: {
      auto *n = e.as<WarpOp>();
      simt_only(std::string("warp operation '") + op_name(n->op) + "'", where);
      expr(n->value, where);
      if (n->operand.defined())
        expr(n->operand, where);
      return;
    }
    case ExprKind::Unary:
      return expr(e.as<Unary>()->a, where);
    case ExprKind::Binary:
      expr(e.as<Binary>()->a, where);
      return expr(e.as<Binary>()->b, where);
    case ExprKind::Select:
      expr(e.as<Select>()->cond, where);
      expr(e.as<Select>()->a, where);
      return expr(e.as<Select>()->b, where);
    case ExprKind::Cast:
      return expr(e.as<Cast>()->a, where);
    case ExprKind::Call:
      for (const Expr &a : e.as<Call>()->args)
        expr(a, where);
      return;
    default:
      return;
    }
  }

  [[noreturn]] void fail(const std::string &what, const Stmt &where = Stmt()) {
    std::string msg = "kernel '" + kernel_ + "': " + what;
    if (where.defined())
      msg += "\n  in: " + to_string(where, params_);
    while (!msg.empty() && msg.back() == '\n')
      msg.pop_back();
    throw VerifyError(msg);
  }

private:
  // SIMT kernels, and lowered GPU code (the schedules' block reductions and staged tiles).
  void simt_only(const std::string &what, const Stmt &where) {
    if (!simt_ && !lowered_gpu_)
      fail(what + " outside a SIMT kernel", where);
  }
  void shared(const Shared &a, const Stmt &where) {
    if (a && a->local()) {
      if (!locals_.count(a.get()))
        fail("local array '" + a->name + "' is not one of the kernel's local arrays", where);
      // Private to an iteration: a kernel of parallel loops uses it inside one only (checked
      // on kernels; lowered tasks hold their loops mapped to threads or chunks).
      if (!simt_ && local_scope_checked_ && !in_parallel_)
        fail("local array '" + a->name + "' used outside a parallel loop", where);
      return;
    }
    simt_only("shared memory", where);
    if (!a || !shared_.count(a.get()))
      fail("shared array '" + (a ? a->name : std::string("?")) +
               "' is not one of the kernel's shared arrays",
           where);
  }

  const Param &array(int k, size_t rank, const Stmt &where, bool check_rank = true) {
    if (k < 0 || k >= static_cast<int>(params_.size()))
      fail("access to parameter #" + std::to_string(k) + ", which does not exist", where);
    const Param &p = params_[k];
    if (p.kind != ParamKind::Array)
      fail("'" + p.name + "' is a scalar, not an array", where);
    if (check_rank && static_cast<int>(rank) != p.rank)
      fail("'" + p.name + "' has rank " + std::to_string(p.rank) + " but is indexed with " +
               std::to_string(rank) + " indices",
           where);
    return p;
  }

  const std::string &kernel_;
  const std::vector<Param> &params_;
  bool lowered_gpu_;
  bool simt_;
  std::set<const SharedArray *> shared_, locals_;
  bool in_parallel_ = false;

public:
  bool local_scope_checked_ = false;
  int sites_ =
      0; // the kernel's assertion sites // verify(Kernel): local arrays inside parallel loops only

private:
  std::set<const Variable *> scope_;
  std::set<const Variable *> loop_vars_;
};

} // namespace

void verify(const Kernel &kernel) {
  Verifier v(kernel.name, kernel.params, false, kernel.simt(), kernel.shared, kernel.locals);
  if (!kernel.body.defined())
    v.fail("the kernel has no body");
  if (!kernel.simt() && !kernel.shared.empty())
    v.fail("shared arrays in a kernel that is not a SIMT kernel");
  if (std::string problem = schedule_problem(kernel.schedule, kernel); !problem.empty())
    throw VerifyError(problem);
  v.task_loops_allowed_ = !kernel.simt();
  v.local_scope_checked_ = true;
  v.sites_ = static_cast<int>(kernel.assert_sites.size());
  v.stmt(kernel.body, true, false);
}

namespace {

// `mapped`: map_parallel_loops has turned the parallel loops into loops over threads or chunks.
// Before, a parallel task's body holds its loop at its top level, as split_into_tasks left it.
void verify_task_loops(const LoweredKernel &kernel) {
  Verifier v(kernel.name, kernel.params, kernel.target == Target::GPU);
  if (kernel.task_loops.size() + kernel.scratch.size() > kernel.params.size())
    v.fail("more task loops and scratch arrays than parameters");
  const size_t own = kernel.params.size() - kernel.task_loops.size() - kernel.scratch.size();
  for (size_t k = 0; k < kernel.scratch.size(); ++k) {
    const ScratchArray &a = kernel.scratch[k];
    const size_t p = own + kernel.task_loops.size() + k;
    if (a.param != static_cast<int>(p) || kernel.params[p].kind != ParamKind::Array ||
        kernel.params[p].rank != static_cast<int>(a.extents.size()) || kernel.params[p].strided)
      v.fail("scratch array " + std::to_string(k) + ": it is not the dense array parameter " +
             std::to_string(p) + " of as many dimensions as extents");
    for (const Expr &e : a.extents) {
      if (!e.defined() || e.type() != ScalarType::I64)
        v.fail("scratch array " + std::to_string(k) + ": an extent is missing or not an i64");
      v.expr(e, Stmt());
    }
  }
  for (size_t k = 0; k < kernel.task_loops.size(); ++k) {
    const TaskLoop &l = kernel.task_loops[k];
    const std::string what = "task loop over '" + (l.var ? l.var->name : "?") + "'";
    if (!l.var || l.param != static_cast<int>(own + k) || kernel.params[l.param].var != l.var ||
        l.var->type != ScalarType::I64)
      v.fail(what + ": its variable is not its i64 parameter " + std::to_string(own + k));
    if (l.first >= l.last || l.last > kernel.tasks.size())
      v.fail(what + ": its tasks [" + std::to_string(l.first) + ", " + std::to_string(l.last) +
             ") are not a non-empty range of the kernel's tasks");
    for (size_t j = 0; j < k; ++j) {
      const TaskLoop &o = kernel.task_loops[j];
      // Earlier loops start first and either enclose this one or end before it.
      if (o.first > l.first || (l.first < o.last && l.last > o.last))
        v.fail(what + ": the task loops do not nest in order");
    }
    for (const Expr &e : {l.begin, l.end, l.step}) {
      if (!e.defined() || e.type() != ScalarType::I64)
        v.fail(what + ": a bound is missing or not an i64");
      v.expr(e, Stmt());
    }
  }
}

void verify_tasks(const LoweredKernel &kernel, bool mapped) {
  verify_task_loops(kernel);
  for (const Task &t : kernel.tasks) {
    if ((t.kind == TaskKind::Simt) != kernel.simt)
      Verifier(kernel.name, kernel.params, false)
          .fail("task '" + t.name + "': SIMT tasks belong to SIMT kernels, and only to them");
    Verifier v(kernel.name, kernel.params, kernel.target == Target::GPU, kernel.simt, kernel.shared,
               kernel.locals);
    v.sites_ = static_cast<int>(kernel.assert_sites.size());
    if (t.chunk_begin)
      v.bind(t.chunk_begin);
    if (t.chunk_end)
      v.bind(t.chunk_end);
    for (const Expr &d : t.domain)
      v.expr(d, Stmt());
    // Mapped bodies hold no parallel loops; treat the body as already inside one.
    bool top_level_loop = !mapped && t.kind == TaskKind::Parallel;
    v.stmt(t.body, top_level_loop, !top_level_loop);
  }
}

} // namespace

void verify(const LoweredKernel &kernel) {
  verify_tasks(kernel, true);
}

void verify_after_pass(const std::string &pass, const LoweredKernel &kernel) {
  try {
    verify_tasks(kernel, false);
  } catch (const VerifyError &e) {
    throw VerifyError("internal error: the IR is invalid after lowering pass " + pass + ": " +
                      e.what());
  }
}

} // namespace loom::ir
