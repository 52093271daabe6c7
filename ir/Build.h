// Shorthands for the IR that passes build and inspect, one spelling each, so that a pass reads
// close to the code it makes: `add(mul(var_ref(r), i64(run)), var_ref(k))`.
#pragma once

#include "ir/IR.h"

#include <cstdint>
#include <functional>
#include <set>
#include <utility>
#include <vector>

namespace loom::ir {

// ---- building -----------------------------------------------------------------------------

// Integer constants.
inline Expr i64(int64_t v) {
  return IntConst::make(ScalarType::I64, v);
}
inline Expr i32(int64_t v) {
  return IntConst::make(ScalarType::I32, v);
}
// `e` as an i64 (`e` itself when it is one).
inline Expr to_i64(Expr e) {
  return Cast::make(ScalarType::I64, std::move(e));
}
inline Expr var_ref(const Var &v) {
  return VarRef::make(v);
}
// A thread geometry register (i32) as an i64.
inline Expr reg_i64(Reg reg, int dim) {
  return to_i64(SpecialReg::make(reg, dim));
}

// The zero of a scalar type (false for bool): a local's value before anything assigns it.
inline Expr zero_of(ScalarType t) {
  if (t == ScalarType::Bool)
    return BoolConst::make(false);
  return is_float(t) ? FloatConst::make(t, 0.0) : IntConst::make(t, 0);
}

// Binary operations, with loom's meaning of each (ir/IR.h, BinaryOp).
inline Expr add(Expr a, Expr b) {
  return Binary::make(BinaryOp::Add, std::move(a), std::move(b));
}
inline Expr sub(Expr a, Expr b) {
  return Binary::make(BinaryOp::Sub, std::move(a), std::move(b));
}
inline Expr mul(Expr a, Expr b) {
  return Binary::make(BinaryOp::Mul, std::move(a), std::move(b));
}
inline Expr div(Expr a, Expr b) {
  return Binary::make(BinaryOp::Div, std::move(a), std::move(b));
}
inline Expr mod(Expr a, Expr b) {
  return Binary::make(BinaryOp::Mod, std::move(a), std::move(b));
}
inline Expr min(Expr a, Expr b) {
  return Binary::make(BinaryOp::Min, std::move(a), std::move(b));
}
inline Expr max(Expr a, Expr b) {
  return Binary::make(BinaryOp::Max, std::move(a), std::move(b));
}

// Comparisons (bool results).
inline Expr lt(Expr a, Expr b) {
  return Binary::make(BinaryOp::Lt, std::move(a), std::move(b));
}
inline Expr le(Expr a, Expr b) {
  return Binary::make(BinaryOp::Le, std::move(a), std::move(b));
}
inline Expr gt(Expr a, Expr b) {
  return Binary::make(BinaryOp::Gt, std::move(a), std::move(b));
}
inline Expr eq(Expr a, Expr b) {
  return Binary::make(BinaryOp::Eq, std::move(a), std::move(b));
}
// Both bool operands true (both are evaluated).
inline Expr logical_and(Expr a, Expr b) {
  return Binary::make(BinaryOp::And, std::move(a), std::move(b));
}

// ---- inspecting ---------------------------------------------------------------------------

// Whether `e` is a reference to variable `v`.
inline bool is_var(const Expr &e, const Variable *v) {
  auto *r = e.as<VarRef>();
  return r && r->var.get() == v;
}
// Whether `e` is the integer constant `v` (of either integer type).
inline bool is_int_const(const Expr &e, int64_t v) {
  auto *c = e.as<IntConst>();
  return c && c->value == v;
}
// How many references to variable `v` `e` holds.
int mentions(const Expr &e, const Variable *v);

// The loads the top-level statements of `body` make whenever it runs (in a Declare's initial
// value, an Assign's or a Store's value), those `take` accepts, each distinct one once (by
// `equal`); a load taken is not looked into, one refused is.
std::vector<Expr> top_level_loads(const Stmt &body, const std::function<bool(const Load *)> &take);
// The array parameters `body` stores to in any way (stores, updates, atomics).
std::set<int> stored_arrays(const Stmt &body);
// The variables `body` declares or assigns, its loops' variables included.
std::set<const Variable *> changed_vars(const Stmt &body);

// The statements of `s` when it is a block, else `s` alone: a task body's top level.
inline std::vector<Stmt> statements_of(const Stmt &s) {
  if (auto *b = s.as<Block>())
    return b->stmts;
  return {s};
}

} // namespace loom::ir
