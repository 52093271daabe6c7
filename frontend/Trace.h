// Tracing a C++ lambda into an IR kernel: the lambda's parameter types are the annotations.
#pragma once

#include "frontend/Array.h"
#include "frontend/Tracer.h"
#include "frontend/Value.h"

#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace loom {

namespace detail {

template <class F> struct lambda_params : lambda_params<decltype(&std::decay_t<F>::operator())> {};
template <class C, class R, class... A> struct lambda_params<R (C::*)(A...) const> {
  using type = std::tuple<std::decay_t<A>...>;
};
template <class C, class R, class... A> struct lambda_params<R (C::*)(A...)> {
  using type = std::tuple<std::decay_t<A>...>;
};
template <class R, class... A> struct lambda_params<R (*)(A...)> {
  using type = std::tuple<std::decay_t<A>...>;
};

// How each kind of kernel parameter is declared and handed to the body.
template <class P> struct param_maker {
  static_assert(sizeof(P) == 0,
                "kernel parameters must be loom scalar values (loom::F32, "
                "loom::I64, ...) or arrays (loom::Array<T>, Array2<T>, Array3<T>, ArrayN<T, R>)");
};
template <DslScalar T> struct param_maker<Value<T>> {
  static Value<T> make(frontend::Tracer &t, const std::string &name) {
    ir::Var v = ir::make_var(name, dtype_of<T>());
    t.add_param({name, ir::ParamKind::Scalar, dtype_of<T>(), 0, v});
    return Value<T>(ir::VarRef::make(v));
  }
};
template <DslElement T, int Rank> struct param_maker<ArrayParam<T, Rank>> {
  static ArrayParam<T, Rank> make(frontend::Tracer &t, const std::string &name) {
    int index = static_cast<int>(t.params().size());
    t.add_param({name, ir::ParamKind::Array, dtype_of<T>(), Rank, nullptr});
    return ArrayParam<T, Rank>(index);
  }
};

template <class Tuple, size_t... I>
Tuple make_params(frontend::Tracer &t, const std::vector<std::string> &names,
                  std::index_sequence<I...>) {
  // Braced init evaluates left to right, so parameters get their positions in order.
  return Tuple{param_maker<std::tuple_element_t<I, Tuple>>::make(t, names[I])...};
}

} // namespace detail

// Runs `body` once with symbolic parameters and returns the kernel it describes. `names` name the
// parameters in dumps and error messages (default: p0, p1, ...). `simt`: a SIMT kernel, whose
// body each thread of an explicit launch runs (loom::simt_kernel).
template <class F>
ir::Kernel trace(const std::string &name, F &&body, std::vector<std::string> names = {},
                 bool simt = false) {
  using Params = typename detail::lambda_params<F>::type;
  constexpr size_t n = std::tuple_size_v<Params>;
  if (!names.empty() && names.size() != n)
    throw DslError("kernel '" + name + "' has " + std::to_string(n) + " parameters but " +
                   std::to_string(names.size()) + " names were given");
  for (size_t k = names.size(); k < n; ++k)
    names.push_back("p" + std::to_string(k));
  frontend::Tracer tracer(name);
  if (simt)
    tracer.set_simt();
  Params params = detail::make_params<Params>(tracer, names, std::make_index_sequence<n>());
  std::apply(body, params);
  return tracer.finish();
}

} // namespace loom
