// Differential testing in CI: a bounded batch of random programs, each run on the interpreter,
// through every lowering pass, on the CPU JIT and (where usable) on the GPU. A mismatch is shrunk
// and printed as a regression test to paste into regressions_test.cpp.
//
//   LOOM_DIFF_PROGRAMS=n   programs in the batch (default 2000, split over 4 shards)
//   LOOM_DIFF_SEED=s       the first seed (default 1); program k has seed s + k
//   LOOM_DIFF_OUT=dir      also write each reproducer to dir/diff_<seed>.cpp
#include "codegen/Codegen.h"
#include "differential/Harness.h"
#include "differential/Reproducer.h"
#include "ir/Lower.h"
#include "ir/Printer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace loom::difftest {
namespace {

uint64_t env_number(const char *name, uint64_t fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

std::string env_text(const char *name) {
  const char *v = std::getenv(name);
  return v ? v : "";
}

constexpr int kShards = 4;

class DifferentialBatch : public ::testing::TestWithParam<int> {};

TEST_P(DifferentialBatch, BackendsAgreeOnRandomPrograms) {
  const uint64_t total = env_number("LOOM_DIFF_PROGRAMS", 2000);
  const uint64_t base = env_number("LOOM_DIFF_SEED", 1);
  const uint64_t shard = GetParam();
  const uint64_t first = base + total * shard / kShards,
                 last = base + total * (shard + 1) / kShards;

  CheckOptions options;
  options.gpu = gpu_usable();
  int mismatches = 0, gpu_compared = 0, gpu_inconclusive = 0, with_views = 0;
  std::printf("[  NOTE    ] seeds %llu to %llu%s\n", static_cast<unsigned long long>(first),
              static_cast<unsigned long long>(last - 1), options.gpu ? ", with the GPU" : "");
  for (uint64_t seed = first; seed < last; ++seed) {
    Program p = generate_program(seed);
    Verdict v = check_program(p, options);
    ASSERT_TRUE(v.invalid.empty())
        << "the generator made an invalid program (seed " << seed << "): " << v.invalid << "\n"
        << ir::to_string(p.kernel);
    gpu_compared += v.gpu_compared;
    gpu_inconclusive += !v.gpu_inconclusive.empty();
    with_views += !p.views.empty();
    if (!v.failures.empty()) {
      ++mismatches;
      ADD_FAILURE() << shrink_and_report(p, v.failures[0], options, env_text("LOOM_DIFF_OUT"));
    }
  }
  std::printf("[  NOTE    ] %llu programs (%d with strided views), %d mismatches",
              static_cast<unsigned long long>(last - first), with_views, mismatches);
  if (options.gpu)
    std::printf("; GPU compared on %d, inconclusive on %d", gpu_compared, gpu_inconclusive);
  std::printf("\n");
}

INSTANTIATE_TEST_SUITE_P(, DifferentialBatch, ::testing::Range(0, kShards));

// The quick code of tiered compiles (codegen::quick_pipeline) for generated programs, which need
// no GPU to compile: LLVM must neither reject nor abort on any of them (LLVM 19's textual
// `instcombine` aborts the process when it does not reach a fixpoint in one iteration, which
// only some programs hit); the GPU runs of LOOM_TIERED=quick compare their results.
TEST(QuickTier, GeneratedProgramsCompileToPtx) {
  const uint64_t base = env_number("LOOM_DIFF_SEED", 1);
  const uint64_t total = env_number("LOOM_DIFF_PROGRAMS", 2000) / 4;
  codegen::GpuTarget target;
  target.quick = true;
  for (uint64_t seed = base; seed < base + total; ++seed) {
    Program p = generate_program(seed);
    target.index32 = seed % 2 == 0;
    ir::LoweredKernel lowered =
        ir::lower(p.kernel, ir::Target::GPU, nullptr, {.covering_launch = seed % 3 != 0});
    std::string ptx = codegen::emit_ptx(lowered, target);
    // A kernel whose parallel loops all run over constant empty ranges has no task left.
    if (!lowered.tasks.empty())
      ASSERT_NE(ptx.find(".entry"), std::string::npos) << "seed " << seed << "\n" << ptx;
  }
}

// The optimized GPU code of generated programs, with the workarounds for the tool chain below
// loom applied (codegen/GpuWorkarounds.h), assembled by ptxas for sm_90 where it is installed:
// a workaround that writes invalid PTX is caught without a GPU.
TEST(Ptxas, GeneratedProgramsAssemble) {
  std::string ptxas;
  for (const char *candidate : {"/usr/local/cuda/bin/ptxas", "/usr/bin/ptxas"})
    if (ptxas.empty() && access(candidate, X_OK) == 0)
      ptxas = candidate;
  if (ptxas.empty())
    GTEST_SKIP() << "ptxas not found: the generated programs' PTX is not assembled";
  const uint64_t base = env_number("LOOM_DIFF_SEED", 1);
  const uint64_t total = env_number("LOOM_DIFF_PROGRAMS", 2000) / 40;
  codegen::GpuTarget target;
  target.sm = "sm_90";
  char path[] = "/tmp/loom_generated_ptx_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  for (uint64_t seed = base; seed < base + total; ++seed) {
    Program p = generate_program(seed);
    target.index32 = seed % 2 == 0;
    std::string ptx = codegen::emit_ptx(
        ir::lower(p.kernel, ir::Target::GPU, nullptr, {.covering_launch = seed % 3 != 0}), target);
    std::ofstream(path) << ptx;
    std::string log = std::string(path) + ".log";
    int rc =
        std::system((ptxas + " -arch=sm_90 " + path + " -o /dev/null >" + log + " 2>&1").c_str());
    std::ifstream in(log);
    std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::remove(log.c_str());
    ASSERT_EQ(rc, 0) << "seed " << seed << ": ptxas rejected the PTX:\n" << out;
  }
  std::remove(path);
}

} // namespace
} // namespace loom::difftest
