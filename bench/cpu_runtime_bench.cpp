// OpenMP against oneTBB as the runtime under loom's CPU tasks. Standalone (no loom): the same work
// runs the way runtime/CpuLaunch.cpp's run_cpu_task runs a compiled task, the range [0, extent)
// split into one contiguous chunk per thread and one call of a noinline body per chunk, through
//   openmp      #pragma omp parallel num_threads(chunks), as run_cpu_task does;
//   tbb_static  tbb::parallel_for over the chunk indices with tbb::static_partitioner;
//   tbb_auto    tbb::parallel_for(blocked_range(0, extent, grain)), the default auto_partitioner,
//               the body called on whatever subranges it makes.
// Workloads: the CPU time idle workers spin away after a region; the cost of one parallel region
// (empty body, a 1,000-element saxpy, an 8,192-element one: the smallest loop loom splits, and a
// region after the workers went idle); saxpy 2^26, the 5-point stencil 4096^2, the naive matmul
// 512^2; and a parallel loop whose body opens another parallel region. Variants alternate sample
// by sample in one process, each sample after a pause that lets the other runtime's workers stop
// spinning, so drift in the machine's speed hits all alike. Every call's iterations are counted
// (and how many chunks ran on worker threads), and each variant's output is compared bit for bit
// with a serial run. Times are medians; the ratios are medians of per-round ratios (variant time /
// OpenMP time: > 1 means slower than OpenMP).
//   loom_cpu_runtime_bench [--only=NAME] [--threads=N] [--reps=N] [--settle-ms=N]
#include "BenchSupport.h"

#include <omp.h>
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>
#include <tbb/version.h>

#include <atomic>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>

namespace {

using TaskFn = void (*)(const void *params, int64_t begin, int64_t end, int64_t chunk);

// One parallel task: `grain` is run_cpu_task's min_iterations_per_thread (loom passes 4096 for a
// loop without inner loops, 1 otherwise: loom/CpuCall.cpp).
struct Task {
  TaskFn fn;
  const void *params;
  int64_t extent, grain;
};

int threads = 1;          // threads of every runtime (--threads, default OpenMP's)
bool observing = false;   // the nested workload's checking call records threads and concurrency
int64_t settle_ms = 20;   // pause before each sample (--settle-ms)
constexpr int slots = 64; // iteration counters, one cache line each

// Per chunk number: iterations run, chunk calls, and those of them on another thread than the
// one that opened the outermost region.
struct alignas(64) Counter {
  std::atomic<int64_t> iterations{0}, calls{0}, on_workers{0};
};
Counter counters[slots];
std::thread::id caller;

// Every chunk call of every runner goes through here, so a sample can check that its calls
// covered exactly extent iterations each, and tell how many chunks the workers ran: a runtime
// may run every chunk on the caller when the workers are slow to come.
inline void run_chunk(const Task &t, int64_t begin, int64_t end, int64_t chunk) {
  t.fn(t.params, begin, end, chunk);
  Counter &c = counters[chunk % slots];
  c.iterations.fetch_add(end - begin, std::memory_order_relaxed);
  c.calls.fetch_add(1, std::memory_order_relaxed);
  if (std::this_thread::get_id() != caller)
    c.on_workers.fetch_add(1, std::memory_order_relaxed);
}

struct Counted {
  int64_t iterations = 0, calls = 0, on_workers = 0;
};
Counted take_counted() {
  Counted total;
  for (Counter &c : counters) {
    total.iterations += c.iterations.exchange(0, std::memory_order_relaxed);
    total.calls += c.calls.exchange(0, std::memory_order_relaxed);
    total.on_workers += c.on_workers.exchange(0, std::memory_order_relaxed);
  }
  return total;
}

// run_cpu_task's split: as many chunks as threads, each with at least `grain` iterations.
int64_t chunk_count(const Task &t) {
  return std::min<int64_t>(threads, std::max<int64_t>(t.extent / std::max<int64_t>(t.grain, 1), 1));
}
void split(int64_t extent, int64_t parts, int64_t k, int64_t &begin, int64_t &end) {
  int64_t base = extent / parts, extra = extent % parts;
  begin = k * base + std::min(k, extra);
  end = begin + base + (k < extra ? 1 : 0);
}

using Runner = void (*)(const Task &);

void run_serial(const Task &t) {
  if (t.extent > 0)
    run_chunk(t, 0, t.extent, 0);
}

// runtime/CpuLaunch.cpp's region, unchanged but for the counting.
void run_openmp(const Task &t) {
  if (t.extent <= 0)
    return;
  int64_t chunks = chunk_count(t);
  if (chunks <= 1)
    return run_chunk(t, 0, t.extent, 0);
#pragma omp parallel num_threads(static_cast <int>(chunks))
  {
    int64_t team = omp_get_num_threads(), rank = omp_get_thread_num(), begin, end;
    split(t.extent, team, rank, begin, end);
    run_chunk(t, begin, end, rank);
  }
}

// The same chunks, one TBB task each, spread over the threads by the static partitioner. Its
// placement is a hint: a chunk whose thread has not come for it is run by a thread that is free,
// the caller included.
void run_tbb_static(const Task &t) {
  if (t.extent <= 0)
    return;
  int64_t chunks = chunk_count(t);
  if (chunks <= 1)
    return run_chunk(t, 0, t.extent, 0);
  tbb::parallel_for(
      tbb::blocked_range<int64_t>(0, chunks, 1),
      [&](const tbb::blocked_range<int64_t> &r) {
        for (int64_t c = r.begin(); c < r.end(); ++c) {
          int64_t begin, end;
          split(t.extent, chunks, c, begin, end);
          run_chunk(t, begin, end, c);
        }
      },
      tbb::static_partitioner());
}

// TBB as its documentation recommends: the whole range, split by the auto partitioner down to the
// grain as threads steal work. The chunk number is the thread's index in the arena, not a
// position in iteration order.
void run_tbb_auto(const Task &t) {
  if (t.extent <= 0)
    return;
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, t.extent, std::max<int64_t>(t.grain, 1)),
                    [&](const tbb::blocked_range<int64_t> &r) {
                      run_chunk(t, r.begin(), r.end(),
                                tbb::this_task_arena::current_thread_index());
                    });
}

// OpenMP with nested regions active (max-active-levels 2): the oversubscription the default
// avoids, for contrast.
void run_openmp_nesting_on(const Task &t) {
  int levels = omp_get_max_active_levels();
  omp_set_max_active_levels(2);
  run_openmp(t);
  omp_set_max_active_levels(levels);
}

// `outer` runs the task; `inner` runs the parallel regions a nested body opens.
struct Variant {
  const char *name;
  Runner outer, inner;
};
const Variant openmp{"openmp", run_openmp, run_openmp};
const Variant tbb_static{"tbb_static", run_tbb_static, run_tbb_static};
const Variant tbb_auto{"tbb_auto", run_tbb_auto, run_tbb_auto};

// ---- bodies: noinline, the same machine code under every runtime

[[gnu::noinline]] void empty_body(const void *, int64_t, int64_t, int64_t) {
  asm volatile("" ::: "memory");
}

struct SaxpyParams {
  float a;
  const float *x;
  float *y;
};
[[gnu::noinline]] void saxpy_body(const void *p, int64_t begin, int64_t end, int64_t) {
  const SaxpyParams &s = *static_cast<const SaxpyParams *>(p);
  const float *__restrict x = s.x;
  float *__restrict y = s.y;
  for (int64_t i = begin; i < end; ++i)
    y[i] = s.a * x[i] + y[i];
}

// Rows [begin, end) of the interior of an n x n grid.
struct StencilParams {
  const float *u;
  float *v;
  int64_t n;
};
[[gnu::noinline]] void stencil_body(const void *p, int64_t begin, int64_t end, int64_t) {
  const StencilParams &s = *static_cast<const StencilParams *>(p);
  const float *__restrict u = s.u;
  float *__restrict v = s.v;
  const int64_t m = s.n;
  for (int64_t i = begin; i < end; ++i)
    for (int64_t j = 0; j < m - 2; ++j)
      v[(i + 1) * m + j + 1] =
          0.2f * (u[(i + 1) * m + j + 1] + u[i * m + j + 1] + u[(i + 2) * m + j + 1] +
                  u[(i + 1) * m + j] + u[(i + 1) * m + j + 2]);
}

// Rows [begin, end) of C = A * B, n x n, k innermost (the demo's naive matmul).
struct MatmulParams {
  const float *A, *B;
  float *C;
  int64_t n;
};
[[gnu::noinline]] void matmul_body(const void *p, int64_t begin, int64_t end, int64_t) {
  const MatmulParams &s = *static_cast<const MatmulParams *>(p);
  const int64_t n = s.n;
  for (int64_t i = begin; i < end; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < n; ++k)
        acc += s.A[i * n + k] * s.B[k * n + j];
      s.C[i * n + j] = acc;
    }
}

// The nested workload: rows in parallel, and each row's columns in parallel again, a polynomial
// per element (enough arithmetic that the threads, not memory, limit it).
struct RowParams {
  const float *in;
  float *out;
};
std::atomic<int> running{0}, most_running{0}, threads_seen{0};
std::atomic<int> generation{0};
thread_local int seen_in_generation = -1;

[[gnu::noinline]] void polynomial_body(const void *p, int64_t begin, int64_t end, int64_t) {
  const RowParams &s = *static_cast<const RowParams *>(p);
  if (observing) {
    int now = running.fetch_add(1) + 1, most = most_running.load();
    while (now > most && !most_running.compare_exchange_weak(most, now)) {
    }
    if (int g = generation.load(); seen_in_generation != g) {
      seen_in_generation = g;
      threads_seen.fetch_add(1);
    }
  }
  for (int64_t j = begin; j < end; ++j) {
    float x = s.in[j], y = 0.25f;
    for (int d = 0; d < 24; ++d)
      y = y * x + 0.5f;
    s.out[j] = y;
  }
  if (observing)
    running.fetch_sub(1);
}

struct NestedParams {
  const float *in;
  float *out;
  int64_t cols;
  Runner inner;
};
[[gnu::noinline]] void nested_body(const void *p, int64_t begin, int64_t end, int64_t) {
  const NestedParams &s = *static_cast<const NestedParams *>(p);
  for (int64_t r = begin; r < end; ++r) {
    RowParams row{s.in + r * s.cols, s.out + r * s.cols};
    s.inner(Task{polynomial_body, &row, s.cols, 4096}); // a light loop: loom's grain
  }
}

// ---- workloads

// One measured workload. task() is the call a variant times; checking() poisons the output for
// the checking call and returns its task; correct() compares that call's output with a serial
// run's.
struct Workload {
  std::string key, title;
  int64_t batch = 1;        // calls per sample: a sample of tiny calls is a run of them
  int64_t covers = 0;       // iterations one call must cover (the nested one counts both levels)
  bool per_call_us = false; // report microseconds per call
  virtual ~Workload() = default;
  virtual Task task(const Variant &v) = 0;
  virtual Task checking(const Variant &v) { return task(v); }
  virtual bool correct() { return true; }
};

bool same_bits(const std::vector<float> &a, const std::vector<float> &b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

struct EmptyRegion : Workload {
  EmptyRegion(int64_t calls) {
    key = "forkjoin_empty", title = "fork/join, empty body";
    batch = calls, covers = threads, per_call_us = true;
  }
  Task task(const Variant &) override { return {empty_body, nullptr, threads, 1}; }
};

// The first region after `settle_ms` of idleness: the workers are asleep and must be woken.
struct ColdRegion : EmptyRegion {
  ColdRegion() : EmptyRegion(1) {
    key = "forkjoin_cold", title = "fork/join after the pause, empty body";
  }
};

// y = a*x + y in place; timed calls keep adding to one y (it grows linearly: no overflow, no
// denormals), the checking call runs on a copy of the first y against a serial run on another.
struct Saxpy : Workload {
  std::vector<float> x, y, y_check, y_serial, y_start;
  SaxpyParams timed, check;
  int64_t grain;
  Saxpy(std::string k, std::string t, int64_t n, int64_t grain_, int64_t calls, uint64_t seed)
      : x(bench::random_vector(n, seed)), y(bench::random_vector(n, seed + 1)), y_check(y),
        y_serial(y), y_start(y), grain(grain_) {
    key = std::move(k), title = std::move(t), batch = calls, covers = n;
    per_call_us = calls > 1;
    timed = {1.25f, x.data(), y.data()}, check = {1.25f, x.data(), y_check.data()};
    SaxpyParams serial{1.25f, x.data(), y_serial.data()};
    saxpy_body(&serial, 0, n, 0);
  }
  Task task(const Variant &) override { return {saxpy_body, &timed, int64_t(x.size()), grain}; }
  Task checking(const Variant &) override {
    y_check = y_start;
    return {saxpy_body, &check, int64_t(x.size()), grain};
  }
  bool correct() override { return same_bits(y_check, y_serial); }
};

struct Stencil : Workload {
  int64_t n;
  std::vector<float> u, v, v_serial;
  StencilParams params;
  Stencil(int64_t n_, uint64_t seed)
      : n(n_), u(bench::random_vector(size_t(n * n), seed)), v(size_t(n * n), 0.0f), v_serial(v) {
    key = "stencil4096", title = "5-point stencil 4096^2 f32";
    covers = n - 2;
    StencilParams serial{u.data(), v_serial.data(), n};
    stencil_body(&serial, 0, n - 2, 0);
    params = {u.data(), v.data(), n};
  }
  Task task(const Variant &) override { return {stencil_body, &params, n - 2, 1}; }
  Task checking(const Variant &v_) override {
    std::fill(v.begin(), v.end(), NAN);
    for (int64_t k = 0; k < n; ++k) // the border, which the body leaves alone
      v[k] = v[(n - 1) * n + k] = v[k * n] = v[k * n + n - 1] = 0.0f;
    return task(v_);
  }
  bool correct() override { return same_bits(v, v_serial); }
};

struct Matmul : Workload {
  int64_t n;
  std::vector<float> A, B, C, C_serial;
  MatmulParams params;
  Matmul(int64_t n_, uint64_t seed)
      : n(n_), A(bench::random_vector(size_t(n * n), seed)),
        B(bench::random_vector(size_t(n * n), seed + 1)), C(size_t(n * n)), C_serial(C) {
    key = "matmul512", title = "naive matmul 512^2 f32";
    covers = n;
    MatmulParams serial{A.data(), B.data(), C_serial.data(), n};
    matmul_body(&serial, 0, n, 0);
    params = {A.data(), B.data(), C.data(), n};
  }
  Task task(const Variant &) override { return {matmul_body, &params, n, 1}; }
  Task checking(const Variant &v) override {
    std::fill(C.begin(), C.end(), NAN);
    return task(v);
  }
  bool correct() override { return same_bits(C, C_serial); }
};

struct Nested : Workload {
  int64_t rows, cols;
  std::vector<float> in, out, out_serial;
  NestedParams params;
  Nested(int64_t rows_, int64_t cols_, uint64_t seed)
      : rows(rows_), cols(cols_), in(bench::random_vector(size_t(rows * cols), seed)),
        out(size_t(rows * cols)), out_serial(out) {
    key = "nested", title = "nested: 1024 rows x 8192 columns, both parallel";
    covers = rows + rows * cols;
    NestedParams serial{in.data(), out_serial.data(), cols, run_serial};
    nested_body(&serial, 0, rows, 0);
    take_counted();
  }
  Task task(const Variant &v) override {
    params = {in.data(), out.data(), cols, v.inner};
    return {nested_body, &params, rows, 1};
  }
  Task checking(const Variant &v) override {
    std::fill(out.begin(), out.end(), NAN);
    return task(v);
  }
  bool correct() override { return same_bits(out, out_serial); }
};

// ---- measuring

void settle() {
  std::this_thread::sleep_for(std::chrono::milliseconds(settle_ms));
}

struct Samples {
  std::vector<double> ms, over_openmp; // per round: time of one call, and its ratio to OpenMP's
  int64_t chunks = 0, on_workers = 0;  // over all timed calls
};

// One checking call per variant, one untimed call each, then `reps` rounds in which every variant
// takes one sample; the order of the variants rotates from round to round.
bool measure(Workload &w, const std::vector<Variant> &variants, int reps,
             std::vector<Samples> &samples) {
  bool ok = true;
  caller = std::this_thread::get_id();
  samples.assign(variants.size(), {});
  for (const Variant &v : variants) {
    settle();
    Task t = w.checking(v);
    take_counted();
    observing = w.key == "nested";
    generation.fetch_add(1);
    threads_seen = 0, most_running = 0;
    v.outer(t);
    observing = false;
    int64_t got = take_counted().iterations;
    bool passed = got == w.covers && w.correct();
    std::printf("CHECK %s %s under %s (%lld of %lld iterations, output %s a serial run's)\n",
                passed ? "PASS" : "FAIL", w.key.c_str(), v.name, (long long)got,
                (long long)w.covers, w.correct() ? "bit for bit" : "differs from");
    ok &= passed;
    if (w.key == "nested")
      std::printf("  %s: %d threads ran inner bodies, at most %d at once\n", v.name,
                  threads_seen.load(), most_running.load());
    v.outer(w.task(v));
  }
  take_counted();
  for (int r = 0; r < reps; ++r) {
    std::vector<double> round(variants.size());
    for (size_t i = 0; i < variants.size(); ++i) {
      size_t k = (i + size_t(r)) % variants.size();
      Task t = w.task(variants[k]);
      settle();
      round[k] = bench::wall_ms([&] {
                   for (int64_t c = 0; c < w.batch; ++c)
                     variants[k].outer(t);
                 }) /
                 double(w.batch);
      Counted got = take_counted();
      samples[k].chunks += got.calls, samples[k].on_workers += got.on_workers;
      if (got.iterations != w.covers * w.batch) {
        std::printf("FAILED %s under %s: %lld iterations covered, %lld expected\n", w.key.c_str(),
                    variants[k].name, (long long)got.iterations, (long long)(w.covers * w.batch));
        ok = false;
      }
    }
    for (size_t k = 0; k < variants.size(); ++k) {
      samples[k].ms.push_back(round[k]);
      samples[k].over_openmp.push_back(round[k] / round[0]);
    }
  }
  return ok;
}

struct Row {
  std::string title;
  bool us;
  std::vector<std::string> names;
  std::vector<Samples> samples;
};

void report(const Workload &w, const std::vector<Variant> &variants,
            const std::vector<Samples> &samples, std::vector<Row> &table) {
  double scale = w.per_call_us ? 1000.0 : 1.0;
  const char *unit = w.per_call_us ? "us" : "ms";
  for (size_t k = 0; k < variants.size(); ++k) {
    const Samples &s = samples[k];
    std::printf("  %-18s median %10.4f %s (min %.4f, max %.4f) over %zu rounds, %.0f%% of chunks "
                "on workers",
                variants[k].name, bench::median(s.ms) * scale, unit, bench::min_of(s.ms) * scale,
                bench::max_of(s.ms) * scale, s.ms.size(),
                100.0 * double(s.on_workers) / double(std::max<int64_t>(s.chunks, 1)));
    if (k > 0)
      std::printf(": %.3fx OpenMP's time (rounds %.3f-%.3f)", bench::median(s.over_openmp),
                  bench::min_of(s.over_openmp), bench::max_of(s.over_openmp));
    std::printf("\n");
    std::string name = "rt_" + w.key + "_" + variants[k].name;
    bench::result((name + "_ms").c_str(), bench::median(s.ms), "ms");
    if (k > 0)
      bench::result((name + "_over_openmp").c_str(), bench::median(s.over_openmp), "x");
  }
  Row row{w.title, w.per_call_us, {}, samples};
  for (const Variant &v : variants)
    row.names.push_back(v.name);
  table.push_back(std::move(row));
}

double process_cpu_ms() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

// CPU time the process burns in the 200 ms after one empty region while its main thread sleeps:
// the workers' spinning before they block. Also how long a pause must be so that one runtime's
// spinning workers do not compete with the other's sample.
void idle_spin(const std::vector<Variant> &variants) {
  for (const Variant &v : variants) {
    std::vector<double> spent;
    for (int r = 0; r < 5; ++r) {
      v.outer(Task{empty_body, nullptr, threads, 1});
      double start = process_cpu_ms();
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      spent.push_back(process_cpu_ms() - start);
    }
    take_counted();
    std::printf("  %-10s idle workers burn %.2f ms of CPU after a region (min %.2f, max %.2f)\n",
                v.name, bench::median(spent), bench::min_of(spent), bench::max_of(spent));
    bench::result(("rt_idle_spin_" + std::string(v.name) + "_ms").c_str(), bench::median(spent),
                  "ms");
  }
}

void print_table(const std::vector<Row> &table) {
  std::printf("\n%-48s | %12s | %12s | %12s | %10s | %10s\n", "workload (time per call)", "OpenMP",
              "TBB static", "TBB auto", "static/omp", "auto/omp");
  for (const Row &row : table) {
    double scale = row.us ? 1000.0 : 1.0;
    std::printf("%-48s |", row.title.c_str());
    for (size_t k = 0; k < 3; ++k)
      std::printf(" %9.3f %s |", bench::median(row.samples[k].ms) * scale, row.us ? "us" : "ms");
    std::printf(" %10.3f | %10.3f\n", bench::median(row.samples[1].over_openmp),
                bench::median(row.samples[2].over_openmp));
    for (size_t k = 3; k < row.samples.size(); ++k)
      std::printf("  %-46s | %9.3f %s (%.3gx OpenMP's)\n", row.names[k].c_str(),
                  bench::median(row.samples[k].ms) * scale, row.us ? "us" : "ms",
                  bench::median(row.samples[k].over_openmp));
  }
}

// The machine's load (the first figures of /proc/loadavg): other processes take cores too.
std::string load_average() {
  char text[64] = "?";
  if (FILE *f = std::fopen("/proc/loadavg", "r")) {
    if (!std::fgets(text, sizeof text, f))
      text[0] = '\0';
    std::fclose(f);
  }
  std::string load = text;
  return load.substr(0, load.find(' ', load.find(' ', load.find(' ') + 1) + 1));
}

bool parse_int(const std::string &arg, const char *prefix, int64_t &value) {
  size_t length = std::strlen(prefix);
  if (arg.compare(0, length, prefix) != 0)
    return false;
  value = std::stoll(arg.substr(length));
  return true;
}

} // namespace

int main(int argc, char **argv) {
  std::string only;
  int64_t reps = 21, thread_arg = 0;
  for (int a = 1; a < argc; ++a) {
    std::string arg = argv[a];
    if (arg.rfind("--only=", 0) == 0)
      only = arg.substr(7);
    else if (!parse_int(arg, "--threads=", thread_arg) && !parse_int(arg, "--reps=", reps) &&
             !parse_int(arg, "--settle-ms=", settle_ms)) {
      std::fprintf(stderr, "usage: loom_cpu_runtime_bench [--only=idle|forkjoin|saxpy|stencil|"
                           "matmul|nested] [--threads=N] [--reps=N] [--settle-ms=N]\n");
      return 2;
    }
  }
  threads = thread_arg > 0 ? int(thread_arg) : std::max(omp_get_max_threads(), 1);
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, size_t(threads));
  uint64_t seed = bench::fresh_seed();
  std::printf("loom_cpu_runtime_bench: %d threads, OpenMP %d (libgomp), oneTBB %s, %lld rounds, "
              "%lld ms pause before each sample, load average %s, seed %llu\n",
              threads, _OPENMP, TBB_runtime_version(), (long long)reps, (long long)settle_ms,
              load_average().c_str(), (unsigned long long)seed);

  const std::vector<Variant> common = {openmp, tbb_static, tbb_auto};
  auto wanted = [&](const char *name) { return only.empty() || only == name; };
  bool ok = true;
  std::vector<Row> table;
  auto run = [&](Workload &w, const std::vector<Variant> &variants) {
    ok &= bench::section(w.title.c_str(), [&] {
      std::vector<Samples> samples;
      bool passed = measure(w, variants, int(reps), samples);
      report(w, variants, samples, table);
      return passed;
    });
  };

  if (wanted("idle"))
    ok &= bench::section("idle workers", [&] {
      idle_spin(common);
      return true;
    });
  if (wanted("forkjoin")) {
    // With one call of the whole range on the calling thread for comparison: what a region of
    // this size costs over not opening one.
    std::vector<Variant> with_serial = common;
    with_serial.push_back({"serial", run_serial, run_serial});
    EmptyRegion empty(2000);
    run(empty, with_serial);
    ColdRegion cold;
    run(cold, with_serial);
    Saxpy small("forkjoin_saxpy1000", "fork/join, saxpy 1,000 f32 (grain 1)", 1000, 1, 2000, seed);
    run(small, with_serial);
    Saxpy smallest("forkjoin_saxpy8192", "fork/join, saxpy 8,192 f32 (grain 4096)", 8192, 4096,
                   2000, seed + 5);
    run(smallest, with_serial);
  }
  if (wanted("saxpy")) {
    Saxpy saxpy("saxpy", "saxpy 2^26 f32 (grain 4096)", int64_t(1) << 26, 4096, 1, seed + 10);
    run(saxpy, common);
  }
  if (wanted("stencil")) {
    Stencil stencil(4096, seed + 20);
    run(stencil, common);
  }
  if (wanted("matmul")) {
    Matmul matmul(512, seed + 30);
    run(matmul, common);
  }
  if (wanted("nested")) {
    Nested nested(1024, 8192, seed + 40);
    std::vector<Variant> variants = common;
    variants.push_back({"openmp_inner_serial", run_openmp, run_serial});
    variants.push_back({"openmp_nesting_on", run_openmp_nesting_on, run_openmp});
    run(nested, variants);
  }
  print_table(table);
  std::printf("load average at the end: %s\n", load_average().c_str());
  std::printf("loom_cpu_runtime_bench: %s\n", ok ? "all checks passed" : "SOME CHECK FAILED");
  return ok ? 0 : 1;
}
