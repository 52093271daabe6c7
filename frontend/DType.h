// The C++ element and scalar types the embedded DSL accepts, and their IR types.
#pragma once

#include "ir/Type.h"
#include "support/Float16.h"

#include <cstdint>
#include <type_traits>

namespace loom {

template <class T>
concept DslScalar = std::is_same_v<T, bool> || std::is_same_v<T, int8_t> ||
    std::is_same_v<T, int16_t> || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> ||
    std::is_same_v<T, uint8_t> || std::is_same_v<T, uint16_t> || std::is_same_v<T, uint32_t> ||
    std::is_same_v<T, uint64_t> || std::is_same_v<T, float> || std::is_same_v<T, double>;

// Array elements: the scalars, and the 16-bit storage types f16 and bf16, which kernels read and
// write as f32 (ir::value_type).
template <class T>
concept DslElement = DslScalar<T> || std::is_same_v<T, f16> || std::is_same_v<T, bf16>;

// The DSL type of the values an array of T holds (float for f16 and bf16).
template <DslElement T> using element_value_t = std::conditional_t<DslScalar<T>, T, float>;

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
  else
    return ir::ScalarType::F64;
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

// The DSL type of a C++ arithmetic type: the integer of its size and signedness (long long and
// long are both i64, char is i8 or u8 as the platform's char is), float or double.
template <class T>
using dsl_type_t = std::conditional_t<
    std::is_same_v<T, bool>, bool,
    std::conditional_t<std::is_floating_point_v<T>,
                       std::conditional_t<std::is_same_v<T, float>, float, double>,
                       typename detail::int_of_size<sizeof(T), std::is_signed_v<T>>::type>>;

// C++'s integer promotion: bool and integers narrower than int compute as int (i32).
template <class T>
using promoted_t = std::conditional_t<
    std::is_same_v<T, bool> || (std::is_integral_v<T> && sizeof(T) < sizeof(int32_t)), int32_t, T>;

// Result type of arithmetic between two DSL values: C++'s usual arithmetic conversions.
template <class A, class B> using promote_t = dsl_type_t<decltype(A() + B())>;

// Result type of arithmetic between a DSL value of type T and a C++ literal of type U. Literals
// are weakly typed, as in Numba: `x * 2.0` stays f32 when x is f32, and `i + 1` stays i64 when i is
// i64 (and `u + 1` u32 for a u32 u); only an integer value with a floating literal becomes
// floating (C++ would agree). Narrow integers promote to i32 first, as in C++.
template <class T, class U>
using literal_promote_t = std::conditional_t<
    std::is_floating_point_v<T>, T,
    std::conditional_t<std::is_floating_point_v<U>, dsl_type_t<U>, promoted_t<T>>>;

} // namespace loom
