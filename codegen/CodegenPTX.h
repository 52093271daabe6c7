// The NVPTX variant of CodegenLLVM: only what differs on the GPU. A task is a kernel taking the
// flattened parameters directly (as cuLaunchKernel passes them), arrays live in the global
// address space, thread geometry comes from PTX special registers and math from libdevice.
#pragma once

#include "codegen/CodegenLLVM.h"

#include <llvm/IR/Intrinsics.h>

#include <algorithm>

namespace loom::codegen {

class CodegenPTX : public CodegenLLVM {
public:
  CodegenPTX(llvm::LLVMContext &context, bool index32_arithmetic) : CodegenLLVM(context) {
    index32 = index32_arithmetic;
  }

protected:
  TaskFunction define_task(const ir::Task &task,
                           const std::vector<llvm::Type *> &flat_types) override;
  unsigned array_address_space() const override { return 1; } // NVPTX global memory
  // Every GPU array is a whole cuMemAlloc allocation (256-byte aligned; GpuCall checks it), so
  // LLVM may merge neighbouring elements into 16-byte vector loads and stores.
  int array_alignment() const override { return 16; }
  // cvt.rna.tf32.f32: the same rounding in one instruction (sm_80 and later).
  llvm::Value *round_to_tf32(llvm::Value *v) override;
  int64_t shared_base_alignment(const ir::Shared &array) const override {
    return std::max<int64_t>(array->align, 16); // the __shared__ globals' (shared_base)
  }
  // Before the task reads or writes any memory, it waits for the grids launched before it to
  // finish and their writes to be visible (a no-op for a launch without programmatic
  // dependencies); then the next launch may begin, its blocks waiting in turn.
  void wait_for_previous_grid() override;
  std::string math_function_name(ir::MathFn fn, ir::ScalarType t) const override;
  // libdevice's __nv_ functions; with fastmath, f32 sin, cos, tan, exp, log, log2, log10
  // and pow are its approximate __nv_fast_ forms (the hardware's sin.approx, ex2.approx, ...), as
  // nvcc's -use_fast_math makes them.
  llvm::Value *library_function(ir::MathFn fn, ir::ScalarType t,
                                const std::vector<llvm::Value *> &args) override;
  llvm::Value *scale_by_power_of_two(llvm::Value *x, llvm::Value *exponent,
                                     ir::ScalarType t) override;
  llvm::Value *reciprocal_square_root(llvm::Value *x, ir::ScalarType t) override;
  llvm::Value *special_reg(const ir::SpecialReg *op) override;
  // NVPTX lowers frem to x - y * trunc(x / y), which is not fmod (wrong once x / y rounds, e.g.
  // 1e10f % 3.0f); libdevice's fmod is exact.
  llvm::Value *float_remainder(llvm::Value *a, llvm::Value *b, ir::ScalarType t) override;
  // With fastmath, an f32 square root is sqrt.approx.ftz.f32, as nvcc's -use_fast_math makes it
  // (NVPTX keeps llvm.sqrt correctly rounded whatever the function's attributes).
  llvm::Value *square_root(llvm::Value *v, ir::ScalarType t) override;
  llvm::Type *bf16_memory_type() const override { return llvm::Type::getBFloatTy(context); }
  // The GPU's cvt.rn.bf16.f32 (sm_80 and later) rounds every f32 to nearest even.
  llvm::Value *round_to_bf16(llvm::Value *v) override {
    return builder.CreateFPTrunc(v, builder.getBFloatTy());
  }
  // cvt.rn.f16.f32 (cvt.rn.bf16.f32) and cvt.f32.f16 (cvt.f32.bf16) as inline PTX: as fptrunc
  // and fpext, InstCombine would make f16 arithmetic of the f32 operations around them, which
  // NVPTX then contracts into fma.rn.f16 across a rounding expand_half wrote (x * 3 + 1 of an f16
  // x), and f16 comparisons (setp.ltu.f16), one of which the H200 got wrong (regressions_test,
  // HalfAcosConditionSeed26122974). So every operation on a 16-bit value is an f32 one.
  llvm::Value *round_to_16_bits(llvm::Value *f, bool bf16) override;
  llvm::Value *widen_bf16(llvm::Value *v) override {
    return builder.CreateFPExt(v, builder.getFloatTy());
  }
  // PTX's min/max (NaN operands ignored, as minnum/maxnum) as inline PTX: LLVM cannot misjudge
  // the result's sign (see CodegenLLVM::float_min_max) and ptxas still sees one instruction,
  // where the NaN guards of the CPU's version would cost two more each.
  llvm::Value *float_min_max(ir::BinaryOp op, llvm::Value *a, llvm::Value *b) override;
  // Each block combines its threads' partials in a shared-memory tree and thread 0 writes the
  // block's total to scratch; the last block to finish (an atomic count in scratch slot 0)
  // combines the blocks' totals in block order, updates the array elements and resets the count.
  void combine_partials(const ir::Task &task, const std::vector<llvm::Value *> &partials,
                        llvm::Value *scratch, const TaskFunction &tf) override;

  // An innermost loop of the kernel's own (not a grid-stride loop) is unrolled 16 times, as nvcc
  // unrolls such loops: LLVM's NVPTX default of 4 left the naive matmul's k loop with more SASS
  // instructions per multiply-add than nvcc's, and 16 made it faster (docs/decisions.md, "GPU
  // loops are unrolled as nvcc unrolls them").
  llvm::MDNode *loop_hint(const ir::For &loop) override;
  // The same innermost loops advance pointers for their strided accesses (B[k, j] in the naive
  // matmul's k loop), as nvcc's code does.
  bool strides_pointers(const ir::For &loop) override;
  // SIMT kernels: nothing to fetch at a task's start; shared arrays are __shared__ globals (the
  // dynamic one extern, its size %dynamic_smem_size); bar.sync 0; shfl.sync and vote.sync over the
  // full warp.
  void begin_simt_task() override {}
  llvm::Value *shared_base(const ir::Shared &array, int index) override;
  llvm::Value *dynamic_shared_bytes() override;
  void emit_barrier() override { barrier(); }
  void emit_print(llvm::Value *format, llvm::Value *slots) override;
  llvm::Value *warp_op(ir::WarpOpKind op, ir::ScalarType t, llvm::Value *value,
                       llvm::Value *operand) override;
  // The tensor cores and cp.async (CodegenPTXMma.cpp): ldmatrix.sync.aligned.m8n8 (x4 for A, x2
  // for B) and mma.sync.aligned.m16n8k16.row.col.f32; cp.async and its groups; wgmma.mma_async.
  void emit_mma(const ir::Mma *op) override;
  void emit_async_copy(const ir::AsyncCopy *op) override;
  void emit_async_wait(const ir::AsyncWait &op) override;
  void emit_warpgroup_mma(const ir::WarpgroupMma *op) override;
  void emit_mbarrier(const ir::Mbarrier *op) override;

private:
  // `pointer` in LLVM address space `space` (3: shared, 1: global), cast where it is generic: the
  // intrinsics and the inline PTX of the tensor cores, cp.async and mbarriers take those.
  llvm::Value *in_space(llvm::Value *pointer, unsigned space);

  llvm::Value *sreg(llvm::Intrinsic::ID id);
  void barrier();
  // The combination of `value` over threads [0, count) of the block, in a fixed tree order, in
  // every thread (threads past count contribute nothing).
  llvm::Value *block_combine(ir::ReduceOp op, ir::ScalarType t, llvm::Value *value,
                             llvm::Value *thread, llvm::Value *count);
  llvm::GlobalVariable *shared_ = nullptr;
};

} // namespace loom::codegen
