// The generator's program structure: parameters and arguments, the top level (parallel loops,
// task loops, serial groups) and statements.
#include "differential/GeneratorState.h"

#include "frontend/PhiloxIR.h"
#include "ir/Build.h"
#include "ir/Mutator.h"
#include "ir/ParallelRange.h"
#include "ir/Verifier.h"
#include "support/StridedLayout.h"

#include <cstring>

namespace loom::difftest {
namespace gen {

Program Generator::run(uint64_t seed) {
  Program p;
  p.seed = seed;
  p.kernel.name = "diff_" + std::to_string(seed);
  // Drawn from a generator of its own: the programs without complex numbers are the same as
  // before they were generated.
  std::mt19937_64 complex_rng(seed * 0x2545f4914f6cdd1dull + 0x632be59bd9b4e019ull);
  complex_ = std::uniform_real_distribution<double>(0, 1)(complex_rng) < options_.complex_fraction;
  // And so for 16-bit float values.
  std::mt19937_64 half_rng(seed * 0xd1342543de82ef95ull + 0x1b873593cc9e2d51ull);
  half_ = std::uniform_real_distribution<double>(0, 1)(half_rng) < options_.half_fraction;
  // And so for local arrays.
  std::mt19937_64 local_rng(seed * 0x9fb21c651e98df25ull + 0x3c6ef372fe94f82bull);
  local_ = std::uniform_real_distribution<double>(0, 1)(local_rng) < options_.local_fraction;
  locals_.clear();
  // And so for random number generators.
  std::mt19937_64 philox_rng(seed * 0xaf251af3b0f025b5ull + 0x7ca9c1d2bd7f18e1ull);
  philox_ = std::uniform_real_distribution<double>(0, 1)(philox_rng) < options_.philox_fraction;
  // And so for print statements.
  std::mt19937_64 print_rng(seed * 0x5851f42d4c957f2dull + 0x14057b7ef767814full);
  print_ = std::uniform_real_distribution<double>(0, 1)(print_rng) < options_.print_fraction;
  prints_ = 0;
  // And so for assertions.
  std::mt19937_64 assert_rng(seed * 0x94d049bb133111ebull + 0x2545f4914f6cdd1dull);
  assert_ = std::uniform_real_distribution<double>(0, 1)(assert_rng) < options_.assert_fraction;
  sites_.clear();
  // And so for recurrences along rows.
  std::mt19937_64 row_rng(seed * 0x369dea0f31a53f85ull + 0x5bd1e995c3a2d8f1ull);
  row_ = std::uniform_real_distribution<double>(0, 1)(row_rng) < options_.row_fraction;
  // And so for SIMT kernels.
  std::mt19937_64 simt_rng(seed * 0xbf58476d1ce4e5b9ull + 0x94d049bb133111ebull);
  const bool simt = std::uniform_real_distribution<double>(0, 1)(simt_rng) < options_.simt_fraction;
  make_params();
  std::mt19937_64 mma_rng(seed * 0x9e3779b97f4a7c15ull + 0xd6e8feb86659fd93ull);
  const bool mma = std::uniform_real_distribution<double>(0, 1)(mma_rng) < options_.mma_fraction;
  if (simt && mma) {
    simt_mma_kernel(p);
  } else if (simt) {
    simt_kernel(p);
  } else {
    std::vector<Stmt> top;
    sections(top, 1 + pick(options_.max_sections), 0);
    std::mt19937_64 matmul_rng(seed * 0xe7037ed1a0b428dbull + 0x8ebc6af09c88c6e3ull);
    matmul_ = std::uniform_real_distribution<double>(0, 1)(matmul_rng) < options_.matmul_fraction;
    if (matmul_)
      if (Stmt loop = matmul_loop(); loop.defined())
        top.push_back(loop);
    std::mt19937_64 stencil_rng(seed * 0xd1b54a32d192ed03ull + 0xaef17502108ef2d9ull);
    stencil_ =
        std::uniform_real_distribution<double>(0, 1)(stencil_rng) < options_.stencil_fraction;
    if (stencil_)
      if (Stmt loop = stencil_loop(); loop.defined())
        top.push_back(loop);
    std::mt19937_64 shared_rng(seed * 0x8cb92ba72f3d8dd7ull + 0xc2b2ae3d27d4eb4full);
    shared_reads_ =
        std::uniform_real_distribution<double>(0, 1)(shared_rng) < options_.shared_reads_fraction;
    if (shared_reads_)
      top.push_back(shared_reads_loop());
    p.kernel.body = Block::make(std::move(top));
  }
  p.kernel.params = params_;
  p.kernel.locals = locals_;
  p.kernel.assert_sites = sites_;
  verify(p.kernel); // a failure here is a bug in the generator
  for (size_t k = 0; k < params_.size(); ++k)
    p.args.push_back(argument(static_cast<int>(k)));
  return p;
}

ScalarType Generator::array_type() {
  if (complex_ && chance(0.3))
    return complex_type();
  if (chance(0.15))
    return chance(0.5) ? ScalarType::F16 : ScalarType::BF16;
  return any_type();
}

std::vector<int64_t> Generator::random_shape(int rank) {
  static const int max_extent[] = {0, 40, 8, 4};
  std::vector<int64_t> shape;
  for (int d = 0; d < rank; ++d)
    shape.push_back(1 + pick(max_extent[rank]));
  return shape;
}

void Generator::make_params() {
  // Arrays of a few shapes, so that one parallel loop can own several arrays of one shape.
  std::vector<std::vector<int64_t>> shapes;
  for (int k = 0, n = 1 + pick(2); k < n; ++k)
    shapes.push_back(random_shape(1 + pick(3)));
  int arrays = 2 + pick(4), scalars = pick(4);
  int outputs = 0;
  bool any_complex = false;
  for (int k = 0; k < arrays; ++k) {
    std::vector<int64_t> shape = chance(0.75) ? one_of(shapes) : random_shape(1 + pick(3));
    bool output = k == 0 || chance(0.5);
    outputs += output;
    std::string name = "a" + std::to_string(k);
    ScalarType t = array_type();
    if (complex_ && k == arrays - 1 && !any_complex) // a program with complex numbers has an array
      t = complex_type();
    any_complex = any_complex || is_complex(t);
    arrays_.push_back({static_cast<int>(params_.size()), t, shape, output});
    params_.push_back({name, ParamKind::Array, t, static_cast<int>(shape.size()), nullptr});
  }
  for (int k = 0; k < scalars; ++k) {
    ScalarType t = complex_ && chance(0.2) ? complex_type() : any_type();
    if (half_ && !is_half_float(t) && chance(0.2)) // more often than any_type() gives them
      t = half_type();
    std::string name = "s" + std::to_string(k);
    Var v = make_var(name, t);
    params_.push_back({name, ParamKind::Scalar, t, 0, v});
    shared_.push_back({v, false});
  }
}

InterpreterArg Generator::argument(int param) {
  const Param &p = params_[param];
  if (p.kind == ParamKind::Scalar)
    return InterpreterArg::of_scalar(values_.scalar(p.type));
  const ArrayInfo &a = array_info(param);
  Buffer b(p.type, a.shape);
  for (int64_t k = 0; k < b.size(); ++k)
    b.set(k, values_.element(p.type));
  return InterpreterArg::of_array(std::move(b));
}

const ArrayInfo &Generator::array_info(int param) const {
  for (const ArrayInfo &a : arrays_)
    if (a.param == param)
      return a;
  return arrays_.front();
}

void Generator::sections(std::vector<Stmt> &out, int count, int depth) {
  for (int s = 0; s < count; ++s) {
    if (chance(0.3))
      out.push_back(shared_local());
    if (depth < 2 && chance(0.12))
      out.push_back(task_loop(depth));
    else if (chance(0.7))
      out.push_back(parallel_loop());
    else
      serial_group(out);
  }
}

Stmt Generator::task_loop(int depth) {
  const int64_t begin = pick(2), step = 1 + pick(2), max_end = begin + 1 + pick(4);
  Expr end = i64c(max_end);
  if (chance(0.4)) {
    Context ctx;
    ctx.domain = true;
    end = bin(BinaryOp::Min, bin(BinaryOp::Max, i64_expr(ctx, 2), i64c(0)), i64c(max_end));
  }
  Var v = make_var("s" + std::to_string(next_var_++), ScalarType::I64);
  const size_t saved = shared_.size();
  shared_.push_back({v, false, true, begin, std::max(begin, max_end - 1)});
  std::vector<Stmt> body;
  sections(body, 1 + pick(3), depth + 1);
  shared_.resize(saved);
  return For::make(v, i64c(begin), end, i64c(step), Block::make(std::move(body)));
}

Stmt Generator::shared_local() {
  Context ctx;
  ctx.inputs_only = true;
  ScalarType t = any_type();
  Expr init = expr(t, 2, ctx);
  Var v = make_var("t" + std::to_string(next_var_++), t);
  shared_.push_back({v, false});
  return Declare::make(v, init);
}

void Generator::serial_group(std::vector<Stmt> &top) {
  scope_ = shared_;
  Context ctx;
  if (row_ && chance(0.4) && serial_rows(top)) {
    scope_.clear();
    return;
  }
  for (int k = 0, n = 1 + pick(options_.max_block); k < n; ++k)
    statement(ctx, top);
  scope_.clear(); // its variables may be reassigned: later loops must not read them
}

Stmt Generator::parallel_loop() {
  std::vector<const ArrayInfo *> outputs;
  for (const ArrayInfo &a : arrays_)
    if (a.output)
      outputs.push_back(&a);
  const ArrayInfo &primary = *one_of(outputs);
  const int rank = static_cast<int>(primary.shape.size());
  const int dims = 1 + pick(rank);
  std::vector<int> bound(rank); // array dimension -> which array dims the loop indices take
  for (int d = 0; d < rank; ++d)
    bound[d] = d;
  if (chance(0.3))
    std::shuffle(bound.begin(), bound.end(), rng_);
  bound.resize(dims);

  scope_ = shared_;
  std::vector<Var> vars;
  std::vector<Expr> extents;
  std::vector<Expr> own(rank);
  for (int k = 0; k < dims; ++k) {
    int d = bound[k];
    Var v = make_var("i" + std::to_string(next_var_++), ScalarType::I64);
    Expr extent = ArrayExtent::make(primary.param, d);
    if (chance(0.15)) { // a smaller domain from a scalar: never negative, never past the array
      Context ctx;
      ctx.domain = true;
      Expr n = i64_expr(ctx, 2);
      extent = bin(BinaryOp::Min, extent, bin(BinaryOp::Max, n, i64c(0)));
    }
    Expr index = VarRef::make(v);
    if (chance(0.2)) { // reversed: extent - 1 - i
      index = bin(BinaryOp::Sub, bin(BinaryOp::Sub, ArrayExtent::make(primary.param, d), i64c(1)),
                  index);
    } else if (chance(0.2)) { // a range, parallel(b, e, s): forwards from b or backwards
      static const int64_t steps[] = {1, 2, 3, -1, -2};
      const int64_t step = steps[pick(5)], last = primary.shape[d] - 1;
      ParallelRange r = step > 0 ? ParallelRange{i64c(pick(std::min<int64_t>(last, 2) + 1)),
                                                 ArrayExtent::make(primary.param, d), i64c(step)}
                                 : ParallelRange{i64c(last), i64c(-1), i64c(step)};
      extent = trip_count(r);
      index = range_index(r, v);
    }
    vars.push_back(v);
    extents.push_back(extent);
    own[d] = index;
    scope_.push_back({v, false, true, 0, primary.shape[d] - 1});
  }

  Parallel par;
  par.own[primary.param] = own;
  for (const ArrayInfo *a : outputs) // more arrays of the same shape, at the same index
    if (a != &primary && a->shape == primary.shape && chance(0.5))
      par.own[a->param] = own;
  for (const ArrayInfo *a : outputs)
    // A parallel loop cannot reduce into an f16 or bf16 element (lower_reductions refuses it).
    if (!par.own.count(a->param) && a->type != ScalarType::Bool && !is_half_float(a->type) &&
        chance(0.35)) {
      static const ReduceOp int_ops[] = {ReduceOp::Add, ReduceOp::Add, ReduceOp::Mul, ReduceOp::Min,
                                         ReduceOp::Max};
      static const ReduceOp float_ops[] = {ReduceOp::Add, ReduceOp::Add, ReduceOp::Min,
                                           ReduceOp::Max, ReduceOp::Mul};
      // Float products are rare: their order moves them too far to compare.
      // Complex numbers: += only (a complex product has no per-worker or atomic form).
      par.reduce_into[a->param] = is_complex(a->type) ? ReduceOp::Add
                                  : is_float(a->type) ? float_ops[pick(chance(0.1) ? 5 : 4)]
                                                      : int_ops[pick(5)];
    }

  Context ctx;
  ctx.parallel = &par;
  std::vector<Stmt> body;
  if (local_)
    for (int k = 0, n = pick(3); k < n; ++k)
      local_array(par, ctx, body);
  bool full = dims == rank && std::is_sorted(bound.begin(), bound.end());
  if (full && chance(0.5)) // an unconditional first store: "fully overwritten" for copies
    body.push_back(Store::make(primary.param, own, expr(value_type(primary.type), 3, ctx)));
  for (int k = 0, n = 1 + pick(options_.max_block); k < n; ++k)
    statement(ctx, body);
  if (row_ && dims < rank && chance(0.5))
    row_recurrence(primary, bound, own, ctx, body);
  scope_.clear();
  return ParallelFor::make(vars, extents, Block::make(std::move(body)));
}

// Serial statements that walk an output array of rank 2 or 3 row by row, each row from the one
// c rows before (c of 1 to 3) and values of inputs: for k in range(c, rows): for j in
// range(columns): a[k, j, ..] = a[k - c, j, ..] * u + e (a third dimension at a constant). Its
// loop over j has independent iterations (the GPU splits it among a block's threads,
// ir/SerialBlock.cpp) and it reads back what it stored (the block keeps the array in shared
// memory, ir/StagePrivate.cpp). False where no array fits.
bool Generator::serial_rows(std::vector<Stmt> &top) {
  std::vector<const ArrayInfo *> fits;
  for (const ArrayInfo &a : arrays_)
    if (a.output && a.shape.size() >= 2 && a.shape[0] >= 2 &&
        (a.type == ScalarType::F32 || a.type == ScalarType::F64 || a.type == ScalarType::I32 ||
         a.type == ScalarType::I64))
      fits.push_back(&a);
  if (fits.empty())
    return false;
  const ArrayInfo &a = *one_of(fits);
  const int64_t c = 1 + pick(std::min<int>(3, int(a.shape[0]) - 1));
  Var k = make_var("k" + std::to_string(next_var_++), ScalarType::I64);
  Var j = make_var("k" + std::to_string(next_var_++), ScalarType::I64);
  std::vector<Expr> at = {VarRef::make(k), VarRef::make(j)};
  std::vector<Expr> before = {bin(BinaryOp::Sub, VarRef::make(k), i64c(c)), VarRef::make(j)};
  for (size_t d = 2; d < a.shape.size(); ++d) {
    Expr i = i64c(pick(a.shape[d]));
    at.push_back(i);
    before.push_back(i);
  }
  const size_t saved = scope_.size();
  scope_.push_back({k, false, true, c, a.shape[0] - 1, true});
  scope_.push_back({j, false, true, 0, a.shape[1] - 1, true});
  Context ctx;
  ctx.inputs_only = true;
  const ScalarType t = value_type(a.type);
  Expr u = is_float(t) ? FloatConst::make(t, chance(0.5) ? 0.5 : -0.75) : IntConst::make(t, 3);
  Expr value = bin(BinaryOp::Add, bin(BinaryOp::Mul, Load::make(a.type, a.param, before), u),
                   expr(t, 2, ctx));
  scope_.resize(saved);
  top.push_back(
      For::make(k, i64c(c), i64c(a.shape[0]), i64c(1),
                For::make(j, i64c(0), i64c(a.shape[1]), i64c(1), Store::make(a.param, at, value))));
  return true;
}

// A recurrence along a free dimension d of the loop's own array: for k in range(c, extent of d)
// (c of 1 to 3, constant bounds), a[.., k, ..] = a[.., k - c, ..] * u + e, the other free
// dimensions at constants, e any expression (it may read k). The iteration writes its row and
// reads back what it wrote (ir/StagePrivate.cpp keeps rows of at most 32 in a local array on the
// GPU).
void Generator::row_recurrence(const ArrayInfo &a, const std::vector<int> &bound,
                               const std::vector<Expr> &own, const Context &ctx,
                               std::vector<Stmt> &body) {
  if (a.type != ScalarType::F32 && a.type != ScalarType::F64 && a.type != ScalarType::I32 &&
      a.type != ScalarType::I64)
    return;
  std::vector<int> free;
  for (int d = 0; d < static_cast<int>(a.shape.size()); ++d)
    if (std::find(bound.begin(), bound.end(), d) == bound.end())
      free.push_back(d);
  const int d = one_of(free);
  const int64_t c = 1 + pick(3);
  if (a.shape[d] <= c)
    return;
  Var k = make_var("k" + std::to_string(next_var_++), ScalarType::I64);
  std::vector<Expr> at = own, before = own;
  for (int e : free) {
    Expr i = e == d ? VarRef::make(k) : i64c(pick(a.shape[e]));
    at[e] = i;
    before[e] = e == d ? bin(BinaryOp::Sub, VarRef::make(k), i64c(c)) : i;
  }
  const size_t saved = scope_.size();
  scope_.push_back({k, false, true, c, a.shape[d] - 1, true});
  const ScalarType t = value_type(a.type);
  Expr u = is_float(t) ? FloatConst::make(t, chance(0.5) ? 0.5 : -0.75) : IntConst::make(t, 3);
  Expr value = bin(BinaryOp::Add, bin(BinaryOp::Mul, Load::make(a.type, a.param, before), u),
                   expr(t, 2, ctx));
  scope_.resize(saved);
  body.push_back(For::make(k, i64c(c), i64c(a.shape[d]), i64c(1), Store::make(a.param, at, value)));
}

void Generator::local_array(Parallel &par, const Context &ctx, std::vector<Stmt> &body) {
  ScalarType t = chance(0.3) ? kOtherInts[pick(6)] : kTypes[pick(5)];
  std::vector<int64_t> extents;
  for (int d = 0, rank = 1 + pick(2); d < rank; ++d)
    extents.push_back(1 + pick(rank == 1 ? 12 : 5));
  Shared a = make_local_array("t" + std::to_string(locals_.size()), t, extents);
  // for k0 in 0 .. e0: for k1 in 0 .. e1: t[k0, k1] = value
  std::vector<Var> ks;
  const size_t saved = scope_.size();
  for (size_t d = 0; d < extents.size(); ++d) {
    ks.push_back(make_var("k" + std::to_string(next_var_++), ScalarType::I64));
    scope_.push_back({ks.back(), false, true, 0, extents[d] - 1});
  }
  std::vector<Expr> idx;
  for (const Var &k : ks)
    idx.push_back(VarRef::make(k));
  Stmt s = SharedStore::make(a, idx, expr(t, 2, ctx));
  for (size_t d = extents.size(); d-- > 0;)
    s = For::make(ks[d], i64c(0), i64c(extents[d]), i64c(1), s);
  scope_.resize(saved);
  body.push_back(s);
  locals_.push_back(a);
  par.locals.push_back(a);
}

Stmt Generator::local_store(const Context &ctx) {
  const Shared &a = one_of(ctx.parallel->locals);
  std::vector<Expr> idx;
  for (int64_t e : a->extents)
    idx.push_back(index_within(e, i64c(e), ctx));
  return SharedStore::make(a, idx, expr(a->type, options_.max_expr_depth, ctx));
}

Expr Generator::local_load(ScalarType t, const Context &ctx) {
  std::vector<Shared> fitting;
  for (const Shared &a : ctx.parallel->locals)
    if (a->type == t)
      fitting.push_back(a);
  if (fitting.empty())
    return Expr();
  const Shared &a = one_of(fitting);
  ++index_nesting_;
  std::vector<Expr> idx;
  for (int64_t e : a->extents)
    idx.push_back(index_within(e, i64c(e), ctx));
  --index_nesting_;
  return SharedLoad::make(a, idx);
}

Stmt Generator::print_statement(const Context &ctx) {
  static const ScalarType exact[] = {ScalarType::Bool, ScalarType::I32, ScalarType::I64,
                                     ScalarType::U8,   ScalarType::I16, ScalarType::U64};
  std::vector<PrintItem> items{{"p" + std::to_string(prints_++), Expr(), Expr()}};
  for (int k = 0, n = 1 + pick(3); k < n; ++k)
    items.push_back({"", expr(exact[pick(6)], 2, ctx), Expr()});
  return Print::make(std::move(items));
}

Stmt Generator::assert_statement(const Context &ctx) {
  sites_.push_back({"a" + std::to_string(sites_.size()), "generated", 1});
  return Assert::make(bool_expr(2, ctx), static_cast<int>(sites_.size()) - 1);
}

// A SIMT kernel: each of grid x block threads stores an expression into a shared array at its
// thread index t (the array static of the block's size, or dynamic and sized at launch), the block
// waits at a barrier, and each thread reads the element k places on (another thread's) and stores
// an expression of it into a0 at its global index g, when a0 has that many elements (a0's other
// elements keep their values). Expressions read the input arrays only, so no thread reads what
// another writes but through the shared array, after the barrier.
void Generator::simt_kernel(Program &p) {
  static const ScalarType types[] = {ScalarType::I32, ScalarType::I64, ScalarType::F32,
                                     ScalarType::F64};
  const unsigned block = 32u << pick(3), grid = 1 + static_cast<unsigned>(pick(3));
  const ScalarType t = types[pick(4)];
  const bool dynamic = chance(0.5);
  Shared sh = dynamic ? make_dynamic_shared_array("sh", t)
                      : make_shared_array("sh", t, {static_cast<int64_t>(block)});
  p.kernel.schedule.mapping = Mapping::Simt;
  p.kernel.shared = {sh};
  p.simt_grid = grid;
  p.simt_block = block;
  p.dynamic_shared_bytes = dynamic ? int64_t(block) * byte_size(t) : 0;

  Context ctx;
  ctx.inputs_only = true;
  std::vector<Stmt> body;
  Var tv = make_var("t", ScalarType::I64), gv = make_var("g", ScalarType::I64);
  body.push_back(Declare::make(tv, reg_i64(Reg::ThreadIdx, 0)));
  body.push_back(Declare::make(
      gv,
      bin(BinaryOp::Add, bin(BinaryOp::Mul, reg_i64(Reg::BlockIdx, 0), reg_i64(Reg::BlockDim, 0)),
          VarRef::make(tv))));
  shared_.push_back({tv, false, true, 0, int64_t(block) - 1});
  shared_.push_back({gv, false, true, 0, int64_t(grid) * block - 1});
  // Each thread's own value, g among its terms, so that what another thread reads back is its.
  body.push_back(
      SharedStore::make(sh, {VarRef::make(tv)},
                        bin(BinaryOp::Add, Cast::make(t, VarRef::make(gv)), expr(t, 3, ctx))));
  body.push_back(Barrier::make());
  Var vv = make_var("v", t);
  const int64_t k = pick(static_cast<int>(block));
  body.push_back(Declare::make(
      vv, SharedLoad::make(sh, {bin(BinaryOp::Mod, bin(BinaryOp::Add, VarRef::make(tv), i64c(k)),
                                    i64c(block))})));
  shared_.push_back({vv, false});
  // a0 at g, its dimensions from g's digits.
  const ArrayInfo &out = arrays_.front();
  Expr total = i64c(1);
  for (int64_t e : out.shape)
    total = bin(BinaryOp::Mul, total, i64c(e));
  std::vector<Expr> idx(out.shape.size());
  Expr rest = VarRef::make(gv);
  for (size_t d = out.shape.size(); d-- > 0;) {
    idx[d] = bin(BinaryOp::Mod, rest, i64c(out.shape[d]));
    rest = bin(BinaryOp::Div, rest, i64c(out.shape[d]));
  }
  const ScalarType vt = value_type(out.type);
  Expr read = Cast::make(vt, VarRef::make(vv));
  Expr stored =
      vt == ScalarType::Bool || is_complex(vt) ? read : bin(BinaryOp::Add, read, expr(vt, 3, ctx));
  body.push_back(IfThenElse::make(bin(BinaryOp::Lt, VarRef::make(gv), total),
                                  Store::make(out.param, idx, stored)));
  p.kernel.body = Block::make(std::move(body));
}

// A SIMT kernel on the tensor cores: the threads of a block fill a 16 x 16 block of an f16 or bf16
// shared array A (rows padded to 24 elements) and a 16 x 8 block of B (k-major, padded to 16),
// each element an f32 expression of the inputs and the thread's index, rounded on the store; after
// a barrier each warp multiplies them (ir::Mma) into four accumulators per lane, each started from
// an expression, and stores them into a0 at 4g + r, where a0 has that many elements.
void Generator::simt_mma_kernel(Program &p) {
  const unsigned warps = 1 + static_cast<unsigned>(pick(2)), block = 32 * warps,
                 grid = 1 + static_cast<unsigned>(pick(3));
  const ScalarType h = chance(0.5) ? ScalarType::F16 : ScalarType::BF16;
  Shared as = make_shared_array("As", h, {16, 24}), bs = make_shared_array("Bs", h, {16, 16});
  p.kernel.schedule.mapping = Mapping::Simt;
  p.kernel.shared = {as, bs};
  p.simt_grid = grid;
  p.simt_block = block;

  Context ctx;
  ctx.inputs_only = true;
  std::vector<Stmt> body;
  Var tv = make_var("t", ScalarType::I64), gv = make_var("g", ScalarType::I64);
  body.push_back(Declare::make(tv, reg_i64(Reg::ThreadIdx, 0)));
  body.push_back(Declare::make(
      gv,
      bin(BinaryOp::Add, bin(BinaryOp::Mul, reg_i64(Reg::BlockIdx, 0), reg_i64(Reg::BlockDim, 0)),
          VarRef::make(tv))));
  shared_.push_back({tv, false, true, 0, int64_t(block) - 1});
  shared_.push_back({gv, false, true, 0, int64_t(grid) * block - 1});
  // Element x = t + q * block of each block (16 columns of A's rows, 8 of B's), q unrolled.
  auto fill = [&](const Shared &s, int64_t columns) {
    for (int64_t q = 0; q < 16 * columns / int64_t(block); ++q) {
      Expr x = bin(BinaryOp::Add, VarRef::make(tv), i64c(q * int64_t(block)));
      Expr value = bin(BinaryOp::Add, Cast::make(ScalarType::F32, bin(BinaryOp::Mod, x, i64c(7))),
                       expr(ScalarType::F32, 2, ctx));
      body.push_back(SharedStore::make(
          s, {bin(BinaryOp::Div, x, i64c(columns)), bin(BinaryOp::Mod, x, i64c(columns))}, value));
    }
  };
  fill(as, 16);
  fill(bs, 8);
  body.push_back(Barrier::make());
  std::array<Var, 4> acc;
  for (int r = 0; r < 4; ++r) {
    acc[size_t(r)] = make_var("acc", ScalarType::F32);
    body.push_back(Declare::make(acc[size_t(r)], expr(ScalarType::F32, 2, ctx)));
  }
  body.push_back(Mma::make(as, {i64c(0), i64c(0)}, true, bs, {i64c(0), i64c(0)}, false, acc));
  // a0 at 4g + r, its dimensions from that index's digits.
  const ArrayInfo &out = arrays_.front();
  Expr total = i64c(1);
  for (int64_t e : out.shape)
    total = bin(BinaryOp::Mul, total, i64c(e));
  const ScalarType vt = value_type(out.type);
  for (int r = 0; r < 4; ++r) {
    Expr at = bin(BinaryOp::Add, bin(BinaryOp::Mul, VarRef::make(gv), i64c(4)), i64c(r));
    std::vector<Expr> idx(out.shape.size());
    Expr rest = at;
    for (size_t d = out.shape.size(); d-- > 0;) {
      idx[d] = bin(BinaryOp::Mod, rest, i64c(out.shape[d]));
      rest = bin(BinaryOp::Div, rest, i64c(out.shape[d]));
    }
    body.push_back(IfThenElse::make(
        bin(BinaryOp::Lt, at, total),
        Store::make(out.param, idx, Cast::make(vt, VarRef::make(acc[size_t(r)])))));
  }
  p.kernel.body = Block::make(std::move(body));
}

Stmt Generator::block(Context ctx) {
  size_t saved = scope_.size();
  ctx.nesting++;
  std::vector<Stmt> stmts;
  for (int k = 0, n = 1 + pick(options_.max_block / 2 + 1); k < n; ++k)
    statement(ctx, stmts);
  scope_.resize(saved);
  return Block::make(std::move(stmts));
}

void Generator::statement(const Context &ctx, std::vector<Stmt> &out) {
  const bool nest = ctx.nesting < options_.max_nesting;
  const bool loop = nest && ctx.trips < 64;
  // Only where the loop has local arrays (so that the other programs draw nothing more).
  if (ctx.parallel && !ctx.parallel->locals.empty() && chance(0.2)) {
    out.push_back(local_store(ctx));
    return;
  }
  if (print_ && chance(0.08)) {
    out.push_back(print_statement(ctx));
    return;
  }
  if (assert_ && chance(0.05)) {
    out.push_back(assert_statement(ctx));
    return;
  }
  if (philox_ && chance(0.12)) {
    philox_draws(ctx, out);
    return;
  }
  for (;;) {
    Stmt s;
    switch (pick(11)) {
    case 0:
    case 1:
      s = declare(ctx);
      break;
    case 2:
      s = assign(ctx);
      break;
    case 3:
    case 4:
    case 5:
      s = store(ctx);
      break;
    case 6:
      if (nest) {
        Expr c = expr(ScalarType::Bool, 3, ctx);
        Stmt then_case = block(ctx);
        s = IfThenElse::make(c, then_case, chance(0.5) ? block(ctx) : Stmt());
      }
      break;
    case 7:
      if (loop)
        s = for_loop(ctx);
      break;
    case 8:
      if (loop) {
        while_loop(ctx, out);
        return;
      }
      break;
    case 9:
      if (loop && reduction(ctx, out))
        return;
      break;
    case 10:
      s = reduce(ctx);
      break;
    }
    if (s.defined()) {
      out.push_back(s);
      return;
    }
  }
}

Stmt Generator::declare(const Context &ctx) {
  ScalarType t = any_type();
  Var v = make_var("v" + std::to_string(next_var_++), t);
  Stmt s = Declare::make(v, expr(t, options_.max_expr_depth, ctx));
  scope_.push_back({v, true});
  return s;
}

Stmt Generator::assign(const Context &ctx) {
  std::vector<const VarInfo *> targets;
  for (const VarInfo &v : scope_)
    if (v.assignable)
      targets.push_back(&v);
  if (targets.empty())
    return Stmt();
  const Var &v = one_of(targets)->var;
  return Assign::make(v, expr(v->type, options_.max_expr_depth, ctx));
}

Stmt Generator::store(const Context &ctx) {
  std::vector<int> writable;
  for (const ArrayInfo &a : arrays_)
    if (ctx.parallel ? ctx.parallel->own.count(a.param) > 0 : a.output)
      writable.push_back(a.param);
  if (writable.empty())
    return Stmt();
  int array = one_of(writable);
  std::vector<Expr> idx = indices(array, ctx);
  return Store::make(array, idx,
                     expr(value_type(params_[array].type), options_.max_expr_depth, ctx));
}

Stmt Generator::reduce(const Context &ctx) {
  std::vector<int> targets;
  if (ctx.parallel) {
    for (const auto &[array, op] : ctx.parallel->reduce_into)
      targets.push_back(array);
  } else {
    for (const ArrayInfo &a : arrays_)
      if (a.output && a.type != ScalarType::Bool)
        targets.push_back(a.param);
  }
  if (targets.empty())
    return Stmt();
  int array = one_of(targets);
  const ArrayInfo &info = array_info(array);
  // Outside parallel loops complex numbers take += and *= (they are not ordered).
  ReduceOp op = ctx.parallel ? ctx.parallel->reduce_into.at(array)
                             : static_cast<ReduceOp>(pick(is_complex(info.type) ? 2 : 4));
  std::vector<Expr> idx;
  if (ctx.parallel && chance(0.6)) {
    for (int64_t extent : info.shape)
      idx.push_back(i64c(pick(extent)));
  } else {
    idx = indices(array, ctx);
  }
  return Reduce::make(op, array, idx, expr(value_type(info.type), options_.max_expr_depth, ctx));
}

Stmt Generator::for_loop(Context ctx) {
  int64_t begin = pick(3), step = chance(0.7) ? 1 : 1 + pick(3);
  int64_t max_end = begin + pick(8);
  Expr end = i64c(max_end);
  const bool clamped = chance(0.4);
  if (clamped) { // data-dependent: clamped, still at most max_end
    Expr n = i64_expr(ctx, 2);
    end = bin(BinaryOp::Min, n, i64c(max_end));
  }
  Var v = make_var("k" + std::to_string(next_var_++), ScalarType::I64);
  size_t saved = scope_.size();
  scope_.push_back({v, false, true, begin, std::max(begin, max_end - 1), !clamped});
  ctx.trips *= std::max<int64_t>(1, (max_end - begin + step - 1) / step);
  Stmt body = block(ctx);
  scope_.resize(saved);
  return For::make(v, i64c(begin), end, i64c(step), body);
}

void Generator::while_loop(Context ctx, std::vector<Stmt> &out) {
  Var c = make_var("c" + std::to_string(next_var_++), ScalarType::I64);
  int64_t bound = 1 + pick(5);
  Stmt init = Declare::make(c, i64c(0));
  scope_.push_back({c, false});
  Expr cond = bin(BinaryOp::And, bin(BinaryOp::Lt, VarRef::make(c), i64c(bound)),
                  expr(ScalarType::Bool, 2, ctx));
  ctx.trips *= bound;
  Stmt body = block(ctx);
  Stmt step = Assign::make(c, bin(BinaryOp::Add, VarRef::make(c), i64c(1)));
  out.push_back(init);
  out.push_back(While::make(cond, Block::make({body, step})));
}

bool Generator::reduction(const Context &ctx, std::vector<Stmt> &out) {
  std::vector<const ArrayInfo *> sources;
  for (const ArrayInfo &a : arrays_)
    if (!ctx.parallel || (!ctx.parallel->own.count(a.param) && !ctx.parallel->reduced(a.param)))
      if (!ctx.inputs_only || !a.output)
        sources.push_back(&a);
  if (sources.empty())
    return false;
  const ArrayInfo &src = *one_of(sources);
  int dim = pick(src.shape.size());
  ScalarType t = chance(0.5) ? value_type(src.type) : any_type();
  if (t == ScalarType::Bool)
    t = ScalarType::I64;
  static const BinaryOp ops[] = {BinaryOp::Add, BinaryOp::Add, BinaryOp::Mul,
                                 BinaryOp::Max, BinaryOp::Min, BinaryOp::BitXor};
  BinaryOp op = ops[pick(is_complex(t) ? 3 : is_float(t) ? 5 : 6)];
  Var acc = make_var("acc" + std::to_string(next_var_++), t);
  Var k = make_var("k" + std::to_string(next_var_++), ScalarType::I64);
  Stmt init = Declare::make(acc, expr(t, 1, ctx));
  // Sometimes up to an enclosing loop's variable v (k in range(v + 1), v of constant bounds
  // within the dimension, at most 15): a count that varies but is at most 16, which the GPU runs
  // whole (ir/ShortLoops.cpp).
  Expr end = ArrayExtent::make(src.param, dim);
  int64_t last = src.shape[dim] - 1;
  std::vector<std::pair<Var, int64_t>> outer;
  for (const VarInfo &s : scope_)
    if (s.constant_bounds && s.lo >= 0 && s.hi >= 1 && s.hi <= 15 && s.hi < src.shape[dim])
      outer.emplace_back(s.var, s.hi);
  if (!outer.empty() && chance(0.8)) {
    const auto &[v, hi] = one_of(outer);
    end = bin(BinaryOp::Add, VarRef::make(v), i64c(1));
    last = hi;
  }
  scope_.push_back({k, false, true, 0, last});
  std::vector<Expr> idx;
  for (int d = 0; d < static_cast<int>(src.shape.size()); ++d)
    idx.push_back(d == dim ? VarRef::make(k) : index(src.param, d, ctx));
  Expr element = Cast::make(t, Load::make(src.type, src.param, idx));
  if (chance(0.5))
    element = bin(chance(0.5) ? BinaryOp::Mul : BinaryOp::Sub, element, expr(t, 2, ctx));
  scope_.pop_back();
  scope_.push_back({acc, true});
  Stmt update = Assign::make(acc, bin(op, VarRef::make(acc), element));
  out.push_back(init);
  out.push_back(For::make(k, i64c(0), end, i64c(1), update));
  return true;
}

void Generator::philox_draws(const Context &ctx, std::vector<Stmt> &out) {
  using frontend::PhiloxDraw;
  const std::string name = "g" + std::to_string(next_var_++);
  static const ScalarType int_types[] = {ScalarType::U64, ScalarType::I64, ScalarType::U32,
                                         ScalarType::I32, ScalarType::U8};
  auto integer = [&](int depth) { return expr(int_types[pick(5)], depth, ctx); };
  Expr seed = integer(2), stream = integer(2);
  Expr block = chance(0.3) ? integer(1) : i64c(0);
  frontend::PhiloxState g = frontend::philox_make(out, name, seed, stream, block);
  for (int k = 0, n = 1 + pick(6); k < n; ++k) {
    Expr value;
    switch (pick(10)) {
    case 0:
    case 1:
    case 2:
    case 3:
      value = frontend::philox_draw(out, g, PhiloxDraw::U32);
      break;
    case 4:
    case 5:
      value = frontend::philox_draw(out, g, PhiloxDraw::UniformF32);
      break;
    case 6:
      value = frontend::philox_draw(out, g, PhiloxDraw::UniformF64);
      break;
    case 7:
      value = frontend::philox_draw(out, g,
                                    chance(0.5) ? PhiloxDraw::NormalF32 : PhiloxDraw::NormalF64);
      break;
    default: { // randint over i32, u32, i64 or u64 bounds, any values (hi <= lo gives lo)
      static const ScalarType bound_types[] = {ScalarType::I32, ScalarType::U32, ScalarType::I64,
                                               ScalarType::U64};
      const ScalarType t = bound_types[pick(4)];
      Expr lo = expr(t, 2, ctx), hi = expr(t, 2, ctx);
      value = frontend::philox_randint(out, g, lo, hi);
      break;
    }
    }
    Var v = make_var("v" + std::to_string(next_var_++), value.type());
    out.push_back(Declare::make(v, value));
    scope_.push_back({v, true});
  }
}

namespace {

// A strided layout of an array of `shape` (in elements): the dimensions in a random order in
// memory (a transpose), each stepping 1 to 3 elements of a row that may be padded past what it
// covers, some reversed; strides of dimensions of extent 1 now and then anything (they never
// count); from an offset in a buffer with elements to spare on either side. Its elements are
// distinct (strided::elements_distinct holds): a dimension's stride steps past everything the
// dimensions inside it reach. A read-only array may broadcast one dimension instead (stride 0):
// `values` then gets equal elements along it, what the view shows.
ViewLayout random_view(std::mt19937_64 &rng, Buffer &values, bool written) {
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  const std::vector<int64_t> &shape = values.shape;
  const size_t rank = shape.size();
  std::vector<size_t> order(rank); // outermost first in memory
  for (size_t d = 0; d < rank; ++d)
    order[d] = d;
  std::shuffle(order.begin(), order.end(), rng);
  ViewLayout v;
  v.strides.assign(rank, 0);
  int64_t row = 1; // the elements one step of the dimension being laid out takes
  for (size_t k = rank; k-- > 0;) {
    const size_t d = order[k];
    const int64_t step = 1 + static_cast<int64_t>(rng() % 3);
    const int64_t pad = chance(0.3) ? static_cast<int64_t>(rng() % 3) : 0;
    v.strides[d] = step * row;
    row *= (shape[d] - 1) * step + 1 + pad;
  }
  for (size_t d = 0; d < rank; ++d) {
    if (chance(0.3))
      v.strides[d] = -v.strides[d];
    if (shape[d] == 1 && chance(0.25))
      v.strides[d] = static_cast<int64_t>(rng() % 13) - 6;
  }
  std::vector<size_t> broadcastable;
  for (size_t d = 0; d < rank; ++d)
    if (shape[d] > 1)
      broadcastable.push_back(d);
  if (!written && !broadcastable.empty() && chance(0.15)) {
    const size_t d = broadcastable[rng() % broadcastable.size()];
    v.strides[d] = 0;
    // Every element takes the value of the one with index 0 in dimension d.
    int64_t inner = 1;
    for (size_t e = d + 1; e < rank; ++e)
      inner *= shape[e];
    const size_t bytes = static_cast<size_t>(byte_size(values.type));
    for (int64_t k = 0; k < values.size(); ++k) {
      const int64_t source = k - (k / inner % shape[d]) * inner;
      std::memmove(&values.bytes[k * bytes], &values.bytes[source * bytes], bytes);
    }
  }
  strided::Reach r;
  strided::reach(shape, v.strides, r);
  v.offset = -r.lowest + static_cast<int64_t>(rng() % 4);
  v.buffer = v.offset + r.highest + 1 + static_cast<int64_t>(rng() % 4);
  v.device = rng() % 4 != 0;
  return v;
}

} // namespace

} // namespace gen

std::vector<bool> written_arrays(const ir::Kernel &kernel) {
  struct Find : ir::Visitor {
    std::vector<bool> written;
    void visit_node(const ir::Store *n) override {
      written[n->array] = true;
      ir::Visitor::visit_node(n);
    }
    void visit_node(const ir::Reduce *n) override {
      written[n->array] = true;
      ir::Visitor::visit_node(n);
    }
  } find;
  find.written.assign(kernel.params.size(), false);
  find.visit(kernel.body);
  return find.written;
}

std::string invalid_views(const Program &program) {
  const std::vector<ir::Param> &params = program.kernel.params;
  if (program.views.empty())
    return "";
  if (program.views.size() != params.size())
    return "views: " + std::to_string(program.views.size()) + " layouts for " +
           std::to_string(params.size()) + " parameters";
  for (size_t p = 0; p < params.size(); ++p) {
    const ViewLayout &v = program.views[p];
    if (!v.strided())
      continue;
    const std::string where = "views: the layout of '" + params[p].name + "'";
    if (params[p].kind != ir::ParamKind::Array ||
        v.strides.size() != static_cast<size_t>(params[p].rank))
      return where + " does not have one stride per dimension of an array";
    const ir::Buffer &b = program.args[p].array;
    strided::Reach r;
    if (!strided::reach(b.shape, v.strides, r) ||
        (!r.empty && (v.offset + r.lowest < 0 || v.offset + r.highest >= v.buffer)))
      return where + " reaches outside its buffer";
    // Scattered into the buffer and gathered back, the Buffer must come back as it was.
    const size_t bytes = static_cast<size_t>(ir::byte_size(b.type));
    std::vector<unsigned char> buffer(static_cast<size_t>(v.buffer) * bytes);
    ir::Buffer back = b;
    strided::copy(buffer.data() + v.offset * bytes, const_cast<unsigned char *>(b.bytes.data()),
                  b.shape, v.strides, bytes, strided::Direction::FromDense);
    strided::copy(buffer.data() + v.offset * bytes, back.bytes.data(), b.shape, v.strides, bytes,
                  strided::Direction::ToDense);
    if (back.bytes != b.bytes)
      return where + " names one element by several indices, which the argument gives different "
                     "values";
  }
  return "";
}

Program generate_program(uint64_t seed, const GeneratorOptions &options) {
  Program p = gen::Generator(seed, options).run(seed);
  // Drawn from a generator of their own, like complex numbers (Generator::run).
  std::mt19937_64 rng(seed * 0x9fb21c651e98df25ull + 0x3c6ef372fe94f82bull);
  if (std::uniform_real_distribution<double>(0, 1)(rng) >= options.view_fraction || p.kernel.simt())
    return p;
  const std::vector<bool> written = written_arrays(p.kernel);
  p.views.resize(p.kernel.params.size());
  for (size_t k = 0; k < p.kernel.params.size(); ++k)
    if (p.kernel.params[k].kind == ir::ParamKind::Array &&
        std::uniform_real_distribution<double>(0, 1)(rng) < options.view_array_fraction)
      p.views[k] = gen::random_view(rng, p.args[k].array, written[k]);
  return p;
}

} // namespace loom::difftest
