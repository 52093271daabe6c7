// print in the embedded DSL, as Python's print: loom::print("i =", i, "x =", x[i]) writes one
// line of its arguments separated by spaces, from the iteration or thread that runs it, to the
// process's stdout (on the GPU through the driver's printf buffer; loom::set_print_buffer sizes
// it). Text is any string; values are any scalar DSL value or C++ number (ir/PrintFormat.h says
// how each type prints). A call that printed flushes stdout before it returns.
#pragma once

#include "frontend/Tracer.h"
#include "frontend/Value.h"

#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace loom {

namespace detail {

template <class X> ir::PrintItem print_item(const X &x) {
  if constexpr (std::is_convertible_v<const X &, std::string_view>) {
    return {std::string(std::string_view(x)), ir::Expr(), ir::Expr()};
  } else {
    // Fires for print(x) of an array x: print one of its elements (x[i]) instead.
    static_assert(Operand<X>, "loom::print takes text and scalar values (a DSL value, an array "
                              "element, a C++ number), not arrays or other objects");
    return {"", to_expr<operand_type_t<X>>(x), ir::Expr()};
  }
}

} // namespace detail

template <class... X> void print(const X &...items) {
  std::vector<ir::PrintItem> list;
  (list.push_back(detail::print_item(items)), ...);
  frontend::Tracer::current().emit(ir::Print::make(std::move(list)));
}

} // namespace loom
