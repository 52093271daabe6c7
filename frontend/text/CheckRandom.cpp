// The checker's random numbers: `g = random.philox(seed, stream[, block])` makes a generator (a
// few locals, frontend/PhiloxIR.h) and `g.uniform()`, `g.randint(lo, hi)`, ... draw from it.
// Calls of dotted names that are no module's functions come here.
#include "frontend/text/Checker.h"

#include <map>
#include <string>
#include <vector>

namespace loom::text {

namespace {

struct Method {
  std::optional<frontend::PhiloxDraw> draw; // none: randint
  size_t arity;
};

const std::map<std::string, Method> &methods() {
  static const std::map<std::string, Method> m = {
      {"next_u32", {frontend::PhiloxDraw::U32, 0}},
      {"uniform", {frontend::PhiloxDraw::UniformF64, 0}},
      {"uniform_f32", {frontend::PhiloxDraw::UniformF32, 0}},
      {"normal", {frontend::PhiloxDraw::NormalF64, 0}},
      {"normal_f32", {frontend::PhiloxDraw::NormalF32, 0}},
      {"randint", {std::nullopt, 2}}};
  return m;
}

// "g.uniform(), g.uniform_f32(), ... or g.randint(lo, hi)", for messages.
std::string method_list(const std::string &g) {
  return g + ".uniform(), " + g + ".uniform_f32(), " + g + ".normal(), " + g + ".normal_f32(), " +
         g + ".next_u32() or " + g + ".randint(lo, hi)";
}

// The modules whose functions are called by a dotted name (the parser's list).
bool is_module(const std::string &name) {
  return name == "math" || name == "cmath" || name == "cuda" || name == "shared" ||
         name == "atomic";
}

const char *const kArgumentNames[] = {"seed", "stream", "first block"};

} // namespace

void Checker::generator_declaration(const ast::Stmt &s) {
  const ast::Expr &target = *s.target;
  const ast::Expr &call = *s.value;
  const std::string &name = target.name;
  const Symbol *old = lookup(name);
  if (old && old->kind == Symbol::Kind::Poison)
    throw CheckFailed{};
  auto quietly = [&] {
    if (!old) {
      Symbol poison; // later uses of the name fail quietly
      poison.loc = target.loc;
      declare(name, poison);
    }
    throw CheckFailed{};
  };
  auto fail = [&](SourceLocation at, const std::string &message) {
    diag_.error(at, message);
    quietly();
  };
  if (s.compound)
    fail(s.op_loc, "random.philox() makes a generator; assign it to a new name with '='");
  if (s.annotation)
    fail(s.annotation->loc,
         "a generator takes no type annotation; write " + name + " = random.philox(seed, stream)");
  if (old)
    fail(target.loc, "'" + name + "' is already defined on line " + std::to_string(old->loc.line) +
                         "; random.philox() makes a new generator, which needs a new name");
  const size_t given = call.operands.size();
  if (given < 2 || given > 3)
    fail(call.begin, "random.philox() takes 2 or 3 arguments (seed, stream[, first block]), got " +
                         std::to_string(given));
  std::vector<ir::Expr> args;
  bool ok = true;
  for (size_t k = 0; k < given; ++k) {
    const ast::Expr &a = *call.operands[k];
    const std::string what =
        std::string("the ") + kArgumentNames[k] + " of random.philox() must be an integer";
    if (a.kind == ast::ExprKind::Name)
      if (const Symbol *sym = lookup(a.name); sym && sym->kind == Symbol::Kind::Array) {
        diag_.error(a.begin, what + ", got array '" + a.name + "'");
        ok = false;
        continue;
      }
    std::optional<Value> v = try_expr(a);
    if (v && (!ir::is_int(v->type) || v->type == ir::ScalarType::Bool)) {
      diag_.error(a.begin, what + ", got " + describe(*v));
      v.reset();
    }
    ok = ok && v.has_value();
    if (v)
      args.push_back(convert(*v, ir::ScalarType::U64));
  }
  if (!ok)
    quietly();
  if (args.size() == 2)
    args.push_back(ir::IntConst::make(ir::ScalarType::U64, 0));
  std::vector<ir::Stmt> out;
  auto g = std::make_shared<Generator>();
  g->state = frontend::philox_make(out, name, args[0], args[1], args[2]);
  g->parallel_loops = parallel_loops_;
  for (ir::Stmt &stmt : out)
    emit(std::move(stmt));
  Symbol sym;
  sym.kind = Symbol::Kind::Generator;
  sym.loc = target.loc;
  sym.generator = std::move(g);
  declare(name, sym);
}

std::optional<Value> Checker::method_call(const ast::Expr &e) {
  const size_t dot = e.name.find('.');
  if (dot == std::string::npos)
    return std::nullopt;
  const std::string root = e.name.substr(0, dot), method = e.name.substr(dot + 1);
  if (is_module(root))
    return std::nullopt;
  const Symbol *s = lookup(root);
  if (!s && root == "random") {
    if (method == "philox")
      error(e.begin, "random.philox() makes a generator, not a number; assign it to a name of its "
                     "own, as in g = random.philox(seed, i), and draw from that: " +
                         method_list("g"));
    error(e.begin, "unknown function '" + e.name +
                       "'; loom's random module has philox(seed, stream[, first block]), as in "
                       "g = random.philox(seed, i)");
  }
  if (!s) {
    ast::Expr name;
    name.kind = ast::ExprKind::Name;
    name.name = root;
    name.loc = name.begin = e.begin;
    unknown_name(name);
  }
  if (s->kind == Symbol::Kind::Poison)
    throw CheckFailed{};
  if (s->kind != Symbol::Kind::Generator)
    error(e.loc, "only functions can be called; this expression is not a function name");
  return draw(e, root, *s->generator, method);
}

bool Checker::is_draw(const ast::Expr &e) const {
  if (e.kind != ast::ExprKind::Call)
    return false;
  const size_t dot = e.name.find('.');
  if (dot == std::string::npos)
    return false;
  const Symbol *s = lookup(e.name.substr(0, dot));
  return s && s->kind == Symbol::Kind::Generator;
}

Value Checker::draw(const ast::Expr &e, const std::string &name, const Generator &g,
                    const std::string &method) {
  auto m = methods().find(method);
  if (m == methods().end())
    error(e.begin, "generator '" + name + "' has no method '" + method + "'; its methods are " +
                       method_list(name));
  const size_t given = e.operands.size();
  if (given != m->second.arity)
    error(e.begin, name + "." + method + "() takes " +
                       (m->second.arity == 0 ? std::string("no arguments")
                                             : std::string("2 arguments (lo, hi)")) +
                       ", got " + std::to_string(given));
  if (g.parallel_loops != parallel_loops_) {
    const std::string made =
        "generator '" + name + "' (line " + std::to_string(lookup(name)->loc.line) + ")";
    if (in_parallel_loop_)
      error(e.begin, made +
                         " was made outside this parallel loop, so every iteration would draw the "
                         "same numbers; make it inside the loop, a stream per iteration, as in " +
                         name + " = random.philox(seed, i)");
    error(e.begin, made + " was made before a parallel loop and is drawn from after it; each part "
                          "of a kernel between parallel loops runs as its own launch, so make the "
                          "generator after that loop");
  }
  std::vector<ir::Stmt> out;
  Value result;
  if (m->second.draw) {
    result = Value::of(frontend::philox_draw(out, g.state, *m->second.draw));
  } else {
    std::vector<Value> bounds;
    bool ok = true;
    for (const ast::ExprPtr &a : e.operands) {
      std::optional<Value> v = try_expr(*a);
      if (v && (!ir::is_int(v->type) || v->type == ir::ScalarType::Bool)) {
        diag_.error(a->begin,
                    "the bounds of " + name + ".randint() must be integers, got " + describe(*v));
        v.reset();
      }
      ok = ok && v.has_value();
      if (v)
        bounds.push_back(*v);
    }
    if (!ok)
      throw CheckFailed{};
    // The type of lo and hi, as for arithmetic between them (i32 for two literals that fit).
    const ir::ScalarType t = ir::promote_integer(arithmetic_type(bounds[0], bounds[1]));
    result = Value::of(
        frontend::philox_randint(out, g.state, convert(bounds[0], t), convert(bounds[1], t)));
  }
  for (ir::Stmt &stmt : out)
    emit(std::move(stmt));
  ++random_draws_;
  return result;
}

} // namespace loom::text
