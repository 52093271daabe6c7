// A block of threads for each iteration of a parallel loop's outer dimensions, the elements its
// threads all read in a loop staged in shared memory (ir/StageBlockReads.cpp): Rodinia's lavaMD
// (each box's 100 particles read the same neighbour particles) and a 3-D loop whose outer indices
// come from the block. The interpreter, running the GPU's lowering (blocks, barriers, the race
// check), gives the bits of the kernel as written (in CI); on each target the sums are a double
// reference's. Forms the pass cannot prove keep the default mapping. Random inputs.
#include "support/TestUtil.h"

#include "ir/Interpreter.h"
#include "ir/Lower.h"
#include "ir/Printer.h"

#include <cmath>
#include <cstring>
#include <random>

using namespace loom;
using loomtest::lowered;

namespace {

class BlockReads : public loomtest::TargetTest {};

// Rodinia's lavaMD as bench/rodinia/lavaMD/lavaMD.loom has it, and a 3-D loop.
const char *source = R"(
@kernel
def lavaMD(rv: f64[n, 4], qv: f64[n], fv: f64[n, 4], nn: i32[boxes], nei: i32[boxes, 26],
           alpha: f64):
    for home, i in parallel(boxes, 100):
        a2 = 2.0 * alpha * alpha
        p = 100 * home + i
        v: f64 = 0.0
        fx: f64 = 0.0
        fy: f64 = 0.0
        fz: f64 = 0.0
        for k in range(1 + nn[home]):
            other = home if k == 0 else i64(nei[home, max(k - 1, 0)])
            for j in range(100 * other, 100 * other + 100):
                dot = rv[p, 1] * rv[j, 1] + rv[p, 2] * rv[j, 2] + rv[p, 3] * rv[j, 3]
                r2 = rv[p, 0] + rv[j, 0] - dot
                vij = exp(-(a2 * r2))
                fs = 2.0 * vij
                v += qv[j] * vij
                fx += qv[j] * (fs * (rv[p, 1] - rv[j, 1]))
                fy += qv[j] * (fs * (rv[p, 2] - rv[j, 2]))
                fz += qv[j] * (fs * (rv[p, 3] - rv[j, 3]))
        fv[p, 0] = v
        fv[p, 1] = fx
        fv[p, 2] = fy
        fv[p, 3] = fz

@kernel
def mix(x: f32[n, 3], y: f32[b, c, 80], first: i64):
    for p, q, r in parallel(b, c, 80):
        acc: f32 = 0.0
        for k in range(first, first + 20):
            acc += x[(p * 7 + q + k) % n, 1] * f32(r + 1) + x[k % n, 0]
        y[p, q, r] = acc
)";

ir::Buffer buffer_of(ir::ScalarType type, std::vector<int64_t> shape, const void *data) {
  ir::Buffer b(type, std::move(shape));
  std::memcpy(b.data(), data, b.bytes.size());
  return b;
}

// A space of `boxes` boxes of 100 particles: coordinates and charges in [0.1, 1), each box with
// up to 26 neighbours drawn at random.
struct Particles {
  int64_t boxes;
  std::vector<double> rv, qv, fv;
  std::vector<int32_t> nn, nei;
  Particles(int64_t b, unsigned seed) : boxes(b) {
    rv = loomtest::random_vector<double>(static_cast<size_t>(400 * b), 0.1, 1.0, seed);
    qv = loomtest::random_vector<double>(static_cast<size_t>(100 * b), 0.1, 1.0, seed + 1);
    fv.assign(static_cast<size_t>(400 * b), 0.0);
    std::mt19937 gen(seed + 2);
    std::uniform_int_distribution<int32_t> count(0, 26), box(0, int32_t(b - 1));
    nn.resize(static_cast<size_t>(b));
    nei.resize(static_cast<size_t>(26 * b));
    for (int32_t &c : nn)
      c = count(gen);
    for (int32_t &x : nei)
      x = box(gen);
  }
  std::vector<ir::InterpreterArg> args() const {
    std::vector<ir::InterpreterArg> a;
    const int64_t n = 100 * boxes;
    a.push_back(ir::InterpreterArg::of_array(buffer_of(ir::ScalarType::F64, {n, 4}, rv.data())));
    a.push_back(ir::InterpreterArg::of_array(buffer_of(ir::ScalarType::F64, {n}, qv.data())));
    a.push_back(ir::InterpreterArg::of_array(buffer_of(ir::ScalarType::F64, {n, 4}, fv.data())));
    a.push_back(ir::InterpreterArg::of_array(buffer_of(ir::ScalarType::I32, {boxes}, nn.data())));
    a.push_back(
        ir::InterpreterArg::of_array(buffer_of(ir::ScalarType::I32, {boxes, 26}, nei.data())));
    a.push_back(ir::InterpreterArg::of_scalar(ir::float_value(ir::ScalarType::F64, 0.5)));
    return a;
  }
  // The sums in C++, in the kernel's order.
  std::vector<double> reference() const {
    std::vector<double> out(fv.size());
    const double a2 = 2.0 * 0.5 * 0.5;
    for (int64_t home = 0; home < boxes; ++home)
      for (int64_t i = 0; i < 100; ++i) {
        const size_t p = static_cast<size_t>(100 * home + i);
        double f[4] = {0, 0, 0, 0};
        for (int64_t k = 0; k < 1 + nn[size_t(home)]; ++k) {
          const int64_t other = k == 0 ? home : nei[size_t(26 * home + k - 1)];
          for (int64_t jj = 100 * other; jj < 100 * other + 100; ++jj) {
            const size_t j = static_cast<size_t>(jj);
            const double dot = rv[4 * p + 1] * rv[4 * j + 1] + rv[4 * p + 2] * rv[4 * j + 2] +
                               rv[4 * p + 3] * rv[4 * j + 3];
            const double vij = std::exp(-(a2 * (rv[4 * p] + rv[4 * j] - dot)));
            const double fs = 2.0 * vij;
            f[0] += qv[j] * vij;
            for (size_t d = 1; d < 4; ++d)
              f[d] += qv[j] * (fs * (rv[4 * p + d] - rv[4 * j + d]));
          }
        }
        for (size_t d = 0; d < 4; ++d)
          out[4 * p + d] = f[d];
      }
    return out;
  }
};

} // namespace

// The GPU's lowering: a block of 100 threads for each box, the neighbour box's coordinates and
// charges copied to shared memory before each run of the loop over its particles and read only
// there; the CPU and a bounds-checked kernel keep the default mapping.
TEST(BlockReadsLowering, LavaMDsBoxesReadTheirNeighboursFromSharedMemory) {
  Module m = compile(source);
  const ir::LoweredKernel gpu = lowered(m["lavaMD"], ir::Target::GPU);
  const std::string text = ir::to_string(gpu);
  ASSERT_EQ(gpu.tasks.size(), 1u) << text;
  EXPECT_EQ(gpu.tasks[0].threads, 100);
  ASSERT_EQ(gpu.tasks[0].block_reads.size(), 1u);
  EXPECT_EQ(gpu.tasks[0].block_reads[0],
            "a block of 100 threads for each (home), one for each 'i'; before each run of the "
            "loop over 'j' its threads copy 100 elements of each of rv[j, 1], rv[j, 2], rv[j, 3], "
            "rv[j, 0], qv[j] to shared memory, which all of them read there");
  EXPECT_EQ(gpu.shared.size(), 5u);
  // The loop reads the neighbours from shared memory only; the particle's own row stays.
  EXPECT_EQ(text.find("rv[j, "), std::string::npos) << text;
  EXPECT_EQ(text.find("qv[j]"), std::string::npos) << text;
  EXPECT_NE(text.find("rv[j_first + j_copied, 1]"), std::string::npos) << text;
  EXPECT_NE(text.find("rv[p, 1]"), std::string::npos) << text;
  EXPECT_EQ(lowered(m["lavaMD"], ir::Target::CPU).tasks[0].threads, 0);
  EXPECT_TRUE(lowered(m["lavaMD"], ir::Target::GPU, true).tasks[0].block_reads.empty());

  const ir::LoweredKernel mix = lowered(m["mix"], ir::Target::GPU);
  ASSERT_EQ(mix.tasks[0].block_reads.size(), 1u) << ir::to_string(mix);
  EXPECT_EQ(mix.tasks[0].threads, 80);
}

// The interpreter runs the GPU's lowering (blocks of 100 threads, each box's barriers, races
// checked): the bits of the kernel as written, for boxes with no neighbour and up to 26.
TEST(BlockReadsLowering, LavaMDGivesTheKernelsBits) {
  Module m = compile(source);
  const ir::Kernel kernel = m["lavaMD"].ir();
  const ir::LoweredKernel gpu = lowered(m["lavaMD"], ir::Target::GPU);
  for (int64_t boxes : {int64_t(1), int64_t(3), int64_t(9)}) {
    SCOPED_TRACE("boxes " + std::to_string(boxes));
    const Particles particles(boxes, unsigned(boxes));
    std::vector<ir::InterpreterArg> want = particles.args(), got = particles.args();
    ir::interpret(kernel, want);
    ir::interpret(gpu, got);
    for (int64_t e = 0; e < 400 * boxes; ++e)
      ASSERT_EQ(got[2].array.get(e).f, want[2].array.get(e).f) << "element " << e;
  }
}

// A 3-D loop: the block's outer indices (p, q) from its index, the copies from a loop whose
// bounds are a scalar parameter's; the bits of the kernel as written.
TEST(BlockReadsLowering, ThreeDimensionsGiveTheKernelsBits) {
  Module m = compile(source);
  const ir::Kernel kernel = m["mix"].ir();
  const ir::LoweredKernel gpu = lowered(m["mix"], ir::Target::GPU);
  const int64_t n = 37, b = 3, c = 5;
  const std::vector<float> x =
      loomtest::random_vector<float>(static_cast<size_t>(3 * n), -1.0, 1.0, 11u);
  for (int64_t first : {int64_t(0), int64_t(9)}) {
    auto args_of = [&] {
      std::vector<ir::InterpreterArg> a;
      const std::vector<float> y(static_cast<size_t>(b * c * 80), 0.0f);
      a.push_back(ir::InterpreterArg::of_array(buffer_of(ir::ScalarType::F32, {n, 3}, x.data())));
      a.push_back(
          ir::InterpreterArg::of_array(buffer_of(ir::ScalarType::F32, {b, c, 80}, y.data())));
      a.push_back(ir::InterpreterArg::of_scalar(ir::int_value(ir::ScalarType::I64, first)));
      return a;
    };
    std::vector<ir::InterpreterArg> want = args_of(), got = args_of();
    ir::interpret(kernel, want);
    ir::interpret(gpu, got);
    for (int64_t e = 0; e < b * c * 80; ++e)
      ASSERT_EQ(got[1].array.get(e).f, want[1].array.get(e).f) << "element " << e;
  }
}

// Forms the pass cannot prove keep the default mapping: too few threads for a block, an extent
// that is not a constant, a loop whose bounds or whose place differ between a block's threads, a
// loop reading an array the task writes, a short loop, an update that combines, and loops whose
// loads name a value of their own body, a thread's value or sit in a select's arm.
TEST(BlockReadsLowering, FormsItCannotProveKeepTheDefaultMapping) {
  Module m = compile(R"(
@kernel
def few_threads(x: f32[n], y: f32[b, 32]):
    for o, i in parallel(b, 32):
        acc: f32 = 0.0
        for j in range(20):
            acc += x[j]
        y[o, i] = acc

@kernel
def not_constant(x: f32[n], y: f32[b, m]):
    for o, i in parallel(b, m):
        acc: f32 = 0.0
        for j in range(20):
            acc += x[j]
        y[o, i] = acc

@kernel
def thread_bounds(x: f32[n], y: f32[b, 64]):
    for o, i in parallel(b, 64):
        acc: f32 = 0.0
        for j in range(i, i + 20):
            acc += x[j]
        y[o, i] = acc

@kernel
def divergent(x: f32[n], y: f32[b, 64]):
    for o, i in parallel(b, 64):
        acc: f32 = 0.0
        if i < 50:
            for j in range(20):
                acc += x[j]
        y[o, i] = acc

@kernel
def written(x: f32[b, 64], y: f32[b, 64]):
    for o, i in parallel(b, 64):
        acc: f32 = 0.0
        for j in range(20):
            acc += x[o, j]
        x[o, i] = acc
        y[o, i] = acc

@kernel
def short(x: f32[n], y: f32[b, 64]):
    for o, i in parallel(b, 64):
        acc: f32 = 0.0
        for j in range(8):
            acc += x[j]
        y[o, i] = acc

@kernel
def combines(x: f32[n], y: f32[b, 64], total: f32[1]):
    for o, i in parallel(b, 64):
        acc: f32 = 0.0
        for j in range(20):
            acc += x[j]
        y[o, i] = acc
        total[0] += acc

@kernel
def own_index(x: f32[n], y: f32[b, 64]):
    for o, i in parallel(b, 64):
        acc: f32 = 0.0
        for j in range(20):
            k = 2 * j
            acc += x[k]
        y[o, i] = acc

@kernel
def thread_index(x: f32[n], y: f32[b, 64]):
    for o, i in parallel(b, 64):
        acc: f32 = 0.0
        s = i % 3
        for j in range(20):
            acc += x[s + j]
        y[o, i] = acc

@kernel
def in_select(x: f32[n], y: f32[b, 64]):
    for o, i in parallel(b, 64):
        acc: f32 = 0.0
        for j in range(20):
            acc += x[j] if i > 3 else 0.0
        y[o, i] = acc
)");
  for (const char *name : {"few_threads", "not_constant", "thread_bounds", "divergent", "written",
                           "short", "combines", "own_index", "thread_index", "in_select"}) {
    SCOPED_TRACE(name);
    const ir::LoweredKernel gpu = lowered(m[name], ir::Target::GPU);
    for (const ir::Task &t : gpu.tasks) {
      EXPECT_TRUE(t.block_reads.empty()) << ir::to_string(gpu);
      EXPECT_EQ(t.threads, 0) << ir::to_string(gpu);
    }
  }
}

// Each target: lavaMD's potentials and forces are a C++ loop's within 1e-12 of each sum's
// magnitude (exp's last bit differs between libraries); on the GPU also over 1,000 boxes
// (Rodinia's size).
TEST_P(BlockReads, LavaMDIsTheLoops) {
  Module m = compile(source);
  Kernel lava = m["lavaMD"];
  prepare(lava);
  std::vector<int64_t> sizes = {1, 7};
  if (target() == ir::Target::GPU)
    sizes.push_back(1000);
  for (int64_t boxes : sizes) {
    SCOPED_TRACE("boxes " + std::to_string(boxes));
    Particles p(boxes, unsigned(boxes + 40));
    const std::vector<double> want = p.reference();
    const int64_t n = 100 * boxes;
    lava(view(p.rv.data(), {n, 4}), view(p.qv.data(), {n}), view(p.fv.data(), {n, 4}),
         view(p.nn.data(), {boxes}), view(p.nei.data(), {boxes, 26}), 0.5);
    for (size_t e = 0; e < want.size(); ++e)
      ASSERT_NEAR(p.fv[e], want[e], 1e-12 * (1.0 + std::fabs(want[e]))) << "element " << e;
  }
  // The GPU's explain() names the block and what its threads copy.
  if (target() == ir::Target::GPU) {
    const std::string why = lava.explain();
    EXPECT_NE(why.find("one block of 100 threads for each iteration of the outer dimensions"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("its threads copy 100 elements of each of rv[j, 1]"), std::string::npos)
        << why;
  }
}

LOOM_INSTANTIATE_TARGETS(BlockReads);
