// The module pipeline of each target, shared by its public entry points and emit_llvm.
#pragma once

#include "codegen/Codegen.h"

#include <llvm/IR/Module.h>

#include <chrono>
#include <memory>

namespace loom::codegen {

// Codegen for the host CPU, with its CPU name and features on every function; O3 when `optimize`.
std::unique_ptr<llvm::Module> cpu_module(const ir::LoweredKernel &kernel,
                                         llvm::LLVMContext &context, bool optimize,
                                         StageTimes *times = nullptr);

// Codegen for NVPTX; libdevice linked and O3 when `optimize`.
std::unique_ptr<llvm::Module> gpu_module(const ir::LoweredKernel &kernel,
                                         llvm::LLVMContext &context, const GpuTarget &gpu,
                                         bool optimize, StageTimes *times = nullptr);

// Adds the milliseconds from its construction to its destruction to *slot (when not null).
class StageTimer {
public:
  explicit StageTimer(double *slot) : slot_(slot), start_(std::chrono::steady_clock::now()) {}
  ~StageTimer() {
    if (slot_)
      *slot_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
                    .count();
  }
  StageTimer(const StageTimer &) = delete;
  StageTimer &operator=(const StageTimer &) = delete;

private:
  double *slot_;
  std::chrono::steady_clock::time_point start_;
};

} // namespace loom::codegen
