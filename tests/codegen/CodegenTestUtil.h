// Helpers for codegen tests: building lowered kernels by hand and calling CPU task entries
// with the runtime's parameter ABI (support/Abi.h).
#pragma once

#include "codegen/Codegen.h"
#include "ir/IR.h"

#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

namespace loom::codegen::test {

using namespace loom::ir;

inline Param array_param(std::string name, ScalarType type, int rank = 1) {
  return Param{std::move(name), ParamKind::Array, type, rank, nullptr};
}
inline Param scalar_param(std::string name, ScalarType type) {
  return Param{name, ParamKind::Scalar, type, 0, make_var(name, type)};
}

// The loom type of a C++ element type; bool arrays are held as uint8_t (one byte per element).
template <class T> constexpr ScalarType type_of() {
  if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, bool>)
    return ScalarType::Bool;
  else if constexpr (std::is_same_v<T, int32_t>)
    return ScalarType::I32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return ScalarType::I64;
  else if constexpr (std::is_same_v<T, float>)
    return ScalarType::F32;
  else
    return ScalarType::F64;
}

inline Expr i64(int64_t v) {
  return IntConst::make(ScalarType::I64, v);
}
inline Expr var(const Var &v) {
  return VarRef::make(v);
}
inline Expr bin(BinaryOp op, Expr a, Expr b) {
  return Binary::make(op, std::move(a), std::move(b));
}
inline Expr load(const std::vector<Param> &params, int array, std::vector<Expr> idx) {
  return Load::make(params[array].type, array, std::move(idx));
}

// A CPU kernel of one serial task: for (i = 0; i < extent(0, 0); ++i) body(i).
inline LoweredKernel cpu_elementwise(std::string name, std::vector<Param> params,
                                     const std::function<Stmt(const Var &)> &body) {
  Var i = make_var("i", ScalarType::I64);
  Stmt loop = For::make(i, i64(0), ArrayExtent::make(0, 0), i64(1), body(i));
  return LoweredKernel{name,
                       std::move(params),
                       Target::CPU,
                       {Task{name + ".task0", TaskKind::Serial, {}, nullptr, nullptr, loop, {}}}};
}

// The flattened parameter values of one call; params() is what a task entry receives.
class ParamPack {
public:
  template <class T> ParamPack &array(T *data, std::initializer_list<int64_t> extents) {
    push(const_cast<void *>(static_cast<const void *>(data)));
    for (int64_t e : extents)
      push(e);
    return *this;
  }
  template <class T> ParamPack &scalar(T value) {
    push(value);
    return *this;
  }
  void *const *params() const { return addresses_.data(); }

private:
  template <class T> void push(T value) {
    slots_.emplace_back();
    std::memcpy(&slots_.back(), &value, sizeof(T)); // little-endian: a bool is its low byte
    addresses_.push_back(&slots_.back());
  }
  std::deque<uint64_t> slots_; // stable addresses
  std::vector<void *> addresses_;
};

// Compiles `kernel` for the CPU and runs its first task over [begin, end).
inline void run_cpu(const LoweredKernel &kernel, const ParamPack &args, int64_t begin = 0,
                    int64_t end = 0) {
  std::unique_ptr<CpuCode> code = compile_cpu(kernel);
  code->tasks().at(0)(args.params(), begin, end, 0);
}

} // namespace loom::codegen::test
