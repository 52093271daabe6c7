// Rodinia's srad (version 2): loom's port (srad.loom) against Rodinia's OpenMP version on the CPU
// or its CUDA version on the GPU. Both make their image themselves (rand() / RAND_MAX after
// srand(7), then exp); the driver makes the same one, with glibc's rand and expf as they do.
#include "Harness.h"
#include "srad_source.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

int run(const rodinia::Options &options) {
  // Rodinia's run files: 2048 x 2048, the region of interest rows and columns 0 to 127, lambda
  // 0.5, 2 iterations. Both versions need multiples of 16.
  const int n = options.small ? 64 : 2048, roi_end = options.small ? 15 : 127;
  const int iterations = options.small ? 3 : 2;
  const float lambda = 0.5f;

  srand(7);
  std::vector<float> image(size_t(n) * n);
  for (float &p : image)
    p = std::exp(rand() / float(RAND_MAX)); // exp(float): expf, as in Rodinia's C++

  rodinia::WorkDir dir(options.keep);
  std::string rows = std::to_string(n), roi = std::to_string(roi_end);
  std::vector<std::string> args = {rows, rows, "0", roi, "0", roi};
  if (!options.cuda_peer)
    args.push_back(std::to_string(options.threads));
  args.insert(args.end(), {"0.5", std::to_string(iterations)});
  rodinia::PeerRun peer =
      rodinia::run_peer(options.peer, args, dir.path(), options.threads, options.repeats);
  std::vector<float> expected = rodinia::read_floats(dir / "output.bin");

  loom::Kernel srad = rodinia::load_kernel(options, srad_source, "srad.loom", "srad");
  auto scratch = [&] { return rodinia::KernelArray<float>(options, image, {n, n}); };
  rodinia::KernelArray<float> J = scratch(), c = scratch(), dN = scratch(), dS = scratch(),
                              dW = scratch(), dE = scratch();
  rodinia::KernelArray<float> q0sqr(options, {0.0f}, {1});
  double loom_ms = rodinia::best_ms(
      options.repeats, [&] { J.assign(image); },
      [&] {
        rodinia::call(srad, J, c, dN, dS, dW, dE, q0sqr, int64_t(0), int64_t(roi_end), int64_t(0),
                      int64_t(roi_end), lambda, int64_t(iterations));
      });

  // On the CPU loom computes Rodinia's roundings in Rodinia's order (the region's sums too), so
  // the images are equal. On the GPU, nvcc and loom may each fuse products into sums, which moves
  // a derivative's square or the divergence by an ulp; the update adds an eighth of a divergence
  // to the pixel, so each iteration can leave a pixel an ulp or two apart: 2^-22 per iteration.
  double tolerance = options.gpu() ? iterations * 0x1p-22 : 0;
  double error = rodinia::max_relative_error(J.values(), expected);
  char size[64];
  std::snprintf(size, sizeof size, "%dx%d, %d iterations", n, n, iterations);
  return rodinia::report(options, "srad", size, loom_ms, peer.ms,
                         "largest relative difference to the peer", error, tolerance);
}

} // namespace

int main(int argc, char **argv) {
  rodinia::Options options = rodinia::parse_options(argc, argv, "rodinia_omp_srad");
  return rodinia::guarded("srad", [&] { return run(options); });
}
