// Loop metadata (llvm.loop) on the back edges of sequential loops: the kernel's unroll and
// vectorize schedules (ir::LoopSchedule) on the CPU, and the helpers the targets' hints share.
#include "codegen/CodegenLLVM.h"

#include <optional>
#include <vector>

namespace loom::codegen {

const ir::LoopSchedule *CodegenLLVM::loop_schedule(const ir::For &loop) const {
  auto it = kernel->loops.find(loop.var);
  return it == kernel->loops.end() ? nullptr : &it->second;
}

llvm::MDNode *CodegenLLVM::loop_property(const char *name, std::optional<int> value) {
  std::vector<llvm::Metadata *> operands{llvm::MDString::get(context, name)};
  if (value)
    operands.push_back(llvm::ConstantAsMetadata::get(builder.getInt32(*value)));
  return llvm::MDNode::get(context, operands);
}

llvm::MDNode *CodegenLLVM::unroll_property(int times) {
  return times == 1 ? loop_property("llvm.loop.unroll.disable")
                    : loop_property("llvm.loop.unroll.count", times);
}

llvm::MDNode *CodegenLLVM::loop_metadata(const std::vector<llvm::Metadata *> &properties) {
  if (properties.empty())
    return nullptr;
  std::vector<llvm::Metadata *> operands{nullptr};
  operands.insert(operands.end(), properties.begin(), properties.end());
  llvm::MDNode *self = llvm::MDNode::getDistinct(context, operands);
  self->replaceOperandWith(0, self);
  return self;
}

llvm::MDNode *CodegenLLVM::loop_hint(const ir::For &loop) {
  const ir::LoopSchedule *schedule = loop_schedule(loop);
  if (!schedule)
    return nullptr;
  std::vector<llvm::Metadata *> properties;
  if (schedule->unroll > 0)
    properties.push_back(unroll_property(schedule->unroll));
  // The width alone; LLVM's hints do not let it reorder float operations (loom sets
  // -hints-allow-reordering=false), so a float reduction vectorizes only with fastmath.
  if (schedule->vectorize > 0)
    properties.push_back(loop_property("llvm.loop.vectorize.width", schedule->vectorize));
  if (schedule->vectorize > 1)
    properties.push_back(
        llvm::MDNode::get(context, {llvm::MDString::get(context, "llvm.loop.vectorize.enable"),
                                    llvm::ConstantAsMetadata::get(builder.getTrue())}));
  return loop_metadata(properties);
}

} // namespace loom::codegen
