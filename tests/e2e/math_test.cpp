// Every math function for f32 and f64 against <cmath> evaluated in double.
#include "support/TestUtil.h"

#include <cmath>

using namespace loom;
using loomtest::random_vector;

namespace {

enum class Fn { Sqrt, Exp, Log, Sin, Cos, Tanh, Pow, Abs, Floor, Fma };

template <class T> Value<T> apply(Fn fn, Value<T> x, Value<T> y) {
  switch (fn) {
  case Fn::Sqrt:
    return sqrt(abs(x));
  case Fn::Exp:
    return exp(x);
  case Fn::Log:
    return log(abs(x) + T(0.001));
  case Fn::Sin:
    return sin(x);
  case Fn::Cos:
    return cos(x);
  case Fn::Tanh:
    return tanh(x);
  case Fn::Pow:
    return pow(abs(x) + T(0.5), y);
  case Fn::Abs:
    return abs(x);
  case Fn::Floor:
    return floor(x);
  case Fn::Fma:
    return fma(x, y, x);
  }
  return x;
}

double reference(Fn fn, double x, double y) {
  switch (fn) {
  case Fn::Sqrt:
    return std::sqrt(std::abs(x));
  case Fn::Exp:
    return std::exp(x);
  case Fn::Log:
    return std::log(std::abs(x) + 0.001);
  case Fn::Sin:
    return std::sin(x);
  case Fn::Cos:
    return std::cos(x);
  case Fn::Tanh:
    return std::tanh(x);
  case Fn::Pow:
    return std::pow(std::abs(x) + 0.5, y);
  case Fn::Abs:
    return std::abs(x);
  case Fn::Floor:
    return std::floor(x);
  case Fn::Fma:
    return x * y + x;
  }
  return 0;
}

class Math : public loomtest::TargetTest {
protected:
  // Tolerance relative to max(1, |ref|): a few ulp of the type (libdevice and libm are within 2-4
  // ulp), loose enough for either library, tight enough to catch a wrong function or type.
  template <class T> void check(double tolerance) {
    for (Fn fn : {Fn::Sqrt, Fn::Exp, Fn::Log, Fn::Sin, Fn::Cos, Fn::Tanh, Fn::Pow, Fn::Abs,
                  Fn::Floor, Fn::Fma}) {
      auto k = kernel("math", [fn](Array<T> x, Array<T> y, Array<T> out) {
        parallel_for(out.size(), [&](Index i) { out[i] = apply<T>(fn, x[i], y[i]); });
      });
      prepare(k);
      auto x = random_vector<T>(2000, -10, 10, 11), y = random_vector<T>(2000, -3, 3, 12);
      std::vector<T> out(x.size(), T(NAN));
      k(x, y, out);
      for (size_t i = 0; i < x.size(); ++i) {
        double ref = reference(fn, double(x[i]), double(y[i]));
        ASSERT_LE(std::abs(double(out[i]) - ref), tolerance * std::max(1.0, std::abs(ref)))
            << "function " << int(fn) << " of " << x[i] << ", " << y[i] << " gave " << out[i]
            << ", expected " << ref;
      }
    }
  }
};

TEST_P(Math, F32) {
  check<float>(4e-6);
}
TEST_P(Math, F64) {
  check<double>(1e-13);
}

TEST_P(Math, IntegerArgumentsPromoteToF64) {
  auto k = kernel("isqrt", [](Array<int32_t> n, Array<double> out) {
    parallel_for(n.size(), [&](Index i) { out[i] = sqrt(n[i]); });
  });
  prepare(k);
  auto n = random_vector<int32_t>(500, 0, 1 << 30, 13);
  std::vector<double> out(n.size());
  k(n, out);
  for (size_t i = 0; i < n.size(); ++i)
    ASSERT_EQ(out[i], std::sqrt(double(n[i])));
}

LOOM_INSTANTIATE_TARGETS(Math);

} // namespace
