// The compound assignments (`+=`, `-=`, ..., `>>=`) of everything a DSL kernel can assign to:
// mutable locals (Var), array elements and shared-array elements. Each is an assignment of
// `value() op v`; the Derived class says what an assignment emits (ir::Assign, a store).
#pragma once

#include "frontend/Value.h"

namespace loom::detail {

// Derived provides `Value<T> value() const` and `Derived &assign_value(ir::Expr)` (which it may
// keep private, befriending this class).
template <class Derived, DslScalar T> class CompoundAssign {
public:
#define LOOM_COMPOUND(sym, op)                                                                     \
  template <Operand U> Derived &operator sym(const U &v) {                                         \
    Derived &self = static_cast<Derived &>(*this);                                                 \
    return self.assign_value(to_expr<T>(self.value() op v));                                       \
  }
  LOOM_COMPOUND(+=, +)
  LOOM_COMPOUND(-=, -)
  LOOM_COMPOUND(*=, *)
  LOOM_COMPOUND(/=, /)
  LOOM_COMPOUND(%=, %)
  LOOM_COMPOUND(&=, &)
  LOOM_COMPOUND(|=, |)
  LOOM_COMPOUND(^=, ^)
  LOOM_COMPOUND(<<=, <<)
  LOOM_COMPOUND(>>=, >>)
#undef LOOM_COMPOUND
};

} // namespace loom::detail
