// The lowering passes, the access summary and the host evaluator.
#include "frontend/DSL.h"
#include "ir/AccessSummary.h"
#include "ir/Evaluate.h"
#include "ir/Lower.h"
#include "ir/Passes.h"
#include "ir/Printer.h"
#include "support/Error.h"

#include <gtest/gtest.h>

using namespace loom;
using namespace loom::ir;

namespace {

ir::Kernel two_loops() {
  return trace("two",
               [](F32 a, Array<float> x, Array<float> y) {
                 loom::Var<int64_t> n("n", x.size());
                 parallel_for(n, [&](Index i) { x[i] = a * cast<float>(i); });
                 parallel_for(y.size(), [&](Index i) { y[i] = x[i] + cast<float>(n); });
               },
               {"a", "x", "y"});
}

TEST(SplitTasks, EachTopLevelParallelLoopIsATask) {
  std::vector<Task> tasks = split_into_tasks(two_loops()).tasks;
  ASSERT_EQ(tasks.size(), 3u); // the declaration of n, then two loops
  EXPECT_EQ(tasks[0].kind, TaskKind::Serial);
  EXPECT_EQ(tasks[1].kind, TaskKind::Parallel);
  EXPECT_EQ(tasks[2].name, "two_task2");
  // n was substituted by its value in the launch domain, and re-declared where it is read.
  EXPECT_EQ(to_string(tasks[1].domain[0], two_loops().params), "x.shape[0]");
  EXPECT_NE(to_string(tasks[2].body).find("var n: i64"), std::string::npos);
}

TEST(SplitTasks, RejectsTopLevelVariableChangedBetweenLaunches) {
  auto k = trace("bad", [](Array<float> x) {
    loom::Var<float> s = 1.0f;
    s = 2.0f;
    parallel_for(x.size(), [&](Index i) { x[i] = s; });
  });
  try {
    split_into_tasks(k);
    FAIL();
  } catch (const VerifyError &e) {
    EXPECT_NE(std::string(e.what()).find("is assigned after its declaration"), std::string::npos);
  }
}

TEST(SplitTasks, RedeclaresTheVariablesAnInitialValueReads) {
  // The loop reads only m, but m's initial value reads n: both must reach the loop's task.
  auto k = trace("chain", [](Array<float> x) {
    loom::Var<int64_t> n("n", x.size());
    loom::Var<int64_t> m("m", n - 1);
    parallel_for(x.size(), [&](Index i) { x[i] = cast<float>(m); });
  });
  std::vector<Task> tasks = split_into_tasks(k).tasks;
  ASSERT_EQ(tasks.size(), 2u);
  std::string text = to_string(tasks[1].body, k.params);
  EXPECT_NE(text.find("var n: i64"), std::string::npos) << text;
  EXPECT_LT(text.find("var n: i64"), text.find("var m: i64")) << text;
  EXPECT_NO_THROW(lower(k, Target::CPU));
}

TEST(SplitTasks, RejectsDomainThatReadsArrays) {
  auto k = trace("bad", [](Array<int64_t> n, Array<float> x) {
    parallel_for(n[0], [&](Index i) { x[i] = 1.0f; });
  });
  EXPECT_THROW(split_into_tasks(k), VerifyError);
}

TEST(MapParallelLoops, GpuPutsInnermostIndexOnThreadIdxX) {
  auto k = trace("copy2",
                 [](Array2<float> a, Array2<float> b) {
                   parallel_for({b.dim(0), b.dim(1)}, [&](Index i, Index j) { b(i, j) = a(i, j); });
                 },
                 {"a", "b"});
  LoweredKernel l = lower(k, Target::GPU);
  std::string text = to_string(l);
  EXPECT_NE(text.find("for j in i64(blockIdx.x) * i64(blockDim.x) + i64(threadIdx.x) .. b.shape[1] "
                      "step i64(blockDim.x) * i64(gridDim.x)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("for i in i64(blockIdx.y)"), std::string::npos) << text;
  // The outer loop encloses the inner one.
  EXPECT_LT(text.find("for i in"), text.find("for j in"));
}

// A 3-D grid-stride nest walks its outermost dimension innermost, so that a thread walking a short
// one (one block along z) computes what depends on y and x once; its index is still on z.
TEST(MapParallelLoops, GpuWalksTheOutermostDimensionOfThreeInnermost) {
  auto k = trace("copy3",
                 [](Array3<float> a, Array3<float> b) {
                   parallel_for({b.dim(0), b.dim(1), b.dim(2)},
                                [&](Index i, Index j, Index l) { b(i, j, l) = a(i, j, l); });
                 },
                 {"a", "b"});
  const std::string text = to_string(lower(k, Target::GPU));
  EXPECT_NE(text.find("for i in i64(blockIdx.z) * i64(blockDim.z) + i64(threadIdx.z) .. "
                      "b.shape[0] step i64(blockDim.z) * i64(gridDim.z)"),
            std::string::npos)
      << text;
  EXPECT_LT(text.find("for j in i64(blockIdx.y)"), text.find("for k in i64(blockIdx.x)")) << text;
  EXPECT_LT(text.find("for k in i64(blockIdx.x)"), text.find("for i in i64(blockIdx.z)")) << text;
  // Two dimensions keep their order.
  auto k2 =
      trace("copy2",
            [](Array2<float> a, Array2<float> b) {
              parallel_for({b.dim(0), b.dim(1)}, [&](Index i, Index j) { b(i, j) = a(i, j); });
            },
            {"a", "b"});
  const std::string text2 = to_string(lower(k2, Target::GPU));
  EXPECT_LT(text2.find("for i in"), text2.find("for j in")) << text2;
}

TEST(MapParallelLoops, CpuChunksTheOutermostDimension) {
  auto k = trace("copy2",
                 [](Array2<float> a, Array2<float> b) {
                   parallel_for({b.dim(0), b.dim(1)}, [&](Index i, Index j) { b(i, j) = a(i, j); });
                 },
                 {"a", "b"});
  LoweredKernel l = lower(k, Target::CPU);
  ASSERT_EQ(l.tasks.size(), 1u);
  ASSERT_TRUE(l.tasks[0].chunk_begin);
  std::string text = to_string(l);
  EXPECT_NE(text.find("for i in chunk_begin .. chunk_end {"), std::string::npos) << text;
  EXPECT_NE(text.find("for j in 0 .. b.shape[1] {"), std::string::npos) << text;
}

// A 1-D reduction loop on the GPU: each thread takes runs of 32 bytes of its widest array (8 f32,
// 4 f64) in a grid-stride loop over the runs, then the remainder one per thread.
TEST(MapParallelLoops, GpuReductionTakesRunsOfConsecutiveIterations) {
  auto f32_sum = trace("sum",
                       [](Array<float> x, Array<float> total) {
                         parallel_for(x.size(), [&](Index i) { total[0] += x[i]; });
                       },
                       {"x", "total"});
  LoweredKernel lowered = lower(f32_sum, Target::GPU);
  EXPECT_EQ(lowered.tasks.at(0).run, 8); // what explain() reports
  std::string text = to_string(lowered);
  EXPECT_NE(text.find("for i_run in i64(blockIdx.x) * i64(blockDim.x) + i64(threadIdx.x) .. "
                      "x.shape[0] / 8 step i64(blockDim.x) * i64(gridDim.x)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("for i_in_run in 0 .. 8 {"), std::string::npos) << text;
  EXPECT_NE(text.find("var i: i64 = i_run * 8 + i_in_run"), std::string::npos) << text;
  EXPECT_NE(text.find("for i in x.shape[0] / 8 * 8 + "), std::string::npos) << text;

  auto f64_dot =
      trace("dot",
            [](Array<float> x, Array<double> y, Array<double> total) {
              parallel_for(x.size(), [&](Index i) { total[0] += cast<double>(x[i]) * y[i]; });
            },
            {"x", "y", "total"});
  text = to_string(lower(f64_dot, Target::GPU));
  EXPECT_NE(text.find("for i_in_run in 0 .. 4 {"), std::string::npos) << text;
  // The CPU keeps its chunks.
  EXPECT_EQ(to_string(lower(f32_sum, Target::CPU)).find("_run"), std::string::npos);
}

// Runs only where they make neighbouring loads: an index other than [i], a 2-D array or an inner
// loop keeps one iteration per thread and step. A loop without a reduction takes runs of 16
// bytes (4 f32), half a reduction's.
TEST(MapParallelLoops, RunsOnlyWhereLoadsAreNeighbours) {
  std::vector<ir::Kernel> kernels = {
      trace("strided",
            [](Array<float> x, Array<float> total) {
              parallel_for(x.size() / 2, [&](Index i) { total[0] += x[2 * i]; });
            }),
      trace("rows",
            [](Array2<float> a, Array<float> total) {
              parallel_for(a.dim(0), [&](Index i) { total[0] += a(i, 0); });
            }),
      trace("inner", [](Array2<float> a, Array<float> total) {
        parallel_for(a.dim(0),
                     [&](Index i) { for_range(a.dim(1), [&](Index j) { total[0] += a(i, j); }); });
      })};
  for (const ir::Kernel &k : kernels) {
    LoweredKernel lowered = lower(k, Target::GPU);
    EXPECT_EQ(lowered.tasks.at(0).run, 1);
    std::string text = to_string(lowered);
    EXPECT_EQ(text.find("_run"), std::string::npos) << text;
    EXPECT_NE(text.find("step i64(blockDim.x) * i64(gridDim.x)"), std::string::npos) << text;
  }
  auto copy = trace("copy", [](Array<float> x, Array<double> y) {
    parallel_for(x.size(), [&](Index i) { y[i] = cast<double>(x[i]); });
  });
  LoweredKernel lowered = lower(copy, Target::GPU);
  EXPECT_EQ(lowered.tasks.at(0).run, 2) << to_string(lowered); // 16 bytes of f64
}

TEST(Lower, LogsEveryPassInOrder) {
  std::vector<std::string> passes;
  lower(two_loops(), Target::GPU,
        [&](const std::string &p, const std::string &) { passes.push_back(p); });
  EXPECT_EQ(passes, (std::vector<std::string>{"input", "split_into_tasks", "lower_reductions",
                                              "map_parallel_loops", "simplify"}));
}

TEST(Simplify, FoldsWithLoomIntegerSemantics) {
  auto c = [](int64_t v) { return IntConst::make(ScalarType::I32, v); };
  auto fold = [&](BinaryOp op, int64_t a, int64_t b) {
    return simplify(Binary::make(op, c(a), c(b))).as<IntConst>()->value;
  };
  EXPECT_EQ(fold(BinaryOp::Div, 7, 0), 0);
  EXPECT_EQ(fold(BinaryOp::Mod, 7, 0), 7);
  EXPECT_EQ(fold(BinaryOp::Div, -7, 2), -3);
  EXPECT_EQ(fold(BinaryOp::Mod, -7, 2), -1);
  EXPECT_EQ(fold(BinaryOp::Div, INT32_MIN, -1), INT32_MIN);
  EXPECT_EQ(fold(BinaryOp::Add, INT32_MAX, 1), INT32_MIN);
  ir::Var x = make_var("x", ScalarType::I32);
  Expr e = Binary::make(BinaryOp::Add, Binary::make(BinaryOp::Mul, VarRef::make(x), c(1)), c(0));
  EXPECT_EQ(to_string(simplify(e)), "x");
}

TEST(AccessSummary, TellsReadWrittenAndWhollyOverwritten) {
  auto k = trace("mm", [](Array2<float> A, Array2<float> B, Array2<float> C, Array<float> unused,
                          Array<float> partial) {
    parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
      loom::Var<float> acc = 0.0f;
      for_range(A.dim(1), [&](Index k) { acc += A(i, k) * B(k, j); });
      C(i, j) = acc;
    });
    parallel_for(4, [&](Index i) { partial[i] = 1.0f; });
  });
  std::vector<ArrayAccess> a = summarize_accesses(k);
  EXPECT_TRUE(a[0].read && !a[0].written);
  EXPECT_TRUE(a[2].written && !a[2].read && a[2].fully_overwritten);
  EXPECT_FALSE(a[3].read || a[3].written);
  // Written over a domain that is not its own shape: the rest must be preserved.
  EXPECT_TRUE(a[4].written && !a[4].fully_overwritten);
}

TEST(AccessSummary, ConditionalStoreIsNotAWholeOverwrite) {
  auto k = trace("cond", [](Array<float> x, Array<float> y) {
    parallel_for(y.size(), [&](Index i) { if_(x[i] > 0.0f, [&] { y[i] = x[i]; }); });
  });
  EXPECT_FALSE(summarize_accesses(k)[1].fully_overwritten);
}

TEST(Evaluate, ComputesDomainsFromArguments) {
  auto k = trace("e", [](I32 n, Array2<float> a) {
    parallel_for((a.dim(0) * a.dim(1) + n) / 2, [&](Index i) { a(0, i) = 1.0f; });
  });
  ArgumentValues args;
  args.scalars.resize(2);
  args.scalars[0].i = 5;
  args.extents = {{}, {3, 7}};
  Expr domain = split_into_tasks(k).tasks[0].domain[0];
  EXPECT_EQ(evaluate(domain, k.params, args).i, 13);
}

} // namespace
