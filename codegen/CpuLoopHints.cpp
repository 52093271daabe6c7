#include "codegen/CpuLoopHints.h"

#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/DemandedBits.h>
#include <llvm/Analysis/IVDescriptors.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Utils/LoopUtils.h>
#include <llvm/Transforms/Vectorize/SLPVectorizer.h>

namespace loom::codegen {

namespace {

// The analyses as the vectorizer hands them to the same test (it dereferences them).
bool has_reduction(llvm::Loop &loop, llvm::Function &f, llvm::FunctionAnalysisManager &analyses) {
  auto &demanded = analyses.getResult<llvm::DemandedBitsAnalysis>(f);
  auto &assumptions = analyses.getResult<llvm::AssumptionAnalysis>(f);
  auto &dominators = analyses.getResult<llvm::DominatorTreeAnalysis>(f);
  auto &evolution = analyses.getResult<llvm::ScalarEvolutionAnalysis>(f);
  for (llvm::PHINode &phi : loop.getHeader()->phis()) {
    llvm::RecurrenceDescriptor reduction;
    if (llvm::RecurrenceDescriptor::isReductionPHI(&phi, &loop, reduction, &demanded, &assumptions,
                                                   &dominators, &evolution))
      return true;
  }
  return false;
}

struct NoInterleaveWithoutReduction : llvm::PassInfoMixin<NoInterleaveWithoutReduction> {
  llvm::PreservedAnalyses run(llvm::Function &f, llvm::FunctionAnalysisManager &analyses) {
    for (llvm::Loop *loop : analyses.getResult<llvm::LoopAnalysis>(f).getLoopsInPreorder())
      // The reduction test needs a preheader and one latch; a loop without them is left as is.
      if (loop->isInnermost() && loop->isLoopSimplifyForm() && !has_reduction(*loop, f, analyses))
        llvm::addStringMetadataToLoop(loop, "llvm.loop.interleave.count", 1);
    // Only loop metadata changed: every analysis still holds.
    return llvm::PreservedAnalyses::all();
  }
};

} // namespace

void add_cpu_loop_hints(llvm::PassBuilder &builder, bool tiled) {
  builder.registerVectorizerStartEPCallback(
      [](llvm::FunctionPassManager &passes, llvm::OptimizationLevel) {
        passes.addPass(NoInterleaveWithoutReduction());
      });
  if (tiled)
    builder.registerOptimizerLastEPCallback(
        [](llvm::ModulePassManager &passes, llvm::OptimizationLevel) {
          llvm::FunctionPassManager last;
          last.addPass(llvm::SLPVectorizerPass());
          last.addPass(llvm::InstCombinePass());
          passes.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(last)));
        });
}

} // namespace loom::codegen
