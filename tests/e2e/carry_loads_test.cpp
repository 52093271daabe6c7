// A thread's walk along z keeps what its steps load again in registers (ir/CarryLoads.cpp): a
// 7-point stencil as Rodinia's hotspot3D writes it (clamped neighbours below and above) and a
// forward difference along z (unclamped, one plane fewer). The interpreter runs the GPU's lowering
// with one block along z (the walk, step 1) and with two (the loop as it was), and gives the bits
// of the kernel as written either way, with random inputs; on each target, the same results. Loops
// whose loads the walk cannot carry keep them.
#include "support/TestUtil.h"

#include "ir/Interpreter.h"
#include "ir/Lower.h"
#include "ir/Printer.h"

#include <cstring>

using namespace loom;
using loomtest::lowered;

namespace {

class CarryLoads : public loomtest::TargetTest {};

const std::string source = R"(
@kernel
def heat3d(t: f32[Z, Y, X], p: f32[Z, Y, X], out: f32[Z, Y, X], c: f32):
    for z, y, x in parallel(Z, Y, X):
        below = t[max(z - 1, 0), y, x]
        above = t[min(z + 1, Z - 1), y, x]
        west = t[z, y, max(x - 1, 0)]
        east = t[z, y, min(x + 1, X - 1)]
        out[z, y, x] = c * t[z, y, x] + 0.25 * (below + above) + 0.125 * (west + east) + p[z, y, x]

@kernel
def slope(a: f64[Z, Y, X], d: f64[Z, Y, X]):
    for z, y, x in parallel(Z - 1, Y, X):
        d[z, y, x] = (a[z + 1, y, x] - a[z, y, x]) * 0.5 + a[z, y, x]
)";

ir::Buffer random_buffer(ir::ScalarType type, std::vector<int64_t> shape, unsigned seed) {
  ir::Buffer b(type, shape);
  const std::vector<double> v =
      loomtest::random_vector<double>(static_cast<size_t>(b.size()), -1.0, 1.0, seed);
  for (int64_t k = 0; k < b.size(); ++k)
    b.set(k, ir::float_value(type, v[static_cast<size_t>(k)]));
  return b;
}

} // namespace

// The GPU's lowering carries below, centre and above along the walk: two loads a step instead of
// three, the next step's above loaded at the end of this one; the CPU's keeps its loops.
TEST(CarryLoadsLowering, TheWalkCarriesTheColumnsLoads) {
  Module m = compile(source);
  const ir::LoweredKernel gpu = lowered(m["heat3d"], ir::Target::GPU);
  ASSERT_EQ(gpu.tasks.size(), 1u);
  ASSERT_EQ(gpu.tasks[0].carried.size(), 1u);
  EXPECT_EQ(gpu.tasks[0].carried[0],
            "where the launch has one block along z, each thread walks 'z' keeping "
            "t[max(z - 1, 0), y, x], t[min(z + 1, t.shape[0] - 1), y, x], t[z, y, x] in registers, "
            "1 of 3 loaded a step");
  const std::string text = ir::to_string(gpu);
  EXPECT_NE(text.find("if i64(blockDim.z) * i64(gridDim.z) == 1 {"), std::string::npos) << text;
  EXPECT_NE(text.find("var below: f32 = carried\n"), std::string::npos) << text;
  EXPECT_NE(text.find("var next.1: f32 = t[min(z.1 + 1, t.shape[0] - 1), y, x]"), std::string::npos)
      << text;
  // The loop as it was, beside the walk.
  EXPECT_NE(text.find("var below.1: f32 = t[max(z.2 - 1, 0), y, x]"), std::string::npos) << text;
  EXPECT_EQ(ir::to_string(lowered(m["heat3d"], ir::Target::CPU)).find("carried"),
            std::string::npos);
  EXPECT_NE(ir::to_string(lowered(m["slope"], ir::Target::GPU)).find("carried"), std::string::npos);
}

// The interpreter runs the GPU's lowering with one block along z (each thread walks the 5 or 9
// planes) and with two (the loop as it was): the bits of the kernel as written.
TEST(CarryLoadsLowering, WalksGiveTheKernelsBits) {
  Module m = compile(source);
  for (const char *name : {"heat3d", "slope"}) {
    SCOPED_TRACE(name);
    const bool heat = std::string(name) == "heat3d";
    const ir::ScalarType type = heat ? ir::ScalarType::F32 : ir::ScalarType::F64;
    const ir::Kernel kernel = m[name].ir();
    const ir::LoweredKernel gpu = lowered(m[name], ir::Target::GPU);
    for (int64_t z : {int64_t(1), int64_t(2), int64_t(5), int64_t(9)}) {
      const std::vector<int64_t> shape = {z, 3, 7};
      auto args_of = [&] {
        std::vector<ir::InterpreterArg> args;
        args.push_back(ir::InterpreterArg::of_array(random_buffer(type, shape, unsigned(z))));
        if (heat)
          args.push_back(ir::InterpreterArg::of_array(random_buffer(type, shape, unsigned(z + 1))));
        args.push_back(ir::InterpreterArg::of_array(ir::Buffer(type, shape)));
        if (heat)
          args.push_back(ir::InterpreterArg::of_scalar(ir::float_value(type, 0.375)));
        return args;
      };
      std::vector<ir::InterpreterArg> want = args_of();
      ir::interpret(kernel, want);
      const size_t out = heat ? 2 : 1;
      for (unsigned blocks_z : {1u, 2u}) {
        SCOPED_TRACE("Z " + std::to_string(z) + ", blocks along z " + std::to_string(blocks_z));
        ir::InterpreterOptions options;
        options.gpu_block = {4, 2, 1};
        options.gpu_grid = {2, 1, blocks_z};
        std::vector<ir::InterpreterArg> got = args_of();
        ir::interpret(gpu, got, options);
        for (int64_t e = 0; e < want[out].array.size(); ++e)
          ASSERT_EQ(got[out].array.get(e).f, want[out].array.get(e).f) << "element " << e;
      }
    }
  }
}

// Loads the walk cannot carry: of an array the task stores, under a condition, at a z that
// another index also names, at an index read from memory, and alone in their group.
TEST(CarryLoadsLowering, LoadsItCannotProveKeepTheirPlaces) {
  Module m = compile(R"(
@kernel
def stored(t: f32[Z, Y, X]):
    for z, y, x in parallel(Z, Y, X):
        t[z, y, x] = t[z, y, x] + t[z, y, x] * 2.0

@kernel
def conditional(t: f32[Z, Y, X], out: f32[Z, Y, X]):
    for z, y, x in parallel(Z, Y, X):
        if x > 0:
            out[z, y, x] = t[max(z - 1, 0), y, x] + t[z, y, x]

@kernel
def diagonal(t: f32[Z, Z, X], out: f32[Z, Z, X]):
    for z, y, x in parallel(Z, Z, X):
        out[z, y, x] = t[z, z, x] + t[max(z - 1, 0), z, x]

@kernel
def indirect(t: f32[Z, Y, X], at: i64[Z], out: f32[Z, Y, X]):
    for z, y, x in parallel(Z, Y, X):
        out[z, y, x] = t[at[z], y, x] + t[at[max(z - 1, 0)], y, x]

@kernel
def alone(t: f32[Z, Y, X], out: f32[Z, Y, X]):
    for z, y, x in parallel(Z, Y, X):
        out[z, y, x] = t[z, y, x] * 2.0
)");
  for (const char *name : {"stored", "conditional", "diagonal", "alone"}) {
    SCOPED_TRACE(name);
    const std::string text = ir::to_string(lowered(m[name], ir::Target::GPU));
    EXPECT_EQ(text.find("carried"), std::string::npos) << text;
  }
  // The index array's own loads are carried; the loads at the indices read from it are not.
  const ir::LoweredKernel indirect = lowered(m["indirect"], ir::Target::GPU);
  ASSERT_EQ(indirect.tasks[0].carried.size(), 1u) << ir::to_string(indirect);
  EXPECT_EQ(indirect.tasks[0].carried[0].find("t[at"), std::string::npos)
      << indirect.tasks[0].carried[0];
}

// Each target: the stencil over 8 planes of 64 x 40 (the GPU walks them when its launch has one
// block along z), within the fma's contraction on the GPU (docs/semantics.md, "Floats").
TEST_P(CarryLoads, StencilIsTheInterpreters) {
  Module m = compile(source);
  Kernel heat = m["heat3d"];
  prepare(heat);
  const std::vector<int64_t> shape = {8, 64, 40};
  std::vector<ir::InterpreterArg> want;
  want.push_back(ir::InterpreterArg::of_array(random_buffer(ir::ScalarType::F32, shape, 3u)));
  want.push_back(ir::InterpreterArg::of_array(random_buffer(ir::ScalarType::F32, shape, 4u)));
  want.push_back(ir::InterpreterArg::of_array(ir::Buffer(ir::ScalarType::F32, shape)));
  want.push_back(ir::InterpreterArg::of_scalar(ir::float_value(ir::ScalarType::F32, 0.375)));
  std::vector<float> t(static_cast<size_t>(want[0].array.size())), p(t.size()), out(t.size());
  std::memcpy(t.data(), want[0].array.data(), t.size() * sizeof(float));
  std::memcpy(p.data(), want[1].array.data(), p.size() * sizeof(float));
  ir::interpret(heat.ir(), want);
  heat(view(t.data(), shape), view(p.data(), shape), view(out.data(), shape), 0.375f);
  for (int64_t e = 0; e < want[2].array.size(); ++e)
    if (target() == ir::Target::CPU)
      ASSERT_EQ(out[static_cast<size_t>(e)], want[2].array.get(e).f) << "element " << e;
    else
      ASSERT_NEAR(out[static_cast<size_t>(e)], want[2].array.get(e).f, 1e-5) << "element " << e;
}

LOOM_INSTANTIATE_TARGETS(CarryLoads);
