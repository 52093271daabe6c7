// Consecutive parallel loops in one launch on the GPU (ir/FuseTasks.cpp): two parallel tasks whose
// accesses are provably apart run as one task, the first's iterations then the second's along the
// outermost dimension. lud's perimeter (the blocks right of the diagonal block, then the blocks
// below it) has the form; the GPU's lowering fuses it and the interpreter, running that lowering,
// computes the bits of the loops in C++ (in CI); on the GPU, the same results within the fma's
// contraction. Loops that may touch the same element keep their launches. Random inputs.
#include "support/LudDiagonal.h"
#include "support/LudPerimeter.h"
#include "support/TestUtil.h"

#include "ir/Interpreter.h"
#include "ir/Lower.h"
#include "ir/Printer.h"

#include <cmath>
#include <cstring>

using namespace loom;
using loomtest::lowered;

namespace {

class FuseTasks : public loomtest::TargetTest {};

const std::string source = R"(
@kernel
def perimeter(a: f32[n, n], o: i64):
    for chunk, j in parallel((n - o - 16) / 16, 16):
        col = o + 16 * (chunk + 1)
        for i in range(16):
            s: f32 = 0.0
            for k in range(i):
                s += a[o + i, o + k] * a[o + k, col + j]
            top = a[o + i, col + j]
            a[o + i, col + j] = top - s
    for chunk, i in parallel((n - o - 16) / 16, 16):
        row = o + 16 * (chunk + 1)
        for j in range(16):
            s: f32 = 0.0
            for k in range(j):
                s += a[row + i, o + k] * a[o + k, o + j]
            a[row + i, o + j] = (a[row + i, o + j] - s) / a[o + j, o + j]
)";

void perimeter_reference(std::vector<float> &a, int64_t n, int64_t o) {
  loomtest::lud_right_reference(a, n, o);
  loomtest::lud_below_reference(a, n, o);
}

} // namespace

// The GPU's lowering runs lud's two perimeter loops as one task over twice the chunks, each
// half's column (row) still in a local array; the interpreter, running it, computes the loops'
// bits.
TEST(FuseTasksLowering, LudsPerimeterLoopsRunInOneLaunch) {
  Module m = compile(source);
  const ir::LoweredKernel gpu = lowered(m["perimeter"], ir::Target::GPU);
  ASSERT_EQ(gpu.tasks.size(), 1u) << ir::to_string(gpu);
  EXPECT_EQ(gpu.tasks[0].fused, "perimeter_task0, perimeter_task1");
  EXPECT_EQ(gpu.tasks[0].staged.size(), 2u) << ir::to_string(gpu);
  const std::string text = ir::to_string(gpu);
  EXPECT_NE(
      text.find("parallel over ((a.shape[0] - o - 16) / 16 + (a.shape[0] - o - 16) / 16, 16)"),
      std::string::npos)
      << text;
  // The CPU and a kernel under bounds checks keep two loops.
  EXPECT_EQ(lowered(m["perimeter"], ir::Target::CPU).tasks.size(), 2u);
  EXPECT_EQ(lowered(m["perimeter"], ir::Target::GPU, true).tasks.size(), 2u);

  const int64_t n = 80;
  for (int64_t o : {int64_t(0), int64_t(32), int64_t(48)}) {
    std::vector<float> a = loomtest::lud_diagonal_input(n, uint32_t(o + 21));
    std::vector<float> want = a;
    perimeter_reference(want, n, o);
    ir::Buffer buffer(ir::ScalarType::F32, {n, n});
    std::memcpy(buffer.data(), a.data(), a.size() * sizeof(float));
    std::vector<ir::InterpreterArg> args;
    args.push_back(ir::InterpreterArg::of_array(std::move(buffer)));
    args.push_back(ir::InterpreterArg::of_scalar(ir::int_value(ir::ScalarType::I64, o)));
    ir::interpret(gpu, args);
    for (size_t e = 0; e < want.size(); ++e)
      ASSERT_EQ(args[0].array.get(int64_t(e)).f, want[e]) << "o = " << o << ", element " << e;
  }
}

// Loops that may touch the same element, or that do not line up, keep their launches: the second
// reads what the first writes, the second writes what the first reads, both write one element,
// the domains differ past the outermost dimension, one reduces, one prints, and a task loop's
// boundary lies between them.
TEST(FuseTasksLowering, LoopsThatMayMeetKeepTheirLaunches) {
  Module m = compile(R"(
@kernel
def reads_written(x: f32[n], y: f32[n]):
    for i in parallel(n):
        x[i] = x[i] * 2.0
    for i in parallel(n):
        y[i] = x[(i + 1) % n]

@kernel
def writes_read(x: f32[n], y: f32[n]):
    for i in parallel(n):
        y[i] = x[i] + 1.0
    for i in parallel(n):
        x[i] = 3.0

@kernel
def both_write(x: f32[n, 4]):
    for i in parallel(n):
        x[i, 0] = 1.0
    for i, j in parallel(n, 1):
        x[i, j] = 2.0

@kernel
def other_extents(x: f32[n, 4], y: f32[n, 8]):
    for i, j in parallel(n, 4):
        x[i, j] = 1.0
    for i, j in parallel(n, 8):
        y[i, j] = 2.0

@kernel
def reduces(x: f32[n], y: f32[n], total: f32[1]):
    for i in parallel(n):
        x[i] = 1.0
    for i in parallel(n):
        total[0] += y[i]

@kernel
def prints(x: f32[n], y: f32[n]):
    for i in parallel(n):
        x[i] = 1.0
    for i in parallel(n):
        print(i)
        y[i] = 2.0

@kernel
def steps(x: f32[n], y: f32[n]):
    for i in parallel(n):
        x[i] = 1.0
    for t in range(3):
        for i in parallel(n):
            y[i] = y[i] + 2.0
)");
  for (const char *name : {"reads_written", "writes_read", "both_write", "other_extents", "reduces",
                           "prints", "steps"}) {
    SCOPED_TRACE(name);
    const ir::LoweredKernel gpu = lowered(m[name], ir::Target::GPU);
    for (const ir::Task &t : gpu.tasks)
      EXPECT_EQ(t.fused, "") << ir::to_string(gpu);
  }
  // Loops of different arrays, or of different parts of one, share a launch; so do three in a row.
  Module fused = compile(R"(
@kernel
def halves(x: f32[n, 2], y: f32[n]):
    for i in parallel(n):
        x[i, 0] = y[i]
    for i in parallel(n):
        x[i, 1] = y[i] * 2.0
    for i in parallel(n):
        y[i] = y[i] + 1.0
)");
  const ir::LoweredKernel gpu = lowered(fused["halves"], ir::Target::GPU);
  ASSERT_EQ(gpu.tasks.size(), 2u) << ir::to_string(gpu);
  EXPECT_EQ(gpu.tasks[0].fused, "halves_task0, halves_task1");
}

// The kernel on each target: the C++ loops' results (bit for bit on the CPU; on the GPU within
// the fma's contraction of a product and a sum, docs/semantics.md "Floats").
TEST_P(FuseTasks, ResultsOfTheLoopsAsWritten) {
  Module m = compile(source);
  Kernel perimeter = m["perimeter"];
  prepare(perimeter);
  const int64_t n = 144;
  for (int64_t o : {int64_t(0), int64_t(64)}) {
    std::vector<float> a = loomtest::lud_diagonal_input(n, uint32_t(o + 9));
    std::vector<float> want = a;
    perimeter_reference(want, n, o);
    perimeter(view(a.data(), {n, n}), o);
    for (size_t e = 0; e < a.size(); ++e)
      if (target() == ir::Target::CPU)
        ASSERT_EQ(a[e], want[e]) << "element " << e;
      else
        ASSERT_NEAR(a[e], want[e], 1e-4 * (1 + std::fabs(want[e]))) << "element " << e;
  }
}

LOOM_INSTANTIATE_TARGETS(FuseTasks);
