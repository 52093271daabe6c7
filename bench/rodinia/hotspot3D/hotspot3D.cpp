// Rodinia's hotspot3D: loom's port (hotspot3D.loom) against Rodinia's OpenMP version on the CPU or
// its CUDA version on the GPU, on the same power and temperature files.
#include "Harness.h"
#include "hotspot3D_source.h"

#include <cstdio>
#include <string>

namespace {

// Rodinia's chip and solver constants (both versions).
constexpr float t_chip = 0.0005f, chip_height = 0.016f, chip_width = 0.016f;
constexpr double max_pd = 3.0e6, precision = 0.001, spec_heat_si = 1.75e6, factor_chip = 0.5;
constexpr int k_si = 100;

struct Coefficients {
  float cc, cew, cns, ctb, sdc;
};

// The coefficients as main and computeTempOMP (hotspot_opt1 for CUDA, the same) compute them,
// in their types.
Coefficients coefficients(int rows, int cols, int layers) {
  float dx = chip_height / rows, dy = chip_width / cols, dz = t_chip / layers;
  float cap = factor_chip * spec_heat_si * t_chip * dx * dy;
  float rx = dy / (2.0 * k_si * t_chip * dx);
  float ry = dx / (2.0 * k_si * t_chip * dy);
  float rz = dz / (k_si * dx * dy);
  float max_slope = max_pd / (factor_chip * t_chip * spec_heat_si);
  float dt = precision / max_slope;
  float step_div_cap = dt / cap;
  float ce = step_div_cap / rx, cn = step_div_cap / ry, ct = step_div_cap / rz;
  float cc = 1.0 - (2.0 * ce + 2.0 * cn + 3.0 * ct);
  return {cc, ce, cn, ct, step_div_cap};
}

// Rodinia's files list the grid row by row, column by column, layer by layer (the layer
// fastest), while its arrays, like loom's, are [layer][row][column].
std::vector<float> file_order(const std::vector<float> &grid, int n, int layers) {
  std::vector<float> lines;
  lines.reserve(grid.size());
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < layers; ++k)
        lines.push_back(grid[(size_t(k) * n + i) * n + j]);
  return lines;
}
std::vector<float> grid_order(const std::vector<float> &lines, int n, int layers) {
  std::vector<float> grid(lines.size());
  size_t line = 0;
  for (int i = 0; i < n && line < lines.size(); ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < layers && line < lines.size(); ++k)
        grid[(size_t(k) * n + i) * n + j] = lines[line++];
  return grid;
}

int run(const rodinia::Options &options) {
  // Rodinia's run files: 512 x 512 x 8, 100 steps. The CUDA version needs a multiple of 64 columns
  // and of 4 rows.
  const int n = options.small ? 64 : 512, layers = options.small ? 4 : 8;
  const int steps = options.small ? 5 : 100;

  // Temperatures of 323 to 343 K and powers up to 1e-3 per cell, the same for every run.
  rodinia::Random random(2);
  std::vector<float> temp(size_t(n) * n * layers), power(temp.size());
  for (float &t : temp)
    t = float(323.0 + 20.0 * random.uniform());
  for (float &p : power)
    p = float(1e-3 * random.uniform());

  rodinia::WorkDir dir(options.keep);
  rodinia::write_lines(dir / "power", file_order(power, n, layers));
  rodinia::write_lines(dir / "temp", file_order(temp, n, layers));
  rodinia::PeerRun peer = rodinia::run_peer(
      options.peer,
      {std::to_string(n), std::to_string(layers), std::to_string(steps), "power", "temp", "output"},
      dir.path(), options.threads, options.repeats);
  std::vector<float> expected = grid_order(rodinia::read_last_column(dir / "output"), n, layers);

  loom::Kernel hotspot3D =
      rodinia::load_kernel(options, hotspot3D_source, "hotspot3D.loom", "hotspot3D");
  Coefficients k = coefficients(n, n, layers);
  rodinia::KernelArray<float> p(options, power, {layers, n, n}),
      t_in(options, temp, {layers, n, n}),
      t_out(options, std::vector<float>(temp.size()), {layers, n, n});
  double loom_ms = rodinia::best_ms(
      options.repeats, [&] { t_in.assign(temp); },
      [&] {
        rodinia::call(hotspot3D, p, t_in, t_out, int64_t(steps), k.cc, k.cew, k.cns, k.ctb, k.sdc);
      });
  const std::vector<float> &got = steps % 2 ? t_out.values() : t_in.values();

  // On the CPU loom adds Rodinia's terms in Rodinia's order with the same roundings: equal. On
  // the GPU nvcc and loom may each fuse products into the sum, a cell an ulp apart per step; the
  // stencil's weights sum to 1 and are positive, so earlier differences do not grow: at most one
  // ulp (2^-23 relative) per step, two for margin.
  double tolerance = options.gpu() ? steps * 0x1p-22 : 0;
  double error = rodinia::max_relative_error(got, expected);
  char size[64];
  std::snprintf(size, sizeof size, "%dx%dx%d, %d steps", n, n, layers, steps);
  return rodinia::report(options, "hotspot3D", size, loom_ms, peer.ms,
                         "largest relative difference to the peer", error, tolerance);
}

} // namespace

int main(int argc, char **argv) {
  rodinia::Options options = rodinia::parse_options(argc, argv, "rodinia_omp_hotspot3D");
  return rodinia::guarded("hotspot3D", [&] { return run(options); });
}
