// Workarounds for miscompilations in NVIDIA's ptxas (which also runs inside the driver's JIT):
// loom's PTX is right, but some PTX shapes make ptxas emit wrong machine code. Each workaround
// rewrites the optimized LLVM module just before PTX emission into a shape ptxas gets right.
#pragma once

namespace llvm {
class Module;
} // namespace llvm

namespace loom::codegen {

// Two bugs of ptxas (CUDA 13.0, driver 580, sm_90; nvcc miscompiles the same CUDA C):
// - it fuses two integer min/max instructions into one three-input VIMNMX3 and drops the
//   negation of an operand on the way: max(x, max(x | 1, -x)) becomes max3(x | 1, x, x);
// - it takes -abs(x) to be negative, so -abs(x) > -1 folds to false, wrong for x = 0.
// Every integer min, max and abs therefore becomes a compare and select written as inline PTX
// (setp + selp), which ptxas neither fuses nor reasons about; LLVM would fold a plain icmp +
// select straight back into the intrinsic.
void hide_integer_min_max_abs_from_ptxas(llvm::Module &module);

} // namespace loom::codegen
