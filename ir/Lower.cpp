#include "ir/Lower.h"

#include "ir/Mutator.h"

#include "ir/Passes.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "support/Error.h"
#include "support/Settings.h"

#include <type_traits>

namespace loom::ir {

namespace {

// The threads of the block a GPU serial task runs on where its loops allow (ir/SerialBlock.cpp):
// four warps, for loops of a few steps (lud's 16) and of many alike; their barriers cost little.
constexpr int serial_block_threads = 128;

// In a SIMT kernel `x[i] += v` means what it means in CUDA: a load, the operation and a store,
// not an atomic (atomic_add is there for that).
class PlainUpdates : public Mutator {
public:
  explicit PlainUpdates(const std::vector<Param> &params) : params_(params) {}

protected:
  Stmt mutate_node(const Reduce *n, const Stmt &) override {
    Expr old = Load::make(params_.at(n->array).type, n->array, n->indices);
    return Store::make(n->array, n->indices, Binary::make(binary_op_of(n->op), old, n->value));
  }

private:
  const std::vector<Param> &params_;
};

// The first local array `body` reads or writes, or null.
const SharedArray *local_array_in(const Stmt &body) {
  struct Finder : Visitor {
    const SharedArray *found = nullptr;
    void visit_node(const SharedLoad *n) override {
      if (n->array->local() && !found)
        found = n->array.get();
      Visitor::visit_node(n);
    }
    void visit_node(const SharedStore *n) override {
      if (n->array->local() && !found)
        found = n->array.get();
      Visitor::visit_node(n);
    }
  } finder;
  finder.visit(body);
  return finder.found;
}

// The tile schedule interleaves a thread's iterations and block_per_iteration spreads one over
// a block's threads: neither keeps an iteration's local array its own.
void refuse_local_arrays(const Task &t, const std::string &kernel, const char *schedule) {
  if (const SharedArray *a = local_array_in(t.body))
    throw CompileError("kernel '" + kernel + "' uses local array '" + a->name + "', which " +
                       schedule +
                       " cannot keep private to one iteration (it runs an iteration's "
                       "statements on several threads, or several iterations interleaved on "
                       "one); use the default schedule for this kernel");
}

} // namespace

LoweredKernel lower(const Kernel &input, Target target, const PassLog &log,
                    const LowerOptions &options) {
  // After each pass: the log, and the verifier under LOOM_VERIFY_EACH_PASS (else only the input
  // and the result are verified).
  const bool verify_each_pass = settings::verify_each_pass();
  auto dump = [&](const char *pass, const auto &ir) {
    if (log)
      log(pass, to_string(ir));
    if constexpr (std::is_same_v<std::decay_t<decltype(ir)>, LoweredKernel>)
      if (verify_each_pass)
        verify_after_pass(pass, ir);
  };
  verify(input);
  dump("input", input);
  const Kernel halves = expand_half(input);
  if (!halves.body.same_as(input.body))
    dump("expand_half", halves);
  const Kernel parts = expand_complex(halves);
  if (!parts.body.same_as(halves.body))
    dump("expand_complex", parts);
  Kernel kernel = lower_asserts(parts);
  if (!kernel.body.same_as(parts.body))
    dump("lower_asserts", kernel);
  if (Stmt pruned = drop_empty_parallel_loops(kernel.body); !pruned.same_as(kernel.body)) {
    kernel.body = pruned;
    dump("drop_empty_parallel_loops", kernel);
  }
  if (Stmt live = drop_dead_locals(kernel.body, kernel.bounds_check); !live.same_as(kernel.body)) {
    kernel.body = live;
    dump("drop_dead_locals", kernel);
  }

  LoweredKernel out;
  out.name = kernel.name;
  out.params = kernel.params;
  out.target = target;
  out.fast_math = kernel.fast_math;
  out.bounds_check = kernel.bounds_check;
  out.locals = kernel.locals;
  out.prints = contains<Print>(kernel.body);
  out.assert_sites = kernel.assert_sites;
  LoopHints runs;
  out.loops = loop_schedules_for(kernel, target, &runs);
  const Schedule &schedule = kernel.schedule;
  if (schedule.mapping == Mapping::Simt) {
    int64_t shared_bytes = 0;
    shared_offsets(kernel.shared, &shared_bytes);
    if (shared_bytes > max_shared_bytes)
      throw CompileError("kernel '" + kernel.name + "' declares " + std::to_string(shared_bytes) +
                         " bytes of shared arrays; a block may have at most " +
                         std::to_string(max_shared_bytes));
    // Every thread runs the body as written: there are no loops to map, no reductions to split.
    out.simt = true;
    out.shared = kernel.shared;
    out.locals = kernel.locals;
    out.prints = contains<Print>(kernel.body);
    Task task;
    task.name = kernel.name;
    task.kind = TaskKind::Simt;
    task.body = simplify(PlainUpdates(kernel.params).mutate(kernel.body));
    out.tasks.push_back(std::move(task));
    dump("simplify", out);
    verify(out);
    return out;
  }
  TaskProgram program = split_into_tasks(kernel);
  out.tasks = std::move(program.tasks);
  out.task_loops = std::move(program.loops);
  out.params = task_loop_params(kernel.params, out.task_loops);
  dump("split_into_tasks", out);

  for (Task &t : out.tasks)
    t = lower_reductions(t, out.params);
  dump("lower_reductions", out);

  // A pass over every task, dumped when it changed one.
  auto each_task = [&](const char *pass, auto &&rewrite) {
    bool changed = false;
    for (Task &t : out.tasks) {
      Task r = rewrite(t);
      changed = changed || !r.body.same_as(t.body);
      t = std::move(r);
    }
    if (changed)
      dump(pass, out);
  };
  // GPU passes of the default mapping that need every access where the program has it (no bounds
  // checks) and the loops as written (no loop schedules).
  const bool gpu_default = target == Target::GPU && schedule.mapping == Mapping::Parallel &&
                           !kernel.bounds_check && schedule.loops.empty();

  // GPU: consecutive parallel loops whose elements are apart in one launch (ir/FuseTasks.cpp).
  if (gpu_default && fuse_independent_tasks(out.tasks, out.task_loops, out.params))
    dump("fuse_independent_tasks", out);
  // GPU: what an iteration writes and reads back in a loop, in a local array (before the mapping,
  // whose parallel loops still give the iterations' ranges; only the default mapping keeps an
  // iteration on one thread).
  if (gpu_default)
    each_task("stage_private_elements",
              [&](const Task &t) { return stage_private_elements(t, out.params, out.locals); });

  // GPU: several steps of a task loop around a 1-D stencil in one launch (ir/StepsPerLaunch.cpp),
  // its tasks already mapped to blocks.
  if (gpu_default && run_steps_per_launch(out.tasks, out.task_loops, out.params, out.shared,
                                          out.scratch, settings::steps_per_launch()))
    dump("run_steps_per_launch", out);

  // GPU: a block for each iteration of the outer dimensions where the block's threads share what
  // a loop reads, staged in shared memory (ir/StageBlockReads.cpp); mapped here.
  if (gpu_default && settings::stage_block_reads())
    each_task("stage_block_reads",
              [&](const Task &t) { return stage_block_reads(t, out.params, out.shared); });

  // The kernel's one mapping choice, switched on here only. A task it does not apply to takes
  // the default mapping: block_per_iteration's on the CPU, and the tile schedule's tasks without
  // a 2-D parallel loop (grid-stride loops, as the tiles' launch is not a covering one).
  for (Task &t : out.tasks) {
    if (t.kind != TaskKind::Parallel || t.threads > 0) // not those mapped above
      continue;
    switch (schedule.mapping) {
    case Mapping::Tile:
      if (!has_2d_parallel_loop(t)) {
        t = map_parallel_loops(t, out.params, target);
      } else {
        refuse_local_arrays(t, kernel.name, "the tile schedule");
        // The tensor cores where the form and the tile allow them; where the schedule requires
        // them, on a GPU that has them, what does not allow them is the caller's mistake.
        const TensorCores use = schedule.tile.tensor_cores;
        std::string why_not = "the schedule turns them off (tensor_cores=False)";
        std::optional<Task> mma;
        if (target == Target::GPU && use != TensorCores::Off)
          mma = map_tile_mma(t, out.params, schedule.tile, options.sm, kernel.tf32, out.shared,
                             why_not);
        if (mma) {
          t = std::move(*mma);
          break;
        }
        if (target == Target::GPU && use == TensorCores::Required && options.sm >= 80)
          throw CompileError("kernel '" + kernel.name +
                             "': the tile schedule requires the tensor cores (tensor_cores=True), "
                             "but " +
                             why_not);
        t = map_tile(t, kernel.name, out.params, schedule.tile, out.shared, target);
        if (target == Target::CPU)
          t = map_parallel_loops(t, out.params, target); // chunks of the loop over tiles
        else
          t.tensor_cores = "not used: " + why_not;
      }
      break;
    case Mapping::BlockPerIteration:
      if (target == Target::GPU)
        refuse_local_arrays(t, kernel.name, "block_per_iteration");
      t = target == Target::GPU
              ? map_block_per_iteration(t, kernel.name, out.params, schedule.threads, out.shared)
              : map_parallel_loops(t, out.params, target, options.covering_launch, runs);
      break;
    case Mapping::Parallel:
    case Mapping::Simt: { // lowered above
      // The CPU's register blocks where loom chooses them (ir/AutoSchedule.cpp); loop schedules
      // are hand tuning of the default mapping, so loom then chooses nothing.
      std::string why;
      std::optional<TileSchedule> tile;
      if (target == Target::CPU && schedule.automatic && schedule.loops.empty())
        tile = auto_cpu_tile(t, out.params, options.cpu_vector_bits, options.cpu_vector_registers,
                             why);
      t = tile ? map_parallel_loops(map_tile(t, kernel.name, out.params, *tile, out.shared, target),
                                    out.params, target)
               : map_parallel_loops(t, out.params, target, options.covering_launch, runs);
      t.auto_schedule = why;
      break;
    }
    }
  }
  dump("map_parallel_loops", out);

  // After the mappings, which read the loops as the program wrote them; under bounds checks each
  // access stays where the program has it, so that the first bad index is the one reported.
  if (!kernel.bounds_check) {
    // GPU: a walk along z keeps what its steps load again in registers (ir/CarryLoads.cpp).
    if (target == Target::GPU && schedule.loops.empty())
      each_task("carry_loads_along_walks",
                [&](const Task &t) { return carry_loads_along_walks(t, out.params); });
    each_task("promote_element_updates",
              [&](const Task &t) { return promote_element_updates(t, out.params); });
    // GPU serial tasks on one block where loops of them have independent iterations (before the
    // short loops below change the loops' indices).
    if (target == Target::GPU)
      each_task("map_serial_block", [&](const Task &t) {
        if (t.kind != TaskKind::Serial)
          return t;
        std::string why;
        std::set<const For *> split = independent_loops(t, out.params, why);
        Task r = split.empty() ? t
                               : map_serial_block(t, kernel.name, out.params, serial_block_threads,
                                                  split, out.shared);
        // What the block reads back, in shared memory (ir/StagePrivate.cpp).
        if (!split.empty() && schedule.loops.empty())
          r = stage_serial_block(t, r, out.params, out.shared);
        r.serial_block = why;
        return r;
      });
    // Loop schedules name the loops as written: a kernel that has them keeps its loops.
    if (target == Target::GPU && schedule.loops.empty())
      each_task("run_short_loops_whole",
                [&](const Task &t) { return run_short_loops_whole(t, out.params); });
  }

  if (target == Target::CPU && !kernel.fast_math) {
    for (Task &t : out.tasks)
      t = accumulate_in_lanes(t);
    dump("accumulate_in_lanes", out);
  }

  for (Task &t : out.tasks)
    t.body = simplify(t.body);
  dump("simplify", out);

  // A task loop's launches overlap, each waiting at its start for the one before (sm_90 on).
  if (target == Target::GPU && options.sm >= 90 && !out.task_loops.empty())
    for (Task &t : out.tasks)
      t.waits_for_grid = true;

  verify(out);
  return out;
}

} // namespace loom::ir
