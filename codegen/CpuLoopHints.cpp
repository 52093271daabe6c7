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

// What an innermost loop's header phis carry, as the vectorizer judges them.
struct Reductions {
  bool any = false;
  bool ordered_float = false; // a float reduction whose additions must stay in order
};

// The analyses as the vectorizer hands them to the same test (it dereferences them).
Reductions reductions_of(llvm::Loop &loop, llvm::Function &f,
                         llvm::FunctionAnalysisManager &analyses) {
  auto &demanded = analyses.getResult<llvm::DemandedBitsAnalysis>(f);
  auto &assumptions = analyses.getResult<llvm::AssumptionAnalysis>(f);
  auto &dominators = analyses.getResult<llvm::DominatorTreeAnalysis>(f);
  auto &evolution = analyses.getResult<llvm::ScalarEvolutionAnalysis>(f);
  Reductions found;
  for (llvm::PHINode &phi : loop.getHeader()->phis()) {
    llvm::RecurrenceDescriptor reduction;
    if (llvm::RecurrenceDescriptor::isReductionPHI(&phi, &loop, reduction, &demanded, &assumptions,
                                                   &dominators, &evolution)) {
      found.any = true;
      found.ordered_float = found.ordered_float || reduction.getExactFPMathInst() != nullptr;
    }
  }
  return found;
}

struct CpuLoopHintsPass : llvm::PassInfoMixin<CpuLoopHintsPass> {
  llvm::PreservedAnalyses run(llvm::Function &f, llvm::FunctionAnalysisManager &analyses) {
    for (llvm::Loop *loop : analyses.getResult<llvm::LoopAnalysis>(f).getLoopsInPreorder()) {
      // The reduction test needs a preheader and one latch; a loop without them is left as is.
      if (!loop->isInnermost() || !loop->isLoopSimplifyForm())
        continue;
      Reductions reductions = reductions_of(*loop, f, analyses);
      if (!reductions.any)
        llvm::addStringMetadataToLoop(loop, "llvm.loop.interleave.count", 1);
      else if (reductions.ordered_float &&
               llvm::hasUnrollTransformation(loop) == llvm::TM_Unspecified)
        llvm::addStringMetadataToLoop(loop, "llvm.loop.unroll.count", 2);
    }
    // Only loop metadata changed: every analysis still holds.
    return llvm::PreservedAnalyses::all();
  }
};

} // namespace

void add_cpu_loop_hints(llvm::PassBuilder &builder, bool neighbour_accumulators) {
  builder.registerVectorizerStartEPCallback(
      [](llvm::FunctionPassManager &passes, llvm::OptimizationLevel) {
        passes.addPass(CpuLoopHintsPass());
      });
  if (neighbour_accumulators)
    builder.registerOptimizerLastEPCallback(
        [](llvm::ModulePassManager &passes, llvm::OptimizationLevel) {
          llvm::FunctionPassManager last;
          last.addPass(llvm::SLPVectorizerPass());
          last.addPass(llvm::InstCombinePass());
          passes.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(last)));
        });
}

} // namespace loom::codegen
