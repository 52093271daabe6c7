// The text DSL's entry point: source text to the IR of its @kernel functions. LLVM-free.
//
//   @kernel
//   def saxpy(a: f32, x: f32[n], y: f32[n]):
//       for i in parallel(n):
//           y[i] = a * x[i] + y[i]
//
// The language is described in docs/language.md; loom::compile (loom/Module.h) makes callable
// kernels of it.
#pragma once

#include "frontend/text/Diagnostics.h"
#include "ir/IR.h"

#include <string>
#include <vector>

namespace loom::text {

// The IR of every @kernel function of `source`, in source order (helper functions are inlined
// into them). Throws SourceError listing every error found, each located in `filename`.
std::vector<ir::Kernel> parse_kernels(const std::string &source,
                                      const std::string &filename = "<source>");

} // namespace loom::text
