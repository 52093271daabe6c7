// Complex numbers' parts in the embedded DSL: real(z), imag(z), conj(z). The types (C64, C128),
// literals (std::complex, `2.0i`), C64(re, im) and the arithmetic and math of complex numbers
// are in frontend/Value.h.
#pragma once

#include "frontend/Value.h"

namespace loom {

// The real part, the imaginary part and the conjugate of a complex number; real and imag are of
// its parts' type (f32 for a c64). Of a real number x, as NumPy's: x, 0 and x, in x's float type
// (f64 for an integer, as loom's math computes integers).
template <DslExpr X> auto real(const X &x) {
  using R = detail::math_type_t<X>;
  return detail::call<complex_part_t<R>>(ir::MathFn::Real, {detail::to_expr<R>(x)});
}
template <DslExpr X> auto imag(const X &x) {
  using R = detail::math_type_t<X>;
  return detail::call<complex_part_t<R>>(ir::MathFn::Imag, {detail::to_expr<R>(x)});
}
template <DslExpr X> auto conj(const X &x) {
  using R = detail::math_type_t<X>;
  return detail::call<R>(ir::MathFn::Conj, {detail::to_expr<R>(x)});
}

} // namespace loom
