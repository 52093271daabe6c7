// The classic naive matmul (one thread per output element, inner loop over k), 1024 x 1024 f32,
// checked against a double-precision reference on the host.
#include "Report.h"

#include <cmath>
#include <random>
#include <vector>

int main() {
  auto matmul =
      loom::kernel("matmul",
                   [](loom::Array2<float> A, loom::Array2<float> B, loom::Array2<float> C) {
                     loom::parallel_for({C.dim(0), C.dim(1)}, [&](loom::Index i, loom::Index j) {
                       loom::Var<float> acc("acc", 0.0f);
                       loom::for_range(A.dim(1), [&](loom::Index k) { acc += A(i, k) * B(k, j); });
                       C(i, j) = acc;
                     });
                   },
                   {"A", "B", "C"});

  const int64_t n = 1024;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> A(n * n), B(n * n), C(n * n, NAN);
  for (auto &v : A)
    v = dist(rng);
  for (auto &v : B)
    v = dist(rng);

  std::printf("matmul %lld x %lld, on %s\n", (long long)n, (long long)n,
              example::where_it_runs().c_str());
  double first = example::time_ms([&] {
    matmul(loom::view(A, {n, n}), loom::view(B, {n, n}), loom::view(C, {n, n}));
  });
  double again = example::time_ms([&] {
    matmul(loom::view(A, {n, n}), loom::view(B, {n, n}), loom::view(C, {n, n}));
  });
  std::printf("first call (trace, compile, load, copy, run): %.2f ms; second call: %.2f ms "
              "(%.1f GFLOP/s)\n",
              first, again, 2.0 * n * n * n / (again * 1e6));

  // Reference in double on a sample of rows (all columns), plus the corners.
  double worst = 0;
  for (int64_t i = 0; i < n; i += 37) {
    for (int64_t j = 0; j < n; ++j) {
      double ref = 0, mag = 0;
      for (int64_t k = 0; k < n; ++k) {
        ref += double(A[i * n + k]) * B[k * n + j];
        mag += std::abs(double(A[i * n + k]) * B[k * n + j]);
      }
      worst = std::max(worst, std::abs(C[i * n + j] - ref) / mag);
    }
  }
  std::printf("%s", matmul.explain().c_str());
  return example::verdict("matmul", worst, 1e-5);
}
