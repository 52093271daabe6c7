// Code generation from lowered IR: LLVM IR, PTX for NVIDIA GPUs, and native code for the host CPU.
// This header is LLVM-free so that the rest of loom can call codegen without LLVM headers.
#pragma once

#include "ir/IR.h"
#include "support/Abi.h"

#include <memory>
#include <string>
#include <vector>

namespace loom::codegen {

// What the PTX is generated for.
struct GpuTarget {
  std::string sm = "sm_90";   // e.g. "sm_80"; see sm_for_compute_capability
  int ptx_version = 0;        // e.g. 85 for PTX ISA 8.5; 0 = the highest LLVM supports
  std::string libdevice_path; // empty: $LOOM_LIBDEVICE, else the CUDA installation's
  // (Fast math is the kernel's own option, ir::LoweredKernel::fast_math, not the target's.)
  // Array indices and the loop counters they bound in 32-bit arithmetic (as nvcc's `int`), which
  // halves the instructions of index-heavy loops. Such code is valid only for a call whose arrays
  // each have at most index32_max_elements elements and whose grid has at most
  // index32_max_blocks blocks in every dimension.
  bool index32 = false;
  // The first tier of a tiered compile (loom/Compile.cpp): LLVM's short pipeline quick_pipeline
  // instead of O3, and the NVPTX backend at -O0. ptxas still optimizes the PTX; the code runs
  // while the optimized code compiles in the background.
  bool quick = false;
};
// The LLVM passes of a quick compile: inlining (the task body and libdevice), promotion of
// variables to registers, and local clean-ups; no loop passes (bench/RESULTS.md, tiered compile).
// InstCombine without verify-fixpoint, as LLVM's own pipelines run it: in LLVM 19 the textual
// `instcombine` aborts the process when one iteration does not reach a fixpoint.
inline constexpr const char *quick_pipeline =
    "inline,function(sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg)";
inline constexpr int64_t index32_max_elements = int64_t(1) << 30;
inline constexpr int64_t index32_max_blocks = int64_t(1) << 19;

enum class LlvmStage { Unoptimized, Optimized };

// How long each LLVM stage of one compilation took (for compile_times() and the benchmarks).
struct StageTimes {
  double llvm_ir_ms = 0;  // loom IR -> LLVM IR, libdevice linked on the GPU
  double optimize_ms = 0; // the O3 pipeline (a quick compile's: quick_pipeline)
  double emit_ms = 0;     // PTX text or object code
};

// The LLVM IR module of a lowered kernel as text (for dumps and teaching). For GPU kernels `gpu`
// gives the target; libdevice is linked only at the Optimized stage.
std::string emit_llvm(const ir::LoweredKernel &kernel, LlvmStage stage,
                      const GpuTarget &gpu = GpuTarget());

// PTX text for a lowered GPU kernel: one .entry per task, named as the task.
std::string emit_ptx(const ir::LoweredKernel &kernel, const GpuTarget &gpu,
                     StageTimes *times = nullptr);

// Native code for a lowered CPU kernel, JIT-compiled in this process. Destroying it frees the code.
class CpuCode {
public:
  virtual ~CpuCode() = default;
  // Entry points, one per task, in task order.
  virtual const std::vector<CpuTaskFn> &tasks() const = 0;
};
// Relocatable object code (ELF) of a lowered CPU kernel for this host, optimized at O3: what
// the disk cache stores.
std::string compile_cpu_object(const ir::LoweredKernel &kernel, StageTimes *times = nullptr);
// Links object code from compile_cpu_object (of this process or of a cache) into the JIT; no
// optimization or code generation runs. Throws CompileError when it cannot be linked or lacks an
// entry point of a task of `kernel`.
std::unique_ptr<CpuCode> load_cpu_object(const std::string &object,
                                         const ir::LoweredKernel &kernel);
// compile_cpu_object, then load_cpu_object.
std::unique_ptr<CpuCode> compile_cpu(const ir::LoweredKernel &kernel);

// The host CPU as LLVM names it (e.g. "znver3"), for explain().
std::string host_cpu_name();
// The host's vector registers as code generation uses them: width in bits and number (AVX-512:
// 512 and 32; AVX2: 256 and 16; SSE: 128 and 16; AArch64's NEON: 128 and 32).
struct VectorRegisters {
  int bits = 0, count = 0;
};
VectorRegisters host_vector_registers();

// What generated code depends on besides the IR and GpuTarget, for compile cache keys:
// LLVM's version ("19.1.7"); the triple, CPU name and features CPU code is generated for; and
// the libdevice file a GPU kernel would link (path, size and modification time, or "none").
std::string llvm_version();
// LOOM_LLVM_ARGS, the options handed to LLVM's command-line parser once per process (empty when
// unset). Throws loom::CompileError when LLVM rejected them.
std::string llvm_options();
std::string host_cpu_identity();
std::string libdevice_identity(const GpuTarget &gpu);

// Highest PTX ISA version LLVM's NVPTX backend can emit (e.g. 85).
int max_llvm_ptx_version();
// Highest PTX ISA version a CUDA driver accepts, from cuDriverGetVersion's value (e.g. 12040).
int ptx_version_for_driver(int driver_version);
// "sm_XY" for a compute capability, clamped to the newest architecture LLVM supports.
std::string sm_for_compute_capability(int major, int minor);

} // namespace loom::codegen
