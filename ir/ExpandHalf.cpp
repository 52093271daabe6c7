// 16-bit floats as the f32s that hold them, before the rest of lowering (and in the interpreter):
// every f16 or bf16 value becomes an f32, and every operation that makes one computes in f32 and
// rounds its result (UnaryOp::RoundF16, RoundBF16). For + - * / and sqrt that is IEEE binary16
// (and bfloat16) arithmetic itself: f32 keeps at least twice their significand bits and two more,
// so the result rounded twice is the result rounded once. Math functions are f32's, rounded. A
// conversion from an f64 rounds once (RoundF16 takes the f64); from an integer it goes through f64,
// exact below 2^53. Negation, comparisons, selections and conversions from a 16-bit float to
// another type are exact and need no rounding. Every pass and target after this one sees 16-bit
// floats only as array elements, which read and write as f32 anyway.
#include "ir/Passes.h"

#include "ir/Mutator.h"
#include "support/Error.h"
#include "support/Float16.h"

namespace loom::ir {

namespace {

Expr round_to(ScalarType t, const Expr &v) {
  return Unary::make(t == ScalarType::F16 ? UnaryOp::RoundF16 : UnaryOp::RoundBF16, v);
}

// Whether an operation on 16-bit float operands gives a value of theirs (an arithmetic one), not a
// bool.
bool makes_value(BinaryOp op) {
  return !is_comparison(op) && op != BinaryOp::And && op != BinaryOp::Or;
}

class ExpandHalf : public RenameVars {
public:
  explicit ExpandHalf(std::vector<Param> &params) {
    for (Param &p : params) {
      if (p.kind != ParamKind::Scalar || !is_half_float(p.type))
        continue;
      // The call packs the argument, already a 16-bit value, as the f32 it is.
      Var v = make_var(p.name, ScalarType::F32);
      to[p.var.get()] = v;
      p.var = v;
      p.type = ScalarType::F32;
    }
  }

  Expr mutate(const Expr &e) override {
    if (!e.defined())
      return e;
    Expr r = RenameVars::mutate(e);
    if (is_half_float(r.type()))
      throw Error(std::string("internal error: expand_half left a ") + type_name(r.type()) +
                  " value");
    return r;
  }
  using RenameVars::mutate;

protected:
  Stmt mutate_node(const Declare *n, const Stmt &self) override {
    if (!is_half_float(n->var->type))
      return RenameVars::mutate_node(n, self);
    Var v = make_var(n->var->name, ScalarType::F32);
    to[n->var.get()] = v;
    return Declare::make(v, mutate(n->init));
  }

  Expr mutate_node(const FloatConst *n, const Expr &self) override {
    if (!is_half_float(n->type))
      return self;
    return FloatConst::make(ScalarType::F32, n->type == ScalarType::F16 ? round_to_f16(n->value)
                                                                        : round_to_bf16(n->value));
  }
  Expr mutate_node(const Binary *n, const Expr &self) override {
    Expr r = Mutator::mutate_node(n, self);
    return is_half_float(n->a.type()) && makes_value(n->op) ? round_to(n->a.type(), r) : r;
  }
  Expr mutate_node(const Call *n, const Expr &self) override {
    Expr r = Mutator::mutate_node(n, self);
    return is_half_float(n->type) ? round_to(n->type, r) : r;
  }
  Expr mutate_node(const Cast *n, const Expr &self) override {
    if (!is_half_float(n->type))
      return Mutator::mutate_node(n, self);
    Expr a = mutate(n->a);
    if (is_complex(a.type()))
      a = Cast::make(part_type(a.type()), a); // its real part
    else if (!is_float(a.type()))
      a = Cast::make(ScalarType::F64, a);
    return round_to(n->type, a);
  }
};

bool has_half_params(const std::vector<Param> &params) {
  for (const Param &p : params)
    if (p.kind == ParamKind::Scalar && is_half_float(p.type))
      return true;
  return false;
}

} // namespace

Kernel expand_half(const Kernel &kernel) {
  Kernel out = kernel;
  ExpandHalf expander(out.params);
  out.body = expander.mutate(kernel.body);
  if (out.body.same_as(kernel.body) && !has_half_params(kernel.params))
    return kernel;
  return out;
}

} // namespace loom::ir
