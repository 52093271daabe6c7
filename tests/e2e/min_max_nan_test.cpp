// min and max with a NaN operand return the other operand (fmin/fmax, docs/semantics.md), also
// where they clamp a quotient that is NaN: max(0, min(1, x / x)) is 1 for x = ±inf, ±0 and NaN.
// The H200 gave 0 for x = -inf in a differential program (seed 71020392); this test keeps the
// case on both targets, in f32 and f64, with the clamp's operands in both orders.
#include "support/TestUtil.h"

#include <cmath>
#include <limits>

using namespace loom;

namespace {

class MinMaxNan : public loomtest::TargetTest {};

template <class T> void check(Kernel &k, ir::Target target) {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const std::vector<T> x0 = {-inf, inf, T(0), T(-0.0), nan, T(2), T(-3), T(0.5)};
  std::vector<T> x = x0, y(x0.size()), z(x0.size()), w(x0.size());
  k.on(target);
  k(x, y, z, w);
  for (size_t e = 0; e < x0.size(); ++e) {
    SCOPED_TRACE(::testing::Message() << "x = " << x0[e]);
    const T q = x0[e] / x0[e];
    const T clamp = std::isnan(q) ? T(0) : std::min(T(1), std::max(T(0), q));
    EXPECT_EQ(y[e], std::isnan(q) ? T(1) : clamp); // max(0, min(1, q)): min(1, NaN) is 1
    EXPECT_EQ(z[e], std::isnan(q) ? T(0) : clamp); // min(1, max(0, q)): max(0, NaN) is 0
    EXPECT_EQ(w[e], std::isnan(q) ? T(1) : clamp); // max(min(q, 1), 0), the operands swapped
  }
}

} // namespace

TEST_P(MinMaxNan, AClampOfANanQuotientTakesTheOtherOperands) {
  Module m = compile(R"(
@kernel
def clamp64(x: f64[n], y: f64[n], z: f64[n], w: f64[n]):
    for i in parallel(n):
        q = x[i] / x[i]
        y[i] = max(0.0, min(1.0, q))
        z[i] = min(1.0, max(0.0, q))
        w[i] = max(min(q, 1.0), 0.0)

@kernel
def clamp32(x: f32[n], y: f32[n], z: f32[n], w: f32[n]):
    for i in parallel(n):
        q = x[i] / x[i]
        y[i] = max(f32(0.0), min(f32(1.0), q))
        z[i] = min(f32(1.0), max(f32(0.0), q))
        w[i] = max(min(q, f32(1.0)), f32(0.0))
)");
  check<double>(m["clamp64"], target());
  check<float>(m["clamp32"], target());
}

LOOM_INSTANTIATE_TARGETS(MinMaxNan);
