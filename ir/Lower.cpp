#include "ir/Lower.h"

#include "ir/Passes.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"

namespace loom::ir {

LoweredKernel lower(const Kernel &kernel, Target target, const PassLog &log) {
  auto dump = [&](const char *pass, const auto &ir) {
    if (log)
      log(pass, to_string(ir));
  };
  verify(kernel);
  dump("input", kernel);

  LoweredKernel out{kernel.name, kernel.params, target, split_into_tasks(kernel)};
  out.fast_math = kernel.fast_math;
  out.bounds_check = kernel.bounds_check;
  dump("split_into_tasks", out);

  for (Task &t : out.tasks)
    t = lower_reductions(t, out.params);
  dump("lower_reductions", out);

  for (Task &t : out.tasks)
    t = map_parallel_loops(t, target);
  dump("map_parallel_loops", out);

  for (Task &t : out.tasks)
    t.body = simplify(t.body);
  dump("simplify", out);

  verify(out);
  return out;
}

} // namespace loom::ir
