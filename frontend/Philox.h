// Counter-based random numbers in the embedded DSL: loom::Philox, Random123's Philox4x32-10.
//
//   loom::parallel_for(y.size(), [&](loom::Index i) {
//     loom::Philox g(seed, i);   // stream i of `seed`: every iteration its own, no state array
//     y[i] = g.uniform_f32();
//   });
//
// A generator is a few locals of the kernel (frontend/PhiloxIR.h writes it out as integer
// operations), so every target draws the same bits. Draw k of generator (seed, stream[, block])
// is word k % 4 of the Philox block of counter (block + k / 4, stream) under key seed;
// docs/semantics.md ("Random numbers") defines the conversions. Each draw is a statement made
// where it is called, into a local: a draw in a value given to while_ runs once, before the loop
// (a while_ condition given as a lambda that draws is a DslError).
//
// A generator is used where it was made: in the block that made it or blocks inside it, not
// across a parallel_for's body (made outside a parallel_for, it would give every iteration the
// same numbers; made before one at the top level, it would be drawn from in another launch).
// Either is a DslError when the kernel is traced. Wrong arguments are compile-time errors.
#pragma once

#include "frontend/PhiloxIR.h"
#include "frontend/Tracer.h"
#include "frontend/Value.h"
#include "support/Error.h"

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom {

namespace detail {

// Whether X is a DSL value or a C++ number of an integer type (bool is not one).
template <class X> constexpr bool philox_integer() {
  if constexpr (Operand<X>) {
    using T = operand_type_t<X>;
    return std::is_integral_v<T> && !std::is_same_v<T, bool>;
  } else {
    return false;
  }
}

template <class...> constexpr bool philox_never = false;

} // namespace detail

class Philox {
public:
  // Generator `stream` of `seed` (each an integer, converted to u64 as C++ converts), from its
  // first draw; with `block`, from draw 4 * block.
  template <class S, class T> Philox(const S &seed, const T &stream) : Philox(seed, stream, 0) {}
  template <class S, class T, class B> Philox(const S &seed, const T &stream, const B &block) {
    // Each fires for a float, bool or complex value or literal, or an array, given as that
    // argument: Philox g(x[i], i), Philox g(seed, 0.5), Philox g(seed, i, true).
    static_assert(detail::philox_integer<S>(),
                  "the seed of loom::Philox must be an integer (a loom::U64, I64, ... value or an "
                  "integer literal), not a float, a bool, a complex number or an array");
    static_assert(detail::philox_integer<T>(),
                  "the stream of loom::Philox must be an integer (a loom::Index, I64, ... value "
                  "or an integer literal), not a float, a bool, a complex number or an array");
    static_assert(
        detail::philox_integer<B>(),
        "the first block of loom::Philox must be an integer (a loom::U64, I64, ... "
        "value or an integer literal), not a float, a bool, a complex number or an array");
    frontend::Tracer &t = frontend::Tracer::current();
    std::vector<ir::Stmt> out;
    state_ =
        frontend::philox_make(out, "philox", detail::to_expr<uint64_t>(seed),
                              detail::to_expr<uint64_t>(stream), detail::to_expr<uint64_t>(block));
    emit(t, out);
    tracer_ = &t;
    block_ = t.block_id();
    parallel_bodies_ = t.parallel_bodies();
  }
  // Fires for Philox g(seed) and Philox g(seed, i, 0, 1).
  template <class... A>
  requires(sizeof...(A) < 2 || sizeof...(A) > 3) Philox(const A &...) {
    static_assert(detail::philox_never<A...>,
                  "loom::Philox takes 2 or 3 arguments: (seed, stream) or (seed, stream, block)");
  }
  // One generator is one stream: a copy would draw the same numbers again.
  Philox(const Philox &) = delete;
  Philox &operator=(const Philox &) = delete;

  // The next 32-bit word of the stream.
  U32 next_u32() { return U32(draw(frontend::PhiloxDraw::U32, "next_u32")); }
  // Uniform in [0, 1): (x >> 8) * 2^-24 of one word x.
  F32 uniform_f32() { return F32(draw(frontend::PhiloxDraw::UniformF32, "uniform_f32")); }
  // Uniform in [0, 1): the top 53 bits of two words a:b, times 2^-53.
  F64 uniform() { return F64(draw(frontend::PhiloxDraw::UniformF64, "uniform")); }
  // Standard normal (Box-Muller of two words; four for normal()).
  F32 normal_f32() { return F32(draw(frontend::PhiloxDraw::NormalF32, "normal_f32")); }
  F64 normal() { return F64(draw(frontend::PhiloxDraw::NormalF64, "normal")); }

  // An integer in [lo, hi) (lo when hi <= lo), unbiased (Lemire's multiply-shift with
  // rejection), of the type of lo + hi: i32 for randint(0, 6), i64 with an Index.
  template <class L, class H> auto randint(const L &lo, const H &hi) {
    // Fires for g.randint(0.0, 1.0), g.randint(0, x[i]) with a float x, g.randint(false, true).
    static_assert(detail::philox_integer<L>() && detail::philox_integer<H>(),
                  "the bounds of loom::Philox::randint must be integers, not floats, bools or "
                  "complex numbers");
    // As arithmetic between them types them: a literal takes the other bound's type.
    using R = promoted_t<detail::arith_result_t<L, H>>;
    std::vector<ir::Stmt> out;
    frontend::Tracer &t = use("randint");
    ir::Expr v =
        frontend::philox_randint(out, state_, detail::to_expr<R>(lo), detail::to_expr<R>(hi));
    emit(t, out);
    return Value<R>(v);
  }

private:
  static void emit(frontend::Tracer &t, std::vector<ir::Stmt> &stmts) {
    for (ir::Stmt &s : stmts)
      t.emit(std::move(s));
  }

  // The tracer, after checking that the generator may be drawn from here.
  frontend::Tracer &use(const char *method) const {
    frontend::Tracer &t = frontend::Tracer::current();
    std::string call = std::string("loom::Philox::") + method + "(): ";
    if (&t != tracer_ || !t.block_open(block_))
      throw DslError(call +
                     "the generator is used outside the block that made it (another kernel, or "
                     "after the parallel_for, for_range, while_ or if_ body it was made in); make "
                     "it where it is used");
    if (t.parallel_bodies() != parallel_bodies_) {
      if (t.in_parallel_body())
        throw DslError(call + "the generator was made outside this parallel_for, so every "
                              "iteration would draw the same numbers; make one in the loop's "
                              "body, a stream per iteration: loom::Philox g(seed, i)");
      throw DslError(call + "the generator was made before a parallel_for and is drawn from "
                            "after it: each part of a kernel between parallel loops runs as its "
                            "own launch; make the generator after the parallel_for");
    }
    return t;
  }

  ir::Expr draw(frontend::PhiloxDraw what, const char *method) {
    frontend::Tracer &t = use(method);
    std::vector<ir::Stmt> out;
    ir::Expr v = frontend::philox_draw(out, state_, what);
    emit(t, out);
    return v;
  }

  frontend::PhiloxState state_;
  frontend::Tracer *tracer_ = nullptr;
  uint64_t block_ = 0;
  int parallel_bodies_ = 0;
};

} // namespace loom
