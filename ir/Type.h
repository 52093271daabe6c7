// Scalar types of loom's IR and the C++-like promotion rules between them.
#pragma once

#include <cstdint>
#include <string>

namespace loom::ir {

// F16 (IEEE binary16) and BF16 (bfloat16) are storage types: only arrays hold them. A load from
// such an array gives an F32 and a store into it takes an F32, rounded to nearest even; no
// expression has a storage type (support/Float16.h has the host's conversions).
enum class ScalarType : uint8_t { Bool, I32, I64, F32, F64, F16, BF16 };

inline bool is_storage_only(ScalarType t) {
  return t == ScalarType::F16 || t == ScalarType::BF16;
}
// The type of a value loaded from, or stored into, an array of elements of type t.
inline ScalarType value_type(ScalarType t) {
  return is_storage_only(t) ? ScalarType::F32 : t;
}

// Floating-point types, the storage types included (array elements compare as floats).
inline bool is_float(ScalarType t) {
  return t == ScalarType::F32 || t == ScalarType::F64 || t == ScalarType::F16 ||
         t == ScalarType::BF16;
}
inline bool is_int(ScalarType t) {
  return t == ScalarType::I32 || t == ScalarType::I64;
}
inline int bit_width(ScalarType t) {
  switch (t) {
  case ScalarType::Bool:
    return 1;
  case ScalarType::I32:
  case ScalarType::F32:
    return 32;
  case ScalarType::I64:
  case ScalarType::F64:
    return 64;
  case ScalarType::F16:
  case ScalarType::BF16:
    return 16;
  }
  return 0;
}
// Bytes an element occupies in memory (bool is one byte).
inline int byte_size(ScalarType t) {
  return t == ScalarType::Bool ? 1 : bit_width(t) / 8;
}

// "f32", "i64", ... as printed by the IR printer and written in the text DSL.
const char *type_name(ScalarType t);

// The C++ usual arithmetic conversions: bool promotes to i32; the wider or floating type wins.
ScalarType promote(ScalarType a, ScalarType b);

} // namespace loom::ir
