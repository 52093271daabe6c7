// Independent references for 16-bit float rounding in tests: the nearest f16 to a double from
// GCC's _Float16 conversion (one rounding, __truncdfhf2), and the nearest bf16 from the bf16
// values around the double's f32, compared in double. Neither uses support/Float16.h's rounding.
#pragma once

#include "support/Float16.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <initializer_list>

namespace loomtest {

inline double nearest_f16(double exact) {
  return static_cast<double>(static_cast<_Float16>(exact));
}

// Ties to even; beyond the largest finite bf16 the next value counts as 2^128 (infinity).
inline double nearest_bf16(double d) {
  const uint32_t t = std::bit_cast<uint32_t>(static_cast<float>(d)) >> 16;
  double best = 0, best_distance = INFINITY;
  for (uint32_t c : {t - 1, t, t + 1}) {
    if (((c >> 15) & 1u) != (t >> 15) || (c & 0x7fffu) > 0x7f80u)
      continue;
    const double value = loom::f32_from_bf16_bits(static_cast<uint16_t>(c));
    const double as_number = (c & 0x7fffu) == 0x7f80u ? std::copysign(0x1p128, value) : value;
    const double distance = std::abs(as_number - d);
    if (distance < best_distance || (distance == best_distance && !(c & 1u)))
      best = value, best_distance = distance;
  }
  return best;
}

} // namespace loomtest
