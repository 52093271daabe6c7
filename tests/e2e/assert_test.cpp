// Assertions in kernels (loom::check, the text DSL's assert): a failed one throws
// KernelAssertionError naming the kernel, the source line, the message and the first failing
// iteration's indices, with the count of failures; it ends its iteration (the statements after it
// do not run); asserts(false), @kernel(asserts=False) and LOOM_ASSERTS=0 compile them out; the
// target stays usable after one. The same on both targets and in the interpreter.
#include "support/TestUtil.h"

#include "ir/Interpreter.h"
#include "ir/Lower.h"
#include "ir/Printer.h"
#include "ir/Semantics.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <set>

using namespace loom;

namespace {

class Asserts : public loomtest::TargetTest {};

int gather_line = 0;

// y[i] = x[idx[i]], asserting that idx[i] is an index of x first.
Kernel gather_kernel() {
  return kernel("gather",
                [](Array<int32_t> idx, Array<float> x, Array<float> y) {
                  parallel_for(y.size(), [&](Index i) {
                    gather_line = __LINE__ + 1;
                    check(cast<int64_t>(idx[i]) < x.size(), "idx holds indices of x");
                    y[i] = x[idx[i]];
                  });
                },
                {"idx", "x", "y"});
}

TEST_P(Asserts, FailureNamesSiteIndexAndCount) {
  Kernel k = gather_kernel();
  prepare(k);
  const int64_t n = 1000, m = 64;
  std::vector<float> x = loomtest::random_vector<float>(m, -1, 1, 11);
  std::vector<int32_t> idx(n);
  for (int64_t i = 0; i < n; ++i)
    idx[i] = static_cast<int32_t>((i * 7919) % m);
  const std::set<int64_t> bad = {17, 400, 999};
  for (int64_t i : bad)
    idx[i] = static_cast<int32_t>(m + 1000000 * i); // far out of x
  std::vector<float> y(n, -5.0f);
  try {
    k(idx, x, y);
    FAIL() << "no KernelAssertionError";
  } catch (const KernelAssertionError &e) {
    EXPECT_EQ(e.kernel(), "gather");
    EXPECT_EQ(e.message(), "idx holds indices of x");
    EXPECT_EQ(e.file(), __FILE__);
    EXPECT_EQ(e.line(), gather_line);
    EXPECT_EQ(e.failures(), bad.size());
    ASSERT_EQ(e.indices().size(), 1u);
    EXPECT_EQ(e.indices()[0].first, "i");
    EXPECT_TRUE(bad.count(e.indices()[0].second)) << e.indices()[0].second;
    EXPECT_NE(std::string(e.what()).find("assertion failed at "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("; 3 failures"), std::string::npos) << e.what();
  }
  // The target carries on: the same kernel, valid indices.
  for (int64_t i : bad)
    idx[i] = static_cast<int32_t>(i % m);
  k(idx, x, y);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(y[i], x[idx[i]]) << i;
}

// The statements after a failed assertion do not run: on the CPU, whose arrays are written in
// place, the failing iterations leave y as it was. In a sequential loop the failure also ends
// the loop and what follows it.
TEST_P(Asserts, FailureEndsTheIteration) {
  auto k = kernel("row_sums",
                  [](Array2<double> a, Array<double> out) {
                    parallel_for(out.size(), [&](Index i) {
                      Var<double> s("s", 0.0);
                      for_range(0, a.dim(1), [&](Index j) {
                        check(a(i, j) >= 0.0, "no negative entries");
                        s += a(i, j);
                      });
                      out[i] = s;
                    });
                  },
                  {"a", "out"});
  prepare(k);
  const int64_t rows = 40, cols = 33;
  std::vector<double> a = loomtest::random_vector<double>(rows * cols, 0, 1, 12);
  const std::set<int64_t> bad_rows = {3, 4, 30};
  for (int64_t r : bad_rows) {
    a[r * cols + 5] = -1;
    a[r * cols + 20] = -2; // a second failure in the row is never reached
  }
  std::vector<double> out(rows, 123.0);
  try {
    k(view(a, {rows, cols}), out);
    FAIL() << "no KernelAssertionError";
  } catch (const KernelAssertionError &e) {
    EXPECT_EQ(e.failures(), bad_rows.size());
    EXPECT_TRUE(bad_rows.count(e.indices().at(0).second));
  }
  if (target() == ir::Target::CPU)
    for (int64_t r = 0; r < rows; ++r) {
      double want = 0;
      for (int64_t c = 0; c < cols; ++c)
        want += a[r * cols + c];
      EXPECT_EQ(out[r], bad_rows.count(r) ? 123.0 : want) << r;
    }
}

TEST_P(Asserts, CompiledOut) {
  auto make = [] {
    return kernel("nonneg",
                  [](Array<float> x, Array<float> y) {
                    parallel_for(x.size(), [&](Index i) {
                      check(x[i] >= 0.0f);
                      y[i] = 2.0f * x[i];
                    });
                  },
                  {"x", "y"});
  };
  std::vector<float> x = loomtest::random_vector<float>(500, -1, 1, 13);
  std::vector<float> y(500);
  Kernel on = make();
  prepare(on);
  EXPECT_THROW(on(x, y), KernelAssertionError);
  EXPECT_NE(on.explain().find("assertions: 1 checked"), std::string::npos) << on.explain();
  Kernel off = make();
  off.asserts(false);
  prepare(off);
  off(x, y);
  EXPECT_NE(off.explain().find("assertions: 1 compiled out"), std::string::npos) << off.explain();
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_EQ(y[i], 2.0f * x[i]);
  on.asserts(false); // compiles again
  on(x, y);
  setenv("LOOM_ASSERTS", "0", 1);
  Kernel env = make();
  unsetenv("LOOM_ASSERTS");
  prepare(env);
  EXPECT_NO_THROW(env(x, y));
  EXPECT_THROW(on.asserts(true)(x, y), KernelAssertionError);
}

// The text DSL: the message defaults to the condition's text; a range's index is the one the
// body sees; the line is the assert's.
TEST_P(Asserts, TextDsl) {
  Module m = compile(R"(
@kernel
def scale(w: f64[n, k], out: f64[n, k]):
    for i, j in parallel((1, n), k):
        assert w[i, j] > 0.0  # weights are positive
        out[i, j] = math.log(w[i, j])

@kernel(asserts=False)
def unchecked(w: f64[n], out: f64[n]):
    for i in parallel(n):
        assert w[i] > 0.0, "never checked"
        out[i] = w[i]
)",
                     "weights.loom");
  Kernel &k = m["scale"];
  prepare(k);
  const int64_t n = 20, kk = 7;
  std::vector<double> w = loomtest::random_vector<double>(n * kk, 0.5, 2, 14);
  w[9 * kk + 4] = -1;
  std::vector<double> out(n * kk, 0);
  try {
    k(view(w, {n, kk}), view(out, {n, kk}));
    FAIL() << "no KernelAssertionError";
  } catch (const KernelAssertionError &e) {
    EXPECT_EQ(e.file(), "weights.loom");
    EXPECT_EQ(e.line(), 5);
    EXPECT_EQ(e.message(), "w[i, j] > 0.0");
    EXPECT_EQ(e.failures(), 1u);
    ASSERT_EQ(e.indices().size(), 2u);
    EXPECT_EQ(e.indices()[0], (std::pair<std::string, int64_t>("i", 9)));
    EXPECT_EQ(e.indices()[1], (std::pair<std::string, int64_t>("j", 4)));
    EXPECT_EQ(std::string(e.what()), "kernel 'scale': assertion failed at weights.loom:5: "
                                     "w[i, j] > 0.0 (i=9, j=4); 1 failure");
  }
  // Row 0 is outside parallel(1, n): its -1 is never looked at.
  w[9 * kk + 4] = 1;
  w[2] = -1;
  k(view(w, {n, kk}), view(out, {n, kk}));
  EXPECT_EQ(out[kk + 3], std::log(w[kk + 3]));
  Kernel &u = m["unchecked"];
  prepare(u);
  std::vector<double> v = {-1, 2};
  std::vector<double> o(2);
  u(v, o);
  EXPECT_EQ(o[0], -1);
}

// A SIMT kernel's assertion names the thread; the thread carries on past it.
TEST_P(Asserts, SimtThread) {
  Module m = compile(R"(
@kernel(simt=True)
def check_grid(x: i32[n], seen: i32[n]):
    i = grid(1)
    if i < n:
        assert x[i] != 13, "no thirteen"
        seen[i] = 1
)");
  Kernel &k = m["check_grid"];
  prepare(k);
  std::vector<int32_t> x(256), seen(256, 0);
  for (int i = 0; i < 256; ++i)
    x[i] = i % 100;
  x[77] = 13;
  x[200] = 13;
  x[13] = 0;
  try {
    k.shape(4, 64)(x, seen);
    FAIL() << "no KernelAssertionError";
  } catch (const KernelAssertionError &e) {
    EXPECT_EQ(e.failures(), 4u); // 77, 113, 200 and 213
    ASSERT_EQ(e.indices().size(), 6u);
    EXPECT_EQ(e.indices()[0].first, "blockIdx.x");
    EXPECT_EQ(e.indices()[3].first, "threadIdx.x");
    const int64_t i = e.indices()[0].second * 64 + e.indices()[3].second;
    EXPECT_TRUE(i == 77 || i == 113 || i == 200 || i == 213) << i;
  }
  if (target() == ir::Target::CPU)
    for (int i = 0; i < 256; ++i)
      ASSERT_EQ(seen[i], 1) << i;
}

// Assertions beside bounds checks: each reports its own error.
TEST_P(Asserts, WithBoundsChecks) {
  auto k = kernel("both",
                  [](Array<float> x, Array<int32_t> idx, Array<float> y) {
                    parallel_for(y.size(), [&](Index i) {
                      check(x[i] < 100.0f, "small");
                      y[i] = x[idx[i]];
                    });
                  },
                  {"x", "idx", "y"});
  k.bounds_check();
  prepare(k);
  std::vector<float> x = loomtest::random_vector<float>(64, 0, 1, 15);
  std::vector<int32_t> idx(64, 3);
  std::vector<float> y(64);
  x[5] = 1000;
  EXPECT_THROW(k(x, idx, y), KernelAssertionError);
  x[5] = 0;
  idx[9] = 64;
  EXPECT_THROW(k(x, idx, y), BoundsError);
  idx[9] = 0;
  k(x, idx, y);
  EXPECT_EQ(y[9], x[0]);
}

LOOM_INSTANTIATE_TARGETS(Asserts);

// The interpreter reports the same failure and count, in iteration order the first.
TEST(AssertsInterpreter, SameFailureAsCompiledCode) {
  Kernel k = gather_kernel();
  const int64_t n = 100, m = 10;
  ir::Buffer bidx(ir::ScalarType::I32, {n}), bx(ir::ScalarType::F32, {m}),
      by(ir::ScalarType::F32, {n});
  for (int64_t i = 0; i < n; ++i)
    static_cast<int32_t *>(bidx.data())[i] = static_cast<int32_t>(i % m);
  static_cast<int32_t *>(bidx.data())[42] = 10;
  static_cast<int32_t *>(bidx.data())[61] = 99;
  std::vector<ir::InterpreterArg> args{ir::InterpreterArg::of_array(bidx),
                                       ir::InterpreterArg::of_array(bx),
                                       ir::InterpreterArg::of_array(by)};
  try {
    ir::interpret(k.ir(), args);
    FAIL() << "no KernelAssertionError";
  } catch (const KernelAssertionError &e) {
    EXPECT_EQ(e.failures(), 2u);
    EXPECT_EQ(e.indices().at(0), (std::pair<std::string, int64_t>("i", 42)));
    EXPECT_EQ(e.line(), gather_line);
  }
}

// On the GPU a thread's run of consecutive iterations checks their assertions first and, when all
// hold, runs the bodies without the branch (vector loads and stores); else the guarded bodies.
// Both ways give what the kernel means: the lowered GPU code, interpreted, fails where the kernel
// does and leaves the failing iterations' elements alone.
TEST(AssertsInterpreter, GpuRunsCheckTheirAssertionsFirst) {
  Kernel k = kernel("checked_saxpy",
                    [](F32 a, Array<float> x, Array<float> y) {
                      parallel_for(x.size(), [&](Index i) {
                        check(abs(x[i]) <= 3.0e38f, "x is finite");
                        y[i] = a * x[i] + y[i];
                      });
                    },
                    {"a", "x", "y"});
  ir::LoweredKernel gpu = ir::lower(k.ir(), ir::Target::GPU);
  ASSERT_EQ(gpu.tasks.at(0).run, 4);
  EXPECT_NE(ir::to_string(gpu).find("if all_hold {"), std::string::npos) << ir::to_string(gpu);
  const int64_t n = 1003; // runs of 4, and 3 iterations after them
  std::vector<float> x = loomtest::random_vector<float>(n, -1, 1, 21);
  std::vector<float> y0 = loomtest::random_vector<float>(n, -1, 1, 22);
  const std::set<int64_t> bad = {5, 6, 400, 1001};
  for (int64_t i : bad)
    x[i] = std::numeric_limits<float>::infinity();
  ir::Buffer bx(ir::ScalarType::F32, {n}), by(ir::ScalarType::F32, {n});
  std::memcpy(bx.data(), x.data(), n * sizeof(float));
  std::memcpy(by.data(), y0.data(), n * sizeof(float));
  std::vector<ir::InterpreterArg> args{
      ir::InterpreterArg::of_scalar(ir::float_value(ir::ScalarType::F32, 1.5)),
      ir::InterpreterArg::of_array(bx), ir::InterpreterArg::of_array(by)};
  ir::InterpreterOptions io;
  io.throw_on_assert = false;
  EXPECT_EQ(ir::interpret(gpu, args, io).assert_failures, bad.size());
  const float *y = static_cast<const float *>(args[2].array.data());
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(y[i], bad.count(i) ? y0[i] : 1.5f * x[i] + y0[i]) << i;
}

TEST(AssertsSettings, InvalidLoomAssertsIsAnError) {
  setenv("LOOM_ASSERTS", "maybe", 1);
  EXPECT_THROW(gather_kernel(), Error);
  unsetenv("LOOM_ASSERTS");
}

} // namespace
