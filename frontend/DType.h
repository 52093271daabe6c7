// The C++ element and scalar types the embedded DSL accepts, and their IR types.
#pragma once

#include "ir/Type.h"
#include "support/Float16.h"

#include <complex>
#include <cstdint>
#include <type_traits>

namespace loom {

// The 16-bit floats, loom::f16 (IEEE binary16) and loom::bf16 (bfloat16): scalar values of these
// types compute as IEEE 16-bit arithmetic does, each operation rounded to the type (ir/Type.h).
template <class T> constexpr bool is_half_v = std::is_same_v<T, f16> || std::is_same_v<T, bf16>;

// The floating-point types of the DSL: float, double, f16 and bf16 (and the C++ floating types a
// literal may have). Where the DSL classifies a type as floating, it uses this, not
// std::is_floating_point_v, which f16 and bf16 are not.
template <class T> constexpr bool is_float_v = std::is_floating_point_v<T> || is_half_v<T>;

template <class T>
concept DslScalar =
    std::is_same_v<T, bool> || std::is_same_v<T, int8_t> || std::is_same_v<T, int16_t> ||
    std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> || std::is_same_v<T, uint8_t> ||
    std::is_same_v<T, uint16_t> || std::is_same_v<T, uint32_t> || std::is_same_v<T, uint64_t> ||
    std::is_same_v<T, float> || std::is_same_v<T, double> || is_half_v<T> ||
    std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

// The complex types: std::complex<float> (c64) and std::complex<double> (c128).
template <class T>
constexpr bool is_complex_v =
    std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

namespace detail {
template <class T> struct complex_part { using type = T; };
template <class F> struct complex_part<std::complex<F>> { using type = F; };
} // namespace detail
// The type of a complex type's parts (float for std::complex<float>); a real type is its own.
template <class T> using complex_part_t = typename detail::complex_part<T>::type;
// The complex type whose parts are the float type F (std::complex<float> for float, and for f16
// and bf16, as ir::complex_of: no complex type has 16-bit parts).
template <class F> using complex_of_t = std::complex<std::conditional_t<is_half_v<F>, float, F>>;

// Array elements: the scalars, the 16-bit floats f16 and bf16 included, whose elements kernels
// read and write as f32 (ir::value_type).
template <class T>
concept DslElement = DslScalar<T>;

// The DSL type of the values an array of T holds (float for f16 and bf16: an element of an f16
// array reads as an f32, and a store into it takes an f32, rounded).
template <DslElement T> using element_value_t = std::conditional_t<is_half_v<T>, float, T>;

template <DslElement T> constexpr ir::ScalarType dtype_of() {
  if constexpr (std::is_same_v<T, f16>)
    return ir::ScalarType::F16;
  else if constexpr (std::is_same_v<T, bf16>)
    return ir::ScalarType::BF16;
  else if constexpr (std::is_same_v<T, bool>)
    return ir::ScalarType::Bool;
  else if constexpr (std::is_same_v<T, int8_t>)
    return ir::ScalarType::I8;
  else if constexpr (std::is_same_v<T, int16_t>)
    return ir::ScalarType::I16;
  else if constexpr (std::is_same_v<T, int32_t>)
    return ir::ScalarType::I32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return ir::ScalarType::I64;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return ir::ScalarType::U8;
  else if constexpr (std::is_same_v<T, uint16_t>)
    return ir::ScalarType::U16;
  else if constexpr (std::is_same_v<T, uint32_t>)
    return ir::ScalarType::U32;
  else if constexpr (std::is_same_v<T, uint64_t>)
    return ir::ScalarType::U64;
  else if constexpr (std::is_same_v<T, float>)
    return ir::ScalarType::F32;
  else if constexpr (std::is_same_v<T, double>)
    return ir::ScalarType::F64;
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return ir::ScalarType::C64;
  else
    return ir::ScalarType::C128;
}

namespace detail {
template <size_t Bytes, bool Signed> struct int_of_size;
template <> struct int_of_size<1, true> { using type = int8_t; };
template <> struct int_of_size<2, true> { using type = int16_t; };
template <> struct int_of_size<4, true> { using type = int32_t; };
template <> struct int_of_size<8, true> { using type = int64_t; };
template <> struct int_of_size<1, false> { using type = uint8_t; };
template <> struct int_of_size<2, false> { using type = uint16_t; };
template <> struct int_of_size<4, false> { using type = uint32_t; };
template <> struct int_of_size<8, false> { using type = uint64_t; };
} // namespace detail

namespace detail {
template <class T> struct dsl_type {
  using type = std::conditional_t<
      std::is_same_v<T, bool>, bool,
      std::conditional_t<std::is_floating_point_v<T>,
                         std::conditional_t<std::is_same_v<T, float>, float, double>,
                         typename int_of_size<sizeof(T), std::is_signed_v<T>>::type>>;
};
template <class T>
requires(is_complex_v<T> || is_half_v<T>) struct dsl_type<T> {
  using type = T;
};
} // namespace detail
// The DSL type of a C++ number: for an arithmetic type, the integer of its size and signedness
// (long long and long are both i64, char is i8 or u8 as the platform's char is), float or double;
// f16, bf16, std::complex<float> and std::complex<double> are their own.
template <class T> using dsl_type_t = typename detail::dsl_type<T>::type;

// C++'s integer promotion: bool and integers narrower than int compute as int (i32).
template <class T>
using promoted_t = std::conditional_t<
    std::is_same_v<T, bool> || (std::is_integral_v<T> && sizeof(T) < sizeof(int32_t)), int32_t, T>;

namespace detail {
template <class A, class B> struct promote {
  using type = dsl_type_t<decltype(A() + B())>; // C++'s usual arithmetic conversions
};
// With a complex operand: the complex type whose parts have the type the parts and the other
// operand promote to (ir::promote, as NumPy: c64 + f64 is c128, c64 + i64 is c64).
template <class A, class B>
requires(is_complex_v<A> || is_complex_v<B>) struct promote<A, B> {
  using type = complex_of_t<typename promote<complex_part_t<A>, complex_part_t<B>>::type>;
};
// With a 16-bit float and no complex operand (ir::promote, as C++23's std::float16_t and
// std::bfloat16_t): f16 with f16 is f16 (bf16 with bf16 bf16), with an integer or a bool it stays
// itself; f16 with bf16 is f32, with f32 f32, with f64 f64.
template <class A, class B>
requires(!is_complex_v<A> && !is_complex_v<B> &&
         (is_half_v<A> || is_half_v<B>)) struct promote<A, B> {
  using type = std::conditional_t<
      std::is_same_v<A, B>, A,
      std::conditional_t<is_half_v<A> && is_half_v<B>, float,
                         std::conditional_t<is_half_v<A>, std::conditional_t<is_float_v<B>, B, A>,
                                            std::conditional_t<is_float_v<A>, A, B>>>>;
};

template <class T, class U> struct literal_promote {
  using type = std::conditional_t<is_float_v<T> || is_complex_v<T>, T,
                                  std::conditional_t<is_float_v<U>, dsl_type_t<U>, promoted_t<T>>>;
};
// A complex literal with a real value: a float keeps its precision (f32 becomes c64, f64 c128; f16
// and bf16 c64), an integer or bool takes the literal's type.
template <class T, class U>
requires(is_complex_v<U> && !is_complex_v<T>) struct literal_promote<T, U> {
  using type = std::conditional_t<is_float_v<T>, complex_of_t<T>, U>;
};
} // namespace detail

// Result type of arithmetic between two DSL values: C++'s usual arithmetic conversions, and with a
// complex or a 16-bit float operand ir::promote's rule (see detail::promote).
template <class A, class B> using promote_t = typename detail::promote<A, B>::type;

// Result type of arithmetic between a DSL value of type T and a C++ literal of type U. Literals
// are weakly typed, as in Numba and NumPy 2: `x * 2.0` stays f32 when x is f32, and `i + 1` stays
// i64 when i is i64 (and `u + 1` u32 for a u32 u); only an integer value with a floating literal
// becomes floating (C++ would agree). Narrow integers promote to i32 first, as in C++. A complex
// value keeps its type with any literal (`z * 2.0`, `z * 1.0i` stay c64 for a c64 z); a float
// value with a complex literal becomes the complex type of its precision (`x * 1.0i` is c64 for an
// f32 x), an integer one the literal's type. The 16-bit floats are floats here: `h * 2.0` stays f16
// for an f16 h (the literal rounded to f16), `h * 1.0i` is c64, and a host loom::f16 or loom::bf16
// is a floating literal (`n * loom::f16(0.5f)` is f16 for an integer n, `x * loom::f16(0.5f)` f32
// for an f32 x).
template <class T, class U> using literal_promote_t = typename detail::literal_promote<T, U>::type;

} // namespace loom
