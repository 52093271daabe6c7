// loom: JIT-compiled array kernels for NVIDIA GPUs and the CPU, written in C++.
//
//   auto saxpy = loom::kernel("saxpy", [](loom::F32 a, loom::Array<float> x, loom::Array<float> y)
//   {
//     loom::parallel_for(x.size(), [&](loom::Index i) { y[i] = a * x[i] + y[i]; });
//   });
//   saxpy(2.0f, x, y);
//
// or, from the text DSL (docs/language.md):
//   loom::Module m = loom::compile(source);
//   m["saxpy"](2.0f, x, y);
#pragma once

#include "frontend/DSL.h"
#include "loom/Cache.hpp"
#include "loom/Kernel.hpp"
#include "loom/Module.hpp"
#include "loom/Schedule.hpp"
#include "loom/Target.hpp"
#include "loom/Threads.hpp"
#include "loom/Variant.hpp"
#include "runtime/DeviceArray.h"
#include "runtime/HostMemory.h"
#include "runtime/Stream.h"
#include "support/Error.h"

#include <string>
#include <vector>

namespace loom {

// Traces `body` into a kernel; it is compiled for the chosen target on its first call. `names`
// name the parameters in dumps and error messages.
template <class F>
Kernel kernel(const std::string &name, F &&body, std::vector<std::string> names = {}) {
  return detail::make_kernel(trace(name, std::forward<F>(body), std::move(names)));
}

// Traces `body` into a SIMT kernel, CUDA's model (Numba's @cuda.jit): every thread of the launch
// runs the body, finding its work from thread_idx(), block_idx(), grid<1>() and the like, and
// may use shared arrays, barrier(), atomics and warp shuffles and votes (frontend/Simt.h). Give
// the launch shape with Kernel::shape(grid, block) before calling it. It runs on the CPU too:
// each block on one core, its threads on fibers that switch at barriers and warp collectives.
template <class F>
Kernel simt_kernel(const std::string &name, F &&body, std::vector<std::string> names = {}) {
  return detail::make_kernel(trace(name, std::forward<F>(body), std::move(names), /*simt=*/true));
}

} // namespace loom
