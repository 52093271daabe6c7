// The NVPTX variant of CodegenLLVM: only what differs on the GPU. A task is a kernel taking the
// flattened parameters directly (as cuLaunchKernel passes them), arrays live in the global
// address space, thread geometry comes from PTX special registers and math from libdevice.
#pragma once

#include "codegen/CodegenLLVM.h"

namespace loom::codegen {

class CodegenPTX : public CodegenLLVM {
public:
  using CodegenLLVM::CodegenLLVM;

protected:
  TaskFunction define_task(const ir::Task &task,
                           const std::vector<llvm::Type *> &flat_types) override;
  unsigned array_address_space() const override { return 1; } // NVPTX global memory
  std::string math_function_name(ir::MathFn fn, ir::ScalarType t) const override;
  llvm::Value *special_reg(const ir::SpecialReg *op) override;
  // NVPTX lowers frem to x - y * trunc(x / y), which is not fmod (wrong once x / y rounds, e.g.
  // 1e10f % 3.0f); libdevice's fmod is exact.
  llvm::Value *float_remainder(llvm::Value *a, llvm::Value *b, ir::ScalarType t) override;
};

} // namespace loom::codegen
