// Array parameters of kernels: Array<float> x; x[i], A(i, j), x.size(), A.dim(1).
#pragma once

#include "frontend/CompoundAssign.h"
#include "frontend/Tracer.h"
#include "frontend/Value.h"
#include "support/Error.h"

#include <string>
#include <vector>

namespace loom {

// One element of an array parameter: reads as a value, assignment stores.
// An element of an f16 or bf16 array reads as an f32 and stores an f32 rounded to 16 bits.
template <DslElement E>
class ElementRef : public detail::CompoundAssign<ElementRef<E>, element_value_t<E>> {
public:
  using T = element_value_t<E>;
  using dsl_value_type = T;
  using element_type = E; // what the array holds (f16 and bf16 read as f32)

  ElementRef(int array, std::vector<ir::Expr> indices)
      : array_(array), indices_(std::move(indices)) {}

  Value<T> value() const { return Value<T>(ir::Load::make(dtype_of<E>(), array_, indices_)); }
  // The array parameter and indices (for atomics).
  int array() const { return array_; }
  const std::vector<ir::Expr> &indices() const { return indices_; }
  operator Value<T>() const { return value(); }

  ElementRef &operator=(const ElementRef &other) { return assign_value(other.value().expr()); }
  template <Operand U> ElementRef &operator=(const U &v) {
    return assign_value(detail::to_expr<T>(v));
  }

private:
  friend class detail::CompoundAssign<ElementRef, T>;
  ElementRef &assign_value(ir::Expr v) {
    // `x[i] += v`, `x[i] = x[i] * v`, `x[i] = min(x[i], v)`: a reduction (ir::store_or_reduce).
    frontend::Tracer::current().emit(ir::store_or_reduce(array_, indices_, std::move(v)));
    return *this;
  }

  int array_;
  std::vector<ir::Expr> indices_;
};

// A dense, row-major array parameter of rank 1 to 8 whose extents are known at call time.
template <DslElement T, int Rank> class ArrayParam {
  static_assert(Rank >= 1 && Rank <= ir::kMaxRank, "loom arrays have 1 to 8 dimensions");

public:
  using element_type = T;
  static constexpr int rank = Rank;

  // Made by loom when it traces a kernel; `index` is the parameter's position.
  explicit ArrayParam(int index) : index_(index) {}

  template <Operand I>
  requires(Rank == 1) ElementRef<T>
  operator[](const I &i) const { return ElementRef<T>(index_, {detail::to_expr<int64_t>(i)}); }
  template <Operand... I>
  requires(sizeof...(I) == Rank) ElementRef<T>
  operator()(const I &...i) const {
    return ElementRef<T>(index_, {detail::to_expr<int64_t>(i)...});
  }

  // Extent of dimension k (0 = outermost).
  Index dim(int k) const {
    if (k < 0 || k >= Rank)
      throw DslError("dim(" + std::to_string(k) + ") of an array of rank " + std::to_string(Rank));
    return Index(ir::ArrayExtent::make(index_, k));
  }
  // Number of elements.
  Index size() const {
    Index n = dim(0);
    for (int k = 1; k < Rank; ++k)
      n = n * dim(k);
    return n;
  }
  int param_index() const { return index_; }

private:
  int index_;
};

template <DslElement T> using Array = ArrayParam<T, 1>;
template <DslElement T> using Array2 = ArrayParam<T, 2>;
template <DslElement T> using Array3 = ArrayParam<T, 3>;
// Any rank from 1 to 8: ArrayN<float, 5>.
template <DslElement T, int Rank> using ArrayN = ArrayParam<T, Rank>;

} // namespace loom
