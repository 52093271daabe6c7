#include "codegen/CodegenPTX.h"

#include "support/Error.h"

#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Metadata.h>

namespace loom::codegen {

CodegenLLVM::TaskFunction CodegenPTX::define_task(const ir::Task &task,
                                                  const std::vector<llvm::Type *> &flat_types) {
  auto *kernel_fn =
      llvm::Function::Create(llvm::FunctionType::get(builder.getVoidTy(), flat_types, false),
                             llvm::GlobalValue::ExternalLinkage, task.name, module.get());
  kernel_fn->addFnAttr(llvm::Attribute::NoUnwind);
  // LLVM 19's NVPTX backend recognises kernels by this annotation (not by calling convention).
  llvm::Metadata *annotation[] = {llvm::ValueAsMetadata::get(kernel_fn),
                                  llvm::MDString::get(context, "kernel"),
                                  llvm::ValueAsMetadata::get(builder.getInt32(1))};
  module->getOrInsertNamedMetadata("nvvm.annotations")
      ->addOperand(llvm::MDNode::get(context, annotation));
  return {kernel_fn, nullptr, nullptr};
}

std::string CodegenPTX::math_function_name(ir::MathFn fn, ir::ScalarType t) const {
  std::string name = std::string("__nv_") + ir::fn_name(fn);
  return t == ir::ScalarType::F32 ? name + "f" : name;
}

llvm::Value *CodegenPTX::float_remainder(llvm::Value *a, llvm::Value *b, ir::ScalarType t) {
  return call_math_library(t == ir::ScalarType::F32 ? "__nv_fmodf" : "__nv_fmod", a->getType(),
                           {a, b});
}

llvm::Value *CodegenPTX::special_reg(const ir::SpecialReg *op) {
  using namespace llvm::Intrinsic;
  static const ID ids[4][3] = {
      {nvvm_read_ptx_sreg_tid_x, nvvm_read_ptx_sreg_tid_y, nvvm_read_ptx_sreg_tid_z},
      {nvvm_read_ptx_sreg_ctaid_x, nvvm_read_ptx_sreg_ctaid_y, nvvm_read_ptx_sreg_ctaid_z},
      {nvvm_read_ptx_sreg_ntid_x, nvvm_read_ptx_sreg_ntid_y, nvvm_read_ptx_sreg_ntid_z},
      {nvvm_read_ptx_sreg_nctaid_x, nvvm_read_ptx_sreg_nctaid_y, nvvm_read_ptx_sreg_nctaid_z}};
  if (op->dim < 0 || op->dim > 2)
    throw CompileError("internal error in codegen: special register dimension " +
                       std::to_string(op->dim));
  return builder.CreateIntrinsic(ids[static_cast<int>(op->reg)][op->dim], {}, {});
}

} // namespace loom::codegen
