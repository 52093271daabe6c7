// Rodinia's lavaMD: loom's port (lavaMD.loom) against Rodinia's OpenMP version on the CPU or its
// CUDA version on the GPU. Both make their particles themselves ((rand() % 10 + 1) / 10, after a
// seed that ADAPTATIONS.md fixes); the driver makes the same ones, and the same boxes.
#include "Harness.h"
#include "lavaMD_source.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

constexpr int per_box = 100; // NUMBER_PAR_PER_BOX

int run(const rodinia::Options &options) {
  // Rodinia's run files: -boxes1d 10 (1000 boxes of 100 particles).
  const int side = options.small ? 3 : 10, boxes = side * side * side;
  const int64_t n = int64_t(boxes) * per_box;

  // main.c's boxes, numbered x fastest, and each one's neighbours in its (z, y, x) order.
  std::vector<int32_t> nn(boxes, 0), nei(size_t(boxes) * 26, 0);
  for (int i = 0, box = 0; i < side; i++)
    for (int j = 0; j < side; j++)
      for (int k = 0; k < side; k++, box++)
        for (int l = -1; l < 2; l++)
          for (int m = -1; m < 2; m++)
            for (int q = -1; q < 2; q++) {
              bool inside = i + l >= 0 && j + m >= 0 && k + q >= 0 && i + l < side &&
                            j + m < side && k + q < side;
              if (inside && !(l == 0 && m == 0 && q == 0))
                nei[size_t(box) * 26 + nn[box]++] = ((i + l) * side + (j + m)) * side + (k + q);
            }
  srand(7);
  std::vector<double> rv(size_t(n) * 4), qv(static_cast<size_t>(n));
  for (double &r : rv)
    r = (rand() % 10 + 1) / 10.0;
  for (double &q : qv)
    q = (rand() % 10 + 1) / 10.0;

  rodinia::WorkDir dir(options.keep);
  std::vector<std::string> args = {"-boxes1d", std::to_string(side)};
  if (!options.cuda_peer)
    args.insert(args.begin(), {"-cores", std::to_string(options.threads)});
  rodinia::PeerRun peer =
      rodinia::run_peer(options.peer, args, dir.path(), options.threads, options.repeats);
  std::vector<double> expected = rodinia::read_binary<double>(dir / "output.bin");

  loom::Kernel lavaMD = rodinia::load_kernel(options, lavaMD_source, "lavaMD.loom", "lavaMD");
  rodinia::KernelArray<double> r(options, rv, {n, 4}), q(options, qv, {n}),
      f(options, std::vector<double>(rv.size()), {n, 4});
  rodinia::KernelArray<int32_t> counts(options, nn, {boxes}), neighbours(options, nei, {boxes, 26});
  double loom_ms = rodinia::best_ms(
      options.repeats, [] {}, [&] { rodinia::call(lavaMD, r, q, f, counts, neighbours, 0.5); });
  const std::vector<double> &got = f.values();

  // Each sum adds up to 2700 terms in Rodinia's order with Rodinia's roundings, except exp: loom's
  // f64 exp and the C library's may differ in the last bit, and nvcc and loom fuse products into
  // sums on the GPU. Each term is then a few ulps (2^-52 relative) apart, and a sum of 2700 of
  // them, positive for v and of both signs for x, y, z, is within 2700 * 4 ulps of its terms'
  // magnitude: relative to max(|value|, 1), 1e-11.
  double error = got.size() == expected.size() ? 0 : INFINITY;
  for (size_t k = 0; k < std::min(got.size(), expected.size()); ++k) {
    double e = std::fabs(got[k] - expected[k]) / std::max(std::fabs(expected[k]), 1.0);
    if (!(e <= error))
      error = std::isnan(e) ? INFINITY : e;
  }
  char size[64];
  std::snprintf(size, sizeof size, "%d boxes of %d particles", boxes, per_box);
  return rodinia::report(options, "lavaMD", size, loom_ms, peer.ms,
                         "largest difference of a force to the peer's (relative, at least 1)",
                         error, 1e-11);
}

} // namespace

int main(int argc, char **argv) {
  rodinia::Options options = rodinia::parse_options(argc, argv, "rodinia_omp_lavaMD");
  return rodinia::guarded("lavaMD", [&] { return run(options); });
}
