// print(...) in kernels (loom::print, the text DSL's print): every scalar type formatted as
// ir/PrintFormat.h says, on both targets and in the interpreter, one whole line per call of each
// iteration (order across iterations is not defined: lines are compared as sorted lists), and
// stdout flushed before the call returns.
#include "support/TestUtil.h"

#include "ir/Interpreter.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <sstream>

using namespace loom;

namespace {

class Prints : public loomtest::TargetTest {};

std::vector<std::string> sorted_lines(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

// What the kernel below prints for element i, computed on the host as PrintFormat.h specifies.
std::string expected_line(int64_t i, float x, double d) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, "i = %lld x = %.9g d = %.17g even %s u8 %u", (long long)i,
                double(x), d, i % 2 == 0 ? "True" : "False", unsigned((i * 37) & 255));
  return buffer;
}

Kernel print_kernel() {
  return kernel("show",
                [](Array<float> x, Array<double> d) {
                  parallel_for(x.size(), [&](Index i) {
                    print("i =", i, "x =", x[i], "d =", d[i], "even", i % 2 == 0, "u8",
                          cast<uint8_t>(i * 37));
                  });
                },
                {"x", "d"});
}

TEST_P(Prints, EveryIterationPrintsOneLine) {
  Kernel k = print_kernel();
  prepare(k);
  const int64_t n = 300;
  std::vector<float> x = loomtest::random_vector<float>(n, -1e6, 1e6, 3);
  std::vector<double> d = loomtest::random_vector<double>(n, -1, 1, 4);
  x[0] = std::numeric_limits<float>::infinity();
  d[1] = -std::numeric_limits<double>::quiet_NaN();
  testing::internal::CaptureStdout();
  k(x, d);
  std::string out = testing::internal::GetCapturedStdout();
  std::vector<std::string> want;
  for (int64_t i = 0; i < n; ++i)
    want.push_back(expected_line(i, x[i], d[i]));
  want[1] =
      want[1].substr(0, want[1].find("d = ")) + "d = nan" + want[1].substr(want[1].find(" even"));
  std::sort(want.begin(), want.end());
  EXPECT_EQ(sorted_lines(out), want);
}

// Complex values print as Python's (re+imj); text keeps a '%' as it is.
TEST_P(Prints, ComplexAndPercent) {
  auto k = kernel("complex_show",
                  [](Array<std::complex<float>> z) {
                    parallel_for(z.size(), [&](Index i) { print("100%", z[i], i); });
                  },
                  {"z"});
  prepare(k);
  std::vector<std::complex<float>> z = {{1.5f, -2.25f}, {0.0f, 3.0f}};
  testing::internal::CaptureStdout();
  k(z);
  EXPECT_EQ(sorted_lines(testing::internal::GetCapturedStdout()),
            (std::vector<std::string>{"100% (0+3j) 1", "100% (1.5-2.25j) 0"}));
}

// The text DSL's print, in a SIMT kernel: each thread's line.
TEST_P(Prints, TextDslSimt) {
  Module m = compile(R"(
@kernel(simt=True)
def hello(x: i32[n]):
    i = grid(1)
    if i < len(x):
        print("thread", threadIdx.x, "of block", blockIdx.x, "holds", x[i], i < 2)
)");
  Kernel &k = m["hello"];
  prepare(k);
  std::vector<int32_t> x = {7, -8, 9, 10000};
  testing::internal::CaptureStdout();
  k.shape(2, 2)(x);
  EXPECT_EQ(sorted_lines(testing::internal::GetCapturedStdout()),
            (std::vector<std::string>{
                "thread 0 of block 0 holds 7 True", "thread 0 of block 1 holds 9 False",
                "thread 1 of block 0 holds -8 True", "thread 1 of block 1 holds 10000 False"}));
}

LOOM_INSTANTIATE_TARGETS(Prints);

// The interpreter prints the same lines, to the sink it is given.
TEST(PrintsInterpreter, SameLinesAsCompiledCode) {
  Kernel k = print_kernel();
  const int64_t n = 50;
  std::vector<float> x = loomtest::random_vector<float>(n, -1e6, 1e6, 5);
  std::vector<double> d = loomtest::random_vector<double>(n, -1, 1, 6);
  ir::Buffer bx(ir::ScalarType::F32, {n}), bd(ir::ScalarType::F64, {n});
  std::memcpy(bx.data(), x.data(), n * sizeof(float));
  std::memcpy(bd.data(), d.data(), n * sizeof(double));
  std::vector<ir::InterpreterArg> args{ir::InterpreterArg::of_array(bx),
                                       ir::InterpreterArg::of_array(bd)};
  std::string printed;
  ir::InterpreterOptions options;
  options.print_line = [&](const std::string &line) { printed += line; };
  ir::interpret(k.ir(), args, options);
  std::vector<std::string> want;
  for (int64_t i = 0; i < n; ++i)
    want.push_back(expected_line(i, x[i], d[i]));
  std::sort(want.begin(), want.end());
  EXPECT_EQ(sorted_lines(printed), want);
}

} // namespace
