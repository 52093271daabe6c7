#include "ir/MathFunctions.h"

namespace loom::ir {

namespace {

using A = MathArgs;
using I = MathImpl;
constexpr bool kExact = true, kInexact = false;

// Ulps: between targets (f32, f64), then glibc's (f32, f64) and libdevice's (f32, f64) documented
// maxima: the GNU C Library manual's "Errors in Math Functions" for x86_64 and the CUDA C
// Programming Guide's "Mathematical Functions" appendix.
constexpr MathFnInfo kTable[] = {
    {MathFn::Sqrt, "sqrt", "sqrt", 1, A::Float, I::Inline, kExact, 0, 0, 0, 0, 0, 0},
    {MathFn::Exp, "exp", "exp", 1, A::Float, I::Library, kInexact, 8, 8, 1, 1, 2, 1},
    {MathFn::Log, "log", "log", 1, A::Float, I::Library, kInexact, 8, 8, 1, 1, 1, 1},
    {MathFn::Sin, "sin", "sin", 1, A::Float, I::Library, kInexact, 8, 8, 1, 1, 2, 2},
    {MathFn::Cos, "cos", "cos", 1, A::Float, I::Library, kInexact, 8, 8, 1, 1, 2, 2},
    {MathFn::Tanh, "tanh", "tanh", 1, A::Float, I::Library, kInexact, 8, 8, 2, 2, 2, 2},
    // CUDA documents powf at 4 ulps; 5.24 from the exact value was measured on an H200
    {MathFn::Pow, "pow", "pow", 2, A::Float, I::Library, kInexact, 8, 8, 1, 1, 6, 2},
    {MathFn::Abs, "abs", "fabs", 1, A::FloatOrInt, I::Inline, kExact, 0, 0, 0, 0, 0, 0},
    {MathFn::Floor, "floor", "floor", 1, A::Float, I::Inline, kExact, 0, 0, 0, 0, 0, 0},
    {MathFn::Fma, "fma", "fma", 3, A::Float, I::Inline, kExact, 0, 0, 0, 0, 0, 0},
    {MathFn::Acos, "acos", "acos", 1, A::Float, I::Library, kInexact, 4, 4, 1, 1, 2, 2},
    {MathFn::Acosh, "acosh", "acosh", 1, A::Float, I::Library, kInexact, 8, 6, 2, 2, 4, 3},
    {MathFn::Asin, "asin", "asin", 1, A::Float, I::Library, kInexact, 4, 4, 1, 1, 2, 2},
    {MathFn::Asinh, "asinh", "asinh", 1, A::Float, I::Library, kInexact, 6, 6, 2, 2, 3, 3},
    {MathFn::Atan, "atan", "atan", 1, A::Float, I::Library, kInexact, 4, 4, 1, 1, 2, 2},
    {MathFn::Atan2, "atan2", "atan2", 2, A::Float, I::Library, kInexact, 6, 4, 1, 1, 3, 2},
    {MathFn::Atanh, "atanh", "atanh", 1, A::Float, I::Library, kInexact, 6, 6, 2, 2, 3, 2},
    {MathFn::Cbrt, "cbrt", "cbrt", 1, A::Float, I::Library, kInexact, 4, 6, 1, 4, 1, 1},
    {MathFn::Ceil, "ceil", "ceil", 1, A::Float, I::Inline, kExact, 0, 0, 0, 0, 0, 0},
    {MathFn::Copysign, "copysign", "copysign", 2, A::Float, I::Inline, kExact, 0, 0, 0, 0, 0, 0},
    {MathFn::Cosh, "cosh", "cosh", 1, A::Float, I::Library, kInexact, 6, 6, 2, 2, 2, 2},
    {MathFn::Erf, "erf", "erf", 1, A::Float, I::Library, kInexact, 4, 4, 1, 1, 2, 2},
    {MathFn::Erfc, "erfc", "erfc", 1, A::Float, I::Library, kInexact, 8, 12, 3, 5, 4, 5},
    {MathFn::Exp2, "exp2", "exp2", 1, A::Float, I::Library, kInexact, 4, 4, 1, 1, 2, 1},
    {MathFn::Expm1, "expm1", "expm1", 1, A::Float, I::Library, kInexact, 4, 4, 1, 1, 1, 1},
    // CUDA documents tgammaf at 5 ulps; 7.11 from the exact value was measured on an H200
    {MathFn::Gamma, "gamma", "tgamma", 1, A::Float, I::Library, kInexact, 16, 24, 8, 9, 8, 10},
    {MathFn::Hypot, "hypot", "hypot", 2, A::Float, I::Library, kInexact, 6, 4, 1, 1, 3, 2},
    {MathFn::IsFinite, "isfinite", "isfinite", 1, A::Classify, I::Inline, kExact, 0, 0, 0, 0, 0, 0},
    {MathFn::IsInf, "isinf", "isinf", 1, A::Classify, I::Inline, kExact, 0, 0, 0, 0, 0, 0},
    {MathFn::IsNan, "isnan", "isnan", 1, A::Classify, I::Inline, kExact, 0, 0, 0, 0, 0, 0},
    {MathFn::Ldexp, "ldexp", "ldexp", 2, A::FloatAndExp, I::Inline, kExact, 0, 0, 0, 0, 0, 0},
    {MathFn::Lgamma, "lgamma", "lgamma", 1, A::Float, I::Library, kInexact, 16, 16, 7, 4, 6, 4},
    {MathFn::Log10, "log10", "log10", 1, A::Float, I::Library, kInexact, 6, 4, 2, 2, 2, 1},
    {MathFn::Log1p, "log1p", "log1p", 1, A::Float, I::Library, kInexact, 4, 4, 1, 1, 1, 1},
    {MathFn::Log2, "log2", "log2", 1, A::Float, I::Library, kInexact, 4, 4, 1, 1, 1, 1},
    {MathFn::Remainder, "remainder", "remainder", 2, A::Float, I::Library, kExact, 0, 0, 0, 0, 0,
     0},
    {MathFn::Round, "round", "roundeven", 1, A::Float, I::Inline, kExact, 0, 0, 0, 0, 0, 0},
    {MathFn::Rsqrt, "rsqrt", "rsqrt", 1, A::Float, I::Inline, kInexact, 4, 4, 1, 1, 2, 1},
    {MathFn::Sign, "sign", "sign", 1, A::FloatOrInt, I::Inline, kExact, 0, 0, 0, 0, 0, 0},
    {MathFn::Sinh, "sinh", "sinh", 1, A::Float, I::Library, kInexact, 6, 6, 2, 2, 3, 2},
    {MathFn::Tan, "tan", "tan", 1, A::Float, I::Library, kInexact, 6, 4, 1, 1, 4, 2},
    {MathFn::Trunc, "trunc", "trunc", 1, A::Float, I::Inline, kExact, 0, 0, 0, 0, 0, 0},
    // Complex numbers' parts: no target computes these, ir/ExpandComplex.cpp replaces them.
    {MathFn::Real, "real", "creal", 1, A::Part, I::Inline, kExact, 0, 0, 0, 0, 0, 0},
    {MathFn::Imag, "imag", "cimag", 1, A::Part, I::Inline, kExact, 0, 0, 0, 0, 0, 0},
    {MathFn::Conj, "conj", "conj", 1, A::Part, I::Inline, kExact, 0, 0, 0, 0, 0, 0},
    {MathFn::Complex, "complex", "CMPLX", 2, A::Parts, I::Inline, kExact, 0, 0, 0, 0, 0, 0},
};
constexpr bool rows_in_enum_order() {
  for (int k = 0; k < kMathFnCount; ++k)
    if (static_cast<int>(kTable[k].fn) != k)
      return false;
  return true;
}
static_assert(sizeof(kTable) / sizeof(kTable[0]) == kMathFnCount, "one row per MathFn");
static_assert(rows_in_enum_order(), "rows in MathFn's order");

} // namespace

const MathFnInfo &math_info(MathFn fn) {
  return kTable[static_cast<int>(fn)];
}

namespace {
bool takes_complex(MathFn fn) {
  switch (fn) {
  case MathFn::Abs:
  case MathFn::Sqrt:
  case MathFn::Exp:
  case MathFn::Log:
  case MathFn::Sin:
  case MathFn::Cos:
  case MathFn::Tanh:
  case MathFn::Pow:
  case MathFn::IsFinite:
  case MathFn::IsInf:
  case MathFn::IsNan:
  case MathFn::Real:
  case MathFn::Imag:
  case MathFn::Conj:
    return true;
  default:
    return false;
  }
}
} // namespace

bool math_takes(MathFn fn, ScalarType t) {
  if (is_half_float(t)) // computed as f32 and rounded (ir/ExpandHalf.cpp); no complex parts
    return math_info(fn).args != MathArgs::Parts && math_takes(fn, ScalarType::F32);
  if (is_complex(t))
    return takes_complex(fn);
  return math_info(fn).args == MathArgs::FloatOrInt ? is_float(t) || is_int(t) : is_float(t);
}

const char *math_takes_what(MathFn fn) {
  if (math_info(fn).args == MathArgs::FloatOrInt)
    return "a float, an integer or a complex number";
  if (math_info(fn).args == MathArgs::Parts)
    return "two floats of one type";
  return takes_complex(fn) ? "floats or complex numbers" : "floats";
}

ScalarType math_result_type(MathFn fn, ScalarType t) {
  switch (math_info(fn).args) {
  case MathArgs::Classify:
    return ScalarType::Bool;
  case MathArgs::Parts:
    return complex_of(t);
  default:
    return fn == MathFn::Abs || fn == MathFn::Real || fn == MathFn::Imag ? part_type(t) : t;
  }
}

} // namespace loom::ir
