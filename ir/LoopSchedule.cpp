// Kernel::unroll and Kernel::vectorize: the names a kernel's loop schedules give, checked against
// its loops and resolved to the loop variables lowering keeps.
#include "ir/IR.h"
#include "ir/Passes.h"
#include "ir/Printer.h"
#include "support/Error.h"

#include <algorithm>

namespace loom::ir {

namespace {

const LoopVariable *find(const std::vector<LoopVariable> &loops, const std::string &name) {
  auto it = std::find_if(loops.begin(), loops.end(),
                         [&](const LoopVariable &l) { return l.name == name; });
  return it == loops.end() ? nullptr : &*it;
}

std::string list(const std::vector<LoopVariable> &loops, bool parallel) {
  std::string out;
  for (const LoopVariable &l : loops)
    if (l.parallel == parallel)
      out += (out.empty() ? "'" : ", '") + l.name + "'";
  return out.empty() ? "none" : out;
}

} // namespace

std::string loop_schedule_problem(const LoopSchedules &loops, const Kernel &kernel) {
  const std::vector<LoopVariable> variables = loop_variables(kernel);
  const std::string existing = "(its sequential loops: " + list(variables, false) +
                               "; its parallel loop variables: " + list(variables, true) +
                               "; as ir_text() names them)";
  for (const auto &[name, schedule] : loops) {
    const LoopVariable *loop = find(variables, name);
    if (schedule.unroll > 0 && (!loop || loop->parallel))
      return "unroll('" + name + "'): kernel '" + kernel.name + "' has no sequential loop over " +
             (loop ? "'" + name + "', which is a parallel loop's variable "
                   : "a variable '" + name + "' ") +
             existing;
    if (schedule.vectorize > 0 && !loop)
      return "vectorize('" + name + "'): kernel '" + kernel.name +
             "' has no loop over a variable '" + name + "' " + existing;
  }
  return "";
}

LoopHints loop_schedules_for(const Kernel &kernel, Target target, LoopHints *runs) {
  // The names fit the kernel's loops (schedule_problem, which verify(kernel) checks). The tile
  // schedule replaces the kernel's loops by loops of its own (ir/Tile.cpp), which the names would
  // not reach: refused rather than ignored.
  const Schedule &s = kernel.schedule;
  if (s.mapping == Mapping::Tile && !s.loops.empty())
    throw CompileError("kernel '" + kernel.name +
                       "': unroll and vectorize do not combine with "
                       "the tile schedule, which makes its own loops (and unrolls them whole)");
  LoopHints out;
  for (const LoopVariable &l : loop_variables(kernel)) {
    auto it = s.loops.find(l.name);
    if (it == s.loops.end())
      continue;
    LoopSchedule schedule = it->second;
    // On the GPU a parallel loop's vectorize is its runs (map_parallel_loops), which the other
    // mappings do not make; on the CPU the variable is a sequential loop inside each chunk.
    if (target == Target::GPU && l.parallel && schedule.vectorize > 0) {
      if (s.mapping != Mapping::Parallel)
        throw CompileError("vectorize('" + l.name + "') of kernel '" + kernel.name +
                           "': on the GPU, vectorizing a parallel loop takes runs of consecutive "
                           "iterations per thread, which " +
                           mapping_name(s.mapping) + " does not do");
      (*runs)[l.var].vectorize = schedule.vectorize;
      schedule.vectorize = 0;
    }
    if (schedule != LoopSchedule())
      out[l.var] = schedule;
  }
  return out;
}
} // namespace loom::ir
