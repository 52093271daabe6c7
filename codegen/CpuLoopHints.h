// Loop hints for the host CPU's vectorizer, added inside the O3 pipeline just before it.
#pragma once

namespace llvm {
class PassBuilder;
}

namespace loom::codegen {

// Registers, at the start of `builder`'s vectorizer passes, a pass that asks for no interleaving
// in innermost loops without a reduction. Such a loop (a stencil, saxpy) streams through memory
// with no loop-carried chain to hide; unrolled 4 times, 256 or 512 bits wide, it ran 10-15% slower
// than one vector per iteration, which is also what g++ emits. Reductions keep LLVM's choice:
// there the copies are independent partial sums.
void add_cpu_loop_hints(llvm::PassBuilder &builder);

} // namespace loom::codegen
