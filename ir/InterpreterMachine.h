// The interpreter's machine, internal to ir/Interpreter*.cpp: the evaluator of statements and
// expressions (ir/Interpreter.cpp) and the SIMT scheduler that runs a launch's threads
// (ir/InterpreterSimt.cpp) share its state. Its race checker is ir/RaceCheck.h.
#pragma once

#include "ir/IR.h"
#include "ir/Interpreter.h"
#include "ir/RaceCheck.h"
#include "ir/Semantics.h"
#include "ir/Uncertainty.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace loom::support {
class SimtBlock;
}

namespace loom::ir::interpreter {

struct Value {
  ScalarValue v;
  Uncertainty u;
};

// A local array's instance: its elements, which of them the running iteration (or SIMT thread)
// has written (a read of another is an InterpreterError: compiled code would read whatever the
// memory held), and their uncertainties with track_uncertainty.
struct LocalArray {
  Buffer values;
  std::vector<bool> written;
  std::vector<Uncertainty> shadows;
};

// What each thread has of its own: its locals, its local arrays, its registers (the thread
// geometry) and the statement it runs. A kernel of parallel loops runs as one thread; in a SIMT
// launch every thread of a block has one, and the machine switches to a thread's state whenever the
// thread runs.
struct ThreadState {
  std::unordered_map<const Variable *, Value> vars;
  std::unordered_map<const SharedArray *, LocalArray> locals; // instances made on first use
  unsigned special[4][3] = {{0, 0, 0}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}};
  const Stmt *current = nullptr;
  int linear = -1; // SIMT: the thread's index in its block (x fastest); else -1
  // SIMT with track_uncertainty: the uncertainty of what the thread gave its warp collectives,
  // two generations deep (as SimtBlock's warp buffers), and how many collectives it has joined.
  Uncertainty warp_u[2];
  unsigned warp_calls = 0;
  uint64_t barriers = 0; // SIMT: the block barriers it has passed
};

class Machine {
public:
  // Checks the arguments against the parameters (ArgumentError).
  Machine(const std::string &name, const std::vector<Param> &params,
          std::vector<InterpreterArg> &args, const InterpreterOptions &options);

  // The running thread's locals: the scalar parameters only, or one more variable.
  void bind_params();
  void bind(const Var &v, int64_t value) {
    thread_->vars[v.get()] = {int_value(v->type, value), {}};
  }
  void set_special(Reg reg, int dim, unsigned value) {
    thread_->special[static_cast<int>(reg)][dim] = value;
  }
  // A lowered GPU task whose threads must not meet (a fused task's, ir/FuseTasks.cpp): each
  // thread counts as an iteration of one parallel loop run for the race check
  // (InterpreterOptions::check_races); `thread` -1 ends it.
  void begin_thread_races() { ++loop_run_; }
  void race_thread(int64_t thread) { iteration_ = thread; }

  // A task reduction: each worker's accumulator once it has run, then the combined total.
  void collect(const Task &task, std::vector<std::vector<ScalarValue>> &partials);
  void combine(const Task &task, const std::vector<std::vector<ScalarValue>> &partials);

  // An expression over parameters only (a launch domain), outside any statement.
  int64_t domain_extent(const Expr &e);

  // Runs `s` in the running thread.
  void exec(const Stmt &s);

  // A SIMT launch of `body` (a SIMT kernel's, or its lowered task's) with the kernel's `shared`
  // arrays: every thread of options' simt_grid x simt_block runs it once. Blocks run one after
  // another (x fastest), each with its shared arrays zeroed, as the CPU runtime starts them. A
  // block's threads run one after another (x fastest) when the body has no barrier and no warp
  // collective; else on the fibers of a support::SimtBlock, which switch at each of them exactly
  // as compiled CPU code does. Throws what a thread throws, and InterpreterError when a block's
  // threads deadlock.
  // A dynamic shared array gets options' simt_dynamic_shared_bytes (ArgumentError when they do
  // not fit it: ir/DynamicShared.h).
  void run_simt(const Stmt &body, const std::vector<Shared> &shared) {
    run_simt(body, shared, options_.simt_grid, options_.simt_block,
             options_.simt_dynamic_shared_bytes);
  }
  // The same with the launch given (lowered block_per_iteration tasks: no dynamic shared memory).
  // `block_races`: a lowered task whose threads share a block's work (block_per_iteration, tiles,
  // serial tasks on a block): an array element one thread writes and another thread reads or
  // writes with no barrier between (or another block, at all) is an InterpreterError, a race the
  // lowering made.
  void run_simt(const Stmt &body, const std::vector<Shared> &shared,
                const std::array<unsigned, 3> &grid, const std::array<unsigned, 3> &block,
                int64_t dynamic_shared_bytes = 0, bool block_races = false);

  uint64_t steps() const { return steps_; }
  // Why the run is inconclusive for other backends (empty: it is not). The run goes on with the
  // interpreter's own values, so its results are those of a run without tracking.
  const std::string &inconclusive() const { return inconclusive_; }
  std::vector<std::vector<double>> error_bounds() const;
  // The failed assertions: the first one's site and index values, and how many failed.
  struct AssertFailure {
    uint64_t count = 0;
    int site = -1;
    std::vector<int64_t> indices;
  };
  const AssertFailure &assert_failure() const { return assert_failure_; }

private:
  // ---- the evaluator (ir/Interpreter.cpp) ----
  void exec_node(const Stmt &s);
  void atomic(const Atomic *n);
  void parallel(const ParallelFor *n, const std::vector<int64_t> &extents, size_t dim);
  void count_step(const Stmt &s);
  Value &lookup(const Var &v);
  void mma(const Mma *n);
  // An operand element of a tensor-core product as the tensor cores read it (an f32 rounded to
  // TF32 for `input` F32) and its uncertainty.
  struct ProductOperand {
    double value;
    Uncertainty u;
  };
  ProductOperand product_operand(ScalarType input, double value, Uncertainty u) const;
  // acc plus the `terms` products operands(k) gives, summed in k order in f32 (the products of
  // 16-bit or TF32 values are exact there). With uncertainty tracking, another backend's sum (in
  // the tensor cores' order, each addition rounded) is within 2 (terms + 1) 2^-24 of the sum of
  // the magnitudes, beyond what the operands' own uncertainties move.
  Value product_sum(
      const Value &acc, int64_t terms,
      const std::function<std::pair<ProductOperand, ProductOperand>(int64_t)> &operands) const;
  // Where the running thread is, for messages: its statement and, in SIMT, its position.
  std::string where() const;
  int shared_index(const Shared &a);
  int64_t shared_element(int a, const std::vector<Expr> &indices, bool store, bool *uncertain);
  // The running thread's instance of local array `a`.
  LocalArray &local_array(const Shared &a);
  // The linear index of an element of a shared or local array, checked against its extents.
  int64_t array_element(const SharedArray &a, const std::vector<Expr> &indices, bool store,
                        bool *uncertain);
  int64_t element(int array, const std::vector<Expr> &indices, bool store, bool *uncertain);
  void check_race(int array, int64_t k, bool write);
  void check_block_race(int array, int64_t k, bool write);
  Value eval(const Expr &e);

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
  Uncertainty reduce_uncertainty(const Reduce *n, int64_t k, ScalarType t, ScalarValue old,
                                 const Value &v, ScalarValue r);
  Uncertainty update_uncertainty(BinaryOp op, int key, int64_t k, uint64_t run, ScalarType t,
                                 ScalarValue old, Uncertainty old_u, const Value &v, ScalarValue r);

  // ---- the SIMT scheduler (ir/InterpreterSimt.cpp) ----
  // The running SIMT block's scheduler, for a barrier or a warp collective.
  support::SimtBlock &simt_block(const char *what);
  void barrier();
  Value warp(const WarpOp *n);

  // ---- Hopper's warpgroup level (ir/InterpreterWarpgroup.cpp) ----
  void mbarrier(const Mbarrier *n);
  void warpgroup_mma(const WarpgroupMma *n);
  // A memory barrier of the running block: its count, the arrivals its phase still waits for,
  // and the parity of the phase in progress.
  struct MemoryBarrier {
    int64_t count = 0, pending = 0, phase = 0;
  };
  std::map<std::pair<int, int64_t>, MemoryBarrier> mbarriers_; // by shared array and byte
  uint64_t idle_yields_ = 0; // yields of waiting threads since the last arrival

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
  int64_t dynamic_extent_ = 0; // the dynamic shared array's extent in this launch
  support::SimtBlock *fibers_ = nullptr;
  std::vector<ThreadState> threads_;
  bool simt_ = false;      // a SIMT launch is running
  uint64_t block_run_ = 0; // counts the blocks run, for float sums into shared arrays
  RaceChecker races_;
  // A launch's accesses to array elements by the threads of lowered tasks (run_simt's
  // block_races): for each array and element, the last write and the reads since (thread -2:
  // several threads).
  struct BlockAccess {
    uint64_t block = 0, epoch = 0;
    int thread = -1; // -1: none
  };
  bool block_races_ = false;
  std::vector<std::vector<BlockAccess>> block_writes_, block_reads_;
  uint64_t loop_run_ = 0; // counts the parallel loops (and SIMT launches) run
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
  AssertFailure assert_failure_;
};

} // namespace loom::ir::interpreter
