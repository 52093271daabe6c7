// Rodinia's kmeans: loom's port (kmeans.loom) against Rodinia's OpenMP version, on the same
// points (Rodinia's binary input format). Rodinia's CUDA version binds its arrays to texture
// references, which CUDA 12 removed, so it is no GPU peer here (README.md).
#include "Harness.h"
#include "kmeans_source.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace {

// `n` points of `features` values in 5 clouds around random centres in [0, 1)^features, each
// value within 0.1 of its centre's, the first 5 points one in each cloud (Rodinia starts from the
// first k points). The clouds are far apart, so both versions converge in a few iterations.
std::vector<float> make_points(int64_t n, int features) {
  rodinia::Random random(5);
  std::vector<float> centres(size_t(5) * features), p(size_t(n) * features);
  for (float &c : centres)
    c = float(random.uniform());
  for (int64_t i = 0; i < n; ++i) {
    size_t cloud = i < 5 ? size_t(i) : random.next() % 5;
    for (int j = 0; j < features; ++j)
      p[size_t(i) * features + j] =
          centres[cloud * features + j] + float(0.2 * (random.uniform() - 0.5));
  }
  return p;
}

void write_binary(const std::filesystem::path &file, const std::vector<float> &p, int n,
                  int features) {
  FILE *out = std::fopen(file.c_str(), "wb");
  if (!out)
    throw std::runtime_error("cannot write " + file.string());
  std::fwrite(&n, sizeof n, 1, out);
  std::fwrite(&features, sizeof features, 1, out);
  std::fwrite(p.data(), sizeof(float), p.size(), out);
  std::fclose(out);
}

int run(const rodinia::Options &options) {
  // Rodinia's run file clusters kdd_cup (494020 points of 34 features) into 5, threshold 0.001.
  const int n = options.small ? 4096 : 494020, features = options.small ? 8 : 34, k = 5;
  const float threshold = 0.001f;
  std::vector<float> feature = make_points(n, features);

  rodinia::WorkDir dir(options.keep);
  write_binary(dir / "points", feature, n, features);
  rodinia::PeerRun peer = rodinia::run_peer(
      options.peer, {"-i", "points", "-b", "1", "-n", std::to_string(options.threads)}, dir.path(),
      options.threads, options.repeats);
  std::vector<float> output = rodinia::read_floats(dir / "output.bin"); // membership, centres
  std::vector<int32_t> expected_membership = rodinia::read_binary<int32_t>(dir / "output.bin");
  expected_membership.resize(size_t(n));
  std::vector<float> expected_centres(output.begin() + n, output.end());

  // One run of points per OpenMP thread on the CPU: the peer's sums, in its order. The GPU needs
  // many runs to keep its threads busy.
  const int chunks = options.gpu() ? 16384 : options.threads;
  loom::Kernel step = rodinia::load_kernel(options, kmeans_source, "kmeans.loom", "kmeans_step");
  // Rodinia's initial centres are the first k points; no point has a centre yet.
  std::vector<float> first(feature.begin(), feature.begin() + size_t(k) * features);
  rodinia::KernelArray<float> points(options, feature, {n, features}),
      clusters(options, first, {k, features}),
      partial(options, std::vector<float>(size_t(chunks) * k * features), {chunks, k, features});
  rodinia::KernelArray<int32_t> membership(options, std::vector<int32_t>(size_t(n), -1), {n}),
      partial_len(options, std::vector<int32_t>(size_t(chunks) * k), {chunks, k}),
      delta(options, {0}, {1});
  int iterations = 0;
  double loom_ms = rodinia::best_ms(
      options.repeats,
      [&] {
        clusters.assign(first);
        membership.assign(std::vector<int32_t>(size_t(n), -1));
      },
      [&] { // kmeans_clustering's loop
        int loop = 0;
        iterations = 0;
        do {
          rodinia::call(step, points, clusters, membership, partial, partial_len, delta);
          ++iterations;
        } while (delta.values()[0] > threshold && loop++ < 500);
      });

  // On the CPU loom computes every distance and every sum with Rodinia's roundings in Rodinia's
  // order, so memberships and centres are equal. On the GPU the runs differ from the peer's
  // threads, so a centre's sum of up to n values in [0, 1.1) is rounded in another order: within
  // n * 2^-24 of the sum, relative, in the worst case, the centre (the sum's mean) too.
  double tolerance = options.gpu() ? n * 0x1p-24 : 0;
  double error = rodinia::max_relative_error(clusters.values(), expected_centres);
  const std::vector<int32_t> &got_membership = membership.values();
  for (int i = 0; i < n; ++i)
    if (got_membership[i] != expected_membership[i])
      error = INFINITY; // a point in another cluster: not a rounding difference
  char size[96];
  std::snprintf(size, sizeof size, "%d points, %d features, %d clusters, %d iterations", n,
                features, k, iterations);
  return rodinia::report(options, "kmeans", size, loom_ms, peer.ms,
                         "largest relative difference of a centre (any other membership: inf)",
                         error, tolerance);
}

} // namespace

int main(int argc, char **argv) {
  rodinia::Options options = rodinia::parse_options(argc, argv, "rodinia_omp_kmeans");
  return rodinia::guarded("kmeans", [&] { return run(options); });
}
