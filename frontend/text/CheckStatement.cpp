// The checker's statements: assignments and stores, if/elif/else, range and parallel loops,
// while loops and the return of helpers. Each emits its IR into the current block.
#include "frontend/text/Checker.h"

#include "ir/Build.h"
#include "ir/ParallelRange.h"

#include <cstring>
#include <string>
#include <vector>

namespace loom::text {

namespace {

bool reads_an_array(const ir::Expr &e); // below

std::string plural(size_t n, const char *word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

} // namespace

ir::BinaryOp to_ir(ast::BinaryOp op) {
  static const ir::BinaryOp ops[] = {
      ir::BinaryOp::Add, ir::BinaryOp::Sub,    ir::BinaryOp::Mul,   ir::BinaryOp::Div,
      ir::BinaryOp::Mod, ir::BinaryOp::BitAnd, ir::BinaryOp::BitOr, ir::BinaryOp::BitXor,
      ir::BinaryOp::Shl, ir::BinaryOp::Shr,    ir::BinaryOp::Lt,    ir::BinaryOp::Le,
      ir::BinaryOp::Gt,  ir::BinaryOp::Ge,     ir::BinaryOp::Eq,    ir::BinaryOp::Ne,
      ir::BinaryOp::And, ir::BinaryOp::Or};
  return ops[static_cast<int>(op)];
}

// A block of statements in its own scope; `enclosing` names the construct around it ("a 'for'
// loop"), or is null for the kernel's body.
ir::Stmt Checker::block(const ast::Block &b, const char *enclosing) {
  const char *saved = enclosing_, *saved_not_for = not_for_;
  enclosing_ = enclosing;
  if (enclosing && std::strcmp(enclosing, for_loop) != 0)
    not_for_ = enclosing;
  open_scope();
  open_block();
  for (const ast::StmtPtr &s : b) {
    if (diag_.full())
      break;
    try {
      statement(*s, false);
    } catch (const CheckFailed &) {
    }
  }
  ir::Stmt result = close_block();
  close_scope();
  enclosing_ = saved;
  not_for_ = saved_not_for;
  return result;
}

void Checker::print_statement(const ast::Expr &call) {
  std::vector<ir::PrintItem> items;
  bool ok = true;
  for (const ast::ExprPtr &a : call.operands) {
    if (a->kind == ast::ExprKind::String) {
      items.push_back({a->name, ir::Expr(), ir::Expr()});
      continue;
    }
    if (a->kind == ast::ExprKind::Tuple) {
      diag_.error(a->begin, "print() takes text and scalar values, not a tuple; give the values "
                            "one by one");
      ok = false;
      continue;
    }
    std::optional<Value> v = try_expr(*a);
    if (!v) {
      ok = false;
      continue;
    }
    items.push_back({"", convert(*v, v->type), ir::Expr()});
  }
  if (!ok)
    throw CheckFailed{};
  emit(ir::Print::make(std::move(items)));
}

// `assert cond` / `assert cond, "message"`: Python's, its condition taken as `if` takes one.
void Checker::assert_statement(const ast::Stmt &s) {
  if (s.value->kind == ast::ExprKind::Tuple) {
    diag_.error(s.value->begin, "assert takes a condition, not a tuple (which Python takes as "
                                "always true); write assert cond, \"message\"");
    throw CheckFailed{};
  }
  std::optional<Value> cond = try_expr(*s.value);
  ir::AssertSite site;
  if (s.message) {
    if (s.message->kind != ast::ExprKind::String) {
      diag_.error(s.message->begin, "the message of an assertion is a string literal, as in "
                                    "assert i < n, \"i is in range\"");
      throw CheckFailed{};
    }
    site.message = s.message->name;
  } else {
    site.message = s.cond_text;
  }
  if (!cond)
    throw CheckFailed{};
  site.file = diag_.file();
  site.line = s.loc.line;
  std::vector<ir::Expr> indices;
  for (const auto &[name, index] : parallel_indices_)
    if (indices.size() < ir::max_assert_indices) {
      site.index_names.push_back(name);
      indices.push_back(index);
    }
  kernel_.assert_sites.push_back(std::move(site));
  emit(ir::Assert::make(convert(*cond, ir::ScalarType::Bool),
                        static_cast<int>(kernel_.assert_sites.size()) - 1, std::move(indices)));
}

void Checker::statement(const ast::Stmt &s, bool last) {
  switch (s.kind) {
  case ast::StmtKind::Pass:
    return;
  case ast::StmtKind::Assert:
    assert_statement(s);
    return;
  case ast::StmtKind::ExprStmt: {
    const ast::Expr &e = *s.value;
    if (e.kind == ast::ExprKind::Call) {
      auto f = functions_.find(e.name);
      if (f != functions_.end() && !f->second->is_kernel) {
        inline_helper(*f->second, e);
        return;
      }
      if (e.name == "print") {
        print_statement(e);
        return;
      }
      std::string simt = without_cuda(e.name);
      if (simt == "syncthreads") {
        barrier(e);
        return;
      }
      if (simt == "mma_sync") {
        mma_statement(e);
        return;
      }
      if (simt.rfind("atomic.", 0) == 0) {
        expr(e); // an atomic whose old value is not used
        return;
      }
      if (is_draw(e)) {
        expr(e); // a draw whose value is not used: the generator moves on
        return;
      }
      expr(e); // reports what is wrong with the call, if anything
    }
    error(e.begin, "this expression does nothing; a statement is an assignment, a call of a "
                   "helper function, or if, for, while or pass");
  }
  case ast::StmtKind::Assign:
    if (s.target->kind == ast::ExprKind::Tuple) {
      tuple_assignment(s);
    } else if (s.target->kind == ast::ExprKind::Subscript) {
      if (const Symbol *shared = shared_symbol(*s.target->operands[0]))
        shared_store(s, *shared);
      else
        store(s);
    } else {
      assignment(s);
    }
    return;
  case ast::StmtKind::If:
    if_statement(s);
    return;
  case ast::StmtKind::For:
    for_statement(s);
    return;
  case ast::StmtKind::While:
    while_statement(s);
    return;
  case ast::StmtKind::Return:
    return_statement(s, last);
    return;
  }
}

namespace {

std::string describe_symbol(const Symbol &s, const std::string &name) {
  switch (s.kind) {
  case Symbol::Kind::LoopIndex:
    return "cannot assign to loop index '" + name + "'";
  case Symbol::Kind::Scalar:
    return "cannot assign to parameter '" + name + "'; copy it into a local variable first";
  case Symbol::Kind::Array:
    return "cannot assign to array '" + name + "'; assign to its elements, as in " + name +
           "[i] = ...";
  case Symbol::Kind::Shape:
    return "cannot assign to shape symbol '" + name + "'; it is the extent of an array";
  case Symbol::Kind::Shared:
    return "cannot assign to shared array '" + name + "'; assign to its elements, as in " + name +
           "[i] = ...";
  case Symbol::Kind::Generator:
    return "cannot assign to generator '" + name + "'; draw from it (" + name +
           ".uniform(), ...), or make another one with a new name";
  default:
    return "";
  }
}

} // namespace

// `t = v`, `t: f32 = v` and `t += v`: declares a local the first time, assigns after.
void Checker::assignment(const ast::Stmt &s) {
  const ast::Expr &target = *s.target;
  const std::string &name = target.name;
  const Symbol *sym = lookup(name);
  auto poison_and_fail = [&] {
    Symbol p;
    p.loc = target.loc;
    declare(name, p);
    throw CheckFailed{};
  };
  if (s.value->kind == ast::ExprKind::Call && (without_cuda(s.value->name) == "shared.array" ||
                                               without_cuda(s.value->name) == "local.array"))
    return shared_declaration(s, s.value->name);
  if (s.value->kind == ast::ExprKind::Call && s.value->name == "random.philox" && !lookup("random"))
    return generator_declaration(s);
  if (sym && sym->kind == Symbol::Kind::Poison)
    throw CheckFailed{};
  if (s.annotation) {
    if (sym)
      error(target.loc, "'" + name + "' is already defined on line " +
                            std::to_string(sym->loc.line) +
                            "; a type annotation declares a new variable");
    std::optional<CheckedType> t = checked_type(*s.annotation, "'" + name + "'");
    if (t && t->is_array) {
      diag_.error(s.annotation->loc, "local variables are scalars; array types are only for "
                                     "parameters");
      t.reset();
    }
    std::optional<Value> v = try_expr(*s.value);
    if (!t || !v)
      poison_and_fail();
    ir::Var var = ir::make_var(name, t->scalar);
    emit(ir::Declare::make(var, assigned(*v, t->scalar, s.value->begin)));
    declare(name, Symbol::variable(Symbol::Kind::Local, target.loc, var));
    return;
  }
  if (!sym) {
    if (s.compound)
      unknown_name(target);
    std::optional<Value> v = try_expr(*s.value);
    if (!v)
      poison_and_fail();
    ir::Var var = ir::make_var(name, v->type);
    emit(ir::Declare::make(var, convert(*v, v->type)));
    declare(name, Symbol::variable(Symbol::Kind::Local, target.loc, var));
    return;
  }
  if (sym->kind != Symbol::Kind::Local)
    error(target.loc, describe_symbol(*sym, name));
  ir::Var var = sym->var;
  Value v = expr(*s.value);
  if (s.compound) {
    try {
      v = binary(to_ir(*s.compound), Value::of(ir::VarRef::make(var)), v);
    } catch (const TypeError &e) {
      error(s.op_loc, e.message);
    }
  }
  emit(ir::Assign::make(var, assigned(v, var->type, s.value->begin)));
}

// `x[i, j] = v` and `x[i] += v`.
void Checker::store(const ast::Stmt &s) {
  const ast::Expr &target = *s.target;
  int array = array_argument(*target.operands[0], "");
  std::vector<ir::Expr> idx = indices(target, array);
  Value v = expr(*s.value);
  const ir::Param &p = array_param(array);
  if (s.compound) {
    try {
      v = binary(to_ir(*s.compound), Value::of(ir::Load::make(p.type, array, idx)), v);
    } catch (const TypeError &e) {
      error(s.op_loc, e.message);
    }
  }
  // `x[i] += v`, `x[i] = x[i] * v`, `x[i] = min(x[i], v)`: a reduction (ir::store_or_reduce).
  // An f16 or bf16 element stores an f32 (rounded to 16 bits in memory).
  emit(ir::store_or_reduce(array, idx, assigned(v, ir::value_type(p.type), s.value->begin)));
}

void Checker::if_statement(const ast::Stmt &s) {
  std::optional<Value> cond = try_expr(*s.value);
  ir::Stmt then_case = block(s.body, "an 'if'");
  ir::Stmt else_case;
  if (!s.else_body.empty()) {
    else_case = block(s.else_body, "an 'if'");
    // An elif is the else branch itself, as the embedded DSL's elif_ builds it.
    const auto &stmts = else_case.as<ir::Block>()->stmts;
    if (s.else_body[0]->is_elif && stmts.size() == 1 && stmts[0].as<ir::IfThenElse>())
      else_case = stmts[0];
  }
  if (!cond)
    throw CheckFailed{};
  emit(ir::IfThenElse::make(convert(*cond, ir::ScalarType::Bool), then_case, else_case));
}

void Checker::while_statement(const ast::Stmt &s) {
  size_t before = blocks_.back().size();
  int effects = simt_effects_, draws = random_draws_;
  std::optional<Value> cond = try_expr(*s.value);
  if (cond && blocks_.back().size() != before) {
    diag_.error(s.value->begin,
                simt_effects_ != effects
                    ? "this condition has an atomic or a warp operation, which would run only "
                      "once, before the loop; compute the condition into a variable before the "
                      "loop and again at the end of its body"
                : random_draws_ != draws
                    ? "this condition draws from a random generator, which would happen only "
                      "once, before the loop; draw into a variable before the loop and again at "
                      "the end of its body"
                    : "this condition calls a helper function that has statements, which would "
                      "run only once, before the loop; compute the condition into a variable "
                      "instead");
    blocks_.back().resize(before);
    cond.reset();
  }
  ir::Stmt body = block(s.body, "a 'while' loop");
  if (!cond)
    throw CheckFailed{};
  emit(ir::While::make(convert(*cond, ir::ScalarType::Bool), body));
}

ir::Expr Checker::assigned(const Value &v, ir::ScalarType to, SourceLocation at) {
  try {
    return convert_assigned(v, to);
  } catch (const TypeError &e) {
    error(at, e.message);
  }
}

// A bound of range() or an extent of parallel(): an integer, as i64.
ir::Expr Checker::loop_bound(const ast::Expr &e, const char *what) {
  Value v = expr(e);
  if (!ir::is_int(v.type))
    error(e.begin, std::string(what) + " must be an integer, got " + describe(v));
  return convert(v, ir::ScalarType::I64);
}

void Checker::for_statement(const ast::Stmt &s) {
  const ast::Expr &iter = *s.value;
  if (iter.kind != ast::ExprKind::Call || (iter.name != "range" && iter.name != "parallel"))
    error(iter.begin, "a 'for' loop iterates over range(...) or parallel(...)");
  if (iter.name == "parallel")
    return parallel_loop(s, iter);
  bool ok = true;
  auto report = [&](SourceLocation at, const std::string &message) {
    diag_.error(at, message);
    ok = false;
  };
  if (s.loop_vars.size() != 1)
    report(s.loop_vars[1].loc, "range() gives one index per iteration; use parallel(N, M) or "
                               "nested loops for several");
  size_t n = iter.operands.size();
  std::vector<ir::Expr> bounds;
  if (n < 1 || n > 3) {
    report(iter.begin, "range() takes 1 to 3 arguments (end; begin, end; or begin, end, step), "
                       "got " +
                           std::to_string(n));
  } else {
    for (const ast::ExprPtr &a : iter.operands) {
      try {
        bounds.push_back(loop_bound(*a, "a bound of range()"));
      } catch (const CheckFailed &) {
        ok = false;
      }
    }
  }
  if (ok && n == 3) {
    const ir::IntConst *step = bounds[2].as<ir::IntConst>();
    if (step && step->value <= 0)
      report(iter.operands[2]->begin,
             "the step of range() must be positive, got " + std::to_string(step->value));
  }
  ir::Var var = ir::make_var(s.loop_vars[0].name, ir::ScalarType::I64);
  if (const Symbol *old = lookup(var->name); old && old->kind != Symbol::Kind::Poison)
    report(s.loop_vars[0].loc, "loop variable '" + var->name + "' hides '" + var->name +
                                   "' defined on line " + std::to_string(old->loc.line) +
                                   "; choose another name");
  open_scope();
  declare(var->name, Symbol::variable(Symbol::Kind::LoopIndex, s.loop_vars[0].loc, var));
  const int parallel_before = parallel_loops_;
  ir::Stmt body = block(s.body, for_loop);
  close_scope();
  // Around parallel loops the loop runs on the host, between launches.
  if (parallel_loops_ != parallel_before)
    for (size_t k = 0; k < bounds.size() && k < iter.operands.size(); ++k)
      if (reads_an_array(bounds[k]))
        report(iter.operands[k]->begin,
               "a bound of a 'for' loop around parallel loops cannot read array elements: loom "
               "runs that loop on the host, between the launches; use scalar parameters and "
               "array shapes");
  if (!ok)
    throw CheckFailed{};
  ir::Expr zero = ir::IntConst::make(ir::ScalarType::I64, 0);
  ir::Expr one = ir::IntConst::make(ir::ScalarType::I64, 1);
  if (n == 1)
    emit(ir::For::make(var, zero, bounds[0], one, body));
  else
    emit(ir::For::make(var, bounds[0], bounds[1], n == 3 ? bounds[2] : one, body));
}

void Checker::parallel_loop(const ast::Stmt &s, const ast::Expr &call) {
  bool ok = true;
  auto report = [&](SourceLocation at, const std::string &message) {
    diag_.error(at, message);
    ok = false;
  };
  const ast::Function &f = *frames_.back().function;
  if (!f.is_kernel)
    report(s.loc,
           "parallel loops are only allowed in kernels; '" + f.name + "' is a helper function");
  else if (kernel_.simt)
    report(s.loc, "parallel loops are not allowed in a SIMT kernel, where every thread runs the "
                  "body once; index with grid(1) (or threadIdx and blockIdx) and loop with "
                  "range()");
  else if (not_for_ && std::strcmp(not_for_, parallel_loop_name) == 0)
    report(s.loc, "parallel loops cannot nest; use range() for the inner loop");
  else if (not_for_)
    report(s.loc, std::string("a parallel loop must be at the top level of the kernel or in "
                              "'for' loops there, not inside ") +
                      not_for_);
  ++parallel_loops_;
  // Each dimension: an extent n ([0, n)), or a range (b, e) or (b, e, s) as a tuple; one loop
  // variable with two or three arguments is one range, as Numba's prange(b, e, s).
  size_t n = call.operands.size();
  std::vector<std::vector<const ast::Expr *>> dims;
  if (s.loop_vars.size() == 1 && (n == 2 || n == 3)) {
    dims.emplace_back();
    for (const ast::ExprPtr &a : call.operands)
      dims.back().push_back(a.get());
  } else {
    for (const ast::ExprPtr &a : call.operands) {
      dims.emplace_back();
      if (a->kind == ast::ExprKind::Tuple)
        for (const ast::ExprPtr &part : a->operands)
          dims.back().push_back(part.get());
      else
        dims.back().push_back(a.get());
    }
  }
  if (n < 1 || n > 3)
    report(call.begin, "parallel() takes 1 to 3 extents, got " + std::to_string(n));
  else if (s.loop_vars.size() != dims.size())
    report(s.loop_vars[0].loc, plural(s.loop_vars.size(), "loop variable") +
                                   " but parallel() has " + plural(n, "extent"));
  std::vector<ir::Expr> extents;
  std::vector<std::optional<ir::ParallelRange>> ranges;
  for (size_t d = 0; d < dims.size(); ++d) {
    const std::vector<const ast::Expr *> &parts = dims[d];
    try {
      if (parts.size() > 3) {
        report(parts[0]->begin,
               "a range of parallel() is (begin, end) or (begin, end, step), got " +
                   std::to_string(parts.size()) + " values");
        continue;
      }
      std::vector<ir::Expr> bounds;
      for (const ast::Expr *part : parts) {
        bounds.push_back(loop_bound(*part, "a bound of parallel()"));
        check_extent(bounds.back(), *part);
      }
      if (parts.size() == 1) {
        extents.push_back(bounds[0]);
        ranges.push_back(std::nullopt);
        continue;
      }
      ir::ParallelRange r{bounds[0], bounds[1], parts.size() == 3 ? bounds[2] : ir::i64(1)};
      if (const ir::IntConst *step = r.step.as<ir::IntConst>(); step && step->value == 0)
        report(parts[2]->begin, "the step of parallel() must not be 0");
      if (parts.size() == 3)
        ir::add_step_check(kernel_.call_checks, kernel_.params, r,
                           "parallel() on line " + std::to_string(parts[2]->begin.line));
      extents.push_back(ir::trip_count(r));
      ranges.push_back(r);
    } catch (const CheckFailed &) {
      ok = false;
    }
  }
  std::vector<ir::Var> vars;
  open_scope();
  for (size_t k = 0; k < s.loop_vars.size(); ++k) {
    const ast::LoopVar &v = s.loop_vars[k];
    vars.push_back(ir::make_var(v.name, ir::ScalarType::I64));
    if (const Symbol *old = lookup(v.name); old && old->kind != Symbol::Kind::Poison)
      report(v.loc, "loop variable '" + v.name + "' hides '" + v.name + "' defined on line " +
                        std::to_string(old->loc.line) + "; choose another name");
    Symbol sym = Symbol::variable(Symbol::Kind::LoopIndex, v.loc, vars.back());
    if (k < ranges.size() && ranges[k]) // the body sees begin + j * step
      sym.value = Value::of(ir::range_index(*ranges[k], vars.back()));
    parallel_indices_.push_back({v.name, k < ranges.size() && ranges[k]
                                             ? ir::range_index(*ranges[k], vars.back())
                                             : ir::VarRef::make(vars.back())});
    declare(v.name, sym);
  }
  struct PopIndices {
    std::vector<std::pair<std::string, ir::Expr>> &list;
    size_t size;
    ~PopIndices() { list.resize(size); }
  } pop_indices{parallel_indices_, parallel_indices_.size() - s.loop_vars.size()};
  ++parallel_bodies_;
  ++in_parallel_loop_;
  ir::Stmt body;
  try {
    body = block(s.body, parallel_loop_name);
  } catch (...) {
    --parallel_bodies_;
    --in_parallel_loop_;
    throw;
  }
  --parallel_bodies_;
  --in_parallel_loop_;
  close_scope();
  if (!ok)
    throw CheckFailed{};
  emit(ir::ParallelFor::make(std::move(vars), std::move(extents), body));
}

namespace {

bool reads_an_array(const ir::Expr &e) {
  if (!e.defined())
    return false;
  switch (e.kind()) {
  case ir::ExprKind::Load:
    return true;
  case ir::ExprKind::Unary:
    return reads_an_array(e.as<ir::Unary>()->a);
  case ir::ExprKind::Binary:
    return reads_an_array(e.as<ir::Binary>()->a) || reads_an_array(e.as<ir::Binary>()->b);
  case ir::ExprKind::Select: {
    auto *s = e.as<ir::Select>();
    return reads_an_array(s->cond) || reads_an_array(s->a) || reads_an_array(s->b);
  }
  case ir::ExprKind::Cast:
    return reads_an_array(e.as<ir::Cast>()->a);
  case ir::ExprKind::Call:
    for (const ir::Expr &a : e.as<ir::Call>()->args)
      if (reads_an_array(a))
        return true;
    return false;
  default:
    return false;
  }
}

} // namespace

// loom sizes a launch before the kernel runs, so an extent cannot read array elements.
void Checker::check_extent(const ir::Expr &e, const ast::Expr &at) {
  if (reads_an_array(e))
    error(at.begin, "an extent of parallel() cannot read array elements: loom sizes the launch "
                    "before the kernel runs; use scalar parameters and array shapes");
}

void Checker::return_statement(const ast::Stmt &s, bool last) {
  const ast::Function &f = *frames_.back().function;
  if (f.is_kernel)
    error(s.loc, "'return' is not allowed in a kernel; only helper functions return values");
  const Signature &sig = signatures_[&f];
  if (!sig.returns)
    error(s.loc, "'return' in helper '" + f.name +
                     "', which has no return type; declare one "
                     "(as in '-> f32') or remove the 'return'");
  if (!last)
    error(s.loc, "'return' must be the last statement of helper '" + f.name +
                     "' (helpers are inlined, so they cannot return early)");
  if (!s.value)
    error(s.loc, "helper '" + f.name + "' must return a " + ir::type_name(*sig.returns) + " value");
  Value v = expr(*s.value);
  returned_.back() = Value::of(assigned(v, *sig.returns, s.value->begin));
}

// `name = v` without annotation: declares a local of v's type the first time, assigns after.
void Checker::bind_name(const ast::Expr &target, const Value &v) {
  const std::string &name = target.name;
  const Symbol *sym = lookup(name);
  if (sym && sym->kind == Symbol::Kind::Poison)
    throw CheckFailed{};
  if (!sym) {
    ir::Var var = ir::make_var(name, v.type);
    emit(ir::Declare::make(var, convert(v, v.type)));
    declare(name, Symbol::variable(Symbol::Kind::Local, target.loc, var));
    return;
  }
  if (sym->kind != Symbol::Kind::Local)
    error(target.loc, describe_symbol(*sym, name));
  emit(ir::Assign::make(sym->var, assigned(v, sym->var->type, target.loc)));
}

} // namespace loom::text
