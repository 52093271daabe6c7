// The statements for debugging a kernel, IR -> LLVM IR on both targets: print (the target's
// print call, emit_print) and assert (a failure recorded in the record, support/Abi.h).
#include "codegen/CodegenLLVM.h"

#include "ir/PrintFormat.h"
#include "support/Abi.h"

#include <llvm/IR/MDBuilder.h>

namespace loom::codegen {

// print(...): each value into an 8-byte slot as ir/PrintFormat.h has it (NaN made the positive
// quiet NaN, so that every backend prints "nan"), then the target's print call.
void CodegenLLVM::visit_node(const ir::Print *op) {
  std::vector<llvm::Value *> values;
  auto as_double = [&](llvm::Value *v) {
    llvm::Value *d = v->getType()->isDoubleTy() ? v : builder.CreateFPExt(v, builder.getDoubleTy());
    llvm::Value *nan = llvm::ConstantFP::getNaN(builder.getDoubleTy());
    return builder.CreateSelect(builder.CreateFCmpUNO(d, d), nan, d);
  };
  for (const ir::PrintItem &item : op->items) {
    if (!item.value.defined())
      continue;
    const ir::ScalarType t = item.value.type();
    llvm::Value *v = codegen(item.value);
    if (t == ir::ScalarType::Bool) {
      values.push_back(builder.CreateSelect(v, builder.CreateGlobalString("True", "print.true"),
                                            builder.CreateGlobalString("False", "print.false")));
    } else if (ir::is_float(t)) {
      values.push_back(as_double(v));
      if (item.imag.defined())
        values.push_back(as_double(codegen(item.imag)));
    } else {
      values.push_back(ir::is_unsigned(t) ? builder.CreateZExt(v, builder.getInt64Ty())
                                          : builder.CreateSExt(v, builder.getInt64Ty()));
    }
  }
  llvm::Type *slot_type =
      llvm::ArrayType::get(builder.getInt64Ty(), std::max<size_t>(values.size(), 1));
  llvm::AllocaInst *slots = alloca_builder_.CreateAlloca(slot_type, nullptr, "print.args");
  slots->setAlignment(llvm::Align(8));
  for (size_t k = 0; k < values.size(); ++k)
    builder.CreateAlignedStore(
        values[k], builder.CreateConstInBoundsGEP2_32(slot_type, slots, 0, k), llvm::Align(8));
  emit_print(builder.CreateGlobalString(ir::print_format(*op), "print.format"), slots);
}

// assert: when the condition is false, count the failure and claim the record; the first claim
// writes its site and the indices' values (as i64s).
void CodegenLLVM::visit_node(const ir::Assert *op) {
  llvm::Value *holds = codegen(op->cond);
  if (!record_) // a kernel whose assertions were compiled out has none left
    return;
  namespace slot = bounds_record;
  llvm::BasicBlock *failed = llvm::BasicBlock::Create(context, "assert_failed", function_);
  llvm::BasicBlock *first = llvm::BasicBlock::Create(context, "assert_claimed", function_);
  llvm::BasicBlock *next = llvm::BasicBlock::Create(context, "assert_done", function_);
  llvm::MDBuilder weights(context);
  builder.CreateCondBr(holds, next, failed, weights.createLikelyBranchWeights());

  builder.SetInsertPoint(failed);
  builder.CreateAtomicRMW(llvm::AtomicRMWInst::Add, record_slot(slot::failures),
                          builder.getInt64(1), llvm::MaybeAlign(8),
                          llvm::AtomicOrdering::Monotonic);
  llvm::Value *claim = builder.CreateAtomicCmpXchg(
      record_slot(slot::claimed), builder.getInt64(0), builder.getInt64(slot::assertion),
      llvm::MaybeAlign(8), llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic);
  builder.CreateCondBr(builder.CreateExtractValue(claim, 1), first, next);

  builder.SetInsertPoint(first);
  builder.CreateAlignedStore(builder.getInt64(op->site), record_slot(slot::site), llvm::Align(8));
  for (size_t k = 0; k < op->indices.size(); ++k) {
    llvm::Value *v = codegen(op->indices[k]);
    v = ir::is_unsigned(op->indices[k].type()) ? builder.CreateZExt(v, builder.getInt64Ty())
                                               : builder.CreateSExt(v, builder.getInt64Ty());
    builder.CreateAlignedStore(v, record_slot(slot::indices + static_cast<int>(k)), llvm::Align(8));
  }
  builder.CreateBr(next);
  builder.SetInsertPoint(next);
}

} // namespace loom::codegen
