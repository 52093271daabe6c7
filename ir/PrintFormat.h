// How print(...) prints, the same on every backend: the printf format of a Print statement, as
// the GPU's vprintf and the CPU runtime's loom_print (support/PrintLine.h) take it, and one
// value's text as the interpreter makes it.
//
//   bool        True / False (Python's)                       %s
//   signed int  decimal                                       %lld (the value sign-extended)
//   unsigned    decimal                                       %llu (zero-extended)
//   f16 bf16 f32  9 significant digits (round-trips an f32)   %.9g (the value as a double)
//   f64         17 significant digits (round-trips)           %.17g
//   c64 c128    (re+imj), each part as above                  (%.9g%+.9gj), (%.17g%+.17gj)
//   NaN         nan, whatever its sign and payload; infinities inf and -inf
//
// Items are separated by one space and the line ends with a newline. Each conversion takes one
// 8-byte slot of the argument buffer: an int64, a uint64, a double, or a pointer to "True" or
// "False". A '%' of literal text is written "%%".
#pragma once

#include "ir/IR.h"
#include "ir/Semantics.h"

#include <string>

namespace loom::ir {

std::string print_format(const Print &print);

// The text `value` of type t prints as (complex: v.f and v.im).
std::string print_text(ScalarType t, ScalarValue v);

} // namespace loom::ir
