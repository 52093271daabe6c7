// Short names for building IR and arguments, used by the C++ that the shrinker emits for a
// reproducer (tests/differential/Reproducer.h) and by the regression tests pasted from it.
#pragma once

#include "differential/Generator.h"

#include <cmath>
#include <complex>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace loom::difftest::build {

using namespace loom::ir;

inline Param array(std::string name, ScalarType t, int rank) {
  return {std::move(name), ParamKind::Array, t, rank, nullptr};
}
inline Param scalar(std::string name, ScalarType t) {
  return {name, ParamKind::Scalar, t, 0, make_var(name, t)};
}

inline Expr ic(ScalarType t, int64_t v) {
  return IntConst::make(t, v);
}
inline Expr fc(ScalarType t, double v) {
  return FloatConst::make(t, v);
}
inline Expr bc(bool v) {
  return BoolConst::make(v);
}
inline Expr var(const Var &v) {
  return VarRef::make(v);
}
inline Expr extent(int array, int dim) {
  return ArrayExtent::make(array, dim);
}
inline Expr load(ScalarType t, int array, std::vector<Expr> idx) {
  return Load::make(t, array, std::move(idx));
}
inline Expr un(UnaryOp op, Expr a) {
  return Unary::make(op, std::move(a));
}
inline Expr bin(BinaryOp op, Expr a, Expr b) {
  return Binary::make(op, std::move(a), std::move(b));
}
inline Expr sel(Expr c, Expr a, Expr b) {
  return Select::make(std::move(c), std::move(a), std::move(b));
}
inline Expr cast(ScalarType t, Expr a) {
  return Cast::make(t, std::move(a));
}
inline Expr call(MathFn fn, std::vector<Expr> args) {
  return Call::make(fn, std::move(args));
}

inline Stmt block(std::vector<Stmt> s) {
  return Block::make(std::move(s));
}
inline Stmt decl(const Var &v, Expr e) {
  return Declare::make(v, std::move(e));
}
inline Stmt assign(const Var &v, Expr e) {
  return Assign::make(v, std::move(e));
}
inline Stmt store(int array, std::vector<Expr> idx, Expr e) {
  return Store::make(array, std::move(idx), std::move(e));
}
inline Stmt reduce(ReduceOp op, int array, std::vector<Expr> idx, Expr e) {
  return Reduce::make(op, array, std::move(idx), std::move(e));
}
inline Stmt if_(Expr c, Stmt then_case, Stmt else_case = Stmt()) {
  return IfThenElse::make(std::move(c), std::move(then_case), std::move(else_case));
}
inline Stmt for_(const Var &v, Expr begin, Expr end, Expr step, Stmt body) {
  return For::make(v, std::move(begin), std::move(end), std::move(step), std::move(body));
}
inline Stmt while_(Expr c, Stmt body) {
  return While::make(std::move(c), std::move(body));
}
// print(...) of text and values.
inline PrintItem text(std::string t) {
  return {std::move(t), Expr(), Expr()};
}
inline PrintItem value(Expr e) {
  return {"", std::move(e), Expr()};
}
inline Stmt print(std::vector<PrintItem> items) {
  return Print::make(std::move(items));
}

// An assertion of site `site`, and a kernel's first n sites.
inline Stmt assert_(Expr cond, int site) {
  return Assert::make(std::move(cond), site);
}
inline std::vector<AssertSite> sites(size_t n) {
  std::vector<AssertSite> out;
  for (size_t k = 0; k < n; ++k)
    out.push_back({"a" + std::to_string(k), "generated", 1});
  return out;
}

// A local array, and a read and a write of one of its elements.
inline Shared shared(std::string name, ScalarType t, std::vector<int64_t> extents) {
  return make_shared_array(std::move(name), t, std::move(extents));
}
inline Shared dynamic_shared(std::string name, ScalarType t) {
  return make_dynamic_shared_array(std::move(name), t);
}
inline Shared local(std::string name, ScalarType t, std::vector<int64_t> extents) {
  return make_local_array(std::move(name), t, std::move(extents));
}
inline Expr lload(const Shared &a, std::vector<Expr> idx) {
  return SharedLoad::make(a, std::move(idx));
}
inline Stmt lstore(const Shared &a, std::vector<Expr> idx, Expr e) {
  return SharedStore::make(a, std::move(idx), std::move(e));
}
inline Stmt pfor(std::vector<Var> vars, std::vector<Expr> extents, Stmt body) {
  return ParallelFor::make(std::move(vars), std::move(extents), std::move(body));
}

// A complex value of type t (c64: each part rounded to f32).
inline ScalarValue cscalar_value(ScalarType t, std::complex<double> v) {
  const ScalarType p = part_type(t);
  return ScalarValue{0, float_value(p, v.real()).f, float_value(p, v.imag()).f};
}

// Arguments: floats as doubles (exact for f32 values), integers and bools as int64, complex
// numbers (c64, c128) as std::complex<double> of their parts.
inline InterpreterArg fbuffer(ScalarType t, std::vector<int64_t> shape,
                              std::initializer_list<double> values) {
  Buffer b(t, std::move(shape));
  int64_t k = 0;
  for (double v : values)
    b.set(k++, float_value(t, v));
  return InterpreterArg::of_array(std::move(b));
}
inline InterpreterArg ibuffer(ScalarType t, std::vector<int64_t> shape,
                              std::initializer_list<int64_t> values) {
  Buffer b(t, std::move(shape));
  int64_t k = 0;
  for (int64_t v : values)
    b.set(k++, int_value(t, v));
  return InterpreterArg::of_array(std::move(b));
}
inline InterpreterArg cbuffer(ScalarType t, std::vector<int64_t> shape,
                              std::initializer_list<std::complex<double>> values) {
  Buffer b(t, std::move(shape));
  int64_t k = 0;
  for (std::complex<double> v : values)
    b.set(k++, cscalar_value(t, v));
  return InterpreterArg::of_array(std::move(b));
}
inline InterpreterArg fscalar(ScalarType t, double v) {
  return InterpreterArg::of_scalar(float_value(t, v));
}
inline InterpreterArg cscalar(ScalarType t, double re, double im) {
  return InterpreterArg::of_scalar(cscalar_value(t, {re, im}));
}
inline InterpreterArg iscalar(ScalarType t, int64_t v) {
  return InterpreterArg::of_scalar(int_value(t, v));
}

// How the compiled runs pass an argument (Program::views): dense, or as a view with `strides`
// from element `offset` of a buffer of `buffer` elements (on the GPU in device memory, unless
// `device` is false).
inline ViewLayout as_dense() {
  return {};
}
inline ViewLayout as_view(std::vector<int64_t> strides, int64_t offset, int64_t buffer,
                          bool device = true) {
  return {std::move(strides), offset, buffer, device};
}

} // namespace loom::difftest::build
