// 16-bit float scalars in the embedded C++ DSL: loom::F16 and loom::BF16 (host types loom::f16 and
// loom::bf16) as parameters, locals and values; their promotion with other values and literals,
// arithmetic, comparisons, math, compound assignment, conversions and host arguments. Each kernel
// runs through the public API on every target (the GPU instances skip without a GPU) and is
// checked bit for bit against references made here, independently of loom's own conversions
// (support/Float16.h's are not used; host values are made from their bits): the nearest 16-bit
// value to an exact (or double-rounded, which for + - * / and sqrt of 16-bit operands is the same,
// as double keeps more than twice their bits and two more) double result, found by searching every
// bit pattern of the format, sorted by value, ties to the even pattern.
//
// The DSL refuses at compile time, with a static_assert, what 16-bit floats do not take; each of
// these was checked to fail to compile with the message after it (frontend/Value.h,
// frontend/Simt.h), for an F16 h, a BF16 g, a Var<f16> v and an F32 x:
// - h & 1, h | h, g & g, v ^= h: "bitwise operators need integer operands, not 16-bit floats (f16,
//   bf16)"
// - h << 1, 1 << h, v >>= 1: "shifts need integer operands, not 16-bit floats (f16, bf16)"
// - ~h: "~ needs an integer operand, not a 16-bit float (f16, bf16)"
// - ldexp(x, h): "ldexp's exponent must be an integer"
// - shfl_sync(h, 0), shfl_down_sync(g, 1): "warp shuffles take i32, i64, f32 or f64, not 16-bit
//   floats (f16, bf16): ..."
// - dynamic_shared_array<loom::f16>(): "shared arrays do not hold 16-bit floats (f16, bf16): ..."
//   (static ones do: shared_array<loom::f16>(64, 24), the operands of mma_sync)
// (An atomic on an element of an f16 array is refused when the kernel is traced, ir::Atomic::make:
// tests/e2e/simt_test.cpp.)
#include "ir/Printer.h"
#include "support/TestUtil.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

using namespace loom;

namespace {

template <class X, class T> constexpr bool has_type = std::is_same_v<X, Value<T>>;

// ---- the reference: nearest values by search
// -----------------------------------------------------

// A 16-bit float format, from its bit patterns alone: `exponent_bits` and `significand_bits` after
// the sign bit, IEEE style (a biased exponent, subnormals at exponent 0, all ones for infinity and
// NaN).
class Format {
public:
  Format(int exponent_bits, int significand_bits)
      : significand_bits_(significand_bits), exponent_mask_((1u << exponent_bits) - 1),
        bias_((1 << (exponent_bits - 1)) - 1), sign_bit_(1u << (exponent_bits + significand_bits)),
        infinity_(static_cast<uint16_t>(exponent_mask_ << significand_bits)) {
    // Every non-negative pattern that is a number, sorted by value, with infinity standing as the
    // value the next binade would start at (2^16 for f16, 2^128 for bf16): values from half an ulp
    // above the largest finite one then go to infinity, and the tie at that point too, as
    // infinity's pattern is even (IEEE 754's overflow rule).
    for (uint32_t bits = 0; bits <= infinity_; ++bits) {
      const uint32_t e = (bits >> significand_bits_) & exponent_mask_;
      const uint32_t m = bits & ((1u << significand_bits_) - 1);
      double v;
      if (e == 0)
        v = std::ldexp(double(m), 1 - bias_ - significand_bits_);
      else if (e < exponent_mask_)
        v = std::ldexp(double((1u << significand_bits_) | m), int(e) - bias_ - significand_bits_);
      else
        v = std::ldexp(1.0, int(exponent_mask_) - bias_); // infinity's stand-in
      values_.push_back({v, static_cast<uint16_t>(bits)});
    }
    std::sort(values_.begin(), values_.end());
  }

  // The pattern nearest to x, ties to the even pattern; the sign is x's (a zero result's included,
  // as IEEE arithmetic gives it in double too); NaN gives a NaN.
  uint16_t nearest(double x) const {
    if (std::isnan(x))
      return static_cast<uint16_t>(infinity_ | (1u << (significand_bits_ - 1)));
    const uint16_t sign = std::signbit(x) ? static_cast<uint16_t>(sign_bit_) : 0;
    const double a = std::fabs(x);
    if (a >= values_.back().first)
      return sign | infinity_;
    auto hi = std::lower_bound(values_.begin(), values_.end(), std::make_pair(a, uint16_t(0)));
    if (hi->first == a)
      return sign | hi->second;
    auto lo = hi - 1;
    const double below = a - lo->first, above = hi->first - a;
    const bool up = above < below || (above == below && (hi->second & 1u) == 0);
    return sign | (up ? hi->second : lo->second);
  }
  double round(double x) const { return value(nearest(x)); }

  // The value of a pattern.
  double value(uint16_t bits) const {
    const uint32_t e = (bits >> significand_bits_) & exponent_mask_;
    const uint32_t m = bits & ((1u << significand_bits_) - 1);
    double v;
    if (e == exponent_mask_)
      v = m ? NAN : INFINITY;
    else if (e == 0)
      v = std::ldexp(double(m), 1 - bias_ - significand_bits_);
    else
      v = std::ldexp(double((1u << significand_bits_) | m), int(e) - bias_ - significand_bits_);
    return (bits & sign_bit_) ? -v : v;
  }
  bool is_nan(uint16_t bits) const {
    return ((bits >> significand_bits_) & exponent_mask_) == exponent_mask_ &&
           (bits & ((1u << significand_bits_) - 1)) != 0;
  }
  // A random pattern of a finite value: of any magnitude, or (`moderate`) in [2^-4, 2^4).
  uint16_t random_finite(std::mt19937_64 &rng, bool moderate) const {
    for (;;) {
      uint16_t bits = static_cast<uint16_t>(rng());
      if (moderate) {
        const uint32_t e = bias_ - 4 + static_cast<uint32_t>(rng() % 8);
        bits = static_cast<uint16_t>((bits & (sign_bit_ | ((1u << significand_bits_) - 1))) |
                                     (e << significand_bits_));
      }
      if (((bits >> significand_bits_) & exponent_mask_) != exponent_mask_)
        return bits;
    }
  }

private:
  int significand_bits_;
  uint32_t exponent_mask_;
  int bias_;
  uint32_t sign_bit_;
  uint16_t infinity_;
  std::vector<std::pair<double, uint16_t>> values_;
};

const Format &f16_format() {
  static const Format f(5, 10);
  return f;
}
const Format &bf16_format() {
  static const Format f(8, 7);
  return f;
}
double r16(double x) {
  return f16_format().round(x);
}
double rb16(double x) {
  return bf16_format().round(x);
}

// Host values of a pattern, made without conversion.
f16 f16_of_bits(uint16_t bits) {
  f16 h;
  h.bits = bits;
  return h;
}
bf16 bf16_of_bits(uint16_t bits) {
  bf16 h;
  h.bits = bits;
  return h;
}
double value_of(f16 h) {
  return f16_format().value(h.bits);
}
double value_of(bf16 h) {
  return bf16_format().value(h.bits);
}

template <class H> const Format &format_of() {
  if constexpr (std::is_same_v<H, f16>)
    return f16_format();
  else
    return bf16_format();
}

// Random 16-bit values, half of them of any finite magnitude (subnormals, overflowing products),
// half moderate.
template <class H> std::vector<H> random_half(size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<H> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i].bits = format_of<H>().random_finite(rng, i % 2 == 1);
  return v;
}

// Bit for bit (any NaN for a NaN).
template <class H>::testing::AssertionResult same_bits(H got, uint16_t want) {
  const Format &f = format_of<H>();
  if (got.bits == want || (f.is_nan(want) && f.is_nan(got.bits)))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << std::hexfloat << "got " << f.value(got.bits) << " (0x" << std::hex << got.bits
         << "), want " << f.value(want) << " (0x" << want << ")";
}
// A float or double result bit for bit.
template <class F>::testing::AssertionResult same_value(F got, double want) {
  if ((std::isnan(got) && std::isnan(want)) ||
      std::bit_cast<uint64_t>(double(got)) == std::bit_cast<uint64_t>(want))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << std::hexfloat << "got " << got << ", want " << want;
}

TEST(HalfDslReference, SearchRoundsAsIeee) {
  // The search itself, on values whose rounding is known.
  const Format &f = f16_format();
  EXPECT_EQ(f.nearest(1.0), 0x3c00);
  EXPECT_EQ(f.nearest(1.0 + 0x1p-11), 0x3c00);           // a tie: to even
  EXPECT_EQ(f.nearest(1.0 + 0x1p-11 + 0x1p-40), 0x3c01); // above the tie: up
  EXPECT_EQ(f.nearest(1.0 + 3 * 0x1p-11), 0x3c02);       // a tie: to even, up
  EXPECT_EQ(f.nearest(65504.0), 0x7bff);
  EXPECT_EQ(f.nearest(65519.99), 0x7bff);
  EXPECT_EQ(f.nearest(65520.0), 0x7c00); // overflow
  EXPECT_EQ(f.nearest(-1e9), 0xfc00);
  EXPECT_EQ(f.nearest(0x1p-24), 0x0001); // the smallest subnormal
  EXPECT_EQ(f.nearest(0x1p-25), 0x0000); // half of it: a tie, to zero
  EXPECT_EQ(f.nearest(-0x1p-26), 0x8000);
  EXPECT_EQ(f.nearest(0.1), 0x2e66);
  const Format &b = bf16_format();
  EXPECT_EQ(b.nearest(1.0), 0x3f80);
  EXPECT_EQ(b.nearest(1.0 + 0x1p-8), 0x3f80);
  EXPECT_EQ(b.nearest(1.0 + 0x1p-8 + 0x1p-40), 0x3f81);
  EXPECT_EQ(b.nearest(-3.0), 0xc040);
  EXPECT_EQ(b.nearest(0x1p128), 0x7f80);
  EXPECT_EQ(b.value(0x7f7f), 0x1.fep127);
  EXPECT_EQ(f.value(0x7bff), 65504.0);
  EXPECT_EQ(f.value(0x0200), 0x1p-15);
}

// ---- types --------------------------------------------------------------------------------------

TEST(HalfDslTypes, PromotionFollowsIrPromote) {
  trace("p",
        [](F16 h, F16 h2, BF16 g, F32 x, F64 d, I32 n, I64 m, U8 u, Bool b, C64 z, C128 w) {
          static_assert(has_type<decltype(h + h2), f16>);
          static_assert(has_type<decltype(g * g), bf16>);
          static_assert(has_type<decltype(h * n), f16>); // with an integer: stays f16
          static_assert(has_type<decltype(m - h), f16>);
          static_assert(has_type<decltype(h / u), f16>);
          static_assert(has_type<decltype(g + b), bf16>);
          static_assert(has_type<decltype(h + x), float>);
          static_assert(has_type<decltype(x * g), float>);
          static_assert(has_type<decltype(h * d), double>);
          static_assert(has_type<decltype(h + g), float>); // neither holds the other
          static_assert(has_type<decltype(h * z), std::complex<float>>);
          static_assert(has_type<decltype(g * w), std::complex<double>>);
          static_assert(has_type<decltype(-h), f16>);
          static_assert(has_type<decltype(+g), bf16>);
          static_assert(has_type<decltype(h < h2), bool>);
          static_assert(has_type<decltype(h == x), bool>);
          static_assert(has_type<decltype(select(b, h, h2)), f16>);
          static_assert(has_type<decltype(select(b, h, n)), f16>);
          static_assert(has_type<decltype(min(h, h2)), f16>);
          static_assert(has_type<decltype(max(g, x)), float>);
          static_assert(has_type<decltype(h % h2), f16>);
          static_assert(std::is_same_v<promote_t<f16, bf16>, float>);
          static_assert(std::is_same_v<promote_t<int64_t, bf16>, bf16>);
          static_assert(std::is_same_v<promote_t<f16, std::complex<float>>, std::complex<float>>);
          EXPECT_EQ(ir::to_string((h * n).expr()), "h * f16(n)");
          EXPECT_EQ(ir::to_string((h + x).expr()), "f32(h) + x");
        },
        {"h", "h2", "g", "x", "d", "n", "m", "u", "b", "z", "w"});
}

TEST(HalfDslTypes, LiteralsAreWeaklyTyped) {
  using namespace std::complex_literals;
  trace("l",
        [](F16 h, BF16 g, I32 n, F32 x) {
          static_assert(has_type<decltype(h * 2.0), f16>);
          static_assert(has_type<decltype(2 * h), f16>);
          static_assert(has_type<decltype(h + 0.5f), f16>);
          static_assert(has_type<decltype(g - 1), bf16>);
          static_assert(has_type<decltype(h * 1.0i), std::complex<float>>); // c64, not c128
          static_assert(has_type<decltype(g * 1.0if), std::complex<float>>);
          // A host f16 or bf16 is a floating literal.
          static_assert(has_type<decltype(n * f16(0.5f)), f16>);
          static_assert(has_type<decltype(x * bf16(0.5f)), float>);
          static_assert(has_type<decltype(h * bf16(0.5f)), f16>);
          static_assert(std::is_same_v<literal_promote_t<f16, double>, f16>);
          static_assert(std::is_same_v<literal_promote_t<int32_t, bf16>, bf16>);
          static_assert(
              std::is_same_v<literal_promote_t<bf16, std::complex<double>>, std::complex<float>>);
          static_assert(std::is_same_v<dsl_type_t<f16>, f16>);
          static_assert(std::is_same_v<element_value_t<f16>, float>); // elements read as f32
          static_assert(std::is_same_v<element_value_t<bf16>, float>);
        },
        {"h", "g", "n", "x"});
}

TEST(HalfDslTypes, MathKeepsTheType) {
  trace("m",
        [](F16 h, BF16 g, F16 h2, I32 n) {
          static_assert(has_type<decltype(sqrt(h)), f16>);
          static_assert(has_type<decltype(exp(h)), f16>);
          static_assert(has_type<decltype(log(g)), bf16>);
          static_assert(has_type<decltype(sin(h)), f16>);
          static_assert(has_type<decltype(tanh(g)), bf16>);
          static_assert(has_type<decltype(floor(h)), f16>);
          static_assert(has_type<decltype(erf(h)), f16>);
          static_assert(has_type<decltype(rsqrt(h)), f16>);
          static_assert(has_type<decltype(abs(h)), f16>);
          static_assert(has_type<decltype(fabs(g)), bf16>);
          static_assert(has_type<decltype(sign(h)), f16>);
          static_assert(has_type<decltype(pow(h, 2)), f16>);
          static_assert(has_type<decltype(pow(h, h2)), f16>);
          static_assert(has_type<decltype(atan2(h, 1.0)), f16>);
          static_assert(has_type<decltype(hypot(g, g)), bf16>);
          static_assert(has_type<decltype(fmod(h, h2)), f16>);
          static_assert(has_type<decltype(fma(h, h2, h)), f16>);
          static_assert(has_type<decltype(ldexp(h, n)), f16>);
          static_assert(has_type<decltype(radians(h)), f16>);
          static_assert(has_type<decltype(isnan(h)), bool>);
          static_assert(has_type<decltype(isfinite(g)), bool>);
          static_assert(has_type<decltype(real(h)), f16>);
          static_assert(has_type<decltype(cast<f16>(n)), f16>);
          static_assert(has_type<decltype(cast<float>(h)), float>);
          static_assert(has_type<decltype(cast<bf16>(h)), bf16>);
          static_assert(has_type<decltype(cast<int32_t>(g)), int32_t>);
          EXPECT_EQ(ir::to_string(sqrt(h).expr()), "sqrt(h)");
          EXPECT_EQ(ir::to_string(cast<float>(h).expr()), "f32(h)");
          EXPECT_EQ(ir::to_string(cast<f16>(n).expr()), "f16(n)");
        },
        {"h", "g", "h2", "n"});
}

// ---- kernels ------------------------------------------------------------------------------------

class HalfDsl : public loomtest::TargetTest {};

constexpr int kArithColumns = 11;

template <class H> Kernel arithmetic_kernel() {
  return kernel("half_arithmetic", [](Array<H> a, Array<H> b, Array2<H> out, Array<int32_t> order) {
    parallel_for(a.size(), [&](Index i) {
      Value<H> x = a[i]; // exact: an element reads as the f32 of its value
      Value<H> y = b[i];
      static_assert(has_type<decltype(x + y), H>);
      out(i, 0) = x + y;
      out(i, 1) = x - y;
      out(i, 2) = x * y;
      out(i, 3) = x / y;
      out(i, 4) = sqrt(abs(x));
      out(i, 5) = -x;
      out(i, 6) = min(x, y);
      out(i, 7) = max(x, y);
      out(i, 8) = x % y; // fmod: exact
      out(i, 9) = abs(y);
      out(i, 10) = select(x < y, x * y, x + y); // both sides f16
      order[i] = select(x < y, 1, 0) + select(x <= y, 2, 0) + select(x > y, 4, 0) +
                 select(x >= y, 8, 0) + select(x == y, 16, 0) + select(x != y, 32, 0) +
                 select(x > 1.5, 64, 0) + select(!x, 128, 0);
    });
  });
}

template <class H> void check_arithmetic(Kernel &k) {
  const Format &f = format_of<H>();
  const size_t n = 4001;
  std::vector<H> a = random_half<H>(n, 11), b = random_half<H>(n, 12);
  // A few exact cases: ties to even, zeros of both signs, equal operands.
  a[0].bits = f.nearest(1.0), b[0].bits = f.nearest(-1.0);
  a[2].bits = f.nearest(-0.0), b[2].bits = f.nearest(0.0);
  a[4] = b[4];
  std::vector<H> out(n * kArithColumns);
  std::vector<int32_t> order(n, -1);
  k(a, b, view(out, {static_cast<int64_t>(n), kArithColumns}), order);
  for (size_t i = 0; i < n; ++i) {
    const double x = value_of(a[i]), y = value_of(b[i]);
    const uint16_t want[kArithColumns] = {
        f.nearest(x + y),
        f.nearest(x - y),
        f.nearest(x * y),
        f.nearest(x / y),
        f.nearest(std::sqrt(std::fabs(x))),
        f.nearest(-x),
        f.nearest(x < y ? x : y),
        f.nearest(x > y ? x : y),
        f.nearest(std::fmod(x, y)),
        f.nearest(std::fabs(y)),
        f.nearest(x < y ? f.round(x * y) : f.round(x + y)),
    };
    for (int c = 0; c < kArithColumns; ++c) {
      const H got = out[i * kArithColumns + c];
      // min and max of two zeros may give either.
      if ((c == 6 || c == 7) && x == 0 && y == 0 && value_of(got) == 0)
        continue;
      ASSERT_TRUE(same_bits(got, want[c]))
          << std::hexfloat << "x " << x << ", y " << y << ", column " << c << " at " << i;
    }
    const int32_t want_order = (x < y) + 2 * (x <= y) + 4 * (x > y) + 8 * (x >= y) + 16 * (x == y) +
                               32 * (x != y) + 64 * (x > 1.5) + 128 * (x == 0);
    ASSERT_EQ(order[i], want_order) << std::hexfloat << "x " << x << ", y " << y;
  }
}

TEST_P(HalfDsl, F16ArithmeticIsIeeeBinary16) {
  Kernel k = arithmetic_kernel<f16>();
  check_arithmetic<f16>(prepare(k));
}
TEST_P(HalfDsl, Bf16ArithmeticIsBfloat16) {
  Kernel k = arithmetic_kernel<bf16>();
  check_arithmetic<bf16>(prepare(k));
}

// sqrt of every non-negative finite value, correctly rounded.
TEST_P(HalfDsl, SqrtOfEveryValueIsCorrectlyRounded) {
  Kernel k = kernel("half_sqrt", [](Array<f16> a, Array<f16> out, Array<bf16> b, Array<bf16> outb) {
    parallel_for(a.size(), [&](Index i) { out[i] = sqrt(cast<f16>(a[i])); });
    parallel_for(b.size(), [&](Index i) { outb[i] = sqrt(BF16(b[i])); });
  });
  prepare(k);
  std::vector<f16> a, out;
  for (uint32_t bits = 0; bits < 0x7c00; ++bits)
    a.push_back(f16_of_bits(static_cast<uint16_t>(bits)));
  std::vector<bf16> b, outb;
  for (uint32_t bits = 0; bits < 0x7f80; ++bits)
    b.push_back(bf16_of_bits(static_cast<uint16_t>(bits)));
  out.resize(a.size()), outb.resize(b.size());
  k(a, out, b, outb);
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_TRUE(same_bits(out[i], f16_format().nearest(std::sqrt(value_of(a[i])))))
        << std::hexfloat << value_of(a[i]);
  for (size_t i = 0; i < b.size(); ++i)
    ASSERT_TRUE(same_bits(outb[i], bf16_format().nearest(std::sqrt(value_of(b[i])))))
        << std::hexfloat << value_of(b[i]);
}

// Scalar parameters, a local rounded at every step of a loop, and compound assignment.
Kernel scalar_kernel() {
  return kernel("half_scalars",
                [](F16 h, BF16 g, Array<f16> x, Array2<f16> out, Array<bf16> outb, I32 steps) {
                  parallel_for(x.size(), [&](Index i) {
                    F16 xi = x[i];
                    out(i, 0) = xi * h + h;
                    Var<f16> acc("acc", 0.0);
                    for_range(steps, [&](Index) { acc += xi * h; });
                    out(i, 1) = acc;
                    Var v = xi; // deduced as f16
                    static_assert(std::is_same_v<decltype(v), Var<f16>>);
                    v += h;
                    v *= 3;
                    v -= xi;
                    v /= h;
                    v += 0.1; // the literal rounded to f16
                    out(i, 2) = v;
                    Var<bf16> w("w", g);
                    w *= xi; // f16 * bf16 is f32, rounded to bf16 by the assignment
                    w -= 1;
                    outb[i] = w;
                  });
                });
}

struct ScalarResults {
  std::vector<f16> out;
  std::vector<bf16> outb;
};

ScalarResults run_scalars(Kernel &k, const std::vector<f16> &x, int32_t steps, auto h, auto g) {
  ScalarResults r{std::vector<f16>(x.size() * 3), std::vector<bf16>(x.size())};
  k(h, g, x, view(r.out, {static_cast<int64_t>(x.size()), 3}), r.outb, steps);
  return r;
}

void check_scalars(const ScalarResults &r, const std::vector<f16> &x, int32_t steps, double hv,
                   double gv) {
  const Format &f = f16_format();
  const Format &bf = bf16_format();
  bool some_rounded = false;
  for (size_t i = 0; i < x.size(); ++i) {
    const double xi = value_of(x[i]);
    ASSERT_TRUE(same_bits(r.out[i * 3], f.nearest(r16(xi * hv) + hv))) << i;
    const double term = r16(xi * hv);
    double acc = 0;
    for (int k = 0; k < steps; ++k)
      acc = r16(acc + term);
    some_rounded |= acc != r16(steps * term);
    ASSERT_TRUE(same_bits(r.out[i * 3 + 1], f.nearest(acc))) << i;
    double v = r16(xi + hv);
    v = r16(v * 3);
    v = r16(v - xi);
    v = r16(v / hv);
    v = r16(v + r16(0.1));
    ASSERT_TRUE(same_bits(r.out[i * 3 + 2], f.nearest(v))) << i;
    // w * xi in f32 (exact: 8 by 11 bits), rounded to bf16; then w - 1 in bf16.
    const double w = rb16(rb16(gv * xi) - 1);
    ASSERT_TRUE(same_bits(r.outb[i], bf.nearest(w))) << i;
  }
  EXPECT_TRUE(some_rounded) << "the loop should round differently from one product";
}

TEST_P(HalfDsl, ScalarParametersLocalsAndCompoundAssignment) {
  Kernel k = scalar_kernel();
  prepare(k);
  std::mt19937_64 rng(21);
  std::vector<f16> x(513);
  for (f16 &v : x)
    v.bits = f16_format().random_finite(rng, true);
  const int32_t steps = 100;
  // Host f16 and bf16 arguments, passed as they are.
  const f16 h = f16_of_bits(f16_format().nearest(0.3));
  const bf16 g = bf16_of_bits(bf16_format().nearest(-1.7));
  check_scalars(run_scalars(k, x, steps, h, g), x, steps, value_of(h), value_of(g));
  // A double and a float for the 16-bit parameters: each rounded once, as a call converts them.
  check_scalars(run_scalars(k, x, steps, 0.1, 2.3f), x, steps, r16(0.1), rb16(2.3f));
  // A bf16 value for the f16 parameter (0.75: exact) and an f16 one for the bf16 parameter
  // (1.5009765625: rounded to bf16).
  check_scalars(run_scalars(k, x, steps, bf16_of_bits(0x3f40), f16_of_bits(0x3e01)), x, steps, 0.75,
                rb16(value_of(f16_of_bits(0x3e01))));
}

// An f16 host value for an f32 parameter converts exactly; an f32 argument's value is not rounded
// when the parameter is f32.
TEST_P(HalfDsl, HalfArgumentsToOtherParameters) {
  Kernel k = kernel("half_to_f32", [](F32 a, F64 b, I32 n, Array<double> out) {
    parallel_for(out.size(), [&](Index i) { out[i] = a + b + n; });
  });
  prepare(k);
  std::vector<double> out(3);
  const f16 h = f16_of_bits(0x3c01);   // 1 + 2^-10
  const bf16 g = bf16_of_bits(0x4049); // 3.140625
  k(h, g, f16_of_bits(0x4a80), out);   // 13.0 to an i32
  for (double v : out)
    EXPECT_EQ(v, double(float(1 + 0x1p-10)) + 3.140625 + 13) << std::hexfloat << v;
}

// A conversion of an f64 rounds once; of an integer, exactly to the nearest.
TEST_P(HalfDsl, ConversionsRoundOnce) {
  Kernel k = kernel("half_convert", [](Array<double> d, Array<int64_t> w, Array2<f16> h,
                                       Array2<bf16> b, Array<float> back) {
    parallel_for(d.size(), [&](Index i) {
      h(i, 0) = cast<f16>(d[i]);
      h(i, 1) = cast<f16>(cast<float>(d[i])); // through f32: may round twice
      F16 implicit = d[i];
      h(i, 2) = implicit;
      h(i, 3) = cast<f16>(w[i]);
      b(i, 0) = cast<bf16>(d[i]);
      b(i, 1) = cast<bf16>(w[i]);
      b(i, 2) = cast<bf16>(cast<f16>(d[i])); // f16 -> bf16 rounds the f16's value
      back[i] = cast<f16>(d[i]);             // stored into an f32 array: exact
    });
  });
  prepare(k);
  std::vector<double> d = {1.0 + 0x1p-11 + 0x1p-40,
                           -(1.0 + 0x1p-11 + 0x1p-40),
                           1.0 + 0x1p-8 + 0x1p-40,
                           65519.99,
                           65520.0,
                           0x1p-25,
                           0x1p-25 + 0x1p-60,
                           0.1,
                           -0.0};
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> u(-7e4, 7e4);
  while (d.size() < 2000)
    d.push_back(d.size() % 3 ? u(rng) : u(rng) * 1e-6);
  const size_t n = d.size();
  std::vector<int64_t> w(n);
  for (size_t i = 0; i < n; ++i)
    w[i] = static_cast<int64_t>(rng() >> (i % 50 + 11)) * (i % 2 ? -1 : 1); // below 2^53
  std::vector<f16> h(n * 4);
  std::vector<bf16> b(n * 3);
  std::vector<float> back(n);
  k(d, w, view(h, {int64_t(n), 4}), view(b, {int64_t(n), 3}), back);
  const Format &f = f16_format(), &bf = bf16_format();
  for (size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(same_bits(h[i * 4], f.nearest(d[i]))) << std::hexfloat << d[i];
    ASSERT_TRUE(same_bits(h[i * 4 + 1], f.nearest(static_cast<float>(d[i])))) << d[i];
    ASSERT_TRUE(same_bits(h[i * 4 + 2], f.nearest(d[i]))) << d[i];
    ASSERT_TRUE(same_bits(h[i * 4 + 3], f.nearest(double(w[i])))) << w[i];
    ASSERT_TRUE(same_bits(b[i * 3], bf.nearest(d[i]))) << std::hexfloat << d[i];
    ASSERT_TRUE(same_bits(b[i * 3 + 1], bf.nearest(double(w[i])))) << w[i];
    ASSERT_TRUE(same_bits(b[i * 3 + 2], bf.nearest(r16(d[i])))) << d[i];
    ASSERT_TRUE(same_value(back[i], r16(d[i]))) << d[i];
  }
  // The case that needs one rounding: above the midpoint of 1 and 1 + 2^-10 by 2^-40, which f32
  // does not keep.
  EXPECT_EQ(value_of(h[0]), 1.0 + 0x1p-10); // rounded once: up
  EXPECT_EQ(value_of(h[1]), 1.0);           // through f32: the midpoint, then to even
  EXPECT_EQ(value_of(b[0]), 1.0);           // 1 + 2^-8 + 2^-40 is not d[0]
  EXPECT_EQ(value_of(b[2 * 3]), 1.0 + 0x1p-7);
}

// Mixed with other types: f32 and f64 win, integers convert to f16, f16 with bf16 is f32, literals
// take the 16-bit type; stores into f16 and f32 arrays.
TEST_P(HalfDsl, MixedTypesAndLiterals) {
  Kernel k =
      kernel("half_mixed", [](Array<f16> a, Array<float> x, Array<double> d, Array<int32_t> n,
                              Array<bf16> b, Array<float> o32, Array<double> o64, Array<f16> oint,
                              Array<float> obf, Array<f16> olit, Array<float> ostore,
                              Array<f16> oconst, Array2<f16> ohost) {
        parallel_for(a.size(), [&](Index i) {
          F16 h = a[i];
          BF16 g = b[i];
          static_assert(has_type<decltype(h + x[i]), float>);
          static_assert(has_type<decltype(h * d[i]), double>);
          static_assert(has_type<decltype(n[i] + h), f16>);
          static_assert(has_type<decltype(h + g), float>);
          static_assert(has_type<decltype(h * 0.1 + 2), f16>);
          o32[i] = h + x[i];
          o64[i] = h * d[i];
          oint[i] = n[i] + h;
          obf[i] = h + g;
          olit[i] = h * 0.1 + 2;
          ostore[i] = h * h;                         // an f16 product, stored into an f32 array
          oconst[i] = h + (1.0 + 0x1p-11 + 0x1p-40); // the literal rounded once to f16
          // Host f16 and bf16 values are literals: the value's type wins, an integer becomes f16.
          ohost(i, 0) = h * f16_of_bits(0x3555) + bf16_of_bits(0x3f40); // 0.333251953125, 0.75
          ohost(i, 1) = n[i] * f16_of_bits(0x3555);
        });
      });
  prepare(k);
  const size_t len = 1001;
  std::vector<f16> a = random_half<f16>(len, 41);
  std::vector<bf16> b = random_half<bf16>(len, 42);
  std::vector<float> x = loomtest::random_vector<float>(len, -100, 100, 43);
  std::vector<double> d = loomtest::random_vector<double>(len, -100, 100, 44);
  std::vector<int32_t> n = loomtest::random_vector<int32_t>(len, -70000, 70000, 45);
  n[0] = 2049, n[1] = 4097, n[2] = -4099; // not f16 values: rounded first
  std::vector<float> o32(len), obf(len), ostore(len);
  std::vector<double> o64(len);
  std::vector<f16> oint(len), olit(len), oconst(len), ohost(len * 2);
  k(a, x, d, n, b, o32, o64, oint, obf, olit, ostore, oconst, view(ohost, {int64_t(len), 2}));
  const Format &f = f16_format();
  for (size_t i = 0; i < len; ++i) {
    const double h = value_of(a[i]), g = value_of(b[i]);
    ASSERT_TRUE(same_value(o32[i], static_cast<float>(h + double(x[i])))) << i; // one rounding
    ASSERT_TRUE(same_value(o64[i], h * d[i])) << i;
    ASSERT_TRUE(same_bits(oint[i], f.nearest(r16(double(n[i])) + h))) << n[i] << " " << h;
    ASSERT_TRUE(same_value(obf[i], static_cast<float>(h + g))) << i;
    ASSERT_TRUE(same_bits(olit[i], f.nearest(r16(h * r16(0.1)) + 2))) << h;
    ASSERT_TRUE(same_value(ostore[i], r16(h * h))) << h;
    ASSERT_TRUE(same_bits(oconst[i], f.nearest(h + (1.0 + 0x1p-10)))) << h;
    ASSERT_TRUE(same_bits(ohost[i * 2], f.nearest(r16(h * 0.333251953125) + 0.75))) << h;
    ASSERT_TRUE(same_bits(ohost[i * 2 + 1], f.nearest(r16(double(n[i])) * 0.333251953125))) << n[i];
  }
}

// Other math functions on f16: f32's function rounded to f16, within one f16 ulp of the correctly
// rounded value (the f32 functions are within a few f32 ulps).
TEST_P(HalfDsl, MathFunctionsComputeInF32AndRound) {
  Kernel k = kernel("half_math", [](Array<f16> a, Array2<f16> out) {
    parallel_for(a.size(), [&](Index i) {
      F16 h = a[i];
      out(i, 0) = exp(h);
      out(i, 1) = log(abs(h) + 1);
      out(i, 2) = sin(h);
      out(i, 3) = tanh(h);
      out(i, 4) = floor(h); // exact
      out(i, 5) = pow(h, 2);
    });
  });
  prepare(k);
  std::mt19937_64 rng(51);
  std::vector<f16> a(1001);
  for (f16 &v : a)
    v.bits = f16_format().random_finite(rng, true);
  std::vector<f16> out(a.size() * 6);
  k(a, view(out, {int64_t(a.size()), 6}));
  const Format &f = f16_format();
  auto within_one_ulp = [&](f16 got, double exact) {
    const int64_t want = f.nearest(exact);
    const int64_t g = got.bits;
    return (want & 0x8000) == (g & 0x8000) && std::abs(g - want) <= 1;
  };
  for (size_t i = 0; i < a.size(); ++i) {
    const double h = value_of(a[i]);
    EXPECT_TRUE(within_one_ulp(out[i * 6], std::exp(h))) << h;
    EXPECT_TRUE(within_one_ulp(out[i * 6 + 1], std::log(r16(std::fabs(h) + 1)))) << h;
    EXPECT_TRUE(within_one_ulp(out[i * 6 + 2], std::sin(h))) << h;
    EXPECT_TRUE(within_one_ulp(out[i * 6 + 3], std::tanh(h))) << h;
    ASSERT_TRUE(same_bits(out[i * 6 + 4], f.nearest(std::floor(h)))) << h;
    EXPECT_TRUE(within_one_ulp(out[i * 6 + 5], h * h)) << h;
  }
}

TEST(HalfDslArguments, ScalarArgumentsCarryTheirType) {
  Argument a = to_argument(f16_of_bits(0x3555)); // 0.333251953125
  EXPECT_EQ(a.kind, Argument::Kind::Scalar);
  EXPECT_EQ(a.type, ir::ScalarType::F16);
  EXPECT_EQ(a.scalar.f, 0.333251953125);
  Argument b = to_argument(bf16_of_bits(0xbfc0)); // -1.5
  EXPECT_EQ(b.type, ir::ScalarType::BF16);
  EXPECT_EQ(b.scalar.f, -1.5);
}

TEST(HalfDslArguments, AnArrayForAnF16ScalarIsAnArgumentError) {
  Kernel k =
      kernel("half_args",
             [](F16 h, Array<f16> x) { parallel_for(x.size(), [&](Index i) { x[i] = x[i] * h; }); },
             {"h", "x"});
  k.on(ir::Target::CPU);
  std::vector<f16> x(4, f16_of_bits(0x3c00));
  try {
    k(x, x);
    ADD_FAILURE() << "no ArgumentError";
  } catch (const ArgumentError &e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("'h'"), std::string::npos) << m;
    EXPECT_NE(m.find("a scalar f16"), std::string::npos) << m;
  }
  k(f16_of_bits(0x4000), x); // 2.0
  EXPECT_EQ(x[0].bits, 0x4000);
}

LOOM_INSTANTIATE_TARGETS(HalfDsl);

} // namespace
