#include "ir/Interpreter.h"

#include "ir/Printer.h"
#include "ir/Uncertainty.h"
#include "support/Error.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <unordered_map>

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

namespace {

struct Value {
  ScalarValue v;
  Uncertainty u;
};

class Machine {
public:
  Machine(const std::string &name, const std::vector<Param> &params,
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

  void bind_params() {
    vars_.clear();
    for (size_t k = 0; k < params_.size(); ++k)
      if (params_[k].kind == ParamKind::Scalar && params_[k].var) {
        ScalarType t = params_[k].type;
        ScalarValue v = args_[k].scalar;
        vars_[params_[k].var.get()] = {is_float(t) ? float_value(t, v.f) : int_value(t, v.i), {}};
      }
  }
  void bind(const Var &v, int64_t value) { vars_[v.get()] = {int_value(v->type, value), {}}; }

  // A task reduction: each worker's accumulator once it has run, then the combined total.
  void collect(const Task &task, std::vector<std::vector<ScalarValue>> &partials) {
    partials.resize(task.reductions.size());
    for (size_t r = 0; r < task.reductions.size(); ++r)
      partials[r].push_back(lookup(task.reductions[r].accumulator).v);
  }
  void combine(const Task &task, const std::vector<std::vector<ScalarValue>> &partials) {
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

  void set_special(Reg reg, int dim, unsigned value) {
    special_[static_cast<int>(reg)][dim] = value;
  }

  // An expression over parameters only (a launch domain), outside any statement.
  int64_t domain_extent(const Expr &e) {
    Value v = eval(e);
    if (v.u.unknown())
      note_inconclusive("the launch domain " + to_string(e, params_) + " is uncertain");
    return v.v.i;
  }

  // Why the run is inconclusive for other backends (empty: it is not). The run goes on with the
  // interpreter's own values, so its results are those of a run without tracking.
  const std::string &inconclusive() const { return inconclusive_; }

  void exec(const Stmt &s) {
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
    const Stmt *saved = current_;
    current_ = &s;
    exec_node(s);
    current_ = saved;
  }

  uint64_t steps() const { return steps_; }

  std::vector<std::vector<double>> error_bounds() const {
    std::vector<std::vector<double>> out(params_.size());
    for (size_t k = 0; k < shadows_.size(); ++k)
      for (const Uncertainty &u : shadows_[k])
        out[k].push_back(u.error);
    return out;
  }

private:
  void exec_node(const Stmt &s) {
    switch (s.kind()) {
    case StmtKind::Declare: {
      auto *n = s.as<Declare>();
      vars_[n->var.get()] = eval(n->init);
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
      Value &index = vars_[n->var.get()];
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
    case StmtKind::SharedStore:
    case StmtKind::Barrier:
    case StmtKind::Atomic:
      break;
    }
    throw InterpreterError("kernel '" + name_ + "': the interpreter does not run SIMT kernels");
  }

  // Row-major: the last dimension varies fastest.
  void parallel(const ParallelFor *n, const std::vector<int64_t> &extents, size_t dim) {
    if (dim == extents.size()) {
      exec(n->body);
      ++iteration_;
      return;
    }
    for (int64_t i = 0; i < extents[dim]; ++i) {
      bind(n->vars[dim], i);
      parallel(n, extents, dim + 1);
    }
  }

  void count_step(const Stmt &s) {
    if (++steps_ > options_.step_limit)
      throw InterpreterError("kernel '" + name_ + "': the interpreter's step limit of " +
                             std::to_string(options_.step_limit) +
                             " statements was reached (a loop that does not end?) in:\n  " +
                             to_string(s, params_));
  }

  Value &lookup(const Var &v) {
    auto it = vars_.find(v.get());
    if (it == vars_.end())
      throw InterpreterError("kernel '" + name_ + "': variable '" + v->name +
                             "' is used before it is declared");
    return it->second;
  }

  std::string where() const {
    return current_ ? "\n  in: " + to_string(*current_, params_) : std::string();
  }

  void note_inconclusive(const std::string &why) {
    if (inconclusive_.empty())
      inconclusive_ = why;
  }
  bool decide(const Value &v, const char *what) {
    if (v.u.unknown())
      note_inconclusive(std::string(what) + " depends on an uncertain value" + where());
    return v.v.i != 0;
  }
  int64_t integer(const Value &v, const char *what) {
    if (v.u.unknown())
      note_inconclusive(std::string(what) + " depends on an uncertain value" + where());
    return v.v.i;
  }

  // The uncertainty of a Reduce's result. Inside a parallel loop the updates may combine in any
  // order: a float sum of n terms in any order is within n * u * sum|x| of the exact one (u the
  // unit roundoff), so two orders are within twice that; a float product's order can move it
  // anywhere near overflow, so it is not compared. An f32 sum may also lose up to the smallest
  // normal float per term: the GPU's atom.add.f32 flushes subnormal inputs and results to zero.
  Uncertainty reduce_uncertainty(const Reduce *n, int64_t k, ScalarType t, ScalarValue old,
                                 const Value &v, ScalarValue r) {
    Uncertainty old_u = shadows_[n->array][k];
    Uncertainty u = binary_uncertainty(binary_op_of(n->op), t, old, old_u, v.v, v.u, r);
    if (iteration_ < 0 || !is_float(t) || n->op == ReduceOp::Min || n->op == ReduceOp::Max)
      return u;
    if (n->op == ReduceOp::Mul)
      return Uncertainty::any();
    SumStats &s = sums_[{n->array, k}];
    if (s.loop != loop_run_)
      s = SumStats{loop_run_, 0, std::fabs(old.f), old_u.error};
    s.terms += 1;
    s.magnitude += std::fabs(v.v.f);
    s.input_error += v.u.error;
    const double unit = t == ScalarType::F32 ? 0x1p-24 : 0x1p-53;
    double error = s.input_error + 2.02 * static_cast<double>(s.terms) * unit * s.magnitude;
    if (!std::isfinite(error) || !std::isfinite(r.f))
      return Uncertainty::any();
    return {error + (t == ScalarType::F32 ? 0x1p-126 : 0x1p-1074) * (s.terms + 1), 0};
  }

  // Iterations of a parallel loop may run in any order, or at once: one that writes an element
  // another reads or writes gives different results on different targets.
  void check_race(int array, int64_t k, bool write) {
    if (iteration_ < 0 || !options_.check_races)
      return;
    if (accesses_.empty())
      accesses_.resize(params_.size());
    std::vector<Access> &table = accesses_[array];
    if (table.empty())
      table.resize(static_cast<size_t>(args_[array].array.size()));
    Access &a = table[k];
    if (a.loop != loop_run_)
      a = Access{loop_run_};
    int64_t other = -1;
    if (a.writer >= 0 && a.writer != iteration_)
      other = a.writer;
    else if (write && a.reader >= 0 && (a.reader != iteration_ || a.many_readers))
      other = a.reader != iteration_ ? a.reader : -2;
    if (other != -1)
      throw InterpreterError("kernel '" + name_ + "': data race on element " + std::to_string(k) +
                             " of '" + params_[array].name + "': parallel iterations " +
                             std::to_string(iteration_) +
                             (other >= 0 ? " and " + std::to_string(other) : " and another") +
                             " (row-major) both access it and one writes it" + where());
    if (write)
      a.writer = iteration_;
    else if (a.reader < 0)
      a.reader = iteration_;
    else if (a.reader != iteration_)
      a.many_readers = true;
  }

  // The linear index of array[indices], checked against the extents. `uncertain`: whether
  // another backend may compute another index (a store there makes the run inconclusive).
  int64_t element(int array, const std::vector<Expr> &indices, bool store, bool *uncertain) {
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

  Value eval(const Expr &e) {
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
      ScalarValue r = math_op(n->fn, n->type, values);
      return {r, track_ ? math_uncertainty(n->fn, n->type, values, us, r) : Uncertainty{}};
    }
    case ExprKind::SpecialReg: {
      auto *n = e.as<SpecialReg>();
      return {int_value(ScalarType::I32, special_[static_cast<int>(n->reg)][n->dim]), {}};
    }
    case ExprKind::SharedLoad:
    case ExprKind::WarpOp:
      throw InterpreterError("kernel '" + name_ + "': the interpreter does not run SIMT kernels");
    }
    throw InterpreterError("kernel '" + name_ + "': unknown expression");
  }

  const std::string &name_;
  const std::vector<Param> &params_;
  std::vector<InterpreterArg> &args_;
  const InterpreterOptions &options_;
  const bool track_;
  std::vector<std::vector<Uncertainty>> shadows_; // per array parameter and element
  std::unordered_map<const Variable *, Value> vars_;
  unsigned special_[4][3] = {{0, 0, 0}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}};
  // Race checking in a parallel loop: per array element, which iteration wrote and read it.
  struct Access {
    uint64_t loop = 0; // the parallel loop run this entry is about; older entries are stale
    int64_t writer = -1, reader = -1;
    bool many_readers = false;
  };
  std::vector<std::vector<Access>> accesses_; // per array parameter and element
  uint64_t loop_run_ = 0;
  struct SumStats {
    uint64_t loop = 0;
    uint64_t terms = 0;
    double magnitude = 0, input_error = 0;
  };
  std::map<std::pair<int, int64_t>, SumStats> sums_; // float sums of the running parallel loop
  int64_t iteration_ = -1; // of the running parallel loop, row-major; -1 outside one
  uint64_t steps_ = 0;
  const Stmt *current_ = nullptr;
  std::string inconclusive_;
};

template <class Body>
InterpreterResult run(Machine &machine, const InterpreterOptions &options, Body body) {
  InterpreterResult result;
  body();
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
              m.exec(task.body);
              if (!task.reductions.empty())
                m.collect(task, partials);
            }
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

InterpreterResult interpret(const Kernel &kernel, std::vector<InterpreterArg> &args,
                            const InterpreterOptions &options) {
  Machine m(kernel.name, kernel.params, args, options);
  return run(m, options, [&] {
    m.bind_params();
    m.exec(kernel.body);
  });
}

InterpreterResult interpret(const LoweredKernel &kernel, std::vector<InterpreterArg> &args,
                            const InterpreterOptions &options) {
  Machine m(kernel.name, kernel.params, args, options);
  return run(m, options, [&] {
    for (const Task &task : kernel.tasks) {
      if (kernel.target == Target::GPU)
        run_gpu_task(m, task, options);
      else
        run_cpu_task(m, task, options);
    }
  });
}

} // namespace loom::ir
