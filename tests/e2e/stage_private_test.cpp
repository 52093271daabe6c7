// An iteration's own elements in a local array on the GPU (ir/StagePrivate.cpp): the elements one
// iteration of a parallel loop writes and reads back in a sequential loop, in a box of at most 32
// that the loop's variables walk, are copied into a local array before the loop, read from it,
// and written to it and through to the array. lud's perimeter blocks have the form; the GPU's
// lowering stages them and the interpreter, running that lowering, computes the bits of the loops
// in C++ (in CI); on the GPU, the same results within the fma's contraction. Forms that do not
// qualify keep their loads. Random inputs.
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

class StagePrivate : public loomtest::TargetTest {};

// lud's perimeter: a thread per column of the blocks right of the diagonal block at (o, o), and
// one per row of the blocks below it; and a first-order recurrence along each row of 24.
const std::string source = R"(
@kernel
def right(a: f32[n, n], o: i64):
    for chunk, j in parallel((n - o - 16) / 16, 16):
        col = o + 16 * (chunk + 1)
        for i in range(16):
            s: f32 = 0.0
            for k in range(i):
                s += a[o + i, o + k] * a[o + k, col + j]
            top = a[o + i, col + j]
            a[o + i, col + j] = top - s

@kernel
def below(a: f32[n, n], o: i64):
    for chunk, i in parallel((n - o - 16) / 16, 16):
        row = o + 16 * (chunk + 1)
        for j in range(16):
            s: f32 = 0.0
            for k in range(j):
                s += a[row + i, o + k] * a[o + k, o + j]
            left = a[row + i, o + j]
            a[row + i, o + j] = (left - s) / a[o + j, o + j]

@kernel
def recurrence(x: f64[m, 24], y: f64[m, 24]):
    for r in parallel(m):
        y[r, 0] = x[r, 0]
        for i in range(1, 24):
            y[r, i] = 0.5 * y[r, i - 1] + x[r, i] * y[r, 0]
)";

void recurrence_reference(const std::vector<double> &x, std::vector<double> &y, int64_t m) {
  for (int64_t r = 0; r < m; ++r) {
    y[size_t(r * 24)] = x[size_t(r * 24)];
    for (int64_t i = 1; i < 24; ++i)
      y[size_t(r * 24 + i)] =
          0.5 * y[size_t(r * 24 + i - 1)] + x[size_t(r * 24 + i)] * y[size_t(r * 24)];
  }
}

// The staged lines of a lowered kernel's tasks.
std::string staged(const ir::LoweredKernel &k) {
  std::string out;
  for (const ir::Task &t : k.tasks)
    for (const std::string &s : t.staged)
      out += s + "\n";
  return out;
}

std::vector<float> interpret_lud(const Kernel &k, const std::vector<float> &a, int64_t n,
                                 int64_t o) {
  ir::Buffer buffer(ir::ScalarType::F32, {n, n});
  std::memcpy(buffer.data(), a.data(), a.size() * sizeof(float));
  std::vector<ir::InterpreterArg> args;
  args.push_back(ir::InterpreterArg::of_array(std::move(buffer)));
  args.push_back(ir::InterpreterArg::of_scalar(ir::int_value(ir::ScalarType::I64, o)));
  ir::interpret(lowered(k, ir::Target::GPU), args);
  std::vector<float> got(a.size());
  std::memcpy(got.data(), args[0].array.data(), got.size() * sizeof(float));
  return got;
}

} // namespace

// The GPU's lowering keeps each thread's column (row) of 16 in a local array, copied in before
// the loop over its rows (columns); the diagonal block's reads, provably outside it, stay loads.
// The interpreter, running that lowering, computes the loops' bits.
TEST(StagePrivateLowering, LudsPerimeterColumnsAndRowsLiveInLocalArrays) {
  Module m = compile(source);
  for (const char *name : {"right", "below"}) {
    SCOPED_TRACE(name);
    const ir::LoweredKernel gpu = lowered(m[name], ir::Target::GPU);
    const std::string text = ir::to_string(gpu);
    EXPECT_NE(text.find("for a_staged0_slot in 0 .. 16 {"), std::string::npos) << text;
    EXPECT_NE(staged(gpu).find("the 16 elements ["), std::string::npos) << staged(gpu);
    // The diagonal block's elements are read from the array.
    EXPECT_NE(text.find(std::string(name) == "right" ? "a[o + i, o + k]" : "a[o + k, o + j]"),
              std::string::npos)
        << text;
    // The CPU keeps the loads (its L1 cache forwards a store to the next load), and so does a
    // kernel under bounds checks.
    EXPECT_EQ(ir::to_string(lowered(m[name], ir::Target::CPU)).find("staged"), std::string::npos);
    EXPECT_EQ(ir::to_string(lowered(m[name], ir::Target::GPU, true)).find("staged"),
              std::string::npos);
  }
  const int64_t n = 80;
  for (int64_t o : {int64_t(0), int64_t(32)}) {
    std::vector<float> a = loomtest::lud_diagonal_input(n, uint32_t(o + 11));
    std::vector<float> want = a;
    loomtest::lud_right_reference(want, n, o);
    std::vector<float> got = interpret_lud(m["right"], a, n, o);
    for (size_t e = 0; e < got.size(); ++e)
      ASSERT_EQ(got[e], want[e]) << "right, o = " << o << ", element " << e;
    want = a;
    loomtest::lud_below_reference(want, n, o);
    got = interpret_lud(m["below"], a, n, o);
    for (size_t e = 0; e < got.size(); ++e)
      ASSERT_EQ(got[e], want[e]) << "below, o = " << o << ", element " << e;
  }
}

// A recurrence along a row of 24: every element read is one the loop stored (or the one before
// it), the box [r, 0 .. 23] takes them all.
TEST(StagePrivateLowering, ARecurrenceAlongARow) {
  Module m = compile(source);
  const ir::LoweredKernel gpu = lowered(m["recurrence"], ir::Target::GPU);
  EXPECT_NE(staged(gpu).find("array y: the 24 elements [r, 0..23]"), std::string::npos)
      << staged(gpu) << ir::to_string(gpu);
  const int64_t rows = 7;
  std::vector<double> x = loomtest::random_vector<double>(size_t(rows * 24), -1, 1, 91);
  std::vector<double> want(x.size());
  recurrence_reference(x, want, rows);
  std::vector<ir::InterpreterArg> args;
  ir::Buffer xb(ir::ScalarType::F64, {rows, 24});
  std::memcpy(xb.data(), x.data(), x.size() * sizeof(double));
  args.push_back(ir::InterpreterArg::of_array(std::move(xb)));
  args.push_back(ir::InterpreterArg::of_array(ir::Buffer(ir::ScalarType::F64, {rows, 24})));
  ir::interpret(gpu, args);
  for (size_t e = 0; e < want.size(); ++e)
    ASSERT_EQ(args[1].array.get(int64_t(e)).f, want[e]) << "element " << e;
}

// A serial task on one block (lud's diagonal block): its 16 x 16 elements in shared memory,
// copied in by the block's threads; a serial block whose accesses no box bounds keeps its loads.
// The interpreter, running the lowering with its check of races between the block's threads,
// computes the loops' bits.
TEST(StagePrivateLowering, ASerialBlocksElementsLiveInSharedMemory) {
  Module m = compile(loomtest::lud_diagonal_source + R"(
@kernel
def unbounded(y: f32[n, 8]):
    for i in range(1, n):
        for j in range(8):
            y[i, j] = y[i - 1, j] + f32(j)
)");
  const ir::LoweredKernel gpu = lowered(m["diagonal"], ir::Target::GPU);
  const std::string text = ir::to_string(gpu);
  EXPECT_NE(text.find("a_block0: shared f32[256]"), std::string::npos) << text;
  EXPECT_NE(staged(gpu).find("array a: the 256 elements [o + 0..15, o + 0..15] that the block "
                             "reads and writes are kept in shared memory (a_block0)"),
            std::string::npos)
      << staged(gpu);
  EXPECT_EQ(ir::to_string(lowered(m["diagonal"], ir::Target::GPU, true)).find("a_block0"),
            std::string::npos);
  const ir::LoweredKernel rows = lowered(m["unbounded"], ir::Target::GPU);
  EXPECT_NE(ir::to_string(rows).find("serial, on one block of 128 threads"), std::string::npos);
  EXPECT_EQ(staged(rows), "");

  const int64_t n = 48, o = 32;
  std::vector<float> a = loomtest::lud_diagonal_input(n, 20261206);
  std::vector<float> want = a;
  loomtest::lud_diagonal_reference(want, n, o);
  std::vector<float> got = interpret_lud(m["diagonal"], a, n, o);
  for (size_t e = 0; e < got.size(); ++e)
    ASSERT_EQ(got[e], want[e]) << "element " << e;
}

// Forms that do not qualify keep their loads: a box over 32 elements, a read the ranges cannot
// place outside the box (another iteration's row), a store outside the box, an update in place,
// a loop with no read of what it stores, and a kernel with a loop schedule.
TEST(StagePrivateLowering, OtherFormsKeepTheirLoads) {
  Module m = compile(R"(
@kernel
def too_long(y: f32[m, 40]):
    for r in parallel(m):
        for i in range(1, 40):
            y[r, i] = y[r, i - 1] * 0.5

@kernel
def neighbour_row(y: f32[m, 16]):
    for r in parallel(m):
        for i in range(1, 16):
            y[r, i] = y[(r + 1) % m, i - 1] + y[r, i - 1]

@kernel
def unbounded_store(y: f32[m, n]):
    for r in parallel(m):
        for i in range(1, n):
            y[r, i] = y[r, i - 1] + 1.0

@kernel
def in_place(y: f32[m, 16], x: f32[m]):
    for r in parallel(m):
        for i in range(16):
            y[r, i] += x[r]

@kernel
def write_only(y: f32[m, 16], x: f32[m]):
    for r in parallel(m):
        for i in range(16):
            y[r, i] = x[r] * f32(i)

@kernel(unroll=(i, 2))
def scheduled(y: f32[m, 16]):
    for r in parallel(m):
        for i in range(1, 16):
            y[r, i] = y[r, i - 1] * 0.5
)");
  for (const char *name :
       {"too_long", "neighbour_row", "unbounded_store", "in_place", "write_only", "scheduled"}) {
    SCOPED_TRACE(name);
    const ir::LoweredKernel gpu = lowered(m[name], ir::Target::GPU);
    EXPECT_EQ(staged(gpu), "");
    EXPECT_EQ(ir::to_string(gpu).find("staged"), std::string::npos) << ir::to_string(gpu);
  }
}

// The kernels on each target: the C++ loops' results (bit for bit on the CPU; on the GPU within
// the fma's contraction of a product and a sum, docs/semantics.md "Floats").
TEST_P(StagePrivate, ResultsOfTheLoopsAsWritten) {
  Module m = compile(source);
  Kernel right = m["right"], below = m["below"], recurrence = m["recurrence"];
  prepare(right);
  prepare(below);
  prepare(recurrence);
  const int64_t n = 128;
  for (int64_t o : {int64_t(0), int64_t(48)}) {
    std::vector<float> a = loomtest::lud_diagonal_input(n, uint32_t(o + 3));
    std::vector<float> b = a, want = a, want_b = a;
    loomtest::lud_right_reference(want, n, o);
    loomtest::lud_below_reference(want_b, n, o);
    right(view(a.data(), {n, n}), o);
    below(view(b.data(), {n, n}), o);
    for (size_t e = 0; e < a.size(); ++e) {
      if (target() == ir::Target::CPU) {
        ASSERT_EQ(a[e], want[e]) << "right, element " << e;
        ASSERT_EQ(b[e], want_b[e]) << "below, element " << e;
      } else {
        ASSERT_NEAR(a[e], want[e], 1e-4 * (1 + std::fabs(want[e]))) << "right, element " << e;
        ASSERT_NEAR(b[e], want_b[e], 1e-4 * (1 + std::fabs(want_b[e]))) << "below, element " << e;
      }
    }
  }
  const int64_t rows = 3000;
  std::vector<double> x = loomtest::random_vector<double>(size_t(rows * 24), -1, 1, 92);
  std::vector<double> y(x.size()), want(x.size());
  recurrence_reference(x, want, rows);
  recurrence(view(x.data(), {rows, 24}), view(y.data(), {rows, 24}));
  for (size_t e = 0; e < y.size(); ++e)
    ASSERT_NEAR(y[e], want[e], 1e-13 * (1 + std::fabs(want[e]))) << "element " << e;
}

LOOM_INSTANTIATE_TARGETS(StagePrivate);
