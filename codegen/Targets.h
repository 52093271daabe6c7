// The module pipeline of each target, shared by its public entry points and emit_llvm.
#pragma once

#include "codegen/Codegen.h"

#include <llvm/IR/Module.h>

#include <memory>

namespace loom::codegen {

// Codegen for the host CPU, with its CPU name and features on every function; O3 when `optimize`.
std::unique_ptr<llvm::Module> cpu_module(const ir::LoweredKernel &kernel,
                                         llvm::LLVMContext &context, bool optimize);

// Codegen for NVPTX; libdevice linked and O3 when `optimize`.
std::unique_ptr<llvm::Module> gpu_module(const ir::LoweredKernel &kernel,
                                         llvm::LLVMContext &context, const GpuTarget &gpu,
                                         bool optimize);

} // namespace loom::codegen
