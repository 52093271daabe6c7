// Running a lowered kernel's tasks in their program order: the sequential loops around them
// (ir::TaskLoop) walked on the host, the same way by the runtime's calls and by the interpreter.
#pragma once

#include "ir/IR.h"
#include "support/Error.h"

#include <string>

namespace loom::ir {

namespace detail {

template <class Bound, class Set, class Run>
void run_task_range(const std::vector<TaskLoop> &loops, size_t first, size_t last, size_t &next,
                    Bound &bound, Set &set, Run &run) {
  for (size_t t = first; t < last;) {
    if (next >= loops.size() || loops[next].first != t) {
      run(t++);
      continue;
    }
    const TaskLoop &loop = loops[next++];
    const int64_t begin = bound(loop.begin), end = bound(loop.end), step = bound(loop.step);
    if (begin < end && step <= 0)
      throw ArgumentError("the step of the loop over '" + loop.var->name + "' is " +
                          std::to_string(step) +
                          "; a sequential loop around parallel loops needs a positive step");
    const size_t inner = next; // the loops nested in this one follow it
    for (int64_t i = begin; i < end;) {
      set(loop, i);
      next = inner;
      run_task_range(loops, loop.first, loop.last, next, bound, set, run);
      if (__builtin_add_overflow(i, step, &i))
        break;
    }
    next = inner;
    while (next < loops.size() && loops[next].first < loop.last)
      ++next;
    t = loop.last;
  }
}

} // namespace detail

// Runs `run(t)` for each task t of `tasks` in program order: the tasks of a TaskLoop once per
// value of its variable, after `set(loop, value)` bound it. `bound(e)` evaluates a loop's begin,
// end and step (i64) with the enclosing loops' variables bound. A loop whose step is not positive
// while it has iterations to run is an ArgumentError.
template <class Bound, class Set, class Run>
void run_task_program(const std::vector<Task> &tasks, const std::vector<TaskLoop> &loops,
                      Bound &&bound, Set &&set, Run &&run) {
  size_t next = 0;
  detail::run_task_range(loops, 0, tasks.size(), next, bound, set, run);
}

} // namespace loom::ir
