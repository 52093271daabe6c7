// The block_per_iteration schedule on the GPU: each iteration of a 1-D parallel loop runs on a
// whole thread block, whose threads split the iteration's inner loops among them (a row of a
// softmax or of a matrix-vector product read by 256 neighbouring threads instead of one).
//
//   for i in parallel(N):            for i = blockIdx.x; i < N; i += gridDim.x:
//     s = 0                            s = 0
//     for j in range(M):               s_part = 0
//       s += x[i, j]          ==>      for j = threadIdx.x; j < M; j += blockDim.x:
//     y[i] = s                           s_part += x[i, j]
//                                      s = s + block_reduce(s_part)   (shuffles, shared memory)
//                                      barrier; if threadIdx.x == 0: y[i] = s; barrier
//
// Every thread runs the iteration's other statements itself (they compute the same values);
// stores outside the inner loops are made by thread 0 between barriers. An inner loop may update
// locals from outside it only as reductions (v = v op e with op +, *, min or max, or the
// select form of a maximum or minimum), which the block combines in a fixed tree: the schedule
// reorders those reductions (float sums can change in the last bits), the same way every run.
#include "ir/Build.h"
#include "ir/Mutator.h"
#include "ir/Passes.h"
#include "ir/Printer.h"
#include "ir/Synchronizes.h"
#include "support/Error.h"

#include <limits>
#include <map>
#include <set>

namespace loom::ir {

namespace {

// How an inner loop updates a local from outside it: v = v op e with a reduction's operation,
// or, with `select`, the larger (Max) or smaller (Min) of v and e written as a select.
struct Combine {
  ReduceOp op;
  bool select = false;
  bool operator==(const Combine &) const = default;
};

Expr identity(Combine c, ScalarType t) {
  const bool fp = is_float(t);
  const double inf = std::numeric_limits<double>::infinity();
  const int64_t lo = fp ? 0 : int_min(t), hi = fp ? 0 : int_max(t);
  if (c.select)
    return c.op == ReduceOp::Max ? (fp ? FloatConst::make(t, -inf) : IntConst::make(t, lo))
                                 : (fp ? FloatConst::make(t, inf) : IntConst::make(t, hi));
  switch (c.op) {
  case ReduceOp::Add: // -0 + -0 is -0: +0 would change an all-(-0) sum's sign
    return fp ? FloatConst::make(t, -0.0) : IntConst::make(t, 0);
  case ReduceOp::Mul:
    return fp ? FloatConst::make(t, 1.0) : IntConst::make(t, 1);
  case ReduceOp::Min: // loom's min and max on floats skip NaNs (fmin, fmax): NaN is the identity
    return fp ? FloatConst::make(t, std::numeric_limits<double>::quiet_NaN())
              : IntConst::make(t, hi);
  case ReduceOp::Max:
    return fp ? FloatConst::make(t, std::numeric_limits<double>::quiet_NaN())
              : IntConst::make(t, lo);
  }
  return Expr();
}

// a combined with b as the loop combined them.
Expr combine(Combine c, const Expr &a, const Expr &b) {
  if (c.select)
    return Select::make(c.op == ReduceOp::Max ? gt(b, a) : lt(b, a), b, a);
  return Binary::make(binary_op_of(c.op), a, b);
}

// The reduction `v = value` performs, if it is one: v op e, e op v (commutative ops), min/max,
// or select(e > v, e, v) and its mirror forms; e must not read v.
std::optional<Combine> reduction_of(const Variable *v, const Expr &value) {
  if (auto *b = value.as<Binary>()) {
    std::optional<ReduceOp> op = reduce_op_of(b->op);
    if (op && ((is_var(b->a, v) && mentions(b->b, v) == 0) ||
               (is_var(b->b, v) && mentions(b->a, v) == 0)))
      return Combine{*op};
    return std::nullopt;
  }
  if (auto *s = value.as<Select>()) {
    auto *cmp = s->cond.as<Binary>();
    if (!cmp)
      return std::nullopt;
    // select(e > v, e, v) and select(v < e, e, v): the larger; with < / > swapped, the smaller.
    const Expr &e = s->a;
    if (!is_var(s->b, v) || mentions(e, v) != 0)
      return std::nullopt;
    const bool e_first = equal(cmp->a, e) && is_var(cmp->b, v);
    const bool v_first = is_var(cmp->a, v) && equal(cmp->b, e);
    if (!e_first && !v_first)
      return std::nullopt;
    if ((cmp->op == BinaryOp::Gt && e_first) || (cmp->op == BinaryOp::Lt && v_first))
      return Combine{ReduceOp::Max, true};
    if ((cmp->op == BinaryOp::Lt && e_first) || (cmp->op == BinaryOp::Gt && v_first))
      return Combine{ReduceOp::Min, true};
  }
  return std::nullopt;
}

// What an inner loop's body does with locals declared outside it and with arrays.
class LoopUses : public Visitor {
public:
  explicit LoopUses(const std::set<const Variable *> &outer) : outer_(outer) {}
  std::map<const Variable *, std::vector<const Assign *>> assigned; // outer locals assigned
  std::vector<const Variable *> order;                              // ... in order of first use
  std::set<int> plain;                   // arrays loaded or stored (not only updated atomically)
  std::map<const Variable *, int> reads; // reads of outer locals
  std::map<int, std::vector<std::vector<Expr>>> accesses; // per array: every index list
  std::set<int> written;

protected:
  void visit_node(const VarRef *n) override {
    if (outer_.count(n->var.get()))
      ++reads[n->var.get()];
  }
  void visit_node(const Assign *n) override {
    if (outer_.count(n->var.get())) {
      std::vector<const Assign *> &list = assigned[n->var.get()];
      if (list.empty())
        order.push_back(n->var.get());
      list.push_back(n);
    }
    Visitor::visit_node(n);
  }
  void visit_node(const Load *n) override {
    accesses[n->array].push_back(n->indices);
    plain.insert(n->array);
    Visitor::visit_node(n);
  }
  void visit_node(const Store *n) override {
    accesses[n->array].push_back(n->indices);
    plain.insert(n->array);
    written.insert(n->array);
    Visitor::visit_node(n);
  }
  void visit_node(const Reduce *n) override { // atomic on the GPU: any thread may update
    accesses[n->array].push_back(n->indices);
    written.insert(n->array);
    Visitor::visit_node(n);
  }

private:
  const std::set<const Variable *> &outer_;
};

class BlockPerIteration {
public:
  // `split`: the loops the block's threads split (a serial task's, ir/SerialBlock.cpp); the
  // others run in every thread, in order. Without it, every loop of the iteration is split.
  BlockPerIteration(const std::string &kernel, const std::vector<Param> &params, int threads,
                    std::vector<Shared> &shared, const std::set<const For *> *split = nullptr)
      : kernel_(kernel), params_(params), threads_(threads), shared_(shared), split_(split) {}

  // The iteration body, as every thread of the block runs it.
  Stmt iteration(const Stmt &body) { return statements(body); }

private:
  [[noreturn]] void fail(const std::string &what, const Stmt &where) {
    throw CompileError("kernel '" + kernel_ + "', schedule block_per_iteration: " + what +
                       "\n  in: " + to_string(where, params_));
  }

  Stmt statements(const Stmt &s) {
    if (!s.defined())
      return s;
    if (auto *b = s.as<Block>()) {
      std::vector<Stmt> out;
      for (const Stmt &c : b->stmts) {
        if (auto *d = c.as<Declare>())
          declared_.insert(d->var.get());
        out.push_back(statements(c));
      }
      return Block::make(std::move(out));
    }
    if (auto *d = s.as<Declare>()) {
      declared_.insert(d->var.get());
      note_loads(d->init);
      return s;
    }
    if (auto *a = s.as<Assign>()) { // every thread computes the same value
      note_loads(a->value);
      return s;
    }
    if (auto *f = s.as<For>()) {
      if (!split_ || split_->count(f))
        return inner_loop(f, s);
      note_loads(f->begin), note_loads(f->end), note_loads(f->step), note_loads(f->body);
      Stmt body = statements(f->body);
      note_loads(f->end), note_loads(f->body); // the last test of the bounds, after any step
      return For::make(f->var, f->begin, f->end, f->step, body);
    }
    if (auto *w = s.as<While>(); w && split_) {
      note_loads(w->cond), note_loads(w->body);
      Stmt body = statements(w->body);
      note_loads(w->cond), note_loads(w->body); // the last test of the condition
      return While::make(w->cond, body);
    }
    if (auto *i = s.as<IfThenElse>()) { // its condition is the same in every thread
      note_loads(i->cond);
      std::set<int> before = read_since_barrier_;
      Stmt then_case = statements(i->then_case);
      std::set<int> after_then = read_since_barrier_;
      read_since_barrier_ = before;
      Stmt else_case = statements(i->else_case);
      read_since_barrier_.insert(after_then.begin(), after_then.end());
      return IfThenElse::make(i->cond, then_case, else_case);
    }
    if (s.as<Store>() || s.as<Reduce>()) {
      // One thread writes; the barriers keep every thread's reads of the element before it, and
      // the write before their reads after it.
      read_since_barrier_.clear();
      return Block::make({Barrier::make(),
                          IfThenElse::make(eq(SpecialReg::make(Reg::ThreadIdx, 0), i32(0)), s),
                          Barrier::make()});
    }
    fail("only local variables, stores, ifs and range loops can be in the loop's body (a while "
         "loop cannot be split among the block's threads)",
         s);
  }

  Stmt inner_loop(const For *f, const Stmt &s) {
    std::set<const Variable *> outer = declared_;
    for (const Param &p : params_)
      if (p.var)
        outer.insert(p.var.get());
    LoopUses uses(outer);
    uses.visit(f->body);
    if (synchronizes(f->body))
      fail("the inner loop already has barriers or warp operations", s);

    // Locals from outside updated in the loop: reductions only.
    std::vector<std::pair<Var, Combine>> reduced;
    for (const Variable *v : uses.order) { // in order of first use: the lowered text is stable
      const std::vector<const Assign *> &assigns = uses.assigned[v];
      std::optional<Combine> c;
      for (const Assign *a : assigns) {
        std::optional<Combine> here = reduction_of(v, a->value);
        if (!here || (c && *c != *here))
          fail("the inner loop updates '" + v->name +
                   "', declared outside it, other than as one reduction (v = v + e, v * e, "
                   "min, max, or select(e > v, e, v)); its iterations would depend on each other",
               s);
        c = here;
      }
      int own_reads = 0;
      for (const Assign *a : assigns)
        own_reads += mentions(a->value, v);
      if (uses.reads[v] != own_reads)
        fail("the inner loop reads '" + v->name + "', which it also reduces into", s);
      if (v->type == ScalarType::Bool)
        fail("the reduction into the bool '" + v->name + "'", s);
      reduced.push_back({assigns.front()->var, *c});
    }
    // An array the loop stores to is accessed at one element per iteration, an element no other
    // iteration touches: one of its indices is the loop's variable, which no other index reads.
    // (A serial task's loops were shown to have independent iterations by ir/SerialBlock.cpp.)
    for (int a : split_ ? std::set<int>{} : uses.written) {
      const auto &list = uses.accesses[a];
      if (!uses.plain.count(a))
        continue; // only atomic updates (Reduce): any thread may make them
      bool own = false;
      for (size_t d = 0; d < list.front().size(); ++d)
        own = own || is_var(list.front()[d], f->var.get());
      for (const auto &idx : list)
        for (size_t d = 0; d < idx.size(); ++d) {
          if (!equal(idx[d], list.front()[d]))
            own = false;
          if (!is_var(idx[d], f->var.get()) && mentions(idx[d], f->var.get()) != 0)
            own = false;
        }
      if (!own)
        fail("the inner loop stores to '" + params_[a].name +
                 "' other than at one element per iteration indexed by '" + f->var->name +
                 "' (accumulate into a local declared before the loop instead)",
             s);
    }

    // Each thread's share of the iterations, and its partial of each reduction.
    std::vector<Stmt> out;
    RenameVars partials;
    for (auto &[v, c] : reduced) {
      Var p = make_var(v->name + "_part", v->type);
      out.push_back(Declare::make(p, identity(c, v->type)));
      partials.to[v.get()] = p;
    }
    Expr first = f->begin, end = f->end, stride = f->step;
    note_loads(first), note_loads(end), note_loads(stride);
    bool reads_what_it_writes = false;
    for (int a : uses.written)
      reads_what_it_writes = reads_what_it_writes || read_since_barrier_.count(a) != 0;
    if (reads_what_it_writes) {
      // Every thread reads what it needs (the bounds, and the statements since the last barrier)
      // before any writes: the bounds into locals, then a barrier.
      Var b = make_var(f->var->name + "_begin", ScalarType::I64);
      Var e = make_var(f->var->name + "_end", ScalarType::I64);
      Var st = make_var(f->var->name + "_step", ScalarType::I64);
      out.push_back(Declare::make(b, first));
      out.push_back(Declare::make(e, end));
      out.push_back(Declare::make(st, stride));
      out.push_back(Barrier::make());
      read_since_barrier_.clear();
      first = VarRef::make(b), end = VarRef::make(e), stride = VarRef::make(st);
    }
    for (const auto &[a, list] : uses.accesses)
      if (uses.plain.count(a))
        read_since_barrier_.insert(a); // loaded (or stored: a later loop's write must wait too)
    Expr tid = reg_i64(Reg::ThreadIdx, 0);
    Expr threads = reg_i64(Reg::BlockDim, 0);
    Expr begin = add(first, mul(stride, tid));
    Expr step = mul(stride, threads);
    out.push_back(For::make(f->var, begin, end, step, partials.mutate(f->body)));
    for (auto &[v, c] : reduced) {
      Expr total = block_reduce(out, VarRef::make(partials.to[v.get()]), c, v->type);
      out.push_back(Assign::make(v, combine(c, VarRef::make(v), total)));
    }
    if (!reduced.empty())
      read_since_barrier_.clear(); // the block reductions end in barriers
    if (!uses.written.empty()) {
      out.push_back(Barrier::make()); // later statements may read what other threads wrote
      read_since_barrier_.clear();
    }
    return Block::make(std::move(out));
  }

  // The combination of `partial` over the block, in every thread: a butterfly of shuffles in each
  // warp, the warps' results through shared memory, and a butterfly over those.
  Expr block_reduce(std::vector<Stmt> &out, const Expr &partial, Combine c, ScalarType t) {
    Shared slots = make_shared_array("block_reduce" + std::to_string(shared_.size()), t, {32});
    shared_.push_back(slots);
    Var v = make_var("warp_total", t);
    out.push_back(Declare::make(v, partial));
    auto butterfly = [&] {
      for (int offset = 16; offset > 0; offset /= 2) {
        Var other = make_var("other", t);
        out.push_back(
            Declare::make(other, WarpOp::make(WarpOpKind::ShflXor, VarRef::make(v), i32(offset))));
        out.push_back(Assign::make(v, combine(c, VarRef::make(v), VarRef::make(other))));
      }
    };
    butterfly();
    Expr tid = SpecialReg::make(Reg::ThreadIdx, 0);
    Expr lane = Binary::make(BinaryOp::BitAnd, tid, i32(31));
    Expr warp = to_i64(Binary::make(BinaryOp::Shr, tid, i32(5)));
    out.push_back(
        IfThenElse::make(eq(lane, i32(0)), SharedStore::make(slots, {warp}, VarRef::make(v))));
    out.push_back(Barrier::make());
    Expr warps = i32(threads_ / 32);
    // Every lane reads slot `lane` (in range: 32 slots), the warps past the last give the identity.
    out.push_back(Assign::make(
        v, Select::make(lt(lane, warps), SharedLoad::make(slots, {to_i64(lane)}), identity(c, t))));
    butterfly();
    // Lane 0's total in every lane: the lanes of a butterfly pair combine (a, b) and (b, a),
    // which for +0 and -0 in a max differ; lane 0 of every warp combined the same values in
    // the same order, so the result is the same in every thread of the block.
    out.push_back(Assign::make(v, WarpOp::make(WarpOpKind::ShflIdx, VarRef::make(v), i32(0))));
    out.push_back(Barrier::make()); // every warp read the slots before a later reduction writes
    return VarRef::make(v);
  }

  // The arrays this thread may have loaded since the last barrier: a loop that writes one of them
  // waits at a barrier first, so no other thread's read comes after its writes. (For a loop every
  // thread runs in order, its whole body: its steps come back to its start.)
  template <class Node> void note_loads(const Node &e) {
    struct Loads : Visitor {
      std::set<int> &out;
      explicit Loads(std::set<int> &o) : out(o) {}
      void visit_node(const Load *n) override {
        out.insert(n->array);
        Visitor::visit_node(n);
      }
    } loads(read_since_barrier_);
    loads.visit(e);
  }

  const std::string &kernel_;
  const std::vector<Param> &params_;
  int threads_;
  std::set<int> read_since_barrier_;
  std::vector<Shared> &shared_;
  const std::set<const For *> *split_;
  std::set<const Variable *> declared_;
};

} // namespace

Task map_serial_block(const Task &task, const std::string &kernel, const std::vector<Param> &params,
                      int threads, const std::set<const For *> &split,
                      std::vector<Shared> &shared) {
  BlockPerIteration map(kernel, params, threads, shared, &split);
  Stmt body = map.iteration(task.body);
  // One block runs the task: the loop over blocks of block_per_iteration's launch, of one step.
  Var block = make_var("block", ScalarType::I64);
  Task mapped = task;
  mapped.kind = TaskKind::Parallel;
  mapped.domain = {i64(1)};
  mapped.body = For::make(block, reg_i64(Reg::BlockIdx, 0), i64(1), reg_i64(Reg::GridDim, 0), body);
  mapped.threads = threads;
  return mapped;
}

Task map_block_per_iteration(const Task &task, const std::string &kernel,
                             const std::vector<Param> &params, int threads,
                             std::vector<Shared> &shared) {
  if (task.kind != TaskKind::Parallel)
    return task;
  // The task body: declarations re-made for the task, then the parallel loop.
  std::vector<Stmt> top = statements_of(task.body);
  std::vector<Stmt> out;
  for (const Stmt &s : top) {
    auto *loop = s.as<ParallelFor>();
    if (!loop) {
      out.push_back(s);
      continue;
    }
    if (loop->vars.size() != 1)
      throw CompileError("kernel '" + kernel +
                         "', schedule block_per_iteration: it applies to 1-D parallel loops, "
                         "and this one has " +
                         std::to_string(loop->vars.size()) + " dimensions");
    if (!task.reductions.empty())
      throw CompileError("kernel '" + kernel +
                         "', schedule block_per_iteration: the parallel loop reduces into an "
                         "array element all iterations share, which the schedule does not "
                         "support yet");
    BlockPerIteration map(kernel, params, threads, shared);
    Stmt body = map.iteration(loop->body);
    Expr first = reg_i64(Reg::BlockIdx, 0);
    Expr stride = reg_i64(Reg::GridDim, 0);
    out.push_back(For::make(loop->vars[0], first, loop->extents[0], stride, body));
  }
  Task mapped = task;
  mapped.body = out.size() == 1 ? out[0] : Block::make(std::move(out));
  mapped.threads = threads;
  return mapped;
}

} // namespace loom::ir
