#include "ir/Evaluate.h"

#include "ir/Printer.h"
#include "support/Error.h"

#include <cmath>
#include <limits>

namespace loom::ir {

namespace {

int64_t wrap(ScalarType t, uint64_t v) {
  if (t == ScalarType::I32)
    return static_cast<int32_t>(static_cast<uint32_t>(v));
  if (t == ScalarType::Bool)
    return v != 0;
  return static_cast<int64_t>(v);
}

struct Evaluator {
  const std::vector<Param> &params;
  const ArgumentValues &args;

  ScalarValue operator()(const Expr &e) const {
    ScalarValue r;
    switch (e.kind()) {
    case ExprKind::IntConst:
      r.i = e.as<IntConst>()->value;
      return r;
    case ExprKind::FloatConst:
      r.f = e.as<FloatConst>()->value;
      return r;
    case ExprKind::BoolConst:
      r.i = e.as<BoolConst>()->value;
      return r;
    case ExprKind::VarRef: {
      auto *n = e.as<VarRef>();
      for (size_t k = 0; k < params.size(); ++k)
        if (params[k].var == n->var)
          return args.scalars.at(k);
      break;
    }
    case ExprKind::ArrayExtent: {
      auto *n = e.as<ArrayExtent>();
      r.i = args.extents.at(n->array).at(n->dim);
      return r;
    }
    case ExprKind::Cast: {
      auto *n = e.as<Cast>();
      ScalarValue a = (*this)(n->a);
      ScalarType from = n->a.type();
      if (is_float(n->type))
        r.f = is_float(from) ? a.f : static_cast<double>(a.i);
      else if (n->type == ScalarType::Bool)
        r.i = is_float(from) ? a.f != 0 : a.i != 0;
      else if (is_float(from))
        r.i = std::isnan(a.f) ? 0 : wrap(n->type, static_cast<uint64_t>(static_cast<int64_t>(a.f)));
      else
        r.i = wrap(n->type, static_cast<uint64_t>(a.i));
      if (n->type == ScalarType::F32)
        r.f = static_cast<float>(r.f);
      return r;
    }
    case ExprKind::Select: {
      auto *n = e.as<Select>();
      return (*this)(n->cond).i ? (*this)(n->a) : (*this)(n->b);
    }
    case ExprKind::Unary: {
      auto *n = e.as<Unary>();
      ScalarValue a = (*this)(n->a);
      if (n->op == UnaryOp::Neg) {
        r.i = wrap(n->type, 0 - static_cast<uint64_t>(a.i));
        r.f = -a.f;
      } else if (n->op == UnaryOp::Not) {
        r.i = !a.i;
      } else {
        r.i = wrap(n->type, ~static_cast<uint64_t>(a.i));
      }
      return r;
    }
    case ExprKind::Binary:
      return binary(e.as<Binary>());
    default:
      break;
    }
    throw VerifyError("cannot evaluate " + to_string(e, params) +
                      " before the kernel runs: it must depend only on parameters");
  }

  ScalarValue binary(const Binary *n) const {
    ScalarValue a = (*this)(n->a), b = (*this)(n->b), r;
    ScalarType t = n->a.type();
    if (is_float(t)) {
      switch (n->op) {
      case BinaryOp::Add:
        r.f = a.f + b.f;
        break;
      case BinaryOp::Sub:
        r.f = a.f - b.f;
        break;
      case BinaryOp::Mul:
        r.f = a.f * b.f;
        break;
      case BinaryOp::Div:
        r.f = a.f / b.f;
        break;
      case BinaryOp::Mod:
        r.f = std::fmod(a.f, b.f);
        break;
      case BinaryOp::Min:
        r.f = std::fmin(a.f, b.f);
        break;
      case BinaryOp::Max:
        r.f = std::fmax(a.f, b.f);
        break;
      case BinaryOp::Lt:
        r.i = a.f < b.f;
        break;
      case BinaryOp::Le:
        r.i = a.f <= b.f;
        break;
      case BinaryOp::Gt:
        r.i = a.f > b.f;
        break;
      case BinaryOp::Ge:
        r.i = a.f >= b.f;
        break;
      case BinaryOp::Eq:
        r.i = a.f == b.f;
        break;
      case BinaryOp::Ne:
        r.i = a.f != b.f;
        break;
      default:
        break;
      }
      if (t == ScalarType::F32)
        r.f = static_cast<float>(r.f);
      return r;
    }
    const int64_t min = t == ScalarType::I32 ? std::numeric_limits<int32_t>::min()
                                             : std::numeric_limits<int64_t>::min();
    const uint64_t ua = a.i, ub = b.i;
    const int bits = bit_width(t);
    switch (n->op) {
    case BinaryOp::Add:
      r.i = wrap(t, ua + ub);
      break;
    case BinaryOp::Sub:
      r.i = wrap(t, ua - ub);
      break;
    case BinaryOp::Mul:
      r.i = wrap(t, ua * ub);
      break;
    case BinaryOp::Div:
      r.i = b.i == 0 ? 0 : (a.i == min && b.i == -1) ? a.i : a.i / b.i;
      break;
    case BinaryOp::Mod:
      r.i = b.i == 0 ? a.i : (a.i == min && b.i == -1) ? 0 : a.i % b.i;
      break;
    case BinaryOp::Min:
      r.i = std::min(a.i, b.i);
      break;
    case BinaryOp::Max:
      r.i = std::max(a.i, b.i);
      break;
    case BinaryOp::BitAnd:
      r.i = a.i & b.i;
      break;
    case BinaryOp::BitOr:
      r.i = a.i | b.i;
      break;
    case BinaryOp::BitXor:
      r.i = a.i ^ b.i;
      break;
    case BinaryOp::Shl:
      r.i = wrap(t, ua << (ub % bits));
      break;
    case BinaryOp::Shr:
      r.i = a.i >> (ub % bits);
      break;
    case BinaryOp::Lt:
      r.i = a.i < b.i;
      break;
    case BinaryOp::Le:
      r.i = a.i <= b.i;
      break;
    case BinaryOp::Gt:
      r.i = a.i > b.i;
      break;
    case BinaryOp::Ge:
      r.i = a.i >= b.i;
      break;
    case BinaryOp::Eq:
      r.i = a.i == b.i;
      break;
    case BinaryOp::Ne:
      r.i = a.i != b.i;
      break;
    case BinaryOp::And:
      r.i = a.i && b.i;
      break;
    case BinaryOp::Or:
      r.i = a.i || b.i;
      break;
    }
    return r;
  }
};

} // namespace

ScalarValue evaluate(const Expr &e, const std::vector<Param> &params, const ArgumentValues &args) {
  return Evaluator{params, args}(e);
}

} // namespace loom::ir
