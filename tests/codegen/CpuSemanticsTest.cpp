// loom's defined arithmetic on the CPU: division, shifts, casts, comparisons and math functions,
// each checked element by element against a C++ reference of the documented semantics.
#include "CodegenTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace loom::codegen::test {
namespace {

// out[i] = f(in_0[i], in_1[i], ...), for `Out` and `In` element types, on the CPU.
template <class Out, class In>
std::vector<Out> run_map(const std::vector<std::vector<In>> &inputs,
                         const std::function<Expr(std::vector<Expr>)> &f) {
  std::vector<Param> params;
  for (size_t k = 0; k < inputs.size(); ++k)
    params.push_back(array_param("in" + std::to_string(k), type_of<In>()));
  params.push_back(array_param("out", type_of<Out>()));
  int out = static_cast<int>(inputs.size());
  LoweredKernel kernel = cpu_elementwise("map", params, [&](const Var &i) {
    std::vector<Expr> loaded;
    for (int k = 0; k < out; ++k)
      loaded.push_back(load(params, k, {var(i)}));
    return Store::make(out, {var(i)}, f(loaded));
  });
  const int64_t n = inputs[0].size();
  std::vector<Out> result(n);
  ParamPack args;
  for (const std::vector<In> &in : inputs)
    args.array(in.data(), {n});
  args.array(result.data(), {n});
  run_cpu(kernel, args);
  return result;
}

template <class T>
std::vector<T> run_binary(BinaryOp op, const std::vector<T> &a, const std::vector<T> &b) {
  return run_map<T, T>({a, b}, [&](std::vector<Expr> x) { return bin(op, x[0], x[1]); });
}

// All pairs of `values`, as two columns.
template <class T>
std::pair<std::vector<T>, std::vector<T>> all_pairs(const std::vector<T> &values) {
  std::pair<std::vector<T>, std::vector<T>> p;
  for (T a : values)
    for (T b : values) {
      p.first.push_back(a);
      p.second.push_back(b);
    }
  return p;
}

template <class T> void check_div_mod() {
  const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  auto [a, b] = all_pairs<T>({0, 1, -1, 2, -2, 7, -7, 3, lo, hi, lo + 1, 12345});
  std::vector<T> q = run_binary(BinaryOp::Div, a, b), r = run_binary(BinaryOp::Mod, a, b);
  for (size_t i = 0; i < a.size(); ++i) {
    T eq, er; // loom's definition: truncation; x/0 = 0, x%0 = x; MIN/-1 = MIN, MIN%-1 = 0
    if (b[i] == 0) {
      eq = 0, er = a[i];
    } else if (b[i] == -1) {
      eq = static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(a[i])), er = 0;
    } else {
      eq = a[i] / b[i], er = a[i] % b[i];
    }
    EXPECT_EQ(q[i], eq) << a[i] << " / " << b[i];
    EXPECT_EQ(r[i], er) << a[i] << " % " << b[i];
  }
}

TEST(codegen_cpu_semantics, IntegerDivisionAndModuloAreTotal) {
  check_div_mod<int32_t>();
  check_div_mod<int64_t>();
}

template <class T> void check_shifts() {
  using U = std::make_unsigned_t<T>;
  const int w = sizeof(T) * 8;
  std::vector<T> a, b;
  for (T x : {T(1), T(-1), T(0x55), std::numeric_limits<T>::min(), T(-12345)})
    for (T s : {T(0), T(1), T(5), T(w - 1), T(w), T(w + 3), T(-1), T(-w), T(1000)}) {
      a.push_back(x);
      b.push_back(s);
    }
  std::vector<T> shl = run_binary(BinaryOp::Shl, a, b), shr = run_binary(BinaryOp::Shr, a, b);
  for (size_t i = 0; i < a.size(); ++i) {
    int s = static_cast<int>(b[i] & (w - 1)); // the amount modulo the width
    EXPECT_EQ(shl[i], static_cast<T>(static_cast<U>(a[i]) << s)) << a[i] << " << " << b[i];
    EXPECT_EQ(shr[i], static_cast<T>(a[i] >> s)) << a[i] << " >> " << b[i]; // arithmetic
  }
}

TEST(codegen_cpu_semantics, ShiftAmountsWrapModuloTheWidth) {
  check_shifts<int32_t>();
  check_shifts<int64_t>();
}

TEST(codegen_cpu_semantics, IntegerArithmeticWraps) {
  const int32_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
  std::vector<int32_t> a{hi, lo, hi, lo, -7, 5}, b{1, 1, 2, -1, 3, -9};
  EXPECT_EQ(run_binary(BinaryOp::Add, a, b),
            (std::vector<int32_t>{lo, lo + 1, lo + 1, hi, -4, -4}));
  EXPECT_EQ(run_binary(BinaryOp::Sub, a, b),
            (std::vector<int32_t>{hi - 1, hi, hi - 2, lo + 1, -10, 14}));
  EXPECT_EQ(run_binary(BinaryOp::Mul, a, b), (std::vector<int32_t>{hi, lo, -2, lo, -21, -45}));
  EXPECT_EQ(run_binary(BinaryOp::Min, a, b), (std::vector<int32_t>{1, lo, 2, lo, -7, -9}));
  EXPECT_EQ(run_binary(BinaryOp::Max, a, b), (std::vector<int32_t>{hi, 1, hi, -1, 3, 5}));
  EXPECT_EQ(run_binary(BinaryOp::BitXor, a, b),
            (std::vector<int32_t>{hi ^ 1, lo ^ 1, hi ^ 2, lo ^ -1, -7 ^ 3, 5 ^ -9}));
  auto neg = run_map<int32_t, int32_t>(
      {a}, [](std::vector<Expr> x) { return Unary::make(UnaryOp::Neg, x[0]); });
  EXPECT_EQ(neg, (std::vector<int32_t>{-hi, lo, -hi, lo, 7, -5}));
  auto abs = run_map<int32_t, int32_t>(
      {a}, [](std::vector<Expr> x) { return Call::make(MathFn::Abs, {x[0]}); });
  EXPECT_EQ(abs, (std::vector<int32_t>{hi, lo, hi, lo, 7, 5})); // abs(INT_MIN) == INT_MIN
}

TEST(codegen_cpu_semantics, FloatComparisonsWithNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> a{nan, 1.0, nan, 2.0, -0.0}, b{1.0, nan, nan, 2.0, 0.0};
  auto cmp = [&](BinaryOp op) {
    return run_map<uint8_t, double>({a, b},
                                    [op](std::vector<Expr> x) { return bin(op, x[0], x[1]); });
  };
  EXPECT_EQ(cmp(BinaryOp::Lt), (std::vector<uint8_t>{0, 0, 0, 0, 0}));
  EXPECT_EQ(cmp(BinaryOp::Ge), (std::vector<uint8_t>{0, 0, 0, 1, 1}));
  EXPECT_EQ(cmp(BinaryOp::Eq), (std::vector<uint8_t>{0, 0, 0, 1, 1}));
  EXPECT_EQ(cmp(BinaryOp::Ne), (std::vector<uint8_t>{1, 1, 1, 0, 0})); // NaN != NaN
  std::vector<double> mn = run_binary(BinaryOp::Min, a, b), mx = run_binary(BinaryOp::Max, a, b);
  EXPECT_EQ(mn[0], 1.0); // min/max ignore a NaN operand, as fmin/fmax do
  EXPECT_EQ(mx[1], 1.0);
  EXPECT_TRUE(std::isnan(mn[2]));
  std::vector<double> rem =
      run_binary<double>(BinaryOp::Mod, {7.5, -7.5, 7.5, 1.0}, {2.0, 2.0, -2.0, 0.0});
  EXPECT_EQ(rem[0], std::fmod(7.5, 2.0));
  EXPECT_EQ(rem[1], std::fmod(-7.5, 2.0));
  EXPECT_EQ(rem[2], std::fmod(7.5, -2.0));
  EXPECT_TRUE(std::isnan(rem[3]));
}

// The saturating float -> int conversion loom defines: NaN -> 0, out of range -> the nearest bound.
template <class I, class F> I saturate(F v) {
  if (std::isnan(v))
    return 0;
  const long double bound = std::ldexp(1.0L, int(sizeof(I) * 8 - 1));
  if (static_cast<long double>(v) >= bound)
    return std::numeric_limits<I>::max();
  if (static_cast<long double>(v) < -bound)
    return std::numeric_limits<I>::min();
  return static_cast<I>(v);
}

template <class I, class F> void check_float_to_int() {
  const F inf = std::numeric_limits<F>::infinity();
  std::vector<F> v{std::numeric_limits<F>::quiet_NaN(),
                   inf,
                   -inf,
                   F(1e20),
                   F(-1e20),
                   F(3.7),
                   F(-3.7),
                   F(0.5),
                   F(-0.5),
                   F(2147483647.0),
                   F(2147483648.0),
                   F(-2147483649.0),
                   F(-2147483648.0),
                   F(9.3e18),
                   F(-9.3e18),
                   F(9223372036854775807.0)};
  std::vector<I> got =
      run_map<I, F>({v}, [](std::vector<Expr> x) { return Cast::make(type_of<I>(), x[0]); });
  for (size_t i = 0; i < v.size(); ++i)
    EXPECT_EQ(got[i], (saturate<I, F>(v[i]))) << "value " << v[i];
}

TEST(codegen_cpu_semantics, FloatToIntSaturatesAndMapsNaNToZero) {
  check_float_to_int<int32_t, float>();
  check_float_to_int<int64_t, float>();
  check_float_to_int<int32_t, double>();
  check_float_to_int<int64_t, double>();
}

TEST(codegen_cpu_semantics, OtherCasts) {
  auto cast_to = [](ScalarType t) {
    return [t](std::vector<Expr> x) { return Cast::make(t, x[0]); };
  };
  std::vector<int64_t> wide{0x100000005LL, -1, 0x80000000LL, 7};
  EXPECT_EQ((run_map<int32_t, int64_t>({wide}, cast_to(ScalarType::I32))),
            (std::vector<int32_t>{5, -1, std::numeric_limits<int32_t>::min(), 7}));
  EXPECT_EQ((run_map<int64_t, int32_t>({{-5, 5}}, cast_to(ScalarType::I64))),
            (std::vector<int64_t>{-5, 5}));
  std::vector<int64_t> big{(1LL << 53) + 1, -3};
  EXPECT_EQ((run_map<float, int64_t>({big}, cast_to(ScalarType::F32))),
            (std::vector<float>{static_cast<float>(big[0]), -3.0f}));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ((run_map<uint8_t, double>({{nan, 0.0, -0.0, 0.1}}, cast_to(ScalarType::Bool))),
            (std::vector<uint8_t>{1, 0, 0, 1}));
  EXPECT_EQ((run_map<uint8_t, int32_t>({{0, -4, 1 << 30}}, cast_to(ScalarType::Bool))),
            (std::vector<uint8_t>{0, 1, 1}));
  EXPECT_EQ((run_map<float, uint8_t>({{1, 0}}, cast_to(ScalarType::F32))),
            (std::vector<float>{1.0f, 0.0f}));
  EXPECT_EQ((run_map<int64_t, uint8_t>({{1, 0}}, cast_to(ScalarType::I64))),
            (std::vector<int64_t>{1, 0}));
  std::vector<float> narrowed = run_map<float, double>({{1e300, 0.1}}, cast_to(ScalarType::F32));
  EXPECT_EQ(narrowed, (std::vector<float>{std::numeric_limits<float>::infinity(), 0.1f}));
  EXPECT_EQ((run_map<double, float>({{0.1f}}, cast_to(ScalarType::F64))),
            (std::vector<double>{double(0.1f)}));
}

// Every math function, against a long double reference on random inputs from its domain.
// Tolerance: relative 1e-6 for f32 (a few ulp) and 1e-12 for f64.
template <class T>
void check_math(MathFn fn, T lo, T hi, long double (*ref)(const std::vector<long double> &)) {
  const int n = 500, arity = fn_arity(fn);
  std::mt19937 rng(static_cast<unsigned>(fn) * 7 + sizeof(T));
  std::uniform_real_distribution<T> dist(lo, hi);
  std::vector<std::vector<T>> inputs(arity, std::vector<T>(n));
  for (auto &column : inputs)
    for (T &x : column)
      x = dist(rng);
  std::vector<T> got =
      run_map<T, T>(inputs, [fn](std::vector<Expr> x) { return Call::make(fn, x); });
  const long double tolerance = sizeof(T) == 4 ? 1e-6L : 1e-12L;
  for (int i = 0; i < n; ++i) {
    std::vector<long double> args;
    for (auto &column : inputs)
      args.push_back(column[i]);
    long double expected = ref(args);
    long double error = std::fabs(static_cast<long double>(got[i]) - expected);
    ASSERT_LE(error, tolerance * std::max(std::fabs(expected), 1e-30L))
        << fn_name(fn) << "(" << args[0] << ") for " << (sizeof(T) == 4 ? "f32" : "f64") << ": got "
        << got[i] << ", expected " << expected;
  }
}

template <class T> void check_all_math() {
  using A = const std::vector<long double> &;
  check_math<T>(MathFn::Sqrt, 0, 100, [](A x) { return std::sqrt(x[0]); });
  check_math<T>(MathFn::Exp, -20, 20, [](A x) { return std::exp(x[0]); });
  check_math<T>(MathFn::Log, T(1e-3), 1000, [](A x) { return std::log(x[0]); });
  check_math<T>(MathFn::Sin, -10, 10, [](A x) { return std::sin(x[0]); });
  check_math<T>(MathFn::Cos, -10, 10, [](A x) { return std::cos(x[0]); });
  check_math<T>(MathFn::Tanh, -5, 5, [](A x) { return std::tanh(x[0]); });
  check_math<T>(MathFn::Pow, T(0.1), 10, [](A x) { return std::pow(x[0], x[1]); });
  check_math<T>(MathFn::Abs, -100, 100, [](A x) { return std::fabs(x[0]); });
  check_math<T>(MathFn::Floor, -100, 100, [](A x) { return std::floor(x[0]); });
  check_math<T>(MathFn::Fma, -10, 10, [](A x) { return std::fma(x[0], x[1], x[2]); });
}

TEST(codegen_cpu_semantics, MathFunctionsF32) {
  check_all_math<float>();
}
TEST(codegen_cpu_semantics, MathFunctionsF64) {
  check_all_math<double>();
}

} // namespace
} // namespace loom::codegen::test
