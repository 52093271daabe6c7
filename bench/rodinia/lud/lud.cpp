// Rodinia's lud: loom's port (lud.loom) against Rodinia's OpenMP version on the CPU or its CUDA
// version on the GPU. Both make their matrix themselves (create_matrix, -s N); the driver makes
// the same one.
#include "Harness.h"
#include "lud_source.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace {

int run(const rodinia::Options &options) {
  // Rodinia's run files: -s 8000 for OpenMP, -s 256 for CUDA. 8000 is 0.34 TFLOP, minutes for
  // loom's scalar code on 2 cores (README.md); 2048, the largest of Rodinia's lud data files,
  // is the CPU's size here.
  const int n = options.small ? 64 : options.cuda_peer ? 256 : 2048;
  // create_matrix in common.c: 10 exp(-0.001 |i - j|), C's exp of the float product in double.
  std::vector<float> matrix = rodinia::create_matrix(n, -0.001f, false);

  rodinia::WorkDir dir(options.keep);
  std::vector<std::string> args = {"-s", std::to_string(n)};
  if (!options.cuda_peer)
    args.insert(args.end(), {"-n", std::to_string(options.threads)});
  rodinia::PeerRun peer =
      rodinia::run_peer(options.peer, args, dir.path(), options.threads, options.repeats);
  std::vector<float> expected = rodinia::read_floats(dir / "output.bin");

  loom::Kernel lud = rodinia::load_kernel(options, lud_source, "lud.loom", "lud");
  rodinia::KernelArray<float> a(options, matrix, {n, n});
  double loom_ms = rodinia::best_ms(
      options.repeats, [&] { a.assign(matrix); }, [&] { rodinia::call(lud, a); });

  // On the CPU loom computes Rodinia's roundings in Rodinia's order (its blocks, and each sum of
  // a block's products before the subtraction), so the factors are equal. On the GPU Rodinia's
  // CUDA version sums in its own order, and both fuse products into sums. Without pivoting the
  // elimination of this matrix (entries near 10 everywhere) cancels heavily: most entries of U
  // are small differences of near-equal numbers, each carrying the rounding of its inputs, so
  // the differences are compared with the largest entry of the factors, normwise. On the H200
  // they measured 5e-5 (n = 64 and 256, against either peer) and 1.2e-4 (n = 2048, against
  // OpenMP): 1e-3 leaves a margin and still fails an entry off by a small pivot's size.
  double tolerance = options.gpu() ? 1e-3 : 0;
  const std::vector<float> &got = a.values();
  double largest = 0, worst = got.size() == expected.size() ? 0 : INFINITY;
  for (size_t k = 0; k < std::min(got.size(), expected.size()); ++k) {
    largest = std::max(largest, std::fabs(double(expected[k])));
    double d = std::fabs(double(got[k]) - expected[k]);
    if (!(d <= worst))
      worst = std::isnan(d) ? INFINITY : d;
  }
  double error = worst / largest;
  char size[64];
  std::snprintf(size, sizeof size, "%dx%d", n, n);
  return rodinia::report(options, "lud", size, loom_ms, peer.ms,
                         "largest difference to the peer, relative to its largest entry", error,
                         tolerance);
}

} // namespace

int main(int argc, char **argv) {
  rodinia::Options options = rodinia::parse_options(argc, argv, "rodinia_omp_lud");
  return rodinia::guarded("lud", [&] { return run(options); });
}
