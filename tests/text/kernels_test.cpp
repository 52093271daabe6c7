// Text-DSL kernels compiled with loom::compile and run on each target, checked against C++
// references; shape symbols checked at call time; the Module interface.
#include "support/TestUtil.h"

#include <cmath>
#include <complex>

using namespace loom;
using loomtest::random_vector;

namespace {

const char *source = R"(
# The kernels of this test, in one module.

@kernel
def saxpy(a: f32, x: f32[n], y: f32[n]):
    for i in parallel(n):
        y[i] = a * x[i] + y[i]

@kernel
def matmul(A: f32[N, K], B: f32[K, M], C: f32[N, M]):
    for i, j in parallel(N, M):
        acc: f32 = 0.0
        for k in range(K):
            acc += A[i, k] * B[k, j]
        C[i, j] = acc

@kernel
def collatz(start: i64[n], steps: i32[n]):
    for i in parallel(n):
        v = start[i]
        count: i32 = 0
        while v != 1:
            if v % 2 == 0:
                v = v / 2
            else:
                v = 3 * v + 1
            count += 1
        steps[i] = count

def escape_time(cr: f64, ci: f64, limit: i32) -> i32:
    zr = 0.0
    zi = 0.0
    it: i32 = 0
    while it < limit and zr * zr + zi * zi <= 4.0:
        t = zr * zr - zi * zi + cr
        zi = 2.0 * zr * zi + ci
        zr = t
        it += 1
    return it

@kernel
def mandelbrot(counts: i32[H, W], limit: i32):
    for y, x in parallel(H, W):
        cr = -2.0 + 2.5 * f64(x) / f64(W)
        ci = -1.25 + 2.5 * f64(y) / f64(H)
        counts[y, x] = escape_time(cr, ci, limit)

def flat(i: i64, j: i64, k: i64) -> i64:
    return (i * 1000 + j) * 1000 + k

@kernel
def fill3(a: i64[L, M, N], offset: i64):
    for i, j, k in parallel(L, M, N):
        a[i, j, k] = flat(i, j, k) + offset

@kernel
def rgb(pixels: f32[n, 3], gray: f32[n]):
    for i in parallel(n):
        gray[i] = 0.25 * pixels[i, 0] + 0.5 * pixels[i, 1] + 0.25 * pixels[i, 2]

@kernel(fastmath=True)
def scale(x: f32[n], s: f32):
    for i in parallel(n):
        x[i] = x[i] * s
)";

class TextKernels : public loomtest::TargetTest {
protected:
  static Module &module() {
    static Module m = compile(source, "kernels.loom");
    return m;
  }
  Kernel &get(const std::string &name) { return prepare(module()[name]); }
};

TEST_P(TextKernels, Saxpy) {
  Kernel &k = get("saxpy");
  for (size_t n : {size_t(0), size_t(1), size_t(1000), size_t(1) << 20}) {
    auto x = random_vector<float>(n, -1, 1, 31), y = random_vector<float>(n, -1, 1, 32);
    std::vector<float> y0 = y;
    k(1.5f, x, y);
    for (size_t i = 0; i < n; ++i)
      ASSERT_NEAR(y[i], 1.5 * x[i] + y0[i], 1e-6) << i;
  }
}

TEST_P(TextKernels, MatmulAgainstDoubleReference) {
  Kernel &k = get("matmul");
  const int64_t n = 61, m = 47, kk = 133;
  auto A = random_vector<float>(n * kk, -1, 1, 33), B = random_vector<float>(kk * m, -1, 1, 34);
  std::vector<float> C(n * m, NAN);
  k(view(A, {n, kk}), view(B, {kk, m}), view(C, {n, m}));
  loomtest::expect_matmul(A, B, C, n, kk, m);
}

TEST_P(TextKernels, CollatzExact) {
  Kernel &k = get("collatz");
  auto start = random_vector<int64_t>(5000, 1, 1000000, 35);
  std::vector<int32_t> steps(start.size(), -1);
  k(start, steps);
  for (size_t i = 0; i < start.size(); ++i)
    ASSERT_EQ(steps[i], loomtest::collatz_steps(start[i])) << start[i];
}

// A while loop in an inlined helper. Points near the set's border may take a different count
// when the GPU contracts a multiply-add, so a few differences are allowed.
TEST_P(TextKernels, MandelbrotEscapeTimes) {
  Kernel &k = get("mandelbrot");
  const int64_t h = 120, w = 160;
  const int32_t limit = 200;
  std::vector<int32_t> counts(h * w, -1);
  k(view(counts, {h, w}), limit);
  int64_t differ = 0, total = 0;
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) {
      double cr = -2.0 + 2.5 * double(x) / double(w), ci = -1.25 + 2.5 * double(y) / double(h);
      double zr = 0, zi = 0;
      int32_t it = 0;
      while (it < limit && zr * zr + zi * zi <= 4.0) {
        double t = zr * zr - zi * zi + cr;
        zi = 2.0 * zr * zi + ci;
        zr = t;
        ++it;
      }
      int32_t got = counts[y * w + x];
      ASSERT_GE(got, 0);
      ASSERT_LE(got, limit);
      differ += got != it;
      total += it;
    }
  EXPECT_LE(differ, h * w / 200) << "escape counts differing from the C++ reference";
  EXPECT_GT(total, h * w * 10); // the picture is not trivial
}

TEST_P(TextKernels, ThreeDimensionsWithHelper) {
  Kernel &k = get("fill3");
  std::vector<int64_t> a(37 * 53 * 71, -1);
  k(view(a, {37, 53, 71}), int64_t(7));
  for (int64_t i = 0; i < 37; ++i)
    for (int64_t j = 0; j < 53; ++j)
      for (int64_t l = 0; l < 71; ++l)
        ASSERT_EQ(a[(i * 53 + j) * 71 + l], (i * 1000 + j) * 1000 + l + 7);
}

TEST_P(TextKernels, LiteralExtentAndFastMath) {
  Kernel &k = get("rgb");
  auto px = random_vector<float>(3000, 0, 1, 36);
  std::vector<float> gray(1000);
  k(view(px, {1000, 3}), gray);
  for (int i = 0; i < 1000; ++i)
    ASSERT_NEAR(gray[i], 0.25 * px[3 * i] + 0.5 * px[3 * i + 1] + 0.25 * px[3 * i + 2], 1e-6);
  Kernel &s = get("scale");
  EXPECT_TRUE(s.ir().fast_math);
  std::vector<float> x(1000, 2.0f);
  s(x, 0.5f);
  EXPECT_EQ(x[999], 1.0f);
}

TEST_P(TextKernels, ShapeSymbolsAreCheckedAtCallTime) {
  Kernel &k = get("matmul");
  std::vector<float> A(10 * 64), B(32 * 5), C(10 * 5);
  try {
    k(view(A, {10, 64}), view(B, {32, 5}), view(C, {10, 5}));
    FAIL() << "no error";
  } catch (const ArgumentError &e) {
    EXPECT_STREQ(e.what(), "kernel matmul(A: f32[N, K], B: f32[K, M], C: f32[N, M]): shape "
                           "symbol K is 64 (A dimension 1) but 32 (B dimension 0); A has shape "
                           "[10, 64] and B has shape [32, 5]");
  }
  std::vector<float> x(4), y(5);
  try {
    get("saxpy")(1.0f, x, y);
    FAIL() << "no error";
  } catch (const ArgumentError &e) {
    EXPECT_STREQ(e.what(), "kernel saxpy(a: f32, x: f32[n], y: f32[n]): shape symbol n is 4 (x "
                           "dimension 0) but 5 (y dimension 0); x has shape [4] and y has shape "
                           "[5]");
  }
  std::vector<float> px(8), gray(2);
  try {
    get("rgb")(view(px, {2, 4}), gray);
    FAIL() << "no error";
  } catch (const ArgumentError &e) {
    EXPECT_STREQ(e.what(), "argument 1 ('pixels') of kernel 'rgb' has shape [2, 4], but its "
                           "dimension 1 must be 3");
  }
  // The usual argument checks still come first.
  EXPECT_THROW(k(A, B), ArgumentError);
}

LOOM_INSTANTIATE_TARGETS(TextKernels);

TEST(Module, NamesAndLookup) {
  Module m = compile(source);
  EXPECT_EQ(m.names(), (std::vector<std::string>{"saxpy", "matmul", "collatz", "mandelbrot",
                                                 "fill3", "rgb", "scale"}));
  EXPECT_TRUE(m.contains("matmul"));
  EXPECT_FALSE(m.contains("escape_time")); // helpers are not kernels
  try {
    m["escape_time"];
    FAIL();
  } catch (const ArgumentError &e) {
    EXPECT_STREQ(e.what(), "the module has no kernel 'escape_time'; its kernels are: saxpy, "
                           "matmul, collatz, mandelbrot, fill3, rgb, scale");
  }
  Module empty = compile("def f(x: f32) -> f32:\n    return x\n");
  EXPECT_TRUE(empty.names().empty());
  EXPECT_THROW(empty["f"], ArgumentError);
}

TEST(Module, KernelsAreOrdinaryKernels) {
  setenv("LOOM_TARGET", "cpu", 1);
  Module m = compile(source, "kernels.loom");
  Kernel saxpy = m["saxpy"]; // a copy shares the compiled code
  std::vector<float> x(10, 1.0f), y(10, 1.0f);
  saxpy(2.0f, x, y);
  EXPECT_EQ(y[9], 3.0f);
  EXPECT_NE(m["saxpy"].explain().find("target: CPU"), std::string::npos);
  EXPECT_NE(m["saxpy"].ir_text().find("parallel for i in (x.shape[0])"), std::string::npos);
  EXPECT_NE(m["matmul"].ptx("sm_90").find(".entry"), std::string::npos);
  // A const array that the kernel writes is refused, as for embedded kernels.
  const std::vector<float> cy(10);
  EXPECT_THROW(saxpy(2.0f, x, cy), ArgumentError);
  unsetenv("LOOM_TARGET");
}

TEST(Module, CompileErrorsAreSourceErrors) {
  try {
    compile("@kernel\ndef k(x: f32[n]):\n    x[0] = y\n", "bad.loom");
    FAIL();
  } catch (const SourceError &e) {
    EXPECT_STREQ(e.what(), "bad.loom:3:12: error: unknown name 'y'\n"
                           "    x[0] = y\n"
                           "           ^\n");
  }
}

} // namespace
