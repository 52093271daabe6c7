// Scalar types of loom's IR and the C++-like promotion rules between them.
#pragma once

#include <cstdint>
#include <string>

namespace loom::ir {

// Integers of 8 to 64 bits, signed (two's complement) and unsigned, and floats. F16 (IEEE
// binary16) and BF16 (bfloat16) values compute as f32 does and round to their type after every
// operation (exactly IEEE 16-bit arithmetic for + - * / and sqrt); expand_half (ir/ExpandHalf.cpp)
// makes each an f32 that holds it, with RoundF16/RoundBF16 where one is made, before any target
// sees them. An element of an f16 or bf16 array reads as an F32 and a store into one takes an F32,
// rounded to nearest even (support/Float16.h has the host's conversions). C64 and C128 are complex
// numbers of two f32 or two f64 (real part first, laid out as std::complex); lowering turns them
// into their parts before any target sees them (ir/ExpandComplex.cpp). New types go at the end:
// the numbering is part of cache keys.
enum class ScalarType : uint8_t {
  Bool,
  I32,
  I64,
  F32,
  F64,
  F16,
  BF16,
  I8,
  I16,
  U8,
  U16,
  U32,
  U64,
  C64,
  C128
};
constexpr int kScalarTypeCount = static_cast<int>(ScalarType::C128) + 1;

// The 16-bit floats, f16 and bf16.
inline bool is_half_float(ScalarType t) {
  return t == ScalarType::F16 || t == ScalarType::BF16;
}
// The type of a value loaded from, or stored into, an array of elements of type t (f32 for the
// 16-bit floats).
inline ScalarType value_type(ScalarType t) {
  return is_half_float(t) ? ScalarType::F32 : t;
}

// Floating-point types, the 16-bit ones included.
inline bool is_float(ScalarType t) {
  return t == ScalarType::F32 || t == ScalarType::F64 || t == ScalarType::F16 ||
         t == ScalarType::BF16;
}
inline bool is_unsigned(ScalarType t) {
  return t == ScalarType::U8 || t == ScalarType::U16 || t == ScalarType::U32 ||
         t == ScalarType::U64;
}
inline bool is_signed_int(ScalarType t) {
  return t == ScalarType::I8 || t == ScalarType::I16 || t == ScalarType::I32 ||
         t == ScalarType::I64;
}
inline bool is_complex(ScalarType t) {
  return t == ScalarType::C64 || t == ScalarType::C128;
}
// The type of a complex type's parts (f32 for c64, f64 for c128); a real type is its own.
inline ScalarType part_type(ScalarType t) {
  return t == ScalarType::C64 ? ScalarType::F32 : t == ScalarType::C128 ? ScalarType::F64 : t;
}
// The complex type whose parts are the float type t (c64 for f32, c128 for f64).
inline ScalarType complex_of(ScalarType t) {
  return t == ScalarType::F64 ? ScalarType::C128 : ScalarType::C64;
}
// Integer types of every width and signedness (not bool).
inline bool is_int(ScalarType t) {
  return is_signed_int(t) || is_unsigned(t);
}
inline int bit_width(ScalarType t) {
  switch (t) {
  case ScalarType::Bool:
    return 1;
  case ScalarType::I8:
  case ScalarType::U8:
    return 8;
  case ScalarType::I16:
  case ScalarType::U16:
  case ScalarType::F16:
  case ScalarType::BF16:
    return 16;
  case ScalarType::I32:
  case ScalarType::U32:
  case ScalarType::F32:
    return 32;
  case ScalarType::I64:
  case ScalarType::U64:
  case ScalarType::F64:
  case ScalarType::C64:
    return 64;
  case ScalarType::C128:
    return 128;
  }
  return 0;
}
// Bytes an element occupies in memory (bool is one byte).
inline int byte_size(ScalarType t) {
  return t == ScalarType::Bool ? 1 : bit_width(t) / 8;
}
// C++'s integer promotion: bool and the integers narrower than 32 bits compute as i32.
inline ScalarType promote_integer(ScalarType t) {
  return t == ScalarType::Bool || ((is_int(t)) && bit_width(t) < 32) ? ScalarType::I32 : t;
}
// How an integer of type t is held in 64 bits (ir::ScalarValue, IntConst): the low bit_width(t)
// bits of v, sign-extended for signed types and zero-extended for unsigned ones (a u64 keeps its
// bits, so a u64 above INT64_MAX is held as a negative int64_t); bool is v != 0.
inline int64_t wrap_int(ScalarType t, uint64_t v) {
  if (t == ScalarType::Bool)
    return v != 0;
  const int bits = bit_width(t);
  if (bits >= 64)
    return static_cast<int64_t>(v);
  const uint64_t low = v & ((uint64_t(1) << bits) - 1);
  if (is_unsigned(t))
    return static_cast<int64_t>(low);
  const uint64_t sign = uint64_t(1) << (bits - 1);
  return static_cast<int64_t>((low ^ sign) - sign);
}
// The largest and smallest values of an integer type, as held.
inline int64_t int_max(ScalarType t) {
  return is_unsigned(t) ? wrap_int(t, ~uint64_t(0))
                        : wrap_int(t, (uint64_t(1) << (bit_width(t) - 1)) - 1);
}
inline int64_t int_min(ScalarType t) {
  return is_unsigned(t) ? 0 : wrap_int(t, uint64_t(1) << (bit_width(t) - 1));
}
// The integer type of `bits` bits and the signedness asked for.
ScalarType int_type(int bits, bool is_signed);

// "f32", "i64", ... as printed by the IR printer and written in the text DSL.
const char *type_name(ScalarType t);

// The C++ usual arithmetic conversions: bool and narrow integers promote to i32; the floating or
// wider type wins (a 16-bit float with itself or with an integer stays itself, as C++'s
// std::float16_t does; f16 with bf16 is f32); between a signed and an unsigned type of one width
// the unsigned one does, and i64 holds every u32 (u32 + i64 is i64, u64 + i64 is u64). With a
// complex operand the result is the complex type whose parts have the type the parts and the other
// operand promote to (as NumPy: c64 + f64 is c128, c64 + i64 is c64).
ScalarType promote(ScalarType a, ScalarType b);

} // namespace loom::ir
