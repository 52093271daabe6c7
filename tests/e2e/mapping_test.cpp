// A kernel's schedule is one value apart from its definition (ir/Schedule.h): one mapping of its
// parallel loops (the default, block_per_iteration, the tile schedule or the SIMT level) and its
// loop schedules. These tests check the one place that validates it, through each way in: the
// ir functions, Kernel's schedule calls, the text DSL's options and the verifier.
#include "support/TestUtil.h"

#include "ir/Lower.h"
#include "ir/Verifier.h"

using namespace loom;

namespace {

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

template <class F> std::string error_of(F &&f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "(no error)";
}

Kernel rows_kernel() {
  return kernel("rows",
                [](Array2<float> x, Array<float> y) {
                  parallel_for(x.dim(0), [&](Index i) {
                    Var<float> total("total", 0.0f);
                    for_range(x.dim(1), [&](Index j) { total += x(i, j); });
                    y(i) = total;
                  });
                },
                {"x", "y"});
}

Kernel matmul_kernel() {
  return kernel("mm",
                [](Array2<float> A, Array2<float> B, Array2<float> C) {
                  parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
                    Var<float> acc("acc", 0.0f);
                    for_range(A.dim(1), [&](Index k) { acc += A(i, k) * B(k, j); });
                    C(i, j) = acc;
                  });
                },
                {"A", "B", "C"});
}

using ir::Mapping;

TEST(Mapping, OnlyTheDefaultIsReplaced) {
  const Mapping all[] = {Mapping::Parallel, Mapping::BlockPerIteration, Mapping::Tile,
                         Mapping::Simt};
  for (Mapping from : all)
    for (Mapping to : all) {
      const bool allowed = from == to || from == Mapping::Parallel ||
                           (to == Mapping::Parallel && from != Mapping::Simt);
      SCOPED_TRACE(std::string(ir::mapping_name(from)) + " -> " + ir::mapping_name(to));
      EXPECT_EQ(ir::remap_problem(from, to).empty(), allowed) << ir::remap_problem(from, to);
    }
  EXPECT_EQ(ir::remap_problem(Mapping::BlockPerIteration, Mapping::Tile),
            "the tile schedule does not combine with block_per_iteration");
  EXPECT_EQ(ir::remap_problem(Mapping::Simt, Mapping::Parallel),
            "the default mapping does not combine with the SIMT level");
}

TEST(Mapping, ScheduleProblemChecksTheMappingsValues) {
  ir::Kernel k = rows_kernel().ir();
  EXPECT_EQ(ir::schedule_problem(k.schedule, k), "");
  EXPECT_EQ(ir::schedule_problem(ir::with_block_per_iteration(k.schedule, 100), k),
            "kernel 'rows': block_per_iteration takes a multiple of 32 threads from 32 to 1024 "
            "(or 0 for the default mapping), not 100");
  EXPECT_EQ(ir::schedule_problem(ir::with_block_per_iteration(k.schedule, 256), k), "");
  EXPECT_TRUE(contains(ir::schedule_problem(ir::with_tile(k.schedule, {128, 128, 3, 8, 8}), k),
                       "rows and columns must be positive multiples"));
  // Values the mapping does not use are refused, not ignored.
  ir::Schedule stray = ir::with_tile(k.schedule, {64, 64, 4, 4});
  stray.threads = 64;
  EXPECT_TRUE(contains(ir::schedule_problem(stray, k), "block_per_iteration of 64 threads under "
                                                       "the tile schedule"));
  ir::Schedule tiles = k.schedule;
  tiles.tile = {64, 64, 4, 4};
  EXPECT_TRUE(contains(ir::schedule_problem(tiles, k), "tiles under the default mapping"));
  ir::Schedule loops = k.schedule;
  loops.loops["q"].unroll = 2;
  EXPECT_TRUE(contains(ir::schedule_problem(loops, k), "has no sequential loop over a variable "
                                                       "'q'"));
  // Back to the default: the mapping's values go with it.
  ir::Schedule back = ir::with_tile(ir::with_block_per_iteration(k.schedule, 64), {});
  EXPECT_EQ(back, ir::Schedule());
}

TEST(Mapping, TheVerifierMakesTheSameCheck) {
  ir::Kernel k = rows_kernel().ir();
  k.schedule = ir::with_block_per_iteration(k.schedule, 48);
  EXPECT_THROW(ir::verify(k), VerifyError);
  EXPECT_TRUE(contains(error_of([&] { ir::lower(k, ir::Target::GPU); }), "not 48"));
}

TEST(Mapping, KernelCallsReplaceOnlyTheDefaultMapping) {
  Kernel k = matmul_kernel();
  k.block_per_iteration(64);
  EXPECT_EQ(k.ir().schedule.mapping, Mapping::BlockPerIteration);
  EXPECT_EQ(k.ir().schedule.threads, 64);
  EXPECT_TRUE(contains(error_of([&] {
                         k.tile({64, 64, 4, 4});
                       }),
                       "kernel 'mm': the tile schedule does not combine with block_per_iteration"));
  EXPECT_EQ(k.ir().schedule.threads, 64); // unchanged by the refused call
  k.block_per_iteration(0);
  EXPECT_EQ(k.ir().schedule, ir::Schedule());
  k.tile({64, 64, 4, 4});
  EXPECT_EQ(k.ir().schedule.mapping, Mapping::Tile);
  EXPECT_THROW(k.block_per_iteration(128), ArgumentError);
  k.unroll("k", 4); // loop schedules belong to any mapping; lowering says what a mapping refuses
  EXPECT_EQ(k.ir().schedule.loops.at("k").unroll, 4);
  EXPECT_EQ(k.ir().schedule.mapping, Mapping::Tile);
  k.tile({});
  EXPECT_EQ(k.ir().schedule.mapping, Mapping::Parallel);
  EXPECT_EQ(k.ir().schedule.tile, ir::TileSchedule());

  Kernel s = simt_kernel("simt", [](Array<float> x) { x(Index(thread_idx().x)) = 1.0f; }, {"x"});
  EXPECT_EQ(s.ir().schedule.mapping, Mapping::Simt);
  EXPECT_TRUE(contains(error_of([&] { s.block_per_iteration(64); }),
                       "block_per_iteration does not combine with the SIMT level"));
  EXPECT_TRUE(contains(error_of([&] {
                         s.tile({32, 32, 2, 2});
                       }),
                       "the tile schedule does not combine with the SIMT level"));
  EXPECT_TRUE(s.ir().simt());
}

TEST(Mapping, TextOptionsMakeOneMapping) {
  auto error = [](const std::string &options) {
    return error_of([&] {
      compile("@kernel(" + options +
              ")\ndef k(x: f32[n, m], y: f32[n]):\n"
              "    for i in parallel(n):\n        y[i] = x[i, 0]\n");
    });
  };
  EXPECT_TRUE(contains(error("simt=True, block_per_iteration=64"),
                       "block_per_iteration does not combine with simt=True"));
  EXPECT_TRUE(contains(error("block_per_iteration=64, tile=(16, 16)"),
                       "the tile schedule does not combine with block_per_iteration"));
  Module m = compile("@kernel(block_per_iteration=128)\ndef k(x: f32[n, m], y: f32[n]):\n"
                     "    for i in parallel(n):\n        y[i] = x[i, 0]\n"
                     "@kernel(tile=(32, 32), thread_tile=(4, 4), stage=4)\n"
                     "def t(A: f32[N, K], B: f32[K, M], C: f32[N, M]):\n"
                     "    for i, j in parallel(N, M):\n        acc: f32 = 0.0\n"
                     "        for k in range(K):\n            acc += A[i, k] * B[k, j]\n"
                     "        C[i, j] = acc\n");
  EXPECT_EQ(m["k"].ir().schedule, ir::with_block_per_iteration({}, 128));
  EXPECT_EQ(m["t"].ir().schedule, ir::with_tile({}, {32, 32, 4, 4, 4}));
}

} // namespace
