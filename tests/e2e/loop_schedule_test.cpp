// The unroll and vectorize schedules (Kernel::unroll, Kernel::vectorize, @kernel(unroll=...,
// vectorize=...)): results bit-identical to the kernel without them on each target, the loop
// metadata and vector widths they ask for in LLVM IR, the GPU runs they set, and their errors.
#include "support/TestUtil.h"

#include "codegen/Codegen.h"
#include "ir/Lower.h"
#include "ir/Printer.h"

#include <cstring>

using namespace loom;
using loomtest::random_vector;

namespace {

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

template <class T> bool same_bits(const std::vector<T> &a, const std::vector<T> &b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// C = A B; its one for_range loop is named k.
Kernel matmul_kernel() {
  return kernel("matmul", [](Array2<float> A, Array2<float> B, Array2<float> C) {
    parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
      Var<float> acc("acc", 0.0f);
      for_range(A.dim(1), [&](Index k) { acc += A(i, k) * B(k, j); });
      C(i, j) = acc;
    });
  });
}

Kernel saxpy_kernel() {
  return kernel("saxpy", [](F32 a, Array<float> x, Array<float> y) {
    parallel_for(x.dim(0), [&](Index i) { y[i] = a * x[i] + y[i]; });
  });
}

// A 3-point stencil: its accesses at [i - 1] and [i + 1] rule out GPU runs.
Kernel stencil_kernel() {
  return kernel("stencil", [](Array<float> x, Array<float> y) {
    parallel_for(x.dim(0) - 2,
                 [&](Index i) { y[i + 1] = 0.25f * x[i] + 0.5f * x[i + 1] + 0.25f * x[i + 2]; });
  });
}

// The sum of each row in a float loop: vectorizing it would reorder the sum.
Kernel row_sums_kernel() {
  return kernel("row_sums", [](Array2<float> x, Array<float> sums) {
    parallel_for(x.dim(0), [&](Index i) {
      Var<float> s("s", 0.0f);
      for_range(x.dim(1), [&](Index k) { s += x(i, k); });
      sums[i] = s;
    });
  });
}

class LoopSchedule : public loomtest::TargetTest {};

TEST_P(LoopSchedule, MatmulUnrolledOrVectorizedIsBitIdentical) {
  const int64_t n = 37, kk = 129, m = 45;
  auto A = random_vector<float>(n * kk, -1, 1, 1), B = random_vector<float>(kk * m, -1, 1, 2);
  Kernel plain = matmul_kernel();
  prepare(plain);
  std::vector<float> want(n * m);
  plain(view(A, {n, kk}), view(B, {kk, m}), view(want, {n, m}));
  loomtest::expect_matmul(A, B, want, n, kk, m);
  for (auto schedule :
       {std::pair{4, 0}, std::pair{1, 0}, std::pair{64, 0}, std::pair{0, 8}, std::pair{3, 4}}) {
    Kernel k = matmul_kernel();
    k.unroll("k", schedule.first).vectorize("k", schedule.second);
    prepare(k);
    std::vector<float> C(n * m, NAN);
    k(view(A, {n, kk}), view(B, {kk, m}), view(C, {n, m}));
    EXPECT_TRUE(same_bits(C, want)) << schedule.first << " " << schedule.second;
  }
}

TEST_P(LoopSchedule, SaxpyAndStencilVectorizedAreBitIdentical) {
  const int64_t n = 100003;
  auto x = random_vector<float>(n, -1, 1, 3), y0 = random_vector<float>(n, -1, 1, 4);
  for (int width : {1, 2, 4, 8, 16}) {
    Kernel plain = saxpy_kernel(), k = saxpy_kernel();
    k.vectorize("i", width);
    prepare(plain), prepare(k);
    std::vector<float> want = y0, y = y0;
    plain(1.7f, x, want);
    k(1.7f, x, y);
    EXPECT_TRUE(same_bits(y, want)) << width;
  }
  // The stencil's runs are refused on the GPU; on the CPU its loop vectorizes.
  if (target() == ir::Target::CPU) {
    Kernel plain = stencil_kernel(), k = stencil_kernel();
    k.vectorize("i", 8).on(target());
    std::vector<float> want(n, 0.0f), y(n, 0.0f);
    plain.on(target())(x, want);
    k(x, y);
    EXPECT_TRUE(same_bits(y, want));
  }
}

// LLVM's vectorize hint lets it reorder float reductions unless told otherwise; loom tells it.
TEST_P(LoopSchedule, FloatReductionIsNotReordered) {
  const int64_t n = 19, m = 4099;
  auto x = random_vector<float>(n * m, -1, 1, 5);
  Kernel plain = row_sums_kernel(), k = row_sums_kernel();
  k.vectorize("k", 8).unroll("k", 4);
  prepare(plain), prepare(k);
  std::vector<float> want(n), sums(n);
  plain(view(x, {n, m}), want);
  k(view(x, {n, m}), sums);
  EXPECT_TRUE(same_bits(sums, want));
}

TEST(LoopScheduleCode, CpuLoopMetadataAndVectorWidth) {
  Kernel k = matmul_kernel();
  k.on(ir::Target::CPU);
  EXPECT_FALSE(contains(k.llvm(false), "llvm.loop.unroll"));
  k.unroll("k", 4);
  EXPECT_TRUE(contains(k.llvm(false), "!{!\"llvm.loop.unroll.count\", i32 4}")) << k.llvm(false);
  k.unroll("k", 1);
  EXPECT_TRUE(contains(k.llvm(false), "!{!\"llvm.loop.unroll.disable\"}")) << k.llvm(false);

  // saxpy's parallel loop is a loop inside each CPU chunk: 8 floats wide, then 4 (LLVM's own
  // choice on an AVX-512 host would be 16).
  Kernel s = saxpy_kernel();
  s.on(ir::Target::CPU).vectorize("i", 8);
  std::string unoptimized = s.llvm(false), optimized = s.llvm(true);
  EXPECT_TRUE(contains(unoptimized, "!{!\"llvm.loop.vectorize.width\", i32 8}")) << unoptimized;
  EXPECT_TRUE(contains(unoptimized, "!{!\"llvm.loop.vectorize.enable\", i1 true}"));
  EXPECT_TRUE(contains(optimized, "<8 x float>")) << optimized;
  EXPECT_FALSE(contains(optimized, "<16 x float>")) << optimized;
  s.vectorize("i", 4);
  optimized = s.llvm(true);
  EXPECT_TRUE(contains(optimized, "<4 x float>")) << optimized;
  EXPECT_FALSE(contains(optimized, "<8 x float>")) << optimized;
  s.vectorize("i", 1);
  EXPECT_FALSE(contains(s.llvm(true), "x float>")) << s.llvm(true);
}

TEST(LoopScheduleCode, GpuUnrollReplacesLoomsChoice) {
  Kernel k = matmul_kernel();
  auto gpu_llvm = [&] {
    return codegen::emit_llvm(ir::lower(k.ir(), ir::Target::GPU), codegen::LlvmStage::Unoptimized,
                              codegen::GpuTarget());
  };
  EXPECT_TRUE(contains(gpu_llvm(), "!{!\"llvm.loop.unroll.count\", i32 16}"));
  k.unroll("k", 2);
  EXPECT_TRUE(contains(gpu_llvm(), "!{!\"llvm.loop.unroll.count\", i32 2}")) << gpu_llvm();
  EXPECT_FALSE(contains(gpu_llvm(), "i32 16}"));
  // A sequential loop's vectorize is an unroll on the GPU.
  k.unroll("k", 0).vectorize("k", 8);
  EXPECT_TRUE(contains(gpu_llvm(), "!{!\"llvm.loop.unroll.count\", i32 8}")) << gpu_llvm();
  k.unroll("k", 1);
  EXPECT_TRUE(contains(gpu_llvm(), "!{!\"llvm.loop.unroll.disable\"}")) << gpu_llvm();
  loomtest::expect_ptx_assembles(k);
}

TEST(LoopScheduleCode, GpuRunsFollowVectorize) {
  Kernel k = saxpy_kernel();
  // The automatic run of f32 saxpy: 16 bytes, 4 iterations.
  EXPECT_TRUE(contains(k.lowered(ir::Target::GPU), "i_in_run in 0 .. 4"));
  k.vectorize("i", 8);
  EXPECT_TRUE(contains(k.lowered(ir::Target::GPU), "i_in_run in 0 .. 8"))
      << k.lowered(ir::Target::GPU);
  loomtest::expect_ptx_assembles(k);
  k.vectorize("i", 1);
  EXPECT_FALSE(contains(k.lowered(ir::Target::GPU), "i_in_run"));
  loomtest::expect_ptx_assembles(k);
}

TEST(LoopScheduleCode, ScheduleIsPrintedAndChangesTheCacheKey) {
  Kernel k = matmul_kernel();
  const std::string before = ir::canonical_text(ir::lower(k.ir(), ir::Target::CPU));
  k.unroll("k", 4);
  EXPECT_TRUE(contains(k.ir_text(), " unroll 4 {")) << k.ir_text();
  EXPECT_TRUE(contains(k.lowered(ir::Target::CPU), " unroll 4 {")) << k.lowered(ir::Target::CPU);
  const std::string after = ir::canonical_text(ir::lower(k.ir(), ir::Target::CPU));
  EXPECT_NE(before, after);
  k.unroll("k", 8);
  EXPECT_NE(after, ir::canonical_text(ir::lower(k.ir(), ir::Target::CPU)));
  k.unroll("k", 0);
  EXPECT_EQ(before, ir::canonical_text(ir::lower(k.ir(), ir::Target::CPU)));
  k.on(ir::Target::CPU).unroll("k", 2);
  EXPECT_TRUE(contains(k.explain(), "unrolled 2 times")) << k.explain();
}

// Loops are named as ir_text() prints them: the embedded DSL's for_range loops k, k.1, ...
TEST(LoopScheduleCode, NamesAreThoseIrTextPrints) {
  Kernel k = kernel("two_loops", [](Array<float> x, Array<float> y) {
    parallel_for(x.dim(0), [&](Index i) {
      for_range(4, [&](Index k) { y[i] = y[i] + x[i] * k; });
      for_range(8, [&](Index k) { y[i] = y[i] * 0.5f; });
    });
  });
  k.unroll("k.1", 2);
  const std::string lowered = k.lowered(ir::Target::CPU);
  EXPECT_TRUE(contains(lowered, "for k in 0 .. 4 {")) << lowered;
  EXPECT_TRUE(contains(lowered, "for k.1 in 0 .. 8 unroll 2 {")) << lowered;
}

template <class F> std::string error_of(F &&f) {
  try {
    f();
  } catch (const std::exception &e) {
    return e.what();
  }
  return "no error";
}

TEST(LoopScheduleErrors, BadFactorsAndNames) {
  Kernel k = matmul_kernel();
  EXPECT_TRUE(contains(error_of([&] { k.unroll("k", 65); }), "a factor from 1 to 64"));
  EXPECT_TRUE(contains(error_of([&] { k.unroll("k", -1); }), "a factor from 1 to 64"));
  EXPECT_TRUE(contains(error_of([&] { k.vectorize("k", 3); }), "1, 2, 4, 8 or 16"));
  EXPECT_TRUE(contains(error_of([&] { k.vectorize("k", 32); }), "1, 2, 4, 8 or 16"));
  EXPECT_THROW(k.unroll("j", 4), ArgumentError);
  EXPECT_EQ(error_of([&] { k.unroll("kk", 4); }),
            "unroll('kk'): kernel 'matmul' has no sequential loop over a variable 'kk' (its "
            "sequential loops: 'k'; its parallel loop variables: 'i', 'j'; as ir_text() names "
            "them)");
  EXPECT_TRUE(contains(error_of([&] { k.unroll("i", 4); }), "which is a parallel loop's variable"));
  EXPECT_TRUE(contains(error_of([&] { k.vectorize("x", 4); }), "has no loop over a variable 'x'"));
  // A refused schedule leaves the kernel as it was.
  EXPECT_TRUE(k.ir().schedule.loops.empty());
}

TEST(LoopScheduleErrors, GpuRunsTheLoopDoesNotAllow) {
  auto gpu_error = [](Kernel k) { return error_of([&] { ir::lower(k.ir(), ir::Target::GPU); }); };
  Kernel stencil = stencil_kernel();
  stencil.vectorize("i", 4);
  EXPECT_TRUE(contains(gpu_error(stencil), "cannot take runs of consecutive iterations, as it "
                                           "accesses an array at an index other than [i]"))
      << gpu_error(stencil);
  EXPECT_THROW(ir::lower(stencil.ir(), ir::Target::GPU), CompileError);
  EXPECT_NO_THROW(ir::lower(stencil.ir(), ir::Target::CPU));
  Kernel rows = row_sums_kernel();
  rows.vectorize("i", 2);
  EXPECT_TRUE(contains(gpu_error(rows), "as its body runs a loop")) << gpu_error(rows);
  Kernel mm = matmul_kernel();
  mm.vectorize("j", 4);
  EXPECT_TRUE(contains(gpu_error(mm), "are for 1-D parallel loops")) << gpu_error(mm);
  Kernel blocks = row_sums_kernel();
  blocks.block_per_iteration(128).vectorize("i", 4);
  EXPECT_TRUE(contains(gpu_error(blocks), "block_per_iteration")) << gpu_error(blocks);
  // The tile schedule makes loops of its own: a loop schedule beside it is refused, not ignored.
  Kernel tiled = matmul_kernel();
  tiled.unroll("k", 4).tile({64, 64, 4, 4, 0, 0});
  for (ir::Target target : {ir::Target::CPU, ir::Target::GPU})
    EXPECT_TRUE(contains(error_of([&] { ir::lower(tiled.ir(), target); }),
                         "do not combine with the tile schedule"));
}

const char *text_source = R"(
@kernel(unroll=(k, 4), vectorize=((i, 8), (k, 2)))
def scheduled(A: f32[N, K], x: f32[K], y: f32[N]):
    for i in parallel(N):
        acc: f32 = 0.0
        for k in range(K):
            acc += A[i, k] * x[k]
        y[i] = acc

@kernel
def plain(A: f32[N, K], x: f32[K], y: f32[N]):
    for i in parallel(N):
        acc: f32 = 0.0
        for k in range(K):
            acc += A[i, k] * x[k]
        y[i] = acc
)";

TEST_P(LoopSchedule, TextDslOptions) {
  Module m = compile(text_source);
  Kernel &k = m["scheduled"];
  ASSERT_EQ(k.ir().schedule.loops.size(), 2u);
  EXPECT_EQ(k.ir().schedule.loops.at("k").unroll, 4);
  EXPECT_EQ(k.ir().schedule.loops.at("k").vectorize, 2);
  EXPECT_EQ(k.ir().schedule.loops.at("i").vectorize, 8);
  EXPECT_TRUE(contains(k.lowered(ir::Target::CPU), "unroll 4 vectorize 2 {"));
  // Runs need accesses at [i] only: A[i, k] refuses them on the GPU.
  EXPECT_THROW(ir::lower(k.ir(), ir::Target::GPU), CompileError);
  if (target() == ir::Target::GPU)
    k.vectorize("i", 0);
  k.on(target());
  Kernel &plain = m["plain"];
  plain.on(target());
  const int64_t n = 33, kk = 1001;
  auto A = random_vector<float>(n * kk, -1, 1, 6), x = random_vector<float>(kk, -1, 1, 7);
  std::vector<float> want(n), y(n);
  plain(view(A, {n, kk}), x, want);
  k(view(A, {n, kk}), x, y);
  EXPECT_TRUE(same_bits(y, want));
}

// A second loop over one variable is "k.1" (its IR name, no identifier), named by a string.
TEST(LoopScheduleText, ASecondLoopOverAVariableIsNamedByAString) {
  Module m = compile(R"(
@kernel(unroll=("k.1", 2))
def two_loops(x: f32[n], y: f32[n]):
    for i in parallel(n):
        s: f32 = 0.0
        for k in range(4):
            s += x[k]
        for k in range(8):
            s += y[k]
        y[i] = s
)");
  Kernel &k = m["two_loops"];
  ASSERT_EQ(k.ir().schedule.loops.size(), 1u);
  EXPECT_EQ(k.ir().schedule.loops.at("k.1").unroll, 2);
  EXPECT_TRUE(contains(k.lowered(ir::Target::CPU), "unroll 2 {")) << k.lowered(ir::Target::CPU);
  try {
    compile("@kernel(unroll=(\"k.2\", 2))\ndef f(x: f32[n]):\n    for i in parallel(n):\n"
            "        for k in range(4):\n            x[i] += 1.0\n");
    ADD_FAILURE() << "expected a SourceError";
  } catch (const SourceError &e) {
    EXPECT_TRUE(contains(e.what(), "k.2")) << e.what();
  }
}

LOOM_INSTANTIATE_TARGETS(LoopSchedule);

} // namespace
