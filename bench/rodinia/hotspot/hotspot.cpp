// Rodinia's hotspot: loom's port (hotspot.loom) against Rodinia's OpenMP version on the CPU or its
// CUDA version on the GPU, on the same temperature and power files.
#include "Harness.h"
#include "hotspot_source.h"

#include <cstdio>
#include <string>

namespace {

// Rodinia's chip and solver constants (both versions).
constexpr float t_chip = 0.0005f, chip_height = 0.016f, chip_width = 0.016f;
constexpr double max_pd = 3.0e6, precision = 0.001, spec_heat_si = 1.75e6, factor_chip = 0.5;
constexpr int k_si = 100;

struct Coefficients {
  float cap_1, rx_1, ry_1, rz_1;
};

// The coefficients as compute_tran_temp computes them, in its types. The OpenMP version divides
// the time step by another 1000 (its `step`); the CUDA version's kernel divides step by Cap and
// inverts the resistances itself, in float.
Coefficients coefficients(int rows, int cols, bool cuda) {
  float grid_height = chip_height / rows, grid_width = chip_width / cols;
  float cap = factor_chip * spec_heat_si * t_chip * grid_width * grid_height;
  float rx = grid_width / (2.0 * k_si * t_chip * grid_height);
  float ry = grid_height / (2.0 * k_si * t_chip * grid_width);
  float rz = t_chip / (k_si * grid_height * grid_width);
  float max_slope = max_pd / (factor_chip * t_chip * spec_heat_si);
  float step = cuda ? float(precision / max_slope) : float(precision / max_slope / 1000.0);
  return {step / cap, 1.f / rx, 1.f / ry, 1.f / rz};
}

int run(const rodinia::Options &options) {
  // Rodinia's run files: 1024 x 1024, 2 steps for OpenMP; 512 x 512, 2 steps, pyramid height 2
  // for CUDA. Both versions need a multiple of 16 (the OpenMP one's chunks are 16 x 16).
  const int n = options.small ? 64 : options.cuda_peer ? 512 : 1024;
  const int steps = options.small ? 5 : 2, pyramid_height = 2;

  // Temperatures of 323 to 343 K and powers up to 1e-3 per cell, the same for every run.
  rodinia::Random random(1);
  std::vector<float> temp(size_t(n) * n), power(temp.size());
  for (float &t : temp)
    t = float(323.0 + 20.0 * random.uniform());
  for (float &p : power)
    p = float(1e-3 * random.uniform());

  rodinia::WorkDir dir(options.keep);
  rodinia::write_lines(dir / "temp", temp);
  rodinia::write_lines(dir / "power", power);
  std::vector<std::string> args;
  if (options.cuda_peer)
    args = {
        std::to_string(n), std::to_string(pyramid_height), std::to_string(steps), "temp", "power",
        "output"};
  else
    args = {std::to_string(n),
            std::to_string(n),
            std::to_string(steps),
            std::to_string(options.threads),
            "temp",
            "power",
            "output"};
  rodinia::PeerRun peer =
      rodinia::run_peer(options.peer, args, dir.path(), options.threads, options.repeats);
  std::vector<float> expected = rodinia::read_last_column(dir / "output");

  loom::Kernel hotspot = rodinia::load_kernel(options, hotspot_source, "hotspot.loom", "hotspot");
  Coefficients k = coefficients(n, n, options.cuda_peer);
  rodinia::KernelArray<float> t(options, temp, {n, n}), p(options, power, {n, n}),
      result(options, std::vector<float>(temp.size()), {n, n});
  double loom_ms = rodinia::best_ms(
      options.repeats, [&] { t.assign(temp); },
      [&] {
        rodinia::call(hotspot, t, p, result, int64_t(steps), k.cap_1, k.rx_1, k.ry_1, k.rz_1);
      });
  const std::vector<float> &got = steps % 2 ? result.values() : t.values();

  // Where loom and the peer compute a cell the same way (the OpenMP interior) they agree bit for
  // bit; a border cell's neighbour terms round differently (Rodinia's OpenMP version writes
  // t_south - t where loom writes t_south + t - 2 t, and in double), and the CUDA version computes
  // in double throughout. Each step can then round a cell 1 ulp apart, and the stencil, whose
  // weights sum to less than 1, carries earlier differences without growing them: at most one
  // ulp (2^-23 relative) per step, two for margin.
  double tolerance = steps * 0x1p-22;
  double error = rodinia::max_relative_error(got, expected);
  char size[64];
  std::snprintf(size, sizeof size, "%dx%d, %d steps", n, n, steps);
  return rodinia::report(options, "hotspot", size, loom_ms, peer.ms,
                         "largest relative difference to the peer", error, tolerance);
}

} // namespace

int main(int argc, char **argv) {
  rodinia::Options options = rodinia::parse_options(argc, argv, "rodinia_omp_hotspot");
  return rodinia::guarded("hotspot", [&] { return run(options); });
}
