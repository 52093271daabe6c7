// Complex numbers as pairs of reals, before the rest of lowering, as LLVM legalizes a type no
// target has by splitting it: every complex value becomes its real and imaginary parts, every
// complex operation the real operations docs/semantics.md defines it by ("Complex numbers"), a
// complex local two locals, a complex scalar parameter two scalars (ComplexPart::Real, and
// ComplexPart::Imag appended after the parameters) and a complex array an array of its parts with
// one more dimension, of extent 2 (ComplexPart::Parts). Every pass and target after this one sees
// real numbers only; the interpreter runs the same expansion, so the formulas below are loom's
// definition of complex arithmetic on every backend.
#include "ir/Passes.h"

#include "ir/Mutator.h"
#include "support/Error.h"

#include <limits>
#include <map>

namespace loom::ir {

namespace {

struct Parts {
  Expr re, im;
};

Expr add(const Expr &a, const Expr &b) {
  return Binary::make(BinaryOp::Add, a, b);
}
Expr sub(const Expr &a, const Expr &b) {
  return Binary::make(BinaryOp::Sub, a, b);
}
Expr mul(const Expr &a, const Expr &b) {
  return Binary::make(BinaryOp::Mul, a, b);
}
Expr div(const Expr &a, const Expr &b) {
  return Binary::make(BinaryOp::Div, a, b);
}
Expr neg(const Expr &a) {
  return Unary::make(UnaryOp::Neg, a);
}
Expr cmp(BinaryOp op, const Expr &a, const Expr &b) {
  return Binary::make(op, a, b);
}
Expr both(const Expr &a, const Expr &b) {
  return Binary::make(BinaryOp::And, a, b);
}
Expr either(const Expr &a, const Expr &b) {
  return Binary::make(BinaryOp::Or, a, b);
}
Expr select(const Expr &c, const Expr &a, const Expr &b) {
  return Select::make(c, a, b);
}
Expr call(MathFn fn, std::vector<Expr> args) {
  return Call::make(fn, std::move(args));
}
Expr fabs(const Expr &a) {
  return call(MathFn::Abs, {a});
}
Expr num(ScalarType t, double v) {
  return FloatConst::make(t, v);
}

bool is_leaf(const Expr &e) {
  switch (e.kind()) {
  case ExprKind::IntConst:
  case ExprKind::FloatConst:
  case ExprKind::BoolConst:
  case ExprKind::VarRef:
  case ExprKind::ArrayExtent:
  case ExprKind::SharedExtent:
    return true;
  default:
    return false;
  }
}

// Beyond this |re| tanh(z) is ±1 in the parts' precision (as FreeBSD's ctanh and ctanhf).
double tanh_saturates(ScalarType t) {
  return t == ScalarType::F32 ? 9.0 : 22.0;
}

class ExpandComplex : public Mutator {
public:
  explicit ExpandComplex(std::vector<Param> &params) : params_(params) {
    const size_t own = params.size();
    for (size_t p = 0; p < own; ++p) {
      Param &param = params[p];
      if (!is_complex(param.type))
        continue;
      const ScalarType t = part_type(param.type);
      if (param.kind == ParamKind::Array) {
        param.type = t;
        param.rank += 1;
        param.part = ComplexPart::Parts;
        continue;
      }
      Var re = make_var(param.name + ".re", t), im = make_var(param.name + ".im", t);
      vars_[param.var.get()] = {re, im};
      param.type = t;
      param.var = re;
      param.part = ComplexPart::Real;
      params.push_back({param.name + ".im", ParamKind::Scalar, t, 0, im, ComplexPart::Imag,
                        static_cast<int>(p)});
    }
  }

  Stmt mutate(const Stmt &s) override {
    if (!s.defined())
      return s;
    std::vector<Stmt> out = expand_stmt(s);
    return out.size() == 1 ? out[0] : Block::make(std::move(out));
  }
  Expr mutate(const Expr &e) override {
    if (is_complex(e.type()))
      throw Error(std::string("internal error: expand_complex met a ") + type_name(e.type()) +
                  " where a real value belongs");
    return Mutator::mutate(e);
  }

protected:
  // ---- statements ----

  Stmt mutate_node(const Block *n, const Stmt &self) override {
    std::vector<Stmt> out;
    bool changed = false;
    for (const Stmt &s : n->stmts) {
      std::vector<Stmt> list = expand_stmt(s);
      changed |= list.size() != 1 || !list[0].same_as(s);
      out.insert(out.end(), list.begin(), list.end());
    }
    return changed ? Block::make(std::move(out)) : self;
  }
  Stmt mutate_node(const Declare *n, const Stmt &self) override {
    if (!is_complex(n->var->type))
      return Mutator::mutate_node(n, self);
    Parts v = expand(n->init);
    const ScalarType t = part_type(n->var->type);
    Var re = make_var(n->var->name + ".re", t), im = make_var(n->var->name + ".im", t);
    vars_[n->var.get()] = {re, im};
    prelude_->push_back(Declare::make(re, v.re));
    prelude_->push_back(Declare::make(im, v.im));
    return Stmt();
  }
  Stmt mutate_node(const Assign *n, const Stmt &self) override {
    if (!is_complex(n->var->type))
      return Mutator::mutate_node(n, self);
    Parts v = expand(n->value);
    // The imaginary part is computed before the real part is assigned (it may read it).
    Expr im = v.im.kind() == ExprKind::FloatConst ? v.im : bind_always(v.im, "im");
    const auto &[re_var, im_var] = parts_of(n->var);
    prelude_->push_back(Assign::make(re_var, v.re));
    prelude_->push_back(Assign::make(im_var, im));
    return Stmt();
  }
  Stmt mutate_node(const Store *n, const Stmt &self) override {
    if (!is_complex(value_type_of(n->array)))
      return Mutator::mutate_node(n, self);
    Parts v = expand(n->value);
    store_parts(n->array, indices(n->indices), v);
    return Stmt();
  }
  // A printed complex value: its parts, which print as (re+imj) (ir/PrintFormat.h).
  Stmt mutate_node(const Print *n, const Stmt &self) override {
    bool any = false;
    for (const PrintItem &item : n->items)
      any |= item.value.defined() && is_complex(item.value.type());
    if (!any)
      return Mutator::mutate_node(n, self);
    std::vector<PrintItem> items;
    for (const PrintItem &item : n->items) {
      if (item.value.defined() && is_complex(item.value.type())) {
        Parts v = expand(item.value);
        items.push_back({"", v.re, v.im});
      } else {
        items.push_back({item.text, item.value.defined() ? mutate(item.value) : Expr(), Expr()});
      }
    }
    return Print::make(std::move(items));
  }
  Stmt mutate_node(const Reduce *n, const Stmt &self) override {
    if (!is_complex(value_type_of(n->array)))
      return Mutator::mutate_node(n, self);
    Parts v = expand(n->value);
    std::vector<Expr> idx = indices(n->indices);
    if (n->op == ReduceOp::Add) { // the parts' sums are independent reductions
      prelude_->push_back(Reduce::make(ReduceOp::Add, n->array, part_index(idx, 0), v.re));
      prelude_->push_back(Reduce::make(ReduceOp::Add, n->array, part_index(idx, 1), v.im));
      return Stmt();
    }
    // A product mixes the parts: a load, the product and two stores, which only the iteration
    // that owns the element may do.
    check_owned(n);
    const ScalarType t = part_type(value_type_of(n->array));
    Parts old{bind_always(Load::make(t, n->array, part_index(idx, 0)), "re"),
              bind_always(Load::make(t, n->array, part_index(idx, 1)), "im")};
    store_parts(n->array, idx, product(old, v));
    return Stmt();
  }
  Stmt mutate_node(const While *n, const Stmt &self) override {
    // The condition runs before every iteration: its complex parts are computed in place.
    no_hoist_ += 1;
    Expr cond = mutate(n->cond);
    no_hoist_ -= 1;
    Stmt body = mutate(n->body);
    return cond.same_as(n->cond) && body.same_as(n->body) ? self : While::make(cond, body);
  }
  Stmt mutate_node(const ParallelFor *n, const Stmt &self) override {
    parallel_.push_back(n);
    Stmt r = Mutator::mutate_node(n, self);
    parallel_.pop_back();
    return r;
  }

  // ---- real values of complex operands ----

  Expr mutate_node(const Binary *n, const Expr &self) override {
    if (!is_complex(n->a.type()))
      return Mutator::mutate_node(n, self);
    Parts a = expand(n->a), b = expand(n->b);
    if (n->op == BinaryOp::Eq)
      return both(cmp(BinaryOp::Eq, a.re, b.re), cmp(BinaryOp::Eq, a.im, b.im));
    if (n->op == BinaryOp::Ne)
      return either(cmp(BinaryOp::Ne, a.re, b.re), cmp(BinaryOp::Ne, a.im, b.im));
    throw Error(std::string("internal error: '") + op_name(n->op) + "' of complex numbers");
  }
  Expr mutate_node(const Cast *n, const Expr &self) override {
    if (!is_complex(n->a.type()))
      return Mutator::mutate_node(n, self);
    Parts a = expand(n->a);
    if (n->type == ScalarType::Bool) // nonzero is true, as C++ and NumPy have it
      return either(cmp(BinaryOp::Ne, a.re, num(a.re.type(), 0)),
                    cmp(BinaryOp::Ne, a.im, num(a.im.type(), 0)));
    return Cast::make(n->type, a.re); // the real part, as NumPy's astype
  }
  Expr mutate_node(const Call *n, const Expr &self) override {
    if (n->fn == MathFn::Real || n->fn == MathFn::Imag || n->fn == MathFn::Conj) {
      if (is_complex(n->args[0].type())) {
        Parts a = expand(n->args[0]);
        return n->fn == MathFn::Real ? a.re : a.im; // conj of a complex is complex
      }
      Expr x = mutate(n->args[0]);
      return n->fn == MathFn::Imag ? num(x.type(), 0) : x;
    }
    if (n->args.empty() || !is_complex(n->args[0].type()))
      return Mutator::mutate_node(n, self);
    Parts a = expand(n->args[0]);
    switch (n->fn) {
    case MathFn::Abs:
      return call(MathFn::Hypot, {a.re, a.im});
    case MathFn::IsNan:
      return either(call(MathFn::IsNan, {a.re}), call(MathFn::IsNan, {a.im}));
    case MathFn::IsInf:
      return either(call(MathFn::IsInf, {a.re}), call(MathFn::IsInf, {a.im}));
    case MathFn::IsFinite:
      return both(call(MathFn::IsFinite, {a.re}), call(MathFn::IsFinite, {a.im}));
    default:
      throw Error(std::string("internal error: ") + fn_name(n->fn) +
                  " of a complex number has a complex value");
    }
  }

private:
  std::vector<Param> &params_;
  std::map<const Variable *, std::pair<Var, Var>> vars_;
  std::vector<Stmt> *prelude_ = nullptr;
  int no_hoist_ = 0;
  std::vector<const ParallelFor *> parallel_;

  std::vector<Stmt> expand_stmt(const Stmt &s) {
    std::vector<Stmt> list;
    std::vector<Stmt> *outer = prelude_;
    prelude_ = &list;
    Stmt r = Mutator::mutate(s);
    prelude_ = outer;
    if (r.defined())
      list.push_back(r);
    return list;
  }

  ScalarType value_type_of(int array) const {
    const Param &p = params_.at(array);
    return p.part == ComplexPart::Parts ? complex_of(p.type) : p.type;
  }
  const std::pair<Var, Var> &parts_of(const Var &v) const {
    auto it = vars_.find(v.get());
    if (it == vars_.end())
      throw Error("internal error: complex variable '" + v->name + "' used before its declaration");
    return it->second;
  }
  std::vector<Expr> indices(const std::vector<Expr> &idx) {
    std::vector<Expr> out;
    for (const Expr &i : idx)
      out.push_back(mutate(i));
    return out;
  }
  static std::vector<Expr> part_index(std::vector<Expr> idx, int part) {
    idx.push_back(IntConst::make(ScalarType::I64, part));
    return idx;
  }
  void store_parts(int array, const std::vector<Expr> &idx, const Parts &v) {
    prelude_->push_back(Store::make(array, part_index(idx, 0), v.re));
    prelude_->push_back(Store::make(array, part_index(idx, 1), v.im));
  }

  // A value read more than once by a formula: a local, declared before the statement (in a while
  // loop's condition, the expression itself).
  Expr bind(const Expr &e, const char *name) {
    if (is_leaf(e) || no_hoist_ > 0)
      return e;
    return bind_always(e, name);
  }
  Expr bind_always(const Expr &e, const char *name) {
    if (no_hoist_ > 0)
      return e;
    Var v = make_var(name, e.type());
    prelude_->push_back(Declare::make(v, e));
    return VarRef::make(v);
  }
  Parts bound(Parts p) { return {bind(p.re, "re"), bind(p.im, "im")}; }

  void check_owned(const Reduce *n) const {
    if (parallel_.empty())
      return;
    for (const Var &v : parallel_.back()->vars) {
      bool own = false;
      for (const Expr &i : n->indices)
        if (const VarRef *r = i.as<VarRef>(); r && r->var == v)
          own = true;
      if (!own)
        throw VerifyError("'" + params_.at(n->array).name +
                          "' is multiplied into (*=) at an element other iterations of the "
                          "parallel loop may also update; a complex product has no atomic or "
                          "per-worker form in loom: index it with the loop's variables, or "
                          "multiply into a local and store once");
    }
  }

  // ---- complex values ----

  Parts expand(const Expr &e) {
    if (!is_complex(e.type()))
      throw Error(std::string("internal error: expand_complex took a ") + type_name(e.type()) +
                  " for a complex value");
    const ScalarType t = part_type(e.type());
    switch (e.kind()) {
    case ExprKind::VarRef: {
      const auto &[re, im] = parts_of(e.as<VarRef>()->var);
      return {VarRef::make(re), VarRef::make(im)};
    }
    case ExprKind::Load: {
      auto *n = e.as<Load>();
      std::vector<Expr> idx = indices(n->indices);
      return bound({Load::make(t, n->array, part_index(idx, 0)),
                    Load::make(t, n->array, part_index(idx, 1))});
    }
    case ExprKind::Unary: {
      Parts a = expand(e.as<Unary>()->a);
      return bound({neg(a.re), neg(a.im)});
    }
    case ExprKind::Binary: {
      auto *n = e.as<Binary>();
      Parts a = expand(n->a), b = expand(n->b);
      switch (n->op) {
      case BinaryOp::Add:
        return bound({add(a.re, b.re), add(a.im, b.im)});
      case BinaryOp::Sub:
        return bound({sub(a.re, b.re), sub(a.im, b.im)});
      case BinaryOp::Mul:
        return product(a, b);
      case BinaryOp::Div:
        return quotient(a, b);
      default:
        throw Error(std::string("internal error: '") + op_name(n->op) + "' of complex numbers");
      }
    }
    case ExprKind::Select: {
      auto *n = e.as<Select>();
      Expr c = bind(mutate(n->cond), "cond");
      Parts a = expand(n->a), b = expand(n->b);
      return bound({select(c, a.re, b.re), select(c, a.im, b.im)});
    }
    case ExprKind::Cast: {
      auto *n = e.as<Cast>();
      if (is_complex(n->a.type())) {
        Parts a = expand(n->a);
        return bound({Cast::make(t, a.re), Cast::make(t, a.im)});
      }
      return {bind(Cast::make(t, mutate(n->a)), "re"), num(t, 0)};
    }
    case ExprKind::Call:
      return call_parts(e.as<Call>(), t);
    default:
      throw Error(std::string("internal error: expand_complex cannot expand a complex ") +
                  type_name(e.type()) + " expression of this kind");
    }
  }

  Parts call_parts(const Call *n, ScalarType t) {
    if (n->fn == MathFn::Complex) {
      Expr re = mutate(n->args[0]), im = mutate(n->args[1]);
      return bound({re, im});
    }
    Parts z = expand(n->args[0]);
    switch (n->fn) {
    case MathFn::Conj:
      return {z.re, bind(neg(z.im), "im")};
    case MathFn::Exp:
      return bound(call_exp(z));
    case MathFn::Log:
      return bound(call_log(z));
    case MathFn::Sqrt: {
      // s = sqrt((|x| + |z|) / 2), halved before the sum so that it cannot overflow; then
      // (s, y / 2s) for x >= 0 and (|y| / 2s, ±s) with y's sign otherwise; sqrt(±0 + iy) = 0 + iy.
      Expr h = call(MathFn::Hypot, {z.re, z.im});
      Expr s =
          bind(call(MathFn::Sqrt, {add(mul(fabs(z.re), num(t, 0.5)), mul(h, num(t, 0.5)))}), "s");
      Expr q = bind(div(z.im, add(s, s)), "q");
      Expr zero = bind(cmp(BinaryOp::Eq, s, num(t, 0)), "zero");
      Expr pos = bind(cmp(BinaryOp::Ge, z.re, num(t, 0)), "pos");
      return bound({select(zero, num(t, 0), select(pos, s, fabs(q))),
                    select(zero, z.im, select(pos, q, call(MathFn::Copysign, {s, z.im})))});
    }
    case MathFn::Sin: // sin x cosh y + i cos x sinh y
      return bound({mul(call(MathFn::Sin, {z.re}), call(MathFn::Cosh, {z.im})),
                    mul(call(MathFn::Cos, {z.re}), call(MathFn::Sinh, {z.im}))});
    case MathFn::Cos: // cos x cosh y - i sin x sinh y
      return bound({mul(call(MathFn::Cos, {z.re}), call(MathFn::Cosh, {z.im})),
                    neg(mul(call(MathFn::Sin, {z.re}), call(MathFn::Sinh, {z.im})))});
    case MathFn::Tanh: {
      // Kahan's form: t = tan y, b = 1 + t^2, s = sinh x, r = sqrt(1 + s^2):
      // tanh z = (b r s + i t) / (1 + b s^2); past the saturation point ±1 + i 4 sin y cos y
      // e^-2|x|.
      Expr tn = bind(call(MathFn::Tan, {z.im}), "t");
      Expr b = bind(add(num(t, 1), mul(tn, tn)), "b");
      Expr s = bind(call(MathFn::Sinh, {z.re}), "s");
      Expr r = call(MathFn::Sqrt, {add(num(t, 1), mul(s, s))});
      Expr den = bind(add(num(t, 1), mul(mul(b, s), s)), "den");
      Expr big = bind(cmp(BinaryOp::Gt, fabs(z.re), num(t, tanh_saturates(t))), "big");
      Expr e = bind(call(MathFn::Exp, {neg(fabs(z.re))}), "e");
      Expr far_im =
          mul(mul(mul(mul(num(t, 4), call(MathFn::Sin, {z.im})), call(MathFn::Cos, {z.im})), e), e);
      return bound(
          {select(big, call(MathFn::Copysign, {num(t, 1), z.re}), div(mul(mul(b, r), s), den)),
           select(big, far_im, div(tn, den))});
    }
    case MathFn::Pow: {
      // exp(w log z); 0^w is 1 for w == 0, 0 for re w > 0 and NaN otherwise.
      Parts w = expand(n->args[1]);
      Parts l = bound(call_log(z));
      Parts r = bound(call_exp(product(w, l)));
      Expr zero_z = bind(
          both(cmp(BinaryOp::Eq, z.re, num(t, 0)), cmp(BinaryOp::Eq, z.im, num(t, 0))), "zero_z");
      Expr zero_w = bind(
          both(cmp(BinaryOp::Eq, w.re, num(t, 0)), cmp(BinaryOp::Eq, w.im, num(t, 0))), "zero_w");
      Expr pos = cmp(BinaryOp::Gt, w.re, num(t, 0));
      Expr nan = num(t, std::numeric_limits<double>::quiet_NaN());
      return bound({select(zero_z, select(zero_w, num(t, 1), select(pos, num(t, 0), nan)), r.re),
                    select(zero_z, select(either(zero_w, pos), num(t, 0), nan), r.im)});
    }
    default:
      throw Error(std::string("internal error: ") + fn_name(n->fn) + " of a complex number");
    }
  }
  // log |z| + i arg z. Near the unit circle log(hypot(x, y)) loses the digits that |z| - 1 cancels
  // (33 ulps of the result measured on the GPU at 0.98 + 1e-103i): there, with a = max(|x|, |y|)
  // in [0.5, 2] and b the other, log |z| = log1p(|z|^2 - 1) / 2 with |z|^2 - 1 =
  // fma(b, b, fma(a, a, -1)), two roundings. A NaN part reaches both forms (a or b is it).
  Parts call_log(const Parts &z) {
    const ScalarType t = z.re.type();
    Expr ax = bind(fabs(z.re), "ax"), ay = bind(fabs(z.im), "ay");
    Expr x_larger = bind(cmp(BinaryOp::Ge, ax, ay), "x_larger");
    Expr a = bind(select(x_larger, ax, ay), "a"), b = bind(select(x_larger, ay, ax), "b");
    Expr near = both(cmp(BinaryOp::Ge, a, num(t, 0.5)), cmp(BinaryOp::Le, a, num(t, 2)));
    Expr sq_minus_1 = call(MathFn::Fma, {b, b, call(MathFn::Fma, {a, a, num(t, -1)})});
    Expr near_log = mul(call(MathFn::Log1p, {sq_minus_1}), num(t, 0.5));
    return {select(near, near_log, call(MathFn::Log, {call(MathFn::Hypot, {z.re, z.im})})),
            call(MathFn::Atan2, {z.im, z.re})};
  }
  // e^x (cos y + i sin y); a zero y keeps its sign (the exponential of a real stays real).
  Parts call_exp(const Parts &z) {
    const ScalarType t = z.re.type();
    Expr ex = bind(call(MathFn::Exp, {z.re}), "ex");
    return {mul(ex, call(MathFn::Cos, {z.im})),
            select(cmp(BinaryOp::Eq, z.im, num(t, 0)), z.im, mul(ex, call(MathFn::Sin, {z.im})))};
  }

  // (a + ib)(c + id) = (ac - bd) + i(ad + bc), as written (no recovery of infinities).
  Parts product(const Parts &x, const Parts &y) {
    Parts a = bound(x), b = bound(y);
    return bound({sub(mul(a.re, b.re), mul(a.im, b.im)), add(mul(a.re, b.im), mul(a.im, b.re))});
  }
  // Smith's algorithm: the divisor's larger part divides the smaller, so no intermediate
  // overflows where the quotient does not; a zero divisor gives (re / 0, im / 0).
  Parts quotient(const Parts &x, const Parts &y) {
    Parts a = bound(x), b = bound(y);
    const ScalarType t = a.re.type();
    Expr big = bind(cmp(BinaryOp::Ge, fabs(b.re), fabs(b.im)), "big");
    Expr r = bind(select(big, div(b.im, b.re), div(b.re, b.im)), "r");
    Expr den = bind(select(big, add(b.re, mul(b.im, r)), add(mul(b.re, r), b.im)), "den");
    Expr zero =
        bind(both(cmp(BinaryOp::Eq, b.re, num(t, 0)), cmp(BinaryOp::Eq, b.im, num(t, 0))), "zero");
    Expr re = select(big, add(a.re, mul(a.im, r)), add(mul(a.re, r), a.im));
    Expr im = select(big, sub(a.im, mul(a.re, r)), sub(mul(a.im, r), a.re));
    return bound({select(zero, div(a.re, fabs(b.re)), div(re, den)),
                  select(zero, div(a.im, fabs(b.re)), div(im, den))});
  }
};

bool has_complex(const Kernel &k) {
  for (const Param &p : k.params)
    if (is_complex(p.type))
      return true;
  struct Finder : Visitor {
    using Visitor::visit;
    bool found = false;
    void visit(const Expr &e) override {
      if (!e.defined())
        return;
      found |= is_complex(e.type());
      if (!found)
        Visitor::visit(e);
    }
    void visit_node(const Declare *n) override {
      found |= is_complex(n->var->type);
      Visitor::visit_node(n);
    }
  } finder;
  finder.visit(k.body);
  return finder.found;
}

} // namespace

Kernel expand_complex(const Kernel &kernel) {
  if (!has_complex(kernel))
    return kernel;
  Kernel out = kernel;
  ExpandComplex expander(out.params);
  out.body = expander.mutate(kernel.body);
  return out;
}

} // namespace loom::ir
