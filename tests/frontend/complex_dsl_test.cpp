// Complex numbers in the embedded C++ DSL: loom::C64 and loom::C128 (std::complex<float> and
// std::complex<double>), their promotion with real values and literals, arithmetic, math,
// compound assignment and reductions, casts, parts, arguments; each kernel run through the public
// API on every target (the GPU instances skip without a GPU) and, where said, the IR interpreter,
// against std::complex<double>.
//
// Tolerances: a c64 result may be off from the std::complex<double> of the same (c64-rounded)
// inputs by 1e-5 of max(|want|, 1), a c128 one by 1e-12 of it (the error is measured as the
// distance in the complex plane).
//
// The DSL refuses at compile time, with a static_assert, what complex numbers do not take; each
// of these was checked to fail to compile with the message after it (frontend/Value.h,
// frontend/Simt.h), for complex z and w, an f32 x and a complex array a:
// - z < w, z >= 0.0: "complex numbers are not ordered: <, <=, > and >= take real numbers"
// - loom::min(z, w), max(z, 1.0): "complex numbers are not ordered: min takes real numbers" (an
//   unqualified min(z, w) of two complex values finds std::min by ADL, which fails at its `<`
//   with the message above)
// - z % w, z %= w: "% takes real numbers, not complex ones"
// - z & w, z |= w, z ^ 1: "bitwise operators need integer operands, not complex ones"
// - z << 1, z >>= 1: "shifts need integer operands, not complex ones"; ~z: "~ needs an integer
//   operand"
// - floor(z), atan(z), erf(z) and every other real function: "floor takes real numbers, not
//   complex ones"; atan2(z, 1.0), hypot(z, w), copysign(z, x), sign(z), fmod(z, 2.0),
//   fma(z, w, 1.0), ldexp(z, 2), radians(z), degrees(z) alike; fabs(z) adds "(abs(z) is a
//   complex number's magnitude)"
// - F32 y = z; o_f32[i] = z; x_var += z; a[z]; F32 y(2.0i): "a complex number does not become a
//   real one implicitly (its imaginary part would be lost): ..."
// - C64(z, 1.0f): "a complex number is made from two real numbers"
// - shared_array<std::complex<float>>(256): "shared arrays do not hold complex numbers"
// - atomic_add(a[0], z): "atomics take i32, i64, f32 or f64 elements, not complex ones"
// - shfl_sync(z, 0): "warp shuffles take i32, i64, f32 or f64, not complex numbers"
#include "ir/Interpreter.h"
#include "ir/Printer.h"
#include "support/TestUtil.h"

#include <complex>
#include <cstring>
#include <random>
#include <type_traits>

using namespace loom;
using namespace std::complex_literals;
using loomtest::random_vector;

namespace {

using c64 = std::complex<float>;
using c128 = std::complex<double>;
using cd = std::complex<double>;

template <class X, class T> constexpr bool has_type = std::is_same_v<X, Value<T>>;

template <class F>
std::vector<std::complex<F>> random_complex(size_t n, double lo, double hi, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<std::complex<F>> v(n);
  for (auto &z : v)
    z = {static_cast<F>(d(rng)), static_cast<F>(d(rng))};
  return v;
}

template <class F> constexpr double tolerance = std::is_same_v<F, float> ? 1e-5 : 1e-12;

// |got - want| within tol of max(|want|, 1).
#define EXPECT_CLOSE(got, want, tol, what)                                                         \
  do {                                                                                             \
    const cd got_ = cd(got), want_ = cd(want);                                                     \
    EXPECT_LE(std::abs(got_ - want_), (tol)*std::max(std::abs(want_), 1.0))                        \
        << (what) << ": got " << got_ << ", want " << want_;                                       \
  } while (0)

// ---- types --------------------------------------------------------------------------------------

TEST(ComplexTypes, PromotionFollowsNumPy) {
  trace("p",
        [](C64 z, C128 w, F32 x, F64 d, I32 n, I64 m, Bool b) {
          // Between values: the complex type of the promoted parts (ir::promote).
          static_assert(has_type<decltype(z + x), c64>);
          static_assert(has_type<decltype(z * d), c128>); // c64 with f64 is c128
          static_assert(has_type<decltype(z - n), c64>);
          static_assert(has_type<decltype(m / z), c64>); // c64 with i64 stays c64
          static_assert(has_type<decltype(z + b), c64>);
          static_assert(has_type<decltype(z * w), c128>);
          static_assert(has_type<decltype(w * x), c128>);
          static_assert(has_type<decltype(-z), c64>);
          static_assert(has_type<decltype(z == w), bool>);
          static_assert(has_type<decltype(z != x), bool>);
          static_assert(has_type<decltype(select(b, z, x)), c64>);
          static_assert(std::is_same_v<promote_t<c64, double>, c128>);
          static_assert(std::is_same_v<promote_t<int64_t, c64>, c64>);
          EXPECT_EQ(ir::to_string((z * d).expr()), "c128(z) * c128(d)");
        },
        {"z", "w", "x", "d", "n", "m", "b"});
}

TEST(ComplexTypes, LiteralsAreWeaklyTyped) {
  trace("l",
        [](C64 z, C128 w, F32 x, F64 d, I32 n) {
          // A complex value keeps its type with any literal.
          static_assert(has_type<decltype(z * 2.0), c64>);
          static_assert(has_type<decltype(2 * z), c64>);
          static_assert(has_type<decltype(z * 2.0i), c64>);
          static_assert(has_type<decltype(z + c128(1, 2)), c64>);
          static_assert(has_type<decltype(w * 2.0if), c128>);
          // A float value with a complex literal: the complex type of its precision.
          static_assert(has_type<decltype(x * 1.0i), c64>);
          static_assert(has_type<decltype(1.0i * x), c64>);
          static_assert(has_type<decltype(d * 1.0if), c128>);
          // An integer value with a complex literal: the literal's type.
          static_assert(has_type<decltype(n * 1.0i), c128>);
          static_assert(has_type<decltype(n * 1.0if), c64>);
          static_assert(std::is_same_v<literal_promote_t<float, c128>, c64>);
          static_assert(std::is_same_v<literal_promote_t<int32_t, c64>, c64>);
          EXPECT_EQ(ir::to_string((z * 2.0).expr()), "z * complex(2.0f, 0.0f)");
          EXPECT_EQ(ir::to_string((x * 1.5i).expr()), "c64(x) * complex(0.0f, 1.5f)");
        },
        {"z", "w", "x", "d", "n"});
}

TEST(ComplexTypes, FunctionsAndParts) {
  trace("f",
        [](C64 z, C128 w, F32 x, I32 n) {
          static_assert(has_type<decltype(abs(z)), float>); // the magnitude: the parts' type
          static_assert(has_type<decltype(abs(w)), double>);
          static_assert(has_type<decltype(real(z)), float>);
          static_assert(has_type<decltype(imag(w)), double>);
          static_assert(has_type<decltype(conj(z)), c64>);
          static_assert(has_type<decltype(real(x)), float>); // of a real number: x, 0, x
          static_assert(has_type<decltype(imag(x)), float>);
          static_assert(has_type<decltype(conj(x)), float>);
          static_assert(has_type<decltype(real(n)), double>); // integers in f64, as other math
          static_assert(has_type<decltype(sqrt(z)), c64>);
          static_assert(has_type<decltype(exp(w)), c128>);
          static_assert(has_type<decltype(log(z)), c64>);
          static_assert(has_type<decltype(sin(z)), c64>);
          static_assert(has_type<decltype(cos(z)), c64>);
          static_assert(has_type<decltype(tanh(z)), c64>);
          static_assert(has_type<decltype(pow(z, 2)), c64>);
          static_assert(has_type<decltype(pow(z, w)), c128>);
          static_assert(has_type<decltype(pow(x, 0.5i)), c64>);
          static_assert(has_type<decltype(isnan(z)), bool>);
          static_assert(has_type<decltype(isinf(z)), bool>);
          static_assert(has_type<decltype(isfinite(w)), bool>);
          static_assert(has_type<decltype(cast<float>(z)), float>);
          static_assert(has_type<decltype(cast<c128>(x)), c128>);
          static_assert(has_type<decltype(C64(x, 2)), c64>);
          EXPECT_EQ(ir::to_string(C64(x, 2).expr()), "complex(x, 2.0f)");
          EXPECT_EQ(ir::to_string(abs(z).expr()), "abs(z)");
          EXPECT_EQ(ir::to_string(real(n).expr()), "real(f64(n))");
        },
        {"z", "w", "x", "n"});
}

// ---- kernels ------------------------------------------------------------------------------------

class Complex : public loomtest::TargetTest {};

// The IR of a host vector of complex numbers, as the interpreter takes it.
template <class T> ir::Buffer buffer_of(const std::vector<T> &v) {
  ir::Buffer b(dtype_of<T>(), {static_cast<int64_t>(v.size())});
  std::memcpy(b.data(), v.data(), v.size() * sizeof(T));
  return b;
}
template <class T> std::vector<T> vector_of(const ir::Buffer &b) {
  std::vector<T> v(b.size());
  std::memcpy(v.data(), b.bytes.data(), v.size() * sizeof(T));
  return v;
}

template <class F> Kernel elementwise_kernel() {
  using C = std::complex<F>;
  return kernel("complex_elementwise",
                [](Array<C> z, Array<C> w, Array<C> prod, Array<C> quot, Array<C> cj, Array<F> mag,
                   Array<C> ex, Array<C> lg, Array<C> sq, Array<C> pw, Array<C> sn, Array<C> cs,
                   Array<C> th) {
                  parallel_for(z.size(), [&](Index i) {
                    prod[i] = z[i] * w[i];
                    quot[i] = z[i] / w[i];
                    cj[i] = conj(z[i]);
                    mag[i] = abs(z[i]);
                    ex[i] = exp(z[i]);
                    lg[i] = log(z[i]);
                    sq[i] = sqrt(z[i]);
                    pw[i] = pow(z[i], w[i]);
                    sn[i] = sin(z[i]);
                    cs[i] = cos(z[i]);
                    th[i] = tanh(z[i]);
                  });
                });
}

template <class F> void check_elementwise(Kernel &k, bool interpreter) {
  using C = std::complex<F>;
  const size_t n = 1001;
  // |z| and |w| at most 2*sqrt(2): exp and pow stay in range; w away from 0 for the quotient.
  std::vector<C> z = random_complex<F>(n, -2, 2, 11), w = random_complex<F>(n, -2, 2, 12);
  for (C &v : w)
    if (std::abs(v) < 0.1)
      v = C(1, 0);
  std::vector<C> prod(n), quot(n), cj(n), ex(n), lg(n), sq(n), pw(n), sn(n), cs(n), th(n);
  std::vector<F> mag(n);
  if (interpreter) {
    std::vector<ir::InterpreterArg> args{ir::InterpreterArg::of_array(buffer_of(z)),
                                         ir::InterpreterArg::of_array(buffer_of(w))};
    for (int a = 0; a < 11; ++a)
      args.push_back(ir::InterpreterArg::of_array(
          ir::Buffer(a == 3 ? dtype_of<F>() : dtype_of<C>(), {static_cast<int64_t>(n)})));
    ir::interpret(k.ir(), args);
    prod = vector_of<C>(args[2].array), quot = vector_of<C>(args[3].array);
    cj = vector_of<C>(args[4].array), mag = vector_of<F>(args[5].array);
    ex = vector_of<C>(args[6].array), lg = vector_of<C>(args[7].array);
    sq = vector_of<C>(args[8].array), pw = vector_of<C>(args[9].array);
    sn = vector_of<C>(args[10].array), cs = vector_of<C>(args[11].array);
    th = vector_of<C>(args[12].array);
  } else {
    k(z, w, prod, quot, cj, mag, ex, lg, sq, pw, sn, cs, th);
  }
  const double tol = tolerance<F>;
  for (size_t i = 0; i < n; ++i) {
    const cd a(z[i]), b(w[i]);
    EXPECT_CLOSE(prod[i], a * b, tol, "z * w at " + std::to_string(i));
    EXPECT_CLOSE(quot[i], a / b, tol, "z / w at " + std::to_string(i));
    EXPECT_EQ(cj[i], std::conj(z[i])) << i;
    EXPECT_CLOSE(mag[i], std::abs(a), tol, "abs(z) at " + std::to_string(i));
    EXPECT_CLOSE(ex[i], std::exp(a), tol, "exp(z) at " + std::to_string(i));
    EXPECT_CLOSE(lg[i], std::log(a), tol, "log(z) at " + std::to_string(i));
    EXPECT_CLOSE(sq[i], std::sqrt(a), tol, "sqrt(z) at " + std::to_string(i));
    EXPECT_CLOSE(pw[i], std::pow(a, b), tol, "pow(z, w) at " + std::to_string(i));
    EXPECT_CLOSE(sn[i], std::sin(a), tol, "sin(z) at " + std::to_string(i));
    EXPECT_CLOSE(cs[i], std::cos(a), tol, "cos(z) at " + std::to_string(i));
    EXPECT_CLOSE(th[i], std::tanh(a), tol, "tanh(z) at " + std::to_string(i));
  }
}

TEST_P(Complex, ElementwiseC64) {
  Kernel k = elementwise_kernel<float>();
  check_elementwise<float>(prepare(k), false);
}
TEST_P(Complex, ElementwiseC128) {
  Kernel k = elementwise_kernel<double>();
  check_elementwise<double>(prepare(k), false);
}
// The GPU's code needs no GPU to be generated: complex kernels lower and compile to PTX.
TEST(ComplexPtx, ElementwiseAndReductionCompileToPtx) {
  Kernel k = elementwise_kernel<float>();
  EXPECT_NE(k.ptx("sm_80").find(".entry"), std::string::npos);
  Kernel sum = kernel("complex_sum", [](Array<c128> z, Array<c128> total) {
    parallel_for(z.size(), [&](Index i) { total[0] += z[i]; });
  });
  EXPECT_NE(sum.ptx("sm_80").find(".entry"), std::string::npos);
}

TEST(ComplexInterpreter, ElementwiseC64AndC128) {
  Kernel k64 = elementwise_kernel<float>(), k128 = elementwise_kernel<double>();
  check_elementwise<float>(k64, true);
  check_elementwise<double>(k128, true);
}

TEST_P(Complex, ScalarArguments) {
  Kernel k =
      kernel("complex_scalar", [](C64 s, C128 t, Array<c64> z, Array<c64> out, Array<c128> out2) {
        parallel_for(z.size(), [&](Index i) {
          out[i] = s * z[i] + s;
          out2[i] = t * z[i];
        });
      });
  prepare(k);
  std::vector<c64> z = random_complex<float>(257, -3, 3, 21), out(z.size());
  std::vector<c128> out2(z.size());
  const c64 s(0.5f, -1.5f);
  const c128 t(-0.25, 2.0);
  k(s, t, z, out, out2);
  for (size_t i = 0; i < z.size(); ++i) {
    EXPECT_CLOSE(out[i], cd(s) * cd(z[i]) + cd(s), 1e-5, "s * z + s");
    EXPECT_CLOSE(out2[i], t * cd(z[i]), 1e-12, "t * z");
  }
  // A real scalar becomes complex with a zero imaginary part; a c128 converts to a c64 parameter.
  k(2.0f, c128(0.1, 0.2), z, out, out2);
  for (size_t i = 0; i < z.size(); ++i) {
    EXPECT_CLOSE(out[i], 2.0 * cd(z[i]) + 2.0, 1e-5, "2 * z + 2");
    EXPECT_CLOSE(out2[i], cd(0.1, 0.2) * cd(z[i]), 1e-12, "t * z");
  }
  k(c128(0.1, 0.2), 3, z, out, out2);
  const cd s2(c64(c128(0.1, 0.2))); // rounded to c64 as the argument is
  for (size_t i = 0; i < z.size(); ++i) {
    EXPECT_CLOSE(out[i], s2 * cd(z[i]) + s2, 1e-5, "s * z + s");
    EXPECT_CLOSE(out2[i], 3.0 * cd(z[i]), 1e-12, "3 * z");
  }
}

TEST_P(Complex, MixedWithRealValuesAndLiterals) {
  Kernel k =
      kernel("complex_mixed", [](Array<c64> z, Array<float> x, Array<double> d, Array<int32_t> n,
                                 Array<c64> o1, Array<c128> o2, Array<c64> o3, Array<c64> o4,
                                 Array<c64> o5, Array<c128> o6, Array<c128> o7, Array<c64> o8) {
        parallel_for(z.size(), [&](Index i) {
          static_assert(has_type<decltype(z[i] * x[i]), c64>);
          static_assert(has_type<decltype(z[i] * d[i]), c128>);
          static_assert(has_type<decltype(z[i] + n[i]), c64>);
          static_assert(has_type<decltype(z[i] * 2.0 + 1.0i), c64>);
          static_assert(has_type<decltype(x[i] * 1.0i), c64>);
          static_assert(has_type<decltype(d[i] * 1.0if), c128>);
          static_assert(has_type<decltype(n[i] * 2.0i), c128>);
          static_assert(has_type<decltype(n[i] * c64(1, 2)), c64>);
          o1[i] = z[i] * x[i];
          o2[i] = z[i] * d[i];
          o3[i] = z[i] + n[i];
          o4[i] = z[i] * 2.0 + 1.0i;
          o5[i] = x[i] * 1.0i - 3;
          o6[i] = d[i] * 1.0if + 0.5;
          o7[i] = n[i] * 2.0i;
          o8[i] = n[i] * c64(1, 2) - z[i] / 2;
        });
      });
  prepare(k);
  const size_t len = 301;
  std::vector<c64> z = random_complex<float>(len, -3, 3, 31);
  std::vector<float> x = random_vector<float>(len, -3, 3, 32);
  std::vector<double> d = random_vector<double>(len, -3, 3, 33);
  std::vector<int32_t> n = random_vector<int32_t>(len, -100, 100, 34);
  std::vector<c64> o1(len), o3(len), o4(len), o5(len), o8(len);
  std::vector<c128> o2(len), o6(len), o7(len);
  k(z, x, d, n, o1, o2, o3, o4, o5, o6, o7, o8);
  for (size_t i = 0; i < len; ++i) {
    const cd a(z[i]);
    EXPECT_CLOSE(o1[i], a * double(x[i]), 1e-5, "z * x");
    EXPECT_CLOSE(o2[i], a * d[i], 1e-12, "z * d"); // computed in c128
    EXPECT_CLOSE(o3[i], a + double(n[i]), 1e-5, "z + n");
    EXPECT_CLOSE(o4[i], a * 2.0 + 1.0i, 1e-5, "z * 2 + 1i");
    EXPECT_CLOSE(o5[i], double(x[i]) * 1.0i - 3.0, 1e-5, "x * 1i - 3");
    EXPECT_CLOSE(o6[i], d[i] * 1.0i + 0.5, 1e-12, "d * 1i + 0.5");
    EXPECT_CLOSE(o7[i], double(n[i]) * 2.0i, 1e-12, "n * 2i");
    EXPECT_CLOSE(o8[i], double(n[i]) * cd(1, 2) - a / 2.0, 1e-5, "n * (1+2i) - z / 2");
  }
}

// A complex += into one element from every iteration of a parallel loop: two real reductions.
TEST_P(Complex, SumReductionIntoOneElement) {
  Kernel k = kernel("complex_dot", [](Array<c128> z, Array<c128> w, Array<c128> dot, Array<c64> zf,
                                      Array<c64> sum) {
    parallel_for(z.size(), [&](Index i) {
      dot[0] += z[i] * conj(w[i]);
      sum[1] -= zf[i];
    });
  });
  prepare(k);
  const size_t n = 10007;
  std::vector<c128> z = random_complex<double>(n, -1, 1, 41),
                    w = random_complex<double>(n, -1, 1, 42);
  std::vector<c64> zf = random_complex<float>(n, -1, 1, 43);
  std::vector<c128> dot{c128(1, -1)};
  std::vector<c64> sum{c64(5, 5), c64(0.5f, 0.25f)};
  cd want = dot[0], want_sum = cd(sum[1]);
  double magnitude = 0, magnitude_sum = 0;
  for (size_t i = 0; i < n; ++i) {
    want += z[i] * std::conj(w[i]), magnitude += std::abs(z[i] * w[i]);
    want_sum -= cd(zf[i]), magnitude_sum += std::abs(cd(zf[i]));
  }
  k(z, w, dot, zf, sum);
  // Summed in another order: off by a few ulps of the sum of the magnitudes.
  EXPECT_LE(std::abs(dot[0] - want), 1e-14 * magnitude) << dot[0] << " vs " << want;
  EXPECT_LE(std::abs(cd(sum[1]) - want_sum), 1e-6 * magnitude_sum) << sum[1] << " vs " << want_sum;
  EXPECT_EQ(sum[0], c64(5, 5)); // not touched
}

// Compound assignment on complex locals and array elements.
TEST_P(Complex, CompoundAssignment) {
  Kernel k = kernel("complex_compound", [](Array<c128> z, Array<c128> w, Array<c128> power,
                                           Array<c128> mixed, Array<c64> elems) {
    parallel_for(z.size(), [&](Index i) {
      Var<c128> p("p", 1.0);
      for_range(5, [&](Index) { p *= z[i]; });
      power[i] = p;
      Var acc = z[i]; // deduced as c128
      static_assert(std::is_same_v<decltype(acc), Var<c128>>);
      acc += w[i];
      acc -= 2.0i;
      acc *= 0.5;
      acc /= w[i];
      acc += 1.0f; // a real operand
      mixed[i] = acc;
      elems[i] *= 2.0i;
      elems[i] /= c64(1, 1);
      elems[i] += 1;
      elems[i] -= z[i]; // c128 into a c64 element: computed in c128, stored as c64
    });
  });
  prepare(k);
  const size_t n = 513;
  std::vector<c128> z = random_complex<double>(n, -1.5, 1.5, 51),
                    w = random_complex<double>(n, 0.5, 2, 52), power(n), mixed(n);
  std::vector<c64> elems = random_complex<float>(n, -2, 2, 53), original = elems;
  k(z, w, power, mixed, elems);
  for (size_t i = 0; i < n; ++i) {
    cd p = 1;
    for (int j = 0; j < 5; ++j)
      p *= z[i];
    EXPECT_CLOSE(power[i], p, 1e-12, "z^5 by *=");
    EXPECT_CLOSE(mixed[i], ((z[i] + w[i] - 2.0i) * 0.5) / w[i] + 1.0, 1e-12, "+= -= *= /=");
    EXPECT_CLOSE(elems[i], cd(original[i]) * 2.0i / cd(1, 1) + 1.0 - z[i], 1e-5, "element ops");
  }
}

TEST_P(Complex, CastsPartsAndConstruction) {
  Kernel k = kernel("complex_parts",
                    [](Array<c64> z, Array<float> x, Array<c64> from_real, Array<float> re,
                       Array<double> im, Array<int32_t> trunc, Array<c128> widened,
                       Array<c64> swapped, Array<c64> made, Array<float> parts_of_real) {
                      parallel_for(z.size(), [&](Index i) {
                        from_real[i] = cast<c64>(x[i]) + x[i]; // a real converts implicitly too
                        re[i] = cast<float>(z[i]);             // the real part
                        im[i] = imag(z[i]);                    // f32, stored into f64
                        trunc[i] = cast<int32_t>(z[i] * 10.0);
                        widened[i] = cast<c128>(z[i]);
                        swapped[i] = C64(imag(z[i]), real(z[i])) + conj(z[i]);
                        made[i] = C64(x[i], 2) * C128(0.5, x[i] * 2.0); // c64 * c128 stored as c64
                        parts_of_real[i] = real(x[i]) + imag(x[i]) + conj(x[i]);
                      });
                    });
  prepare(k);
  const size_t n = 129;
  std::vector<c64> z = random_complex<float>(n, -3, 3, 61), from_real(n), swapped(n), made(n);
  std::vector<float> x = random_vector<float>(n, -3, 3, 62), re(n), parts_of_real(n);
  std::vector<double> im(n);
  std::vector<int32_t> trunc(n);
  std::vector<c128> widened(n);
  k(z, x, from_real, re, im, trunc, widened, swapped, made, parts_of_real);
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(from_real[i], c64(2 * x[i], 0)) << i;
    EXPECT_EQ(re[i], z[i].real()) << i;
    EXPECT_EQ(im[i], double(z[i].imag())) << i;
    EXPECT_EQ(trunc[i], int32_t(z[i].real() * 10.0f)) << i;
    EXPECT_EQ(widened[i], c128(z[i])) << i;
    EXPECT_EQ(swapped[i], c64(z[i].imag() + z[i].real(), z[i].real() - z[i].imag())) << i;
    EXPECT_CLOSE(made[i], cd(x[i], 2) * cd(0.5, double(x[i]) * 2), 1e-5, "C64(x, 2) * C128(..)");
    EXPECT_EQ(parts_of_real[i], 2 * x[i]) << i;
  }
}

TEST_P(Complex, ClassificationAndComparison) {
  Kernel k = kernel("complex_classify", [](Array<c64> z, Array<c64> w, Array<int32_t> bits) {
    parallel_for(z.size(), [&](Index i) {
      bits[i] = select(isfinite(z[i]), 1, 0) + select(isinf(z[i]), 2, 0) +
                select(isnan(z[i]), 4, 0) + select(z[i] == w[i], 8, 0) +
                select(z[i] != w[i], 16, 0) + select(z[i], 32, 0) + select(!z[i], 64, 0);
    });
  });
  prepare(k);
  const float inf = std::numeric_limits<float>::infinity(),
              nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<c64> z{c64(1, 2), c64(inf, 0), c64(nan, 1), c64(0, 0), c64(0, -inf)};
  std::vector<c64> w{c64(1, 2), c64(1, 0), c64(nan, 1), c64(0, 0), c64(0, 1)};
  std::vector<int32_t> bits(z.size(), -1);
  k(z, w, bits);
  EXPECT_EQ(bits[0], 1 + 8 + 32);
  EXPECT_EQ(bits[1], 2 + 16 + 32);
  EXPECT_EQ(bits[2], 4 + 16 + 32); // NaN != NaN
  EXPECT_EQ(bits[3], 1 + 8 + 64);
  EXPECT_EQ(bits[4], 2 + 16 + 32);
}

// A 2-D complex array through loom::view, and device arrays of complex numbers on the GPU.
TEST_P(Complex, ConjugateTransposeOfAViewAndDeviceArrays) {
  Kernel k = kernel("adjoint", [](Array2<c64> A, Array2<c64> B) {
    parallel_for({A.dim(0), A.dim(1)}, [&](Index i, Index j) { B(j, i) = conj(A(i, j)); });
  });
  prepare(k);
  std::vector<c64> A = random_complex<float>(6, -1, 1, 71), B(6);
  k(view(A, {2, 3}), view(B, {3, 2}));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_EQ(B[j * 2 + i], std::conj(A[i * 3 + j])) << i << "," << j;
  if (target() == ir::Target::GPU) {
    DeviceArray<c64> dA(A, {2, 3}), dB({3, 2});
    k(dA, dB);
    std::vector<c64> back = dB.to_host();
    EXPECT_EQ(back, B);
  }
}

TEST(ComplexArguments, WrongTypesAreArgumentErrorsNamingTheExpectedType) {
  Kernel k = kernel("complex_args",
                    [](C64 s, Array<c64> z, F32 x) {
                      parallel_for(z.size(), [&](Index i) { z[i] = z[i] * s + x; });
                    },
                    {"s", "z", "x"});
  k.on(ir::Target::CPU);
  std::vector<c64> z(4, c64(1, 1));
  std::vector<float> f(4);
  std::vector<c128> d(4);
  auto message = [&](auto &&...args) -> std::string {
    try {
      k(args...);
    } catch (const ArgumentError &e) {
      return e.what();
    }
    return "no ArgumentError";
  };
  std::string m = message(c64(1, 0), f, 1.0f);
  EXPECT_NE(m.find("'z'"), std::string::npos) << m;
  EXPECT_NE(m.find("an array of c64"), std::string::npos) << m;
  EXPECT_NE(m.find("array of f32"), std::string::npos) << m;
  m = message(c64(1, 0), d, 1.0f);
  EXPECT_NE(m.find("an array of c64"), std::string::npos) << m;
  EXPECT_NE(m.find("array of c128"), std::string::npos) << m;
  m = message(c64(1, 0), z, c64(1, 0)); // a complex scalar to an f32 parameter
  EXPECT_NE(m.find("'x'"), std::string::npos) << m;
  EXPECT_NE(m.find("a scalar f32"), std::string::npos) << m;
  EXPECT_NE(m.find("a scalar c64"), std::string::npos) << m;
  m = message(c64(1, 0), z, 1.0f);
  EXPECT_EQ(m, "no ArgumentError");
  EXPECT_EQ(z[0], c64(2, 1));
}

LOOM_INSTANTIATE_TARGETS(Complex);

} // namespace
