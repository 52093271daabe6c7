// Long differential runs: random programs on the interpreter, every lowering pass, the CPU JIT and
// the GPU (when usable), printing "N programs, M mismatches" at the end. Each mismatch is shrunk
// and its reproducer printed (and written to --out).
//
//   loom_differential [--programs N] [--seed S] [--jobs J] [--seconds T] [--no-gpu] [--no-cpu]
//                     [--no-passes] [--out DIR] [--max-mismatches K] [--complex F] [--halves F]
//                     [--views F] [--locals F] [--philox F] [--prints F] [--asserts F]
//                     [--simt F] [--mma F] [--matmul F]
// --jobs J runs J processes (job j takes seeds S + j, S + j + J, ...); --seconds T stops starting
// programs after T seconds, so that a run fits a time slot (the summary says how many ran);
// --complex F makes F of the programs ones with complex numbers (default 0.15; 1: all of them);
// --halves F makes F of the programs ones with f16 and bf16 values (default 0.2);
// --philox F makes F of the programs ones with Philox random number generators (default 0.15);
// --views F makes F of the programs ones whose compiled runs pass arrays as strided views
// (default 0.3; in those, half the arrays are views);
// --prints F makes F of the programs ones with print statements (default 0.15); --asserts F
// ones with assertions (default 0.15); --simt F ones that are SIMT kernels with a shared array,
// static or dynamic (default 0.1), and --mma F of those ones that multiply on the tensor cores
// instead (default 0.3); --matmul F makes F of the others end with a loop of the matmul form,
// which the CPU runs in register blocks of its own choosing (default 0.2);
// --locals F makes F of the programs ones whose parallel loops may have local arrays (default
// 0.25). A job that dies (a signal, in loom or below it) keeps the programs it finished: its
// progress is in memory shared with the parent, which names the seed it died at (rerun it alone
// with
// --seed S --programs 1 --jobs 1) and counts that seed as one invalid program.
#include "differential/Harness.h"
#include "differential/Reproducer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace loom::difftest;

namespace {

struct Summary {
  uint64_t programs = 0, mismatches = 0, invalid = 0, gpu_compared = 0, gpu_inconclusive = 0,
           with_views = 0;
};

struct Run {
  uint64_t programs = 1000, seed = 1, jobs = 1;
  double seconds = 0; // 0: no limit
  int max_mismatches = 10;
  std::string out;
  CheckOptions options;
  GeneratorOptions generator;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// What a job has done so far, where its parent can read it after the job died.
struct Progress {
  Summary done;         // the programs finished
  uint64_t running = 0; // the seed being checked
  bool busy = false;    // whether one is
};

// Seeds seed + job, seed + job + jobs, ... (all of them with one job). `progress`, when given, is
// kept up to date after each program.
Summary run_job(const Run &run, uint64_t job, std::chrono::steady_clock::time_point start,
                Progress *progress = nullptr) {
  Summary sum;
  for (uint64_t k = job; k < run.programs; k += run.jobs) {
    if (progress) {
      progress->done = sum;
      progress->busy = false;
    }
    if (run.seconds > 0 && seconds_since(start) > run.seconds)
      break;
    const uint64_t s = run.seed + k;
    if (progress) {
      progress->running = s;
      progress->busy = true;
    }
    Program p = generate_program(s, run.generator);
    Verdict v = check_program(p, run.options);
    ++sum.programs;
    sum.with_views += !p.views.empty();
    if (!v.invalid.empty()) {
      ++sum.invalid;
      std::printf("seed %llu: the generator made an invalid program: %s\n",
                  static_cast<unsigned long long>(s), v.invalid.c_str());
    }
    sum.gpu_compared += v.gpu_compared;
    sum.gpu_inconclusive += !v.gpu_inconclusive.empty();
    if (!v.failures.empty()) {
      ++sum.mismatches;
      if (static_cast<int>(sum.mismatches) <= run.max_mismatches)
        std::printf("%s\n", shrink_and_report(p, v.failures[0], run.options, run.out).c_str());
      else
        std::printf("seed %llu: %s %s: %s\n", static_cast<unsigned long long>(s),
                    v.failures[0].check.c_str(), v.failures[0].kind.c_str(),
                    v.failures[0].detail.c_str());
    }
    if (run.jobs == 1 && sum.programs % 1000 == 0)
      std::printf("... %llu programs, %llu mismatches, %.0f s\n",
                  static_cast<unsigned long long>(sum.programs),
                  static_cast<unsigned long long>(sum.mismatches), seconds_since(start));
    std::fflush(stdout);
  }
  return sum;
}

// Runs the jobs as child processes (each opens its own GPU context) and adds up their summaries.
Summary run_jobs(const Run &run, std::chrono::steady_clock::time_point start) {
  std::vector<int> pipes;
  std::vector<pid_t> children;
  const size_t shared_bytes = run.jobs * sizeof(Progress);
  void *shared =
      mmap(nullptr, shared_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) {
    std::perror("mmap");
    std::exit(2);
  }
  Progress *progress = new (shared) Progress[run.jobs];
  for (uint64_t j = 0; j < run.jobs; ++j) {
    int fds[2];
    if (pipe(fds) != 0) {
      std::perror("pipe");
      std::exit(2);
    }
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      Summary sum = run_job(run, j, start, &progress[j]);
      if (write(fds[1], &sum, sizeof sum) != static_cast<ssize_t>(sizeof sum))
        std::_Exit(3);
      std::_Exit(0);
    }
    close(fds[1]);
    pipes.push_back(fds[0]);
    children.push_back(pid);
  }
  Summary total;
  for (size_t j = 0; j < children.size(); ++j) {
    Summary sum;
    bool ok = read(pipes[j], &sum, sizeof sum) == static_cast<ssize_t>(sizeof sum);
    int status = 0;
    waitpid(children[j], &status, 0);
    if (!ok || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      const Progress &p = progress[j];
      sum = p.done;
      std::string how = WIFSIGNALED(status) ? "by signal " + std::to_string(WTERMSIG(status)) +
                                                  " (" + strsignal(WTERMSIG(status)) + ")"
                                            : "with status " + std::to_string(status);
      if (p.busy) {
        std::printf("job %zu died %s at seed %llu, after %llu programs: the seed counts as one "
                    "invalid program (rerun it with --seed %llu --programs 1 --jobs 1)\n",
                    j, how.c_str(), static_cast<unsigned long long>(p.running),
                    static_cast<unsigned long long>(p.done.programs),
                    static_cast<unsigned long long>(p.running));
        ++sum.programs;
      } else {
        std::printf("job %zu died %s between programs, after %llu programs: counted as one "
                    "invalid program\n",
                    j, how.c_str(), static_cast<unsigned long long>(p.done.programs));
      }
      ++sum.invalid;
    }
    total.programs += sum.programs;
    total.mismatches += sum.mismatches;
    total.invalid += sum.invalid;
    total.gpu_compared += sum.gpu_compared;
    total.gpu_inconclusive += sum.gpu_inconclusive;
    total.with_views += sum.with_views;
  }
  munmap(shared, shared_bytes);
  return total;
}

} // namespace

int main(int argc, char **argv) {
  Run run;
  bool use_gpu = true;
  for (int k = 1; k < argc; ++k) {
    std::string a = argv[k];
    auto next = [&]() -> const char * {
      if (k + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++k];
    };
    if (a == "--programs")
      run.programs = std::strtoull(next(), nullptr, 10);
    else if (a == "--seed")
      run.seed = std::strtoull(next(), nullptr, 10);
    else if (a == "--jobs")
      run.jobs = std::max<uint64_t>(1, std::strtoull(next(), nullptr, 10));
    else if (a == "--seconds")
      run.seconds = std::atof(next());
    else if (a == "--out")
      run.out = next();
    else if (a == "--max-mismatches")
      run.max_mismatches = std::atoi(next());
    else if (a == "--complex")
      run.generator.complex_fraction = std::atof(next());
    else if (a == "--halves")
      run.generator.half_fraction = std::atof(next());
    else if (a == "--philox")
      run.generator.philox_fraction = std::atof(next());
    else if (a == "--views")
      run.generator.view_fraction = std::atof(next());
    else if (a == "--prints")
      run.generator.print_fraction = std::atof(next());
    else if (a == "--simt")
      run.generator.simt_fraction = std::atof(next());
    else if (a == "--mma")
      run.generator.mma_fraction = std::atof(next());
    else if (a == "--matmul")
      run.generator.matmul_fraction = std::atof(next());
    else if (a == "--stencil")
      run.generator.stencil_fraction = std::atof(next());
    else if (a == "--shared-reads")
      run.generator.shared_reads_fraction = std::atof(next());
    else if (a == "--asserts")
      run.generator.assert_fraction = std::atof(next());
    else if (a == "--locals")
      run.generator.local_fraction = std::atof(next());
    else if (a == "--no-gpu")
      use_gpu = false;
    else if (a == "--no-cpu")
      run.options.cpu_jit = false;
    else if (a == "--no-passes")
      run.options.passes = false;
    else {
      std::fprintf(stderr,
                   "usage: %s [--programs N] [--seed S] [--jobs J] [--seconds T] [--no-gpu] "
                   "[--no-cpu] [--no-passes] [--out DIR] [--max-mismatches K] [--complex F] "
                   "[--halves F] [--views F] [--locals F] [--philox F] [--prints F] [--asserts F] "
                   "[--simt F] [--mma F] [--matmul F] [--stencil F] [--shared-reads F]\n",
                   argv[0]);
      return 2;
    }
  }
  // Whether a GPU is usable is asked in a child when there are jobs: a CUDA context must not be
  // opened before fork().
  std::string why;
  if (use_gpu && run.jobs > 1) {
    pid_t pid = fork();
    if (pid == 0)
      std::_Exit(gpu_usable() ? 0 : 1);
    int status = 0;
    waitpid(pid, &status, 0);
    run.options.gpu = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    why = "not usable";
  } else {
    run.options.gpu = use_gpu && gpu_usable(&why);
  }
  const CheckOptions &o = run.options;
  std::printf("seeds %llu to %llu, %llu job(s); checks: %s%s%s\n",
              static_cast<unsigned long long>(run.seed),
              static_cast<unsigned long long>(run.seed + run.programs - 1),
              static_cast<unsigned long long>(run.jobs), o.passes ? "interpreted passes, " : "",
              o.cpu_jit ? "CPU JIT, " : "",
              o.gpu ? "GPU" : ("no GPU (" + (use_gpu ? why : "--no-gpu") + ")").c_str());
  std::fflush(stdout);

  auto start = std::chrono::steady_clock::now();
  Summary sum = run.jobs > 1 ? run_jobs(run, start) : run_job(run, 0, start);
  std::printf("%llu programs (%llu with strided views), %llu mismatches",
              static_cast<unsigned long long>(sum.programs),
              static_cast<unsigned long long>(sum.with_views),
              static_cast<unsigned long long>(sum.mismatches));
  if (sum.invalid)
    std::printf(", %llu invalid programs", static_cast<unsigned long long>(sum.invalid));
  if (o.gpu)
    std::printf("; GPU compared on %llu, skipped as inconclusive on %llu",
                static_cast<unsigned long long>(sum.gpu_compared),
                static_cast<unsigned long long>(sum.gpu_inconclusive));
  std::printf(" (%.1f s)\n", seconds_since(start));
  return sum.mismatches || sum.invalid ? 1 : 0;
}
