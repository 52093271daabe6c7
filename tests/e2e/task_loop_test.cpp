// Sequential loops around parallel loops inside one kernel (task loops): a time-stepped stencil,
// loops whose launch domain follows the loop variable, nested loops, scalar work and reductions
// between the parallel loops, in both front ends, against the same steps computed in C++ and
// against a host loop of one-step calls; and what is refused.
#include "support/TestUtil.h"

#include <loom/loom.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

using namespace loom;
using loomtest::random_vector;

namespace {

class TaskLoops : public loomtest::TargetTest {};

// One Jacobi step of the 5-point stencil on the interior of an n x n grid, the border kept.
void stencil_step(const std::vector<float> &u, std::vector<float> &v, int64_t n) {
  for (int64_t i = 1; i < n - 1; ++i)
    for (int64_t j = 1; j < n - 1; ++j)
      v[i * n + j] = 0.25f * ((u[(i - 1) * n + j] + u[(i + 1) * n + j]) +
                              (u[i * n + j - 1] + u[i * n + j + 1]));
}

// `pairs` pairs of steps, u -> v -> u, as the kernel below takes them.
void host_steps(std::vector<float> &u, std::vector<float> &v, int64_t n, int64_t pairs) {
  for (int64_t s = 0; s < pairs; ++s) {
    stencil_step(u, v, n);
    stencil_step(v, u, n);
  }
}

Kernel stencil_steps() {
  // Two steps per iteration, u -> v -> u, so the arrays need not be swapped.
  return kernel("steps", [](I64 steps, Array2<float> u, Array2<float> v) {
    for_range(steps, [&](Index) {
      parallel_for({range(1, u.dim(0) - 1), range(1, u.dim(1) - 1)}, [&](Index i, Index j) {
        v(i, j) = 0.25f * ((u(i - 1, j) + u(i + 1, j)) + (u(i, j - 1) + u(i, j + 1)));
      });
      parallel_for({range(1, u.dim(0) - 1), range(1, u.dim(1) - 1)}, [&](Index i, Index j) {
        u(i, j) = 0.25f * ((v(i - 1, j) + v(i + 1, j)) + (v(i, j - 1) + v(i, j + 1)));
      });
    });
  });
}

TEST_P(TaskLoops, StencilStepsMatchTheSameStepsOnTheHost) {
  Kernel k = stencil_steps();
  prepare(k);
  const int64_t n = 67, steps = 25;
  std::vector<float> u = random_vector<float>(n * n, -1, 1, 11), v = u;
  std::vector<float> ru = u, rv = v;
  host_steps(ru, rv, n, steps);
  k(steps, view(u, {n, n}), view(v, {n, n}));
  for (int64_t e = 0; e < n * n; ++e) {
    // The same additions in the same order; only a contraction into fma could differ.
    ASSERT_NEAR(u[e], ru[e], 1e-6f) << e;
    ASSERT_NEAR(v[e], rv[e], 1e-6f) << e;
  }
  EXPECT_NE(k.explain().find("loop over"), std::string::npos) << k.explain();
  EXPECT_NE(k.explain().find("run once per iteration"), std::string::npos) << k.explain();
}

TEST_P(TaskLoops, OneCallEqualsAHostLoopOfOneStepCalls) {
  Kernel k = stencil_steps();
  prepare(k);
  const int64_t n = 45;
  std::vector<float> u = random_vector<float>(n * n, 0, 10, 12), v(n * n, 0.0f);
  std::vector<float> u1 = u, v1 = v;
  k(int64_t{40}, view(u, {n, n}), view(v, {n, n}));
  for (int s = 0; s < 40; ++s)
    k(int64_t{1}, view(u1, {n, n}), view(v1, {n, n}));
  EXPECT_EQ(u, u1); // the same code for each step: the same bits
  EXPECT_EQ(v, v1);
  // Zero steps run nothing.
  std::vector<float> u0 = u;
  k(int64_t{0}, view(u, {n, n}), view(v, {n, n}));
  EXPECT_EQ(u, u0);
}

TEST_P(TaskLoops, DeviceArraysStayOnTheDevice) {
  if (target() != ir::Target::GPU)
    GTEST_SKIP() << "device arrays are the GPU's";
  Kernel k = stencil_steps();
  prepare(k);
  const int64_t n = 130, steps = 50;
  std::vector<float> u = random_vector<float>(n * n, -3, 3, 13), v = u;
  std::vector<float> ru = u, rv = v;
  host_steps(ru, rv, n, steps);
  DeviceArray<float> du(u, {n, n}), dv(v, {n, n});
  k(steps, du, dv);
  std::vector<float> out = du.to_host();
  for (int64_t e = 0; e < n * n; ++e)
    ASSERT_NEAR(out[e], ru[e], 1e-6f) << e;
  EXPECT_NE(k.explain().find("captured a new graph"), std::string::npos) << k.explain();
  // From sm_90 on, the 99 launches after the first of 100 overlap the one before (a current driver
  // takes programmatic launches in a capture), and the results above are the host's all the same.
  if (const std::string e = k.explain();
      e.find("may begin while the one before") != std::string::npos)
    EXPECT_NE(e.find("; 99 launches overlapping the one before"), std::string::npos) << e;
  // The same launches again: the graph of the first call runs again, from where it left off.
  k(steps, du, dv);
  EXPECT_NE(k.explain().find("ran the graph of the call before again"), std::string::npos)
      << k.explain();
  host_steps(ru, rv, n, steps);
  out = du.to_host();
  for (int64_t e = 0; e < n * n; ++e)
    ASSERT_NEAR(out[e], ru[e], 1e-6f) << e;
  // Other arrays are other launches: a new graph.
  DeviceArray<float> du2(u, {n, n}), dv2(v, {n, n});
  k(int64_t{1}, du2, dv2);
  EXPECT_NE(k.explain().find("captured a new graph"), std::string::npos) << k.explain();
}

// Gaussian elimination without pivoting: each step k updates the trailing rows k+1.. in
// parallel, a domain that shrinks with k, after a parallel loop that computes the multipliers.
TEST_P(TaskLoops, TriangularDomainsFollowTheLoopVariable) {
  Module m = compile(R"(
@kernel
def eliminate(A: f64[N, N], L: f64[N]):
    for k in range(N - 1):
        for i in parallel(k + 1, N):
            L[i] = A[i, k] / A[k, k]
        for i, j in parallel((k + 1, N), (k, N)):
            A[i, j] -= L[i] * A[k, j]
)",
                     "eliminate.loom");
  Kernel &k = m["eliminate"];
  prepare(k);
  const int64_t n = 24;
  std::vector<double> a = random_vector<double>(n * n, -1, 1, 14), l(n, 0.0);
  for (int64_t i = 0; i < n; ++i)
    a[i * n + i] += n; // diagonally dominant: no pivoting needed
  std::vector<double> ra = a, rl = l;
  for (int64_t s = 0; s + 1 < n; ++s) {
    for (int64_t i = s + 1; i < n; ++i)
      rl[i] = ra[i * n + s] / ra[s * n + s];
    for (int64_t i = s + 1; i < n; ++i)
      for (int64_t j = s; j < n; ++j)
        ra[i * n + j] -= rl[i] * ra[s * n + j];
  }
  k(view(a, {n, n}), l);
  for (int64_t e = 0; e < n * n; ++e)
    ASSERT_NEAR(a[e], ra[e], 1e-12 * std::max(1.0, std::abs(ra[e]))) << e;
  for (int64_t i = 0; i < n; ++i) // below the diagonal, every column was eliminated
    for (int64_t j = 0; j < i; ++j)
      ASSERT_NEAR(a[i * n + j], 0.0, 1e-12) << i << ", " << j;
  EXPECT_NE(k.lowered().find("loop k in range("), std::string::npos) << k.lowered();
}

// Nested loops, a local that depends on both loop variables, a serial statement between the
// parallel loops, and a sum per step into an element the loop variable picks.
TEST_P(TaskLoops, NestedLoopsLocalsSerialWorkAndReductions) {
  Module m = compile(R"(
@kernel
def nest(x: f32[n], sums: f32[A, B], count: i32[1]):
    for a in range(A):
        for b in range(1, B + 1, 1):
            scale: f32 = f32(a * 10 + b)
            for i in parallel(n):
                x[i] = x[i] * 0.5 + scale
            count[0] += 1
            for i in parallel(n):
                sums[a, b - 1] += x[i]
)",
                     "nest.loom");
  Kernel &k = m["nest"];
  prepare(k);
  const int64_t n = 1000, A = 3, B = 4;
  std::vector<float> x = random_vector<float>(n, -1, 1, 15), sums(A * B, 0.0f);
  std::vector<int32_t> count(1, 5);
  std::vector<double> rx(x.begin(), x.end()), rsums(A * B, 0.0);
  for (int64_t a = 0; a < A; ++a)
    for (int64_t b = 1; b <= B; ++b) {
      for (int64_t i = 0; i < n; ++i) {
        rx[i] = static_cast<float>(static_cast<float>(rx[i]) * 0.5f + float(a * 10 + b));
        rsums[a * B + b - 1] += rx[i];
      }
    }
  k(x, view(sums, {A, B}), count);
  EXPECT_EQ(count[0], 5 + A * B);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(x[i], static_cast<float>(rx[i])) << i;
  for (int64_t e = 0; e < A * B; ++e) // a float sum in some order: within n ulps of the total
    EXPECT_NEAR(sums[e], rsums[e], 1e-5 * n * 40) << e;
}

TEST_P(TaskLoops, TheCEmbeddedDslSpellsItWithForRange) {
  // x[i] += t for t = 2, 5, 8: a value from the loop variable reaches every launch.
  auto k = kernel("adds", [](Array<int64_t> x) {
    for_range(2, 10, 3, [&](Index t) { parallel_for(x.size(), [&](Index i) { x[i] += t; }); });
  });
  prepare(k);
  std::vector<int64_t> x(777);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<int64_t>(i) * 7;
  k(x);
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_EQ(x[i], static_cast<int64_t>(i) * 7 + 15) << i;
}

TEST_P(TaskLoops, BadLoopsAreRefused) {
  // A step that is not positive at run time, while the loop has iterations to run.
  auto k = kernel("stepped", [](I64 s, Array<float> x) {
    for_range(0, 10, s, [&](Index) { parallel_for(x.size(), [&](Index i) { x[i] += 1.0f; }); });
  });
  prepare(k);
  std::vector<float> x(10, 0.0f);
  try {
    k(int64_t{0}, x);
    FAIL() << "a step of 0 ran";
  } catch (const ArgumentError &e) {
    EXPECT_NE(std::string(e.what()).find("needs a positive step"), std::string::npos) << e.what();
  }
  k(int64_t{4}, x); // t = 0, 4, 8
  EXPECT_EQ(x, std::vector<float>(10, 3.0f));

  // A bound the host cannot compute: it reads an array the kernel writes.
  auto reads = kernel("reads", [](Array<int64_t> n, Array<float> x) {
    for_range(n[0], [&](Index) { parallel_for(x.size(), [&](Index i) { x[i] += 1.0f; }); });
  });
  try {
    std::vector<int64_t> steps{3};
    reads(steps, x);
    FAIL() << "a bound that reads an array compiled";
  } catch (const VerifyError &e) {
    EXPECT_NE(std::string(e.what()).find("must depend only on scalar parameters"),
              std::string::npos)
        << e.what();
  }

  // A local of the loop body that a serial statement changes before a parallel loop reads it.
  auto changes = kernel("changes", [](Array<float> x) {
    for_range(3, [&](Index t) {
      loom::Var<float> c = cast<float>(t);
      c = c * 2.0f;
      parallel_for(x.size(), [&](Index i) { x[i] += c; });
    });
  });
  EXPECT_THROW(changes(x), VerifyError);

  // Parallel loops inside an if, in the text DSL: a located error.
  try {
    compile("@kernel\ndef k(x: f32[n], m: i32):\n    for t in range(3):\n        if m > 0:\n"
            "            for i in parallel(n):\n                x[i] = 1.0\n",
            "if.loom");
    FAIL() << "a parallel loop inside an if compiled";
  } catch (const SourceError &e) {
    EXPECT_NE(std::string(e.what()).find("5:13: error: a parallel loop must be at the top level "
                                         "of the kernel or in 'for' loops there"),
              std::string::npos)
        << e.what();
  }
}

LOOM_INSTANTIATE_TARGETS(TaskLoops);

} // namespace
