// Autotuning (Kernel::autotune, @kernel(tile="auto")): the tile schedule's values chosen by
// trials at the first call of each shape class, on copies of the call's arrays, kept in the
// kernel and in the disk cache. Whatever tile wins, the results are the default mapping's bit
// for bit; the call's own arrays see one call. On each target (the GPU instance skips without a
// GPU); each test has a disk cache of its own.
#include "cache/CacheTestUtil.h"
#include "support/TestUtil.h"

#include "ir/Lower.h"
#include "loom/Autotune.h"

#include <cmath>
#include <cstring>

using namespace loom;
using loomtest::random_vector;

namespace {

// C = A B + C: the epilogue reads C, so a trial that wrote the call's C would show.
template <class T> Kernel gemm(const std::string &name) {
  return kernel(name,
                [](Array2<T> A, Array2<T> B, Array2<T> C) {
                  parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
                    Var<T> acc("acc", T(0));
                    for_range(A.dim(1), [&](Index k) { acc += A(i, k) * B(k, j); });
                    C(i, j) = acc + C(i, j);
                  });
                },
                {"A", "B", "C"});
}

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

class Autotune : public loomtest::TargetTest {
protected:
  loomtest::TempDir cache_;
  loomtest::ScopedEnv dir_{"LOOM_CACHE_DIR", cache_.path()};
  loomtest::ScopedEnv mode_{"LOOM_CACHE", "on"};
};

template <class T> void check_gemm(ir::Target target, int64_t m, int64_t p, int64_t n) {
  SCOPED_TRACE(::testing::Message() << m << " x " << p << " x " << n);
  Kernel tuned = gemm<T>(sizeof(T) == 4 ? "gemm_tuned_f32" : "gemm_tuned_f64");
  Kernel plain = gemm<T>(sizeof(T) == 4 ? "gemm_plain_f32" : "gemm_plain_f64");
  tuned.on(target).autotune();
  plain.on(target).schedule(loom::none);
  std::vector<T> A = random_vector<T>(size_t(m * p), -1, 1, 1),
                 B = random_vector<T>(size_t(p * n), -1, 1, 2),
                 C0 = random_vector<T>(size_t(m * n), -1, 1, 3);
  std::vector<T> C1 = C0, C2 = C0;
  tuned(view(A, {m, p}), view(B, {p, n}), view(C1, {m, n}));
  plain(view(A, {m, p}), view(B, {p, n}), view(C2, {m, n}));
  EXPECT_EQ(std::memcmp(C1.data(), C2.data(), C1.size() * sizeof(T)), 0);
  // Against a reference in double: the call's C was updated once.
  double worst = 0;
  for (int64_t i = 0; i < m; i += 5)
    for (int64_t j = 0; j < n; ++j) {
      double ref = C0[i * n + j], mag = std::fabs(ref);
      for (int64_t k = 0; k < p; ++k)
        ref += double(A[i * p + k]) * B[k * n + j],
            mag += std::fabs(double(A[i * p + k]) * B[k * n + j]);
      worst = std::max(worst, std::fabs(C1[i * n + j] - ref) / std::max(mag, 1e-30));
    }
  EXPECT_LE(worst, double(p + 2) * (sizeof(T) == 4 ? 0x1p-24 : 0x1p-53));
  const std::string explain = tuned.explain();
  EXPECT_NE(explain.find("autotune: shape class A 256x256, B 256x256, C 256x256 on "),
            std::string::npos)
      << explain;
  EXPECT_NE(explain.find("chosen by trials on copies of the call's arrays"), std::string::npos)
      << explain;
  EXPECT_EQ(count(explain, ", chosen\n"), 1u) << explain;
  // The default mapping is timed too, last, and kept when it is the fastest (on the CPU the
  // natural matmul's default mapping is register-blocked already, as fast as a candidate).
  EXPECT_NE(explain.find("    the default mapping: "), std::string::npos) << explain;
  const size_t chosen = explain.find(", chosen\n");
  ASSERT_NE(chosen, std::string::npos) << explain;
  const size_t line = explain.rfind('\n', chosen) + 1;
  const bool baseline_chosen = explain.compare(line, std::strlen("    the default mapping: "),
                                               "    the default mapping: ") == 0;
  EXPECT_EQ(tuned.ir().schedule.mapping,
            baseline_chosen ? ir::Mapping::Parallel : ir::Mapping::Tile)
      << explain;
  EXPECT_TRUE(tuned.ir().schedule.autotune);
}

} // namespace

TEST_P(Autotune, ResultsAreTheDefaultMappingsAndTheCallsArraysSeeOneCall) {
  check_gemm<float>(target(), 200, 150, 170);
  check_gemm<double>(target(), 129, 250, 255);
}

// The same shape class reuses the tuning; another makes its own; a later Kernel object of the
// same kernel (a later process, as far as the disk cache knows) takes it from the disk cache.
TEST_P(Autotune, ShapeClassesAndTheDiskCache) {
  const int64_t m = 100, p = 60, n = 70;
  std::vector<float> A = random_vector<float>(size_t(m * p), -1, 1, 4),
                     B = random_vector<float>(size_t(p * n), -1, 1, 5), C(size_t(m * n));
  Kernel first = gemm<float>("gemm_classes");
  first.on(target()).autotune();
  first(view(A, {m, p}), view(B, {p, n}), view(C, {m, n}));
  const std::string tuned = first.explain();
  ASSERT_NE(tuned.find("shape class A 128x64, B 64x128, C 128x128"), std::string::npos) << tuned;
  // 90 x 60 x 70 is the same class: no new trials (the autotune lines are the same; the last
  // launch's grid may differ).
  auto autotune_lines = [](const std::string &explain) {
    const size_t begin = explain.find("  autotune: ");
    return explain.substr(begin, explain.find("\n  code:", begin) - begin);
  };
  first(view(A.data(), {90, p}), view(B, {p, n}), view(C.data(), {90, n}));
  std::vector<float> C2(size_t(m * n));
  EXPECT_EQ(autotune_lines(first.explain()), autotune_lines(tuned));
  // 30 x 60 x 70: another class, tuned on its own.
  first(view(A.data(), {30, p}), view(B, {p, n}), view(C2.data(), {30, n}));
  EXPECT_NE(first.explain().find("shape class A 32x64, B 64x128, C 32x128"), std::string::npos)
      << first.explain();
  // A new object of the same kernel: the first class comes from the disk cache.
  Kernel second = gemm<float>("gemm_classes");
  second.on(target()).autotune();
  second(view(A, {m, p}), view(B, {p, n}), view(C, {m, n}));
  const std::string cached = second.explain();
  EXPECT_NE(cached.find("from the disk cache (an earlier process's trials)"), std::string::npos)
      << cached;
  // It lists the same trials and the same choice.
  EXPECT_EQ(count(cached, " ms (the best of its calls)"),
            count(tuned, " ms (the best of its calls)"));
  second.autotune(false);
  EXPECT_EQ(second.ir().schedule.mapping, ir::Mapping::Parallel);
  EXPECT_FALSE(second.ir().schedule.autotune);
}

// A loop no tile schedule takes: every candidate's CompileError, the first one's reason named.
TEST_P(Autotune, NoCandidateApplyingIsACompileError) {
  Kernel two_loops = kernel("two_loops",
                            [](Array2<float> A, Array2<float> C) {
                              parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
                                Var<float> acc("acc", 0.0f);
                                for_range(A.dim(1), [&](Index k) { acc += A(i, k); });
                                for_range(A.dim(1), [&](Index k) { acc += A(j, k); });
                                C(i, j) = acc;
                              });
                            },
                            {"A", "C"});
  two_loops.on(target()).autotune();
  std::vector<float> A(64 * 64, 1.0f), C(64 * 64, 7.0f);
  try {
    two_loops(view(A, {64, 64}), view(C, {64, 64}));
    ADD_FAILURE() << "expected a CompileError";
  } catch (const CompileError &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "kernel 'two_loops', autotune: no candidate tile schedule applies to it; the "
                  "first candidate's error: kernel 'two_loops', schedule tile: the iteration has "
                  "more than one loop"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(C[0], 7.0f); // the call did not run
}

LOOM_INSTANTIATE_TARGETS(Autotune);

// The candidates: bounded, valid tiles, sized to the element type (f64 tiles fit the shared
// memory two buffers of them need).
TEST(AutotuneCandidates, AreValidTilesForTheTarget) {
  Kernel f32 = gemm<float>("c32"), f64 = gemm<double>("c64");
  for (const Kernel *k : {&f32, &f64})
    for (ir::Target target : {ir::Target::CPU, ir::Target::GPU}) {
      std::vector<ir::TileSchedule> tiles = tile_candidates(k->ir(), target, 90, 512);
      EXPECT_GE(tiles.size(), 4u);
      EXPECT_LE(tiles.size(), 8u);
      for (const ir::TileSchedule &t : tiles) {
        EXPECT_EQ(ir::tile_problem(t), "");
        if (target == ir::Target::GPU && k == &f64)
          EXPECT_LE(2 * t.depth * (t.rows + t.cols + 8) * 8, 48 * 1024);
      }
    }
  // The H200's best f32 schedule is among the GPU's candidates; AVX-512's f32 register blocks
  // are two vectors of 16 floats wide.
  std::vector<ir::TileSchedule> gpu = tile_candidates(f32.ir(), ir::Target::GPU, 90, 0);
  EXPECT_NE(std::find(gpu.begin(), gpu.end(), ir::TileSchedule{256, 128, 16, 8, 8, 1}), gpu.end());
  EXPECT_EQ(tile_candidates(f32.ir(), ir::Target::CPU, 0, 512)[0],
            (ir::TileSchedule{64, 128, 8, 32}));
  // 16-bit inputs on the H200: wgmma's tiles first (whole warpgroups, depth 64); on sm_80 none.
  Kernel half = kernel("c16",
                       [](Array2<f16> A, Array2<f16> B, Array2<float> C) {
                         parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
                           Var<float> acc("acc", 0.0f);
                           for_range(A.dim(1), [&](Index k) { acc += A(i, k) * B(k, j); });
                           C(i, j) = acc;
                         });
                       },
                       {"A", "B", "C"});
  EXPECT_EQ(tile_candidates(half.ir(), ir::Target::GPU, 90, 0)[0],
            (ir::TileSchedule{128, 256, 8, 16, 64, 1}));
  for (const ir::TileSchedule &t : tile_candidates(half.ir(), ir::Target::GPU, 80, 0))
    EXPECT_NE(t.depth, 64);
  // TF32 on the H200: wgmma's TF32 tiles first (depth 32), each of which the lowering takes.
  Kernel tf32 = gemm<float>("c_tf32");
  tf32.allow_tf32();
  std::vector<ir::TileSchedule> hopper = tile_candidates(tf32.ir(), ir::Target::GPU, 90, 0);
  EXPECT_EQ(hopper[0], (ir::TileSchedule{256, 128, 16, 8, 32, 1}));
  for (const ir::TileSchedule &t : hopper) {
    ir::Kernel traced = tf32.ir();
    traced.schedule = ir::with_tile(traced.schedule, t);
    const std::string used =
        ir::lower(traced, ir::Target::GPU, nullptr, {.sm = 90}).tasks[0].tensor_cores;
    EXPECT_EQ(used.rfind(t.depth == 32 ? "wgmma m64n" : "mma.sync m16n8k8", 0), 0u) << used;
  }
}

// The API's and the text DSL's bad input.
TEST(AutotuneErrors, MappingsItDoesNotCombineWithAndTextOptions) {
  Kernel k = gemm<float>("bad_mapping");
  k.block_per_iteration(256);
  try {
    k.autotune();
    ADD_FAILURE() << "expected an ArgumentError";
  } catch (const ArgumentError &e) {
    EXPECT_EQ(std::string(e.what()), "kernel 'bad_mapping': autotune chooses a tile schedule, "
                                     "which does not combine with block_per_iteration");
  }
  // An explicit tile replaces autotuning.
  Kernel t = gemm<float>("explicit");
  t.autotune().tile({64, 64, 4, 4});
  EXPECT_FALSE(t.ir().schedule.autotune);

  Module m = compile(R"(
@kernel(tile="auto")
def mm(A: f32[m, p], B: f32[p, n], C: f32[m, n]):
    for i, j in parallel(m, n):
        acc = f32(0.0)
        for k in range(p):
            acc += A[i, k] * B[k, j]
        C[i, j] = acc
)");
  EXPECT_TRUE(m["mm"].ir().schedule.autotune);
  EXPECT_EQ(m["mm"].ir().schedule.mapping, ir::Mapping::Parallel);
  auto error_of = [](const std::string &source) -> std::string {
    try {
      compile(source);
    } catch (const DslError &e) {
      return e.what();
    }
    return "";
  };
  const std::string body = "def k(x: f32[n]):\n    for i in parallel(n):\n        x[i] = 1.0\n";
  EXPECT_NE(error_of("@kernel(tile=\"fast\")\n" + body)
                .find("option 'tile' takes two integers, as in tile=(128, 128), or \"auto\" (the "
                      "tile chosen by trials)"),
            std::string::npos);
  EXPECT_NE(error_of("@kernel(tile=\"auto\", thread_tile=(8, 8))\n" + body)
                .find("under tile=\"auto\" trials choose the tile's values"),
            std::string::npos);
  EXPECT_NE(error_of("@kernel(tile=\"auto\", block_per_iteration=256)\n" + body)
                .find("tile=\"auto\" does not combine with block_per_iteration"),
            std::string::npos);
}
