// Short loops run whole on the GPU (ir/ShortLoops.cpp): a sequential loop that only computes,
// whose count of steps varies but is provably at most 16, runs that many steps between constant
// bounds, the steps past its end reading its last step's elements and dropping their results.
// The GPU's lowering of lud's triangular loops has the form, and the interpreter runs it (in CI)
// to the bits of the loops in C++; on the GPU, the same results within the fma's contraction.
// Loops that do not qualify keep their form. Random inputs.
#include "support/LudDiagonal.h"
#include "support/TestUtil.h"

#include "ir/Interpreter.h"
#include "ir/Lower.h"
#include "ir/Printer.h"

#include <random>

using namespace loom;

namespace {

class ShortLoops : public loomtest::TargetTest {};

// lud's diagonal block, and a loop whose range may be empty or of one step (k from j to i).
const std::string source = loomtest::lud_diagonal_source + R"(
@kernel
def bands(x: f64[n], y: f64[m, 48]):
    for r in parallel(m):
        for i in range(8):
            for j in range(6):
                s = 0.0
                t = 1.0
                for k in range(j, i):
                    v = x[k + r % 4] * 0.5
                    s = s + v * x[k + 1]
                    t = t * v
                y[r, i * 6 + j] = s + t
)";

void bands_reference(const std::vector<double> &x, std::vector<double> &y, int64_t m) {
  for (int64_t r = 0; r < m; ++r)
    for (int64_t i = 0; i < 8; ++i)
      for (int64_t j = 0; j < 6; ++j) {
        double s = 0.0, t = 1.0;
        for (int64_t k = j; k < i; ++k) {
          double v = x[size_t(k + r % 4)] * 0.5;
          s = s + v * x[size_t(k + 1)];
          t = t * v;
        }
        y[size_t(r * 48 + i * 6 + j)] = s + t;
      }
}

std::string lowered_text(const Kernel &k, ir::Target target, bool bounds_check = false) {
  return ir::to_string(loomtest::lowered(k, target, bounds_check));
}

} // namespace

// The GPU's lowering runs the triangular loops whole (15 steps: i < 16), and the interpreter,
// running that lowering, computes the loops' bits.
TEST(ShortLoopsLowering, LudsTriangularLoopsRunWholeAndKeepTheirBits) {
  Module m = compile(source);
  const std::string gpu = lowered_text(m["diagonal"], ir::Target::GPU);
  EXPECT_NE(gpu.find("for k_step in 0 .. 15 {"), std::string::npos) << gpu;
  EXPECT_NE(gpu.find("var k: i64 = min(k_begin + k_step, k_end - 1)"), std::string::npos) << gpu;
  EXPECT_NE(gpu.find("a_element = select(k_begin + k_step < k_end, "), std::string::npos) << gpu;
  // The CPU keeps the loops (its cores do not wait on a load the way a GPU thread does), and so
  // does a kernel under bounds checks (the first bad index is reported where the program has it).
  EXPECT_EQ(lowered_text(m["diagonal"], ir::Target::CPU).find("k_step"), std::string::npos);
  EXPECT_EQ(lowered_text(m["diagonal"], ir::Target::GPU, true).find("k_step"), std::string::npos);

  const int64_t n = 48, o = 16;
  std::vector<float> a = loomtest::lud_diagonal_input(n, 20261205);
  std::vector<float> want = a;
  loomtest::lud_diagonal_reference(want, n, o);
  ir::Buffer buffer(ir::ScalarType::F32, {n, n});
  std::memcpy(buffer.data(), a.data(), a.size() * sizeof(float));
  std::vector<ir::InterpreterArg> args;
  args.push_back(ir::InterpreterArg::of_array(std::move(buffer)));
  args.push_back(ir::InterpreterArg::of_scalar(ir::int_value(ir::ScalarType::I64, o)));
  ir::interpret(ir::lower(m["diagonal"].ir(), ir::Target::GPU), args);
  std::vector<float> got(a.size());
  std::memcpy(got.data(), args[0].array.data(), got.size() * sizeof(float));
  for (size_t e = 0; e < got.size(); ++e)
    ASSERT_EQ(got[e], want[e]) << "element " << e;
}

// A range that may be empty, of one step or of up to 7 (k from j to i), two locals
// carried (a sum and a product) and one of the step's own: run whole (7 steps) by the GPU's
// lowering, the steps past the end dropping both carried values' updates.
TEST(ShortLoopsLowering, EmptyAndPartialRangesDropTheExtraSteps) {
  Module m = compile(source);
  const std::string gpu = lowered_text(m["bands"], ir::Target::GPU);
  EXPECT_NE(gpu.find("for k_step in 0 .. 7 {"), std::string::npos) << gpu;
  const int64_t m_rows = 10, n = 16;
  std::vector<double> x = loomtest::random_vector<double>(size_t(n), -2, 2, 77);
  std::vector<double> want(size_t(m_rows * 48));
  bands_reference(x, want, m_rows);
  std::vector<ir::InterpreterArg> args;
  ir::Buffer xb(ir::ScalarType::F64, {n});
  std::memcpy(xb.data(), x.data(), x.size() * sizeof(double));
  args.push_back(ir::InterpreterArg::of_array(std::move(xb)));
  args.push_back(ir::InterpreterArg::of_array(ir::Buffer(ir::ScalarType::F64, {m_rows, 48})));
  ir::interpret(ir::lower(m["bands"].ir(), ir::Target::GPU), args);
  for (int64_t e = 0; e < m_rows * 48; ++e)
    ASSERT_EQ(args[1].array.get(e).f, want[size_t(e)]) << "element " << e;
}

// Loops that do not qualify keep their form on the GPU.
TEST(ShortLoopsLowering, OtherLoopsKeepTheirForm) {
  Module m = compile(R"(
@kernel
def constant_count(x: f32[n], y: f32[n]):
    for i in parallel(n):
        s = 0.0
        for k in range(4):
            s = s + x[(i + k) % n]
        y[i] = s

@kernel
def unbounded(x: f32[n], y: f32[n]):
    for i in parallel(n):
        s = 0.0
        for k in range(i):
            s = s + x[k]
        y[i] = s

@kernel
def seventeen(x: f32[n], y: f32[n]):
    for i in parallel(n):
        s = 0.0
        for j in range(18):
            for k in range(j):
                s = s + x[k]
        y[i] = s

@kernel
def stores(x: f32[n], y: f32[n, 16]):
    for i in parallel(n):
        for j in range(16):
            for k in range(j):
                y[i, k] = x[k] * f32(j)

@kernel
def no_loads(y: f32[n]):
    for i in parallel(n):
        s = 0.0
        for j in range(16):
            for k in range(j):
                s = s + 1.0
        y[i] = s

@kernel
def strided(x: f32[n], y: f32[n]):
    for i in parallel(n):
        s = 0.0
        for j in range(16):
            for k in range(0, j, 2):
                s = s + x[k]
        y[i] = s

@kernel(unroll=(k, 2))
def scheduled(x: f32[n], y: f32[n]):
    for i in parallel(n):
        s = 0.0
        for j in range(16):
            for k in range(j):
                s = s + x[k]
        y[i] = s
)");
  for (const char *name :
       {"constant_count", "unbounded", "seventeen", "stores", "no_loads", "strided", "scheduled"}) {
    SCOPED_TRACE(name);
    const std::string gpu = lowered_text(m[name], ir::Target::GPU);
    EXPECT_EQ(gpu.find("k_step"), std::string::npos) << gpu;
  }
}

// The kernel on each target: the C++ loops' results (bit for bit on the CPU; on the GPU within
// the fma's contraction of a product and a difference, docs/semantics.md "Floats").
TEST_P(ShortLoops, ResultsOfTheLoopsAsWritten) {
  Module m = compile(source);
  Kernel diagonal = m["diagonal"], bands = m["bands"];
  prepare(diagonal);
  prepare(bands);
  const int64_t n = 64;
  for (int64_t o : {int64_t(0), int64_t(48)}) {
    std::vector<float> a = loomtest::lud_diagonal_input(n, uint32_t(o + 5));
    std::vector<float> want = a;
    loomtest::lud_diagonal_reference(want, n, o);
    diagonal(view(a.data(), {n, n}), o);
    for (size_t e = 0; e < a.size(); ++e)
      if (target() == ir::Target::CPU)
        ASSERT_EQ(a[e], want[e]) << "element " << e;
      else
        ASSERT_NEAR(a[e], want[e], 1e-5) << "element " << e;
  }
  const int64_t rows = 1000, len = 40;
  std::vector<double> x = loomtest::random_vector<double>(size_t(len), -2, 2, 78);
  std::vector<double> y(size_t(rows * 48)), want(y.size());
  bands_reference(x, want, rows);
  bands(x, view(y.data(), {rows, 48}));
  for (size_t e = 0; e < y.size(); ++e)
    ASSERT_NEAR(y[e], want[e], 1e-14 * (1 + std::fabs(want[e]))) << "element " << e;
}

LOOM_INSTANTIATE_TARGETS(ShortLoops);
