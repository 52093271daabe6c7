// Local arrays of the embedded DSL (Numba's cuda.local.array): a small array of fixed size that
// each parallel iteration (each SIMT thread) has for itself.
//
//   loom::parallel_for({R, Q}, [&](loom::Index r, loom::Index q) {
//     auto sum = loom::local_array<double>(160);   // this iteration's own, uninitialised
//     loom::for_range(P, [&](loom::Index p) { sum[p] = 0.0; });
//     ...
//   });
//
// Declared inside a parallel_for body, a local array is used inside that body only (not in a
// parallel_for nested in it, whose iterations would share it); in a SIMT kernel it may be
// declared anywhere and belongs to the thread. It lives in registers when every index is a
// constant after unrolling, else in each thread's stack (CPU) or local memory (GPU); a
// bounds-checked kernel checks its indices. Reading an element the iteration has not written
// reads whatever the memory held (the interpreter refuses it).
#pragma once

#include "frontend/Simt.h"
#include "frontend/Tracer.h"
#include "support/Error.h"

#include <string>
#include <type_traits>

namespace loom {

template <DslScalar T, int Rank> class LocalArray {
public:
  LocalArray(ir::Shared array, int scope) : array_(std::move(array)), scope_(scope) {}

  template <Operand I>
  requires(Rank == 1) SharedElementRef<T>
  operator[](const I &i) const {
    check_scope();
    return SharedElementRef<T>(array_, {detail::to_expr<int64_t>(i)});
  }
  template <Operand... I>
  requires(sizeof...(I) == Rank) SharedElementRef<T>
  operator()(const I &...i) const {
    check_scope();
    return SharedElementRef<T>(array_, {detail::to_expr<int64_t>(i)...});
  }
  int64_t dim(int k) const { return array_->extents.at(k); }
  int64_t size() const { return array_->size(); }
  const ir::Shared &array() const { return array_; }

private:
  void check_scope() const {
    frontend::Tracer &t = frontend::Tracer::current();
    if (t.simt() || t.parallel_scope() == scope_)
      return;
    throw DslError("local array '" + array_->name +
                   "' is used outside the parallel_for body that declares it (or inside a "
                   "parallel_for nested in that body): a local array belongs to one "
                   "iteration; declare it where it is used");
  }

  ir::Shared array_;
  int scope_;
};

// local_array<double>(160), local_array<float>(4, 4): extents are C++ integers, fixed when the
// kernel is traced; bool, integer, float or double elements, at most ir::max_local_bytes (64 KiB)
// per array.
template <DslScalar T, class... E>
requires(sizeof...(E) >= 1 && sizeof...(E) <= 3 &&
         (std::is_integral_v<E> && ...)) LocalArray<T, sizeof...(E)> local_array(E... extents) {
  // Fires for local_array<std::complex<float>>(16).
  static_assert(!is_complex_v<T>, "local arrays do not hold complex numbers: make one of the "
                                  "parts' type with a last extent of 2");
  // Fires for local_array<loom::f16>(16) and local_array<loom::bf16>(16).
  static_assert(!is_half_v<T>, "local arrays do not hold 16-bit floats (f16, bf16): make a "
                               "local_array<float> (it holds them exactly)");
  frontend::Tracer &t = frontend::Tracer::current();
  if (!t.simt() && t.parallel_scope() == 0)
    throw DslError("local_array() outside a parallel_for body: a local array belongs to one "
                   "parallel iteration (or one thread of a loom::simt_kernel); declare it in "
                   "the body of the parallel_for that uses it");
  int64_t bytes = static_cast<int64_t>(sizeof(T));
  for (int64_t e : {static_cast<int64_t>(extents)...}) {
    if (e <= 0)
      throw DslError("local_array(): extent " + std::to_string(e) + "; each must be at least 1");
    bytes = bytes > ir::max_local_bytes ? bytes : bytes * e;
  }
  if (bytes > ir::max_local_bytes)
    throw DslError("local_array() of " + std::to_string(bytes) +
                   " bytes or more: a local array takes at most " +
                   std::to_string(ir::max_local_bytes) +
                   " bytes (each iteration's copy lives on a stack or in a GPU thread's local "
                   "memory); pass a larger buffer as an array argument instead");
  ir::Shared a = ir::make_local_array("local" + std::to_string(t.local_count()), dtype_of<T>(),
                                      {static_cast<int64_t>(extents)...});
  t.add_local(a);
  return LocalArray<T, sizeof...(E)>(a, t.parallel_scope());
}

} // namespace loom
