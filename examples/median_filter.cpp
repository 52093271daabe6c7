// Debugging a kernel, as one does in Python: a 5-point median filter whose window is each
// iteration's own local array (loom::local_array), an assertion on the input (loom::check) and a
// print of one window (loom::print). The first call meets a NaN the assertion catches: the call
// throws loom::KernelAssertionError naming the line, the message and the iteration, and the
// program carries on, on the same GPU, with the input mended. Checked against std::nth_element.
#include "Report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

int main() {
  auto median5 = loom::kernel(
      "median5",
      [](loom::Array<float> x, loom::Array<float> y) {
        loom::parallel_for(loom::range(2, x.size() - 2), [&](loom::Index i) {
          loom::check(loom::abs(x[i]) <= 3.0e38f, "x holds finite values");
          auto w = loom::local_array<float>(5); // in registers: every index below is a constant
          for (int k = 0; k < 5; ++k)
            w[k] = x[i - 2 + k];
          // A sorting network of 5 (9 compare-and-swaps): w[2] ends as the median.
          const int pairs[9][2] = {{0, 1}, {3, 4}, {2, 4}, {2, 3}, {1, 4},
                                   {0, 3}, {0, 2}, {1, 3}, {1, 2}};
          for (const auto &p : pairs) {
            loom::Var<float> low("low", loom::min(w[p[0]], w[p[1]]));
            w[p[1]] = loom::max(w[p[0]], w[p[1]]);
            w[p[0]] = low;
          }
          loom::if_(i == 2, [&] {
            loom::print("sorted window at i =", i, ":", w[0], w[1], w[2], w[3], w[4]);
          });
          y[i] = w[2];
        });
      },
      {"x", "y"});

  const int64_t n = int64_t(1) << 20;
  std::printf("5-point median filter over %lld floats, on %s\n", static_cast<long long>(n),
              example::where_it_runs().c_str());
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> x(n), y(n, 0.0f);
  for (float &v : x)
    v = uniform(rng);
  x[123456] = std::numeric_limits<float>::quiet_NaN(); // a bad sample
  try {
    median5(x, y);
    std::printf("median filter: FAIL (the NaN went unnoticed)\n");
    return 1;
  } catch (const loom::KernelAssertionError &e) {
    std::printf("caught: %s\n", e.what());
  }
  x[123456] = 0.25f; // mended; the same kernel, the same device
  std::fflush(stdout);
  median5(x, y);

  double worst = 0;
  for (int64_t i = 2; i < n - 2; ++i) {
    float window[5];
    std::copy(x.begin() + i - 2, x.begin() + i + 3, window);
    std::nth_element(window, window + 2, window + 5);
    worst = std::max(worst, double(window[2] != y[i]));
  }
  std::printf("%s", median5.explain().c_str());
  return example::verdict("median filter", worst, 0.0);
}
