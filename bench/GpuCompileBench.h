// The compile-latency sections of loom_gpu_bench (gpu_compile_bench.cpp): DSL -> PTX stage by
// stage, and PTX -> machine code by each linker.
#pragma once

namespace bench {

// DSL -> PTX for sm_90, medians per kernel and stage (needs no GPU); prints RESULT lines.
void ptx_times();
// PTX -> machine code: the driver's linker, nvJitLink and the driver's JIT at load (needs a
// GPU). Returns whether every cubin that should load did.
bool linker_times();

} // namespace bench
