// Workarounds for miscompilations in the GPU tool chain below loom: LLVM 19's NVPTX backend and
// NVIDIA's ptxas (which also runs inside the driver's JIT). Each rewrites the optimized LLVM module
// just before PTX emission into a shape the tool chain gets right; the differential tests found
// each one (tests/differential/regressions_test.cpp keeps the reproducers).
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
// select straight back into the intrinsic. An i8 one first becomes its i16 equivalent (the NVPTX
// backend would otherwise widen it to a plain min.u16 itself, which ptxas miscompiled in a loop's
// trip count: min(u8(20 << s), 5) ran one iteration instead of four).
void hide_integer_min_max_abs_from_ptxas(llvm::Module &module);

// A bug of LLVM 19's NVPTX backend: `sitofp i1 %c` (what instcombine makes of
// f64(c ? -1 : 0)) is selected as selp 1, 0 then cvt.s32, giving +1.0 for true instead of -1.0.
// Each such conversion becomes `select %c, -1.0, 0.0` (and `uitofp i1` stays, being right).
void select_instead_of_sitofp_i1(llvm::Module &module);

// A bug of ptxas (CUDA 13.0, sm_90): it takes abs.f32 of a NaN to be non-negative, so
// abs(x) >= -7.97 folds to true, wrong when x is a NaN (an ordered compare is false). Every
// float fabs becomes the clearing of the sign bit (and.b32 / and.b64) as inline PTX, which ptxas
// does not reason about; it costs one LOP3 where the abs was an operand modifier.
void float_abs_as_bit_and(llvm::Module &module);

// A bug of ptxas (CUDA 13.0, sm_90): it takes a 16-bit negation not to wrap, as if computed in
// 32 bits: -x of x = -32768 came out as 32768 (min(-x, 0) gave 0, (-x) >> 1 gave 16384). It
// does so too through a negation in 32 bits that is truncated (cvt.s32.s16, neg.s32,
// cvt.u16.u32), then sign-extended again: it drops the truncation and the extension as if
// -(-32768) fitted 16 bits (seed 301001417). Every i16 `sub 0, x` therefore becomes inline PTX
// that computes (~x + 1) & 0xffff in 32 bits from the zero-extended x, a value ptxas must
// sign-extend for real; a 16-bit abs (hide_integer_min_max_abs_from_ptxas) negates the same way.
void negate_16_bits_in_32(llvm::Module &module);

// A bug of ptxas (CUDA 13.0, sm_90) in 16-bit shifts: of i16 x = -10 (negated in 32 bits as
// above), (x << 14) >> 1 came out as 16384 instead of -16384, as if shl.b16's result were not
// sign-extended for shr.s16. Every i8 and i16 shift becomes inline PTX that shifts in 32 bits
// (cvt.s32.s16 or cvt.u32.u16, shl.b32 / shr.s32 / shr.u32, cvt.u16.u32); an i8 one is widened to
// i16 first, as the shift reads it, and truncated back.
void shift_narrow_integers_in_32(llvm::Module &module);

// The two bugs above reached through a product: InstCombine makes -(x << 13) of an i16 x
// `mul i16 x, -8192`, which the NVPTX backend selects as shl.b16 and neg.s16 after the two
// workarounds above have run (seeds 300018354 and 301001417). Every i8 and i16 multiplication
// therefore becomes inline PTX that multiplies in 32 bits (mul.lo.u32 of the zero-extended
// operands, the low 16 bits kept by and.b32 as the negation's are); an i8 one is widened first.
void multiply_narrow_integers_in_32(llvm::Module &module);

// A miscompile of 16-bit arithmetic in packed registers (CUDA 13.0, sm_90): LLVM's NVPTX backend
// turned a thread's u16 partial sum, `+ 5` on a vector whose other lane is undefined, into
// add.s16x2 of {%rs26, %rs14} with %rs14 never written, and the H200 left the partial unchanged.
// Every integer vector operation on 8- or 16-bit lanes becomes one scalar operation per lane.
void scalarize_packed_narrow_integers(llvm::Module &module);

// A bug of ptxas (CUDA 13.0, sm_90): it takes max(0, min(1, x)) for a saturation to [0, 1]
// (FADD.SAT in f32; in f64 it reorders the two into min(1, max(0, x))), which gives 0 for a NaN
// x where fmin/fmax give 1 (min(1, NaN) is 1). The H200 gave 0 for x = -inf / -inf (seed
// 71020392). Every max(0.0, min(x, 1.0)) of CodegenPTX's inline min.f32 / max.f64 (either
// operand order) is therefore followed by isnan(x) ? 1 : it, as inline PTX (setp.nan, selp),
// which ptxas keeps since by its reading the two differ for a NaN. The other order,
// min(1, max(0, x)), is a saturation also for NaN and stays.
void restore_nan_after_max_zero_min_one(llvm::Module &module);

// Every workaround above, in order: what PtxTarget runs after optimization.
void work_around_gpu_miscompiles(llvm::Module &module);

} // namespace loom::codegen
