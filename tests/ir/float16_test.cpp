// The host's f16 and bf16 conversions (support/Float16.h), which the interpreter also uses:
// against GCC's _Float16 for f16, and for bf16 against the nearest of the two neighbouring bf16
// values worked out in double.
#include "support/Float16.h"
#include "support/HalfReference.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

using loom::bf16_bits_from_f32;
using loom::f16_bits_from_f32;
using loom::f32_from_bf16_bits;
using loom::f32_from_f16_bits;

// Edge values and random ones over the whole f32 range, both signs.
std::vector<float> test_floats() {
  std::vector<float> v = {0.0f,
                          -0.0f,
                          1.0f,
                          65504.0f,
                          65505.0f,
                          65519.0f,
                          65520.0f,
                          65536.0f,
                          6.1e-5f,
                          6.0e-8f,
                          5.96e-8f,
                          2.98e-8f,
                          2.9e-8f,
                          1e-30f,
                          3.0e38f,
                          1.0f / 3,
                          0.1f,
                          std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::denorm_min(),
                          0x1p-25f,
                          0x1.8p-25f,
                          0x1p-24f,
                          0x1.8p-24f,
                          0x1p-14f,
                          0x1.ffcp-15f,
                          0x1.ffep-15f};
  std::mt19937 rng(20261130);
  for (int k = 0; k < 200000; ++k) {
    float f = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    if (!std::isnan(f))
      v.push_back(f);
  }
  std::uniform_real_distribution<float> near(-70000.0f, 70000.0f);
  for (int k = 0; k < 200000; ++k)
    v.push_back(near(rng));
  std::uniform_real_distribution<float> tiny(-1e-4f, 1e-4f);
  for (int k = 0; k < 100000; ++k)
    v.push_back(tiny(rng));
  size_t n = v.size();
  for (size_t k = 0; k < n; ++k)
    v.push_back(-v[k]);
  return v;
}

TEST(Float16, EveryF16RoundTripsThroughF32AndMatchesGcc) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    _Float16 h = std::bit_cast<_Float16>(static_cast<uint16_t>(bits));
    float f = f32_from_f16_bits(static_cast<uint16_t>(bits));
    if (std::isnan(static_cast<float>(h))) {
      EXPECT_TRUE(std::isnan(f)) << std::hex << bits;
      EXPECT_TRUE(std::isnan(f32_from_f16_bits(f16_bits_from_f32(f)))) << std::hex << bits;
      continue;
    }
    ASSERT_EQ(std::bit_cast<uint32_t>(static_cast<float>(h)), std::bit_cast<uint32_t>(f))
        << std::hex << bits;
    ASSERT_EQ(bits, f16_bits_from_f32(f)) << std::hex << bits;
  }
}

TEST(Float16, F32ToF16RoundsToNearestEvenAsGccDoes) {
  for (float f : test_floats()) {
    uint16_t want = std::bit_cast<uint16_t>(static_cast<_Float16>(f));
    ASSERT_EQ(want, f16_bits_from_f32(f)) << std::hexfloat << f;
  }
  EXPECT_TRUE(std::isnan(f32_from_f16_bits(f16_bits_from_f32(std::nanf("")))));
}

// The bf16 nearest to f, ties to even, from the two bf16 values around it, compared in double.
uint16_t nearest_bf16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint16_t down = static_cast<uint16_t>(x >> 16); // toward zero
  uint16_t up = static_cast<uint16_t>(down + 1);  // away from zero (may become infinity)
  if ((x & 0xffffu) == 0)
    return down;
  double d = std::abs(double(f) - double(f32_from_bf16_bits(down)));
  double u = std::abs(double(f32_from_bf16_bits(up)) - double(f));
  if ((up & 0x7fffu) == 0x7f80u) // the value past the largest finite one, as a real number
    u = std::abs(std::ldexp(1.0, 128) - std::abs(double(f)));
  if (d != u)
    return d < u ? down : up;
  return (down & 1u) ? up : down;
}

TEST(Float16, F32ToBf16RoundsToNearestEven) {
  for (float f : test_floats())
    ASSERT_EQ(nearest_bf16(f), bf16_bits_from_f32(f)) << std::hexfloat << f;
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    float f = f32_from_bf16_bits(static_cast<uint16_t>(bits));
    if (std::isnan(f))
      EXPECT_TRUE(std::isnan(f32_from_bf16_bits(bf16_bits_from_f32(f))));
    else
      ASSERT_EQ(bits, bf16_bits_from_f32(f)) << std::hex << bits;
  }
}

// Doubles near 16-bit midpoints, where rounding to f32 first and then to 16 bits can differ from
// rounding once, and random ones.
std::vector<double> test_doubles() {
  std::vector<double> v = {0.0,
                           -0.0,
                           1.0,
                           65504.0,
                           65519.99,
                           65520.0,
                           1e300,
                           1e-300,
                           0x1p-25,
                           0x1.0000000001p-25,
                           std::numeric_limits<double>::infinity()};
  std::mt19937_64 rng(20261202);
  for (int k = 0; k < 100000; ++k) {
    // A 16-bit value, plus half its spacing, plus or minus a little less than f32 keeps.
    const double base = std::ldexp(1.0 + (rng() % 1024) / 1024.0, int(rng() % 40) - 20);
    const double half_spacing = std::ldexp(base, -11), tiny = std::ldexp(base, -30);
    v.push_back(base + half_spacing + tiny);
    v.push_back(base + half_spacing - tiny);
    v.push_back(base + std::ldexp(base, -8) + tiny); // a bf16 midpoint, plus a little
    v.push_back(std::bit_cast<double>(rng()));
  }
  size_t n = v.size();
  for (size_t k = 0; k < n; ++k)
    v.push_back(-v[k]);
  return v;
}

TEST(Float16, F64RoundsOnceToF16AsGccDoes) {
  for (double d : test_doubles()) {
    if (std::isnan(d))
      continue;
    const double want = static_cast<double>(static_cast<_Float16>(d)); // __truncdfhf2
    ASSERT_EQ(std::bit_cast<uint64_t>(want), std::bit_cast<uint64_t>(loom::round_to_f16(d)))
        << std::hexfloat << d;
  }
  // Rounding to f32 first would give the midpoint, then the even neighbour, 1.
  const double above_midpoint = 1.0 + 0x1p-11 + 0x1p-40;
  EXPECT_EQ(1.0 + 0x1p-10, loom::round_to_f16(above_midpoint));
  EXPECT_EQ(1.0, loom::round_to_f16(static_cast<float>(above_midpoint)));
  EXPECT_TRUE(std::isnan(loom::round_to_f16(NAN)));
}

TEST(Float16, F64RoundsOnceToBf16) {
  for (double d : test_doubles()) {
    if (std::isnan(d))
      continue;
    ASSERT_EQ(loomtest::nearest_bf16(d), loom::round_to_bf16(d)) << std::hexfloat << d;
  }
  EXPECT_TRUE(std::isnan(loom::round_to_bf16(NAN)));
}

TEST(Float16, HostTypesConvertExplicitly) {
  loom::f16 h(1.5f);
  loom::bf16 b(-2.75f);
  EXPECT_EQ(1.5f, static_cast<float>(h));
  EXPECT_EQ(-2.75f, static_cast<float>(b));
  EXPECT_EQ(loom::f16(1e6f), loom::f16(std::numeric_limits<float>::infinity()));
  static_assert(sizeof(loom::f16) == 2 && sizeof(loom::bf16) == 2);
}

} // namespace
