// Rodinia's nn: loom's port (nn.loom) against Rodinia's OpenMP version on the CPU or its CUDA
// version on the GPU, on the same hurricane files (hurricane_gen.c's format, from a fixed seed
// instead of the time) and target. loom computes every distance; the host picks the k nearest.
#include "Harness.h"
#include "nn_source.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace {

const char *names[] = {"ALBERTO", "BERYL", "CHRIS",  "DEBBY", "ERNESTO", "FLORENCE", "GORDON",
                       "HELENE",  "ISAAC", "JOYCE",  "KIRK",  "LESLIE",  "MICHAEL",  "NADINE",
                       "OSCAR",   "PATTY", "RAFAEL", "SANDY", "TONY",    "VALERIE",  "WILLIAM"};

// `files` files of `per_file` records each, as hurricane_gen writes them, and their list.
void write_records(const rodinia::WorkDir &dir, int files, int per_file) {
  rodinia::Random random(3);
  auto below = [&](int n) { return int(random.next() % uint64_t(n)); };
  std::ofstream list(dir / "filelist");
  for (int f = 0; f < files; ++f) {
    std::string name = "cane" + std::to_string(files) + "_" + std::to_string(f) + ".db";
    list << name << "\n";
    FILE *out = std::fopen((dir / name).c_str(), "w");
    if (!out)
      throw std::runtime_error("cannot write " + name);
    for (int r = 0; r < per_file; ++r) {
      int year = 1950 + below(55), month = 1 + below(12), date = 1 + below(28);
      int hour = 6 * below(4), num = 1 + below(28);
      const char *name = names[below(21)];
      float lat = float(7 + below(63)) + float(random.uniform());
      float lon = float(below(358)) + float(random.uniform());
      int speed = 10 + below(155), press = below(900);
      std::fprintf(out, "%4d %2d %2d %2d %2d %-9s %5.1f %5.1f %4d %4d\n", year, month, date, hour,
                   num, name, lat, lon, speed, press);
    }
    std::fclose(out);
  }
}

// The positions, parsed as Rodinia's CUDA version parses them (five characters from column 28
// and from column 33, through atof).
std::vector<float> read_locations(const rodinia::WorkDir &dir, int files) {
  std::vector<float> locations;
  for (int f = 0; f < files; ++f) {
    std::ifstream in(dir / ("cane" + std::to_string(files) + "_" + std::to_string(f) + ".db"));
    for (std::string record; std::getline(in, record);) {
      locations.push_back(float(std::atof(record.substr(28, 5).c_str())));
      locations.push_back(float(std::atof(record.substr(33, 5).c_str())));
    }
  }
  return locations;
}

// The distances of the peer's "record --> distance" lines (CUDA's: "--> Distance=d"), sorted.
std::vector<float> peer_distances(const std::string &output) {
  std::vector<float> distances;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    size_t at = line.find(" --> ");
    if (at == std::string::npos)
      continue;
    std::string value = line.substr(at + 5);
    if (value.rfind("Distance=", 0) == 0)
      value = value.substr(9);
    distances.push_back(std::strtof(value.c_str(), nullptr));
  }
  std::sort(distances.begin(), distances.end());
  return distances;
}

int run(const rodinia::Options &options) {
  // Rodinia's data set: hurricane_gen 42760 4 (10691 records in each of 4 files); its run files
  // ask for the 5 nearest to latitude 30, longitude 90.
  const int files = 4, per_file = options.small ? 250 : 10691, k = 5;
  const float target_lat = 30, target_lng = 90;

  rodinia::WorkDir dir(options.keep);
  write_records(dir, files, per_file);
  std::vector<std::string> args = {"filelist"};
  if (options.cuda_peer)
    args.insert(args.end(), {"-r", std::to_string(k), "-lat", "30", "-lng", "90"});
  else
    args.insert(args.end(), {std::to_string(k), "30", "90"});
  rodinia::PeerRun peer =
      rodinia::run_peer(options.peer, args, dir.path(), options.threads, options.repeats);
  std::vector<float> expected = peer_distances(peer.output);

  const int64_t n = int64_t(files) * per_file;
  loom::Kernel nn = rodinia::load_kernel(options, nn_source, "nn.loom", "nn");
  rodinia::KernelArray<float> locations(options, read_locations(dir, files), {n, 2}),
      distance(options, std::vector<float>(size_t(n)), {n});
  double loom_ms = rodinia::best_ms(
      options.repeats, [] {},
      [&] { rodinia::call(nn, locations, distance, target_lat, target_lng); });
  std::vector<float> nearest = distance.values();
  std::partial_sort(nearest.begin(), nearest.begin() + k, nearest.end());
  nearest.resize(k);

  // On the CPU both compute the same roundings (differences and products in float, a correctly
  // rounded square root), so the k least distances are equal; on the GPU nvcc and loom may fuse
  // a product into the sum, which moves a distance by at most an ulp or two (2^-22 relative).
  double tolerance = options.gpu() ? 0x1p-22 : 0;
  double error = rodinia::max_relative_error(nearest, expected);
  char size[64];
  std::snprintf(size, sizeof size, "%lld records, k = %d", (long long)n, k);
  return rodinia::report(options, "nn", size, loom_ms, peer.ms,
                         "largest relative difference of the k least distances", error, tolerance);
}

} // namespace

int main(int argc, char **argv) {
  rodinia::Options options = rodinia::parse_options(argc, argv, "rodinia_omp_nn");
  return rodinia::guarded("nn", [&] { return run(options); });
}
