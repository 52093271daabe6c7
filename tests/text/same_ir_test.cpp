// The text DSL and the embedded C++ DSL build the same IR for the same kernel: the printed IR of
// a traced lambda and of the parsed text must be equal, character for character.
#include "frontend/DSL.h"
#include "frontend/text/Compile.h"
#include "ir/AccessSummary.h"
#include "ir/Printer.h"
#include "support/Error.h"

#include <gtest/gtest.h>

using namespace loom;

namespace {

// The one kernel of `source`.
ir::Kernel parse_one(const std::string &source) {
  std::vector<ir::Kernel> kernels = text::parse_kernels(source, "test.loom");
  EXPECT_EQ(kernels.size(), 1u);
  return kernels.at(0);
}

#define EXPECT_SAME_IR(traced, source)                                                             \
  do {                                                                                             \
    std::string from_cpp_ = ir::to_string(traced), from_text_ = ir::to_string(parse_one(source));  \
    EXPECT_EQ(from_text_, from_cpp_) << "text:\n" << from_text_ << "embedded:\n" << from_cpp_;     \
  } while (0)

TEST(SameIR, Saxpy) {
  ir::Kernel cpp = trace("saxpy",
                         [](F32 a, Array<float> x, Array<float> y) {
                           parallel_for(x.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
                         },
                         {"a", "x", "y"});
  EXPECT_SAME_IR(cpp, R"(
@kernel
def saxpy(a: f32, x: f32[n], y: f32[n]):
    for i in parallel(n):
        y[i] = a * x[i] + y[i]
)");
}

TEST(SameIR, Matmul) {
  ir::Kernel cpp = trace("matmul",
                         [](Array2<float> A, Array2<float> B, Array2<float> C) {
                           parallel_for({A.dim(0), B.dim(1)}, [&](Index i, Index j) {
                             Var<float> acc("acc", 0.0f);
                             for_range(A.dim(1), [&](Index k) { acc += A(i, k) * B(k, j); });
                             C(i, j) = acc;
                           });
                         },
                         {"A", "B", "C"});
  EXPECT_SAME_IR(cpp, R"(
@kernel
def matmul(A: f32[N, K], B: f32[K, M], C: f32[N, M]):
    for i, j in parallel(N, M):
        acc: f32 = 0.0
        for k in range(K):
            acc += A[i, k] * B[k, j]
        C[i, j] = acc
)");
}

TEST(SameIR, CollatzWhileAndBranches) {
  ir::Kernel cpp =
      trace("collatz",
            [](Array<int64_t> start, Array<int32_t> steps) {
              parallel_for(start.size(), [&](Index i) {
                Var<int64_t> n("n", start[i]);
                Var<int32_t> count("count", 0);
                while_(n != 1, [&] {
                  if_(n % 2 == 0, [&] { n = n / 2; }).elif_(n == 5, [&] { n = 16; }).else_([&] {
                    n = 3 * n + 1;
                  });
                  count += 1;
                });
                steps[i] = count;
              });
            },
            {"start", "steps"});
  EXPECT_SAME_IR(cpp, R"(
@kernel
def collatz(start: i64[N], steps: i32[N]):
    for i in parallel(N):
        n = start[i]
        count: i32 = 0
        while n != 1:
            if n % 2 == 0:
                n = n / 2
            elif n == 5:
                n = 16
            else:
                n = 3 * n + 1
            count += 1
        steps[i] = count
)");
}

TEST(SameIR, ThreeDimensionsShapesAndSize) {
  ir::Kernel cpp =
      trace("fill3",
            [](Array3<int64_t> a, Array<float> w) {
              parallel_for({a.dim(0), a.dim(1), a.dim(2)}, [&](Index i, Index j, Index k) {
                a(i, j, k) = i * 1000000 + j * 1000 + k + a.size() + w.dim(0);
              });
            },
            {"a", "w"});
  EXPECT_SAME_IR(cpp, R"(
@kernel
def fill3(a: i64[L, M, N], w: f32[3]):
    for i, j, k in parallel(L, M, a.shape[2]):
        a[i, j, k] = i * 1000000 + j * 1000 + k + a.size + len(w)
)");
}

// Helper functions are inlined where they are called, with fresh locals each time.
F32 sq(F32 x) {
  return x * x;
}
F32 norm(F32 x, F32 y) {
  Var<float> s("s", x * x + y * y);
  return sqrt(s);
}
F32 twice(Array<float> v, Index i) {
  return v[i] * 2.0f;
}
void clear_if_negative(Array<float> v, Index i) {
  if_(v[i] < 0.0f, [&] { v[i] = 0.0f; });
}

TEST(SameIR, HelperFunctions) {
  ir::Kernel cpp = trace("helpers",
                         [](Array<float> x, Array<float> y) {
                           parallel_for(x.size(), [&](Index i) {
                             // C++ leaves the order of operands unspecified; the text DSL goes left
                             // to right.
                             F32 a = norm(x[i], y[i]);
                             F32 b = norm(1.0f, sq(x[i]));
                             y[i] = sq(x[i]) + sq(2.0f) + a + b + twice(x, i);
                             clear_if_negative(y, i);
                           });
                         },
                         {"x", "y"});
  EXPECT_SAME_IR(cpp, R"(
def sq(x: f32) -> f32:
    return x * x

def norm(x: f32, y: f32) -> f32:
    s = x * x + y * y
    return sqrt(s)

def twice(v: f32[m], i: i64) -> f32:
    return v[i] * 2.0

@kernel
def helpers(x: f32[n], y: f32[n]):
    for i in parallel(n):
        y[i] = sq(x[i]) + sq(2.0) + norm(x[i], y[i]) + norm(1.0, sq(x[i])) + twice(x, i)
        clear_if_negative(y, i)

def clear_if_negative(v: f32[m], i: i64):
    if v[i] < 0.0:
        v[i] = 0.0
)");
}

TEST(SameIR, PromotionCastsAndLiterals) {
  ir::Kernel cpp =
      trace("mix",
            [](I32 n, F32 f, F64 d, I64 l, Array<double> out, Array<int32_t> iout) {
              parallel_for(out.size(), [&](Index i) {
                out[i] = n + f;
                out[i] = i * 0.5 + f * 2.0 + n * 2 + l * (1.0 / 3.0) + f * (1.0 / 3.0);
                out[i] = sqrt(n) + pow(f, 2) + fma(d, d, f) + fma(n, n, 1) + min(n, d) + max(f, 1);
                out[i] = abs(n) + abs(f) + floor(d) + exp(f) + log(l) + sin(d) + cos(f) + tanh(n);
                out[i] = select(n > 2, f, d) + select(f < 1.0, 1, 2.5) + cast<int64_t>(d) +
                         cast<float>(0.1) + cast<bool>(f) + cast<int32_t>(true);
                Var<bool> c("c", (n > 1) && (f < 2.0f));
                Var<int32_t> t("t", 0);
                t += 1.5;
                t <<= 2;
                t %= n;
                Var<int64_t> u("u", (n << 2) + ((n & 3) ^ 1) + (~n | 4) + (l >> 1) + (1 << n));
                Var<int32_t> v("v", -c + (c == c) + (!c) + (c & true) + (c | (n > 0)));
                Var<int32_t> w("w", -2147483648LL + n + 2147483647 + 0x7fffffffffffffffLL);
                if_(n, [&] {
                  iout[i] = t + u + v;
                }).elif_(f, [&] {
                    iout[i] = cast<int32_t>(w);
                  }).else_([&] { iout[i] -= 3 * (7 - 10) / 2 % 5; });
                iout[i] += -(-3.5 * 2);
                out[i] *= (3 > 2) && !(1.0 == 2);
              });
            },
            {"n", "f", "d", "l", "out", "iout"});
  EXPECT_SAME_IR(cpp, R"(
@kernel
def mix(n: i32, f: f32, d: f64, l: i64, out: f64[N], iout: i32[N]):
    for i in parallel(N):
        out[i] = n + f
        out[i] = i * 0.5 + f * 2.0 + n * 2 + l * (1.0 / 3.0) + f * (1.0 / 3.0)
        out[i] = sqrt(n) + pow(f, 2) + fma(d, d, f) + fma(n, n, 1) + min(n, d) + max(f, 1)
        out[i] = abs(n) + abs(f) + floor(d) + exp(f) + log(l) + sin(d) + cos(f) + tanh(n)
        out[i] = (f if n > 2 else d) + (1 if f < 1.0 else 2.5) + i64(d) + f32(0.1) + bool(f) + i32(True)
        c = n > 1 and f < 2.0
        t: i32 = 0
        t += 1.5
        t <<= 2
        t %= n
        u = (n << 2) + ((n & 3) ^ 1) + (~n | 4) + (l >> 1) + (1 << n)
        v = -c + (c == c) + (not c) + (c & True) + (c | (n > 0))
        w = -2147483648 + n + 2147483647 + 0x7fffffffffffffff
        if n:
            iout[i] = t + u + v
        elif f:
            iout[i] = i32(w)
        else:
            iout[i] -= 3 * (7 - 10) / 2 % 5
        iout[i] += -(-3.5 * 2)
        out[i] *= 3 > 2 and not (1.0 == 2)
)");
}

TEST(SameIR, RangeForms) {
  ir::Kernel cpp = trace("ranges",
                         [](Array<float> x, I32 m) {
                           parallel_for(x.size(), [&](Index i) {
                             Var<float> s("s", 0.0f);
                             for_range(2, m, [&](Index k) { s += cast<float>(k); });
                             for_range(i, 100, 3, [&](Index k) { s -= x[k]; });
                             x[i] = s;
                           });
                         },
                         {"x", "m"});
  EXPECT_SAME_IR(cpp, R"(
@kernel
def ranges(x: f32[n], m: i32):
    for i in parallel(n):
        s: f32 = 0.0
        for k in range(2, m):
            s += f32(k)
        for k in range(i, 100, 3):
            s -= x[k]
        x[i] = s
)");
}

TEST(SameIR, SerialStatementsBetweenParallelLoops) {
  ir::Kernel cpp =
      trace("stages",
            [](Array<float> x, Array<float> y, F32 scale) {
              parallel_for(x.size(), [&](Index i) { x[i] = cast<float>(i) * scale; });
              x[0] = -1.0f;
              parallel_for(x.size(), [&](Index i) { y[i] = x[x.size() - 1 - i] + 0.5f; });
            },
            {"x", "y", "scale"});
  EXPECT_SAME_IR(cpp, R"(
@kernel
def stages(x: f32[n], y: f32[n], scale: f32):
    for i in parallel(n):
        x[i] = f32(i) * scale
    x[0] = -1.0
    for i in parallel(n):
        y[i] = x[n - 1 - i] + 0.5
)");
}

TEST(TextKernel, ShapeSymbolsOptionsAndParameters) {
  std::vector<ir::Kernel> ks = text::parse_kernels(R"(
@kernel(fastmath=True)
def mm(A: f32[N, K], B: f32[K, M], C: f32[N, M], v: f64[3], s: i64):
    pass

@kernel
def plain(x: bool[n]):
    pass

def unused_helper(x: f32) -> f32:
    return x
)");
  ASSERT_EQ(ks.size(), 2u);
  const ir::Kernel &k = ks[0];
  EXPECT_TRUE(k.fast_math);
  EXPECT_FALSE(ks[1].fast_math);
  EXPECT_EQ(ks[1].name, "plain");
  ASSERT_EQ(k.params.size(), 5u);
  EXPECT_EQ(k.params[3].name, "v");
  EXPECT_EQ(k.params[3].type, ir::ScalarType::F64);
  EXPECT_EQ(k.params[3].rank, 1);
  EXPECT_EQ(k.params[4].kind, ir::ParamKind::Scalar);
  ASSERT_EQ(k.shape_symbols.size(), 4u);
  using Dims = std::vector<std::pair<int, int>>;
  EXPECT_EQ(k.shape_symbols[0].name, "N");
  EXPECT_EQ(k.shape_symbols[0].dims, (Dims{{0, 0}, {2, 0}}));
  EXPECT_EQ(k.shape_symbols[1].name, "K");
  EXPECT_EQ(k.shape_symbols[1].dims, (Dims{{0, 1}, {1, 0}}));
  EXPECT_EQ(k.shape_symbols[2].name, "M");
  EXPECT_EQ(k.shape_symbols[3].name, "3");
  EXPECT_EQ(k.shape_symbols[3].extent, 3);
  EXPECT_EQ(k.shape_symbols[3].dims, (Dims{{3, 0}}));
}

// A helper's shape symbol that names two dimensions constrains the kernel's arguments.
TEST(TextKernel, HelperShapeSymbolsBecomeConstraints) {
  ir::Kernel k = parse_one(R"(
def dot(a: f32[m], b: f32[m]) -> f32:
    s: f32 = 0.0
    for k in range(m):
        s += a[k] * b[k]
    return s

@kernel
def k(x: f32[n], y: f32[p], z: f32[q], out: f32[1]):
    out[0] = dot(x, y) + dot(y, z)
)");
  ASSERT_EQ(k.shape_symbols.size(), 6u); // n, p, q, the literal 1, and dot's m twice
  EXPECT_EQ(k.shape_symbols[4].name, "m (in helper 'dot')");
  EXPECT_EQ(k.shape_symbols[4].dims, (std::vector<std::pair<int, int>>{{0, 0}, {1, 0}}));
  EXPECT_EQ(k.shape_symbols[5].dims, (std::vector<std::pair<int, int>>{{1, 0}, {2, 0}}));
  // Each inlining has its own locals.
  std::string text = ir::to_string(k);
  EXPECT_NE(text.find("var s: f32 = 0.0f"), std::string::npos) << text;
  EXPECT_NE(text.find("var s.1: f32 = 0.0f"), std::string::npos) << text;
  EXPECT_NE(text.find("out[0] = s + s.1"), std::string::npos) << text;
}

TEST(TextKernel, SyntaxVariants) {
  // Comments, blank lines, one-line bodies, brackets across lines, math., hex, pass, else: pass.
  ir::Kernel k = parse_one(R"(
# a comment
@kernel   # another
def k(x: f64[n],
      y: f64[n]):

    for i in parallel(n):  # trailing comment
        if x[i] > 0.0: y[i] = math.sqrt(x[i]) + math.pi
        else:
            pass
        while False: pass
        y[i] += (x[i] *
                 0x10)
)");
  std::string text = ir::to_string(k);
  EXPECT_NE(text.find("y[i] = sqrt(x[i]) + 3.14159"), std::string::npos) << text;
  EXPECT_NE(text.find("y[i] += x[i] * 16.0"), std::string::npos) << text;
}

TEST(TextKernel, TypeInferenceOfLocals) {
  ir::Kernel k = parse_one(R"(
@kernel
def k(x: f32[n], m: i32):
    a = 1
    b = 3000000000
    c = 2.0
    d = True
    e = x[0] * 2
    f = m * 0.5
    g: f64 = m
    x[0] = a + b + c + d + e + f + g
)");
  std::string text = ir::to_string(k);
  for (const char *line :
       {"var a: i32 = 1i32", "var b: i64 = 3000000000", "var c: f64 = 2.0", "var d: bool = true",
        "var e: f32 = x[0] * 2.0f", "var f: f64 = f64(m) * 0.5", "var g: f64 = f64(m)"})
    EXPECT_NE(text.find(line), std::string::npos) << line << " in\n" << text;
}

} // namespace

namespace {

// C's extents are bound to N and M, the extents of the loop, through the shape symbols: the
// kernel overwrites all of C, so a call copies it out only.
TEST(TextAccess, ShapeSymbolsProveAWholeOverwrite) {
  auto kernels = loom::text::parse_kernels(R"(
@kernel
def matmul(A: f32[N, K], B: f32[K, M], C: f32[N, M]):
    for i, j in parallel(N, M):
        acc: f32 = 0.0
        for k in range(K):
            acc += A[i, k] * B[k, j]
        C[i, j] = acc

@kernel
def transpose(A: f32[N, M], B: f32[M, N]):
    for i, j in parallel(N, M):
        B[i, j] = A[j, i]
)");
  auto mm = loom::ir::summarize_accesses(kernels[0]);
  EXPECT_TRUE(mm[2].fully_overwritten);
  EXPECT_FALSE(mm[0].fully_overwritten);
  // B is M x N but the loop runs over N x M: not provably the whole of B.
  EXPECT_FALSE(loom::ir::summarize_accesses(kernels[1])[1].fully_overwritten);
}

} // namespace
