// The loop forms that end some programs, each the form a lowering pass takes: the matmul form
// (the CPU's register blocks, ir/AutoSchedule.cpp), a task loop around a 1-D stencil (several
// steps a GPU launch, ir/StepsPerLaunch.cpp) and a loop whose iterations along a constant
// innermost dimension read the same elements (a GPU block's shared reads, ir/StageBlockReads.cpp).
#include "differential/GeneratorState.h"

#include "ir/Build.h"

namespace loom::difftest::gen {

Stmt Generator::stencil_loop() {
  std::vector<const ArrayInfo *> fits;
  for (const ArrayInfo &a : arrays_)
    if (a.output && a.shape.size() == 2 && a.shape[0] >= 2 &&
        (a.type == ScalarType::F32 || a.type == ScalarType::F64 || a.type == ScalarType::I32 ||
         a.type == ScalarType::I64))
      fits.push_back(&a);
  if (fits.empty())
    return Stmt();
  const ArrayInfo &a = *one_of(fits);
  const int64_t rows = std::min<int64_t>(a.shape[0], 2 + pick(2));
  const int64_t begin = pick(3), end = begin + 1 + pick(40);
  // A step that comes back to the row it reads would write the row its neighbours read.
  const int64_t step = rows > 2 ? 1 + pick(2) : 1;
  const int64_t reach = 1 + pick(2);
  Var t = make_var("s" + std::to_string(next_var_++), ScalarType::I64);
  Var i = make_var("i" + std::to_string(next_var_++), ScalarType::I64);
  const Expr last = bin(BinaryOp::Sub, ArrayExtent::make(a.param, 1), i64c(1));
  const Expr row = bin(BinaryOp::Mod, VarRef::make(t), i64c(rows));
  const Expr next = bin(BinaryOp::Mod, bin(BinaryOp::Add, VarRef::make(t), i64c(step)), i64c(rows));
  auto read = [&](Expr column) { return Load::make(a.type, a.param, {row, std::move(column)}); };
  const ScalarType v = value_type(a.type);
  Expr left = read(bin(BinaryOp::Max, bin(BinaryOp::Sub, VarRef::make(i), i64c(1)), i64c(0)));
  Expr right = read(bin(BinaryOp::Min, bin(BinaryOp::Add, VarRef::make(i), i64c(reach)), last));
  Expr u = is_float(v) ? FloatConst::make(v, 0.5) : IntConst::make(v, 3);
  Expr w = is_float(v) ? FloatConst::make(v, -0.25) : IntConst::make(v, -1);
  Context ctx;
  ctx.inputs_only = true; // the row's own values and inputs: no other array the loop writes
  scope_ = shared_;
  Expr source = expr(v, 2, ctx);
  scope_.clear();
  Expr value = bin(BinaryOp::Add,
                   bin(BinaryOp::Add, bin(BinaryOp::Mul, read(VarRef::make(i)), u),
                       bin(BinaryOp::Add, left, bin(BinaryOp::Mul, right, w))),
                   bin(BinaryOp::Add, source, Cast::make(v, VarRef::make(i))));
  Stmt body = ParallelFor::make({i}, {ArrayExtent::make(a.param, 1)},
                                Store::make(a.param, {next, VarRef::make(i)}, value));
  return For::make(t, i64c(begin), i64c(end), i64c(step), body);
}

Stmt Generator::shared_reads_loop() {
  // Its own arrays: A[m, C] written, X[m + T + b, 3] read, of one of the types shared memory holds.
  static const ScalarType types[] = {ScalarType::F32, ScalarType::F64, ScalarType::I32,
                                     ScalarType::I64};
  const ScalarType t = types[pick(4)];
  const int64_t m = 1 + pick(4), c = 64 + 18 * pick(3), count = 16 + pick(25), b = pick(3);
  const int a_param = static_cast<int>(params_.size());
  arrays_.push_back({a_param, t, {m, c}, true});
  params_.push_back({"rA", ParamKind::Array, t, 2, nullptr});
  const int x_param = static_cast<int>(params_.size());
  arrays_.push_back({x_param, t, {m + count + b, 3}, false});
  params_.push_back({"rX", ParamKind::Array, t, 2, nullptr});
  Var o = make_var("i" + std::to_string(next_var_++), ScalarType::I64);
  Var x = make_var("i" + std::to_string(next_var_++), ScalarType::I64);
  Var k = make_var("k" + std::to_string(next_var_++), ScalarType::I64);
  scope_ = shared_;
  scope_.push_back({o, false, true, 0, m - 1});
  scope_.push_back({x, false, true, 0, c - 1});
  Parallel par;
  par.own[a_param] = {VarRef::make(o), VarRef::make(x)};
  Context ctx;
  ctx.parallel = &par;
  ctx.inputs_only = true;
  Var acc = make_var("acc" + std::to_string(next_var_++), t);
  std::vector<Stmt> body;
  body.push_back(Declare::make(acc, expr(t, 1, ctx)));
  // The step: acc op X[o + k - b, d] * (x + 1) op X[k - b, 0], now and then with an expression of
  // the scope (the thread's own values, which stay loads of the global arrays).
  scope_.push_back({k, false, true, b, b + count - 1});
  const Expr row =
      bin(BinaryOp::Sub, bin(BinaryOp::Add, VarRef::make(o), VarRef::make(k)), i64c(b));
  Expr shared_value = bin(BinaryOp::Mul, Load::make(t, x_param, {row, i64c(pick(3))}),
                          Cast::make(t, bin(BinaryOp::Add, VarRef::make(x), i64c(1))));
  Expr other = Load::make(t, x_param, {bin(BinaryOp::Sub, VarRef::make(k), i64c(b)), i64c(0)});
  if (chance(0.5))
    other = bin(BinaryOp::Add, other, expr(t, 1, ctx));
  static const BinaryOp ops[] = {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Max, BinaryOp::Min};
  std::vector<Stmt> step = {Assign::make(
      acc, bin(ops[pick(4)], VarRef::make(acc), bin(BinaryOp::Add, shared_value, other)))};
  scope_.pop_back();
  body.push_back(For::make(k, i64c(b), i64c(b + count), i64c(1), Block::make(std::move(step))));
  body.push_back(Store::make(a_param, par.own[a_param], VarRef::make(acc)));
  scope_.clear();
  return ParallelFor::make({o, x}, {ArrayExtent::make(a_param, 0), i64c(c)},
                           Block::make(std::move(body)));
}

Stmt Generator::matmul_loop() {
  // Its arrays: the program's 2-D ones now and then, else three of its own (mostly of the types
  // register blocks take), of shapes that hold whole 4 x 8 blocks as well as edges.
  std::vector<const ArrayInfo *> outputs, inputs;
  for (const ArrayInfo &a : arrays_)
    if (a.shape.size() == 2)
      (a.output ? outputs : inputs).push_back(&a);
  if (outputs.empty() || inputs.empty() || chance(0.7)) {
    static const ScalarType blockable[] = {ScalarType::F32, ScalarType::F64, ScalarType::I32,
                                           ScalarType::I64};
    auto type = [&] { return chance(0.8) ? blockable[pick(4)] : array_type(); };
    const int64_t m = 1 + pick(12), n = 1 + pick(12), p = pick(10);
    auto add = [&](const char *name, std::vector<int64_t> shape, bool output) {
      const ScalarType t = type();
      arrays_.push_back({static_cast<int>(params_.size()), t, shape, output});
      params_.push_back({name, ParamKind::Array, t, 2, nullptr});
    };
    add("mA", {m, std::max<int64_t>(p, 1)}, false);
    add("mB", {std::max<int64_t>(p, 1), n}, false);
    add("mC", {m, n}, true);
    outputs = {&arrays_[arrays_.size() - 1]};
    inputs = {&arrays_[arrays_.size() - 3], &arrays_[arrays_.size() - 2]};
  }
  const ArrayInfo &C = *one_of(outputs), &A = *inputs[0], &B = *inputs.back();
  auto extent = [](const ArrayInfo &x, int dx, const ArrayInfo &y, int dy) {
    return bin(BinaryOp::Min, ArrayExtent::make(x.param, dx), ArrayExtent::make(y.param, dy));
  };
  Var i = make_var("i" + std::to_string(next_var_++), ScalarType::I64);
  Var j = make_var("i" + std::to_string(next_var_++), ScalarType::I64);
  Var k = make_var("k" + std::to_string(next_var_++), ScalarType::I64);
  scope_ = shared_;
  scope_.push_back({i, false, true, 0, std::min(C.shape[0], A.shape[0]) - 1});
  scope_.push_back({j, false, true, 0, std::min(C.shape[1], B.shape[1]) - 1});
  Parallel par;
  par.own[C.param] = {VarRef::make(i), VarRef::make(j)};
  Context ctx;
  ctx.parallel = &par;
  ScalarType t = chance(0.5) ? value_type(B.type) : any_type();
  if (t == ScalarType::Bool)
    t = ScalarType::I64;
  Var acc = make_var("acc" + std::to_string(next_var_++), t);
  std::vector<Stmt> body;
  body.push_back(Declare::make(acc, expr(t, 1, ctx)));
  // The step: acc op A[i, k] * B[k, j] (either factor now and then times an expression of the
  // scope), now and then a second update of the same form.
  scope_.push_back({k, false, true, 0, std::min(A.shape[1], B.shape[0]) - 1});
  static const BinaryOp ops[] = {BinaryOp::Add, BinaryOp::Add, BinaryOp::Add, BinaryOp::Sub,
                                 BinaryOp::Max};
  std::vector<Stmt> step;
  for (int u = 0, n = chance(0.2) ? 2 : 1; u < n; ++u) {
    Expr a = Cast::make(t, Load::make(A.type, A.param, {VarRef::make(i), VarRef::make(k)}));
    Expr b = Cast::make(t, Load::make(B.type, B.param, {VarRef::make(k), VarRef::make(j)}));
    if (chance(0.2))
      a = bin(BinaryOp::Mul, a, expr(t, 1, ctx));
    const BinaryOp op = ops[pick(is_complex(t) ? 4 : 5)];
    step.push_back(Assign::make(acc, bin(op, VarRef::make(acc), bin(BinaryOp::Mul, a, b))));
  }
  scope_.pop_back();
  body.push_back(For::make(k, i64c(0), extent(A, 1, B, 0), i64c(1), Block::make(std::move(step))));
  scope_.push_back({acc, true});
  body.push_back(
      Store::make(C.param, par.own[C.param], Cast::make(value_type(C.type), VarRef::make(acc))));
  scope_.clear();
  return ParallelFor::make({i, j}, {extent(C, 0, A, 0), extent(C, 1, B, 1)},
                           Block::make(std::move(body)));
}

} // namespace loom::difftest::gen
