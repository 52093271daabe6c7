// The text DSL and the embedded C++ DSL build the same IR for the same kernel: the printed IR of
// a traced lambda and of the parsed text must be equal, character for character.
#include "frontend/DSL.h"
#include "frontend/text/Compile.h"
#include "ir/AccessSummary.h"
#include "ir/Mutator.h"
#include "ir/Printer.h"
#include "support/Error.h"

#include <gtest/gtest.h>

#include <complex>
#include <map>

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

TEST(SameIR, ComplexNumbers) {
  using namespace std::complex_literals;
  using c64 = std::complex<float>;
  using c128 = std::complex<double>;
  ir::Kernel cpp = trace("complex_mix",
                         [](C64 s, F32 f, Array<c64> z, Array<c128> w, Array<float> re) {
                           parallel_for(z.size(), [&](Index i) {
                             z[i] = z[i] * s + f * 2.0i - conj(z[i]) / C64(1, f);
                             w[i] = w[i] * 2.0 + z[i] + exp(w[i]) + sqrt(z[i]) + pow(w[i], 0.5);
                             re[i] = abs(z[i]) + real(w[i]) * imag(z[i]) + cast<float>(z[i]);
                             Var<c64> acc("acc", 1.0f);
                             acc *= z[i];
                             acc += 1.0i;
                             z[i] = select(z[i] == acc, acc, -z[i]);
                             w[0] += cast<c128>(acc);
                           });
                         },
                         {"s", "f", "z", "w", "re"});
  EXPECT_SAME_IR(cpp, R"(
@kernel
def complex_mix(s: c64, f: f32, z: c64[N], w: c128[N], re: f32[N]):
    for i in parallel(N):
        z[i] = z[i] * s + f * 2j - conj(z[i]) / c64(1, f)
        w[i] = w[i] * 2.0 + z[i] + exp(w[i]) + sqrt(z[i]) + pow(w[i], 0.5)
        re[i] = abs(z[i]) + w[i].real * imag(z[i]) + f32(z[i])
        acc: c64 = 1.0
        acc *= z[i]
        acc += 1j
        z[i] = acc if z[i] == acc else -z[i]
        w[0] += c128(acc)
)");
}

// 16-bit float scalars: a parameter, locals, weak literals, promotion with f32 and integers.
TEST(SameIR, HalfScalars) {
  ir::Kernel cpp = trace("half_mix",
                         [](Array<float> x, F16 h, BF16 g, I32 m, Array<f16> y) {
                           parallel_for(x.size(), [&](Index i) {
                             Var<f16> t("t", cast<f16>(x[i]) * h);
                             t += 1.5;
                             t *= m;
                             Var<bf16> b("b", g * 2 - cast<bf16>(x[i]));
                             x[i] = t * x[i] + b + sqrt(t) + abs(h);
                             y[i] = select(t < h, t, max(h, 0.25)) + cast<f16>(b);
                           });
                         },
                         {"x", "h", "g", "m", "y"});
  EXPECT_SAME_IR(cpp, R"(
@kernel
def half_mix(x: f32[N], h: f16, g: bf16, m: i32, y: f16[N]):
    for i in parallel(N):
        t: f16 = f16(x[i]) * h
        t += 1.5
        t *= m
        b: bf16 = g * 2 - bf16(x[i])
        x[i] = t * x[i] + b + sqrt(t) + abs(h)
        y[i] = (t if t < h else max(h, 0.25)) + f16(b)
)");
}

TEST(SameIR, TheWholeMathLibrary) {
  ir::Kernel cpp = trace(
      "maths",
      [](I32 n, F32 f, F64 d, I64 l, Array<double> out, Array<float> fout, Array<bool> flags) {
        parallel_for(out.size(), [&](Index i) {
          out[i] = acos(d) + acosh(f) + asin(n) + asinh(d) + atan(f) + atan2(d, f) + atanh(l);
          out[i] = cbrt(d) + ceil(f) + copysign(d, -1) + cosh(n) + erf(d) + erfc(f) + exp2(d);
          out[i] = expm1(f) + gamma(d) + hypot(n, f) + ldexp(d, n) + ldexp(f, l) + lgamma(d);
          out[i] = log10(d) + log1p(f) + log2(n) + remainder(d, 3) + round(f) + rsqrt(d);
          out[i] = sign(d) + sign(n) + sinh(f) + tan(d) + trunc(f) + fabs(n) + fmod(d, 2.5);
          out[i] = fmod(n, 3) + degrees(f) + radians(d) + radians(n);
          fout[i] = sqrt(f) * exp(f) / log(f) - pow(f, 3) + floor(f) + abs(f) + fma(f, f, 1);
          fout[i] = ldexp(f, 3) + copysign(f, -0.0) + round(f + 0.5) + sign(-n) + cbrt(f);
          flags[i] = isfinite(d) || isinf(f) || isnan(n);
        });
      },
      {"n", "f", "d", "l", "out", "fout", "flags"});
  EXPECT_SAME_IR(cpp, R"(
@kernel
def maths(n: i32, f: f32, d: f64, l: i64, out: f64[N], fout: f32[N], flags: bool[N]):
    for i in parallel(N):
        out[i] = math.acos(d) + acosh(f) + asin(n) + asinh(d) + atan(f) + atan2(d, f) + atanh(l)
        out[i] = cbrt(d) + ceil(f) + copysign(d, -1) + cosh(n) + erf(d) + erfc(f) + exp2(d)
        out[i] = expm1(f) + math.gamma(d) + hypot(n, f) + ldexp(d, n) + ldexp(f, l) + lgamma(d)
        out[i] = log10(d) + log1p(f) + log2(n) + remainder(d, 3) + round(f) + rsqrt(d)
        out[i] = sign(d) + sign(n) + sinh(f) + tan(d) + trunc(f) + math.fabs(n) + math.fmod(d, 2.5)
        out[i] = fmod(n, 3) + math.degrees(f) + radians(d) + radians(n)
        fout[i] = sqrt(f) * exp(f) / log(f) - pow(f, 3) + floor(f) + abs(f) + fma(f, f, 1)
        fout[i] = ldexp(f, 3) + copysign(f, -0.0) + round(f + 0.5) + sign(-n) + cbrt(f)
        flags[i] = isfinite(d) or isinf(f) or isnan(n)
)");
}

TEST(SameIR, IntegerWidthsAndSignedness) {
  ir::Kernel cpp =
      trace("widths",
            [](U8 a, I16 b, U32 c, U64 d, Array<uint8_t> img, Array<int8_t> s8, Array<uint16_t> h,
               Array<uint32_t> out, Array<int64_t> wide) {
              parallel_for(img.size(), [&](Index i) {
                out[i] = img[i] * a + b + c;
                out[i] =
                    (c >> 3) + (c << a) + ~c + (-c) + c / 7 + c % 5 + min(c, 9) + max(img[i], 200);
                wide[i] = s8[i] + h[i] + d + cast<uint16_t>(s8[i]) + abs(s8[i]) + sign(c);
                img[i] = cast<uint8_t>(min(img[i] + 10, 255));
                h[i] += 1;
              });
            },
            {"a", "b", "c", "d", "img", "s8", "h", "out", "wide"});
  EXPECT_SAME_IR(cpp, R"(
@kernel
def widths(a: u8, b: i16, c: u32, d: u64, img: u8[n], s8: i8[n], h: u16[n], out: u32[n], wide: i64[n]):
    for i in parallel(n):
        out[i] = img[i] * a + b + c
        out[i] = (c >> 3) + (c << a) + ~c + (-c) + c / 7 + c % 5 + min(c, 9) + max(img[i], 200)
        wide[i] = s8[i] + h[i] + d + u16(s8[i]) + abs(s8[i]) + sign(c)
        img[i] = u8(min(img[i] + 10, 255))
        h[i] += 1
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

// ---- the SIMT level ----------------------------------------------------------------------
//
// The text DSL names a shared array after its variable (`tile = shared.array(256, f32)` prints as
// tile[...]); the embedded DSL, which cannot know the C++ variable's name, calls them shared0,
// shared1, ... in declaration order. The comparison renames the text kernel's shared arrays in
// the same way first, so that everything else is compared character for character.

class RenameShared : public ir::Mutator {
public:
  std::map<const ir::SharedArray *, ir::Shared> renamed;

protected:
  ir::Expr mutate_node(const ir::SharedLoad *n, const ir::Expr &) override {
    bool changed = false;
    return ir::SharedLoad::make(renamed.at(n->array.get()), mutate_all(n->indices, changed));
  }
  ir::Expr mutate_node(const ir::SharedExtent *n, const ir::Expr &) override {
    return ir::SharedExtent::make(renamed.at(n->array.get()));
  }
  ir::Stmt mutate_node(const ir::SharedStore *n, const ir::Stmt &) override {
    bool changed = false;
    std::vector<ir::Expr> idx = mutate_all(n->indices, changed);
    return ir::SharedStore::make(renamed.at(n->array.get()), std::move(idx), mutate(n->value));
  }
  ir::Stmt mutate_node(const ir::Atomic *n, const ir::Stmt &self) override {
    if (!n->shared)
      return ir::Mutator::mutate_node(n, self);
    bool changed = false;
    std::vector<ir::Expr> idx = mutate_all(n->indices, changed);
    return ir::Atomic::make(n->op, -1, renamed.at(n->shared.get()), n->shared->type, std::move(idx),
                            mutate(n->value),
                            n->compare.defined() ? mutate(n->compare) : ir::Expr(), n->result);
  }
};

// The one kernel of `source`, its shared arrays renamed shared0, shared1, ... as the embedded
// DSL names them.
ir::Kernel parse_simt(const std::string &source) {
  ir::Kernel k = parse_one(source);
  RenameShared rename;
  std::vector<ir::Shared> shared;
  for (const ir::Shared &a : k.shared) {
    const std::string name = "shared" + std::to_string(shared.size());
    shared.push_back(a->dynamic ? ir::make_dynamic_shared_array(name, a->type)
                                : ir::make_shared_array(name, a->type, a->extents));
    rename.renamed[a.get()] = shared.back();
  }
  k.body = rename.mutate(k.body);
  k.shared = shared;
  return k;
}

#define EXPECT_SAME_SIMT_IR(traced, source)                                                        \
  do {                                                                                             \
    std::string from_cpp_ = ir::to_string(traced), from_text_ = ir::to_string(parse_simt(source)); \
    EXPECT_EQ(from_text_, from_cpp_) << "text:\n" << from_text_ << "embedded:\n" << from_cpp_;     \
  } while (0)

// The classic block reduction: a tree in shared memory with a barrier per level, then one atomic
// add per block (tests/e2e/simt_test.cpp, with its C++ loops as loops of the IR).
TEST(SameIR, SimtBlockReductionWithAtomicAdd) {
  ir::Kernel cpp = trace(
      "block_sum",
      [](Array<float> x, Array<float> total) {
        auto partial = shared_array<float>(256);
        Var<int32_t> t("t", thread_idx().x);
        Var<int64_t> i("i", grid<1>());
        partial[t] = select(i < x.size(), x[min(i, x.size() - 1)], 0.0f);
        barrier();
        Var<int32_t> stride("stride", 128);
        while_(stride > 0, [&] {
          if_(t < stride, [&] { partial[t] += partial[t + stride]; });
          barrier();
          stride /= 2;
        });
        if_(t == 0, [&] { atomic_add(total[0], partial[0]); });
      },
      {"x", "total"}, true);
  EXPECT_SAME_SIMT_IR(cpp, R"(
@kernel(simt=True)
def block_sum(x: f32[n], total: f32[1]):
    partial = shared.array(256, f32)
    t = threadIdx.x
    i = grid(1)
    partial[t] = x[min(i, n - 1)] if i < n else 0.0
    syncthreads()
    stride = 128
    while stride > 0:
        if t < stride:
            partial[t] += partial[t + stride]
        syncthreads()
        stride /= 2
    if t == 0:
        atomic.add(total, 0, partial[0])
)");
}

// Warp shuffles of four types: a down-shuffle tree sum, a butterfly, a broadcast and an
// up-shuffle scan, with the mask spelled each way.
TEST(SameIR, SimtWarpShuffles) {
  ir::Kernel cpp = trace(
      "shuffles",
      [](Array<int32_t> a, Array<double> b, Array<int64_t> c, Array<float> d, Array<int32_t> sums,
         Array<double> bsum, Array<int64_t> bcast, Array<float> scan) {
        Var<int64_t> i("i", grid<1>());
        Var<int32_t> lane("lane", lane_id());
        Var<int32_t> s("s", a[i]);
        for (int off = 16; off > 0; off /= 2)
          s += shfl_down_sync(s, off);
        if_(lane == 0, [&] { sums[i / 32] = s; });
        Var<double> t("t", b[i]);
        for (int m = 1; m < 32; m *= 2)
          t += shfl_xor_sync(t, m);
        bsum[i] = t;
        bcast[i] = shfl_sync(c[i], 3);
        Var<float> p("p", d[i]);
        Var<int32_t> off("off", 1);
        while_(off < 32, [&] {
          Var<float> up("up", shfl_up_sync(p, off));
          if_(lane >= off, [&] { p += up; });
          off *= 2;
        });
        scan[i] = p;
      },
      {"a", "b", "c", "d", "sums", "bsum", "bcast", "scan"}, true);
  EXPECT_SAME_SIMT_IR(cpp, R"(
@kernel(simt=True)
def shuffles(a: i32[n], b: f64[n], c: i64[n], d: f32[n], sums: i32[w], bsum: f64[n],
             bcast: i64[n], scan: f32[n]):
    i = grid(1)
    lane = laneid
    s = a[i]
    s += shfl_down_sync(0xffffffff, s, 16)
    s += shfl_down_sync(0xffffffff, s, 8)
    s += shfl_down_sync(-1, s, 4)
    s += cuda.shfl_down_sync(0xFFFF_FFFF, s, 2)
    s += shfl_down_sync(~0, s, 1)
    if lane == 0:
        sums[i / 32] = s
    t = b[i]
    t += shfl_xor_sync(-1, t, 1)
    t += shfl_xor_sync(-1, t, 2)
    t += shfl_xor_sync(-1, t, 4)
    t += shfl_xor_sync(-1, t, 8)
    t += shfl_xor_sync(-1, t, 16)
    bsum[i] = t
    bcast[i] = shfl_sync(-1, c[i], 3)
    p = d[i]
    off = 1
    while off < 32:
        up = shfl_up_sync(-1, p, off)
        if lane >= off:
            p += up
        off *= 2
    scan[i] = p
)");
}

// Votes: any, all and ballot, of a bool and (any) of an integer, which means != 0.
TEST(SameIR, SimtWarpVotes) {
  ir::Kernel cpp = trace(
      "votes",
      [](Array<int32_t> x, Array<int32_t> ballots, Array<int32_t> flags) {
        Var<int64_t> i("i", grid<1>());
        Var<bool> positive("positive", x[i] > 0);
        Var<int32_t> bits("bits", ballot_sync(positive));
        Var<bool> some("some", any_sync(positive));
        Var<bool> every("every", all_sync(positive));
        Var<bool> nonzero("nonzero", any_sync(x[i]));
        if_(lane_id() == 0, [&] {
          ballots[i / 32] = bits;
          flags[i / 32] = select(some, 1, 0) + select(every, 2, 0) + select(nonzero, 4, 0);
        });
      },
      {"x", "ballots", "flags"}, true);
  EXPECT_SAME_SIMT_IR(cpp, R"(
@kernel(simt=True)
def votes(x: i32[n], ballots: i32[w], flags: i32[w]):
    i = grid(1)
    positive = x[i] > 0
    bits = ballot_sync(0xffffffff, positive)
    some = any_sync(0xffffffff, positive)
    every = all_sync(0xffffffff, positive)
    nonzero = cuda.any_sync(0xffffffff, x[i])
    if laneid == 0:
        ballots[i / 32] = bits
        flags[i / 32] = (1 if some else 0) + (2 if every else 0) + (4 if nonzero else 0)
)");
}

// A 2-D grid of 2-D blocks: x, y = grid(2) and every register along x and y.
TEST(SameIR, SimtTwoDimensionalGrid) {
  ir::Kernel cpp = trace(
      "grid2",
      [](Array2<int32_t> out) {
        auto [gx, gy] = grid<2>();
        Var<int64_t> x("x", gx), y("y", gy);
        if_(y < out.dim(0) && x < out.dim(1), [&] {
          out(y, x) = block_idx().y * 1000000 + block_idx().x * 10000 + thread_idx().y * 100 +
                      thread_idx().x + grid_dim().x * 0 + block_dim().y * 0;
        });
      },
      {"out"}, true);
  EXPECT_SAME_SIMT_IR(cpp, R"(
@kernel(simt=True)
def grid2(out: i32[H, W]):
    x, y = grid(2)
    if y < H and x < W:
        out[y, x] = (blockIdx.y * 1000000 + blockIdx.x * 10000 + threadIdx.y * 100 +
                     threadIdx.x + gridDim.x * 0 + blockDim.y * 0)
)");
}

// A grid-stride loop (gridsize), the z axis, and Numba's cuda. spellings.
TEST(SameIR, SimtGridStrideAndNumbaSpellings) {
  ir::Kernel cpp = trace(
      "stride_fill",
      [](Array<float> x, Array3<int32_t> cube) {
        Var<int64_t> i("i", grid<1>());
        Var<int64_t> step("step", grid_size<1>());
        while_(i < x.size(), [&] {
          x[i] = 1.0f;
          i += step;
        });
        auto [a, b, c] = grid<3>();
        auto [sa, sb, sc] = grid_size<3>();
        Var<int64_t> gx("gx", a), gy("gy", b), gz("gz", c);
        Var<int64_t> nx("nx", sa), ny("ny", sb), nz("nz", sc);
        cube(gz, gy, gx) = thread_idx().z + block_idx().z + block_dim().z + grid_dim().z +
                           grid_dim().y + block_dim().x + lane_id() + warp_size;
      },
      {"x", "cube"}, true);
  EXPECT_SAME_SIMT_IR(cpp, R"(
@kernel(simt=True)
def stride_fill(x: f32[n], cube: i32[Z, Y, X]):
    i = cuda.grid(1)
    step = gridsize(1)
    while i < n:
        x[i] = 1.0
        i += step
    gx, gy, gz = grid(3)
    nx, ny, nz = cuda.gridsize(3)
    cube[gz, gy, gx] = (cuda.threadIdx.z + blockIdx.z + cuda.blockDim.z + gridDim.z +
                        cuda.gridDim.y + blockDim.x + cuda.laneid + cuda.warpsize)
)");
}

// Every atomic, on array parameters (1-D and 2-D) and shared arrays, as statements and values.
TEST(SameIR, SimtAtomics) {
  ir::Kernel cpp = trace(
      "atomics",
      [](Array<int32_t> flag, Array2<double> grid2, Array<int64_t> olds, Array<float> f) {
        auto local = shared_array<int32_t>(8);
        auto pairs = shared_array<float>(4, 2);
        Var<int64_t> i("i", grid<1>());
        I32 id = I32(i) + 1;
        Var<int32_t> seen("seen", atomic_cas(flag[0], 0, id));
        I32 swapped = atomic_exchange(flag[1], seen); // C++ may evaluate `+`'s right side first
        olds[i] = swapped + atomic_add(flag[2], 1);
        atomic_min(grid2(i, 1), 2.5);
        atomic_max(grid2(0, i), f[i]);
        atomic_add(local[i & 7], 1);
        atomic_max(pairs(i % 4, 1), f[i]);
        f[i] = atomic_min(pairs(0, 0), -1.0f);
        barrier();
      },
      {"flag", "grid2", "olds", "f"}, true);
  EXPECT_SAME_SIMT_IR(cpp, R"(
@kernel(simt=True)
def atomics(flag: i32[k], grid2: f64[r, c], olds: i64[n], f: f32[n]):
    local = shared.array(8, i32)
    pairs = cuda.shared.array((4, 2), f32)
    i = grid(1)
    seen = atomic.cas(flag, 0, 0, i32(i) + 1)
    olds[i] = atomic.exch(flag, 1, seen) + cuda.atomic.add(flag, (2,), 1)
    atomic.min(grid2, (i, 1), 2.5)
    atomic.max(grid2, (0, i), f[i])
    atomic.add(local, i & 7, 1)
    atomic.max(pairs, (i % 4, 1), f[i])
    f[i] = atomic.min(pairs, (0, 0), -1.0)
    cuda.syncthreads()
)");
}

// The tiled matmul of CUDA's programming guide: 16 x 16 tiles of A and B in shared memory.
TEST(SameIR, SimtTiledMatmul) {
  ir::Kernel cpp = trace(
      "tiled_matmul",
      [](Array2<float> A, Array2<float> B, Array2<float> C) {
        auto As = shared_array<float>(16, 16);
        auto Bs = shared_array<float>(16, 16);
        Var<int32_t> tx("tx", thread_idx().x), ty("ty", thread_idx().y);
        Var<int64_t> row("row", Index(block_idx().y) * 16 + Index(ty));
        Var<int64_t> col("col", Index(block_idx().x) * 16 + Index(tx));
        Var<float> acc("acc", 0.0f);
        Index n = A.dim(0), kk = A.dim(1), m = B.dim(1);
        for_range(0, (kk + 15) / 16, [&](Index k) { // for_range names its index k
          Var<int64_t> ak("ak", k * 16 + Index(tx)), bk("bk", k * 16 + Index(ty));
          As(ty, tx) = select(row < n && ak < kk, A(min(row, n - 1), min(ak, kk - 1)), 0.0f);
          Bs(ty, tx) = select(bk < kk && col < m, B(min(bk, kk - 1), min(col, m - 1)), 0.0f);
          barrier();
          Var<int64_t> e("e", 0);
          while_(e < 16, [&] {
            acc += As(ty, e) * Bs(e, tx);
            e += 1;
          });
          barrier();
        });
        if_(row < n && col < m, [&] { C(row, col) = acc; });
      },
      {"A", "B", "C"}, true);
  EXPECT_SAME_SIMT_IR(cpp, R"(
@kernel(simt=True)
def tiled_matmul(A: f32[N, K], B: f32[K, M], C: f32[N, M]):
    As = shared.array((16, 16), f32)
    Bs = shared.array((16, 16), f32)
    tx = threadIdx.x
    ty = threadIdx.y
    row = i64(blockIdx.y) * 16 + ty
    col = i64(blockIdx.x) * 16 + tx
    acc: f32 = 0.0
    for k in range(0, (K + 15) / 16):
        ak = k * 16 + tx
        bk = k * 16 + ty
        As[ty, tx] = A[min(row, N - 1), min(ak, K - 1)] if row < N and ak < K else 0.0
        Bs[ty, tx] = B[min(bk, K - 1), min(col, M - 1)] if bk < K and col < M else 0.0
        syncthreads()
        e: i64 = 0
        while e < 16:
            acc += As[ty, e] * Bs[e, tx]
            e += 1
        syncthreads()
    if row < N and col < M:
        C[row, col] = acc
)");
}

// The dynamic shared array: shared.array(0, f32) and its extent (len, .shape[0], .size) are
// loom::dynamic_shared_array<float>() and its size(), after a static array.
TEST(SameIR, SimtDynamicSharedArray) {
  ir::Kernel cpp = trace(
      "dynamic_block_sum",
      [](Array<float> x, Array<float> total, Array<int64_t> sizes) {
        auto fixed = shared_array<int32_t>(4);
        auto partial = dynamic_shared_array<float>();
        Var<int32_t> t("t", thread_idx().x);
        Var<int64_t> i("i", grid<1>());
        partial[t] = select(i < x.size(), x[min(i, x.size() - 1)], 0.0f);
        fixed[t % 4] = t;
        barrier();
        Var<int64_t> stride("stride", partial.size() / 2);
        while_(stride > 0, [&] {
          if_(t < stride, [&] { partial[t] += partial[t + stride]; });
          barrier();
          stride /= 2;
        });
        if_(t == 0, [&] {
          atomic_add(total[0], partial[0]);
          sizes[0] = partial.dim(0) + partial.size() * fixed.size();
        });
      },
      {"x", "total", "sizes"}, true);
  EXPECT_SAME_SIMT_IR(cpp, R"(
@kernel(simt=True)
def dynamic_block_sum(x: f32[n], total: f32[1], sizes: i64[1]):
    fixed = shared.array(4, i32)
    partial = cuda.shared.array(0, f32)
    t = threadIdx.x
    i = grid(1)
    partial[t] = x[min(i, n - 1)] if i < n else 0.0
    fixed[t % 4] = t
    syncthreads()
    stride = len(partial) / 2
    while stride > 0:
        if t < stride:
            partial[t] += partial[t + stride]
        syncthreads()
        stride /= 2
    if t == 0:
        atomic.add(total, 0, partial[0])
        sizes[0] = partial.shape[0] + partial.size * fixed.size
)");
}

// The text kernel itself keeps the variables' names for its shared arrays, and is a SIMT kernel.
TEST(TextKernel, SimtKernelAndSharedArrayNames) {
  ir::Kernel k = parse_one(R"(
@kernel(simt=True, fastmath=True)
def k(x: f32[n]):
    tile = shared.array((16, 16), f32)
    flags = shared.array(32, bool)
    tile[threadIdx.y, threadIdx.x] = x[grid(1)]
    flags[laneid] = tile[0, 1] > 0.0
    x[grid(1)] = f32(len(tile) + tile.shape[1] + tile.size + len(flags))
)");
  EXPECT_TRUE(k.simt());
  EXPECT_TRUE(k.fast_math);
  ASSERT_EQ(k.shared.size(), 2u);
  EXPECT_EQ(k.shared[0]->name, "tile");
  EXPECT_EQ(k.shared[0]->extents, (std::vector<int64_t>{16, 16}));
  EXPECT_EQ(k.shared[1]->name, "flags");
  EXPECT_EQ(k.shared[1]->type, ir::ScalarType::Bool);
  std::string text = ir::to_string(k);
  EXPECT_NE(text.find("simt kernel k("), std::string::npos) << text;
  EXPECT_NE(text.find("  tile: shared f32[16, 16]\n"), std::string::npos) << text;
  // Shapes are constants, folded with the other literals.
  EXPECT_NE(text.find("] = 320.0f\n"), std::string::npos) << text;
  EXPECT_FALSE(parse_one("@kernel(simt=False)\ndef k(x: f32[n]):\n    pass\n").simt());
}

// Helpers may use the SIMT level: each inlining declares its own shared arrays and locals.
TEST(TextKernel, SimtHelpers) {
  ir::Kernel k = parse_one(R"(
def block_total(v: f32) -> f32:
    sums = shared.array(32, f32)
    s = v
    s += shfl_down_sync(0xffffffff, s, 16)
    if laneid == 0:
        sums[threadIdx.x / 32] = s
    syncthreads()
    return sums[0]

@kernel(simt=True)
def k(x: f32[n], out: f32[2]):
    a = block_total(x[grid(1)])
    b = block_total(a * 2.0)
    if threadIdx.x == 0:
        atomic.add(out, 0, a)
        atomic.add(out, 1, b)
)");
  ASSERT_EQ(k.shared.size(), 2u);
  EXPECT_EQ(k.shared[0]->name, "sums");
  EXPECT_EQ(k.shared[1]->name, "sums");
  EXPECT_NE(k.shared[0].get(), k.shared[1].get());
  std::string text = ir::to_string(k);
  EXPECT_NE(text.find("  sums.1: shared f32[32]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("var warp.1: f32 = shfl_down(s.1, 16i32)"), std::string::npos) << text;
  EXPECT_NE(text.find("var b: f32 = sums.1[0]"), std::string::npos) << text;
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
