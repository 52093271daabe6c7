// assert in the embedded DSL: loom::check(cond, "message") is the text DSL's `assert cond,
// "message"`. When `cond` is false in an iteration, the rest of that iteration does not run (in
// a SIMT kernel the thread carries on), and the call throws loom::KernelAssertionError naming
// the kernel, this call's file and line, the message and the failing iteration's indices.
// Kernel::asserts(false) or LOOM_ASSERTS=0 compile checks out, conditions and all.
//
//   loom::parallel_for(n, [&](loom::Index i) {
//     loom::check(idx[i] < x.size(), "idx holds indices of x");
//     y[i] = x[idx[i]];
//   });
#pragma once

#include "frontend/Tracer.h"
#include "frontend/Value.h"

#include <source_location>
#include <string>
#include <string_view>
#include <type_traits>

namespace loom {

namespace detail {
template <class C> constexpr bool is_condition() {
  if constexpr (std::is_same_v<std::decay_t<C>, bool>)
    return true;
  else if constexpr (DslExpr<C>)
    return std::is_same_v<operand_type_t<C>, bool>;
  else
    return false;
}
} // namespace detail

template <class C>
void check(const C &cond, std::string_view message = "",
           std::source_location at = std::source_location::current()) {
  // Fires for check(x) of a number x: compare it (x != 0) to make a condition.
  static_assert(detail::is_condition<C>(),
                "loom::check takes a condition (a loom::Bool: a comparison or a logical "
                "operation of DSL values), not a number or an array: compare it, as in x != 0");
  frontend::Tracer &t = frontend::Tracer::current();
  ir::AssertSite site{std::string(message), at.file_name(), static_cast<int>(at.line())};
  std::vector<ir::Expr> indices;
  for (const auto &[name, index] : t.parallel_indices())
    if (indices.size() < ir::max_assert_indices) {
      site.index_names.push_back(name);
      indices.push_back(index);
    }
  ir::Expr c = detail::to_expr<bool>(cond);
  t.emit(ir::Assert::make(c, t.add_assert_site(std::move(site)), std::move(indices)));
}

} // namespace loom
