#include "codegen/CodegenPTX.h"

#include "ir/MathFunctions.h"

#include "support/Error.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/InlineAsm.h>
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
  llvm::NamedMDNode *annotations = module->getOrInsertNamedMetadata("nvvm.annotations");
  annotations->addOperand(llvm::MDNode::get(context, annotation));
  // The tile schedule's launch bounds (CUDA's __launch_bounds__): its block size, and the blocks
  // an SM should hold at once, which caps ptxas's registers per thread.
  auto annotate = [&](const char *key, int value) {
    llvm::Metadata *bound[] = {llvm::ValueAsMetadata::get(kernel_fn),
                               llvm::MDString::get(context, key),
                               llvm::ValueAsMetadata::get(builder.getInt32(value))};
    annotations->addOperand(llvm::MDNode::get(context, bound));
  };
  if (task.tile.rows > 0 && task.tile.min_blocks > 0) {
    annotate("maxntidx", task.threads);
    annotate("maxntidy", 1);
    annotate("maxntidz", 1);
    annotate("minctasm", task.tile.min_blocks);
  }
  return {kernel_fn, nullptr, nullptr};
}

void CodegenPTX::wait_for_previous_grid() {
  llvm::FunctionType *type = llvm::FunctionType::get(builder.getVoidTy(), false);
  // Memory clobbers: no load or store moves above the wait (LLVM 19 has no intrinsics for these).
  builder.CreateCall(llvm::InlineAsm::get(type, "griddepcontrol.wait;", "~{memory}", true));
  builder.CreateCall(
      llvm::InlineAsm::get(type, "griddepcontrol.launch_dependents;", "~{memory}", true));
}

std::string CodegenPTX::math_function_name(ir::MathFn fn, ir::ScalarType t) const {
  std::string name = std::string("__nv_") + ir::math_info(fn).c_name;
  return t == ir::ScalarType::F32 ? name + "f" : name;
}

llvm::Value *CodegenPTX::library_function(ir::MathFn fn, ir::ScalarType t,
                                          const std::vector<llvm::Value *> &args) {
  llvm::Type *type = llvm_type(t);
  if (kernel->fast_math && t == ir::ScalarType::F32) {
    switch (fn) {
    case ir::MathFn::Sin:
    case ir::MathFn::Cos:
    case ir::MathFn::Tan:
    case ir::MathFn::Exp:
    case ir::MathFn::Log:
    case ir::MathFn::Log2:
    case ir::MathFn::Log10:
    case ir::MathFn::Pow:
      return call_math_library(std::string("__nv_fast_") + ir::math_info(fn).c_name + "f", type,
                               args);
    default:
      break;
    }
  }
  return call_math_library(math_function_name(fn, t), type, args);
}

llvm::Value *CodegenPTX::scale_by_power_of_two(llvm::Value *x, llvm::Value *exponent,
                                               ir::ScalarType t) {
  return call_math_library(t == ir::ScalarType::F32 ? "__nv_ldexpf" : "__nv_ldexp", x->getType(),
                           {x, exponent});
}

llvm::Value *CodegenPTX::reciprocal_square_root(llvm::Value *x, ir::ScalarType t) {
  return call_math_library(t == ir::ScalarType::F32 ? "__nv_rsqrtf" : "__nv_rsqrt", x->getType(),
                           {x});
}

llvm::Value *CodegenPTX::square_root(llvm::Value *v, ir::ScalarType t) {
  if (kernel->fast_math && t == ir::ScalarType::F32)
    return builder.CreateIntrinsic(llvm::Intrinsic::nvvm_sqrt_approx_ftz_f, {}, {v});
  return CodegenLLVM::square_root(v, t);
}

llvm::Value *CodegenPTX::float_remainder(llvm::Value *a, llvm::Value *b, ir::ScalarType t) {
  return call_math_library(t == ir::ScalarType::F32 ? "__nv_fmodf" : "__nv_fmod", a->getType(),
                           {a, b});
}

llvm::Value *CodegenPTX::float_min_max(ir::BinaryOp op, llvm::Value *a, llvm::Value *b) {
  // Two constants fold here (minNum/maxNum: a NaN operand yields the other), so that LLVM goes on
  // to fold what uses the result: the driver's JIT, left to fold c - max(b, NaN) itself, rounded
  // a tie the wrong way.
  auto *ca = llvm::dyn_cast<llvm::ConstantFP>(a);
  auto *cb = llvm::dyn_cast<llvm::ConstantFP>(b);
  if (ca && cb)
    return llvm::ConstantFP::get(context, op == ir::BinaryOp::Min
                                              ? llvm::minnum(ca->getValueAPF(), cb->getValueAPF())
                                              : llvm::maxnum(ca->getValueAPF(), cb->getValueAPF()));
  bool f32 = a->getType()->isFloatTy();
  std::string text = std::string(op == ir::BinaryOp::Min ? "min" : "max") +
                     (f32 ? ".f32 $0, $1, $2;" : ".f64 $0, $1, $2;");
  auto *type = llvm::FunctionType::get(a->getType(), {a->getType(), a->getType()}, false);
  return builder.CreateCall(
      llvm::InlineAsm::get(type, text, f32 ? "=f,f,f" : "=d,d,d", /*hasSideEffects=*/false),
      {a, b});
}

llvm::Value *CodegenPTX::round_to_16_bits(llvm::Value *f, bool bf16) {
  auto *round = llvm::FunctionType::get(builder.getInt16Ty(), {builder.getFloatTy()}, false);
  auto *widen = llvm::FunctionType::get(builder.getFloatTy(), {builder.getInt16Ty()}, false);
  llvm::Value *bits = builder.CreateCall(
      llvm::InlineAsm::get(round, bf16 ? "cvt.rn.bf16.f32 $0, $1;" : "cvt.rn.f16.f32 $0, $1;",
                           "=h,f", /*hasSideEffects=*/false),
      {f});
  return builder.CreateCall(
      llvm::InlineAsm::get(widen, bf16 ? "cvt.f32.bf16 $0, $1;" : "cvt.f32.f16 $0, $1;", "=f,h",
                           /*hasSideEffects=*/false),
      {bits});
}

llvm::Value *CodegenPTX::sreg(llvm::Intrinsic::ID id) {
  return builder.CreateIntrinsic(id, {}, {});
}

// print(...) through the CUDA device runtime's vprintf(format, arguments), which ptxas and the
// driver provide: the arguments are the 8-byte slots, each at its natural alignment.
void CodegenPTX::emit_print(llvm::Value *format, llvm::Value *slots) {
  llvm::FunctionCallee vprintf = module->getOrInsertFunction(
      "vprintf", llvm::FunctionType::get(builder.getInt32Ty(),
                                         {builder.getPtrTy(), builder.getPtrTy()}, false));
  builder.CreateCall(vprintf, {format, slots});
}

void CodegenPTX::barrier() {
  builder.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
}

llvm::Value *CodegenPTX::block_combine(ir::ReduceOp op, ir::ScalarType t, llvm::Value *value,
                                       llvm::Value *thread, llvm::Value *count) {
  // 1024 8-byte slots in shared memory (the most threads a block has), one per thread.
  if (!shared_) {
    auto *type = llvm::ArrayType::get(builder.getInt64Ty(), 1024);
    shared_ = new llvm::GlobalVariable(*module, type, false, llvm::GlobalValue::InternalLinkage,
                                       llvm::UndefValue::get(type), "loom_reduction_slots", nullptr,
                                       llvm::GlobalValue::NotThreadLocal, 3);
    shared_->setAlignment(llvm::Align(8));
  }
  llvm::Type *vt = value->getType();
  auto slot = [&](llvm::Value *k) {
    return builder.CreateInBoundsGEP(builder.getInt64Ty(), shared_, {k});
  };
  llvm::Value *mine = slot(thread);
  builder.CreateAlignedStore(value, mine, llvm::Align(8));
  barrier();
  // Halve the span while it covers more than one slot: thread k < half adds slot k + half when
  // that is below `count`. The span starts at count rounded up to a power of two.
  llvm::Value *above = builder.CreateSub(count, builder.getInt32(1));
  llvm::Value *bits = builder.CreateSub(
      builder.getInt32(32),
      builder.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, above, builder.getTrue()));
  llvm::Value *span =
      builder.CreateSelect(builder.CreateICmpULE(count, builder.getInt32(1)), builder.getInt32(1),
                           builder.CreateShl(builder.getInt32(1), bits));
  llvm::BasicBlock *before = builder.GetInsertBlock();
  llvm::BasicBlock *loop = llvm::BasicBlock::Create(context, "tree", before->getParent());
  llvm::BasicBlock *step = llvm::BasicBlock::Create(context, "tree.step", before->getParent());
  llvm::BasicBlock *add = llvm::BasicBlock::Create(context, "tree.add", before->getParent());
  llvm::BasicBlock *sync = llvm::BasicBlock::Create(context, "tree.sync", before->getParent());
  llvm::BasicBlock *done = llvm::BasicBlock::Create(context, "tree.done", before->getParent());
  builder.CreateBr(loop);
  builder.SetInsertPoint(loop);
  llvm::PHINode *width = builder.CreatePHI(builder.getInt32Ty(), 2);
  width->addIncoming(span, before);
  builder.CreateCondBr(builder.CreateICmpUGT(width, builder.getInt32(1)), step, done);
  builder.SetInsertPoint(step);
  llvm::Value *half = builder.CreateLShr(width, builder.getInt32(1));
  llvm::Value *other = builder.CreateAdd(thread, half);
  builder.CreateCondBr(
      builder.CreateAnd(builder.CreateICmpULT(thread, half), builder.CreateICmpULT(other, count)),
      add, sync);
  builder.SetInsertPoint(add);
  llvm::Value *a = builder.CreateAlignedLoad(vt, mine, llvm::Align(8));
  llvm::Value *b = builder.CreateAlignedLoad(vt, slot(other), llvm::Align(8));
  builder.CreateAlignedStore(arith(ir::binary_op_of(op), t, a, b), mine, llvm::Align(8));
  builder.CreateBr(sync);
  builder.SetInsertPoint(sync);
  barrier();
  width->addIncoming(half, sync);
  builder.CreateBr(loop);
  builder.SetInsertPoint(done);
  llvm::Value *total = builder.CreateAlignedLoad(vt, slot(builder.getInt32(0)), llvm::Align(8));
  barrier(); // every thread has read slot 0 before the slots are used again
  return total;
}

void CodegenPTX::combine_partials(const ir::Task &task, const std::vector<llvm::Value *> &partials,
                                  llvm::Value *scratch, const TaskFunction &) {
  using namespace llvm::Intrinsic;
  auto mul = [&](llvm::Value *a, llvm::Value *b) { return builder.CreateMul(a, b); };
  auto add = [&](llvm::Value *a, llvm::Value *b) { return builder.CreateAdd(a, b); };
  llvm::Value *nx = sreg(nvvm_read_ptx_sreg_ntid_x), *ny = sreg(nvvm_read_ptx_sreg_ntid_y);
  llvm::Value *thread =
      add(sreg(nvvm_read_ptx_sreg_tid_x),
          mul(nx, add(sreg(nvvm_read_ptx_sreg_tid_y), mul(ny, sreg(nvvm_read_ptx_sreg_tid_z)))));
  llvm::Value *threads = mul(mul(nx, ny), sreg(nvvm_read_ptx_sreg_ntid_z));
  llvm::Value *gx = sreg(nvvm_read_ptx_sreg_nctaid_x), *gy = sreg(nvvm_read_ptx_sreg_nctaid_y);
  llvm::Value *block = add(
      sreg(nvvm_read_ptx_sreg_ctaid_x),
      mul(gx, add(sreg(nvvm_read_ptx_sreg_ctaid_y), mul(gy, sreg(nvvm_read_ptx_sreg_ctaid_z)))));
  llvm::Value *blocks = mul(mul(gx, gy), sreg(nvvm_read_ptx_sreg_nctaid_z));
  const uint64_t count = partials.size();
  auto slot = [&](llvm::Value *b, size_t r) { // 8-byte slot 1 + b * R + r of scratch
    llvm::Value *k = builder.CreateAdd(
        builder.CreateMul(builder.CreateZExt(b, builder.getInt64Ty()), builder.getInt64(count)),
        builder.getInt64(1 + r));
    return builder.CreateInBoundsGEP(builder.getInt64Ty(), scratch, k);
  };
  llvm::Function *fn = builder.GetInsertBlock()->getParent();
  llvm::Value *first_thread = builder.CreateICmpEQ(thread, builder.getInt32(0));

  // 1. This block's totals, written by its thread 0.
  std::vector<llvm::Value *> totals;
  for (size_t r = 0; r < count; ++r) {
    const ir::TaskReduction &red = task.reductions[r];
    totals.push_back(block_combine(red.op, red.accumulator->type, partials[r], thread, threads));
  }
  llvm::BasicBlock *write = llvm::BasicBlock::Create(context, "reduce.write", fn);
  llvm::BasicBlock *joined = llvm::BasicBlock::Create(context, "reduce.written", fn);
  builder.CreateCondBr(first_thread, write, joined);
  builder.SetInsertPoint(write);
  for (size_t r = 0; r < count; ++r)
    builder.CreateAlignedStore(totals[r], slot(block, r), llvm::Align(8));
  // The totals must be visible to every block before the count says this block is done.
  builder.CreateIntrinsic(nvvm_membar_gl, {}, {});
  llvm::Value *done_before =
      builder.CreateAtomicRMW(llvm::AtomicRMWInst::Add, scratch, builder.getInt64(1),
                              llvm::Align(8), llvm::AtomicOrdering::Monotonic);
  llvm::Value *last = builder.CreateICmpEQ(
      done_before,
      builder.CreateSub(builder.CreateZExt(blocks, builder.getInt64Ty()), builder.getInt64(1)));
  // Tell the block through shared memory (slot 0 is free: block_combine ended with a barrier).
  llvm::Value *flag =
      builder.CreateInBoundsGEP(builder.getInt64Ty(), shared_, {builder.getInt32(0)});
  builder.CreateAlignedStore(builder.CreateZExt(last, builder.getInt64Ty()), flag, llvm::Align(8));
  builder.CreateBr(joined);
  builder.SetInsertPoint(joined);
  barrier();
  llvm::Value *is_last = builder.CreateICmpNE(
      builder.CreateAlignedLoad(builder.getInt64Ty(), flag, llvm::Align(8)), builder.getInt64(0));
  barrier(); // the flag is read before block_combine reuses slot 0
  llvm::BasicBlock *final_block = llvm::BasicBlock::Create(context, "reduce.last", fn);
  llvm::BasicBlock *end = llvm::BasicBlock::Create(context, "reduce.end", fn);
  builder.CreateCondBr(is_last, final_block, end);

  // 2. The last block: thread k combines block totals k, k + threads, ... in order, then the
  // block combines those; thread 0 updates each array element and resets the count.
  builder.SetInsertPoint(final_block);
  builder.CreateIntrinsic(nvvm_membar_gl, {}, {});
  llvm::Value *used = builder.CreateSelect(builder.CreateICmpULT(blocks, threads), blocks, threads);
  for (size_t r = 0; r < count; ++r) {
    const ir::TaskReduction &red = task.reductions[r];
    llvm::Type *vt = partials[r]->getType();
    llvm::BasicBlock *head = builder.GetInsertBlock();
    llvm::BasicBlock *gather = llvm::BasicBlock::Create(context, "reduce.gather", fn);
    llvm::BasicBlock *next = llvm::BasicBlock::Create(context, "reduce.next", fn);
    llvm::BasicBlock *gathered = llvm::BasicBlock::Create(context, "reduce.gathered", fn);
    // Threads past the block count hold no total; their (unused) value is a load of block 0's.
    llvm::Value *start =
        builder.CreateSelect(builder.CreateICmpULT(thread, blocks), thread, builder.getInt32(0));
    llvm::Value *initial = builder.CreateLoad(vt, slot(start, r), /*isVolatile=*/true);
    llvm::Value *second = builder.CreateAdd(thread, threads);
    builder.CreateBr(gather);
    builder.SetInsertPoint(gather);
    llvm::PHINode *acc = builder.CreatePHI(vt, 2);
    llvm::PHINode *k = builder.CreatePHI(builder.getInt32Ty(), 2);
    acc->addIncoming(initial, head);
    k->addIncoming(second, head);
    builder.CreateCondBr(builder.CreateICmpULT(k, blocks), next, gathered);
    builder.SetInsertPoint(next);
    llvm::Value *more = builder.CreateLoad(vt, slot(k, r), /*isVolatile=*/true);
    acc->addIncoming(arith(ir::binary_op_of(red.op), red.accumulator->type, acc, more), next);
    k->addIncoming(builder.CreateAdd(k, threads), next);
    builder.CreateBr(gather);
    builder.SetInsertPoint(gathered);
    llvm::Value *total = block_combine(red.op, red.accumulator->type, acc, thread, used);
    llvm::BasicBlock *update = llvm::BasicBlock::Create(context, "reduce.update", fn);
    llvm::BasicBlock *updated = llvm::BasicBlock::Create(context, "reduce.updated", fn);
    builder.CreateCondBr(first_thread, update, updated);
    builder.SetInsertPoint(update);
    llvm::Value *address = element_address(red.array, red.indices);
    const llvm::Align align(ir::byte_size(red.accumulator->type));
    llvm::Value *old = builder.CreateAlignedLoad(vt, address, align);
    builder.CreateAlignedStore(arith(ir::binary_op_of(red.op), red.accumulator->type, old, total),
                               address, align);
    builder.CreateBr(updated);
    builder.SetInsertPoint(updated);
  }
  llvm::BasicBlock *reset = llvm::BasicBlock::Create(context, "reduce.reset", fn);
  builder.CreateCondBr(first_thread, reset, end);
  builder.SetInsertPoint(reset);
  builder.CreateAlignedStore(builder.getInt64(0), scratch, llvm::Align(8), /*isVolatile=*/true);
  builder.CreateBr(end);
  builder.SetInsertPoint(end);
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

namespace {

// What kind of sequential loop `loop` is on the GPU.
enum class LoopKind {
  Innermost,    // a loop of the kernel's own, holding no other loop, with a constant step
  BlockStrided, // a row split among a block's threads (steps by blockDim), holding no other loop
  Other,        // grid-stride loops and loops holding loops
};

LoopKind loop_kind(const ir::For &loop) {
  struct Finder : ir::Visitor {
    bool inner_loop = false, grid_stride = false, block_stride = false;
    void visit_node(const ir::For *) override { inner_loop = true; }
    void visit_node(const ir::While *) override { inner_loop = true; }
    void visit_node(const ir::SpecialReg *n) override {
      (n->reg == ir::Reg::BlockDim ? block_stride : grid_stride) = true;
    }
  };
  Finder body, step;
  body.visit(loop.body);
  step.visit(loop.step); // a grid-stride loop steps by blockDim * gridDim
  if (body.inner_loop || step.grid_stride)
    return LoopKind::Other;
  if (step.block_stride)
    return LoopKind::BlockStrided;
  return loop.step.as<ir::IntConst>() ? LoopKind::Innermost : LoopKind::Other;
}

// How many times an innermost loop is unrolled: 16, as nvcc unrolls small loops. A body that
// calls a library function (libdevice) is unrolled fewer times where 16 copies would pass a
// budget of 320 operations, as such a call is a body of its own: about 120 operations in f64
// (exp, log, pow, sin: a range reduction, a polynomial and the branches of their special cases),
// 12 in f32. Its copies then cost registers, and so blocks per SM, more than the loads they put
// in flight. lavaMD's particle loop (one f64 exp and 41 other operations) is not unrolled: 55
// registers, against 92 unrolled 16 times (5 blocks of 128 threads an SM, so 1.5 waves of its
// 1,000 blocks; 9 and one wave without). Loops without such calls keep 16 whatever their size:
// the tile schedules' k loops (143 operations and more) have constant counts, and their copies
// are what keeps the multiply units fed.
int innermost_unroll(const ir::For &loop) {
  struct Size : ir::Visitor {
    int64_t operations = 0;
    bool calls = false;
    void visit_node(const ir::Call *n) override {
      if (ir::math_info(n->fn).impl == ir::MathImpl::Library) {
        operations += n->args[0].type() == ir::ScalarType::F64 ? 120 : 12;
        calls = true;
      }
      ir::Visitor::visit_node(n);
    }
    void visit_node(const ir::Binary *n) override {
      ++operations;
      ir::Visitor::visit_node(n);
    }
    void visit_node(const ir::Load *n) override {
      ++operations;
      ir::Visitor::visit_node(n);
    }
    void visit_node(const ir::Store *n) override {
      ++operations;
      ir::Visitor::visit_node(n);
    }
  } size;
  size.visit(loop.body);
  if (!size.calls)
    return 16;
  int times = 16;
  while (times > 1 && times * size.operations > 320)
    times /= 2;
  return times;
}

} // namespace

llvm::MDNode *CodegenPTX::loop_hint(const ir::For &loop) {
  // A schedule's factor replaces loom's own. A sequential loop's vectorize is an unroll on the
  // GPU: a thread's neighbouring iterations are what LLVM merges into vector loads.
  if (const ir::LoopSchedule *schedule = loop_schedule(loop))
    if (int times = schedule->unroll > 0 ? schedule->unroll : schedule->vectorize; times > 0)
      return loop_metadata({unroll_property(times)});
  const LoopKind kind = loop_kind(loop);
  if (kind == LoopKind::Other)
    return nullptr;
  // A block-strided loop (a row split among a block's threads) 4 times, as nvcc does: 4 loads
  // of each thread in flight.
  if (kind == LoopKind::BlockStrided)
    return loop_metadata({unroll_property(4)});
  return loop_metadata({unroll_property(innermost_unroll(loop))});
}

bool CodegenPTX::strides_pointers(const ir::For &loop) {
  return loop_kind(loop) == LoopKind::Innermost;
}

llvm::Value *CodegenPTX::shared_base(const ir::Shared &array, int index) {
  if (array->dynamic) {
    // CUDA's extern __shared__ array: .extern .shared .align 16 .b8 loom_dynamic_shared[], which
    // the driver places after the static ones, sized by the launch's sharedMemBytes.
    const char *name = "loom_dynamic_shared";
    if (llvm::GlobalVariable *existing = module->getNamedGlobal(name))
      return existing;
    auto *type = llvm::ArrayType::get(builder.getInt8Ty(), 0);
    auto *global =
        new llvm::GlobalVariable(*module, type, false, llvm::GlobalValue::ExternalLinkage, nullptr,
                                 name, nullptr, llvm::GlobalValue::NotThreadLocal, 3);
    global->setAlignment(llvm::Align(uint64_t(std::max<int64_t>(array->align, 16))));
    return global;
  }
  std::string name = "loom_shared_" + std::to_string(index);
  if (llvm::GlobalVariable *existing = module->getNamedGlobal(name))
    return existing;
  auto *type = llvm::ArrayType::get(memory_type(array->type), array->size());
  auto *global = new llvm::GlobalVariable(*module, type, false, llvm::GlobalValue::InternalLinkage,
                                          llvm::UndefValue::get(type), name, nullptr,
                                          llvm::GlobalValue::NotThreadLocal, 3);
  global->setAlignment(llvm::Align(16));
  return global;
}

llvm::Value *CodegenPTX::dynamic_shared_bytes() {
  // PTX's %dynamic_smem_size (PTX ISA 4.1, sm_20 on), which LLVM has no intrinsic for.
  auto *asm_type = llvm::FunctionType::get(builder.getInt32Ty(), {}, false);
  auto *read = llvm::InlineAsm::get(asm_type, "mov.u32 $0, %dynamic_smem_size;", "=r", false);
  llvm::CallInst *bytes = builder.CreateCall(asm_type, read, {}, "dynamic_smem_size");
  bytes->setDoesNotAccessMemory();
  return builder.CreateZExt(bytes, builder.getInt64Ty());
}

llvm::Value *CodegenPTX::warp_op(ir::WarpOpKind op, ir::ScalarType t, llvm::Value *value,
                                 llvm::Value *operand) {
  using namespace llvm::Intrinsic;
  llvm::Value *full = builder.getInt32(0xffffffffu);
  switch (op) {
  case ir::WarpOpKind::Any:
    return builder.CreateIntrinsic(nvvm_vote_any_sync, {}, {full, value});
  case ir::WarpOpKind::All:
    return builder.CreateIntrinsic(nvvm_vote_all_sync, {}, {full, value});
  case ir::WarpOpKind::Ballot:
    return builder.CreateIntrinsic(nvvm_vote_ballot_sync, {}, {full, value});
  default:
    break;
  }
  // shfl.sync's c operand as CUDA's __shfl*_sync pass it for a width of 32: up clamps at lane 0
  // (c = 0), the others at lane 31 (c = 0x1f).
  ID id = op == ir::WarpOpKind::ShflIdx    ? nvvm_shfl_sync_idx_i32
          : op == ir::WarpOpKind::ShflUp   ? nvvm_shfl_sync_up_i32
          : op == ir::WarpOpKind::ShflDown ? nvvm_shfl_sync_down_i32
                                           : nvvm_shfl_sync_bfly_i32;
  llvm::Value *clamp = builder.getInt32(op == ir::WarpOpKind::ShflUp ? 0 : 0x1f);
  auto shuffle32 = [&](llvm::Value *bits) {
    return builder.CreateIntrinsic(id, {}, {full, bits, operand, clamp});
  };
  llvm::Type *i32 = builder.getInt32Ty();
  if (ir::bit_width(t) == 32) {
    llvm::Value *bits = t == ir::ScalarType::F32 ? builder.CreateBitCast(value, i32) : value;
    llvm::Value *r = shuffle32(bits);
    return t == ir::ScalarType::F32 ? builder.CreateBitCast(r, value->getType()) : r;
  }
  // 64 bits: the two halves from the same lane.
  llvm::Type *i64 = builder.getInt64Ty();
  llvm::Value *bits = t == ir::ScalarType::F64 ? builder.CreateBitCast(value, i64) : value;
  llvm::Value *lo = shuffle32(builder.CreateTrunc(bits, i32));
  llvm::Value *hi = shuffle32(builder.CreateTrunc(builder.CreateLShr(bits, 32), i32));
  llvm::Value *r = builder.CreateOr(builder.CreateZExt(lo, i64),
                                    builder.CreateShl(builder.CreateZExt(hi, i64), 32));
  return t == ir::ScalarType::F64 ? builder.CreateBitCast(r, value->getType()) : r;
}

} // namespace loom::codegen
