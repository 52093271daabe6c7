// Rodinia's pathfinder: loom's port (pathfinder.loom) against Rodinia's OpenMP version on the CPU
// or its CUDA version on the GPU. Both generate their grid of weights themselves, rand() % 10
// after srand(9); the driver makes the same one (glibc's rand, the same in both processes).
#include "Harness.h"
#include "pathfinder_source.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

namespace {

// The costs the peer prints on its last line of output.
std::vector<int32_t> last_row(const std::string &output) {
  size_t end = output.find_last_not_of(" \n\r");
  if (end == std::string::npos)
    throw std::runtime_error("the peer printed nothing");
  size_t begin = output.find_last_of('\n', end);
  std::istringstream line(output.substr(begin == std::string::npos ? 0 : begin + 1));
  std::vector<int32_t> row;
  for (int32_t v; line >> v;)
    row.push_back(v);
  return row;
}

int run(const rodinia::Options &options) {
  // Rodinia's run files: 100000 columns, 100 rows (and pyramid height 20 for CUDA).
  const int cols = options.small ? 1000 : 100000, rows = options.small ? 20 : 100;
  const int pyramid_height = 20;

  srand(9);
  std::vector<int32_t> wall(size_t(rows) * cols);
  for (int32_t &w : wall)
    w = rand() % 10;
  std::vector<int32_t> cost(2 * size_t(cols), 0);
  std::copy(wall.begin(), wall.begin() + cols, cost.begin()); // row 0 costs its weights

  rodinia::WorkDir dir(options.keep);
  std::vector<std::string> args = {std::to_string(cols), std::to_string(rows)};
  if (options.cuda_peer)
    args.push_back(std::to_string(pyramid_height));
  rodinia::PeerRun peer =
      rodinia::run_peer(options.peer, args, dir.path(), options.threads, options.repeats);
  std::vector<int32_t> expected = last_row(peer.output);

  loom::Kernel pathfinder =
      rodinia::load_kernel(options, pathfinder_source, "pathfinder.loom", "pathfinder");
  rodinia::KernelArray<int32_t> w(options, wall, {rows, cols}), c(options, cost, {2, cols});
  double loom_ms = rodinia::best_ms(
      options.repeats, [&] { c.assign(cost); }, [&] { rodinia::call(pathfinder, w, c); });
  const std::vector<int32_t> &both = c.values();
  std::vector<int32_t> got(both.begin() + size_t((rows - 1) % 2) * cols,
                           both.begin() + size_t((rows - 1) % 2 + 1) * cols);

  // Sums and minima of small integers: exact, so the rows must be equal.
  size_t differ = got.size() == expected.size() ? 0 : std::max(got.size(), expected.size());
  for (size_t k = 0; k < std::min(got.size(), expected.size()); ++k)
    differ += got[k] != expected[k];
  char size[64];
  std::snprintf(size, sizeof size, "%d columns, %d rows", cols, rows);
  return rodinia::report(options, "pathfinder", size, loom_ms, peer.ms,
                         "costs that differ from the peer's", double(differ), 0);
}

} // namespace

int main(int argc, char **argv) {
  rodinia::Options options = rodinia::parse_options(argc, argv, "rodinia_omp_pathfinder");
  return rodinia::guarded("pathfinder", [&] { return run(options); });
}
