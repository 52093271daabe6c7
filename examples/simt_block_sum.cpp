// The SIMT level: a sum written as CUDA programmers write it, with a shared-memory tree per block,
// barriers, a warp-shuffle finish and one atomic add per block. It runs on the GPU when there is
// one, else on the CPU (each block on a core, its threads on fibers), checked against a
// double-precision reference. A second kernel takes its block size at run time: its tree lives in
// the dynamic shared array, which each launch sizes (CUDA's extern __shared__).
#include "Report.h"

#include <cmath>
#include <random>
#include <string>
#include <vector>

int main() {
  using namespace loom;
  constexpr int threads = 256;
  auto block_sum =
      simt_kernel("block_sum",
                  [](Array<float> x, Array<float> total) {
                    auto partial = shared_array<float>(threads);
                    I32 t = thread_idx().x;
                    // Each thread first sums a grid-strided slice of x.
                    Var<float> mine("mine", 0.0f);
                    for_range(grid<1>(), x.size(), grid_size<1>(), [&](Index i) { mine += x[i]; });
                    partial[t] = mine;
                    barrier();
                    for (int stride = threads / 2; stride >= 32; stride /= 2) {
                      if_(t < stride, [&] { partial[t] += partial[t + stride]; });
                      barrier();
                    }
                    // The first warp finishes with shuffles, then one atomic per block.
                    if_(t < 32, [&] {
                      Var<float> v("v", partial[t]);
                      for (int offset = 16; offset > 0; offset /= 2)
                        v += shfl_down_sync(v, offset);
                      if_(t == 0, [&] { atomic_add(total[0], v); });
                    });
                  },
                  {"x", "total"});

  // The same tree over a block whose size the launch chooses: one element per thread of the
  // dynamic shared array, shape(grid, block, block * sizeof(float)).
  auto block_sum_any =
      simt_kernel("block_sum_any",
                  [](Array<float> x, Array<float> total) {
                    auto partial = dynamic_shared_array<float>();
                    I32 t = thread_idx().x;
                    Var<float> mine("mine", 0.0f);
                    for_range(grid<1>(), x.size(), grid_size<1>(), [&](Index i) { mine += x[i]; });
                    partial[t] = mine;
                    barrier();
                    Var<int64_t> stride("stride", partial.size() / 2);
                    while_(stride > 0, [&] {
                      if_(t < stride, [&] { partial[t] += partial[t + stride]; });
                      barrier();
                      stride /= 2;
                    });
                    if_(t == 0, [&] { atomic_add(total[0], partial[0]); });
                  },
                  {"x", "total"});

  const size_t n = size_t(1) << 24;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(n);
  for (float &v : x)
    v = dist(rng);
  std::vector<float> total{0.0f};

  std::printf("SIMT block sum, n = %zu, on %s\n", n, example::where_it_runs().c_str());
  block_sum.shape(1024, threads);
  double first = example::time_ms([&] { block_sum(x, total); });
  std::printf("first call (trace, compile, run): %.2f ms\n", first);

  double ref = 0, magnitude = 0;
  for (float v : x)
    ref += v, magnitude += std::abs(v);
  std::printf("%s", block_sum.explain().c_str());
  // f32 partial sums in an unspecified order: within 1e-6 of the sum of magnitudes.
  int failed = example::verdict("block_sum", std::abs(total[0] - ref) / magnitude, 1e-6);
  for (unsigned block : {128u, 512u}) { // one compile serves both
    std::vector<float> any_total{0.0f};
    block_sum_any.shape(1024, block, block * sizeof(float))(x, any_total);
    const std::string what = "block_sum_any, blocks of " + std::to_string(block) + " threads";
    failed |= example::verdict(what.c_str(), std::abs(any_total[0] - ref) / magnitude, 1e-6);
  }
  return failed;
}
