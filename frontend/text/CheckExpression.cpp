// The checker's expressions: names, operators, calls of built-in and helper functions (helpers
// are inlined here), array elements and shapes.
#include "frontend/text/Checker.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace loom::text {

namespace {

struct MathFunction {
  ir::MathFn fn;
  int arity;
};
const std::map<std::string, MathFunction> &math_functions() {
  static const std::map<std::string, MathFunction> m = {
      {"sqrt", {ir::MathFn::Sqrt, 1}},   {"exp", {ir::MathFn::Exp, 1}},
      {"log", {ir::MathFn::Log, 1}},     {"sin", {ir::MathFn::Sin, 1}},
      {"cos", {ir::MathFn::Cos, 1}},     {"tanh", {ir::MathFn::Tanh, 1}},
      {"floor", {ir::MathFn::Floor, 1}}, {"abs", {ir::MathFn::Abs, 1}},
      {"pow", {ir::MathFn::Pow, 2}},     {"fma", {ir::MathFn::Fma, 3}}};
  return m;
}

const std::map<std::string, ir::ScalarType> &cast_types() {
  static const std::map<std::string, ir::ScalarType> t = {{"bool", ir::ScalarType::Bool},
                                                          {"i32", ir::ScalarType::I32},
                                                          {"i64", ir::ScalarType::I64},
                                                          {"f32", ir::ScalarType::F32},
                                                          {"f64", ir::ScalarType::F64}};
  return t;
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
    return "a shared array";
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
  case Symbol::Kind::Local:
  case Symbol::Kind::LoopIndex:
    return Value::of(ir::VarRef::make(s->var));
  case Symbol::Kind::Scalar:
  case Symbol::Kind::Shape:
    return s->value;
  case Symbol::Kind::Array:
    error(e.loc, "'" + e.name + "' is an array; use one of its elements (" + e.name +
                     element_example(array_param(s->array).rank) + ") or its shape (" + e.name +
                     ".shape[0])");
  case Symbol::Kind::Shared:
    error(e.loc, "'" + e.name + "' is a shared array; use one of its elements (" + e.name +
                     element_example(static_cast<int>(s->shared->extents.size())) + ")");
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
  std::string n = e.name;
  bool from_math = n.rfind("math.", 0) == 0;
  if (from_math) {
    n = n.substr(5);
    if (!math_functions().count(n) || n == "abs")
      error(e.begin, "unknown function '" + e.name +
                         "'; loom's math functions are sqrt, exp, "
                         "log, sin, cos, tanh, floor, abs, pow, fma, min and max");
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
      return i64_literal(shared->shared->extents[0]);
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
    expect_arity(1);
    if (!ok)
      throw CheckFailed{};
    return text::cast(cast->second, args[0]);
  }
  if (n == "min" || n == "max") {
    expect_arity(2);
    if (!ok)
      throw CheckFailed{};
    return binary(n == "min" ? ir::BinaryOp::Min : ir::BinaryOp::Max, args[0], args[1]);
  }
  auto m = math_functions().find(n);
  if (m != math_functions().end()) {
    expect_arity(m->second.arity);
    if (!ok)
      throw CheckFailed{};
    return math(m->second.fn, args);
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
        bound[k].value = Value::of(convert(expr(arg), t.scalar));
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
      return i64_literal(a.extents[index.int_value]);
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
  if (const Symbol *shared = shared_symbol(base)) {
    const ir::SharedArray &a = *shared->shared;
    if (e.name == "size")
      return i64_literal(a.size());
    if (e.name == "shape")
      error(e.loc, a.name + ".shape must be indexed, as in " + a.name + ".shape[0]");
    error(e.loc, "shared arrays have the attributes 'shape' and 'size'; '" + a.name +
                     "' has no attribute '" + e.name + "'");
  }
  int array = array_argument(base, "the object of '." + e.name + "'");
  const ir::Param &p = array_param(array);
  if (e.name == "shape")
    error(e.loc, p.name + ".shape must be indexed, as in " + p.name + ".shape[0]");
  if (e.name != "size")
    error(e.loc, "arrays have the attributes 'shape' and 'size'; '" + p.name +
                     "' has no attribute '" + e.name + "'");
  // The number of elements, as the embedded DSL's size() builds it.
  ir::Expr n = ir::ArrayExtent::make(array, 0);
  for (int d = 1; d < p.rank; ++d)
    n = ir::Binary::make(ir::BinaryOp::Mul, n, ir::ArrayExtent::make(array, d));
  return Value::of(n);
}

// ---- the SIMT level ------------------------------------------------------------------------

namespace {

const std::map<std::string, ir::Reg> &geometry() {
  static const std::map<std::string, ir::Reg> g = {{"threadIdx", ir::Reg::ThreadIdx},
                                                   {"blockIdx", ir::Reg::BlockIdx},
                                                   {"blockDim", ir::Reg::BlockDim},
                                                   {"gridDim", ir::Reg::GridDim}};
  return g;
}

const std::map<std::string, ir::AtomicOp> &atomics() {
  static const std::map<std::string, ir::AtomicOp> a = {
      {"atomic.add", ir::AtomicOp::Add},
      {"atomic.min", ir::AtomicOp::Min},
      {"atomic.max", ir::AtomicOp::Max},
      {"atomic.exch", ir::AtomicOp::Exchange},
      {"atomic.cas", ir::AtomicOp::CompareExchange}};
  return a;
}

const std::map<std::string, ir::WarpOpKind> &warp_functions() {
  static const std::map<std::string, ir::WarpOpKind> w = {
      {"shfl_sync", ir::WarpOpKind::ShflIdx},
      {"shfl_up_sync", ir::WarpOpKind::ShflUp},
      {"shfl_down_sync", ir::WarpOpKind::ShflDown},
      {"shfl_xor_sync", ir::WarpOpKind::ShflXor},
      {"any_sync", ir::WarpOpKind::Any},
      {"all_sync", ir::WarpOpKind::All},
      {"ballot_sync", ir::WarpOpKind::Ballot}};
  return w;
}

// The thread's lane, as the C++ DSL's lane_id(): its index in the block (x fastest) modulo 32.
Value lane_id() {
  auto reg = [](ir::Reg r, int dim) { return Value::of(ir::SpecialReg::make(r, dim)); };
  Value tx = reg(ir::Reg::ThreadIdx, 0), ty = reg(ir::Reg::ThreadIdx, 1),
        tz = reg(ir::Reg::ThreadIdx, 2), bx = reg(ir::Reg::BlockDim, 0),
        by = reg(ir::Reg::BlockDim, 1);
  Value linear =
      binary(ir::BinaryOp::Add, binary(ir::BinaryOp::Add, tx, binary(ir::BinaryOp::Mul, ty, bx)),
             binary(ir::BinaryOp::Mul, binary(ir::BinaryOp::Mul, tz, bx), by));
  return binary(ir::BinaryOp::BitAnd, linear, Value::int_literal(31));
}

} // namespace

std::string without_cuda(const std::string &callee) {
  return callee.rfind("cuda.", 0) == 0 ? callee.substr(5) : callee;
}

bool is_simt_call(const std::string &callee) {
  if (callee.rfind("cuda.", 0) == 0)
    return true;
  return callee == "syncthreads" || callee == "grid" || callee == "gridsize" ||
         callee.rfind("shared.", 0) == 0 || callee.rfind("atomic.", 0) == 0 ||
         warp_functions().count(callee);
}

void Checker::require_simt(SourceLocation at, const std::string &what) {
  const ast::Function &root = *frames_.front().function;
  if (!root.is_kernel || kernel_.simt)
    return;
  error(at,
        what + " is only for SIMT kernels; declare '" + root.name + "' with @kernel(simt=True)");
}

const Symbol *Checker::shared_symbol(const ast::Expr &e) const {
  if (e.kind != ast::ExprKind::Name)
    return nullptr;
  const Symbol *s = lookup(e.name);
  return s && s->kind == Symbol::Kind::Shared ? s : nullptr;
}

// `laneid` and `warpsize` where no variable has the name; a geometry name without its axis.
std::optional<Value> Checker::simt_name(const ast::Expr &e) {
  if (e.name == "laneid") {
    require_simt(e.loc, "laneid");
    return lane_id();
  }
  if (e.name == "warpsize") {
    require_simt(e.loc, "warpsize");
    return Value::int_literal(32);
  }
  if (geometry().count(e.name))
    error(e.loc, "'" + e.name + "' has the attributes x, y and z, as in " + e.name + ".x");
  return std::nullopt;
}

// threadIdx.x ... gridDim.z (i32), also with Numba's cuda. prefix; cuda.laneid, cuda.warpsize.
std::optional<Value> Checker::simt_attribute(const ast::Expr &e) {
  const ast::Expr &base = *e.operands[0];
  auto is_cuda = [&](const ast::Expr &x) {
    return x.kind == ast::ExprKind::Name && x.name == "cuda" && !lookup("cuda");
  };
  if (is_cuda(base)) {
    if (e.name == "laneid" || e.name == "warpsize") {
      require_simt(e.begin, "cuda." + e.name);
      return e.name == "laneid" ? lane_id() : Value::int_literal(32);
    }
    if (geometry().count(e.name))
      error(e.loc,
            "'cuda." + e.name + "' has the attributes x, y and z, as in cuda." + e.name + ".x");
    error(e.loc, "unknown name 'cuda." + e.name +
                     "'; the thread geometry is threadIdx, blockIdx, blockDim and gridDim (each "
                     "with .x, .y and .z), laneid and warpsize");
  }
  std::string reg;
  if (base.kind == ast::ExprKind::Name && geometry().count(base.name) && !lookup(base.name))
    reg = base.name;
  else if (base.kind == ast::ExprKind::Attribute && geometry().count(base.name) &&
           is_cuda(*base.operands[0]))
    reg = "cuda." + base.name;
  else
    return std::nullopt;
  int dim = e.name == "x" ? 0 : e.name == "y" ? 1 : e.name == "z" ? 2 : -1;
  if (dim < 0)
    error(e.loc, reg + " has the attributes x, y and z; it has no attribute '" + e.name + "'");
  require_simt(e.begin, reg + "." + e.name);
  return Value::of(ir::SpecialReg::make(geometry().at(without_cuda(reg)), dim));
}

std::vector<ir::Expr> Checker::grid_axes(const ast::Expr &call, const std::string &function) {
  require_simt(call.begin, call.name + "()");
  const ast::Expr *n = call.operands.size() == 1 ? call.operands[0].get() : nullptr;
  if (!n || n->kind != ast::ExprKind::Int || n->int_value < 1 || n->int_value > 3)
    error(n ? n->begin : call.begin,
          call.name + "() takes the number of axes: the integer 1, 2 or 3");
  // As the C++ DSL's grid<N>() and grid_size<N>(): each register widened to i64.
  auto reg = [](ir::Reg r, int dim) {
    return ir::Cast::make(ir::ScalarType::I64, ir::SpecialReg::make(r, dim));
  };
  std::vector<ir::Expr> axes;
  for (int d = 0; d < n->int_value; ++d) {
    if (function == "grid")
      axes.push_back(ir::Binary::make(
          ir::BinaryOp::Add,
          ir::Binary::make(ir::BinaryOp::Mul, reg(ir::Reg::BlockIdx, d), reg(ir::Reg::BlockDim, d)),
          reg(ir::Reg::ThreadIdx, d)));
    else
      axes.push_back(
          ir::Binary::make(ir::BinaryOp::Mul, reg(ir::Reg::BlockDim, d), reg(ir::Reg::GridDim, d)));
  }
  return axes;
}

// A call of the SIMT level's (`function` is its name without "cuda.").
Value Checker::simt_call(const ast::Expr &e, const std::string &function) {
  if (function == "syncthreads")
    error(e.begin, e.name + "() is a statement; it has no value");
  if (function == "grid" || function == "gridsize") {
    std::vector<ir::Expr> axes = grid_axes(e, function);
    if (axes.size() != 1) {
      std::string n = std::to_string(axes.size());
      error(e.begin, e.name + "(" + n + ") gives " + n + " values; assign them to " + n +
                         " names, as in '" + (axes.size() == 2 ? "x, y" : "x, y, z") + " = " +
                         e.name + "(" + n + ")'");
    }
    return Value::of(axes[0]);
  }
  if (function == "shared.array")
    error(e.begin, e.name + "() declares a shared array; assign it to a new name, as in 'tile = " +
                       e.name + "(256, f32)'");
  if (auto a = atomics().find(function); a != atomics().end())
    return atomic(e, e.name, a->second);
  if (auto w = warp_functions().find(function); w != warp_functions().end())
    return warp_operation(e, e.name, w->second);
  if (function.rfind("atomic.", 0) == 0)
    error(e.begin, "unknown function '" + e.name +
                       "'; the atomics are atomic.add, atomic.min, atomic.max, atomic.exch and "
                       "atomic.cas" +
                       (function == "atomic.sub" ? " (subtract with atomic.add of -value)" : ""));
  if (function.rfind("shared.", 0) == 0)
    error(e.begin, "unknown function '" + e.name +
                       "'; a shared array is declared with shared.array(shape, type)");
  error(e.begin, "unknown function '" + e.name +
                     "'; the SIMT level's functions are grid, gridsize, syncthreads, shared.array, "
                     "atomic.add/min/max/exch/cas, shfl_sync, shfl_up_sync, shfl_down_sync, "
                     "shfl_xor_sync, any_sync, all_sync and ballot_sync");
}

// atomic.add(ary, idx, val) ... atomic.cas(ary, idx, old, val), Numba's signatures, on an array
// parameter or a shared array. As the C++ DSL's atomics: the old value goes to a fresh local
// "old", declared with 0 before the Atomic.
Value Checker::atomic(const ast::Expr &e, const std::string &function, ir::AtomicOp op) {
  require_simt(e.begin, function + "()");
  const bool cas = op == ir::AtomicOp::CompareExchange;
  const size_t arity = cas ? 4 : 3;
  if (e.operands.size() != arity)
    error(e.begin, function + "() takes " + arguments(arity) +
                       (cas ? " (array, index, old, value)" : " (array, index, value)") + ", got " +
                       std::to_string(e.operands.size()));
  const ast::Expr &target = *e.operands[0];
  ir::Shared shared;
  int array = -1;
  ir::ScalarType element;
  std::string name;
  size_t rank;
  if (const Symbol *s = shared_symbol(target)) {
    shared = s->shared;
    element = shared->type, name = shared->name, rank = shared->extents.size();
  } else {
    array = array_argument(target, "the first argument of " + function + "()");
    const ir::Param &p = array_param(array);
    element = p.type, name = p.name, rank = static_cast<size_t>(p.rank);
  }
  if (element == ir::ScalarType::Bool || ir::is_storage_only(element))
    error(target.begin, function + "() updates elements of i32, i64, f32 or f64; '" + name +
                            "' holds " + ir::type_name(element));
  const ast::Expr &where = *e.operands[1];
  std::vector<const ast::Expr *> written;
  if (where.kind == ast::ExprKind::Tuple)
    for (const ast::ExprPtr &i : where.operands)
      written.push_back(i.get());
  else
    written.push_back(&where);
  if (written.size() != rank)
    error(where.begin, "'" + name + "' has rank " + std::to_string(rank) + " but the index of " +
                           function + "() has " + std::to_string(written.size()) +
                           (rank > 1 ? "; index with a tuple, as in (i, j)" : ""));
  std::vector<ir::Expr> idx;
  bool ok = true;
  for (const ast::Expr *i : written) {
    try {
      idx.push_back(index(*i));
    } catch (const CheckFailed &) {
      ok = false;
    }
  }
  std::optional<Value> compare = cas ? try_expr(*e.operands[2]) : std::nullopt;
  std::optional<Value> value = try_expr(*e.operands.back());
  if (!ok || !value || (cas && !compare))
    throw CheckFailed{};
  ir::Var old = ir::make_var("old", element);
  emit(ir::Declare::make(old, convert(Value::int_literal(0), element)));
  emit(ir::Atomic::make(op, array, shared, element, std::move(idx), convert(*value, element),
                        cas ? convert(*compare, element) : ir::Expr(), old));
  ++simt_effects_;
  return Value::of(ir::VarRef::make(old));
}

// shfl_sync(mask, value, lane) ... ballot_sync(mask, predicate), Numba's signatures. loom's warp
// operations take the whole warp, so the mask must be the constant 0xffffffff. As the C++ DSL's
// collectives, the result is a fresh local "warp" declared where the operation is called (a
// value is re-evaluated where it is used, and the lanes must all take part).
Value Checker::warp_operation(const ast::Expr &e, const std::string &function, ir::WarpOpKind op) {
  require_simt(e.begin, function + "()");
  const bool vote =
      op == ir::WarpOpKind::Any || op == ir::WarpOpKind::All || op == ir::WarpOpKind::Ballot;
  const char *operand = op == ir::WarpOpKind::ShflIdx   ? "lane"
                        : op == ir::WarpOpKind::ShflXor ? "lane mask"
                                                        : "delta";
  const size_t arity = vote ? 2 : 3;
  if (e.operands.size() != arity)
    error(e.begin, function + "() takes " + arguments(arity) +
                       (vote ? std::string(" (mask, predicate)")
                             : std::string(" (mask, value, ") + operand + ")") +
                       ", got " + std::to_string(e.operands.size()));
  const ast::Expr &mask_expr = *e.operands[0];
  std::optional<Value> mask = try_expr(mask_expr);
  if (mask &&
      !(mask->literal && ir::is_int(mask->type) && (mask->i == -1 || mask->i == 0xffffffffLL))) {
    diag_.error(mask_expr.begin, "the mask of " + function +
                                     "() must be 0xffffffff (or -1): loom's warp operations take "
                                     "the whole warp");
    mask.reset();
  }
  std::optional<Value> value = try_expr(*e.operands[1]);
  ir::Expr result;
  if (vote) {
    if (!mask || !value)
      throw CheckFailed{};
    result = ir::WarpOp::make(op, convert(*value, ir::ScalarType::Bool));
  } else {
    if (value && value->type == ir::ScalarType::Bool) {
      diag_.error(e.operands[1]->begin,
                  function + "() moves an i32, i64, f32 or f64 value, got " + describe(*value));
      value.reset();
    }
    const ast::Expr &lane_expr = *e.operands[2];
    std::optional<Value> lane = try_expr(lane_expr);
    if (lane && !ir::is_int(lane->type)) {
      diag_.error(lane_expr.begin, std::string("the ") + operand + " of " + function +
                                       "() must be an integer, got " + describe(*lane));
      lane.reset();
    }
    if (!mask || !value || !lane)
      throw CheckFailed{};
    result =
        ir::WarpOp::make(op, convert(*value, value->type), convert(*lane, ir::ScalarType::I32));
  }
  ir::Var v = ir::make_var("warp", result.type());
  emit(ir::Declare::make(v, result));
  ++simt_effects_;
  return Value::of(ir::VarRef::make(v));
}

} // namespace loom::text
