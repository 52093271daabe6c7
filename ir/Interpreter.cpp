// The interpreter's evaluator: statements and expressions with loom's semantics (ir/Semantics.h),
// the uncertainty they carry for other backends (ir/Uncertainty.h), and the runs of kernels and
// of lowered tasks. SIMT launches are ir/InterpreterSimt.cpp, race checks ir/RaceCheck.cpp.
#include "ir/Interpreter.h"
#include "ir/PrintFormat.h"
#include "support/PrintLine.h"

#include "ir/Build.h"
#include "ir/Evaluate.h"
#include "ir/InterpreterComplexArgs.h"
#include "ir/InterpreterMachine.h"
#include "ir/Passes.h"
#include "ir/Printer.h"
#include "ir/TaskLoops.h"
#include "support/Error.h"
#include "support/Float16.h"
#include "support/SimtBlock.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace loom::ir {

Buffer::Buffer(ScalarType t, std::vector<int64_t> s) : type(t), shape(std::move(s)) {
  bytes.assign(static_cast<size_t>(size()) * byte_size(type), 0);
}

int64_t Buffer::size() const {
  int64_t n = 1;
  for (int64_t e : shape)
    n *= e;
  return n;
}

ScalarValue Buffer::get(int64_t k) const {
  return load_scalar(bytes.data() + k * byte_size(type), type);
}

void Buffer::set(int64_t k, ScalarValue v) {
  store_scalar(bytes.data() + k * byte_size(type), type, v);
}

namespace interpreter {

Machine::Machine(const std::string &name, const std::vector<Param> &params,
                 std::vector<InterpreterArg> &args, const InterpreterOptions &options)
    : name_(name), params_(params), args_(args), options_(options),
      track_(options.track_uncertainty) {
  if (args.size() != params.size())
    throw ArgumentError("kernel '" + name + "' takes " + std::to_string(params.size()) +
                        " arguments, the interpreter was given " + std::to_string(args.size()));
  shadows_.resize(params.size());
  for (size_t k = 0; k < params.size(); ++k) {
    const Param &p = params[k];
    if (p.kind == ParamKind::Scalar)
      continue;
    const Buffer &b = args[k].array;
    if (b.type != p.type || static_cast<int>(b.shape.size()) != p.rank ||
        b.bytes.size() != static_cast<size_t>(b.size()) * byte_size(b.type))
      throw ArgumentError("argument '" + p.name + "' of kernel '" + name + "' must be a " +
                          type_name(p.type) + " array of rank " + std::to_string(p.rank));
    if (track_)
      shadows_[k].assign(static_cast<size_t>(b.size()), Uncertainty{});
  }
}

void Machine::bind_params() {
  thread_->vars.clear();
  for (size_t k = 0; k < params_.size(); ++k)
    if (params_[k].kind == ParamKind::Scalar && params_[k].var) {
      ScalarType t = params_[k].type;
      ScalarValue v = args_[k].scalar;
      thread_->vars[params_[k].var.get()] = {is_float(t) ? float_value(t, v.f) : int_value(t, v.i),
                                             {}};
    }
}

// A task reduction: each worker's accumulator once it has run, then the combined total.
void Machine::collect(const Task &task, std::vector<std::vector<ScalarValue>> &partials) {
  partials.resize(task.reductions.size());
  for (size_t r = 0; r < task.reductions.size(); ++r)
    partials[r].push_back(lookup(task.reductions[r].accumulator).v);
}

void Machine::combine(const Task &task, const std::vector<std::vector<ScalarValue>> &partials) {
  for (size_t r = 0; r < partials.size(); ++r) {
    const TaskReduction &red = task.reductions[r];
    const ScalarType t = params_[red.array].type;
    const BinaryOp op = binary_op_of(red.op);
    ScalarValue total = partials[r][0];
    for (size_t w = 1; w < partials[r].size(); ++w)
      total = binary_op(op, t, total, partials[r][w]);
    bind_params();
    bool uncertain;
    int64_t k = element(red.array, red.indices, true, &uncertain);
    Buffer &buffer = args_[red.array].array;
    buffer.set(k, binary_op(op, t, buffer.get(k), total));
  }
}

// An expression over parameters only (a launch domain), outside any statement.
int64_t Machine::domain_extent(const Expr &e) {
  Value v = eval(e);
  if (v.u.unknown())
    note_inconclusive("the launch domain " + to_string(e, params_) + " is uncertain");
  return v.v.i;
}

void Machine::exec(const Stmt &s) {
  if (!s.defined())
    return;
  if (auto *b = s.as<Block>()) {
    for (const Stmt &c : b->stmts)
      exec(c);
    return;
  }
  if (++steps_ > options_.step_limit)
    throw InterpreterError("kernel '" + name_ + "': the interpreter's step limit of " +
                           std::to_string(options_.step_limit) +
                           " statements was reached (a loop that does not end?) at:\n  " +
                           to_string(s, params_));
  const Stmt *saved = thread_->current;
  thread_->current = &s;
  exec_node(s);
  thread_->current = saved;
}

std::vector<std::vector<double>> Machine::error_bounds() const {
  std::vector<std::vector<double>> out(params_.size());
  for (size_t k = 0; k < shadows_.size(); ++k)
    for (const Uncertainty &u : shadows_[k])
      out[k].push_back(u.error);
  return out;
}

void Machine::exec_node(const Stmt &s) {
  switch (s.kind()) {
  case StmtKind::Declare: {
    auto *n = s.as<Declare>();
    Value v = eval(n->init); // may switch to other SIMT threads (a warp collective)
    thread_->vars[n->var.get()] = v;
    return;
  }
  case StmtKind::Assign: {
    auto *n = s.as<Assign>();
    Value v = eval(n->value);
    lookup(n->var) = v;
    return;
  }
  case StmtKind::Store: {
    auto *n = s.as<Store>();
    Value v = eval(n->value);
    bool uncertain;
    int64_t k = element(n->array, n->indices, true, &uncertain);
    check_race(n->array, k, true);
    Buffer &buffer = args_[n->array].array;
    buffer.set(k, v.v);
    if (track_)
      shadows_[n->array][k] = storage_uncertainty(buffer.type, buffer.get(k), v.u);
    return;
  }
  case StmtKind::Reduce: {
    // Updates of one element by several iterations are not a race: they combine.
    auto *n = s.as<Reduce>();
    Value v = eval(n->value);
    bool uncertain;
    int64_t k = element(n->array, n->indices, true, &uncertain);
    // An f16 or bf16 element combines in f32; the store rounds it back (Buffer::set).
    const ScalarType t = value_type(params_[n->array].type);
    const BinaryOp op = binary_op_of(n->op);
    Buffer &buffer = args_[n->array].array;
    ScalarValue old = buffer.get(k);
    ScalarValue r = binary_op(op, t, old, v.v);
    buffer.set(k, r);
    if (track_)
      shadows_[n->array][k] =
          storage_uncertainty(buffer.type, buffer.get(k), reduce_uncertainty(n, k, t, old, v, r));
    return;
  }
  case StmtKind::IfThenElse: {
    auto *n = s.as<IfThenElse>();
    if (decide(eval(n->cond), "an if condition"))
      exec(n->then_case);
    else
      exec(n->else_case);
    return;
  }
  case StmtKind::For: {
    auto *n = s.as<For>();
    // Bounds are evaluated once; the index wraps like the compiled loop's i64 addition.
    int64_t begin = integer(eval(n->begin), "a loop bound");
    int64_t end = integer(eval(n->end), "a loop bound");
    int64_t step = integer(eval(n->step), "a loop step");
    Value &index = thread_->vars[n->var.get()];
    for (int64_t i = begin; i < end;
         i = static_cast<int64_t>(static_cast<uint64_t>(i) + static_cast<uint64_t>(step))) {
      index = {int_value(ScalarType::I64, i), {}};
      exec(n->body);
      count_step(s);
    }
    return;
  }
  case StmtKind::While: {
    auto *n = s.as<While>();
    while (decide(eval(n->cond), "a while condition")) {
      exec(n->body);
      count_step(s);
    }
    return;
  }
  case StmtKind::ParallelFor: {
    auto *n = s.as<ParallelFor>();
    std::vector<int64_t> extents;
    for (const Expr &e : n->extents)
      extents.push_back(integer(eval(e), "a parallel loop extent"));
    ++loop_run_;
    iteration_ = 0;
    parallel(n, extents, 0);
    iteration_ = -1;
    return;
  }
  case StmtKind::Block:
    return; // handled by exec
  case StmtKind::SharedStore: {
    auto *n = s.as<SharedStore>();
    Value v = eval(n->value);
    bool uncertain;
    if (n->array->local()) {
      LocalArray &l = local_array(n->array);
      int64_t k = array_element(*n->array, n->indices, true, &uncertain);
      l.values.set(k, v.v);
      l.written[static_cast<size_t>(k)] = true;
      if (track_)
        l.shadows[static_cast<size_t>(k)] = v.u;
      return;
    }
    const int a = shared_index(n->array);
    int64_t k = shared_element(a, n->indices, true, &uncertain);
    shared_buffers_[a].set(k, v.v);
    if (track_) // an f16 or bf16 element: another backend's f32 may round to a neighbour
      shared_shadows_[a][k] =
          storage_uncertainty(shared_buffers_[a].type, shared_buffers_[a].get(k), v.u);
    return;
  }
  case StmtKind::Barrier:
    barrier();
    return;
  case StmtKind::Mma:
    mma(s.as<Mma>());
    return;
  case StmtKind::AsyncCopy: {
    // At once: every read of the copy comes after an AsyncWait and a barrier.
    auto *n = s.as<AsyncCopy>();
    const int64_t valid = n->valid.defined() ? eval(n->valid).v.i : n->count;
    for (int v = 0; v < n->count; ++v) {
      std::vector<Expr> src = n->src_index, dst = n->dst_index;
      src.back() = add(src.back(), i64(v));
      dst.back() = add(dst.back(), i64(v));
      if (v >= valid) { // zero-filled
        exec(SharedStore::make(n->dst, dst,
                               n->dst->type == ScalarType::F64
                                   ? FloatConst::make(ScalarType::F64, 0.0)
                                   : FloatConst::make(ScalarType::F32, 0.0)));
        continue;
      }
      bool uncertain;
      const int64_t from = element(n->array, src, false, &uncertain);
      const int a = shared_index(n->dst);
      const int64_t to = shared_element(a, dst, true, &uncertain);
      shared_buffers_[a].set(to, args_[n->array].array.get(from));
      if (track_)
        shared_shadows_[a][to] = shadows_[n->array][from];
    }
    return;
  }
  case StmtKind::AsyncWait:
    return;
  case StmtKind::WarpgroupMma:
    warpgroup_mma(s.as<WarpgroupMma>());
    return;
  case StmtKind::Mbarrier:
    mbarrier(s.as<Mbarrier>());
    return;
  case StmtKind::Assume:
    if (!decide(eval(s.as<Assume>()->cond), "an assumption"))
      throw InterpreterError("kernel '" + name_ + "': the assumption " +
                             to_string(s.as<Assume>()->cond, params_) +
                             " that lowering made does not hold" + where());
    return;
  case StmtKind::Assert: {
    auto *n = s.as<Assert>();
    if (decide(eval(n->cond), "an assertion's condition"))
      return;
    if (assert_failure_.count++ == 0) {
      assert_failure_.site = n->site;
      for (const Expr &i : n->indices)
        assert_failure_.indices.push_back(integer(eval(i), "an assertion's index"));
    }
    return;
  }
  case StmtKind::Print: {
    std::string line;
    for (const PrintItem &item : s.as<Print>()->items) {
      if (!line.empty())
        line += ' ';
      if (!item.value.defined()) {
        line += item.text;
        continue;
      }
      Value v = eval(item.value);
      if (v.u.unknown())
        note_inconclusive("a printed value depends on an uncertain value" + where());
      ScalarType t = item.value.type();
      if (item.imag.defined()) {
        Value im = eval(item.imag);
        v.v.im = im.v.f;
        t = complex_of(t);
      }
      line += print_text(t, v.v);
    }
    line += '\n';
    if (options_.print_line)
      options_.print_line(line);
    else
      support::print_line(line);
    return;
  }
  case StmtKind::Atomic:
    atomic(s.as<Atomic>());
    return;
  }
  throw InterpreterError("kernel '" + name_ + "': unknown statement");
}

// An atomic read-modify-write: between two synchronizations a thread runs alone, so the
// update is indivisible by construction. The operation is loom's (binary_op: integers wrap,
// float min/max are fmin/fmax); CompareExchange compares bits.
void Machine::atomic(const Atomic *n) {
  Value v = eval(n->value);
  Value compare = n->compare.defined() ? eval(n->compare) : Value{};
  bool uncertain;
  int a = -1;
  int64_t k;
  Buffer *buffer;
  Uncertainty *shadow = nullptr;
  if (n->shared) {
    a = shared_index(n->shared);
    k = shared_element(a, n->indices, true, &uncertain);
    buffer = &shared_buffers_[a];
    if (track_)
      shadow = &shared_shadows_[a][k];
  } else {
    k = element(n->array, n->indices, true, &uncertain);
    buffer = &args_[n->array].array;
    if (track_)
      shadow = &shadows_[n->array][k];
  }
  const ScalarType t = buffer->type;
  const ScalarValue old = buffer->get(k);
  ScalarValue r = v.v;
  switch (n->op) {
  case AtomicOp::Add:
    r = binary_op(BinaryOp::Add, t, old, v.v);
    break;
  case AtomicOp::Min:
    r = binary_op(BinaryOp::Min, t, old, v.v);
    break;
  case AtomicOp::Max:
    r = binary_op(BinaryOp::Max, t, old, v.v);
    break;
  case AtomicOp::Exchange:
    break;
  case AtomicOp::CompareExchange:
    r = value_bits(t, old) == value_bits(t, compare.v) ? v.v : old;
    break;
  }
  buffer->set(k, r);
  if (track_) {
    // Other threads' atomics on the element run in an order the launch leaves open: the old
    // value a thread sees may be any of them, and an exchange's result is the last one's.
    const Uncertainty old_u = *shadow;
    if (n->op == AtomicOp::Exchange || n->op == AtomicOp::CompareExchange)
      *shadow = Uncertainty::any();
    else
      *shadow = update_uncertainty(n->op == AtomicOp::Add   ? BinaryOp::Add
                                   : n->op == AtomicOp::Min ? BinaryOp::Min
                                                            : BinaryOp::Max,
                                   n->shared ? -1 - a : n->array, k,
                                   n->shared ? block_run_ : loop_run_, t, old, old_u, v, r);
  }
  if (n->result)
    lookup(n->result) = {old, track_ ? Uncertainty::any() : Uncertainty{}};
}

// Row-major: the last dimension varies fastest. Each iteration starts with no local arrays
// (fresh, uninitialised instances); those of the iteration around the loop come back after it.
void Machine::parallel(const ParallelFor *n, const std::vector<int64_t> &extents, size_t dim) {
  if (dim == extents.size()) {
    thread_->locals.clear();
    exec(n->body);
    ++iteration_;
    return;
  }
  if (dim == 0 && !thread_->locals.empty()) {
    auto outer = std::move(thread_->locals);
    thread_->locals.clear();
    parallel(n, extents, dim);
    thread_->locals = std::move(outer);
    return;
  }
  for (int64_t i = 0; i < extents[dim]; ++i) {
    bind(n->vars[dim], i);
    parallel(n, extents, dim + 1);
  }
}

void Machine::count_step(const Stmt &s) {
  if (++steps_ > options_.step_limit)
    throw InterpreterError("kernel '" + name_ + "': the interpreter's step limit of " +
                           std::to_string(options_.step_limit) +
                           " statements was reached (a loop that does not end?) in:\n  " +
                           to_string(s, params_));
}

Value &Machine::lookup(const Var &v) {
  auto it = thread_->vars.find(v.get());
  if (it == thread_->vars.end())
    throw InterpreterError("kernel '" + name_ + "': variable '" + v->name +
                           "' is used before it is declared");
  return it->second;
}

std::string Machine::where() const {
  std::string w =
      thread_->current ? "\n  in: " + to_string(*thread_->current, params_) : std::string();
  if (thread_->linear >= 0) {
    while (!w.empty() && w.back() == '\n')
      w.pop_back();
    auto reg = [&](Reg r) {
      const unsigned *v = thread_->special[static_cast<int>(r)];
      return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " +
             std::to_string(v[2]) + ")";
    };
    w += "\n  in thread " + reg(Reg::ThreadIdx) + " of block " + reg(Reg::BlockIdx);
  }
  return w;
}

LocalArray &Machine::local_array(const Shared &a) {
  auto it = thread_->locals.find(a.get());
  if (it != thread_->locals.end())
    return it->second;
  LocalArray &l = thread_->locals[a.get()];
  l.values = Buffer(a->type, a->extents);
  l.written.assign(static_cast<size_t>(a->size()), false);
  if (track_)
    l.shadows.assign(static_cast<size_t>(a->size()), {});
  return l;
}

// The linear index of `array`'s element at `indices` (a shared or a local array), checked
// against its extents.
int64_t Machine::array_element(const SharedArray &array, const std::vector<Expr> &indices,
                               bool store, bool *uncertain) {
  int64_t linear = 0;
  *uncertain = false;
  for (size_t d = 0; d < indices.size(); ++d) {
    Value v = eval(indices[d]);
    if (v.u.unknown()) {
      if (store)
        note_inconclusive("a store index depends on an uncertain value" + where());
      *uncertain = true;
    }
    int64_t i = v.v.i, extent = array.dynamic              ? dynamic_extent_
                                : d < array.extents.size() ? array.extents[d]
                                                           : 0;
    if (i < 0 || i >= extent)
      throw InterpreterError("kernel '" + name_ + "': index " + std::to_string(i) +
                             " is out of bounds of dimension " + std::to_string(d) + " of " +
                             (array.local() ? "local" : "shared") + " array '" + array.name +
                             "' (extent " + std::to_string(extent) + ")" + where());
    linear = linear * extent + i;
  }
  return linear;
}

// A warp's 16 x 8 x 16 product (ir::Mma), this lane's four elements of it: each sums its 16
// products in k order, in f32 (the products of 16-bit floats, or of f32s rounded to TF32, are
// exact there). Each block's rows must start on 16 bytes, as ldmatrix reads them: the last index
// of its origin and the array's last extent multiples of 16 bytes' elements. With uncertainty
// tracking, another backend's sum (in its own order, each addition rounded) is within
// 2 * 17 * 2^-24 of the sum of the magnitudes, beyond what the operands' own uncertainties move.
void Machine::mma(const Mma *n) {
  if (!thread_ || thread_->linear < 0)
    throw InterpreterError("kernel '" + name_ + "': mma outside a SIMT thread" + where());
  const int lane = thread_->linear % support::SimtBlock::warp_size;
  const int64_t row_elements = 16 / byte_size(n->input);
  // The origin's indices, checked for alignment.
  auto origin = [&](const Shared &array, const std::vector<Expr> &indices) {
    std::vector<int64_t> at;
    for (const Expr &e : indices)
      at.push_back(eval(e).v.i);
    if (at.back() % row_elements != 0 || array->extents.back() % row_elements != 0)
      throw InterpreterError(
          "kernel '" + name_ + "': mma reads shared array '" + array->name + "' from index " +
          std::to_string(at.back()) + " of its last dimension (extent " +
          std::to_string(array->extents.back()) + "); both must be multiples of " +
          std::to_string(row_elements) + ", 16 bytes" + where());
    return at;
  };
  const std::vector<int64_t> a_at = origin(n->a, n->a_origin), b_at = origin(n->b, n->b_origin);
  // Element (row, kk) of the block at `at`, checked against the extents.
  auto element = [&](const Shared &array, std::vector<int64_t> at, bool k_last, int row, int kk) {
    const int a = shared_index(array);
    at[at.size() - 2] += k_last ? row : kk, at.back() += k_last ? kk : row;
    int64_t linear = 0;
    for (size_t d = 0; d < at.size(); ++d) {
      if (at[d] < 0 || at[d] >= array->extents[d])
        throw InterpreterError("kernel '" + name_ + "': mma reads index " + std::to_string(at[d]) +
                               " of dimension " + std::to_string(d) + " of shared array '" +
                               array->name + "' (extent " + std::to_string(array->extents[d]) +
                               ")" + where());
      linear = linear * array->extents[d] + at[d];
    }
    return product_operand(n->input, shared_buffers_[a].get(linear).f,
                           track_ ? shared_shadows_[a][size_t(linear)] : Uncertainty{});
  };
  for (int r = 0; r < 4; ++r)
    lookup(n->acc[r]) = product_sum(lookup(n->acc[r]), 16, [&](int64_t kk) {
      return std::pair{element(n->a, a_at, n->a_k_last, mma_row(lane, r), int(kk)),
                       element(n->b, b_at, n->b_k_last, mma_col(lane, r), int(kk))};
    });
}

Machine::ProductOperand Machine::product_operand(ScalarType input, double value,
                                                 Uncertainty u) const {
  if (input != ScalarType::F32)
    return {value, u};
  const ScalarValue rounded = float_value(ScalarType::F32, round_to_tf32(value));
  if (track_) // the rounding to TF32 may go either way within u
    u = unary_uncertainty(UnaryOp::RoundTF32, ScalarType::F32, float_value(ScalarType::F32, value),
                          u, rounded);
  return {rounded.f, u};
}

Value Machine::product_sum(
    const Value &acc, int64_t terms,
    const std::function<std::pair<ProductOperand, ProductOperand>(int64_t)> &operands) const {
  float sum = static_cast<float>(acc.v.f);
  double magnitude = std::fabs(acc.v.f), moved = acc.u.error + acc.u.fma_slack;
  bool unknown = acc.u.unknown();
  for (int64_t k = 0; k < terms; ++k) {
    const auto [a, b] = operands(k);
    sum += static_cast<float>(a.value) * static_cast<float>(b.value);
    magnitude += std::fabs(a.value * b.value);
    unknown = unknown || a.u.unknown() || b.u.unknown();
    moved +=
        std::fabs(a.value) * b.u.error + std::fabs(b.value) * a.u.error + a.u.error * b.u.error;
  }
  Uncertainty u;
  if (track_)
    u = unknown || !std::isfinite(sum)
            ? Uncertainty::any()
            : Uncertainty{moved + 2 * double(terms + 1) * 0x1p-24 * magnitude, 0};
  return Value{float_value(ScalarType::F32, sum), u};
}

int Machine::shared_index(const Shared &a) {
  for (size_t k = 0; k < shared_.size(); ++k)
    if (shared_[k] == a)
      return static_cast<int>(k);
  throw InterpreterError("kernel '" + name_ + "': shared array '" + (a ? a->name : "?") +
                         "' is not one of the kernel's shared arrays" + where());
}

int64_t Machine::shared_element(int a, const std::vector<Expr> &indices, bool store,
                                bool *uncertain) {
  return array_element(*shared_[a], indices, store, uncertain);
}

// The uncertainty of a Reduce's result. Inside a parallel loop the updates may combine in any
// order: a float sum of n terms in any order is within n * u * sum|x| of the exact one (u the
// unit roundoff), so two orders are within twice that; a float product's order can move it
// anywhere near overflow, so it is not compared. An f32 sum may also lose up to the smallest
// normal float per term: the GPU's atom.add.f32 flushes subnormal inputs and results to zero.
Uncertainty Machine::reduce_uncertainty(const Reduce *n, int64_t k, ScalarType t, ScalarValue old,
                                        const Value &v, ScalarValue r) {
  return update_uncertainty(binary_op_of(n->op), n->array, k, loop_run_, t, old,
                            shadows_[n->array][k], v, r);
}

// The same for any update `old op v` of element k of array `key` (a shared array's: -1 - its
// index) that other iterations or threads also update, in an order `run` (the parallel loop
// run, SIMT launch or block) leaves open. In a SIMT launch every thread's updates are unordered.
Uncertainty Machine::update_uncertainty(BinaryOp op, int key, int64_t k, uint64_t run, ScalarType t,
                                        ScalarValue old, Uncertainty old_u, const Value &v,
                                        ScalarValue r) {
  Uncertainty u = binary_uncertainty(op, t, old, old_u, v.v, v.u, r);
  if ((iteration_ < 0 && !simt_) || !is_float(t) || op == BinaryOp::Min || op == BinaryOp::Max)
    return u;
  if (op != BinaryOp::Add)
    return Uncertainty::any();
  SumStats &s = sums_[{key, k}];
  if (s.loop != run)
    s = SumStats{run, 0, std::fabs(old.f), old_u.error};
  s.terms += 1;
  s.magnitude += std::fabs(v.v.f);
  s.input_error += v.u.error;
  const double unit = t == ScalarType::F32 ? 0x1p-24 : 0x1p-53;
  double error = s.input_error + 2.02 * static_cast<double>(s.terms) * unit * s.magnitude;
  if (!std::isfinite(error) || !std::isfinite(r.f))
    return Uncertainty::any();
  return {error + (t == ScalarType::F32 ? 0x1p-126 : 0x1p-1074) * (s.terms + 1), 0};
}

void Machine::check_race(int array, int64_t k, bool write) {
  if (block_races_)
    check_block_race(array, k, write);
  if (iteration_ < 0 || !options_.check_races)
    return;
  if (std::optional<Race> race =
          races_.access(array, args_[array].array.size(), k, write, loop_run_, iteration_))
    throw InterpreterError(race_message(name_, params_[array].name, k, *race) + where());
}

// The linear index of array[indices], checked against the extents. `uncertain`: whether
// another backend may compute another index (a store there makes the run inconclusive).
int64_t Machine::element(int array, const std::vector<Expr> &indices, bool store, bool *uncertain) {
  const Param &p = params_.at(array);
  const Buffer &b = args_[array].array;
  int64_t linear = 0;
  *uncertain = false;
  for (size_t d = 0; d < indices.size(); ++d) {
    Value v = eval(indices[d]);
    if (v.u.unknown()) {
      if (store)
        note_inconclusive("a store index depends on an uncertain value" + where());
      *uncertain = true;
    }
    int64_t i = v.v.i, extent = b.shape[d];
    if (i < 0 || i >= extent)
      throw InterpreterError("kernel '" + name_ + "': index " + std::to_string(i) +
                             " is out of bounds of dimension " + std::to_string(d) + " of '" +
                             p.name + "' (extent " + std::to_string(extent) + ")" + where());
    linear = linear * extent + i;
  }
  return linear;
}

Value Machine::eval(const Expr &e) {
  switch (e.kind()) {
  case ExprKind::IntConst:
    return {int_value(e.type(), e.as<IntConst>()->value), {}};
  case ExprKind::FloatConst:
    return {float_value(e.type(), e.as<FloatConst>()->value), {}};
  case ExprKind::BoolConst:
    return {int_value(ScalarType::Bool, e.as<BoolConst>()->value), {}};
  case ExprKind::VarRef:
    return lookup(e.as<VarRef>()->var);
  case ExprKind::ArrayExtent: {
    auto *n = e.as<ArrayExtent>();
    return {int_value(ScalarType::I64, args_.at(n->array).array.shape.at(n->dim)), {}};
  }
  case ExprKind::Load: {
    auto *n = e.as<Load>();
    bool uncertain;
    int64_t k = element(n->array, n->indices, false, &uncertain);
    check_race(n->array, k, false);
    ScalarValue v = args_[n->array].array.get(k);
    if (uncertain)
      return {v, Uncertainty::any()};
    return {v, track_ ? shadows_[n->array][k] : Uncertainty{}};
  }
  case ExprKind::Unary: {
    auto *n = e.as<Unary>();
    Value a = eval(n->a);
    ScalarValue r = unary_op(n->op, n->type, a.v);
    return {r, track_ ? unary_uncertainty(n->op, n->type, a.v, a.u, r) : Uncertainty{}};
  }
  case ExprKind::Binary: {
    auto *n = e.as<Binary>();
    Value a = eval(n->a), b = eval(n->b);
    ScalarType t = n->a.type();
    ScalarValue r = binary_op(n->op, t, a.v, b.v);
    return {r, track_ ? binary_uncertainty(n->op, t, a.v, a.u, b.v, b.u, r) : Uncertainty{}};
  }
  case ExprKind::Select: {
    auto *n = e.as<Select>();
    Value c = eval(n->cond), a = eval(n->a), b = eval(n->b);
    Value r = c.v.i ? a : b;
    if (c.u.unknown())
      r.u = either_uncertainty(n->type, a.v, a.u, b.v, b.u, r.v);
    return r;
  }
  case ExprKind::Cast: {
    auto *n = e.as<Cast>();
    Value a = eval(n->a);
    ScalarValue r = cast_op(n->type, n->a.type(), a.v);
    return {r, track_ ? cast_uncertainty(n->type, n->a.type(), a.v, a.u, r) : Uncertainty{}};
  }
  case ExprKind::Call: {
    auto *n = e.as<Call>();
    ScalarValue values[3];
    Uncertainty us[3];
    for (size_t k = 0; k < n->args.size() && k < 3; ++k) {
      Value a = eval(n->args[k]);
      values[k] = a.v;
      us[k] = a.u;
    }
    ScalarValue r = math_op(n->fn, n->args[0].type(), values);
    return {r, track_ ? math_uncertainty(n->fn, n->args[0].type(), values, us, r) : Uncertainty{}};
  }
  case ExprKind::SpecialReg: {
    auto *n = e.as<SpecialReg>();
    return {int_value(ScalarType::I32, thread_->special[static_cast<int>(n->reg)][n->dim]), {}};
  }
  case ExprKind::SharedLoad: {
    auto *n = e.as<SharedLoad>();
    bool uncertain;
    if (n->array->local()) {
      LocalArray &l = local_array(n->array);
      int64_t k = array_element(*n->array, n->indices, false, &uncertain);
      if (!l.written[static_cast<size_t>(k)])
        throw InterpreterError("kernel '" + name_ + "': reads element " + std::to_string(k) +
                               " of local array '" + n->array->name +
                               "' before the iteration wrote it (a local array starts "
                               "uninitialised in every iteration)" +
                               where());
      ScalarValue v = l.values.get(k);
      if (uncertain)
        return {v, Uncertainty::any()};
      return {v, track_ ? l.shadows[static_cast<size_t>(k)] : Uncertainty{}};
    }
    const int a = shared_index(n->array);
    int64_t k = shared_element(a, n->indices, false, &uncertain);
    ScalarValue v = shared_buffers_[a].get(k);
    if (uncertain)
      return {v, Uncertainty::any()};
    return {v, track_ ? shared_shadows_[a][k] : Uncertainty{}};
  }
  case ExprKind::SharedExtent:
    if (!simt_)
      throw InterpreterError("kernel '" + name_ + "': the extent of dynamic shared array '" +
                             e.as<SharedExtent>()->array->name + "' outside a SIMT launch" +
                             where());
    return {int_value(ScalarType::I64, dynamic_extent_), {}};
  case ExprKind::WarpOp:
    return warp(e.as<WarpOp>());
  }
  throw InterpreterError("kernel '" + name_ + "': unknown expression");
}

} // namespace interpreter

namespace {

using interpreter::Machine;

template <class Body>
InterpreterResult run(Machine &machine, const InterpreterOptions &options,
                      const std::string &kernel, const std::vector<AssertSite> &sites, Body body) {
  InterpreterResult result;
  body();
  result.assert_failures = machine.assert_failure().count;
  if (const Machine::AssertFailure &f = machine.assert_failure();
      f.count > 0 && options.throw_on_assert) {
    const AssertSite &site = sites.at(f.site);
    KernelAssertionError::Indices indices;
    for (size_t k = 0; k < site.index_names.size() && k < f.indices.size(); ++k)
      indices.push_back({site.index_names[k], f.indices[k]});
    throw KernelAssertionError(kernel, site.message, site.file, site.line, std::move(indices),
                               f.count);
  }
  result.inconclusive = machine.inconclusive();
  result.steps = machine.steps();
  if (options.track_uncertainty)
    result.error_bounds = machine.error_bounds();
  return result;
}

void run_gpu_task(Machine &m, const Task &task, const InterpreterOptions &options) {
  // Axes past the domain's dimensions have one thread and one block, as runtime::GridShape
  // launches them: the grid-stride loops do not look at them.
  std::array<unsigned, 3> block = {1, 1, 1}, grid = {1, 1, 1};
  if (task.kind == TaskKind::Parallel)
    for (size_t d = 0; d < task.domain.size() && d < 3; ++d) {
      block[d] = std::max(options.gpu_block[d], 1u);
      grid[d] = std::max(options.gpu_grid[d], 1u);
    }
  for (int d = 0; d < 3; ++d) {
    m.set_special(Reg::BlockDim, d, block[d]);
    m.set_special(Reg::GridDim, d, grid[d]);
  }
  std::vector<std::vector<ScalarValue>> partials;
  // A fused task's threads run iterations of loops that were shown apart: no element one thread
  // writes may another access.
  const bool races = options.check_races && !task.fused.empty();
  if (races)
    m.begin_thread_races();
  int64_t thread = 0;
  for (unsigned bz = 0; bz < grid[2]; ++bz)
    for (unsigned by = 0; by < grid[1]; ++by)
      for (unsigned bx = 0; bx < grid[0]; ++bx)
        for (unsigned tz = 0; tz < block[2]; ++tz)
          for (unsigned ty = 0; ty < block[1]; ++ty)
            for (unsigned tx = 0; tx < block[0]; ++tx) {
              const unsigned b[3] = {bx, by, bz}, t[3] = {tx, ty, tz};
              for (int d = 0; d < 3; ++d) {
                m.set_special(Reg::BlockIdx, d, b[d]);
                m.set_special(Reg::ThreadIdx, d, t[d]);
              }
              m.bind_params();
              if (races)
                m.race_thread(thread++);
              m.exec(task.body);
              if (!task.reductions.empty())
                m.collect(task, partials);
            }
  if (races)
    m.race_thread(-1);
  if (!partials.empty())
    m.combine(task, partials);
}

void run_cpu_task(Machine &m, const Task &task, const InterpreterOptions &options) {
  m.bind_params();
  if (task.kind == TaskKind::Serial || !task.chunk_begin) { // not mapped yet: a ParallelFor
    m.exec(task.body);
    if (!task.reductions.empty()) {
      std::vector<std::vector<ScalarValue>> partials;
      m.collect(task, partials);
      m.combine(task, partials);
    }
    return;
  }
  const int64_t extent = m.domain_extent(task.domain.at(0));
  const int64_t chunks = std::max(options.cpu_chunks, 1);
  std::vector<std::vector<ScalarValue>> partials;
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t begin = extent * c / chunks, end = extent * (c + 1) / chunks;
    if (begin >= end)
      continue;
    m.bind_params();
    m.bind(task.chunk_begin, begin);
    m.bind(task.chunk_end, end);
    m.exec(task.body);
    if (!task.reductions.empty())
      m.collect(task, partials);
  }
  if (!partials.empty())
    m.combine(task, partials);
}

} // namespace

InterpreterResult interpret(const Kernel &input, std::vector<InterpreterArg> &args,
                            const InterpreterOptions &options) {
  const Kernel kernel = lower_asserts(expand_complex(expand_half(input)));
  interpreter::ComplexArgs complex(kernel.name, kernel.params, input.params.size(), args);
  Machine m(kernel.name, kernel.params, args, options);
  return run(m, options, kernel.name, kernel.assert_sites, [&] {
    if (kernel.simt()) {
      m.run_simt(kernel.body, kernel.shared);
      return;
    }
    m.bind_params();
    m.exec(kernel.body);
  });
}

InterpreterResult interpret(const LoweredKernel &kernel, std::vector<InterpreterArg> &args,
                            const InterpreterOptions &options) {
  // The task loops' variables are parameters past the kernel's own: arguments the walk sets, held
  // in `args` for the run only.
  const size_t own = args.size();
  struct Restore {
    std::vector<InterpreterArg> &args;
    size_t size;
    ~Restore() { args.resize(size); }
  } restore{args, own};
  const size_t imag = interpreter::imag_params(kernel.params);
  const size_t added = kernel.task_loops.size() + kernel.scratch.size();
  interpreter::ComplexArgs complex(kernel.name, kernel.params, kernel.params.size() - added - imag,
                                   args);
  if (own + imag + added == kernel.params.size()) {
    for (size_t k = 0; k < kernel.task_loops.size(); ++k)
      args.push_back(InterpreterArg::of_scalar(int_value(ScalarType::I64, 0)));
    // The scratch arrays the lowering added (ir::ScratchArray), sized from the arguments.
    if (!kernel.scratch.empty()) {
      ArgumentValues values;
      for (const InterpreterArg &a : args) {
        values.scalars.push_back(a.scalar);
        values.extents.push_back(a.array.shape);
      }
      values.strides.resize(values.extents.size());
      for (const ScratchArray &a : kernel.scratch) {
        std::vector<int64_t> shape;
        for (const Expr &e : a.extents)
          shape.push_back(std::max<int64_t>(0, evaluate(e, kernel.params, values).i));
        args.push_back(InterpreterArg::of_array(Buffer(kernel.params[a.param].type, shape)));
      }
    }
  }
  Machine m(kernel.name, kernel.params, args, options);
  return run(m, options, kernel.name, kernel.assert_sites, [&] {
    auto bound = [&](const Expr &e) {
      m.bind_params();
      return m.domain_extent(e);
    };
    auto set = [&](const TaskLoop &l, int64_t v) {
      args[l.param].scalar = int_value(ScalarType::I64, v);
    };
    run_task_program(kernel.tasks, kernel.task_loops, bound, set, [&](size_t t) {
      const Task &task = kernel.tasks[t];
      if (task.kind == TaskKind::Simt)
        m.run_simt(task.body, kernel.shared);
      else if (task.threads > 0) // block_per_iteration, tiles: the simulated grid's blocks,
        // that wide, with the dynamic shared memory the task's launch gives
        m.run_simt(task.body, kernel.shared, {std::max(options.gpu_grid[0], 1u), 1, 1},
                   {static_cast<unsigned>(task.threads), 1, 1}, task.dynamic_shared_bytes,
                   options.check_races);
      else if (kernel.target == Target::GPU)
        run_gpu_task(m, task, options);
      else
        run_cpu_task(m, task, options);
    });
  });
}

} // namespace loom::ir
