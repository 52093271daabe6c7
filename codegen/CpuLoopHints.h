// Loop hints for the host CPU's vectorizer, added inside the O3 pipeline just before it.
#pragma once

namespace llvm {
class PassBuilder;
}

namespace loom::codegen {

// Registers, at the start of `builder`'s vectorizer passes, a pass that asks for no interleaving
// in innermost loops without a reduction. Such a loop (a stencil, saxpy) streams through memory
// with no loop-carried chain to hide; unrolled 4 times, 256 or 512 bits wide, it ran slower than
// one vector per iteration, which is also what g++ emits (bench/RESULTS.md, "CPU against g++ and
// Numba: development machine (2 cores, sapphirerapids)"). Reductions keep LLVM's choice: there
// the copies are independent partial sums, except a float reduction that must stay in order (no
// fastmath): its additions are one chain whatever the unrolling, so the loop is unrolled twice
// only (unless a schedule says otherwise), which halves the loop's own instructions around the
// chain, as g++'s pairing of two products per iteration does: PolyBench's doitgen with a local
// scratch row went from 0.87x to 1.01x g++ on the 2-core development machine, whose two
// hardware threads share one core's issue slots. Unrolled 8 times (LLVM's runtime unroll), the
// naive matmul's k loop down a column of B ran slower on an AMD EPYC, each load instruction then
// striding 8 rows at once (bench/RESULTS.md, "CPU against g++ and Numba in alternating rounds,
// idle machine").
// `neighbour_accumulators` (a kernel under the tile schedule, or with reductions in lanes:
// ir/CpuLanes.cpp) adds the SLP vectorizer and InstCombine once more at the end of the pipeline:
// the accumulators of neighbouring iterations become vector registers only there, once LICM has
// made their loads' addresses constant offsets of one base (in the pipeline's own SLP run they
// are not yet, and the loop stays scalar; docs/decisions.md, "The tile schedule clamps, it does
// not branch").
void add_cpu_loop_hints(llvm::PassBuilder &builder, bool neighbour_accumulators = false);

} // namespace loom::codegen
