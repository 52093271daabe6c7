// Random values for generated programs: constants in the code, scalar arguments and array
// elements. Mostly small, ordinary numbers (so that results stay finite and comparisons go both
// ways), with the edge values where backends tend to differ mixed in.
#pragma once

#include "ir/IR.h"
#include "ir/Semantics.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

namespace loom::difftest {

class ValueSource {
public:
  explicit ValueSource(uint64_t seed) : rng_(seed) {}

  // A constant expression of type t (a complex one is complex(re, im) of two float constants).
  ir::Expr constant(ir::ScalarType t) {
    ir::ScalarValue v = ir::is_half_float(t) ? half_value(t, 0.3) : value(t, 0.3);
    if (ir::is_complex(t)) {
      const ir::ScalarType p = ir::part_type(t);
      return ir::Call::make(ir::MathFn::Complex,
                            {ir::FloatConst::make(p, v.f), ir::FloatConst::make(p, v.im)});
    }
    if (t == ir::ScalarType::Bool)
      return ir::BoolConst::make(v.i != 0);
    if (ir::is_int(t))
      return ir::IntConst::make(t, v.i);
    return ir::FloatConst::make(t, v.f);
  }
  // A 16-bit float scalar (an argument or a constant; array elements come from element()) is an
  // f16 (bf16) value exactly, with edges of its own (half_value).
  ir::ScalarValue scalar(ir::ScalarType t) {
    return ir::is_half_float(t) ? half_value(t, 0.2) : value(t, 0.2);
  }
  ir::ScalarValue element(ir::ScalarType t) { return value(t, 0.05); }

private:
  // `edgy`: how often an edge value is picked instead of a small ordinary one.
  ir::ScalarValue value(ir::ScalarType t, double edgy) {
    const bool edge = std::uniform_real_distribution<double>(0, 1)(rng_) < edgy;
    if (ir::is_complex(t)) {
      // Both parts in the floats' ranges; an edge value as often as for a float: an edge complex
      // number has an edge real part, imaginary part or both, the other part an ordinary value.
      const ir::ScalarType p = ir::part_type(t);
      const int which = edge ? static_cast<int>(rng_() % 3) : -1;
      ir::ScalarValue re = value(p, which == 0 || which == 2 ? 1.0 : 0.0);
      ir::ScalarValue im = value(p, which == 1 || which == 2 ? 1.0 : 0.0);
      // Now and then a real number or an imaginary one, where the formulas take other branches.
      const unsigned shape = static_cast<unsigned>(rng_() % 8);
      if (!edge && shape == 0)
        im.f = 0;
      else if (!edge && shape == 1)
        re.f = 0;
      return ir::ScalarValue{0, re.f, im.f};
    }
    if (t == ir::ScalarType::Bool)
      return ir::int_value(t, rng_() & 1);
    if (ir::is_int(t)) {
      if (!edge)
        return ir::int_value(t, std::uniform_int_distribution<int64_t>(-20, 20)(rng_));
      static const int64_t edges[] = {
          0, 1, -1, 31, 32, 33, 63, 64, 65, std::numeric_limits<int32_t>::min(),
          std::numeric_limits<int32_t>::max(), std::numeric_limits<int64_t>::min(),
          std::numeric_limits<int64_t>::max(), 1ll << 31, (1ll << 32) + 7,
          // i64 -> f32 rounds differently when it goes through f64 first (double rounding)
          (1ll << 62) + (1ll << 38) + 1, -((1ll << 55) + (1ll << 31) + 1),
          // i64 -> f64 and f32 -> i32 boundaries
          (1ll << 53) + 1, 16777217};
      const size_t n = sizeof(edges) / sizeof(edges[0]);
      if (rng_() % 4 == 0)
        return ir::int_value(t, static_cast<int64_t>(rng_()));
      return ir::int_value(t, edges[rng_() % n]);
    }
    if (!edge) {
      // Multiples of 1/8 are exact in both float types: many results stay exact.
      double v = std::uniform_real_distribution<double>(-10, 10)(rng_);
      if (rng_() % 2 == 0)
        v = std::round(v * 8) / 8;
      return ir::float_value(t, v);
    }
    const double inf = std::numeric_limits<double>::infinity();
    static const double edges[] = {0.0,
                                   -0.0,
                                   0.5,
                                   -1.5,
                                   1e-3,
                                   1e10,
                                   -3e9,
                                   1e30,
                                   1e-40,
                                   1e-310,
                                   1e300,
                                   2147483648.0,
                                   -2147483904.0,
                                   9.3e18,
                                   0.49999997,
                                   2.5,
                                   inf,
                                   -inf,
                                   std::numeric_limits<double>::quiet_NaN()};
    const size_t n = sizeof(edges) / sizeof(edges[0]);
    return ir::float_value(t, edges[rng_() % n]);
  }

  // A 16-bit float: the ordinary values of the other floats, rounded, or now and then one of
  // its own edges: f16's largest value and the values that round to it or past it, its smallest
  // normal and subnormal numbers, bf16's (0 or infinity as an f16), halfway cases.
  ir::ScalarValue half_value(ir::ScalarType t, double edgy) {
    if (std::uniform_real_distribution<double>(0, 1)(rng_) >= edgy)
      return value(t, 0);
    const double inf = std::numeric_limits<double>::infinity();
    static const double edges[] = {
        0.0,    -0.0,  0.5,   -1.5,         1e-3,
        0.1,    2.5,   2049,  1000.5,       65504,
        -65504, 65519, 65520, 5.9604645e-8, 6.1035156e-5,
        1e-40,  3e38,  inf,   -inf,         std::numeric_limits<double>::quiet_NaN()};
    const size_t n = sizeof(edges) / sizeof(edges[0]);
    return ir::float_value(t, edges[rng_() % n]);
  }

  std::mt19937_64 rng_;
};

} // namespace loom::difftest
