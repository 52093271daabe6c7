// Autotuning: the tile schedule's values chosen by trials, as Triton's autotuner chooses among
// configs. The key is the shape class (every array extent rounded up to a power of two) and the
// machine; the result is kept in the kernel's state and in the disk cache, keyed by the kernel's
// IR, its options, the shape class, the machine and loom's build, so that a later process (or a
// later Kernel object of the same kernel) makes no trials.
//
// A trial compiles the kernel under one candidate tile and times calls of it on copies of the
// call's arrays (device copies on the GPU: no host transfers in the times), the best of a few
// calls. A candidate that does not apply (too much shared memory for f64, a tile the tensor
// cores cannot split) is a CompileError of its compile: it is recorded and skipped. Every tile
// computes the default mapping's results (the tile schedule's guarantee), so the choice changes
// speed only.
#include "loom/Autotune.h"

#include "ir/Printer.h"
#include "loom/CacheKey.h"
#include "loom/DiskCache.h"
#include "loom/KernelState.h"
#include "runtime/Device.h"
#include "support/Error.h"

#include <algorithm>
#include <chrono>
#include <sstream>

namespace loom {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

int64_t power_of_two_ceiling(int64_t v) {
  int64_t p = 1;
  while (p < v)
    p *= 2;
  return p;
}

std::string tile_text(const ir::TileSchedule &t) {
  if (t.rows == 0)
    return "the default mapping";
  return "{" + std::to_string(t.rows) + ", " + std::to_string(t.cols) + ", " +
         std::to_string(t.thread_rows) + ", " + std::to_string(t.thread_cols) + ", " +
         std::to_string(t.depth) + ", " + std::to_string(t.min_blocks) + "}";
}

// "A 1024x1024, B 1024x1024, C 1024x1024 on <target>": every array's extents rounded up to a
// power of two.
std::string shape_class(const ir::Kernel &kernel, std::span<const Argument> args,
                        const std::string &target_name) {
  std::string out;
  for (size_t p = 0; p < args.size() && p < kernel.params.size(); ++p) {
    if (args[p].kind == Argument::Kind::Scalar)
      continue;
    out += (out.empty() ? "" : ", ") + kernel.params[p].name + " ";
    for (size_t d = 0; d < args[p].shape.size(); ++d)
      out += (d ? "x" : "") + std::to_string(power_of_two_ceiling(args[p].shape[d]));
  }
  return out + " on " + target_name;
}

// The disk cache's payload: the best tile, then each trial.
std::string tile_fields(const ir::TileSchedule &t) {
  std::ostringstream os;
  os << t.rows << " " << t.cols << " " << t.thread_rows << " " << t.thread_cols << " " << t.depth
     << " " << t.min_blocks << " " << int(t.tensor_cores);
  return os.str();
}
std::string payload_of(const Tuning &t) {
  std::ostringstream os;
  os << "loom autotune 1\nbest " << tile_fields(t.best) << "\n";
  for (const TuneTrial &trial : t.trials)
    os << "trial " << tile_fields(trial.tile) << " " << trial.ms << " "
       << (trial.error.empty() ? "ok" : "failed") << "\n";
  return os.str();
}
ir::TileSchedule read_tile(std::istream &in) {
  ir::TileSchedule t;
  int tensor_cores = 0;
  if (!(in >> t.rows >> t.cols >> t.thread_rows >> t.thread_cols >> t.depth >> t.min_blocks >>
        tensor_cores) ||
      tensor_cores < 0 || tensor_cores > 2 || !ir::tile_problem(t).empty() ||
      (t.rows == 0) != (t.cols == 0))
    throw Error("an autotune entry holds a malformed tile");
  t.tensor_cores = ir::TensorCores(tensor_cores);
  return t;
}
Tuning parse_payload(const std::string &payload) {
  std::istringstream in(payload);
  std::string line;
  if (!std::getline(in, line) || line != "loom autotune 1")
    throw Error("not an autotune entry");
  Tuning t;
  t.from_disk = true;
  std::string word;
  if (!(in >> word) || word != "best")
    throw Error("an autotune entry without its best tile");
  t.best = read_tile(in);
  while (in >> word) {
    if (word != "trial")
      throw Error("an autotune entry with a malformed line");
    TuneTrial trial;
    trial.tile = read_tile(in);
    std::string outcome;
    if (!(in >> trial.ms >> outcome) || (outcome != "ok" && outcome != "failed"))
      throw Error("an autotune entry with a malformed trial");
    if (outcome == "failed")
      trial.error = "(did not compile)";
    t.trials.push_back(trial);
  }
  return t;
}

// The widest element of the kernel's arrays: what the tiles are sized for.
ir::ScalarType element_of(const ir::Kernel &kernel) {
  bool f64 = false, half = false;
  for (const ir::Param &p : kernel.params) {
    if (p.kind != ir::ParamKind::Array)
      continue;
    f64 |= ir::byte_size(p.type) >= 8;
    half |= p.type == ir::ScalarType::F16 || p.type == ir::ScalarType::BF16;
  }
  return f64 ? ir::ScalarType::F64 : half ? ir::ScalarType::F16 : ir::ScalarType::F32;
}

// A trial's arrays: copies of the call's, in the target's memory.
struct Scratch {
  std::vector<Argument> args;
  std::vector<runtime::DeviceBuffer> device;
  std::vector<std::vector<unsigned char>> host;
};

Scratch make_scratch(std::span<const Argument> args, ir::Target target, int device) {
  Scratch s;
  s.args.assign(args.begin(), args.end());
  s.device.reserve(args.size());
  s.host.reserve(args.size());
  for (Argument &a : s.args) {
    if (a.kind == Argument::Kind::Scalar)
      continue;
    const size_t bytes = size_t(a.size()) * ir::byte_size(a.type);
    // A strided view's elements are not contiguous: its copy holds zeros (the times do not
    // depend on the values; the trials' results are not used).
    const bool dense = a.strides.size() == 0;
    if (target == ir::Target::GPU) {
      runtime::DeviceBuffer &b = s.device.emplace_back(bytes, device);
      if (dense && a.kind == Argument::Kind::HostArray) {
        b.copy_from_host(a.host, bytes);
      } else if (dense) {
        runtime::copy_between_devices(b.ptr(), device, a.device, a.device_ordinal, bytes);
      } else {
        std::vector<unsigned char> zeros(bytes);
        b.copy_from_host(zeros.data(), bytes);
      }
      a.kind = Argument::Kind::DeviceArray;
      a.device = b.ptr();
      a.device_ordinal = device;
    } else {
      std::vector<unsigned char> &h = s.host.emplace_back(bytes);
      if (dense && a.kind == Argument::Kind::HostArray) // a device array's copy: zeros
        std::copy_n(static_cast<const unsigned char *>(a.host), bytes, h.data());
      a.kind = Argument::Kind::HostArray;
      a.host = h.data();
      a.host_const = false;
    }
    a.strides = Shape();
  }
  return s;
}

void apply(KernelState &state, const ir::TileSchedule &tile) {
  ir::Schedule schedule = ir::with_tile(state.kernel.schedule, tile);
  schedule.autotune = true;
  if (schedule == state.kernel.schedule)
    return;
  state.kernel.schedule = schedule;
  state.drop_code();
}

} // namespace

std::vector<ir::TileSchedule> tile_candidates(const ir::Kernel &kernel, ir::Target target, int sm,
                                              int vector_bits) {
  const ir::ScalarType element = element_of(kernel);
  if (target == ir::Target::CPU) {
    // Register blocks of two to four vectors of columns and 4 to 8 rows (8 x 2 vectors: 16
    // accumulators, half of AVX-512's registers), tiles of 32 to 64 rows.
    const int lanes = std::max(1, std::max(vector_bits, 128) / (8 * ir::byte_size(element)));
    return {{64, 8 * lanes, 8, 2 * lanes},
            {64, 8 * lanes, 4, 2 * lanes},
            {32, 16 * lanes, 4, 4 * lanes},
            {64, 4 * lanes, 8, lanes},
            {48, 8 * lanes, 6, 2 * lanes}};
  }
  if (element == ir::ScalarType::F16 && sm == 90)
    // Hopper's wgmma for 16-bit inputs (ir/TileWgmma.cpp: whole warpgroups, depth 64), and
    // mma.sync's best tiles.
    return {{128, 256, 8, 16, 64, 1}, {256, 128, 16, 8, 64, 1}, {128, 128, 8, 8, 64, 2},
            {128, 128, 8, 8, 32, 2},  {128, 64, 8, 8, 32, 2},   {64, 64, 8, 8, 32, 4}};
  if (kernel.tf32 && element == ir::ScalarType::F32 && sm == 90)
    // TF32 on Hopper's wgmma (depth 32, rows and columns multiples of 128, a producer), and
    // mma.sync's tiles (depth 16: f32 stages take twice the bytes).
    return {{256, 128, 16, 8, 32, 1}, {128, 256, 8, 16, 32, 1}, {128, 128, 8, 8, 16, 2},
            {128, 128, 8, 8, 16, 1},  {64, 128, 8, 8, 16, 2},   {64, 64, 8, 8, 16, 4}};
  if ((element == ir::ScalarType::F16 || (kernel.tf32 && element == ir::ScalarType::F32)) &&
      sm >= 80)
    // The tensor cores: 16-bit inputs (or f32 as TF32), f32 accumulation (ir/TileMma.cpp), depth
    // a multiple of 16.
    return {{128, 128, 8, 8, 32, 2}, {128, 128, 8, 8, 32, 1}, {128, 128, 8, 8, 16, 2},
            {64, 128, 8, 8, 32, 2},  {128, 64, 8, 8, 32, 2},  {64, 64, 8, 8, 32, 4}};
  if (element == ir::ScalarType::F64)
    // Two buffers of depth x (rows + cols + 8) doubles must fit 48 KiB of shared memory.
    return {{128, 128, 8, 8, 8, 2}, {128, 64, 8, 8, 8, 2},  {64, 128, 8, 8, 8, 2},
            {64, 64, 4, 4, 8, 4},   {128, 128, 8, 8, 4, 2}, {64, 64, 8, 8, 16, 2}};
  return {{256, 128, 16, 8, 8, 1}, {128, 128, 8, 8, 8, 2}, {128, 128, 8, 8, 16, 2},
          {128, 64, 8, 8, 8, 2},   {64, 128, 8, 8, 8, 2},  {64, 64, 4, 4, 8, 4},
          {256, 128, 16, 8, 16, 1}};
}

void autotune(KernelState &state, std::span<const Argument> args, ir::Target target, int sm,
              int device, const std::string &target_name,
              const std::function<void(std::span<const Argument>)> &run) {
  const std::string cls = shape_class(state.kernel, args, target_name);
  for (size_t t = 0; t < state.tunings.size(); ++t)
    if (state.tunings[t].shape_class == cls) {
      state.last_tuning = int(t);
      apply(state, state.tunings[t].best);
      return;
    }

  const Clock::time_point start = Clock::now();
  // The disk cache's entry: the kernel as traced (its schedule aside), its options, the class.
  ir::Kernel keyed = state.kernel;
  keyed.schedule = {};
  std::ostringstream options;
  options << "fast_math " << keyed.fast_math << " bounds_check " << keyed.bounds_check << " tf32 "
          << keyed.tf32 << " asserts " << keyed.asserts << "\n";
  for (const auto &[loop, s] : state.kernel.schedule.loops)
    options << "loop " << loop << " unroll " << s.unroll << " vectorize " << s.vectorize << "\n";
  const CacheKey key =
      autotune_key(ir::to_string(keyed) + options.str(), "shape class: " + cls + "\n");
  Tuning tuning;
  bool found =
      disk_cache::load(key, [&](std::string &&payload) { tuning = parse_payload(payload); });
  if (found) {
    tuning.shape_class = cls;
    tuning.tuning_ms = ms_since(start);
  } else {
    tuning.shape_class = cls;
    const int vector_bits = target == ir::Target::CPU ? codegen::host_vector_registers().bits : 0;
    Scratch scratch = make_scratch(args, target, device);
    double best = -1;
    std::string first_error;
    // The default mapping is timed too, last, as the baseline a tile must beat: a tile sized
    // for large products can lose to it on small ones (lud's trailing updates of 16 columns on
    // the GPU). It alone does not make the request succeed: if no tile applies, that is an error.
    std::vector<ir::TileSchedule> candidates =
        tile_candidates(state.kernel, target, sm, vector_bits);
    candidates.push_back(ir::TileSchedule{});
    for (const ir::TileSchedule &tile : candidates) {
      if (tile.rows == 0 && best < 0)
        break; // no tile applied
      TuneTrial trial;
      trial.tile = tile;
      try {
        apply(state, tile);
        run(scratch.args); // compiles it (or finds it in the caches)
        // The best of 3 to 10 calls, at most about 100 ms of them.
        double total = 0, fastest = 1e300;
        for (int r = 0; r < 10 && (r < 3 || total < 100); ++r) {
          const Clock::time_point t0 = Clock::now();
          run(scratch.args);
          const double ms = ms_since(t0);
          total += ms, fastest = std::min(fastest, ms);
        }
        trial.ms = fastest;
        if (best < 0 || fastest < best)
          best = fastest, tuning.best = tile;
      } catch (const CompileError &e) {
        trial.error = e.what();
        if (first_error.empty())
          first_error = e.what();
      }
      tuning.trials.push_back(trial);
    }
    if (best < 0) {
      ir::Schedule back = ir::with_tile(state.kernel.schedule, {});
      back.autotune = true;
      state.kernel.schedule = back;
      state.drop_code();
      throw CompileError("kernel '" + state.kernel.name +
                         "', autotune: no candidate tile schedule applies to it; the first "
                         "candidate's error: " +
                         first_error);
    }
    tuning.tuning_ms = ms_since(start);
    disk_cache::store(key, payload_of(tuning));
  }
  state.tunings.push_back(tuning);
  state.last_tuning = int(state.tunings.size()) - 1;
  apply(state, tuning.best);
}

std::string tuning_text(const Tuning &t) {
  std::ostringstream os;
  os << "  autotune: shape class " << t.shape_class << ": " << (t.best.rows ? "tile " : "")
     << tile_text(t.best) << ", "
     << (t.from_disk ? "from the disk cache (an earlier process's trials)"
                     : "chosen by trials on copies of the call's arrays")
     << " in " << t.tuning_ms << " ms\n";
  for (const TuneTrial &trial : t.trials) {
    os << "    " << tile_text(trial.tile) << ": ";
    if (trial.error.empty())
      os << trial.ms << " ms (the best of its calls)" << (trial.tile == t.best ? ", chosen" : "")
         << "\n";
    else
      os << "does not apply: " << trial.error << "\n";
  }
  return os.str();
}

} // namespace loom
