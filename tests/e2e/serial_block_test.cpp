// GPU serial tasks on one block (ir/SerialBlock.cpp): the loops whose iterations are shown
// independent split among 128 threads, the rest run by every thread. The GPU's lowering of lud's
// diagonal block, of a shifted copy and of loops that must stay in order; the interpreter runs
// each lowering (in CI), its race check on (a thread's write and another thread's access with
// no barrier between is an error), to the bits of the loops in C++; a wrong choice of loops is
// caught by that check. On both targets, the kernels' results. Random inputs.
#include "support/LudDiagonal.h"
#include "support/TestUtil.h"

#include "ir/Build.h"
#include "ir/Interpreter.h"
#include "ir/Lower.h"
#include "ir/Passes.h"
#include "ir/Printer.h"

#include <random>

using namespace loom;

namespace {

class SerialBlock : public loomtest::TargetTest {};

const std::string source = loomtest::lud_diagonal_source + R"(
@kernel
def shifted(x: f64[n], y: f64[n]):
    y[0] = x[0]
    for k in range(n - 1):
        y[k + 1] = x[k] * 0.5 + x[k + 1]
    y[0] = y[0] + y[n - 1]

@kernel
def prefix(x: f64[n]):
    for k in range(1, n):
        x[k] = x[k - 1] + x[k]

@kernel
def carried(x: f64[n], y: f64[n]):
    s = 0.0
    for k in range(n):
        s = s + x[k]
        y[k] = s

@kernel
def reversed(x: f64[n]):
    for k in range(n / 2):
        t = x[k]
        x[k] = x[n - 1 - k]
        x[n - 1 - k] = t
)";

ir::Buffer buffer_of(const std::vector<double> &v) {
  ir::Buffer b(ir::ScalarType::F64, {int64_t(v.size())});
  std::memcpy(b.data(), v.data(), v.size() * sizeof(double));
  return b;
}

std::vector<double> values_of(ir::Buffer &b) {
  std::vector<double> v(size_t(b.size()));
  std::memcpy(v.data(), b.data(), v.size() * sizeof(double));
  return v;
}

// The GPU lowering's first serial task, or its task on a block.
const ir::Task &serial_task(const ir::LoweredKernel &l) {
  for (const ir::Task &t : l.tasks)
    if (t.kind == ir::TaskKind::Serial || !t.serial_block.empty())
      return t;
  return l.tasks.at(0);
}

} // namespace

// lud's diagonal block: the two loops over j split (their stores are of distinct elements, their
// reads of rows and columns below i), the loop over i kept in order in every thread.
TEST(SerialBlockLowering, LudsDiagonalBlockRunsOnABlock) {
  Module m = compile(source);
  ir::LoweredKernel gpu = ir::lower(m["diagonal"].ir(), ir::Target::GPU);
  const ir::Task &t = serial_task(gpu);
  EXPECT_EQ(t.kind, ir::TaskKind::Parallel);
  EXPECT_EQ(t.threads, 128);
  EXPECT_EQ(t.serial_block.rfind("one block: 2 of its loops (over j, j) split among the block's "
                                 "threads",
                                 0),
            0u)
      << t.serial_block;
  const std::string text = ir::to_string(gpu);
  EXPECT_NE(text.find("serial, on one block of 128 threads"), std::string::npos) << text;
  EXPECT_NE(text.find("for j in j_begin + j_step * i64(threadIdx.x) .. j_end step j_step * "
                      "i64(blockDim.x)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("for i in 0 .. 16 {"), std::string::npos) << text;
  // The CPU keeps its one thread, and so does a bounds-checked kernel.
  EXPECT_EQ(ir::lower(m["diagonal"].ir(), ir::Target::CPU).tasks.at(0).kind, ir::TaskKind::Serial);
  ir::Kernel checked = m["diagonal"].ir();
  checked.bounds_check = true;
  EXPECT_EQ(ir::lower(checked, ir::Target::GPU).tasks.at(0).kind, ir::TaskKind::Serial);

  for (int64_t o : {int64_t(0), int64_t(32)}) {
    const int64_t n = 48;
    std::vector<float> a = loomtest::lud_diagonal_input(n, uint32_t(o + 11)), want = a;
    loomtest::lud_diagonal_reference(want, n, o);
    ir::Buffer b(ir::ScalarType::F32, {n, n});
    std::memcpy(b.data(), a.data(), a.size() * sizeof(float));
    std::vector<ir::InterpreterArg> args;
    args.push_back(ir::InterpreterArg::of_array(std::move(b)));
    args.push_back(ir::InterpreterArg::of_scalar(ir::int_value(ir::ScalarType::I64, o)));
    ir::interpret(gpu, args);
    std::memcpy(a.data(), args[0].array.data(), a.size() * sizeof(float));
    for (size_t e = 0; e < a.size(); ++e)
      ASSERT_EQ(a[e], want[e]) << "o = " << o << ", element " << e;
  }
}

// A copy with a shift (y[k + 1] = f(x[k], x[k + 1])) between stores thread 0 makes: the loop
// splits, the stores before and after it see and are seen by every thread.
TEST(SerialBlockLowering, AShiftedCopySplitsBetweenThreadZerosStores) {
  Module m = compile(source);
  ir::LoweredKernel gpu = ir::lower(m["shifted"].ir(), ir::Target::GPU);
  EXPECT_EQ(serial_task(gpu).serial_block.rfind("one block: its loop over k splits", 0), 0u)
      << serial_task(gpu).serial_block;
  for (int64_t n : {int64_t(1), int64_t(2), int64_t(300)}) {
    std::vector<double> x = loomtest::random_vector<double>(size_t(n), -1, 1, uint64_t(n));
    std::vector<double> want(static_cast<size_t>(n));
    want[0] = x[0];
    for (int64_t k = 0; k + 1 < n; ++k)
      want[size_t(k + 1)] = x[size_t(k)] * 0.5 + x[size_t(k + 1)];
    want[0] = want[0] + want[size_t(n - 1)];
    std::vector<ir::InterpreterArg> args;
    args.push_back(ir::InterpreterArg::of_array(buffer_of(x)));
    args.push_back(ir::InterpreterArg::of_array(buffer_of(std::vector<double>(size_t(n)))));
    ir::interpret(gpu, args);
    EXPECT_EQ(values_of(args[1].array), want) << "n = " << n;
  }
}

// Loops whose iterations depend on each other keep one thread, and the lowering says why.
TEST(SerialBlockLowering, DependentLoopsKeepOneThread) {
  Module m = compile(source);
  struct Case {
    const char *kernel, *why;
  };
  for (const Case &c :
       {Case{"prefix", "for k: an element written at [k] may be read at [k - 1] by another "
                       "iteration"},
        Case{"carried", "for k: it assigns 's', declared before it"},
        Case{"reversed", "for k: an element written at [k] may be read at [x.shape[0] - 1 - k] "
                         "by another iteration"}}) {
    SCOPED_TRACE(c.kernel);
    const ir::LoweredKernel gpu = ir::lower(m[c.kernel].ir(), ir::Target::GPU);
    const ir::Task &t = serial_task(gpu);
    EXPECT_EQ(t.kind, ir::TaskKind::Serial);
    EXPECT_NE(t.serial_block.find(c.why), std::string::npos) << t.serial_block;
  }
  // A task that prints keeps one thread: its lines would be printed by every thread.
  Module printing = compile(R"(
@kernel
def printing(x: f64[n]):
    print(x[0])
    for k in range(n):
        x[k] = x[k] * 2.0
)");
  const ir::LoweredKernel gpu = ir::lower(printing["printing"].ir(), ir::Target::GPU);
  const ir::Task &t = serial_task(gpu);
  EXPECT_EQ(t.kind, ir::TaskKind::Serial);
  EXPECT_NE(t.serial_block.find("it prints"), std::string::npos) << t.serial_block;
}

// The interpreter's race check catches a loop split whose iterations depend on each other: the
// prefix sum's loop handed to the block by hand.
TEST(SerialBlockLowering, TheRaceCheckCatchesADependentLoopSplit) {
  Module m = compile(source);
  ir::LoweredKernel gpu = ir::lower(m["prefix"].ir(), ir::Target::GPU);
  ir::Task &t = gpu.tasks.at(0);
  ASSERT_EQ(t.kind, ir::TaskKind::Serial);
  std::set<const ir::For *> split;
  for (const ir::Stmt &s : ir::statements_of(t.body))
    if (auto *f = s.as<ir::For>())
      split.insert(f);
  ASSERT_EQ(split.size(), 1u);
  t = ir::map_serial_block(t, "prefix", gpu.params, 128, split, gpu.shared);
  std::vector<ir::InterpreterArg> args;
  args.push_back(
      ir::InterpreterArg::of_array(buffer_of(loomtest::random_vector<double>(40, -1, 1, 5))));
  try {
    ir::interpret(gpu, args);
    ADD_FAILURE() << "expected the race to be reported";
  } catch (const InterpreterError &e) {
    EXPECT_NE(std::string(e.what()).find("the lowered code races on element"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("with no barrier between"), std::string::npos) << e.what();
  }
}

// The kernels on each target: the C++ loops' results (bit for bit on the CPU; the GPU contracts
// lud's products and differences into fmas, docs/semantics.md "Floats").
TEST_P(SerialBlock, ResultsOfTheLoopsAsWritten) {
  Module m = compile(source);
  Kernel diagonal = m["diagonal"], shifted = m["shifted"], prefix = m["prefix"];
  prepare(diagonal), prepare(shifted), prepare(prefix);
  const int64_t n = 64;
  for (int64_t o : {int64_t(0), int64_t(48)}) {
    std::vector<float> a = loomtest::lud_diagonal_input(n, uint32_t(o + 3)), want = a;
    loomtest::lud_diagonal_reference(want, n, o);
    diagonal(view(a.data(), {n, n}), o);
    for (size_t e = 0; e < a.size(); ++e)
      if (target() == ir::Target::CPU)
        ASSERT_EQ(a[e], want[e]) << "element " << e;
      else
        ASSERT_NEAR(a[e], want[e], 1e-5) << "element " << e;
  }
  const int64_t len = 1000;
  std::vector<double> x = loomtest::random_vector<double>(size_t(len), -1, 1, 9), y(x.size());
  std::vector<double> want(x.size());
  want[0] = x[0];
  for (int64_t k = 0; k + 1 < len; ++k)
    want[size_t(k + 1)] = x[size_t(k)] * 0.5 + x[size_t(k + 1)];
  want[0] = want[0] + want[size_t(len - 1)];
  shifted(x, y);
  for (size_t e = 0; e < y.size(); ++e)
    ASSERT_NEAR(y[e], want[e], 1e-15) << "element " << e;
  std::vector<double> p = x, sums = x;
  for (size_t k = 1; k < sums.size(); ++k)
    sums[k] = sums[k - 1] + sums[k];
  prefix(p);
  EXPECT_EQ(p, sums);
}

LOOM_INSTANTIATE_TARGETS(SerialBlock);
