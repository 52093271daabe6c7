// Every operator for each dtype, on random inputs, against a C++ reference with loom's semantics.
#include "support/TestUtil.h"

#include <cmath>
#include <limits>

using namespace loom;
using loomtest::random_vector;

namespace {

enum class Op { Add, Sub, Mul, Div, Mod, Min, Max, And, Or, Xor, Shl, Shr };
const Op arithmetic_ops[] = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Mod, Op::Min, Op::Max};
const Op integer_ops[] = {Op::And, Op::Or, Op::Xor, Op::Shl, Op::Shr};

template <class T> Value<T> apply(Op op, Value<T> a, Value<T> b) {
  switch (op) {
  case Op::Add:
    return a + b;
  case Op::Sub:
    return a - b;
  case Op::Mul:
    return a * b;
  case Op::Div:
    return a / b;
  case Op::Mod:
    return a % b;
  case Op::Min:
    return loom::min(a, b);
  case Op::Max:
    return loom::max(a, b);
  default:
    if constexpr (std::is_integral_v<T>) {
      switch (op) {
      case Op::And:
        return a & b;
      case Op::Or:
        return a | b;
      case Op::Xor:
        return a ^ b;
      case Op::Shl:
        return a << b;
      default:
        return a >> b;
      }
    }
  }
  return a;
}

// loom's integer semantics: wrap-around, x/0 == 0, x%0 == x, shifts modulo the width.
template <class T> T reference(Op op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    const T min = std::numeric_limits<T>::min();
    const U bits = sizeof(T) * 8;
    switch (op) {
    case Op::Add:
      return T(U(a) + U(b));
    case Op::Sub:
      return T(U(a) - U(b));
    case Op::Mul:
      return T(U(a) * U(b));
    case Op::Div:
      return b == 0 ? 0 : (a == min && b == -1) ? a : a / b;
    case Op::Mod:
      return b == 0 ? a : (a == min && b == -1) ? 0 : a % b;
    case Op::Min:
      return std::min(a, b);
    case Op::Max:
      return std::max(a, b);
    case Op::And:
      return a & b;
    case Op::Or:
      return a | b;
    case Op::Xor:
      return a ^ b;
    case Op::Shl:
      return T(U(a) << (U(b) % bits));
    case Op::Shr:
      return a >> (U(b) % bits);
    }
  } else {
    switch (op) {
    case Op::Add:
      return a + b;
    case Op::Sub:
      return a - b;
    case Op::Mul:
      return a * b;
    case Op::Div:
      return a / b;
    case Op::Mod:
      return std::fmod(a, b);
    case Op::Min:
      return std::fmin(a, b);
    case Op::Max:
      return std::fmax(a, b);
    default:
      break;
    }
  }
  return 0;
}

class Operators : public loomtest::TargetTest {
protected:
  template <class T> void check_binary(Op op, const std::vector<T> &a, const std::vector<T> &b) {
    auto k = kernel("binary", [op](Array<T> x, Array<T> y, Array<T> out) {
      parallel_for(out.size(), [&](Index i) { out[i] = apply<T>(op, x[i], y[i]); });
    });
    prepare(k);
    std::vector<T> out(a.size(), T(-77));
    k(a, b, out);
    for (size_t i = 0; i < a.size(); ++i) {
      T ref = reference(op, a[i], b[i]);
      if (op == Op::Mod && std::is_floating_point_v<T>) // frem may be computed as a - trunc(a/b)*b
        ASSERT_NEAR(out[i], ref, 1e-5 * std::abs(a[i])) << "op " << int(op) << " at " << i;
      else
        ASSERT_EQ(out[i], ref) << "op " << int(op) << " on " << a[i] << ", " << b[i];
    }
  }

  template <class T> void check_all() {
    // Integers include zeros, -1 and the extremes, so the defined cases are exercised.
    double lo = std::is_integral_v<T> ? -1000 : -100, hi = -lo;
    auto a = random_vector<T>(4099, lo, hi, 1), b = random_vector<T>(4099, lo, hi, 2);
    if constexpr (std::is_integral_v<T>) {
      a[0] = std::numeric_limits<T>::min(), b[0] = -1;
      a[1] = 17, b[1] = 0;
      a[2] = -17, b[2] = 0;
      a[3] = std::numeric_limits<T>::max(), b[3] = 2;
    } else {
      for (auto &v : b)
        if (v == 0)
          v = 1;
    }
    for (Op op : arithmetic_ops)
      check_binary<T>(op, a, b);
    if constexpr (std::is_integral_v<T>) {
      auto shifts = random_vector<T>(4099, -70, 70, 3); // out-of-range amounts too
      for (Op op : integer_ops)
        check_binary<T>(op, a, op == Op::Shl || op == Op::Shr ? shifts : b);
    }
  }
};

TEST_P(Operators, I32) {
  check_all<int32_t>();
}
TEST_P(Operators, I64) {
  check_all<int64_t>();
}
TEST_P(Operators, F32) {
  check_all<float>();
}
TEST_P(Operators, F64) {
  check_all<double>();
}

TEST_P(Operators, ComparisonsAndLogicIntoBoolArrays) {
  auto k = kernel("cmp", [](Array<float> x, Array<float> y, Array<bool> lt, Array<int32_t> all) {
    parallel_for(x.size(), [&](Index i) {
      lt[i] = x[i] < y[i];
      Bool ge = x[i] >= y[i], eq = x[i] == y[i], ne = x[i] != y[i];
      all[i] = select(ge && !eq, 1, 0) + select(ne || eq, 2, 0) + select(x[i] <= y[i], 4, 0) +
               select(x[i] > y[i], 8, 0);
    });
  });
  prepare(k);
  auto x = random_vector<float>(1000, -5, 5, 4), y = random_vector<float>(1000, -5, 5, 5);
  for (int i = 0; i < 100; ++i)
    y[i] = x[i]; // some equal pairs
  std::vector<int32_t> all(1000, -1);
  // std::vector<bool> is packed; use a byte array viewed as bool.
  std::vector<unsigned char> lt_bytes(1000, 7);
  k(x, y, view(reinterpret_cast<bool *>(lt_bytes.data()), {1000}), all);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(lt_bytes[i], x[i] < y[i] ? 1 : 0) << i;
    int ref = ((x[i] >= y[i] && x[i] != y[i]) ? 1 : 0) + 2 + (x[i] <= y[i] ? 4 : 0) +
              (x[i] > y[i] ? 8 : 0);
    EXPECT_EQ(all[i], ref) << i;
  }
}

TEST_P(Operators, UnaryOperatorsSelectAndIntegerAbs) {
  auto k = kernel("unary", [](Array<int32_t> a, Array<int32_t> out) {
    parallel_for(a.size(), [&](Index i) {
      out(i) = -a[i] + (~a[i] << 8) + abs(a[i]) * 3 + select(!(a[i] > 0), 1000000, 0);
    });
  });
  prepare(k);
  auto a = random_vector<int32_t>(3000, -100000, 100000, 6);
  std::vector<int32_t> out(a.size());
  k(a, out);
  for (size_t i = 0; i < a.size(); ++i) {
    uint32_t ref = -uint32_t(a[i]) + (uint32_t(~a[i]) << 8) + uint32_t(std::abs(a[i])) * 3 +
                   (a[i] > 0 ? 0 : 1000000);
    ASSERT_EQ(out[i], int32_t(ref)) << a[i];
  }
}

TEST_P(Operators, CastsAreDefinedForEveryValue) {
  auto k =
      kernel("casts", [](Array<float> f, Array<int64_t> big, Array<int32_t> to_i32,
                         Array<int32_t> narrowed, Array<double> widened, Array<int32_t> truth) {
        parallel_for(f.size(), [&](Index i) {
          to_i32[i] = cast<int32_t>(f[i]);
          narrowed[i] = cast<int32_t>(big[i]);
          widened[i] = cast<double>(narrowed[i]) + cast<double>(f[i]);
          truth[i] = cast<int32_t>(cast<bool>(f[i])) + 2 * cast<int32_t>(cast<bool>(big[i]));
        });
      });
  prepare(k);
  std::vector<float> f = {NAN, 1e20f, -1e20f, 3.7f, -3.7f, 0.0f, -0.0f, 2147483520.0f};
  std::vector<int64_t> big = {
      int64_t(1) << 40, -1, (int64_t(1) << 32) + 5, 0, 7, -(int64_t(1) << 33), 1, 2};
  size_t n = f.size();
  std::vector<int32_t> to_i32(n), narrowed(n), truth(n);
  std::vector<double> widened(n);
  k(f, big, to_i32, narrowed, widened, truth);
  std::vector<int32_t> want = {0, INT32_MAX, INT32_MIN, 3, -3, 0, 0, 2147483520};
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(to_i32[i], want[i]) << f[i];
    EXPECT_EQ(narrowed[i], int32_t(uint32_t(uint64_t(big[i])))) << big[i];
    if (!std::isnan(f[i])) {
      EXPECT_EQ(widened[i], double(narrowed[i]) + double(f[i]));
    }
    EXPECT_EQ(truth[i], int(f[i] != 0) + 2 * int(big[i] != 0)) << i; // NaN is true
  }
}

TEST_P(Operators, ScalarParametersOfEveryType) {
  auto k = kernel("scalars", [](Array<double> out, I32 a, I64 b, F32 c, F64 d, Bool e) {
    parallel_for(1, [&](Index) {
      out[0] = cast<double>(a);
      out[1] = cast<double>(b);
      out[2] = cast<double>(c);
      out[3] = d;
      out[4] = select(e, 1.0, -1.0);
    });
  });
  prepare(k);
  std::vector<double> out(5);
  k(out, -123456, int64_t(1) << 40, 0.1f, 1.0 / 3.0, true);
  EXPECT_EQ(out[0], -123456.0);
  EXPECT_EQ(out[1], double(int64_t(1) << 40));
  EXPECT_EQ(out[2], double(0.1f));
  EXPECT_EQ(out[3], 1.0 / 3.0);
  EXPECT_EQ(out[4], 1.0);
  k(out, 1.9, 3, 2, 4, 0); // converted as a C++ call would: 1.9 -> 1, 0 -> false
  EXPECT_EQ(out[0], 1.0);
  EXPECT_EQ(out[4], -1.0);
  // With loom's cast rules: one rounding from i64 to f32, saturation from a huge double to i32.
  const int64_t odd = (int64_t(1) << 60) + (int64_t(1) << 36) + 1; // rounds differently via f64
  k(out, 1e30, 0, odd, 0.0, true);
  EXPECT_EQ(out[0], double(INT32_MAX));
  EXPECT_EQ(out[2], double(static_cast<float>(odd)));
}

LOOM_INSTANTIATE_TARGETS(Operators);

} // namespace
