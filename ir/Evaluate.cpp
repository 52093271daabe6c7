#include "ir/Evaluate.h"

#include "ir/Printer.h"
#include "support/Error.h"

namespace loom::ir {

bool reads_only_parameters(const Expr &e, const std::vector<Param> &params) {
  switch (e.kind()) {
  case ExprKind::IntConst:
  case ExprKind::FloatConst:
  case ExprKind::BoolConst:
  case ExprKind::ArrayExtent:
    return true;
  case ExprKind::VarRef:
    for (const Param &p : params)
      if (p.var == e.as<VarRef>()->var)
        return true;
    return false;
  case ExprKind::Cast:
    return reads_only_parameters(e.as<Cast>()->a, params);
  case ExprKind::Unary:
    return reads_only_parameters(e.as<Unary>()->a, params);
  case ExprKind::Binary:
    return reads_only_parameters(e.as<Binary>()->a, params) &&
           reads_only_parameters(e.as<Binary>()->b, params);
  case ExprKind::Select:
    return reads_only_parameters(e.as<Select>()->cond, params) &&
           reads_only_parameters(e.as<Select>()->a, params) &&
           reads_only_parameters(e.as<Select>()->b, params);
  default:
    return false;
  }
}

namespace {

struct Evaluator {
  const std::vector<Param> &params;
  const ArgumentValues &args;

  ScalarValue operator()(const Expr &e) const {
    switch (e.kind()) {
    case ExprKind::IntConst:
      return int_value(e.type(), e.as<IntConst>()->value);
    case ExprKind::FloatConst:
      return float_value(e.type(), e.as<FloatConst>()->value);
    case ExprKind::BoolConst:
      return int_value(ScalarType::Bool, e.as<BoolConst>()->value);
    case ExprKind::VarRef: {
      auto *n = e.as<VarRef>();
      for (size_t k = 0; k < params.size(); ++k) {
        if (params[k].var != n->var)
          continue;
        // The imaginary part of a complex scalar argument, a parameter of its own after the
        // kernel's (ir/ExpandComplex.cpp), which the arguments hold with the real part.
        if (params[k].part == ComplexPart::Imag)
          return ScalarValue{0, args.scalars.at(params[k].of).im, 0};
        return args.scalars.at(k);
      }
      break;
    }
    case ExprKind::ArrayExtent: {
      auto *n = e.as<ArrayExtent>();
      return int_value(ScalarType::I64, args.extents.at(n->array).at(n->dim));
    }
    case ExprKind::Cast: {
      auto *n = e.as<Cast>();
      return cast_op(n->type, n->a.type(), (*this)(n->a));
    }
    case ExprKind::Select: {
      auto *n = e.as<Select>();
      ScalarValue c = (*this)(n->cond), a = (*this)(n->a), b = (*this)(n->b);
      return c.i ? a : b;
    }
    case ExprKind::Unary: {
      auto *n = e.as<Unary>();
      return unary_op(n->op, n->type, (*this)(n->a));
    }
    case ExprKind::Binary: {
      auto *n = e.as<Binary>();
      return binary_op(n->op, n->a.type(), (*this)(n->a), (*this)(n->b));
    }
    case ExprKind::Call: {
      auto *n = e.as<Call>();
      ScalarValue values[3];
      for (size_t k = 0; k < n->args.size() && k < 3; ++k)
        values[k] = (*this)(n->args[k]);
      return math_op(n->fn, n->args[0].type(), values);
    }
    default:
      break;
    }
    throw VerifyError("cannot evaluate " + to_string(e, params) +
                      " before the kernel runs: it must depend only on parameters");
  }
};

} // namespace

ScalarValue evaluate(const Expr &e, const std::vector<Param> &params, const ArgumentValues &args) {
  return Evaluator{params, args}(e);
}

void check_shape_symbols(const Kernel &k, const ArgumentValues &args) {
  for (const ShapeSymbol &sym : k.shape_symbols) {
    if (sym.dims.empty())
      continue;
    auto [p0, d0] = sym.dims[0];
    for (auto [p, d] : sym.dims) {
      int64_t extent = args.extents[p][d];
      const std::string &name = k.params[p].name;
      if (sym.extent && extent != *sym.extent)
        throw ArgumentError("argument " + std::to_string(p + 1) + " ('" + name + "') of kernel '" +
                            k.name + "' has shape " + shape_text(args.extents[p]) +
                            ", but its dimension " + std::to_string(d) + " must be " +
                            std::to_string(*sym.extent));
      int64_t first = args.extents[p0][d0];
      if (!sym.extent && extent != first) {
        const std::string &name0 = k.params[p0].name;
        std::string shapes = name0 + " has shape " + shape_text(args.extents[p0]);
        if (p != p0)
          shapes += " and " + name + " has shape " + shape_text(args.extents[p]);
        throw ArgumentError("kernel " + signature(k) + ": shape symbol " + sym.name + " is " +
                            std::to_string(first) + " (" + name0 + " dimension " +
                            std::to_string(d0) + ") but " + std::to_string(extent) + " (" + name +
                            " dimension " + std::to_string(d) + "); " + shapes);
      }
    }
  }
}

} // namespace loom::ir
