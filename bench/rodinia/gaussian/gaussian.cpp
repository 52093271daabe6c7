// Rodinia's gaussian: loom's port (gaussian.loom) against Rodinia's CUDA version on the GPU or,
// on the CPU, its kernels run as OpenMP loops (Rodinia has no OpenMP gaussian; ADAPTATIONS.md).
// Both make their matrix themselves (create_matrix, -s N, b = 1); the driver makes the same one.
// Back substitution is host code in Rodinia, untimed; here too, on loom's a and b.
#include "Harness.h"
#include "gaussian_source.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace {

// BackSub in gaussian.cu, its statements in its order (this file is built without FMA: no
// contraction, as in the peers).
std::vector<float> back_sub(const std::vector<float> &a, const std::vector<float> &b, int size) {
  std::vector<float> x(size);
  for (int i = 0; i < size; i++) {
    x[size - i - 1] = b[size - i - 1];
    for (int j = 0; j < i; j++)
      x[size - i - 1] -= a[size_t(size) * (size - i - 1) + (size - j - 1)] * x[size - j - 1];
    x[size - i - 1] = x[size - i - 1] / a[size_t(size) * (size - i - 1) + (size - i - 1)];
  }
  return x;
}

// The largest |got - ref| over the elements, relative to the largest |ref| (NaN anywhere, or
// different counts: infinite).
double normwise_error(const float *got, const float *ref, size_t count) {
  double largest = 0, worst = 0;
  for (size_t k = 0; k < count; ++k) {
    largest = std::max(largest, std::fabs(double(ref[k])));
    double d = std::fabs(double(got[k]) - ref[k]);
    if (!(d <= worst))
      worst = std::isnan(d) ? INFINITY : d;
  }
  return largest > 0 ? worst / largest : worst == 0 ? 0 : INFINITY;
}

int run(const rodinia::Options &options) {
  // Rodinia's run files: -s 16 for CUDA (and a 4 x 4 file), -s 2048 for OpenCL. 16 is 15 steps
  // of launches on a 16 x 16 matrix, a smoke test, so both targets run OpenCL's 2048 (the
  // OpenMP peer: about 1 s on 2 cores). CI's: 96.
  const int n = options.small ? 96 : 2048;
  // create_matrix in gaussian.cu: 10 exp(-0.01 |i - j|). The OpenMP peer is C, where exp takes
  // the float product in double; the CUDA peer's host code is C++, where exp of a float is the
  // float overload (checked: gaussian.cu's create_matrix built by nvcc 13.0 makes that matrix,
  // bit for bit).
  std::vector<float> matrix = rodinia::create_matrix(n, -0.01f, options.cuda_peer);
  std::vector<float> ones(n, 1.0f), zeros(size_t(n) * n, 0.0f);

  rodinia::WorkDir dir(options.keep);
  rodinia::PeerRun peer = rodinia::run_peer(options.peer, {"-s", std::to_string(n), "-q"},
                                            dir.path(), options.threads, options.repeats);
  // output.bin: a (n x n), b (n) and m (n x n) after ForwardSub, then finalVec (n).
  std::vector<float> expected = rodinia::read_floats(dir / "output.bin");
  const size_t nn = size_t(n) * n;
  if (expected.size() != 2 * nn + 2 * size_t(n))
    throw std::runtime_error("the peer's output.bin holds " + std::to_string(expected.size()) +
                             " floats, not " + std::to_string(2 * nn + 2 * size_t(n)));

  loom::Kernel gaussian =
      rodinia::load_kernel(options, gaussian_source, "gaussian.loom", "gaussian");
  rodinia::KernelArray<float> a(options, matrix, {n, n}), b(options, ones, {n}),
      m(options, zeros, {n, n});
  double loom_ms = rodinia::best_ms(
      options.repeats,
      [&] {
        a.assign(matrix);
        b.assign(ones);
        m.assign(zeros); // InitPerRun
      },
      [&] { rodinia::call(gaussian, a, b, m); });
  const std::vector<float> &got_a = a.values(), &got_b = b.values(), &got_m = m.values();
  std::vector<float> got_x = back_sub(got_a, got_b, n);

  // On the CPU loom computes Rodinia's roundings in Rodinia's order (a division per multiplier,
  // a product and a difference per update, no fma on either side), so a, b, m and the solution
  // are equal, bit for bit: tolerance 0.
  //
  // On the GPU either side may fuse `a - m * a[t]` (and b's) into one fma, which rounds once
  // where the other rounds twice: up to an ulp of the product per update, which later steps
  // carry on through the multipliers (|m| <= 1 here: m[i, t] = exp(-0.01 (i - t)) in exact
  // arithmetic) and the pivots (about 0.2, 10 (1 - exp(-0.02)), each a difference of numbers
  // near 10). Compared elementwise this is hopeless where Fan2 leaves a rounding residue (a's
  // column t below the diagonal: about 1e-7 without fma, the exact residue with it), so each
  // array is compared normwise: its largest difference relative to its largest entry. The same
  // elimination in float on the CPU with std::fma in every update, against without (as the two
  // sides would differ at most), differed normwise by 3.9e-6 (a), 2.8e-6 (b), 2.3e-4 (m) and
  // 4.7e-4 (the solution; this matrix's condition number is about 4e4) at n = 2048, by as much
  // at 1024 and by 5e-5 at 96. 5e-3 leaves a margin of 10 and still fails a wrong step, which
  // moves entries by their own size.
  double tolerance = options.gpu() ? 5e-3 : 0;
  double error = std::max({normwise_error(got_a.data(), expected.data(), nn),
                           normwise_error(got_b.data(), expected.data() + nn, n),
                           normwise_error(got_m.data(), expected.data() + nn + n, nn),
                           normwise_error(got_x.data(), expected.data() + 2 * nn + n, n)});
  char size[64];
  std::snprintf(size, sizeof size, "%dx%d", n, n);
  return rodinia::report(options, "gaussian", size, loom_ms, peer.ms,
                         "largest normwise difference to the peer of a, b, m and the solution",
                         error, tolerance);
}

} // namespace

int main(int argc, char **argv) {
  rodinia::Options options = rodinia::parse_options(argc, argv, "rodinia_omp_gaussian");
  return rodinia::guarded("gaussian", [&] { return run(options); });
}
