// The checker's expressions: names, operators, calls of built-in and helper functions (helpers
// are inlined here), array elements and shapes.
#include "frontend/text/Checker.h"

#include "ir/MathFunctions.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <set>

namespace loom::text {

namespace {

struct MathFunction {
  std::optional<ir::MathFn> fn; // none for fabs, fmod, degrees and radians, made of others
  int arity;
};
// The math library's functions by name (ir/MathFunctions.h), and Python's math module's names for
// what other operations compute.
const std::map<std::string, MathFunction> &math_functions() {
  static const std::map<std::string, MathFunction> m = [] {
    std::map<std::string, MathFunction> m = {{"fabs", {std::nullopt, 1}},
                                             {"fmod", {std::nullopt, 2}},
                                             {"degrees", {std::nullopt, 1}},
                                             {"radians", {std::nullopt, 1}}};
    for (int k = 0; k < ir::kMathFnCount; ++k) {
      const ir::MathFnInfo &info = ir::math_info(static_cast<ir::MathFn>(k));
      m.emplace(info.name, MathFunction{info.fn, info.arity});
    }
    return m;
  }();
  return m;
}

// "acos, acosh, ..., min and max": every math function, for messages.
std::string math_function_list() {
  std::string list;
  for (const auto &[name, f] : math_functions())
    if (!f.fn || static_cast<int>(*f.fn) < ir::kRealMathFnCount)
      list += name + ", ";
  return list + "min and max";
}

Value math_alias(const std::string &name, const std::vector<Value> &args) {
  if (name == "fabs")
    return float_abs(args[0]);
  if (name == "fmod")
    return float_mod(args[0], args[1]);
  return scale_angle(args[0], name == "degrees" ? 180 / std::numbers::pi : std::numbers::pi / 180);
}

const std::map<std::string, ir::ScalarType> &cast_types() {
  static const std::map<std::string, ir::ScalarType> t = {
      {"bool", ir::ScalarType::Bool}, {"i8", ir::ScalarType::I8},   {"i16", ir::ScalarType::I16},
      {"i32", ir::ScalarType::I32},   {"i64", ir::ScalarType::I64}, {"u8", ir::ScalarType::U8},
      {"u16", ir::ScalarType::U16},   {"u32", ir::ScalarType::U32}, {"u64", ir::ScalarType::U64},
      {"f32", ir::ScalarType::F32},   {"f64", ir::ScalarType::F64}, {"c64", ir::ScalarType::C64},
      {"c128", ir::ScalarType::C128}, {"f16", ir::ScalarType::F16}, {"bf16", ir::ScalarType::BF16}};
  return t;
}

// The functions of Python's cmath module that loom has: those of math that take complex numbers.
bool in_cmath(const std::string &name) {
  static const std::set<std::string> names = {"sqrt", "exp",   "log",   "sin",     "cos",
                                              "tanh", "isnan", "isinf", "isfinite"};
  return names.count(name) > 0;
}

// c64(re, im) and c128(re, im): a complex value of two real ones, each converted to the parts'
// type.
Value complex_of_parts(ir::ScalarType t, const Value &re, const Value &im) {
  for (const Value *v : {&re, &im})
    if (ir::is_complex(v->type))
      throw TypeError{std::string(ir::type_name(t)) + "(re, im) takes two real numbers, not " +
                      describe(*v) + "; convert a complex value with " + ir::type_name(t) + "(z)"};
  ir::ScalarType part = ir::part_type(t);
  return Value::of(ir::Call::make(ir::MathFn::Complex, {convert(re, part), convert(im, part)}));
}

std::string arguments(size_t n) {
  return std::to_string(n) + (n == 1 ? " argument" : " arguments");
}

// How far a misspelling may be from the name meant: none for one or two letters, one edit up to
// four letters, else two.
size_t max_typo(const std::string &name) {
  return name.size() <= 2 ? 0 : name.size() <= 4 ? 1 : 2;
}

size_t edit_distance(const std::string &a, const std::string &b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// What kind of thing a symbol is, for "'t' is ..., not an array".
std::string what_is(const Symbol &s) {
  switch (s.kind) {
  case Symbol::Kind::Local:
    return std::string("a local variable of type ") + ir::type_name(s.var->type);
  case Symbol::Kind::LoopIndex:
    return "a loop index";
  case Symbol::Kind::Scalar:
    return std::string("a scalar parameter of type ") + ir::type_name(s.value.type);
  case Symbol::Kind::Shape:
    return "a shape symbol";
  case Symbol::Kind::Array:
    return "an array";
  case Symbol::Kind::Shared:
    return s.shared && s.shared->local() ? "a local array" : "a shared array";
  case Symbol::Kind::Generator:
    return "a random generator";
  default:
    return "a name with an error";
  }
}

// A literal of C++ type int64_t, as the C++ DSL's SharedArray::dim() and size() give a shared
// array's extents and size.
Value i64_literal(int64_t n) {
  Value v = Value::int_literal(n);
  v.type = ir::ScalarType::I64;
  return v;
}

// Extent `dim` of a shared or local array: a literal, or the launch's for the dynamic shared array
// (as the C++ DSL's dim() and size() give them).
Value shared_extent(const ir::Shared &a, int dim) {
  if (a->dynamic)
    return Value::of(ir::SharedExtent::make(a));
  return i64_literal(a->extents[dim]);
}

const char *element_example(int rank) {
  return rank == 1 ? "[i]" : rank == 2 ? "[i, j]" : "[i, j, k]";
}

// Whether the tree of `e` (counted as a tree, not a graph) is deeper than `depth` levels or larger
// than max_expression_size nodes; visits at most that many nodes.
bool too_large_tree(const ir::Expr &e, int depth, size_t &budget) {
  if (depth <= 0 || budget == 0)
    return true;
  --budget;
  switch (e.kind()) {
  case ir::ExprKind::Load:
    for (const ir::Expr &i : e.as<ir::Load>()->indices)
      if (too_large_tree(i, depth - 1, budget))
        return true;
    return false;
  case ir::ExprKind::Unary:
    return too_large_tree(e.as<ir::Unary>()->a, depth - 1, budget);
  case ir::ExprKind::Binary:
    return too_large_tree(e.as<ir::Binary>()->a, depth - 1, budget) ||
           too_large_tree(e.as<ir::Binary>()->b, depth - 1, budget);
  case ir::ExprKind::Select:
    return too_large_tree(e.as<ir::Select>()->cond, depth - 1, budget) ||
           too_large_tree(e.as<ir::Select>()->a, depth - 1, budget) ||
           too_large_tree(e.as<ir::Select>()->b, depth - 1, budget);
  case ir::ExprKind::Cast:
    return too_large_tree(e.as<ir::Cast>()->a, depth - 1, budget);
  case ir::ExprKind::Call:
    for (const ir::Expr &a : e.as<ir::Call>()->args)
      if (too_large_tree(a, depth - 1, budget))
        return true;
    return false;
  default:
    return false;
  }
}

} // namespace

bool Checker::too_large(const ir::Expr &e, int depth) const {
  size_t budget = max_expression_size;
  return too_large_tree(e, depth, budget);
}

std::optional<Value> Checker::try_expr(const ast::Expr &e) {
  try {
    return expr(e);
  } catch (const CheckFailed &) {
    return std::nullopt;
  }
}

Value Checker::expr(const ast::Expr &e) {
  if (expression_depth_ >= max_expression_depth)
    error(e.begin, "expression nested too deeply (more than " +
                       std::to_string(max_expression_depth) +
                       " levels); split it with local variables");
  ++expression_depth_;
  struct Leave {
    int &depth;
    ~Leave() { --depth; }
  } leave{expression_depth_};
  switch (e.kind) {
  case ast::ExprKind::Int:
    return Value::int_literal(e.int_value);
  case ast::ExprKind::Float:
    return Value::float_literal(e.float_value);
  case ast::ExprKind::Imag:
    return Value::complex_literal(0, e.float_value);
  case ast::ExprKind::Bool:
    return Value::bool_literal(e.bool_value);
  case ast::ExprKind::Name:
    return name(e);
  case ast::ExprKind::Unary: {
    Value a = expr(*e.operands[0]);
    try {
      switch (e.unary_op) {
      case ast::UnaryOp::Neg:
        return negate(a);
      case ast::UnaryOp::Plus:
        return unary_plus(a);
      case ast::UnaryOp::Not:
        return logical_not(a);
      case ast::UnaryOp::BitNot:
        return bitwise_not(a);
      }
    } catch (const TypeError &t) {
      error(e.loc, t.message);
    }
    return a;
  }
  case ast::ExprKind::Binary: {
    // Both operands are checked, so that an error in each is reported.
    std::optional<Value> a = try_expr(*e.operands[0]);
    std::optional<Value> b = try_expr(*e.operands[1]);
    if (!a || !b)
      throw CheckFailed{};
    try {
      return binary(to_ir(e.binary_op), *a, *b);
    } catch (const TypeError &t) {
      error(e.loc, t.message);
    }
  }
  case ast::ExprKind::Conditional: {
    std::optional<Value> a = try_expr(*e.operands[0]);
    std::optional<Value> c = try_expr(*e.operands[1]);
    std::optional<Value> b = try_expr(*e.operands[2]);
    if (!a || !b || !c)
      throw CheckFailed{};
    return select(*c, *a, *b);
  }
  case ast::ExprKind::Call:
    return call(e);
  case ast::ExprKind::Subscript:
    return subscript(e);
  case ast::ExprKind::Attribute:
    return attribute(e);
  case ast::ExprKind::Tuple:
    error(e.begin, "a tuple can only be the shape of shared.array() or the index of an atomic, "
                   "as in atomic.add(A, (i, j), v)");
  case ast::ExprKind::String:
    error(e.begin, "strings are only print()'s text, as in print(\"x =\", x[i])");
  }
  throw CheckFailed{};
}

Value Checker::name(const ast::Expr &e) {
  const Symbol *s = lookup(e.name);
  if (!s) {
    if (std::optional<Value> v = simt_name(e))
      return *v;
    unknown_name(e);
  }
  switch (s->kind) {
  case Symbol::Kind::LoopIndex:
    if (s->value.expr.defined()) // a parallel range's index, begin + j * step
      return s->value;
    return Value::of(ir::VarRef::make(s->var));
  case Symbol::Kind::Local:
    return Value::of(ir::VarRef::make(s->var));
  case Symbol::Kind::Scalar:
  case Symbol::Kind::Shape:
    return s->value;
  case Symbol::Kind::Array:
    error(e.loc, "'" + e.name + "' is an array; use one of its elements (" + e.name +
                     element_example(array_param(s->array).rank) + ") or its shape (" + e.name +
                     ".shape[0])");
  case Symbol::Kind::Shared:
    error(e.loc, "'" + e.name + "' is " + (s->shared->local() ? "a local" : "a shared") +
                     " array; use one of its elements (" + e.name +
                     element_example(static_cast<int>(s->shared->extents.size())) + ")");
  case Symbol::Kind::Generator:
    error(e.loc, "'" + e.name + "' is a random generator, not a number; draw from it with " +
                     e.name + ".uniform(), " + e.name + ".next_u32(), " + e.name +
                     ".randint(lo, hi) ...");
  case Symbol::Kind::Poison:
    break;
  }
  throw CheckFailed{};
}

void Checker::unknown_name(const ast::Expr &e) {
  const std::string &n = e.name;
  if (math_functions().count(n) || n == "min" || n == "max" || n == "range" || n == "parallel" ||
      n == "len" || (functions_.count(n) && !functions_.at(n)->is_kernel) ||
      (is_simt_call(n) && n.find('.') == std::string::npos))
    error(e.loc, "'" + n + "' is a function; call it, as in " + n + "(...)");
  if (cast_types().count(n))
    error(e.loc, "'" + n + "' is a type; convert a value with " + n + "(x)");
  auto closed = frames_.back().closed.find(n);
  if (closed != frames_.back().closed.end())
    error(e.loc, "unknown name '" + n + "': the variable declared on line " +
                     std::to_string(closed->second.line) +
                     " is local to its block; declare it before that block to use it here");
  std::string hint = hint_for(n);
  // Later uses of the name fail quietly: one report per unknown name and function.
  Symbol poison;
  poison.loc = e.loc;
  frames_.back().scopes.front().emplace(n, poison);
  error(e.loc, "unknown name '" + n + "'" + hint);
}

// " (did you mean 'acc'?)" when a visible name is spelled almost like `n`.
std::string Checker::hint_for(const std::string &n) const {
  std::string best;
  size_t best_distance = max_typo(n) + 1;
  auto consider = [&](const std::string &candidate) {
    size_t d = edit_distance(n, candidate);
    if (d < best_distance)
      best = candidate, best_distance = d;
  };
  for (const auto &scope : frames_.back().scopes)
    for (const auto &[name, s] : scope)
      consider(name);
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

Value Checker::call(const ast::Expr &e) {
  if (is_simt_call(e.name))
    return simt_call(e, without_cuda(e.name));
  if (std::optional<Value> v = method_call(e)) // g.uniform(), random.philox
    return *v;
  std::string n = e.name;
  if (n.rfind("math.", 0) == 0) {
    n = n.substr(5);
    if (n == "abs")
      error(e.begin, "unknown function 'math.abs' (Python has none either); write abs(x), or "
                     "math.fabs(x) for a float result");
    auto m = math_functions().find(n);
    if (m == math_functions().end() ||
        (m->second.fn && static_cast<int>(*m->second.fn) >= ir::kRealMathFnCount))
      error(e.begin,
            "unknown function '" + e.name + "'; loom's math functions are " + math_function_list());
  } else if (n.rfind("cmath.", 0) == 0) {
    n = n.substr(6);
    if (!in_cmath(n))
      error(e.begin, "unknown function '" + e.name +
                         "'; loom's cmath functions are sqrt, exp, log, sin, cos, tanh, isnan, "
                         "isinf and isfinite (and abs, pow, real, imag and conj without cmath.)");
  }
  size_t given = e.operands.size();
  auto expect_arity = [&](size_t arity) {
    if (given != arity)
      error(e.begin, n + "() takes " + arguments(arity) + ", got " + std::to_string(given));
  };
  if (n == "range" || n == "parallel")
    error(e.begin, n + "() can only be the iterable of a 'for' loop");
  if (n == "len") {
    expect_arity(1);
    if (const Symbol *shared = shared_symbol(*e.operands[0]))
      return shared_extent(shared->shared, 0);
    return Value::of(
        ir::ArrayExtent::make(array_argument(*e.operands[0], "the argument of len()"), 0));
  }
  auto fn = functions_.find(n);
  if (fn != functions_.end()) {
    if (fn->second->is_kernel)
      error(e.begin, "'" + n +
                         "' is a kernel, and kernels cannot be called; remove its @kernel "
                         "to make it a helper function");
    std::optional<Value> v = inline_helper(*fn->second, e);
    if (!v)
      error(e.begin, "helper '" + n + "' returns no value (it has no '-> type')");
    return *v;
  }
  // Built-in functions: check every argument, so that each error is reported.
  std::vector<Value> args;
  bool ok = true;
  for (const ast::ExprPtr &a : e.operands) {
    std::optional<Value> v = try_expr(*a);
    ok = ok && v.has_value();
    if (v)
      args.push_back(*v);
  }
  auto cast = cast_types().find(n);
  if (cast != cast_types().end()) {
    if (ir::is_complex(cast->second) && given == 2) {
      if (!ok)
        throw CheckFailed{};
      try {
        return complex_of_parts(cast->second, args[0], args[1]);
      } catch (const TypeError &t) {
        error(e.begin, t.message);
      }
    }
    if (ir::is_complex(cast->second) && given != 1)
      error(e.begin, n +
                         "() takes 1 argument (a number to convert) or 2 (the real and imaginary "
                         "parts), got " +
                         std::to_string(given));
    expect_arity(1);
    if (!ok)
      throw CheckFailed{};
    return text::cast(cast->second, args[0]);
  }
  if (n == "min" || n == "max") {
    expect_arity(2);
    if (!ok)
      throw CheckFailed{};
    try {
      return binary(n == "min" ? ir::BinaryOp::Min : ir::BinaryOp::Max, args[0], args[1]);
    } catch (const TypeError &t) {
      error(e.begin, t.message);
    }
  }
  auto m = math_functions().find(n);
  if (m != math_functions().end()) {
    expect_arity(m->second.arity);
    if (!ok)
      throw CheckFailed{};
    try {
      return m->second.fn ? math(*m->second.fn, args) : math_alias(n, args);
    } catch (const TypeError &t) {
      error(e.begin, t.message);
    }
  }
  if (n == "int" || n == "float")
    error(e.begin, "'" + n + "' is not a loom type; convert with " +
                       (n == "int" ? "i32(x) or i64(x)" : "f32(x) or f64(x)"));
  std::vector<std::string> known = {
      "min",      "max",       "len",          "syncthreads",    "grid",
      "gridsize", "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync",
      "any_sync", "all_sync",  "ballot_sync"};
  for (const auto &[name, f] : functions_)
    known.push_back(name);
  for (const auto &[name, f] : math_functions())
    known.push_back(name);
  for (const auto &[name, t] : cast_types())
    known.push_back(name);
  std::string hint;
  size_t best = max_typo(n) + 1;
  for (const std::string &name : known)
    if (size_t d = edit_distance(n, name); d < best)
      hint = " (did you mean '" + name + "'?)", best = d;
  error(e.begin, "unknown function '" + n + "'" + hint);
}

std::optional<Value> Checker::inline_helper(const ast::Function &f, const ast::Expr &call) {
  const Signature &sig = signatures_[&f];
  for (const Frame &frame : frames_) {
    if (frame.function != &f)
      continue;
    std::string chain;
    for (const Frame &g : frames_)
      chain += g.function->name + " -> ";
    error(call.begin, "recursive call of '" + f.name + "' (" + chain + f.name +
                          "); helpers are inlined, so they cannot call themselves");
  }
  if (++inlined_calls_ > max_inlined_calls)
    error(call.begin, "more than " + std::to_string(max_inlined_calls) +
                          " helper calls are inlined into this function; loom inlines every call, "
                          "so helpers calling helpers several times grow exponentially");
  if (call.operands.size() != f.params.size())
    error(call.begin, "'" + f.name + "' takes " + arguments(f.params.size()) + ", got " +
                          std::to_string(call.operands.size()));
  // Arguments are checked in the caller's scope. A scalar parameter stands for its argument's
  // expression, converted to the parameter's type (as a C++ helper taking loom::F32 would).
  std::vector<Symbol> bound(f.params.size());
  bool ok = true;
  for (size_t k = 0; k < f.params.size(); ++k) {
    const ast::Expr &arg = *call.operands[k];
    const CheckedType &t = sig.params[k];
    bound[k].loc = f.params[k].loc;
    try {
      if (!t.is_array) {
        bound[k].kind = Symbol::Kind::Scalar;
        bound[k].value = Value::of(assigned(expr(arg), t.scalar, arg.begin));
        continue;
      }
      std::string what = "argument " + std::to_string(k + 1) + " of '" + f.name + "'";
      int array = array_argument(arg, what);
      const ir::Param &p = array_param(array);
      if (p.type != t.scalar || p.rank != static_cast<int>(t.dims.size()))
        error(arg.begin, what + " must be an array of " + ir::type_name(t.scalar) + " with rank " +
                             std::to_string(t.dims.size()) + "; '" + p.name + "' is an array of " +
                             ir::type_name(p.type) + " with rank " + std::to_string(p.rank));
      bound[k].kind = Symbol::Kind::Array;
      bound[k].array = array;
    } catch (const CheckFailed &) {
      ok = false;
    }
  }
  if (!ok || !sig.ok || helper_state_[&f] == HelperState::Bad)
    throw CheckFailed{};
  size_t errors = diag_.size();
  frames_.emplace_back(&f);
  open_scope();
  for (size_t k = 0; k < f.params.size(); ++k) {
    declare(f.params[k].name, bound[k]);
    if (bound[k].kind != Symbol::Kind::Array)
      continue;
    for (size_t d = 0; d < sig.params[k].dims.size(); ++d) {
      const ast::Dim &dim = sig.params[k].dims[d];
      bind_shape(dim.symbol.empty() ? std::to_string(dim.extent) : dim.symbol, dim.loc,
                 bound[k].array, static_cast<int>(d), f.name);
    }
  }
  std::optional<Value> result = helper_body(f);
  frames_.pop_back();
  if (diag_.size() != errors)
    throw CheckFailed{};
  // A parameter used twice copies its argument's tree, so nested calls can grow it exponentially.
  if (result && !result->literal && too_large(result->expr, max_expression_depth))
    error(call.begin, "the call of '" + f.name + "' expands to an expression of more than " +
                          std::to_string(max_expression_size) + " operations or " +
                          std::to_string(max_expression_depth) +
                          " levels once inlined; store intermediate values in local variables");
  return result;
}

int Checker::array_argument(const ast::Expr &e, const std::string &what) {
  if (e.kind == ast::ExprKind::Name) {
    const Symbol *s = lookup(e.name);
    if (!s)
      unknown_name(e);
    if (s->kind == Symbol::Kind::Poison)
      throw CheckFailed{};
    if (s->kind == Symbol::Kind::Array)
      return s->array;
    if (what.empty())
      error(e.loc,
            "'" + e.name + "' is " + what_is(*s) + ", not an array; only arrays can be indexed");
    error(e.loc, what + " must be an array; '" + e.name + "' is " + what_is(*s));
  }
  error(e.begin, what.empty() ? std::string("only arrays can be indexed")
                              : what + " must be the name of an array");
}

// The indices of `a[i, j]` (e.operands[1..]), one i64 per dimension of the array.
std::vector<ir::Expr> Checker::indices(const ast::Expr &e, int array) {
  const ir::Param &p = array_param(array);
  return indices(e, p.name, p.rank);
}

std::vector<ir::Expr> Checker::indices(const ast::Expr &e, const std::string &name, int rank) {
  size_t n = e.operands.size() - 1;
  if (static_cast<int>(n) != rank)
    error(e.begin, "'" + name + "' has rank " + std::to_string(rank) + " but is indexed with " +
                       std::to_string(n) + (n == 1 ? " index" : " indices"));
  std::vector<ir::Expr> idx;
  bool ok = true;
  for (size_t k = 1; k <= n; ++k) {
    try {
      idx.push_back(index(*e.operands[k]));
    } catch (const CheckFailed &) {
      ok = false;
    }
  }
  if (!ok)
    throw CheckFailed{};
  return idx;
}

ir::Expr Checker::index(const ast::Expr &e) {
  Value v = expr(e);
  if (!ir::is_int(v.type))
    error(e.begin, "an array index must be an integer, got " + describe(v));
  return convert(v, ir::ScalarType::I64);
}

Value Checker::subscript(const ast::Expr &e) {
  const ast::Expr &base = *e.operands[0];
  if (base.kind == ast::ExprKind::Attribute && base.name == "shape") {
    if (const Symbol *shared = shared_symbol(*base.operands[0])) {
      const ir::SharedArray &a = *shared->shared;
      const ast::Expr &index = *e.operands.back();
      int rank = static_cast<int>(a.extents.size());
      if (e.operands.size() != 2 || index.kind != ast::ExprKind::Int || index.int_value >= rank)
        error(index.begin, a.name + ".shape takes one integer literal index below its rank, " +
                               std::to_string(rank) + ", as in " + a.name + ".shape[0]");
      return shared_extent(shared->shared, static_cast<int>(index.int_value));
    }
    int array = array_argument(*base.operands[0], "the object of '.shape'");
    const ir::Param &p = array_param(array);
    const ast::Expr &index = *e.operands.back();
    if (e.operands.size() != 2 || index.kind != ast::ExprKind::Int)
      error(index.begin,
            p.name + ".shape takes one integer literal index, as in " + p.name + ".shape[0]");
    if (index.int_value >= p.rank)
      error(index.begin, "'" + p.name + "' has rank " + std::to_string(p.rank) + ", so " + p.name +
                             ".shape[" + std::to_string(index.int_value) + "] does not exist");
    return Value::of(ir::ArrayExtent::make(array, static_cast<int>(index.int_value)));
  }
  if (const Symbol *shared = shared_symbol(base)) {
    const ir::Shared &a = shared->shared;
    std::vector<ir::Expr> idx = indices(e, a->name, static_cast<int>(a->extents.size()));
    return Value::of(ir::SharedLoad::make(a, std::move(idx)));
  }
  int array = array_argument(base, "");
  std::vector<ir::Expr> idx = indices(e, array);
  return Value::of(ir::Load::make(array_param(array).type, array, std::move(idx)));
}

Value Checker::attribute(const ast::Expr &e) {
  const ast::Expr &base = *e.operands[0];
  if (base.kind == ast::ExprKind::Name && base.name == "math" && !lookup("math")) {
    if (e.name == "pi")
      return Value::float_literal(std::numbers::pi);
    if (e.name == "e")
      return Value::float_literal(std::numbers::e);
    error(e.loc, "unknown name 'math." + e.name + "'; the math constants are math.pi and math.e");
  }
  if (std::optional<Value> v = simt_attribute(e))
    return *v;
  if (base.kind == ast::ExprKind::Name)
    if (const Symbol *s = lookup(base.name); s && s->kind == Symbol::Kind::Generator)
      error(e.loc, "'" + base.name + "' is a random generator, whose methods are called, as in " +
                       base.name + ".uniform(); it has no attribute '" + e.name + "'");
  // z.real and z.imag of a complex (or real) value, as in Python.
  if ((e.name == "real" || e.name == "imag") && !shared_symbol(base) &&
      !(base.kind == ast::ExprKind::Name && lookup(base.name) &&
        lookup(base.name)->kind == Symbol::Kind::Array)) {
    Value v = expr(base);
    try {
      return math(e.name == "real" ? ir::MathFn::Real : ir::MathFn::Imag, {v});
    } catch (const TypeError &t) {
      error(e.loc, t.message);
    }
  }
  if (const Symbol *shared = shared_symbol(base)) {
    const ir::SharedArray &a = *shared->shared;
    if (e.name == "size")
      return a.dynamic ? shared_extent(shared->shared, 0) : i64_literal(a.size());
    if (e.name == "shape")
      error(e.loc, a.name + ".shape must be indexed, as in " + a.name + ".shape[0]");
    error(e.loc, std::string(a.local() ? "local" : "shared") +
                     " arrays have the attributes 'shape' and 'size'; '" + a.name +
                     "' has no attribute '" + e.name + "'");
  }
  int array = array_argument(base, "the object of '." + e.name + "'");
  const ir::Param &p = array_param(array);
  if (e.name == "shape")
    error(e.loc, p.name + ".shape must be indexed, as in " + p.name + ".shape[0]");
  if (e.name == "real" || e.name == "imag")
    error(e.loc, "'" + p.name + "." + e.name + "' would be an array; take the " + e.name +
                     " part of an element, as in " + p.name + element_example(p.rank) + "." +
                     e.name);
  if (e.name != "size")
    error(e.loc, "arrays have the attributes 'shape' and 'size'; '" + p.name +
                     "' has no attribute '" + e.name + "'");
  // The number of elements, as the embedded DSL's size() builds it.
  ir::Expr n = ir::ArrayExtent::make(array, 0);
  for (int d = 1; d < p.rank; ++d)
    n = ir::Binary::make(ir::BinaryOp::Mul, n, ir::ArrayExtent::make(array, d));
  return Value::of(n);
}

} // namespace loom::text
