// One call of a kernel, on either target: the steps every call takes (run_call, loom/Call.cpp)
// and what a target does in them, in its own memory (loom/GpuCall.cpp, loom/CpuCall.cpp).
// Internal to loom (included by loom/*.cpp only).
#pragma once

#include "loom/KernelState.h"

#include <span>
#include <vector>

namespace loom {

// A target's part of one call: an object on the stack of run_on_gpu or run_on_cpu, living for
// that call only (a GPU call's staged buffers go with it, also when the call throws). Its
// methods are the steps run_call takes, in that order; a call makes a few indirect calls, none
// per iteration.
struct CallTarget {
  // The arrays the code reads where they are (device arrays on the GPU, host arrays on the CPU);
  // the others are foreign, staged through the target's memory.
  const Argument::Kind native;
  // Whether the bounds record can be read after each task (the CPU's, in host memory): a
  // violation is then reported before a later task reads what the task wrote. The GPU's is read
  // once its launches finished.
  const bool record_between_tasks;
  // The lowered kernel of the code the call runs (choose_code). The GPU's may switch task by task
  // to another variant, with the same parameters and tasks (check_same_task_abi).
  const ir::LoweredKernel *code = nullptr;

  // Sets `code`: the compiled code for this call's arguments.
  virtual void choose_code() = 0;
  // The address the code reads array parameter p at: a native array where it is...
  virtual uint64_t in_place(size_t p, const Argument &a) = 0;
  // ... and a foreign one, which the kernel touches, in `bytes` of the target's memory for this
  // call, holding the array's contents when `copy_in`.
  virtual uint64_t stage(size_t p, const Argument &a, size_t bytes, bool copy_in) = 0;
  // A bounds-checked kernel's record (support/Abi.h): its address, cleared; and its contents,
  // readable on the host (a claimed GPU record is cleared again for the next call).
  virtual uint64_t bounds_record() = 0;
  virtual const uint64_t *read_bounds_record() = 0;
  // How task t runs over `domain` (its extents, outermost first): the GPU's grid, and the variant
  // that grid needs. Tasks run in program order (ir/TaskLoops.h): a task in a task loop runs
  // once per iteration, each run complete before the next task's starts.
  virtual void prepare_task(size_t t, const std::vector<int64_t> &domain) = 0;
  // The address of scratch array k (ir::ScratchArray) of `bytes`, the kernel object's, which no
  // launch still running uses.
  virtual uint64_t scratch_array(size_t k, size_t bytes) = 0;
  // The scratch slots (support/Abi.h) of task t's reductions, ready for its run.
  virtual uint64_t reduction_scratch(size_t t) = 0;
  virtual void run_task(size_t t, const std::vector<int64_t> &domain, PackedParams &params) = 0;
  // After task t ran and passed the bounds check between tasks: its totals into their elements,
  // where the target leaves that to the call (the CPU; the GPU's last block does it).
  // `values`: the arguments, with the task loops' variables as they are for this run of t.
  virtual void combine_reductions(size_t t, const ir::ArgumentValues &values) = 0;
  // Waits for the tasks. False: the call ends here (an asynchronous call without bounds check,
  // whose faults surface at the stream's synchronization; it has no foreign arrays).
  virtual bool finish() = 0;
  // A foreign array the kernel wrote: its staged contents back into it.
  virtual void copy_back(size_t p, const Argument &a) = 0;

protected:
  CallTarget(Argument::Kind native, bool record_between_tasks)
      : native(native), record_between_tasks(record_between_tasks) {}
  ~CallTarget() = default;
};

// One call of `state`'s kernel on `target`, with the checked `values` of `args`. Its working
// storage is the KernelState's CallScratch: a call allocates nothing the target does not.
void run_call(KernelState &state, std::span<const Argument> args, const ir::ArgumentValues &values,
              CallTarget &target);

} // namespace loom
