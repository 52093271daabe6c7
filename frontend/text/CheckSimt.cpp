// The checker's SIMT level (@kernel(simt=True), CUDA's model in Numba's spelling): the thread
// geometry, grid() and gridsize(), laneid and warpsize, shared arrays, syncthreads(), atomics and
// the warp's shuffles and votes. The statements and expressions dispatch here.
#include "frontend/text/Checker.h"

#include "ir/DynamicShared.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace loom::text {

namespace {

std::string arguments(size_t n) {
  return std::to_string(n) + (n == 1 ? " argument" : " arguments");
}

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
  return callee == "syncthreads" || callee == "mma_sync" || callee == "grid" ||
         callee == "gridsize" || callee.rfind("shared.", 0) == 0 ||
         callee.rfind("local.", 0) == 0 || callee.rfind("atomic.", 0) == 0 ||
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

// ---- statements ---------------------------------------------------------------------------

// `tile = shared.array(256, f32)`, `tile = shared.array((16, 16), f32)`: a shared array of the
// kernel named after the variable (Numba's cuda.shared.array(shape, dtype)); `tile =
// shared.array(0, f32)` the kernel's dynamic shared array, its extent given at launch. `t =
// local.array(16, f64)` (Numba's cuda.local.array): a local array, private to each iteration of
// the parallel loop whose body declares it (or to each thread of a SIMT kernel).
void Checker::shared_declaration(const ast::Stmt &s, const std::string &function) {
  const ast::Expr &target = *s.target;
  const ast::Expr &call = *s.value;
  const std::string &name = target.name;
  const bool local = without_cuda(function) == "local.array";
  const std::string what = local ? "local array" : "shared array";
  const Symbol *old = lookup(name);
  auto quietly = [&] {
    if (!old)
      declare(name, Symbol()); // later uses of the name fail quietly
    throw CheckFailed{};
  };
  auto fail = [&](SourceLocation at, const std::string &message) {
    diag_.error(at, message);
    quietly();
  };
  if (old && old->kind == Symbol::Kind::Poison)
    throw CheckFailed{};
  if (!local) {
    try {
      require_simt(call.begin, function + "()");
    } catch (const CheckFailed &) {
      quietly();
    }
  } else if (!kernel_.simt && parallel_bodies_ == 0) {
    fail(call.begin, function + "() outside a parallel loop: a local array belongs to one "
                                "iteration of a parallel loop (or one thread of a SIMT kernel); "
                                "declare it in the body of the parallel loop that uses it");
  }
  if (s.compound)
    fail(s.op_loc, function + "() declares a " + what + "; assign it to a new name with '='");
  if (s.annotation)
    fail(s.annotation->loc, "a " + what +
                                " takes no type annotation; its element type is the second "
                                "argument of " +
                                function + "()");
  if (old)
    fail(target.loc, "'" + name + "' is already defined on line " + std::to_string(old->loc.line) +
                         "; " + function + "() declares a new " + what);
  if (call.operands.size() != 2)
    fail(call.begin, function + "() takes 2 arguments, a shape and an element type, as in " +
                         function + "(256, f32) or " + function + "((16, 16), f32); got " +
                         std::to_string(call.operands.size()));
  const ast::Expr &shape = *call.operands[0];
  std::vector<const ast::Expr *> dims;
  if (shape.kind == ast::ExprKind::Tuple)
    for (const ast::ExprPtr &d : shape.operands)
      dims.push_back(d.get());
  else
    dims.push_back(&shape);
  if (dims.size() > 3)
    fail(shape.begin,
         "a " + what + " has 1 to 3 dimensions; this shape has " + std::to_string(dims.size()));
  std::vector<int64_t> extents;
  bool dynamic = false; // shared.array(0, type): sized by the launch
  for (const ast::Expr *d : dims) {
    std::optional<Value> v = try_expr(*d);
    if (!v)
      quietly();
    if (!v->literal || !ir::is_int(v->type))
      fail(d->begin,
           "an extent of " + function + "() must be an integer literal (the size of a " + what +
               " is fixed when the kernel is compiled" +
               (local ? "" : "; the literal 0 makes an array sized at launch") + "), got " +
               (v->literal ? "a literal of type " + describe(*v)
                           : "a value of type " + describe(*v) + " computed at run time"));
    if (v->i == 0 && !local) {
      if (dims.size() != 1)
        fail(d->begin, "an extent of 0 makes a dynamic shared array, sized at launch, which has "
                       "one dimension: write " +
                           function + "(0, type) and index it as i * width + j");
      dynamic = true;
    } else if (v->i <= 0) {
      fail(d->begin, "an extent of " + function + "() must be positive, got " +
                         std::to_string(v->i) +
                         (local && v->i == 0 ? " (only shared.array(0, type) is sized at launch; "
                                               "a local array's size is fixed when the kernel is "
                                               "compiled)"
                                             : ""));
    }
    extents.push_back(v->i);
  }
  const std::string holds = "bool, an integer type, f32 or f64";
  const ast::Expr &dtype = *call.operands[1];
  if (dtype.kind != ast::ExprKind::Name)
    fail(dtype.begin, "the second argument of " + function + "() is the element type: " + holds);
  const bool half = dtype.name == "f16" || dtype.name == "bf16";
  if (half && !local && call.operands[0]->kind == ast::ExprKind::Int &&
      call.operands[0]->int_value == 0)
    fail(dtype.begin, "a dynamic shared array holds " + holds + ", not " + dtype.name +
                          " (a static one, shared.array((16, 24), f16), may)");
  if ((half && local) || dtype.name == "c64" || dtype.name == "c128")
    fail(dtype.begin, what + "s hold " +
                          (local ? holds : "bool, an integer type, f16, bf16, f32 or f64") +
                          ", not " + dtype.name);
  ast::TypeExpr written;
  written.loc = dtype.begin;
  written.scalar = dtype.name;
  std::optional<CheckedType> type = checked_type(written, "a " + what);
  if (!type)
    quietly();
  // An extent past the limit is reported without its product, which could overflow.
  const int64_t limit = local ? ir::max_local_bytes : ir::max_shared_bytes;
  bool huge = false;
  int64_t bytes = ir::byte_size(type->scalar), total = 0;
  for (int64_t e : extents) {
    huge = huge || e > limit;
    bytes *= huge ? 1 : e;
  }
  if (dynamic) {
    if (ir::Shared first = ir::dynamic_shared_array(kernel_.shared))
      fail(call.begin, "a kernel has at most one dynamic shared array (shared.array(0, type)), "
                       "and '" +
                           first->name +
                           "' is one already; its size is the launch's shared_bytes: keep both "
                           "in it by indexing one array at offsets");
  } else if (local) {
    if (huge || bytes > limit)
      fail(call.begin, "a local array takes at most " + std::to_string(limit) +
                           " bytes (each iteration's copy lives on a stack or in a GPU thread's "
                           "local memory); '" +
                           name + "' would take " +
                           (huge ? "more" : std::to_string(bytes) + " bytes") +
                           "; pass a larger buffer as an array argument instead");
  } else {
    ir::shared_offsets(kernel_.shared, &total);
    total = (total + 15) / 16 * 16 + bytes; // as shared_offsets lays them out
    if (huge || total > limit)
      fail(call.begin, "a kernel's shared arrays take at most " + std::to_string(limit) +
                           " bytes (48 KiB); with '" + name + "' (" +
                           (huge ? "more than that" : std::to_string(bytes) + " bytes") +
                           ") this kernel's would take " + (huge ? "more" : std::to_string(total)));
  }
  Symbol sym;
  sym.kind = Symbol::Kind::Shared;
  sym.loc = target.loc;
  if (local) {
    sym.shared = ir::make_local_array(name, type->scalar, extents);
    kernel_.locals.push_back(sym.shared);
  } else if (dynamic) {
    sym.shared = ir::make_dynamic_shared_array(name, type->scalar);
    kernel_.shared.push_back(sym.shared);
  } else {
    sym.shared = ir::make_shared_array(name, type->scalar, extents);
    kernel_.shared.push_back(sym.shared);
  }
  declare(name, sym);
}

// `tile[i] = v`, `tile[i, j] += v`: a plain store (shared memory has no parallel loop whose
// updates a reduction would combine), as the embedded DSL's SharedElementRef stores.
void Checker::shared_store(const ast::Stmt &s, const Symbol &array) {
  const ast::Expr &target = *s.target;
  const ir::Shared &a = array.shared;
  std::vector<ir::Expr> idx = indices(target, a->name, static_cast<int>(a->extents.size()));
  Value v = expr(*s.value);
  if (s.compound) {
    try {
      v = binary(to_ir(*s.compound), Value::of(ir::SharedLoad::make(a, idx)), v);
    } catch (const TypeError &e) {
      error(s.op_loc, e.message);
    }
  }
  emit(ir::SharedStore::make(a, idx, assigned(v, ir::value_type(a->type), s.value->begin)));
}

// `x, y = grid(2)`, `x, y, z = gridsize(3)`: each name bound to its axis, as by `name = value`.
void Checker::tuple_assignment(const ast::Stmt &s) {
  const ast::Expr &names = *s.target;
  const ast::Expr &value = *s.value;
  auto poison_all = [&] {
    for (const ast::ExprPtr &n : names.operands)
      if (!lookup(n->name))
        declare(n->name, Symbol());
    throw CheckFailed{};
  };
  std::string function = value.kind == ast::ExprKind::Call ? without_cuda(value.name) : "";
  if (function != "grid" && function != "gridsize") {
    diag_.error(names.begin, "multiple assignment is only for the axes of grid() and gridsize(), "
                             "as in 'x, y = grid(2)'; assign one name per line");
    poison_all();
  }
  std::vector<ir::Expr> axes;
  try {
    axes = grid_axes(value, function);
  } catch (const CheckFailed &) {
    poison_all();
  }
  if (axes.size() != names.operands.size()) {
    diag_.error(s.op_loc, value.name + "(" + std::to_string(axes.size()) + ") gives " +
                              std::to_string(axes.size()) + " values but " +
                              std::to_string(names.operands.size()) + " names are assigned");
    poison_all();
  }
  bool ok = true;
  for (size_t k = 0; k < axes.size(); ++k) {
    try {
      bind_name(*names.operands[k], Value::of(axes[k]));
    } catch (const CheckFailed &) {
      ok = false;
    }
  }
  if (!ok)
    throw CheckFailed{};
}

// `mma_sync(acc, A, row, k, B, k2, col)`: the warp's tensor-core product (ir::Mma) of the 16 x 16
// block of shared array A at [row, k] (rows along A's first dimension, k along its last) and the
// 16 x 8 block of shared array B at [k2, col] (k along B's first dimension), both 2-D, f16 or
// bf16, into acc, a local f32 array of 4: acc[r] += sum over kk < 16 of A[row + m, k + kk] *
// B[k2 + kk, col + n], where (m, n) = (laneid / 4 + 8 * (r / 2), 2 * (laneid % 4) + r % 2) is the
// lane's element r (PTX's fragment layout). The accumulator passes through four fresh f32 locals.
void Checker::mma_statement(const ast::Expr &call) {
  require_simt(call.begin, call.name + "()");
  const std::string usage = call.name + "(acc, A, row, k, B, k2, col)";
  if (call.operands.size() != 7)
    error(call.begin, usage + " takes 7 arguments, got " + std::to_string(call.operands.size()));
  const Symbol *acc = shared_symbol(*call.operands[0]);
  if (!acc || !acc->shared->local() || acc->shared->type != ir::ScalarType::F32 ||
      acc->shared->extents != std::vector<int64_t>{4})
    error(call.operands[0]->begin, "the first argument of " + usage +
                                       " is the accumulator: a local array of 4 f32, as in "
                                       "'acc = local.array(4, f32)'");
  ir::Shared operands[2];
  for (int s = 0; s < 2; ++s) {
    const ast::Expr &e = *call.operands[s == 0 ? 1 : 4];
    const Symbol *sym = shared_symbol(e);
    const char *which = s == 0 ? "A" : "B";
    if (!sym || sym->shared->local() || sym->shared->dynamic || sym->shared->extents.size() != 2 ||
        !ir::is_half_float(sym->shared->type))
      error(e.begin, std::string("operand ") + which + " of " + usage +
                         " is a 2-D shared array of f16 or bf16, as in '" +
                         (s == 0 ? "As = shared.array((64, 24), f16)'"
                                 : "Bs = shared.array((16, 72), f16)'"));
    if (sym->shared->extents[1] % 8 != 0)
      error(e.begin, std::string("operand ") + which + " of " + usage + ", '" + sym->shared->name +
                         "', has rows of " + std::to_string(sym->shared->extents[1]) +
                         " elements; the tensor cores read rows of 16 bytes, so its last extent "
                         "must be a multiple of 8");
    operands[s] = sym->shared;
  }
  if (operands[0]->type != operands[1]->type)
    error(call.operands[4]->begin,
          "the operands of " + usage + " are " + ir::type_name(operands[0]->type) + " and " +
              ir::type_name(operands[1]->type) + "; both must be f16 or both bf16");
  std::vector<ir::Expr> at;
  bool ok = true;
  for (int k : {2, 3, 5, 6}) {
    try {
      at.push_back(index(*call.operands[size_t(k)]));
    } catch (const CheckFailed &) {
      ok = false;
    }
  }
  if (!ok)
    throw CheckFailed{};
  std::array<ir::Var, 4> parts;
  for (int r = 0; r < 4; ++r) {
    parts[size_t(r)] = ir::make_var("acc", ir::ScalarType::F32);
    emit(ir::Declare::make(
        parts[size_t(r)],
        ir::SharedLoad::make(acc->shared, {ir::IntConst::make(ir::ScalarType::I64, r)})));
  }
  emit(ir::Mma::make(operands[0], {at[0], at[1]}, true, operands[1], {at[2], at[3]}, false, parts));
  for (int r = 0; r < 4; ++r)
    emit(ir::SharedStore::make(acc->shared, {ir::IntConst::make(ir::ScalarType::I64, r)},
                               ir::VarRef::make(parts[size_t(r)])));
  ++simt_effects_;
}

// `syncthreads()`: CUDA's __syncthreads, a Barrier.
void Checker::barrier(const ast::Expr &call) {
  require_simt(call.begin, call.name + "()");
  if (!call.operands.empty())
    error(call.begin,
          call.name + "() takes no arguments, got " + std::to_string(call.operands.size()));
  emit(ir::Barrier::make());
}

// ---- expressions --------------------------------------------------------------------------

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
  if (function == "syncthreads" || function == "mma_sync")
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
  if (function == "shared.array" || function == "local.array")
    error(e.begin, e.name + "() declares a " + (function == "local.array" ? "local" : "shared") +
                       " array; assign it to a new name, as in '" +
                       (function == "local.array" ? "t" : "tile") + " = " + e.name + "(256, f32)'");
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
                     "shfl_xor_sync, any_sync, all_sync, ballot_sync and mma_sync");
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
    if (s->shared->local())
      error(target.begin, function + "() updates an array parameter or a shared array; '" +
                              s->shared->name +
                              "' is a local array, which only its own iteration sees: update "
                              "it with a plain assignment");
    shared = s->shared;
    element = shared->type, name = shared->name, rank = shared->extents.size();
  } else {
    array = array_argument(target, "the first argument of " + function + "()");
    const ir::Param &p = array_param(array);
    element = p.type, name = p.name, rank = static_cast<size_t>(p.rank);
  }
  if (element == ir::ScalarType::Bool || ir::is_half_float(element) || ir::is_complex(element) ||
      ir::bit_width(element) < 32)
    error(target.begin, function + "() updates elements of i32, i64, u32, u64, f32 or f64; '" +
                            name + "' holds " + ir::type_name(element));
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
  emit(ir::Atomic::make(op, array, shared, element, std::move(idx),
                        assigned(*value, element, e.operands.back()->begin),
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
    if (value && (value->type == ir::ScalarType::Bool || ir::is_complex(value->type) ||
                  ir::bit_width(value->type) < 32)) {
      diag_.error(e.operands[1]->begin,
                  function + "() moves an i32, i64, u32, u64, f32 or f64 value, got " +
                      describe(*value));
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
