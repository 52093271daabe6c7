// loom's compile caches: the first call of a new Kernel object with the caches cold, with its
// code in the disk cache, and with its code already in this process (the in-memory cache), for
// saxpy and the naive matmul, on the CPU and (when one is usable) the GPU; each with the time of
// every stage. Then the hot path: finding the code of an already compiled Kernel object.
//
// The disk cache is a fresh temporary directory (LOOM_CACHE_DIR), removed at the end; "cold"
// empties it before each sample.
#include "BenchSupport.h"
#include "Kernels.h"

#include "codegen/Codegen.h"
#include "runtime/GpuContext.h"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace {

using bench::result;
using loom::CodeSource;
using loom::CompileTimes;
using loom::ir::Target;

constexpr int samples = 7; // per figure; the median is reported

struct Sample {
  double trace_ms = 0;      // loom::kernel(...): tracing the lambda into IR
  double first_call_ms = 0; // the first call: code from wherever it comes, then the run
  double run_ms = 0;        // a second call of the same object: the run alone
  CompileTimes times;
};

struct Kind {
  const char *name;
  loom::Kernel (*make)(const std::string &);
};

// Inputs small enough that the run is a small part of the first call.
struct Inputs {
  std::vector<float> x = bench::random_vector(4096, 1), y = bench::random_vector(4096, 2);
  std::vector<float> A = bench::random_vector(64 * 64, 3), B = bench::random_vector(64 * 64, 4);
  std::vector<float> C = std::vector<float>(64 * 64);
  void call(loom::Kernel &k, bool saxpy) {
    if (saxpy)
      k(2.0f, x, y);
    else
      k(loom::view(A, {64, 64}), loom::view(B, {64, 64}), loom::view(C, {64, 64}));
  }
};

void empty_directory(const std::string &dir) {
  std::error_code ec;
  for (const auto &entry : std::filesystem::directory_iterator(dir, ec))
    std::filesystem::remove_all(entry.path(), ec);
}

Sample sample(const Kind &kind, Target target, Inputs &in) {
  Sample s;
  std::optional<loom::Kernel> k;
  s.trace_ms = bench::wall_ms([&] {
    k.emplace(kind.make(kind.name));
    k->on(target);
  });
  bool saxpy = std::string(kind.name) == "saxpy";
  s.first_call_ms = bench::wall_ms([&] { in.call(*k, saxpy); });
  s.run_ms = bench::wall_ms([&] { in.call(*k, saxpy); });
  s.times = k->compile_times();
  return s;
}

double median_of(const std::vector<Sample> &all, double (*field)(const Sample &)) {
  std::vector<double> values;
  for (const Sample &s : all)
    values.push_back(field(s));
  return bench::median(values);
}

// One row of the table: medians of each stage over the samples.
void report(const char *kernel, const char *target, const char *caches,
            const std::vector<Sample> &all) {
  auto m = [&](double (*field)(const Sample &)) { return median_of(all, field); };
  double first = m([](const Sample &s) { return s.first_call_ms; });
  double trace = m([](const Sample &s) { return s.trace_ms; });
  std::printf("  %-7s %8.3f %7.3f %7.3f %7.3f %7.3f %7.3f %8.3f %7.3f %7.3f %7.3f %7.3f %7.3f"
              "   %s\n",
              caches, trace + first, trace, m([](const Sample &s) { return s.times.lower_ms; }),
              m([](const Sample &s) { return s.times.key_ms; }),
              m([](const Sample &s) { return s.times.cache_ms; }),
              m([](const Sample &s) { return s.times.llvm_ir_ms; }),
              m([](const Sample &s) { return s.times.optimize_ms; }),
              m([](const Sample &s) { return s.times.emit_ms; }),
              m([](const Sample &s) { return s.times.link_ms; }),
              m([](const Sample &s) { return s.times.load_ms; }),
              m([](const Sample &s) { return s.times.store_ms; }),
              m([](const Sample &s) { return s.run_ms; }), all.back().times.detail.c_str());
  std::string key = std::string("cache_") + target + "_" + kernel + "_" + caches;
  result((key + "_first_call_ms").c_str(), trace + first, "ms");
  result((key + "_compile_ms").c_str(), m([](const Sample &s) { return s.times.total_ms; }), "ms");
}

bool first_calls(const Kind &kind, Target target, const std::string &dir) {
  const char *target_name = target == Target::GPU ? "gpu" : "cpu";
  std::printf("  %s on the %s, medians of %d, in ms (first = trace + first call):\n", kind.name,
              target == Target::GPU ? "GPU" : "CPU", samples);
  std::printf("  %-7s %8s %7s %7s %7s %7s %7s %8s %7s %7s %7s %7s %7s   %s\n", "caches", "first",
              "trace", "lower", "key", "cache", "llvm-ir", "optimize", "emit", "link", "load",
              "store", "run", "code from");
  Inputs in;
  bool ok = true;
  auto expect = [&](const Sample &s, CodeSource source) {
    if (s.times.source != source) {
      std::printf("  UNEXPECTED: code from '%s', expected %s\n", s.times.detail.c_str(),
                  loom::code_source_name(source));
      ok = false;
    }
  };
  std::vector<Sample> cold, disk, memory;
  for (int r = 0; r < samples; ++r) {
    loom::clear_memory_cache();
    empty_directory(dir);
    cold.push_back(sample(kind, target, in));
    expect(cold.back(), CodeSource::Compiled);
  }
  for (int r = 0; r < samples; ++r) {
    loom::clear_memory_cache();
    disk.push_back(sample(kind, target, in));
    expect(disk.back(), CodeSource::DiskCache);
  }
  for (int r = 0; r < samples; ++r) {
    memory.push_back(sample(kind, target, in));
    expect(memory.back(), CodeSource::MemoryCache);
  }
  report(kind.name, target_name, "cold", cold);
  report(kind.name, target_name, "disk", disk);
  report(kind.name, target_name, "memory", memory);
  return ok;
}

// The hot path: calling a Kernel object that has its code. Kernel::compile() on it is exactly the
// code lookup a call makes (the object's lock and one pointer test); a whole call of saxpy on
// 16 elements adds the argument checks and the run.
bool hot_path(Target target) {
  loom::Kernel k = bench::make_saxpy("saxpy");
  k.on(target);
  k.compile();
  const int lookups = 2000000;
  double lookup_ms = bench::wall_ms([&] {
    for (int i = 0; i < lookups; ++i)
      k.compile();
  });
  // The variant a call resolves before its code lookup (Kernel::variant() is that resolution).
  const int resolutions = 2000000;
  int index32_variants = 0;
  double resolve_ms = bench::wall_ms([&] {
    for (int i = 0; i < resolutions; ++i)
      index32_variants += k.variant().index32;
  });
  if (target == Target::GPU && index32_variants != resolutions)
    std::printf("  note: %d of %d resolutions chose 64-bit indices\n",
                resolutions - index32_variants, resolutions);
  std::vector<float> x(16, 1.0f), y(16, 0.0f);
  k(2.0f, x, y);
  const int calls = target == Target::GPU ? 2000 : 20000;
  double call_ms = bench::wall_ms([&] {
    for (int i = 0; i < calls; ++i)
      k(2.0f, x, y);
  });
  double lookup_ns = lookup_ms * 1e6 / lookups, call_us = call_ms * 1e3 / calls;
  const char *name = target == Target::GPU ? "gpu" : "cpu";
  double resolve_ns = resolve_ms * 1e6 / resolutions;
  std::printf(
      "  %s: code lookup of a compiled Kernel object %.1f ns (target <= 1000 ns); resolving a "
      "variant (Kernel::variant()) %.1f ns; a whole call of saxpy on 16 elements %.2f us\n",
      name, lookup_ns, resolve_ns, call_us);
  result((std::string("cache_") + name + "_variant_ns").c_str(), resolve_ns, "ns");
  result((std::string("cache_") + name + "_hot_lookup_ns").c_str(), lookup_ns, "ns");
  result((std::string("cache_") + name + "_hot_call_us").c_str(), call_us, "us");
  return lookup_ns <= 1000;
}

} // namespace

int main() {
  char pattern[] = "/tmp/loom_cache_bench_XXXXXX";
  if (!mkdtemp(pattern)) {
    std::perror("mkdtemp");
    return 1;
  }
  std::string dir = pattern;
  setenv("LOOM_CACHE_DIR", dir.c_str(), 1);
  setenv("LOOM_CACHE", "on", 1);

  std::vector<Target> targets = {Target::CPU};
  std::string why;
  if (loom::runtime::GpuContext::usable(&why))
    targets.push_back(Target::GPU);
  std::printf("loom_cache_bench: CPU %s; GPU: %s; disk cache in %s\n",
              loom::codegen::host_cpu_name().c_str(),
              targets.size() > 1 ? loom::runtime::GpuContext::get().info().name.c_str()
                                 : ("none (" + why + ")").c_str(),
              dir.c_str());

  bool ok = true;
  // The process's first kernel also pays for setting up LLVM and the JIT (or the GPU context):
  // one untimed compile per target first, so that "cold" is a new kernel's cost.
  ok &= bench::section("warm-up", [&] {
    for (Target target : targets) {
      loom::Kernel k = bench::make_saxpy("warm_up");
      k.on(target).compile();
    }
    return true;
  });
  Kind kinds[] = {{"saxpy", bench::make_saxpy}, {"matmul", bench::make_matmul}};
  for (Target target : targets)
    for (const Kind &kind : kinds) {
      std::string title = std::string("first call: ") + kind.name +
                          (target == Target::GPU ? " on the GPU" : " on the CPU");
      ok &= bench::section(title.c_str(), [&] { return first_calls(kind, target, dir); });
    }
  ok &= bench::section("hot path", [&] {
    bool fast = true;
    for (Target target : targets)
      fast &= hot_path(target);
    return fast;
  });

  loom::CacheStats stats = loom::cache_stats();
  std::printf("cache counts: memory %llu hits %llu misses; disk %llu hits %llu misses %llu "
              "rejected %llu writes %llu write failures\n",
              (unsigned long long)stats.memory_hits, (unsigned long long)stats.memory_misses,
              (unsigned long long)stats.disk_hits, (unsigned long long)stats.disk_misses,
              (unsigned long long)stats.disk_rejected, (unsigned long long)stats.disk_writes,
              (unsigned long long)stats.disk_write_failures);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::printf("loom_cache_bench: %s\n", ok ? "all checks passed" : "SOME PART FAILED");
  return ok ? 0 : 1;
}
