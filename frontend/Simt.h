// The SIMT level of the embedded DSL, for kernels made with loom::simt_kernel (CUDA's model, as
// Numba's cuda.jit): thread geometry, shared arrays (sized when traced, or at launch: the
// dynamic one), barriers, atomics, warp shuffles and votes.
//
//   auto k = loom::simt_kernel("block_sum", [](loom::Array<float> x, loom::Array<float> out) {
//     auto tile = loom::shared_array<float>(256);
//     loom::I32 t = loom::thread_idx().x;
//     loom::Index i = loom::grid<1>();
//     tile[t] = loom::select(i < x.size(), x[loom::min(i, x.size() - 1)], 0.0f);
//     loom::barrier();
//     ...
//   });
//   k.shape(blocks, 256)(x, out);
//
// DSL values are expressions, evaluated where they are used: `I32 left = tile[t - 1];` is the
// read itself, so a use after a barrier() reads again, after the barrier. To keep what a thread
// read before a barrier, take it into a local: `Var<int32_t> left("left", tile[t - 1]);`.
// (Warp collectives and atomics are taken into locals where they are called.)
#pragma once

#include "frontend/Array.h"
#include "frontend/CompoundAssign.h"
#include "frontend/Tracer.h"
#include "frontend/Value.h"
#include "support/Error.h"

#include <array>
#include <initializer_list>
#include <string>
#include <vector>

namespace loom {

namespace detail {

inline frontend::Tracer &simt_tracer(const char *what) {
  frontend::Tracer &t = frontend::Tracer::current();
  if (!t.simt())
    throw DslError(std::string(what) + " is part of the SIMT level: make the kernel with "
                                       "loom::simt_kernel, not loom::kernel");
  return t;
}

inline I32 special(ir::Reg reg, int dim, const char *what) {
  simt_tracer(what);
  return I32(ir::SpecialReg::make(reg, dim));
}

// A warp collective's result in a local declared where it is called: the DSL's values are
// expressions, re-evaluated where used, and a collective used inside a branch only some lanes take
// would run in those lanes only.
template <DslScalar T> Value<T> collective(const char *what, ir::Expr op) {
  frontend::Tracer &t = simt_tracer(what);
  ir::Var v = t.fresh_var("warp", dtype_of<T>());
  t.emit(ir::Declare::make(v, std::move(op)));
  return Value<T>(ir::VarRef::make(v));
}

// axis(0) for one axis, else std::array{axis(0), ..., axis(N - 1)}.
template <int N, class F> auto axes(F axis) {
  if constexpr (N == 1)
    return axis(0);
  else if constexpr (N == 2)
    return std::array<Index, 2>{axis(0), axis(1)};
  else
    return std::array<Index, 3>{axis(0), axis(1), axis(2)};
}

} // namespace detail

// CUDA's threadIdx, blockIdx, blockDim and gridDim (i32 each).
struct Dim3Value {
  I32 x, y, z;
};
inline Dim3Value thread_idx() {
  return {detail::special(ir::Reg::ThreadIdx, 0, "thread_idx()"),
          detail::special(ir::Reg::ThreadIdx, 1, "thread_idx()"),
          detail::special(ir::Reg::ThreadIdx, 2, "thread_idx()")};
}
inline Dim3Value block_idx() {
  return {detail::special(ir::Reg::BlockIdx, 0, "block_idx()"),
          detail::special(ir::Reg::BlockIdx, 1, "block_idx()"),
          detail::special(ir::Reg::BlockIdx, 2, "block_idx()")};
}
inline Dim3Value block_dim() {
  return {detail::special(ir::Reg::BlockDim, 0, "block_dim()"),
          detail::special(ir::Reg::BlockDim, 1, "block_dim()"),
          detail::special(ir::Reg::BlockDim, 2, "block_dim()")};
}
inline Dim3Value grid_dim() {
  return {detail::special(ir::Reg::GridDim, 0, "grid_dim()"),
          detail::special(ir::Reg::GridDim, 1, "grid_dim()"),
          detail::special(ir::Reg::GridDim, 2, "grid_dim()")};
}

// The threads of a warp.
constexpr int warp_size = 32;

// Numba's cuda.grid(n): the thread's absolute position in the grid, blockIdx * blockDim +
// threadIdx per axis, as i64 (x first). grid<1>() is an Index; grid<2>() and grid<3>() give
// std::array<Index, n>: auto [x, y] = loom::grid<2>();
template <int N> auto grid() {
  static_assert(N >= 1 && N <= 3, "grid<N>() takes 1, 2 or 3 axes");
  auto axis = [](int d) {
    return Index(detail::special(ir::Reg::BlockIdx, d, "grid<N>()")) *
               Index(detail::special(ir::Reg::BlockDim, d, "grid<N>()")) +
           Index(detail::special(ir::Reg::ThreadIdx, d, "grid<N>()"));
  };
  return detail::axes<N>(axis);
}
// Numba's cuda.gridsize(n): the threads of the whole grid per axis (blockDim * gridDim), i64.
template <int N> auto grid_size() {
  static_assert(N >= 1 && N <= 3, "grid_size<N>() takes 1, 2 or 3 axes");
  auto axis = [](int d) {
    return Index(detail::special(ir::Reg::BlockDim, d, "grid_size<N>()")) *
           Index(detail::special(ir::Reg::GridDim, d, "grid_size<N>()"));
  };
  return detail::axes<N>(axis);
}
// The thread's lane in its warp: its index in the block (x fastest) modulo 32.
inline I32 lane_id() {
  Dim3Value t = thread_idx(), b = block_dim();
  return (t.x + t.y * b.x + t.z * b.x * b.y) & (warp_size - 1);
}

// CUDA's __syncthreads(): every thread of the block that has not returned waits here until all
// have arrived; what they wrote to shared or global memory before is visible after. All threads
// must reach the same barriers (not one inside a branch that only some take).
inline void barrier() {
  detail::simt_tracer("barrier()").emit(ir::Barrier::make());
}
inline void syncthreads() {
  barrier();
}

// One element of a shared array: reads as a value, assignment stores.
// An element of an f16 or bf16 shared array reads as an f32 and stores an f32 rounded to 16 bits,
// as an array parameter's does.
template <DslScalar E>
class SharedElementRef : public detail::CompoundAssign<SharedElementRef<E>, element_value_t<E>> {
public:
  using T = element_value_t<E>;
  using dsl_value_type = T;
  using element_type = E;

  SharedElementRef(ir::Shared array, std::vector<ir::Expr> indices)
      : array_(std::move(array)), indices_(std::move(indices)) {}

  Value<T> value() const { return Value<T>(ir::SharedLoad::make(array_, indices_)); }
  operator Value<T>() const { return value(); }

  SharedElementRef &operator=(const SharedElementRef &other) {
    return assign_value(other.value().expr());
  }
  template <Operand U> SharedElementRef &operator=(const U &v) {
    return assign_value(detail::to_expr<T>(v));
  }

  const ir::Shared &array() const { return array_; }
  const std::vector<ir::Expr> &indices() const { return indices_; }

private:
  friend class detail::CompoundAssign<SharedElementRef, T>;
  SharedElementRef &assign_value(ir::Expr v) {
    // A plain store, not a reduction: shared memory has no parallel loops to combine across.
    frontend::Tracer::current().emit(ir::SharedStore::make(array_, indices_, std::move(v)));
    return *this;
  }

  ir::Shared array_;
  std::vector<ir::Expr> indices_;
};

// A statically sized array in the block's shared memory (CUDA's __shared__ T a[N], Numba's
// cuda.shared.array): one per block, seen by all its threads, uninitialised when the block starts
// (zeroed on the CPU). Made by shared_array<T>(extents...).
template <DslScalar T, int Rank> class SharedArray {
public:
  explicit SharedArray(ir::Shared array) : array_(std::move(array)) {}

  template <Operand I>
  requires(Rank == 1) SharedElementRef<T>
  operator[](const I &i) const {
    return SharedElementRef<T>(array_, {detail::to_expr<int64_t>(i)});
  }
  template <Operand... I>
  requires(sizeof...(I) == Rank) SharedElementRef<T>
  operator()(const I &...i) const {
    return SharedElementRef<T>(array_, {detail::to_expr<int64_t>(i)...});
  }
  int64_t dim(int k) const { return array_->extents.at(k); }
  int64_t size() const { return array_->size(); }
  const ir::Shared &array() const { return array_; }

private:
  ir::Shared array_;
};

// shared_array<float>(256), shared_array<float>(16, 16): extents are C++ integers (the size is
// fixed when the kernel is traced), together at most 48 KiB per kernel. f16 and bf16 elements
// read as f32 and store rounded (the operands of mma_sync, frontend/Mma.h).
template <DslScalar T, class... E>
requires(sizeof...(E) >= 1 && sizeof...(E) <= 3 &&
         (std::is_integral_v<E> && ...)) SharedArray<T, sizeof...(E)> shared_array(E... extents) {
  // Fires for shared_array<std::complex<float>>(256).
  static_assert(!is_complex_v<T>, "shared arrays do not hold complex numbers");
  frontend::Tracer &t = detail::simt_tracer("shared_array()");
  if (((extents == 0) || ...))
    throw DslError("shared_array() with an extent of 0: a shared array sized at launch is "
                   "loom::dynamic_shared_array<T>(), its size Kernel::shape's shared_bytes");
  ir::Shared a = ir::make_shared_array("shared" + std::to_string(t.shared_count()), dtype_of<T>(),
                                       {static_cast<int64_t>(extents)...});
  t.add_shared(a);
  return SharedArray<T, sizeof...(E)>(a);
}

// The block's dynamic shared array (CUDA's extern __shared__ T a[], Numba's
// cuda.shared.array(0, T)): 1-D, with the extent the launch gives it, shared_bytes / sizeof(T)
// of Kernel::shape(grid, block, shared_bytes), so that one compiled kernel serves every size.
// size() and dim(0) are that extent as a DSL value. Made by dynamic_shared_array<T>().
template <DslScalar T> class DynamicSharedArray {
public:
  explicit DynamicSharedArray(ir::Shared array) : array_(std::move(array)) {}

  template <Operand I> SharedElementRef<T> operator[](const I &i) const {
    return SharedElementRef<T>(array_, {detail::to_expr<int64_t>(i)});
  }
  template <Operand I> SharedElementRef<T> operator()(const I &i) const { return (*this)[i]; }
  Index size() const { return Index(ir::SharedExtent::make(array_)); }
  Index dim(int k) const {
    if (k != 0)
      throw DslError("a dynamic shared array has one dimension; dim(" + std::to_string(k) +
                     ") does not exist");
    return size();
  }

private:
  ir::Shared array_;
};

// dynamic_shared_array<float>(): the kernel's dynamic shared array, after its static ones. At most
// one per kernel (CUDA aliases all its extern arrays at the start of one region; to keep several
// in it, index one array at offsets).
template <DslScalar T> DynamicSharedArray<T> dynamic_shared_array() {
  // Fires for dynamic_shared_array<std::complex<float>>().
  static_assert(!is_complex_v<T>, "shared arrays do not hold complex numbers");
  // Fires for dynamic_shared_array<loom::f16>().
  static_assert(!is_half_v<T>,
                "shared arrays do not hold 16-bit floats (f16, bf16): make a "
                "dynamic_shared_array<float> (it holds them exactly) and loom::cast<loom::f16> "
                "what it reads");
  frontend::Tracer &t = detail::simt_tracer("dynamic_shared_array()");
  for (const ir::Shared &a : t.shared())
    if (a->dynamic)
      throw DslError("a kernel has at most one dynamic shared array, and '" + a->name +
                     "' is one already (its size is the launch's dynamic shared memory); to "
                     "keep several arrays in that memory, index one array at offsets");
  ir::Shared a =
      ir::make_dynamic_shared_array("shared" + std::to_string(t.shared_count()), dtype_of<T>());
  t.add_shared(a);
  return DynamicSharedArray<T>(a);
}

namespace detail {

// An atomic on an array element or a shared element; returns the element's old value.
template <class Ref, class T>
Value<T> atomic(ir::AtomicOp op, const Ref &ref, ir::Expr value, ir::Expr compare = ir::Expr()) {
  // Fires for atomic_add(z[i], w) on a complex array z.
  static_assert(!is_complex_v<T>, "atomics take i32, i64, f32 or f64 elements, not complex ones");
  static_assert(!is_half_v<T>, "atomics take i32, i64, f32 or f64 elements, not 16-bit floats");
  frontend::Tracer &t = simt_tracer(ir::op_name(op));
  ir::Var old = t.fresh_var("old", dtype_of<T>());
  t.emit(ir::Declare::make(old, constant<T>(0)));
  // The element's own type: an atomic on an f16 or bf16 array is refused (ir::Atomic::make).
  constexpr ir::ScalarType element = dtype_of<typename Ref::element_type>();
  if constexpr (requires { ref.array()->extents; })
    t.emit(ir::Atomic::make(op, -1, ref.array(), element, ref.indices(), std::move(value),
                            std::move(compare), old));
  else
    t.emit(ir::Atomic::make(op, ref.array(), nullptr, element, ref.indices(), std::move(value),
                            std::move(compare), old));
  return Value<T>(ir::VarRef::make(old));
}

template <class Ref> using atomic_element_t = typename Ref::dsl_value_type;

} // namespace detail

// CUDA's atomicAdd/Min/Max/Exch/CAS on an element of an array parameter (x[i], A(i, j)) or of a
// shared array, of i32, i64, f32 or f64: the update is indivisible, and the element's old value
// is returned. atomic_cas writes `value` only when the element equals `compare` (bitwise).
#define LOOM_ATOMIC(name, op)                                                                      \
  template <class Ref, Operand U>                                                                  \
  requires requires(const Ref &r) {                                                                \
    r.indices();                                                                                   \
  }                                                                                                \
  Value<detail::atomic_element_t<Ref>> name(const Ref &ref, const U &value) {                      \
    using T = detail::atomic_element_t<Ref>;                                                       \
    return detail::atomic<Ref, T>(ir::AtomicOp::op, ref, detail::to_expr<T>(value));               \
  }
LOOM_ATOMIC(atomic_add, Add)
LOOM_ATOMIC(atomic_min, Min)
LOOM_ATOMIC(atomic_max, Max)
LOOM_ATOMIC(atomic_exchange, Exchange)
#undef LOOM_ATOMIC
template <class Ref, Operand C, Operand U>
requires requires(const Ref &r) {
  r.indices();
}
Value<detail::atomic_element_t<Ref>> atomic_cas(const Ref &ref, const C &compare, const U &value) {
  using T = detail::atomic_element_t<Ref>;
  return detail::atomic<Ref, T>(ir::AtomicOp::CompareExchange, ref, detail::to_expr<T>(value),
                                detail::to_expr<T>(compare));
}

// Warp shuffles (CUDA's __shfl*_sync with the full mask: every thread of the warp must call
// them together) of an i32, i64, f32 or f64; the lane operand's low 5 bits count.
#define LOOM_SHUFFLE(name, kind)                                                                   \
  template <Operand V, Operand L> auto name(const V &value, const L &lane) {                       \
    using T = detail::operand_type_t<V>;                                                           \
    static_assert(!is_complex_v<T>,                                                                \
                  "warp shuffles take i32, i64, f32 or f64, not complex numbers");                 \
    static_assert(!is_half_v<T>, "warp shuffles take i32, i64, f32 or f64, not 16-bit floats "     \
                                 "(f16, bf16): shuffle loom::cast<float>(h) and cast back");       \
    return detail::collective<T>(#name "()",                                                       \
                                 ir::WarpOp::make(ir::WarpOpKind::kind, detail::to_expr<T>(value), \
                                                  detail::to_expr<int32_t>(lane)));                \
  }
LOOM_SHUFFLE(shfl_sync, ShflIdx)
LOOM_SHUFFLE(shfl_up_sync, ShflUp)
LOOM_SHUFFLE(shfl_down_sync, ShflDown)
LOOM_SHUFFLE(shfl_xor_sync, ShflXor)
#undef LOOM_SHUFFLE

// Warp votes (CUDA's __any_sync, __all_sync, __ballot_sync with the full mask).
template <Operand P> Bool any_sync(const P &predicate) {
  return detail::collective<bool>(
      "any_sync()", ir::WarpOp::make(ir::WarpOpKind::Any, detail::to_expr<bool>(predicate)));
}
template <Operand P> Bool all_sync(const P &predicate) {
  return detail::collective<bool>(
      "all_sync()", ir::WarpOp::make(ir::WarpOpKind::All, detail::to_expr<bool>(predicate)));
}
// Bit l set when lane l's predicate is true.
template <Operand P> I32 ballot_sync(const P &predicate) {
  return detail::collective<int32_t>(
      "ballot_sync()", ir::WarpOp::make(ir::WarpOpKind::Ballot, detail::to_expr<bool>(predicate)));
}

} // namespace loom
