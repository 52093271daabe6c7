// Control flow of the embedded DSL: parallel_for, for_range, while_, if_/elif_/else_.
// The bodies are C++ lambdas run once while tracing; what they do becomes the loop's IR.
#pragma once

#include "frontend/Tracer.h"
#include "frontend/Value.h"
#include "ir/ParallelRange.h"
#include "support/Error.h"

#include <algorithm>
#include <initializer_list>
#include <source_location>
#include <string>
#include <type_traits>
#include <vector>

namespace loom {

namespace detail {

template <class F> ir::Stmt trace_block(F &&body) {
  frontend::Tracer &t = frontend::Tracer::current();
  t.open_block();
  body();
  return t.close_block();
}

template <class F, class... Ix> ir::Stmt trace_block_with(F &&body, const Ix &...indices) {
  frontend::Tracer &t = frontend::Tracer::current();
  t.open_block();
  body(indices...);
  return t.close_block();
}

// The body of a parallel loop (the tracer counts them: frontend/Tracer.h).
template <class F, class... Ix> ir::Stmt trace_parallel_body(F &&body, const Ix &...indices) {
  frontend::Tracer &t = frontend::Tracer::current();
  t.open_block(/*parallel_body=*/true);
  body(indices...);
  return t.close_block();
}

inline Index index_var(const ir::Var &v) {
  return Index(ir::VarRef::make(v));
}

} // namespace detail

// One dimension of a parallel loop: [0, n) from an extent n, or loom::range(b, e[, s]), which
// runs i = b, b + s, ... while i < e (s > 0) or i > e (s < 0), as Python's range and Numba's
// prange(b, e, s). A step of 0 is a DslError when it is a number; a step over scalar parameters
// that is 0 at run time makes the call an ArgumentError (ir::CallCheck); any other step of 0 runs
// no iteration.
struct Range {
  // An extent n: [0, n).
  template <Operand N> Range(const N &n) : end(detail::to_expr<int64_t>(n)) {}
  Range(ir::Expr b, ir::Expr e, ir::Expr s, std::source_location at)
      : begin(std::move(b)), end(std::move(e)), step(std::move(s)), is_range(true), at(at) {}
  ir::Expr begin, end, step;
  bool is_range = false;
  std::source_location at; // of the loom::range() call
};

template <Operand B, Operand E, Operand S = int>
Range range(const B &b, const E &e, const S &s = 1,
            std::source_location at = std::source_location::current()) {
  if constexpr (!DslExpr<S>)
    if (s == 0)
      throw DslError("loom::range: the step is 0; a parallel range needs a non-zero step");
  return Range(detail::to_expr<int64_t>(b), detail::to_expr<int64_t>(e),
               detail::to_expr<int64_t>(s), at);
}

namespace detail {
// The loop's extent for a dimension, and the index its body sees for normalized variable v.
inline ir::Expr range_extent(const Range &r) {
  if (!r.is_range)
    return r.end;
  frontend::Tracer &t = frontend::Tracer::current();
  ir::add_step_check(t.call_checks(), t.params(), {r.begin, r.end, r.step},
                     std::string("loom::range() at ") + r.at.file_name() + ":" +
                         std::to_string(r.at.line()));
  return ir::trip_count({r.begin, r.end, r.step});
}
inline Index range_index(const Range &r, const ir::Var &v) {
  return r.is_range ? Index(ir::range_index({r.begin, r.end, r.step}, v)) : index_var(v);
}
} // namespace detail

// The body runs once for every i in [0, n) (or in loom::range(b, e, s)), in parallel: f(Index i).
template <class N, class F>
requires(std::is_invocable_v<F, Index> &&
         (Operand<N> || std::is_same_v<std::decay_t<N>, Range>)) void parallel_for(const N &n,
                                                                                   F &&f) {
  frontend::Tracer &t = frontend::Tracer::current();
  const Range r(n);
  ir::Var i = t.fresh_var("i", ir::ScalarType::I64);
  ir::Stmt body;
  {
    const Index index = detail::range_index(r, i);
    frontend::Tracer::ParallelScope scope(t, {i}, {index.expr()});
    body = detail::trace_parallel_body(f, index);
  }
  t.emit(ir::ParallelFor::make({i}, {detail::range_extent(r)}, body));
}

// Over a 2-D or 3-D index space, outermost first: parallel_for({n, m}, [&](Index i, Index j) {..}),
// each dimension an extent or a loom::range. The last index varies fastest (on the GPU it follows
// threadIdx.x, so make it the contiguous one).
template <class F> void parallel_for(std::initializer_list<Range> dims, F &&f) {
  frontend::Tracer &t = frontend::Tracer::current();
  std::vector<ir::Var> vars;
  std::vector<ir::Expr> ext;
  std::vector<Index> indices;
  const char *names[] = {"i", "j", "k"};
  for (const Range &d : dims) {
    if (vars.size() == 3)
      throw DslError("parallel_for takes 1 to 3 extents");
    vars.push_back(t.fresh_var(names[vars.size()], ir::ScalarType::I64));
    ext.push_back(detail::range_extent(d));
    indices.push_back(detail::range_index(d, vars.back()));
  }
  ir::Stmt body;
  std::vector<ir::Expr> index_exprs;
  for (const Index &x : indices)
    index_exprs.push_back(x.expr());
  frontend::Tracer::ParallelScope scope(t, vars, std::move(index_exprs));
  if constexpr (std::is_invocable_v<F, Index>) {
    if (vars.size() != 1)
      throw DslError("parallel_for over " + std::to_string(vars.size()) +
                     " extents needs a body taking that many indices");
    body = detail::trace_parallel_body(f, indices[0]);
  } else if constexpr (std::is_invocable_v<F, Index, Index>) {
    if (vars.size() != 2)
      throw DslError("parallel_for with a 2-index body needs 2 extents, got " +
                     std::to_string(vars.size()));
    body = detail::trace_parallel_body(f, indices[0], indices[1]);
  } else {
    static_assert(std::is_invocable_v<F, Index, Index, Index>,
                  "a parallel_for body takes 1 to 3 loom::Index arguments");
    if (vars.size() != 3)
      throw DslError("parallel_for with a 3-index body needs 3 extents, got " +
                     std::to_string(vars.size()));
    body = detail::trace_parallel_body(f, indices[0], indices[1], indices[2]);
  }
  t.emit(ir::ParallelFor::make(std::move(vars), std::move(ext), body));
}

// Sequential loop: for (k = begin; k < end; k += step) f(k).
template <Operand B, Operand E, Operand S, class F>
void for_range(const B &begin, const E &end, const S &step, F &&f) {
  frontend::Tracer &t = frontend::Tracer::current();
  ir::Var k = t.fresh_var("k", ir::ScalarType::I64);
  ir::Stmt body = detail::trace_block_with(f, detail::index_var(k));
  t.emit(ir::For::make(k, detail::to_expr<int64_t>(begin), detail::to_expr<int64_t>(end),
                       detail::to_expr<int64_t>(step), body));
}
template <Operand B, Operand E, class F> void for_range(const B &begin, const E &end, F &&f) {
  for_range(begin, end, 1, std::forward<F>(f));
}
template <Operand E, class F> void for_range(const E &end, F &&f) {
  for_range(0, end, 1, std::forward<F>(f));
}

// while (cond) body. `cond` is re-evaluated before each iteration: build it from Vars, or pass a
// lambda returning it.
template <class C, class F> void while_(const C &cond, F &&body) {
  frontend::Tracer &t = frontend::Tracer::current();
  const size_t before = t.current_block().size();
  ir::Expr c;
  if constexpr (std::is_invocable_v<C>)
    c = detail::to_expr<bool>(cond());
  else
    c = detail::to_expr<bool>(cond);
  // A lambda that makes statements (a draw from a loom::Philox, a warp collective, an atomic, a
  // Var) would make them once, here, not before each test of the condition.
  if (t.current_block().size() != before)
    throw DslError("the condition of while_ makes statements (a draw from a loom::Philox, a warp "
                   "collective, an atomic or a Var), which would run once, before the loop, not "
                   "before each test: compute the condition into a Var before the loop and again "
                   "at the end of its body");
  ir::Stmt b = detail::trace_block(body);
  t.emit(ir::While::make(c, b));
}

// if_(c, [&]{..}).elif_(c2, [&]{..}).else_([&]{..}): the chain is rebuilt in place as each part
// is added, so it must be completed before other statements are emitted.
class IfChain {
public:
  template <Operand C, class F> IfChain &elif_(const C &cond, F &&f) {
    ir::Expr c = detail::to_expr<bool>(cond);
    // Statements that evaluating the condition made (a draw from a loom::Philox, a warp
    // collective) belong to the else branch of the arm before, where the condition is tested.
    auto &block = frontend::Tracer::current().current_block();
    std::vector<ir::Stmt> before(block.begin() + std::min(position_ + 1, block.size()),
                                 block.end());
    block.resize(std::min(position_ + 1, block.size()));
    arms_.push_back({c, detail::trace_block(f), std::move(before)});
    rebuild();
    return *this;
  }
  template <class F> void else_(F &&f) {
    else_body_ = detail::trace_block(f);
    rebuild();
  }

private:
  template <Operand C, class F> friend IfChain if_(const C &cond, F &&f);
  IfChain() = default;
  void rebuild() {
    ir::Stmt s = else_body_;
    for (auto it = arms_.rbegin(); it != arms_.rend(); ++it) {
      s = ir::IfThenElse::make(it->cond, it->body, s);
      if (!it->before.empty()) {
        std::vector<ir::Stmt> stmts = it->before;
        stmts.push_back(s);
        s = ir::Block::make(std::move(stmts));
      }
    }
    auto &block = frontend::Tracer::current().current_block();
    if (position_ + 1 != block.size())
      throw DslError("elif_/else_ must directly follow their if_");
    block[position_] = s;
  }

  struct Arm {
    ir::Expr cond;
    ir::Stmt body;
    std::vector<ir::Stmt> before; // made by evaluating `cond` (elif_ only)
  };
  std::vector<Arm> arms_;
  ir::Stmt else_body_;
  size_t position_ = 0;
};

template <Operand C, class F> IfChain if_(const C &cond, F &&f) {
  IfChain chain;
  ir::Expr c = detail::to_expr<bool>(cond);
  ir::Stmt then_body = detail::trace_block(f);
  auto &block = frontend::Tracer::current().current_block();
  block.push_back(ir::Stmt());
  chain.position_ = block.size() - 1;
  chain.arms_.push_back({c, then_body, {}});
  chain.rebuild();
  return chain;
}

} // namespace loom
