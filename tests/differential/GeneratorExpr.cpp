// The generator's indices (in bounds by construction) and expressions of every type.
#include "differential/GeneratorState.h"

#include "ir/MathFunctions.h"

#include <functional>

namespace loom::difftest::gen {

std::vector<Expr> Generator::indices(int array, const Context &ctx) {
  const std::vector<Expr> *own = nullptr;
  if (ctx.parallel) {
    auto it = ctx.parallel->own.find(array);
    if (it != ctx.parallel->own.end())
      own = &it->second;
  }
  std::vector<Expr> idx;
  index_nesting_++;
  for (int d = 0; d < params_[array].rank; ++d)
    idx.push_back(own && (*own)[d].defined() ? (*own)[d] : index(array, d, ctx));
  index_nesting_--;
  return idx;
}

Expr Generator::index(int array, int d, const Context &ctx) {
  return index_within(array_info(array).shape[d], ArrayExtent::make(array, d), ctx);
}

Expr Generator::index_within(int64_t extent, Expr x, const Context &ctx) {
  std::vector<const VarInfo *> fitting, ranged;
  for (const VarInfo &v : scope_)
    if (v.ranged) {
      ranged.push_back(&v);
      if (v.lo >= 0 && v.hi < extent)
        fitting.push_back(&v);
    }
  // An index inside an index is a constant or a loop index, so that expressions stay finite.
  const bool simple = index_nesting_ > 1;
  switch (pick(simple ? 4 : 6)) {
  case 0:
    return i64c(pick(extent));
  case 1:
  case 2:
    if (!fitting.empty())
      return VarRef::make(one_of(fitting)->var);
    [[fallthrough]];
  case 3:
    if (!ranged.empty()) // (v % extent + extent) % extent
      return modulo(VarRef::make(one_of(ranged)->var), x);
    if (simple)
      return i64c(pick(extent));
    [[fallthrough]];
  case 4: // clamp(e, 0, extent - 1)
    return bin(BinaryOp::Max, bin(BinaryOp::Min, i64_expr(ctx, 2), bin(BinaryOp::Sub, x, i64c(1))),
               i64c(0));
  default:
    return modulo(i64_expr(ctx, 2), x);
  }
}

Expr Generator::modulo(Expr e, Expr x) {
  return bin(BinaryOp::Mod, bin(BinaryOp::Add, bin(BinaryOp::Mod, e, x), x), x);
}

Expr Generator::i64_expr(const Context &ctx, int depth) {
  ScalarType t = chance(0.6) ? ScalarType::I64 : any_type();
  return Cast::make(ScalarType::I64, expr(t, depth, ctx));
}

Expr Generator::expr(ScalarType t, int depth, const Context &ctx) {
  if (depth <= 0 || chance(0.25))
    return leaf(t, ctx);
  // In programs with 16-bit float values, now and then one computed as such inside an f32 or f64
  // expression, so that their roundings reach the results.
  if (half_ && (t == ScalarType::F32 || t == ScalarType::F64) && chance(0.15))
    return Cast::make(t, expr(half_type(), depth - 1, ctx));
  switch (pick(10)) {
  case 0:
    return Select::make(expr(ScalarType::Bool, depth - 1, ctx), expr(t, depth - 1, ctx),
                        expr(t, depth - 1, ctx));
  case 1: {
    ScalarType from = any_type();
    Expr e = expr(from, depth - 1, ctx);
    // Into a 16-bit float mostly a moderate value: f16 overflows past 65504.
    if (is_half_float(t) && from != t && chance(0.6))
      e = moderate(e);
    return Cast::make(t, e);
  }
  default:
    break;
  }
  if (t == ScalarType::Bool)
    return bool_expr(depth, ctx);
  if (pick(8) == 0)
    return Unary::make(is_float(t) || is_complex(t) || chance(0.5) ? UnaryOp::Neg : UnaryOp::BitNot,
                       expr(t, depth - 1, ctx));
  if (is_complex(t))
    return complex_expr(t, depth, ctx);
  if (complex_ && is_float(t) && chance(0.15))
    return complex_part(t, depth, ctx);
  if (is_float(t) && chance(0.3))
    return math(t, depth, ctx);
  if (is_int(t) && chance(0.05))
    return Call::make(chance(0.5) ? MathFn::Abs : MathFn::Sign, {expr(t, depth - 1, ctx)});
  static const BinaryOp int_ops[] = {BinaryOp::Add,    BinaryOp::Sub,    BinaryOp::Mul,
                                     BinaryOp::Div,    BinaryOp::Mod,    BinaryOp::Min,
                                     BinaryOp::Max,    BinaryOp::BitAnd, BinaryOp::BitOr,
                                     BinaryOp::BitXor, BinaryOp::Shl,    BinaryOp::Shr};
  BinaryOp op = int_ops[pick(is_float(t) ? 7 : 12)];
  return bin(op, expr(t, depth - 1, ctx), expr(t, depth - 1, ctx));
}

Expr Generator::bool_expr(int depth, const Context &ctx) {
  if (chance(0.05)) {
    static const MathFn classify[] = {MathFn::IsFinite, MathFn::IsInf, MathFn::IsNan};
    ScalarType t = complex_ && chance(0.3) ? complex_type()
                   : half_ && chance(0.3)  ? half_type()
                   : chance(0.5)           ? ScalarType::F32
                                           : ScalarType::F64;
    return Call::make(classify[pick(3)], {expr(t, depth - 1, ctx)});
  }
  switch (pick(4)) {
  case 0:
    return Unary::make(UnaryOp::Not, expr(ScalarType::Bool, depth - 1, ctx));
  case 1: {
    static const BinaryOp ops[] = {BinaryOp::And, BinaryOp::Or, BinaryOp::BitAnd, BinaryOp::BitOr,
                                   BinaryOp::BitXor};
    return bin(ops[pick(5)], expr(ScalarType::Bool, depth - 1, ctx),
               expr(ScalarType::Bool, depth - 1, ctx));
  }
  default: {
    ScalarType t = any_type();
    if (is_complex(t)) { // == and != only; mostly against a value near it, else rarely equal
      Expr a = expr(t, depth - 1, ctx);
      Expr b = chance(0.3) ? complex_operand(t, depth - 1, ctx) : expr(t, depth - 1, ctx);
      return bin(chance(0.5) ? BinaryOp::Eq : BinaryOp::Ne, a, b);
    }
    BinaryOp op = static_cast<BinaryOp>(static_cast<int>(BinaryOp::Lt) + pick(6));
    return bin(op, expr(t, depth - 1, ctx), expr(t, depth - 1, ctx));
  }
  }
}

Expr Generator::math(ScalarType t, int depth, const Context &ctx) {
  MathFn fn;
  do
    fn = static_cast<MathFn>(pick(kRealMathFnCount));
  while (math_info(fn).args == MathArgs::Classify);
  std::vector<Expr> args;
  for (int k = 0; k < fn_arity(fn); ++k)
    args.push_back(fn == MathFn::Ldexp && k == 1 ? exponent(depth - 1, ctx)
                                                 : expr(t, depth - 1, ctx));
  auto c = [t](double v) { return FloatConst::make(t, v); };
  auto abs = [](Expr e) { return Call::make(MathFn::Abs, {std::move(e)}); };
  // e^x and friends stay finite below x = 20, in an f16 (at most 65504) below x = 10.
  const double exp_limit = t == ScalarType::F16 ? 10 : 20;
  auto clamp = [&](Expr e, double lo, double hi) {
    return bin(BinaryOp::Max, bin(BinaryOp::Min, std::move(e), c(hi)), c(lo));
  };
  if (chance(0.7)) {
    switch (fn) {
    case MathFn::Sqrt:
    case MathFn::Rsqrt:
    case MathFn::Log1p:
      args[0] = abs(args[0]);
      break;
    case MathFn::Log:
    case MathFn::Log2:
    case MathFn::Log10:
      args[0] = bin(BinaryOp::Add, abs(args[0]), c(0.5));
      break;
    case MathFn::Exp:
    case MathFn::Exp2:
    case MathFn::Expm1:
    case MathFn::Sinh:
    case MathFn::Cosh:
      args[0] = bin(BinaryOp::Min, args[0], c(exp_limit));
      break;
    case MathFn::Pow:
      args[0] = bin(BinaryOp::Add, abs(args[0]), c(0.25));
      args[1] = clamp(args[1], -4, 4);
      break;
    case MathFn::Acos:
    case MathFn::Asin:
      args[0] = clamp(args[0], -1, 1);
      break;
    case MathFn::Atanh:
      args[0] = clamp(args[0], -0.875, 0.875);
      break;
    case MathFn::Acosh:
      args[0] = bin(BinaryOp::Add, abs(args[0]), c(1));
      break;
    case MathFn::Gamma:
    case MathFn::Lgamma:
      args[0] = bin(BinaryOp::Min, bin(BinaryOp::Add, abs(args[0]), c(0.25)),
                    c(t == ScalarType::F16 ? 8 : 30));
      break;
    default:
      break;
    }
  }
  return Call::make(fn, args);
}

Expr Generator::complex_operand(ScalarType t, int depth, const Context &ctx) {
  if (!chance(0.3))
    return expr(t, depth, ctx);
  // A real operand: the parts' type, or another float or integer type (binary operators take
  // operands of one type, so it is cast explicitly, as a front end would).
  static const ScalarType reals[] = {ScalarType::F32, ScalarType::F64, ScalarType::I32,
                                     ScalarType::I64};
  ScalarType r = chance(0.6) ? part_type(t) : reals[pick(4)];
  if (half_ && chance(0.2))
    r = half_type();
  return Cast::make(t, expr(r, depth, ctx));
}

Expr Generator::complex_expr(ScalarType t, int depth, const Context &ctx) {
  const ScalarType p = part_type(t);
  switch (pick(10)) {
  case 0:
  case 1:
  case 2:
    return complex_math(t, depth, ctx);
  case 3:
    return Call::make(MathFn::Complex, {expr(p, depth - 1, ctx), expr(p, depth - 1, ctx)});
  default: {
    static const BinaryOp ops[] = {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div};
    BinaryOp op = ops[pick(4)];
    Expr a = expr(t, depth - 1, ctx), b = complex_operand(t, depth - 1, ctx);
    if (chance(0.5))
      std::swap(a, b);
    return bin(op, a, b);
  }
  }
}

Expr Generator::complex_math(ScalarType t, int depth, const Context &ctx) {
  static const MathFn fns[] = {MathFn::Sqrt, MathFn::Exp,  MathFn::Log, MathFn::Sin,
                               MathFn::Cos,  MathFn::Tanh, MathFn::Pow, MathFn::Conj};
  const MathFn fn = fns[pick(8)];
  const ScalarType p = part_type(t);
  std::vector<Expr> args;
  for (int k = 0; k < fn_arity(fn); ++k)
    args.push_back(expr(t, depth - 1, ctx));
  auto c = [p](double v) { return FloatConst::make(p, v); };
  auto clamp = [&](Expr e, double lo, double hi) {
    return bin(BinaryOp::Max, bin(BinaryOp::Min, std::move(e), c(hi)), c(lo));
  };
  // complex(f(real(z)), g(imag(z)))
  auto parts = [&](const Expr &z, const std::function<Expr(Expr)> &f,
                   const std::function<Expr(Expr)> &g) {
    return Call::make(MathFn::Complex,
                      {f(Call::make(MathFn::Real, {z})), g(Call::make(MathFn::Imag, {z}))});
  };
  auto same = [](Expr e) { return e; };
  if (chance(0.7)) {
    switch (fn) {
    case MathFn::Exp: // e^x stays finite; cos y and sin y of a moderate y
      args[0] = parts(
          args[0], [&](Expr x) { return bin(BinaryOp::Min, x, c(20)); },
          [&](Expr y) { return clamp(y, -100, 100); });
      break;
    case MathFn::Sin:
    case MathFn::Cos: // cosh y and sinh y stay finite
      args[0] = parts(
          args[0], [&](Expr x) { return clamp(x, -100, 100); },
          [&](Expr y) { return clamp(y, -20, 20); });
      break;
    case MathFn::Tanh: // tan y away from its poles' neighbourhood of huge values
      args[0] = parts(args[0], same, [&](Expr y) { return clamp(y, -1.5, 1.5); });
      break;
    case MathFn::Pow: // w log z stays moderate
      args[0] = parts(
          args[0], [&](Expr x) { return clamp(x, -8, 8); },
          [&](Expr y) { return clamp(y, -8, 8); });
      args[1] = parts(
          args[1], [&](Expr x) { return clamp(x, -3, 3); },
          [&](Expr y) { return clamp(y, -3, 3); });
      break;
    default:
      break;
    }
  }
  return Call::make(fn, args);
}

Expr Generator::complex_part(ScalarType t, int depth, const Context &ctx) {
  // Mostly from the complex type of t's precision; else from the other one, cast.
  ScalarType c = chance(0.8) ? complex_of(t) : complex_type();
  Expr z = expr(c, depth - 1, ctx);
  Expr r;
  switch (pick(4)) {
  case 0:
    r = Call::make(MathFn::Real, {z});
    break;
  case 1:
    r = Call::make(MathFn::Imag, {z});
    break;
  case 2:
    r = Call::make(MathFn::Abs, {z});
    break;
  default:
    r = Cast::make(part_type(c), z); // the real part
    break;
  }
  return Cast::make(t, r);
}

Expr Generator::moderate(Expr e) {
  const ScalarType t = e.type();
  if (is_float(t) && !is_half_float(t))
    return bin(BinaryOp::Max, bin(BinaryOp::Min, e, FloatConst::make(t, 2000)),
               FloatConst::make(t, -2000));
  if (is_int(t)) { // a u64's largest value is held as -1
    const int64_t hi = t == ScalarType::U64 ? 2000 : std::min<int64_t>(int_max(t), 2000);
    return bin(BinaryOp::Max, bin(BinaryOp::Min, e, IntConst::make(t, hi)),
               IntConst::make(t, std::max<int64_t>(int_min(t), -2000)));
  }
  return e; // bool, a 16-bit float or a complex number (whose real part a cast takes)
}

Expr Generator::exponent(int depth, const Context &ctx) {
  Expr n = expr(ScalarType::I32, depth, ctx);
  if (chance(0.8))
    n = bin(BinaryOp::Max, bin(BinaryOp::Min, n, IntConst::make(ScalarType::I32, 40)),
            IntConst::make(ScalarType::I32, -40));
  return n;
}

Expr Generator::leaf(ScalarType t, const Context &ctx) {
  // Only where the loop has local arrays (so that the other programs draw nothing more).
  if (ctx.parallel && !ctx.parallel->locals.empty() && !ctx.domain && chance(0.3))
    if (Expr e = local_load(t, ctx); e.defined())
      return e;
  for (;;) {
    switch (pick(6)) {
    case 0:
    case 1: {
      // Of a float type: now and then a 16-bit float variable (parameter, local), converted.
      const bool halves = half_ && (t == ScalarType::F32 || t == ScalarType::F64) && chance(0.4);
      auto fits = [&](ScalarType type) { return halves ? is_half_float(type) : type == t; };
      std::vector<const Var *> vars;
      if (ctx.domain) {
        for (const Param &p : params_)
          if (p.var && fits(p.type))
            vars.push_back(&p.var);
      } else {
        for (const VarInfo &v : ctx.inputs_only ? shared_ : scope_)
          if (fits(v.var->type))
            vars.push_back(&v.var);
      }
      if (!vars.empty())
        return Cast::make(t, VarRef::make(*one_of(vars)));
      break;
    }
    case 2:
    case 3: {
      // A 16-bit float from any array of floats, converted (arrays hold no 16-bit float values).
      std::vector<int> sources;
      for (const ArrayInfo &a : arrays_)
        if ((value_type(a.type) == t || (is_half_float(t) && is_float(value_type(a.type)))) &&
            !ctx.domain && (!ctx.inputs_only || !a.output) &&
            !(ctx.parallel && ctx.parallel->reduced(a.param)))
          sources.push_back(a.param);
      if (!sources.empty()) {
        int array = one_of(sources);
        return Cast::make(t, Load::make(params_[array].type, array, indices(array, ctx)));
      }
      break;
    }
    case 4:
      if (t == ScalarType::I64) {
        const ArrayInfo &a = one_of(arrays_);
        return ArrayExtent::make(a.param, pick(a.shape.size()));
      }
      break;
    default:
      return values_.constant(t);
    }
  }
}

} // namespace loom::difftest::gen
