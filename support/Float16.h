// 16-bit floating-point storage types, for arrays that hold f16 (IEEE 754 binary16) or bf16
// (bfloat16: f32's exponent, 8 bits of significand) and compute in f32. The host types f16 and bf16
// hold the bits; conversions from f32 round to nearest, ties to even, as the GPU's cvt.rn and
// LLVM's fptrunc do. C++20 with GCC 12 has no std::float16_t or std::bfloat16_t, hence these.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace loom {

// f32 -> f16 bits: round to nearest even; overflow gives infinity, NaN stays NaN (quiet, with the
// top significand bits kept), values below the smallest subnormal round to signed zero.
constexpr uint16_t f16_bits_from_f32(float value) {
  const uint32_t x = std::bit_cast<uint32_t>(value);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) // infinity or NaN
    return static_cast<uint16_t>(sign | 0x7c00u |
                                 (abs > 0x7f800000u ? 0x0200u | ((abs >> 13) & 0x03ffu) : 0u));
  if (abs >= 0x477ff000u) // rounds to 65536 or more: infinity
    return static_cast<uint16_t>(sign | 0x7c00u);
  if (abs < 0x38800000u) { // below 2^-14: a subnormal f16 (or zero)
    if (abs < 0x33000000u) // at most 2^-25, half the smallest subnormal: rounds to zero
      return static_cast<uint16_t>(sign);
    const uint32_t exponent = abs >> 23;
    const uint32_t significand = (abs & 0x007fffffu) | 0x00800000u;
    const uint32_t shift = 126u - exponent; // 14 + (127 - 14 - 1) - exponent + 1
    uint32_t half = significand >> shift;
    const uint32_t rest = significand & ((1u << shift) - 1u);
    const uint32_t midpoint = 1u << (shift - 1u);
    if (rest > midpoint || (rest == midpoint && (half & 1u)))
      ++half;
    return static_cast<uint16_t>(sign | half);
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 bits dropped.
  uint32_t half = ((abs >> 13) - (112u << 10));
  const uint32_t rest = abs & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
    ++half; // a carry into the exponent is the right result, up to infinity
  return static_cast<uint16_t>(sign | half);
}

constexpr float f32_from_f16_bits(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t significand = bits & 0x03ffu;
  if (exponent == 0x1fu) // infinity or NaN
    return std::bit_cast<float>(sign | 0x7f800000u | (significand << 13));
  if (exponent != 0)
    return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (significand << 13));
  if (significand == 0)
    return std::bit_cast<float>(sign);
  // Subnormal: normalize into f32.
  uint32_t e = 113u;
  while (!(significand & 0x0400u)) {
    significand <<= 1;
    --e;
  }
  return std::bit_cast<float>(sign | (e << 23) | ((significand & 0x03ffu) << 13));
}

// f32 -> bf16 bits: round to nearest even; NaN stays NaN (quiet).
constexpr uint16_t bf16_bits_from_f32(float value) {
  const uint32_t x = std::bit_cast<uint32_t>(value);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((x >> 16) | 0x0040u);
  const uint32_t rounded = x + 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(rounded >> 16);
}

constexpr float f32_from_bf16_bits(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

// f64 -> f32 rounded to odd: toward zero, with the lowest significand bit set when that was
// inexact (a value beyond f32's range gives FLT_MAX, odd). Rounding that to a format of at most
// 22 significand bits rounds the f64 correctly, once (f32 keeps two bits more than f16 and bf16
// need), which is how loom makes an f16 or bf16 of an f64 on every backend.
inline float f32_round_to_odd(double value) {
  if (std::isnan(value))
    return static_cast<float>(value);
  float r = static_cast<float>(value);
  if (std::fabs(static_cast<double>(r)) > std::fabs(value))
    r = std::bit_cast<float>(std::bit_cast<uint32_t>(r) - 1u); // one step toward zero
  if (static_cast<double>(r) != value)
    r = std::bit_cast<float>(std::bit_cast<uint32_t>(r) | 1u);
  return r;
}

// f32 or f64 -> the nearest f16 (bf16), ties to even, as a double: what RoundF16 (RoundBF16) and
// every conversion to a 16-bit float give.
inline double round_to_f16(double value) {
  return f32_from_f16_bits(f16_bits_from_f32(f32_round_to_odd(value)));
}
inline double round_to_bf16(double value) {
  return f32_from_bf16_bits(bf16_bits_from_f32(f32_round_to_odd(value)));
}

// f32 or f64 -> the nearest TF32 value (the tensor cores' 19-bit float: f32's exponent, 10
// significand bits), ties away from zero, as PTX's cvt.rna.tf32.f32 rounds; NaN and infinities
// stay. An f64 rounds to odd first, so that it rounds once.
inline double round_to_tf32(double value) {
  const uint32_t x = std::bit_cast<uint32_t>(f32_round_to_odd(value));
  if ((x & 0x7f800000u) == 0x7f800000u)
    return std::bit_cast<float>(x);
  return std::bit_cast<float>((x + 0x1000u) & 0xffffe000u);
}

// An f16 array element on the host: its bits, converted from and to float explicitly.
struct f16 {
  uint16_t bits = 0;
  constexpr f16() = default;
  constexpr explicit f16(float value) : bits(f16_bits_from_f32(value)) {}
  constexpr explicit operator float() const { return f32_from_f16_bits(bits); }
  friend constexpr bool operator==(f16 a, f16 b) { return a.bits == b.bits; }
};

// A bf16 array element on the host.
struct bf16 {
  uint16_t bits = 0;
  constexpr bf16() = default;
  constexpr explicit bf16(float value) : bits(bf16_bits_from_f32(value)) {}
  constexpr explicit operator float() const { return f32_from_bf16_bits(bits); }
  friend constexpr bool operator==(bf16 a, bf16 b) { return a.bits == b.bits; }
};

} // namespace loom
