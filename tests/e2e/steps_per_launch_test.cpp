// Several steps of a task loop around a 1-D stencil in one GPU launch (ir/StepsPerLaunch.cpp):
// Rodinia's pathfinder and a float stencil reaching two columns left and one right, with a heat
// source read a step ahead. The GPU's
// lowering copies the first row into a scratch array and runs 16 steps a launch on overlapping
// tiles, each launch leaving its last row there for the next; the interpreter, running that
// lowering (blocks, barriers, the race check), gives the bits of the kernel as written and of C++
// loops (in CI), for widths around a tile's (224 columns) and step counts around a launch's. On
// each target, the same results. Forms the pass cannot prove keep one step a launch. Random inputs.
#include "support/Pathfinder.h"
#include "support/TestUtil.h"

#include "ir/Interpreter.h"
#include "ir/Lower.h"
#include "ir/Printer.h"

#include <algorithm>
#include <cstring>
#include <random>

using namespace loom;
using loomtest::lowered;

namespace {

class StepsPerLaunch : public loomtest::TargetTest {};

const std::string source = std::string(loomtest::pathfinder_source) + R"(
@kernel
def smooth(u: f32[3, n], heat: f32[4, n], a: f32, first: i64, last: i64):
    for t in range(first, last):
        for i in parallel(n):
            far = u[t % 3, max(i - 2, 0)]
            near = u[t % 3, max(i - 1, 0)]
            right = u[t % 3, min(i + 1, n - 1)]
            u[(t + 1) % 3, i] = a * (far + near) + (1.0 - 2.0 * a) * u[t % 3, i] + 0.01 * right + heat[t % 4, i]
)";

std::vector<int32_t> random_ints(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int32_t> d(0, 9);
  std::vector<int32_t> v(n);
  for (int32_t &x : v)
    x = d(gen);
  return v;
}

// Rodinia's loop in C++: row 0 is the first row of costs, each step's row in cost[(t + 1) % 2].
void pathfinder_reference(const std::vector<int32_t> &wall, std::vector<int32_t> &cost,
                          int64_t rows, int64_t cols) {
  for (int64_t t = 0; t + 1 < rows; ++t)
    for (int64_t n = 0; n < cols; ++n) {
      const int32_t *above = &cost[static_cast<size_t>((t % 2) * cols)];
      const int32_t best = std::min(
          above[n], std::min(above[std::max<int64_t>(n - 1, 0)], above[std::min(n + 1, cols - 1)]));
      cost[static_cast<size_t>(((t + 1) % 2) * cols + n)] =
          wall[static_cast<size_t>((t + 1) * cols + n)] + best;
    }
}

ir::Buffer buffer_of(ir::ScalarType type, std::vector<int64_t> shape, const void *data) {
  ir::Buffer b(type, std::move(shape));
  std::memcpy(b.data(), data, b.bytes.size());
  return b;
}

} // namespace

// The GPU's lowering: a copy of the row the loop starts from, then the loop takes 16 steps a
// launch, a task of blocks of 256 threads computing 224 columns each; the CPU and a bounds-checked
// kernel keep one step a launch.
TEST(StepsPerLaunchLowering, PathfindersLoopTakesSixteenStepsALaunch) {
  Module m = compile(source);
  const ir::LoweredKernel gpu = lowered(m["pathfinder"], ir::Target::GPU);
  const std::string text = ir::to_string(gpu);
  ASSERT_EQ(gpu.tasks.size(), 2u) << text;
  ASSERT_EQ(gpu.task_loops.size(), 1u);
  EXPECT_EQ(gpu.task_loops[0].first, 1u); // the copy runs once, before the loop
  EXPECT_EQ(gpu.task_loops[0].last, 2u);
  ASSERT_EQ(gpu.scratch.size(), 1u);
  EXPECT_EQ(gpu.params[static_cast<size_t>(gpu.scratch[0].param)].name, "cost_rows");
  EXPECT_EQ(gpu.tasks[0].steps_per_launch,
            "copies row [0] of 'cost' for the loop's first launch to read");
  EXPECT_EQ(gpu.tasks[1].steps_per_launch,
            "16 steps of the loop over 't' a launch: blocks of 256 threads compute 224 columns of "
            "'cost' each, reaching 1 left and 1 right a step");
  EXPECT_EQ(gpu.tasks[1].threads, 256);
  EXPECT_NE(text.find("loop t in range(0, wall.shape[0] - 1, 1 * 16)"), std::string::npos) << text;
  EXPECT_NE(text.find("scratch cost_rows[2, wall.shape[1]]"), std::string::npos) << text;
  EXPECT_EQ(lowered(m["pathfinder"], ir::Target::CPU).tasks.size(), 1u);
  EXPECT_EQ(lowered(m["pathfinder"], ir::Target::GPU, true).tasks.size(), 1u);

  const ir::LoweredKernel smooth = lowered(m["smooth"], ir::Target::GPU);
  ASSERT_EQ(smooth.tasks.size(), 2u) << ir::to_string(smooth);
  EXPECT_EQ(smooth.tasks[1].steps_per_launch,
            "16 steps of the loop over 't' a launch: blocks of 256 threads compute 208 columns of "
            "'u' each, reaching 2 left and 1 right a step");
}

// The interpreter runs the GPU's lowering (two simulated blocks striding over the tiles, each
// tile's 256 threads with their barriers, races checked): the bits of the C++ loop, for widths
// around a tile's and step counts around a launch's.
TEST(StepsPerLaunchLowering, PathfinderGivesTheLoopsBits) {
  Module m = compile(source);
  const ir::LoweredKernel gpu = lowered(m["pathfinder"], ir::Target::GPU);
  for (int64_t rows : {int64_t(1), int64_t(2), int64_t(17), int64_t(34)})
    for (int64_t cols : {int64_t(1), int64_t(3), int64_t(224), int64_t(225), int64_t(700)}) {
      SCOPED_TRACE("rows " + std::to_string(rows) + ", columns " + std::to_string(cols));
      const std::vector<int32_t> wall =
          random_ints(static_cast<size_t>(rows * cols), unsigned(rows * 1000 + cols));
      std::vector<int32_t> cost = random_ints(static_cast<size_t>(2 * cols), unsigned(cols));
      std::vector<ir::InterpreterArg> args;
      args.push_back(
          ir::InterpreterArg::of_array(buffer_of(ir::ScalarType::I32, {rows, cols}, wall.data())));
      args.push_back(
          ir::InterpreterArg::of_array(buffer_of(ir::ScalarType::I32, {2, cols}, cost.data())));
      pathfinder_reference(wall, cost, rows, cols);
      ir::interpret(gpu, args);
      for (size_t e = 0; e < cost.size(); ++e)
        ASSERT_EQ(args[1].array.get(int64_t(e)).i, cost[e]) << "element " << e;
    }
}

// A float stencil reaching two columns left and one right, over three rows from a step that is
// not 0: the lowering gives the interpreter's bits of the kernel as written.
TEST(StepsPerLaunchLowering, FloatStencilGivesTheKernelsBits) {
  Module m = compile(source);
  const ir::Kernel kernel = m["smooth"].ir();
  const ir::LoweredKernel gpu = lowered(m["smooth"], ir::Target::GPU);
  for (int64_t n : {int64_t(5), int64_t(208), int64_t(209), int64_t(500)})
    for (int64_t first : {int64_t(0), int64_t(4)})
      for (int64_t steps : {int64_t(1), int64_t(16), int64_t(23)}) {
        SCOPED_TRACE("n " + std::to_string(n) + ", steps " + std::to_string(first) + " to " +
                     std::to_string(first + steps));
        const std::vector<float> u = loomtest::random_vector<float>(static_cast<size_t>(3 * n),
                                                                    -1.0, 1.0, unsigned(n + steps));
        const std::vector<float> heat = loomtest::random_vector<float>(
            static_cast<size_t>(4 * n), -0.1, 0.1, unsigned(n + steps + 1));
        auto args_of = [&] {
          std::vector<ir::InterpreterArg> args;
          args.push_back(
              ir::InterpreterArg::of_array(buffer_of(ir::ScalarType::F32, {3, n}, u.data())));
          args.push_back(
              ir::InterpreterArg::of_array(buffer_of(ir::ScalarType::F32, {4, n}, heat.data())));
          args.push_back(ir::InterpreterArg::of_scalar(ir::float_value(ir::ScalarType::F32, 0.3)));
          args.push_back(ir::InterpreterArg::of_scalar(ir::int_value(ir::ScalarType::I64, first)));
          args.push_back(
              ir::InterpreterArg::of_scalar(ir::int_value(ir::ScalarType::I64, first + steps)));
          return args;
        };
        std::vector<ir::InterpreterArg> want = args_of(), got = args_of();
        ir::interpret(kernel, want);
        ir::interpret(gpu, got);
        for (int64_t e = 0; e < 3 * n; ++e)
          ASSERT_EQ(got[0].array.get(e).f, want[0].array.get(e).f) << "element " << e;
      }
}

// Forms the pass cannot prove keep one step a launch: a read of a row the step before did not
// write, a read reaching five columns, a read past the columns the step writes, a second store,
// a print, columns that change with the step, and a loop of two tasks.
TEST(StepsPerLaunchLowering, FormsItCannotProveKeepOneStepALaunch) {
  Module m = compile(R"(
@kernel
def other_row(u: f32[2, n]):
    for t in range(4):
        for i in parallel(n):
            u[1, i] = u[0, max(i - 1, 0)] + 1.0

@kernel
def far(u: f32[2, n]):
    for t in range(4):
        for i in parallel(n):
            u[(t + 1) % 2, i] = u[t % 2, min(i + 5, n - 1)]

@kernel
def past_the_row(u: f32[2, n]):
    for t in range(4):
        for i in parallel(n - 1):
            u[(t + 1) % 2, i] = u[t % 2, i + 1]

@kernel
def two_stores(u: f32[2, n], v: f32[n]):
    for t in range(4):
        for i in parallel(n):
            u[(t + 1) % 2, i] = u[t % 2, i] + 1.0
            v[i] = 2.0

@kernel
def prints(u: f32[2, n]):
    for t in range(4):
        for i in parallel(n):
            print(i)
            u[(t + 1) % 2, i] = u[t % 2, i] + 1.0

@kernel
def shrinking(u: f32[2, n]):
    for t in range(4):
        for i in parallel(n - t):
            u[(t + 1) % 2, i] = u[t % 2, i] * 0.5

@kernel
def two_tasks(u: f32[2, n], v: f32[n]):
    for t in range(4):
        for i in parallel(n):
            u[(t + 1) % 2, i] = u[t % 2, i] + 1.0
        for i in parallel(n):
            v[i] = u[0, i]
)");
  for (const char *name :
       {"other_row", "far", "past_the_row", "two_stores", "prints", "shrinking", "two_tasks"}) {
    SCOPED_TRACE(name);
    const ir::LoweredKernel gpu = lowered(m[name], ir::Target::GPU);
    EXPECT_TRUE(gpu.scratch.empty()) << ir::to_string(gpu);
    for (const ir::Task &t : gpu.tasks)
      EXPECT_EQ(t.steps_per_launch, "") << ir::to_string(gpu);
  }
}

// Each target: pathfinder's costs are the C++ loop's, exactly; on the GPU also over 100,000
// columns and 100 rows (Rodinia's size), 447 tiles.
TEST_P(StepsPerLaunch, PathfinderCostsAreTheLoops) {
  Module m = compile(source);
  Kernel pathfinder = m["pathfinder"];
  prepare(pathfinder);
  std::vector<std::pair<int64_t, int64_t>> sizes = {{1, 50}, {20, 225}, {45, 1000}};
  if (target() == ir::Target::GPU)
    sizes.push_back({100, 100000});
  for (auto [rows, cols] : sizes) {
    SCOPED_TRACE("rows " + std::to_string(rows) + ", columns " + std::to_string(cols));
    std::vector<int32_t> wall =
        random_ints(static_cast<size_t>(rows * cols), unsigned(rows + cols));
    std::vector<int32_t> cost = random_ints(static_cast<size_t>(2 * cols), unsigned(cols + 1));
    std::vector<int32_t> want = cost;
    pathfinder_reference(wall, want, rows, cols);
    pathfinder(view(wall.data(), {rows, cols}), view(cost.data(), {2, cols}));
    for (size_t e = 0; e < cost.size(); ++e)
      ASSERT_EQ(cost[e], want[e]) << "element " << e;
  }
}

// Each target: the float stencil's results are the interpreter's, within the fma's contraction
// of a product and a sum on the GPU (docs/semantics.md, "Floats") over 40 steps.
TEST_P(StepsPerLaunch, FloatStencilIsTheInterpreters) {
  Module m = compile(source);
  Kernel smooth = m["smooth"];
  prepare(smooth);
  const int64_t n = 3000, first = 2, last = 42;
  std::vector<float> u = loomtest::random_vector<float>(static_cast<size_t>(3 * n), -1.0, 1.0, 5u);
  std::vector<float> heat =
      loomtest::random_vector<float>(static_cast<size_t>(4 * n), -0.1, 0.1, 6u);
  std::vector<ir::InterpreterArg> want;
  want.push_back(ir::InterpreterArg::of_array(buffer_of(ir::ScalarType::F32, {3, n}, u.data())));
  want.push_back(ir::InterpreterArg::of_array(buffer_of(ir::ScalarType::F32, {4, n}, heat.data())));
  want.push_back(ir::InterpreterArg::of_scalar(ir::float_value(ir::ScalarType::F32, 0.3)));
  want.push_back(ir::InterpreterArg::of_scalar(ir::int_value(ir::ScalarType::I64, first)));
  want.push_back(ir::InterpreterArg::of_scalar(ir::int_value(ir::ScalarType::I64, last)));
  ir::interpret(smooth.ir(), want);
  smooth(view(u.data(), {3, n}), view(heat.data(), {4, n}), 0.3f, first, last);
  for (int64_t e = 0; e < 3 * n; ++e)
    if (target() == ir::Target::CPU)
      ASSERT_EQ(u[static_cast<size_t>(e)], want[0].array.get(e).f) << "element " << e;
    else
      ASSERT_NEAR(u[static_cast<size_t>(e)], want[0].array.get(e).f, 1e-5) << "element " << e;
}

LOOM_INSTANTIATE_TARGETS(StepsPerLaunch);
