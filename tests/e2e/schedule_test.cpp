// The block_per_iteration schedule: on the GPU each iteration of a 1-D parallel loop runs on a
// block whose threads split its inner loops and combine their reductions; the CPU ignores it.
// Results are checked against references computed in double (integers exactly); the GPU lowering
// is also checked on the CPU instance (its PTX assembles; the IR interpreter runs it).
#include "support/TestUtil.h"

#include "ir/Interpreter.h"
#include "ir/Lower.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace loom;
using loomtest::random_vector;

namespace {

class Schedule : public loomtest::TargetTest {};

// The softmax of each row, written as for the default mapping; the schedule makes it a block
// per row.
Kernel softmax_kernel() {
  return kernel("softmax_rows",
                [](Array2<float> x, Array2<float> y) {
                  parallel_for(x.dim(0), [&](Index i) {
                    Var<float> top("top", x(i, 0));
                    for_range(x.dim(1),
                              [&](Index j) { top = select(x(i, j) > top, x(i, j), top); });
                    Var<float> total("total", 0.0f);
                    for_range(x.dim(1), [&](Index j) {
                      Var<float> e("e", exp(x(i, j) - top));
                      y(i, j) = e;
                      total += e;
                    });
                    for_range(x.dim(1), [&](Index j) { y(i, j) = y(i, j) / total; });
                  });
                },
                {"x", "y"});
}

TEST_P(Schedule, SoftmaxOnABlockPerRow) {
  Kernel k = softmax_kernel();
  k.block_per_iteration(256);
  prepare(k);
  const int64_t n = 37, m = 1000;
  std::vector<float> x = random_vector<float>(n * m, -8, 8, 31), y(n * m, NAN);
  k(view(x, {n, m}), view(y, {n, m}));
  for (int64_t i = 0; i < n; ++i) {
    double top = -1e300, total = 0;
    for (int64_t j = 0; j < m; ++j)
      top = std::max(top, double(x[i * m + j]));
    for (int64_t j = 0; j < m; ++j)
      total += std::exp(x[i * m + j] - top);
    // f32 exponentials summed over 1000 terms in either order: within m * 2^-24 (6e-5) of the
    // total, relative.
    for (int64_t j = 0; j < m; ++j) {
      double want = std::exp(x[i * m + j] - top) / total;
      ASSERT_NEAR(y[i * m + j], want, 1e-4 * want + 1e-12) << i << "," << j;
    }
  }
  std::string lowered = k.lowered(ir::Target::GPU);
  EXPECT_NE(lowered.find("block of 256 threads per iteration"), std::string::npos) << lowered;
  EXPECT_NE(lowered.find("shfl_xor"), std::string::npos) << lowered;
  EXPECT_NE(lowered.find("barrier"), std::string::npos) << lowered;
  if (target() == ir::Target::GPU) {
    EXPECT_NE(k.explain().find("block_per_iteration"), std::string::npos) << k.explain();
  }
}

// Sums (i64, exact), minima and maxima (min/max and the select form, exact) of each row, stored
// after the loops by one thread; rows fewer than and more than the grid's blocks.
TEST_P(Schedule, RowReductionsAreExact) {
  auto k = kernel("row_stats",
                  [](Array2<int32_t> x, Array<int64_t> sums, Array<int32_t> lo, Array<float> hi) {
                    parallel_for(x.dim(0), [&](Index i) {
                      Var<int64_t> s("s", int64_t(0));
                      Var<int32_t> small("small", std::numeric_limits<int32_t>::max());
                      Var<float> big("big", -1e30f);
                      for_range(x.dim(1), [&](Index j) {
                        s += cast<int64_t>(x(i, j));
                        small = min(small, x(i, j));
                        F32 f = cast<float>(x(i, j));
                        big = select(f > big, f, big);
                      });
                      sums[i] = s;
                      lo[i] = small;
                      hi[i] = big;
                    });
                  },
                  {"x", "sums", "lo", "hi"});
  k.block_per_iteration(64);
  prepare(k);
  for (int64_t n : {3, 5000}) {
    const int64_t m = 333;
    std::vector<int32_t> x = random_vector<int32_t>(n * m, -1000000, 1000000, 33 + n);
    std::vector<int64_t> sums(n, -1);
    std::vector<int32_t> lo(n, 0);
    std::vector<float> hi(n, 0);
    k(view(x, {n, m}), sums, lo, hi);
    for (int64_t i = 0; i < n; ++i) {
      int64_t s = 0;
      int32_t small = std::numeric_limits<int32_t>::max(), big = -2000000;
      for (int64_t j = 0; j < m; ++j)
        s += x[i * m + j], small = std::min(small, x[i * m + j]), big = std::max(big, x[i * m + j]);
      ASSERT_EQ(sums[i], s) << i;
      ASSERT_EQ(lo[i], small) << i;
      ASSERT_EQ(hi[i], float(big)) << i;
    }
  }
}

// A matrix-vector product in f64 (inner loop split, the sum combined), within 1e-12 of the
// sum of magnitudes, and an element-wise inner loop (each thread its own elements).
TEST_P(Schedule, MatrixVectorAndElementwiseRows) {
  auto k = kernel("matvec",
                  [](Array2<double> A, Array<double> v, Array<double> out, Array2<double> B) {
                    parallel_for(A.dim(0), [&](Index i) {
                      Var<double> acc("acc", 0.0);
                      for_range(A.dim(1), [&](Index j) { acc += A(i, j) * v[j]; });
                      out[i] = acc;
                      for_range(A.dim(1), [&](Index j) { B(i, j) = A(i, j) * acc; });
                    });
                  },
                  {"A", "v", "out", "B"});
  k.block_per_iteration(128);
  prepare(k);
  const int64_t n = 300, m = 517;
  std::vector<double> A = random_vector<double>(n * m, -1, 1, 35),
                      v = random_vector<double>(m, -1, 1, 36);
  std::vector<double> out(n, 0), B(n * m, 0);
  k(view(A, {n, m}), v, out, view(B, {n, m}));
  for (int64_t i = 0; i < n; ++i) {
    double ref = 0, mag = 0;
    for (int64_t j = 0; j < m; ++j)
      ref += A[i * m + j] * v[j], mag += std::abs(A[i * m + j] * v[j]);
    ASSERT_NEAR(out[i], ref, 1e-13 * mag) << i;
    for (int64_t j = 0; j < m; ++j)
      ASSERT_EQ(B[i * m + j], A[i * m + j] * out[i]) << i << "," << j;
  }
}

// The IR interpreter runs the GPU lowering (blocks on fibers, as SIMT kernels) and agrees.
TEST(ScheduleInterpreter, RunsTheGpuLowering) {
  Kernel k = softmax_kernel();
  k.block_per_iteration(64);
  ir::Kernel traced = k.ir();
  traced.schedule = ir::with_block_per_iteration(traced.schedule, 64);
  ir::LoweredKernel gpu = ir::lower(traced, ir::Target::GPU);
  const int64_t n = 5, m = 150;
  std::vector<float> x = random_vector<float>(n * m, -4, 4, 37);
  ir::Buffer bx(ir::ScalarType::F32, {n, m}), by(ir::ScalarType::F32, {n, m});
  std::memcpy(bx.data(), x.data(), x.size() * sizeof(float));
  std::vector<ir::InterpreterArg> args{ir::InterpreterArg::of_array(bx),
                                       ir::InterpreterArg::of_array(by)};
  ir::InterpreterOptions options;
  options.gpu_grid = {2, 1, 1};
  ir::interpret(gpu, args, options);
  const float *y = reinterpret_cast<const float *>(args[1].array.data());
  for (int64_t i = 0; i < n; ++i) {
    double top = -1e300, total = 0;
    for (int64_t j = 0; j < m; ++j)
      top = std::max(top, double(x[i * m + j]));
    for (int64_t j = 0; j < m; ++j)
      total += std::exp(x[i * m + j] - top);
    for (int64_t j = 0; j < m; ++j)
      ASSERT_NEAR(y[i * m + j], std::exp(x[i * m + j] - top) / total, 1e-6) << i << "," << j;
  }
}

// Cases a review found: a value read before the loop that the loop then overwrites (every
// thread must read it before any writes), min over a row of NaNs (NaN, as sequentially), a sum
// of -0s (-0), and a max whose ties between +0 and -0 must give every thread the same value.
// Run through the interpreter, whose fibers switch at every barrier and warp operation.
TEST(ScheduleInterpreter, ReadsBeforeWritesAndSpecialValues) {
  auto k = kernel("row_cases",
                  [](Array2<float> x, Array<float> lo, Array<float> sum, Array<float> inv) {
                    parallel_for(x.dim(0), [&](Index i) {
                      Var<float> first("first", x(i, 0));
                      Var<float> small("small", std::numeric_limits<float>::quiet_NaN());
                      Var<float> total("total", -0.0f);
                      Var<float> top("top", -1.0f);
                      for_range(x.dim(1), [&](Index j) {
                        small = min(small, x(i, j));
                        total += x(i, j) * 0.0f - 0.0f; // -0 for every finite x
                        top = select(x(i, j) * 0.0f > top, x(i, j) * 0.0f, top);
                      });
                      lo[i] = small;
                      sum[i] = total;
                      for_range(x.dim(1), [&](Index j) { x(i, j) = x(i, j) - first + 1.0f / top; });
                      inv[i] = 1.0f / top;
                    });
                  },
                  {"x", "lo", "sum", "inv"});
  k.block_per_iteration(64);
  const int64_t n = 3, m = 200;
  std::vector<float> x = random_vector<float>(n * m, -4, 4, 41);
  for (int64_t j = 0; j < m; ++j)
    x[j] = std::numeric_limits<float>::quiet_NaN(); // row 0: all NaN
  for (int64_t j = 0; j < m; ++j)
    x[2 * m + j] = j % 2 ? -0.0f : 0.0f; // row 2: zeros of both signs
  auto buffer = [](std::vector<float> v, std::vector<int64_t> shape) {
    ir::Buffer b(ir::ScalarType::F32, shape);
    std::memcpy(b.data(), v.data(), v.size() * sizeof(float));
    return ir::InterpreterArg::of_array(b);
  };
  auto run = [&](bool lowered) {
    std::vector<ir::InterpreterArg> args{buffer(x, {n, m}), buffer(std::vector<float>(n), {n}),
                                         buffer(std::vector<float>(n), {n}),
                                         buffer(std::vector<float>(n), {n})};
    ir::InterpreterOptions options;
    options.gpu_grid = {2, 1, 1};
    if (lowered)
      ir::interpret(ir::lower(k.ir(), ir::Target::GPU), args, options);
    else
      ir::interpret(k.ir(), args, options);
    return args;
  };
  std::vector<ir::InterpreterArg> want = run(false), got = run(true);
  for (size_t a = 0; a < want.size(); ++a)
    for (int64_t e = 0; e < want[a].array.size(); ++e) {
      ir::ScalarValue w = want[a].array.get(e), g = got[a].array.get(e);
      ASSERT_TRUE(std::memcmp(&w.f, &g.f, sizeof w.f) == 0 || (std::isnan(w.f) && std::isnan(g.f)))
          << "argument " << a << " element " << e << ": sequential " << w.f << ", scheduled "
          << g.f;
    }
}

// What the schedule cannot split is a CompileError that says why (at the GPU lowering, whatever
// the target runs).
TEST(ScheduleErrors, SayWhyALoopCannotBeSplit) {
  auto expect_error = [](Kernel k, const std::string &part) {
    k.block_per_iteration(128);
    try {
      k.ptx("sm_90");
      ADD_FAILURE() << "no error for " << k.name();
    } catch (const CompileError &e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expect_error(
      kernel("two_d",
             [](Array2<float> x) {
               parallel_for({x.dim(0), x.dim(1)}, [&](Index i, Index j) { x(i, j) = 1.0f; });
             }),
      "1-D parallel loops");
  expect_error(kernel("prefix",
                      [](Array2<float> x) {
                        parallel_for(x.dim(0), [&](Index i) {
                          for_range(1, x.dim(1), [&](Index j) { x(i, j) = x(i, j - 1) + x(i, j); });
                        });
                      }),
               "other than at one element per iteration");
  expect_error(kernel("recurrence",
                      [](Array2<float> x, Array<float> out) {
                        parallel_for(x.dim(0), [&](Index i) {
                          Var<float> v("v", 0.0f);
                          for_range(x.dim(1), [&](Index j) { v = v * 0.5f + x(i, j); });
                          out[i] = v;
                        });
                      }),
               "other than as one reduction");
  expect_error(kernel("accumulate_in_memory",
                      [](Array2<float> x, Array<float> out) {
                        parallel_for(x.dim(0), [&](Index i) {
                          for_range(x.dim(1), [&](Index j) { out[i] = out[i] + x(i, j); });
                        });
                      }),
               "accumulate into a local");
  expect_error(kernel("count_and_read",
                      [](Array2<int32_t> c, Array2<int32_t> p, Array2<int32_t> seen) {
                        parallel_for(c.dim(0), [&](Index i) {
                          for_range(c.dim(1), [&](Index j) {
                            seen(i, j) = c(i, j);
                            c(i, cast<int64_t>(p(i, j))) += 1;
                          });
                        });
                      }),
               "other than at one element per iteration");
  EXPECT_THROW(softmax_kernel().block_per_iteration(100), ArgumentError);
  EXPECT_THROW(softmax_kernel().block_per_iteration(2048), ArgumentError);
}

LOOM_INSTANTIATE_TARGETS(Schedule);

} // namespace
