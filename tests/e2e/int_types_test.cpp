// The integer types of every width and signedness (i8 i16 i32 i64 u8 u16 u32 u64) through every
// operator, every cast and the host transfer paths, on each target, bit for bit against C++
// computed on the same host types: the usual arithmetic conversions (narrow types promote to i32,
// u32 with i32 is u32), wrapping overflow, and loom's definitions where C++ leaves a case
// undefined (x / 0 == 0, x % 0 == x, MIN / -1 == MIN, shifts modulo the width, saturating float to
// integer casts).
#include "support/TestUtil.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>

using namespace loom;

namespace {

// Random values of T with its edge values mixed in.
template <class T> std::vector<T> int_values(size_t n, unsigned seed) {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {T(0), T(1), T(T(0) - 1), L::min(), L::max(), T(L::min() + 1), T(L::max() - 1),
                      T(2), T(7), T(31),       T(32),    T(33),    T(63),           T(64)};
  std::mt19937_64 rng(seed);
  while (v.size() < n) {
    uint64_t bits = rng();
    v.push_back(static_cast<T>(rng() % 3 == 0 ? bits % 100 : bits));
  }
  return v;
}

// C++'s result type of T op T: int for the narrow types.
template <class T> using Promoted = decltype(T() + T());

// loom's definitions of the operators C++ leaves undefined, on the promoted type R.
template <class R> R wrapping(R a, R b, char op) {
  using U = std::make_unsigned_t<R>;
  switch (op) {
  case '+':
    return static_cast<R>(static_cast<U>(a) + static_cast<U>(b));
  case '-':
    return static_cast<R>(static_cast<U>(a) - static_cast<U>(b));
  case '*':
    return static_cast<R>(static_cast<U>(a) * static_cast<U>(b));
  case '/':
    if (b == 0)
      return 0;
    if (std::is_signed_v<R> && a == std::numeric_limits<R>::min() && b == R(-1))
      return a;
    return a / b;
  case '%':
    if (b == 0)
      return a;
    if (std::is_signed_v<R> && b == R(-1))
      return 0;
    return a % b;
  case '<': // shifts take the amount modulo the width of the promoted type
    return static_cast<R>(static_cast<U>(a) << (static_cast<U>(b) % (sizeof(R) * 8)));
  case '>':
    return a >> (static_cast<U>(b) % (sizeof(R) * 8));
  }
  return 0;
}

class IntTypes : public loomtest::TargetTest {
protected:
  template <class T> void operators() {
    using R = Promoted<T>;
    auto k = kernel(std::string("int_ops_") + ir::type_name(dtype_of<T>()),
                    [](Array<T> a, Array<T> b, Array2<R> out, Array2<bool> cmp) {
                      parallel_for(a.size(), [&](Index i) {
                        Value<T> x = a[i], y = b[i];
                        out(i, 0) = x + y;
                        out(i, 1) = x - y;
                        out(i, 2) = x * y;
                        out(i, 3) = x / y;
                        out(i, 4) = x % y;
                        out(i, 5) = min(x, y);
                        out(i, 6) = max(x, y);
                        out(i, 7) = x & y;
                        out(i, 8) = x | y;
                        out(i, 9) = x ^ y;
                        out(i, 10) = x << y;
                        out(i, 11) = x >> y;
                        out(i, 12) = -x;
                        out(i, 13) = ~x;
                        out(i, 14) = abs(x);
                        out(i, 15) = x + 1; // the literal takes the (promoted) type
                        cmp(i, 0) = x < y;
                        cmp(i, 1) = x <= y;
                        cmp(i, 2) = x > y;
                        cmp(i, 3) = x == y;
                        cmp(i, 4) = x != -1; // -1 converted as C++ converts it
                      });
                    });
    prepare(k);
    std::vector<T> a = int_values<T>(300, 1), b = int_values<T>(300, 2);
    std::shuffle(b.begin(), b.end(), std::mt19937(3));
    const int64_t n = a.size();
    std::vector<R> out(n * 16, R(99));
    std::vector<unsigned char> cmp(n * 5, 7);
    k(a, b, view(out, {n, 16}), view(reinterpret_cast<bool *>(cmp.data()), {n, 5}));
    for (int64_t i = 0; i < n; ++i) {
      const R x = a[i], y = b[i];
      const R expected[] = {wrapping<R>(x, y, '+'),
                            wrapping<R>(x, y, '-'),
                            wrapping<R>(x, y, '*'),
                            wrapping<R>(x, y, '/'),
                            wrapping<R>(x, y, '%'),
                            std::min(x, y),
                            std::max(x, y),
                            R(x & y),
                            R(x | y),
                            R(x ^ y),
                            wrapping<R>(x, y, '<'),
                            wrapping<R>(x, y, '>'),
                            wrapping<R>(0, x, '-'),
                            R(~x),
                            std::is_signed_v<R> && x < 0 ? wrapping<R>(0, x, '-') : x,
                            wrapping<R>(x, 1, '+')};
      for (int op = 0; op < 16; ++op)
        ASSERT_EQ(out[i * 16 + op], expected[op])
            << "operator " << op << " on " << ir::type_name(dtype_of<T>()) << " " << +a[i] << ", "
            << +b[i];
      const bool expected_cmp[] = {x<y, x <= y, x> y, x == y, x != static_cast<R>(-1)};
      for (int op = 0; op < 5; ++op)
        ASSERT_EQ(cmp[i * 5 + op] != 0, expected_cmp[op])
            << "comparison " << op << " on " << ir::type_name(dtype_of<T>()) << " " << +a[i] << ", "
            << +b[i];
    }
  }

  // T to every integer type and to f32, f64 and bool: C++'s conversions (C++20 defines the
  // integer ones as modulo 2^n), one rounding to float.
  template <class T> void casts() {
    auto k =
        kernel(std::string("int_casts_") + ir::type_name(dtype_of<T>()),
               [](Array<T> a, Array<int8_t> i8, Array<int16_t> i16, Array<int32_t> i32,
                  Array<int64_t> i64, Array<uint8_t> u8, Array<uint16_t> u16, Array<uint32_t> u32,
                  Array<uint64_t> u64, Array<float> f32, Array<double> f64, Array<int32_t> b) {
                 parallel_for(a.size(), [&](Index i) {
                   i8[i] = cast<int8_t>(a[i]);
                   i16[i] = cast<int16_t>(a[i]);
                   i32[i] = cast<int32_t>(a[i]);
                   i64[i] = cast<int64_t>(a[i]);
                   u8[i] = cast<uint8_t>(a[i]);
                   u16[i] = cast<uint16_t>(a[i]);
                   u32[i] = cast<uint32_t>(a[i]);
                   u64[i] = cast<uint64_t>(a[i]);
                   f32[i] = cast<float>(a[i]);
                   f64[i] = cast<double>(a[i]);
                   b[i] = select(cast<bool>(a[i]), 1, 0);
                 });
               });
    prepare(k);
    std::vector<T> a = int_values<T>(200, 4);
    const size_t n = a.size();
    std::vector<int8_t> i8(n);
    std::vector<int16_t> i16(n);
    std::vector<int32_t> i32(n), b(n);
    std::vector<int64_t> i64(n);
    std::vector<uint8_t> u8(n);
    std::vector<uint16_t> u16(n);
    std::vector<uint32_t> u32(n);
    std::vector<uint64_t> u64(n);
    std::vector<float> f32(n);
    std::vector<double> f64(n);
    k(a, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, b);
    for (size_t i = 0; i < n; ++i) {
      const char *t = ir::type_name(dtype_of<T>());
      ASSERT_EQ(i8[i], static_cast<int8_t>(a[i])) << t << " " << +a[i];
      ASSERT_EQ(i16[i], static_cast<int16_t>(a[i])) << t << " " << +a[i];
      ASSERT_EQ(i32[i], static_cast<int32_t>(a[i])) << t << " " << +a[i];
      ASSERT_EQ(i64[i], static_cast<int64_t>(a[i])) << t << " " << +a[i];
      ASSERT_EQ(u8[i], static_cast<uint8_t>(a[i])) << t << " " << +a[i];
      ASSERT_EQ(u16[i], static_cast<uint16_t>(a[i])) << t << " " << +a[i];
      ASSERT_EQ(u32[i], static_cast<uint32_t>(a[i])) << t << " " << +a[i];
      ASSERT_EQ(u64[i], static_cast<uint64_t>(a[i])) << t << " " << +a[i];
      ASSERT_EQ(f32[i], static_cast<float>(a[i])) << t << " " << +a[i];
      ASSERT_EQ(f64[i], static_cast<double>(a[i])) << t << " " << +a[i];
      ASSERT_EQ(b[i], a[i] != 0 ? 1 : 0) << t << " " << +a[i];
    }
  }

  // f64 and f32 to T: truncation toward zero, saturated at T's limits, NaN to 0.
  template <class T> void from_floats() {
    auto k = kernel(std::string("float_to_") + ir::type_name(dtype_of<T>()),
                    [](Array<double> d, Array<T> from_d, Array<T> from_f) {
                      parallel_for(d.size(), [&](Index i) {
                        from_d[i] = cast<T>(d[i]);
                        from_f[i] = cast<T>(cast<float>(d[i]));
                      });
                    });
    prepare(k);
    using L = std::numeric_limits<T>;
    std::vector<double> d = {0.0,
                             -0.0,
                             0.5,
                             -0.5,
                             1.9,
                             -1.9,
                             127.5,
                             128.0,
                             -128.5,
                             -129.0,
                             255.9,
                             256.0,
                             -1e30,
                             1e30,
                             NAN,
                             INFINITY,
                             -INFINITY,
                             double(L::max()),
                             double(L::min()),
                             double(L::max()) + 1e3,
                             4294967295.0,
                             4294967296.0,
                             9.3e18,
                             1.9e19,
                             -9.3e18};
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> dist(-1e5, 1e5);
    for (int k2 = 0; k2 < 200; ++k2)
      d.push_back(dist(rng));
    std::vector<T> from_d(d.size()), from_f(d.size());
    k(d, from_d, from_f);
    auto saturate = [](double x) -> T {
      if (std::isnan(x))
        return 0;
      const long double t = std::trunc(static_cast<long double>(x));
      if (t <= static_cast<long double>(L::min()))
        return L::min();
      if (t >= static_cast<long double>(L::max()))
        return L::max();
      return static_cast<T>(t);
    };
    for (size_t i = 0; i < d.size(); ++i) {
      ASSERT_EQ(from_d[i], saturate(d[i])) << ir::type_name(dtype_of<T>()) << "(" << d[i] << ")";
      ASSERT_EQ(from_f[i], saturate(static_cast<float>(d[i])))
          << ir::type_name(dtype_of<T>()) << "(f32 " << d[i] << ")";
    }
  }
};

TEST_P(IntTypes, EveryOperatorOnEveryWidth) {
  operators<int8_t>();
  operators<int16_t>();
  operators<int32_t>();
  operators<int64_t>();
  operators<uint8_t>();
  operators<uint16_t>();
  operators<uint32_t>();
  operators<uint64_t>();
}

TEST_P(IntTypes, CastsBetweenEveryPair) {
  casts<int8_t>();
  casts<int16_t>();
  casts<int32_t>();
  casts<int64_t>();
  casts<uint8_t>();
  casts<uint16_t>();
  casts<uint32_t>();
  casts<uint64_t>();
}

TEST_P(IntTypes, FloatToIntegerSaturates) {
  from_floats<int8_t>();
  from_floats<int16_t>();
  from_floats<int32_t>();
  from_floats<int64_t>();
  from_floats<uint8_t>();
  from_floats<uint16_t>();
  from_floats<uint32_t>();
  from_floats<uint64_t>();
}

// Mixed signedness follows C++: u32 with i32 is u32, u32 with i64 is i64, u64 with i64 is u64;
// scalars of every width pass as arguments.
TEST_P(IntTypes, MixedSignednessAndScalarArguments) {
  auto k = kernel("mixed", [](U32 u, I32 s, I64 l, U64 w, U8 small, Array<uint32_t> us,
                              Array<int64_t> ul, Array<uint64_t> wl, Array<int32_t> narrow) {
    parallel_for(us.size(), [&](Index i) {
      us[i] = u + s;                     // u32
      ul[i] = u + l;                     // i64
      wl[i] = w + l;                     // u64
      narrow[i] = small * small + small; // i32: 255 * 255 + 255 does not wrap at 8 bits
    });
  });
  prepare(k);
  std::vector<uint32_t> us(4);
  std::vector<int64_t> ul(4);
  std::vector<uint64_t> wl(4);
  std::vector<int32_t> narrow(4);
  k(uint32_t(5), int32_t(-7), int64_t(-7), uint64_t(5), uint8_t(255), us, ul, wl, narrow);
  EXPECT_EQ(us[0], uint32_t(5) + int32_t(-7)); // 4294967294
  EXPECT_EQ(ul[0], int64_t(-2));
  EXPECT_EQ(wl[0], uint64_t(5) + uint64_t(int64_t(-7)));
  EXPECT_EQ(narrow[0], 255 * 255 + 255);
}

// An 8-bit RGB image to f32 grey with a gamma curve: u8 elements in, pow out.
TEST_P(IntTypes, EightBitImageToGrey) {
  auto k = kernel("grey", [](Array3<uint8_t> rgb, F32 gamma, Array2<float> grey) {
    parallel_for({grey.dim(0), grey.dim(1)}, [&](Index y, Index x) {
      Value<float> lum = 0.2126f * rgb(y, x, 0) + 0.7152f * rgb(y, x, 1) + 0.0722f * rgb(y, x, 2);
      grey(y, x) = pow(lum / 255.0f, gamma);
    });
  });
  prepare(k);
  const int64_t h = 37, w = 53;
  std::vector<uint8_t> rgb(h * w * 3);
  std::mt19937 rng(6);
  for (uint8_t &c : rgb)
    c = static_cast<uint8_t>(rng());
  std::vector<float> grey(h * w);
  k(view(rgb, {h, w, 3}), 2.2f, view(grey, {h, w}));
  for (int64_t p = 0; p < h * w; ++p) {
    double lum = 0.2126 * rgb[p * 3] + 0.7152 * rgb[p * 3 + 1] + 0.0722 * rgb[p * 3 + 2];
    double ref = std::pow(lum / 255.0, 2.2);
    ASSERT_NEAR(grey[p], ref, 4e-6 * std::max(1.0, ref)) << p;
  }
}

LOOM_INSTANTIATE_TARGETS(IntTypes);

} // namespace
