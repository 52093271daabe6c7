// Mutable local variables of a kernel: Var<float> acc = 0.0f; acc += x;
#pragma once

#include "frontend/CompoundAssign.h"
#include "frontend/Tracer.h"
#include "frontend/Value.h"

namespace loom {

template <DslScalar T> class Var : public detail::CompoundAssign<Var<T>, T> {
public:
  using dsl_value_type = T;

  template <Operand U> Var(const U &init) { declare("v", detail::to_expr<T>(init)); }
  // A named variable (the name shows in IR dumps).
  template <Operand U> Var(const char *name, const U &init) {
    declare(name, detail::to_expr<T>(init));
  }
  // Copying a Var declares a new variable with the same current value.
  Var(const Var &other) { declare("v", other.value().expr()); }

  Var &operator=(const Var &other) { return assign_value(other.value().expr()); }
  template <Operand U> Var &operator=(const U &v) { return assign_value(detail::to_expr<T>(v)); }

  Value<T> value() const { return Value<T>(ir::VarRef::make(var_)); }
  operator Value<T>() const { return value(); }
  const ir::Var &var() const { return var_; }

private:
  void declare(const char *name, ir::Expr init) {
    frontend::Tracer &t = frontend::Tracer::current();
    var_ = t.fresh_var(name, dtype_of<T>());
    t.emit(ir::Declare::make(var_, std::move(init)));
  }
  friend class detail::CompoundAssign<Var, T>;
  Var &assign_value(ir::Expr v) {
    frontend::Tracer::current().emit(ir::Assign::make(var_, std::move(v)));
    return *this;
  }

  ir::Var var_;
};

template <Operand U> Var(const U &) -> Var<detail::operand_type_t<U>>;

} // namespace loom
