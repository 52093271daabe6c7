// Local arrays (loom::local_array, the text DSL's local.array): an array private to each parallel
// iteration or SIMT thread, on both targets and in the IR interpreter. Float results are checked
// against references computed in double with the stated tolerance; integer ones exactly.
#include "support/TestUtil.h"

#include "frontend/text/Compile.h"
#include "ir/Interpreter.h"
#include "ir/Lower.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace loom;
using loomtest::random_vector;

namespace {

class LocalArrays : public loomtest::TargetTest {};

// PolyBench's doitgen: each (r, q) iteration computes a row of sums into its own scratch, then
// copies it back over the row it read. Iterations that shared the scratch would mix rows.
Kernel doitgen_kernel() {
  return kernel("doitgen",
                [](Array3<double> A, Array2<double> C4) {
                  parallel_for({A.dim(0), A.dim(1)}, [&](Index r, Index q) {
                    auto sum = local_array<double>(64);
                    for_range(A.dim(2), [&](Index p) {
                      Var<double> acc("acc", 0.0);
                      for_range(A.dim(2), [&](Index s) { acc += A(r, q, s) * C4(s, p); });
                      sum[p] = acc;
                    });
                    for_range(A.dim(2), [&](Index p) { A(r, q, p) = sum[p]; });
                  });
                },
                {"A", "C4"});
}

// The reference in double, from the same inputs: A[r, q, :] = A[r, q, :] * C4.
std::vector<double> doitgen_reference(std::vector<double> A, const std::vector<double> &C4,
                                      int64_t R, int64_t Q, int64_t P) {
  std::vector<double> row(static_cast<size_t>(P));
  for (int64_t r = 0; r < R; ++r)
    for (int64_t q = 0; q < Q; ++q) {
      for (int64_t p = 0; p < P; ++p) {
        double acc = 0;
        for (int64_t s = 0; s < P; ++s)
          acc += A[(r * Q + q) * P + s] * C4[s * P + p];
        row[p] = acc;
      }
      std::copy(row.begin(), row.end(), A.begin() + (r * Q + q) * P);
    }
  return A;
}

TEST_P(LocalArrays, DoitgenScratchPerIteration) {
  Kernel k = doitgen_kernel();
  prepare(k);
  const int64_t R = 13, Q = 11, P = 40;
  std::vector<double> A = random_vector<double>(R * Q * P, -1, 1, 5);
  std::vector<double> C4 = random_vector<double>(P * P, -1, 1, 6);
  std::vector<double> want = doitgen_reference(A, C4, R, Q, P);
  k(view(A, {R, Q, P}), view(C4, {P, P}));
  // Each element is a sum of 40 products of terms in [-1, 1]; the order of the additions is the
  // reference's, so only fma contraction (GPU) moves the result: 1e-13 absolute is far wider.
  for (size_t e = 0; e < A.size(); ++e)
    ASSERT_NEAR(A[e], want[e], 1e-13) << e;
}

// A 2x2 local array indexed with constants only: promoted to registers (tests/golden checks
// the PTX holds no local memory); its value here.
TEST_P(LocalArrays, ConstantIndicesTwoDimensions) {
  auto k = kernel("det2",
                  [](Array<float> x, Array<float> y) {
                    parallel_for(x.size(), [&](Index i) {
                      auto m = local_array<float>(2, 2);
                      m(0, 0) = x[i];
                      m(0, 1) = x[i] * 2.0f;
                      m(1, 0) = x[i] + 1.0f;
                      m(1, 1) = x[i] - 3.0f;
                      y[i] = m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0);
                    });
                  },
                  {"x", "y"});
  prepare(k);
  const size_t n = 4099;
  std::vector<float> x = random_vector<float>(n, -10, 10, 7), y(n, 0.0f);
  k(x, y);
  for (size_t i = 0; i < n; ++i) {
    double a = x[i], want = a * (a - 3.0) - (a * 2.0) * (a + 1.0);
    // Two f32 products and a difference of values below 300: a few ulps of 300.
    ASSERT_NEAR(y[i], want, 1e-3) << i;
  }
}

// Each SIMT thread sorts its own eight values in a local array (insertion sort: indices that
// depend on the data, so the array is in memory, not registers).
TEST_P(LocalArrays, SimtThreadSortsItsOwnValues) {
  auto k = simt_kernel("sort8",
                       [](Array<int32_t> x, Array<int32_t> y) {
                         Index t = grid<1>();
                         if_(t * 8 < x.size(), [&] {
                           auto v = local_array<int32_t>(8);
                           for_range(8, [&](Index j) { v[j] = x[t * 8 + j]; });
                           for_range(1, 8, [&](Index j) {
                             Var<int32_t> key("key", v[j]);
                             Var<int64_t> m("m", j - 1);
                             while_([&] { return m >= 0 && v[max(m, Index(0))] > key; },
                                    [&] {
                                      v[m + 1] = v[m];
                                      m -= 1;
                                    });
                             v[m + 1] = key;
                           });
                           for_range(8, [&](Index j) { y[t * 8 + j] = v[j]; });
                         });
                       },
                       {"x", "y"});
  prepare(k);
  const int64_t groups = 1000;
  std::vector<int32_t> x = random_vector<int32_t>(groups * 8, -1000, 1000, 8), y(x.size(), 0);
  k.shape(unsigned((groups + 127) / 128), 128u)(x, y);
  std::vector<int32_t> want = x;
  for (int64_t g = 0; g < groups; ++g)
    std::sort(want.begin() + g * 8, want.begin() + g * 8 + 8);
  EXPECT_EQ(y, want);
}

// The same kernel from the text DSL.
const char *text_source = R"(
@kernel
def doitgen(A: f64[R, Q, P], C4: f64[P, P]):
    for r, q in parallel(R, Q):
        sum = local.array(64, f64)
        for p in range(P):
            acc = 0.0
            for s in range(P):
                acc += A[r, q, s] * C4[s, p]
            sum[p] = acc
        for p in range(P):
            A[r, q, p] = sum[p]
)";

TEST_P(LocalArrays, TextDoitgen) {
  Kernel k = compile(text_source)["doitgen"];
  prepare(k);
  const int64_t R = 5, Q = 17, P = 64;
  std::vector<double> A = random_vector<double>(R * Q * P, -1, 1, 9);
  std::vector<double> C4 = random_vector<double>(P * P, -1, 1, 10);
  std::vector<double> want = doitgen_reference(A, C4, R, Q, P);
  k(view(A, {R, Q, P}), view(C4, {P, P}));
  for (size_t e = 0; e < A.size(); ++e)
    ASSERT_NEAR(A[e], want[e], 1e-13) << e;
}

// Under bounds_check an index past a local array's extent is a BoundsError naming it.
TEST_P(LocalArrays, BoundsCheckNamesTheLocalArray) {
  auto k = kernel("overrun",
                  [](Array<float> x, I64 n) {
                    parallel_for(x.size(), [&](Index i) {
                      auto t = local_array<float>(4);
                      for_range(n, [&](Index j) { t[j] = x[i]; });
                      x[i] = t[0];
                    });
                  },
                  {"x", "n"});
  prepare(k);
  k.bounds_check();
  std::vector<float> x = random_vector<float>(100, -1, 1, 11);
  k(x, int64_t(4)); // in bounds
  try {
    k(x, int64_t(5));
    FAIL() << "expected a BoundsError";
  } catch (const BoundsError &e) {
    EXPECT_EQ(e.array(), "local0 (local)");
    EXPECT_EQ(e.index(), 4);
    EXPECT_EQ(e.extent(), 4);
  }
}

LOOM_INSTANTIATE_TARGETS(LocalArrays);

// ---- the interpreter ----------------------------------------------------------------------

ir::Buffer buffer(const std::vector<double> &v, std::vector<int64_t> shape) {
  ir::Buffer b(ir::ScalarType::F64, std::move(shape));
  std::memcpy(b.data(), v.data(), v.size() * sizeof(double));
  return b;
}

TEST(LocalArraysInterpreter, DoitgenBothFrontEnds) {
  const int64_t R = 3, Q = 4, P = 9;
  std::vector<double> A = random_vector<double>(R * Q * P, -1, 1, 12);
  std::vector<double> C4 = random_vector<double>(P * P, -1, 1, 13);
  std::vector<double> want = doitgen_reference(A, C4, R, Q, P);
  for (const ir::Kernel &kernel : {doitgen_kernel().ir(), compile(text_source)["doitgen"].ir()}) {
    std::vector<ir::InterpreterArg> args{ir::InterpreterArg::of_array(buffer(A, {R, Q, P})),
                                         ir::InterpreterArg::of_array(buffer(C4, {P, P}))};
    ir::interpret(kernel, args);
    for (size_t e = 0; e < A.size(); ++e)
      ASSERT_NEAR(args[0].array.get(static_cast<int64_t>(e)).f, want[e], 1e-13) << e;
  }
}

// Every iteration starts with a fresh local array: reading an element the iteration has not
// written is refused, even when an earlier iteration wrote it.
TEST(LocalArraysInterpreter, ReadBeforeWriteIsAnError) {
  auto k = kernel("stale",
                  [](Array<double> x) {
                    parallel_for(x.size(), [&](Index i) {
                      auto t = local_array<double>(2);
                      if_(i == 0, [&] { t[1] = 1.0; });
                      x[i] = t[1];
                    });
                  },
                  {"x"});
  std::vector<ir::InterpreterArg> args{
      ir::InterpreterArg::of_array(buffer(std::vector<double>(3, 0.5), {3}))};
  try {
    ir::interpret(k.ir(), args);
    FAIL() << "expected an InterpreterError";
  } catch (const InterpreterError &e) {
    EXPECT_NE(std::string(e.what()).find("reads element 1 of local array 'local0' before the "
                                         "iteration wrote it"),
              std::string::npos)
        << e.what();
  }
}

// ---- bad input ----------------------------------------------------------------------------

TEST(LocalArraysErrors, OutsideAParallelLoop) {
  try {
    trace("outside", [](Array<float> x) {
      auto t = local_array<float>(4);
      parallel_for(x.size(), [&](Index i) { x[i] = t[0]; });
    });
    FAIL() << "expected a DslError";
  } catch (const DslError &e) {
    EXPECT_NE(std::string(e.what()).find("local_array() outside a parallel_for body"),
              std::string::npos)
        << e.what();
  }
}

TEST(LocalArraysErrors, UsedInAnotherParallelLoop) {
  try {
    trace("escapes", [](Array<float> x) {
      std::optional<LocalArray<float, 1>> kept;
      parallel_for(x.size(), [&](Index i) {
        kept.emplace(local_array<float>(4));
        (*kept)[0] = x[i];
      });
      parallel_for(x.size(), [&](Index i) { x[i] = (*kept)[0]; });
    });
    FAIL() << "expected a DslError";
  } catch (const DslError &e) {
    EXPECT_NE(std::string(e.what()).find("is used outside the parallel_for body that declares it"),
              std::string::npos)
        << e.what();
  }
}

TEST(LocalArraysErrors, TooLarge) {
  try {
    trace("huge", [](Array<double> x) {
      parallel_for(x.size(), [&](Index i) {
        auto t = local_array<double>(100, 100);
        t(0, 0) = x[i];
      });
    });
    FAIL() << "expected a DslError";
  } catch (const DslError &e) {
    EXPECT_NE(std::string(e.what()).find("a local array takes at most 65536 bytes"),
              std::string::npos)
        << e.what();
  }
}

// The tile schedule interleaves iterations and block_per_iteration spreads one over threads:
// both refuse a kernel with a local array, saying why.
TEST(LocalArraysErrors, SchedulesThatShareAnIteration) {
  ir::Kernel traced = trace("tiled", [](Array2<float> A, Array2<float> C) {
    parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
      auto t = local_array<float>(2);
      t[0] = A(i, j);
      t[1] = A(j, i);
      C(i, j) = t[0] + t[1];
    });
  });
  ir::Kernel tiled = traced, blocks = traced;
  tiled.schedule = ir::with_tile(tiled.schedule, {8, 8, 2, 4, 4});
  blocks.schedule = ir::with_block_per_iteration(blocks.schedule, 64);
  for (const ir::Kernel &k : {tiled, blocks}) {
    try {
      ir::lower(k, ir::Target::GPU);
      FAIL() << "expected a CompileError";
    } catch (const CompileError &e) {
      EXPECT_NE(std::string(e.what()).find("uses local array 'local0', which"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_NO_THROW(ir::lower(blocks, ir::Target::CPU)); // block_per_iteration is GPU-only
}

} // namespace
