// Scalar types of loom's IR and the C++-like promotion rules between them.
#pragma once

#include <cstdint>
#include <string>

namespace loom::ir {

enum class ScalarType : uint8_t { Bool, I32, I64, F32, F64 };

inline bool is_float(ScalarType t) {
  return t == ScalarType::F32 || t == ScalarType::F64;
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
