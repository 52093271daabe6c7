#include "codegen/Codegen.h"
#include "codegen/LlvmSupport.h"
#include "codegen/Targets.h"

namespace loom::codegen {

std::string emit_llvm(const ir::LoweredKernel &kernel, LlvmStage stage, const GpuTarget &gpu) {
  llvm::LLVMContext context;
  std::shared_ptr<std::string> errors = collect_diagnostics(context);
  bool optimize = stage == LlvmStage::Optimized;
  std::unique_ptr<llvm::Module> module = kernel.target == ir::Target::GPU
                                             ? gpu_module(kernel, context, gpu, optimize)
                                             : cpu_module(kernel, context, optimize);
  check_diagnostics(*errors, "LLVM failed on kernel '" + kernel.name + "'");
  return module_text(*module);
}

} // namespace loom::codegen
