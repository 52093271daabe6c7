#include "ir/Interpreter.h"

#include "ir/Mutator.h"
#include "ir/Printer.h"
#include "ir/Synchronizes.h"
#include "ir/Uncertainty.h"
#include "support/Error.h"
#include "support/SimtBlock.h"

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

// What each thread has of its own: its locals, its registers (the thread geometry) and the
// statement it runs. A kernel of parallel loops runs as one thread; in a SIMT launch every thread
// of a block has one, and the machine switches to a thread's state whenever the thread runs.
struct ThreadState {
  std::unordered_map<const Variable *, Value> vars;
  unsigned special[4][3] = {{0, 0, 0}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}};
  const Stmt *current = nullptr;
  int linear = -1; // SIMT: the thread's index in its block (x fastest); else -1
  // SIMT with track_uncertainty: the uncertainty of what the thread gave its warp collectives,
  // two generations deep (as SimtBlock's warp buffers), and how many collectives it has joined.
  Uncertainty warp_u[2];
  unsigned warp_calls = 0;
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
    thread_->vars.clear();
    for (size_t k = 0; k < params_.size(); ++k)
      if (params_[k].kind == ParamKind::Scalar && params_[k].var) {
        ScalarType t = params_[k].type;
        ScalarValue v = args_[k].scalar;
        thread_->vars[params_[k].var.get()] = {
            is_float(t) ? float_value(t, v.f) : int_value(t, v.i), {}};
      }
  }
  void bind(const Var &v, int64_t value) {
    thread_->vars[v.get()] = {int_value(v->type, value), {}};
  }

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
    thread_->special[static_cast<int>(reg)][dim] = value;
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
    const Stmt *saved = thread_->current;
    thread_->current = &s;
    exec_node(s);
    thread_->current = saved;
  }

  uint64_t steps() const { return steps_; }

  // A SIMT launch of `body` (a SIMT kernel's, or its lowered task's) with the kernel's `shared`
  // arrays: every thread of options' simt_grid x simt_block runs it once. Blocks run one after
  // another (x fastest), each with its shared arrays zeroed, as the CPU runtime starts them. A
  // block's threads run one after another (x fastest) when the body has no barrier and no warp
  // collective; else on the fibers of a support::SimtBlock, which switch at each of them exactly
  // as compiled CPU code does. Throws what a thread throws, and InterpreterError when a block's
  // threads deadlock.
  void run_simt(const Stmt &body, const std::vector<Shared> &shared) {
    run_simt(body, shared, options_.simt_grid, options_.simt_block);
  }
  // The same with the launch given (lowered block_per_iteration tasks).
  void run_simt(const Stmt &body, const std::vector<Shared> &shared,
                const std::array<unsigned, 3> &grid, const std::array<unsigned, 3> &block) {
    auto text = [](const std::array<unsigned, 3> &v) {
      return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " +
             std::to_string(v[2]) + ")";
    };
    const int64_t threads = int64_t(block[0]) * block[1] * block[2];
    if (threads == 0 || grid[0] == 0 || grid[1] == 0 || grid[2] == 0 ||
        threads > support::SimtBlock::max_threads)
      throw ArgumentError("kernel '" + name_ + "': launch shape grid " + text(grid) + " x block " +
                          text(block) + ": " +
                          (threads > support::SimtBlock::max_threads
                               ? "a block has at most " +
                                     std::to_string(support::SimtBlock::max_threads) +
                                     " threads, this one " + std::to_string(threads)
                               : std::string("every extent must be at least 1")));
    shared_ = shared;
    shared_buffers_.clear();
    shared_shadows_.assign(shared.size(), {});
    for (const Shared &a : shared)
      shared_buffers_.emplace_back(a->type, a->extents);
    // Fiber stacks commit memory only as they are used; the interpreter recurses more deeply
    // than compiled code, so they are larger than the CPU runtime's.
    std::unique_ptr<support::SimtBlock> fibers;
    if (synchronizes(body))
      fibers = std::make_unique<support::SimtBlock>(static_cast<int>(threads), 1024 * 1024);
    fibers_ = fibers.get();
    threads_.resize(static_cast<size_t>(threads));
    simt_ = true;
    ++loop_run_; // float sums into array parameters: unordered within the launch
    for (unsigned bz = 0; bz < grid[2]; ++bz)
      for (unsigned by = 0; by < grid[1]; ++by)
        for (unsigned bx = 0; bx < grid[0]; ++bx) {
          ++block_run_; // and into shared arrays, within the block
          for (size_t a = 0; a < shared_buffers_.size(); ++a) {
            std::fill(shared_buffers_[a].bytes.begin(), shared_buffers_[a].bytes.end(), 0);
            if (track_)
              shared_shadows_[a].assign(static_cast<size_t>(shared_buffers_[a].size()), {});
          }
          const unsigned b[3] = {bx, by, bz};
          for (int64_t t = 0; t < threads; ++t) {
            ThreadState &th = threads_[t];
            th.current = nullptr;
            th.linear = static_cast<int>(t);
            th.warp_calls = 0;
            const unsigned idx[3] = {static_cast<unsigned>(t % block[0]),
                                     static_cast<unsigned>(t / block[0] % block[1]),
                                     static_cast<unsigned>(t / (int64_t(block[0]) * block[1]))};
            for (int d = 0; d < 3; ++d) {
              th.special[static_cast<int>(Reg::ThreadIdx)][d] = idx[d];
              th.special[static_cast<int>(Reg::BlockIdx)][d] = b[d];
              th.special[static_cast<int>(Reg::BlockDim)][d] = block[d];
              th.special[static_cast<int>(Reg::GridDim)][d] = grid[d];
            }
            thread_ = &th;
            bind_params();
          }
          if (!fibers) {
            for (ThreadState &th : threads_) {
              thread_ = &th;
              exec(body);
            }
            continue;
          }
          bool thread_threw = false;
          try {
            fibers->run(static_cast<int>(threads), [&](int t) {
              thread_ = &threads_[t];
              try {
                exec(body);
              } catch (...) {
                thread_threw = true;
                throw;
              }
            });
          } catch (const InterpreterError &e) {
            if (thread_threw)
              throw;
            throw InterpreterError("kernel '" + name_ + "', block " + text({bx, by, bz}) + ": " +
                                   e.what()); // the block deadlocked
          }
        }
    simt_ = false;
    fibers_ = nullptr;
    thread_ = &main_thread_;
  }

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
      const int a = shared_index(n->array);
      int64_t k = shared_element(a, n->indices, true, &uncertain);
      shared_buffers_[a].set(k, v.v);
      if (track_)
        shared_shadows_[a][k] = v.u;
      return;
    }
    case StmtKind::Barrier: {
      ThreadState *self = thread_;
      simt_block("a barrier").barrier(); // the block's other threads run meanwhile
      thread_ = self;
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
  void atomic(const Atomic *n) {
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
    auto it = thread_->vars.find(v.get());
    if (it == thread_->vars.end())
      throw InterpreterError("kernel '" + name_ + "': variable '" + v->name +
                             "' is used before it is declared");
    return it->second;
  }

  std::string where() const {
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

  // The running SIMT block's scheduler, for a barrier or a warp collective.
  support::SimtBlock &simt_block(const char *what) {
    if (!fibers_)
      throw InterpreterError("kernel '" + name_ + "': " + what + " outside a SIMT kernel" +
                             where());
    return *fibers_;
  }

  // A warp collective: the thread gives its value and waits, while the other threads run, until
  // every unfinished lane of its warp has given one; the result is ir::warp_result's.
  Value warp(const WarpOp *n) {
    const Value v = eval(n->value);
    const Value operand = n->operand.defined() ? eval(n->operand) : Value{};
    const uint64_t bits = value_bits(n->value.type(), v.v);
    ThreadState *self = thread_;
    support::SimtBlock &block = simt_block("a warp collective");
    const int lane = self->linear % support::SimtBlock::warp_size;
    const unsigned generation = self->warp_calls++;
    if (track_)
      self->warp_u[generation % 2] = v.u;
    const support::SimtBlock::WarpValues &w = block.warp_exchange(bits);
    thread_ = self; // the other threads ran meanwhile
    const int32_t d = static_cast<int32_t>(operand.v.i);
    Value r{value_from_bits(n->type, warp_result(n->op, w.value.data(), w.active, lane, bits, d)),
            {}};
    if (!track_)
      return r;
    // The lanes' uncertainties, read before this thread's next collective (after it, a lane may
    // overwrite the slot; two slots suffice, as for SimtBlock's buffers).
    const ThreadState *warp0 = self - lane;
    const bool vote =
        n->op == WarpOpKind::Any || n->op == WarpOpKind::All || n->op == WarpOpKind::Ballot;
    if (vote) {
      for (int l = 0; l < support::SimtBlock::warp_size; ++l)
        if ((w.active >> l & 1u) && warp0[l].warp_u[generation % 2].unknown())
          r.u = Uncertainty::any();
    } else if (operand.u.unknown()) {
      r.u = Uncertainty::any();
    } else {
      // Which lane the value came from: the same selection applied to the lane numbers.
      static constexpr auto lanes = [] {
        std::array<uint64_t, 32> l{};
        for (int k = 0; k < 32; ++k)
          l[k] = static_cast<uint64_t>(k);
        return l;
      }();
      const int source = static_cast<int>(
          warp_result(n->op, lanes.data(), w.active, lane, static_cast<uint64_t>(lane), d));
      r.u = {warp0[source].warp_u[generation % 2].error, 0};
    }
    return r;
  }

  int shared_index(const Shared &a) {
    for (size_t k = 0; k < shared_.size(); ++k)
      if (shared_[k] == a)
        return static_cast<int>(k);
    throw InterpreterError("kernel '" + name_ + "': shared array '" + (a ? a->name : "?") +
                           "' is not one of the kernel's shared arrays" + where());
  }

  // The linear index of shared array `a`'s element at `indices`, checked against its extents.
  int64_t shared_element(int a, const std::vector<Expr> &indices, bool store, bool *uncertain) {
    const SharedArray &array = *shared_[a];
    int64_t linear = 0;
    *uncertain = false;
    for (size_t d = 0; d < indices.size(); ++d) {
      Value v = eval(indices[d]);
      if (v.u.unknown()) {
        if (store)
          note_inconclusive("a store index depends on an uncertain value" + where());
        *uncertain = true;
      }
      int64_t i = v.v.i, extent = d < array.extents.size() ? array.extents[d] : 0;
      if (i < 0 || i >= extent)
        throw InterpreterError("kernel '" + name_ + "': index " + std::to_string(i) +
                               " is out of bounds of dimension " + std::to_string(d) +
                               " of shared array '" + array.name + "' (extent " +
                               std::to_string(extent) + ")" + where());
      linear = linear * extent + i;
    }
    return linear;
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
    return update_uncertainty(binary_op_of(n->op), n->array, k, loop_run_, t, old,
                              shadows_[n->array][k], v, r);
  }

  // The same for any update `old op v` of element k of array `key` (a shared array's: -1 - its
  // index) that other iterations or threads also update, in an order `run` (the parallel loop
  // run, SIMT launch or block) leaves open. In a SIMT launch every thread's updates are unordered.
  Uncertainty update_uncertainty(BinaryOp op, int key, int64_t k, uint64_t run, ScalarType t,
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
      return {int_value(ScalarType::I32, thread_->special[static_cast<int>(n->reg)][n->dim]), {}};
    }
    case ExprKind::SharedLoad: {
      auto *n = e.as<SharedLoad>();
      bool uncertain;
      const int a = shared_index(n->array);
      int64_t k = shared_element(a, n->indices, false, &uncertain);
      ScalarValue v = shared_buffers_[a].get(k);
      if (uncertain)
        return {v, Uncertainty::any()};
      return {v, track_ ? shared_shadows_[a][k] : Uncertainty{}};
    }
    case ExprKind::WarpOp:
      return warp(e.as<WarpOp>());
    }
    throw InterpreterError("kernel '" + name_ + "': unknown expression");
  }

  const std::string &name_;
  const std::vector<Param> &params_;
  std::vector<InterpreterArg> &args_;
  const InterpreterOptions &options_;
  const bool track_;
  std::vector<std::vector<Uncertainty>> shadows_; // per array parameter and element
  ThreadState main_thread_;                       // the one thread outside SIMT launches
  ThreadState *thread_ = &main_thread_;           // the thread running now
  // A SIMT launch: its shared arrays (their buffers are the running block's), their shadows
  // with track_uncertainty, the block's fibers when it synchronizes, and its threads.
  std::vector<Shared> shared_;
  std::vector<Buffer> shared_buffers_;
  std::vector<std::vector<Uncertainty>> shared_shadows_;
  support::SimtBlock *fibers_ = nullptr;
  std::vector<ThreadState> threads_;
  bool simt_ = false;      // a SIMT launch is running
  uint64_t block_run_ = 0; // counts the blocks run, for float sums into shared arrays
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
  // Float sums of the running parallel loop or SIMT launch, per array parameter and element; a
  // shared array's (of the running block) under -1 - its index among the kernel's shared arrays.
  std::map<std::pair<int, int64_t>, SumStats> sums_;
  int64_t iteration_ = -1; // of the running parallel loop, row-major; -1 outside one
  uint64_t steps_ = 0;     // in all threads of a SIMT launch together
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
    if (kernel.simt) {
      m.run_simt(kernel.body, kernel.shared);
      return;
    }
    m.bind_params();
    m.exec(kernel.body);
  });
}

InterpreterResult interpret(const LoweredKernel &kernel, std::vector<InterpreterArg> &args,
                            const InterpreterOptions &options) {
  Machine m(kernel.name, kernel.params, args, options);
  return run(m, options, [&] {
    for (const Task &task : kernel.tasks) {
      if (task.kind == TaskKind::Simt)
        m.run_simt(task.body, kernel.shared);
      else if (task.threads > 0) // block_per_iteration: the simulated grid's blocks, that wide
        m.run_simt(task.body, kernel.shared, {std::max(options.gpu_grid[0], 1u), 1, 1},
                   {static_cast<unsigned>(task.threads), 1, 1});
      else if (kernel.target == Target::GPU)
        run_gpu_task(m, task, options);
      else
        run_cpu_task(m, task, options);
    }
  });
}

} // namespace loom::ir
