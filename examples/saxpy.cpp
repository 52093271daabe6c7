// y = a*x + y over 2^24 floats, checked against a double-precision reference on the host.
#include "Report.h"

#include <cmath>
#include <random>
#include <vector>

int main() {
  auto saxpy =
      loom::kernel("saxpy",
                   [](loom::F32 a, loom::Array<float> x, loom::Array<float> y) {
                     loom::parallel_for(x.size(), [&](loom::Index i) { y[i] = a * x[i] + y[i]; });
                   },
                   {"a", "x", "y"});

  const size_t n = size_t(1) << 24;
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(n), y(n);
  for (size_t i = 0; i < n; ++i)
    x[i] = dist(rng), y[i] = dist(rng);
  const float a = 2.5f;
  std::vector<float> y0 = y;

  std::printf("saxpy, n = %zu, on %s\n", n, example::where_it_runs().c_str());
  double first = example::time_ms([&] { saxpy(a, x, y); });
  std::vector<float> y1 = y; // result of the first call
  double again = example::time_ms([&] { saxpy(a, x, y); });
  std::printf("first call (trace, compile, load, copy, run): %.2f ms; second call: %.2f ms\n",
              first, again);

  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    double ref = double(a) * x[i] + y0[i];
    worst = std::max(worst, std::abs(y1[i] - ref) / std::max(1.0, std::abs(ref)));
  }
  std::printf("%s", saxpy.explain().c_str());
  return example::verdict("saxpy", worst, 1e-6);
}
