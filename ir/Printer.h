// Readable text of IR, used by dumps, explain() and golden tests.
#pragma once

#include "ir/IR.h"

#include <string>

namespace loom::ir {

std::string to_string(const Kernel &kernel);
std::string to_string(const LoweredKernel &kernel);
// The variables of the kernel's loops as to_string(kernel) names them ("k", "k.1"), in order of
// appearance, each with whether it is a parallel loop's.
struct LoopVariable {
  std::string name;
  Var var;
  bool parallel;
};
std::vector<LoopVariable> loop_variables(const Kernel &kernel);
// The exact text of a lowered kernel, which compile caches key on: equal texts mean equal code.
// Unlike to_string, variables are numbered (names may repeat), each listed with its type, arrays
// are parameter indices, float constants are exact (hexadecimal) and names are escaped.
std::string canonical_text(const LoweredKernel &kernel);
// An expression or statement alone; `params` names arrays (may be empty: arrays print as #k).
std::string to_string(const Expr &e, const std::vector<Param> &params = {});
// "kernel(a: f32, x: f32[n], y: f32[n])": the parameters with their shape symbols ("?" where a
// dimension has none), as argument errors show a kernel.
std::string signature(const Kernel &k);
// "[2, 3]"; "[2, 3, ...]" when `shape` holds fewer extents than its size() counts.
template <class Extents> std::string shape_text(const Extents &shape) {
  std::string s = "[";
  for (const int64_t &e : shape)
    s += (&e != &*shape.begin() ? ", " : "") + std::to_string(e);
  if (shape.size() > static_cast<size_t>(shape.end() - shape.begin()))
    s += ", ...";
  return s + "]";
}
std::string to_string(const Stmt &s, const std::vector<Param> &params = {});

} // namespace loom::ir
