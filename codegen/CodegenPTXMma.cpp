// CodegenPTX's tensor-core and asynchronous-copy hooks: a warp's mma.sync with its ldmatrix
// fragments, a warpgroup's wgmma.mma_async from swizzled shared memory (inline PTX), and
// cp.async copies with their groups and waits.
#include "codegen/CodegenPTX.h"

#include "support/Error.h"

#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

namespace loom::codegen {

llvm::Value *CodegenPTX::in_space(llvm::Value *pointer, unsigned space) {
  llvm::Type *type = llvm::PointerType::get(context, space);
  return pointer->getType() == type ? pointer : builder.CreateAddrSpaceCast(pointer, type);
}

// The warp's fragments of A and B through ldmatrix: each lane names one 16-byte row of one of
// the 8 x 8 matrices of 16-bit elements (lanes 8q .. 8q+7 matrix q), and the matrices land in
// exactly the registers mma.sync takes. 16-bit inputs (m16n8k16): A's four are its rows 0-7 and
// 8-15 at k 0, then at k 8; B's two its rows at k 0 and k 8; a block stored k-major ([k][rows])
// is read with .trans, which hands each lane the elements of the transposed matrix. TF32 (two
// m16n8k8 products, k 0-7 and 8-15): a 16-byte row holds 4 f32s, so the same four matrices are
// A's rows 0-7 and 8-15 at k 0-3, then at k 4-7 (lane l's (l / 4, l % 4), as m16n8k8.tf32 takes
// them); a k-major TF32 block, which .trans cannot transpose (it swaps 16-bit halves), is read
// element by element. Each TF32 element is rounded by cvt.rna.tf32.f32.
void CodegenPTX::emit_mma(const ir::Mma *op) {
  const bool tf32 = op->input == ir::ScalarType::F32;
  llvm::Value *lane = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_laneid);
  llvm::Value *r = builder.CreateAnd(lane, builder.getInt32(7));
  llvm::Type *pointer = llvm::PointerType::get(context, 3);
  // The address of element (row, col) of the block at `origin`, in its array's own order.
  auto address_of = [&](const ir::Shared &array, const std::vector<ir::Expr> &origin,
                        llvm::Value *row, llvm::Value *col) {
    const int64_t stride = array->extents.back();
    llvm::Value *offset = builder.CreateAdd(
        builder.CreateMul(row, builder.getInt32(static_cast<int32_t>(stride))), col);
    llvm::Value *address =
        builder.CreateGEP(memory_type(array->type), shared_address(array, origin),
                          builder.CreateZExt(offset, builder.getInt64Ty()));
    // ldmatrix reads shared memory: its address is a shared pointer (the overloaded form takes
    // the pointer type as its one overload).
    return in_space(address, 3);
  };
  // Fragment registers through one ldmatrix (x4 for A, x2 for B) whose k starts at `k0`.
  auto ldmatrix = [&](const ir::Shared &array, const std::vector<ir::Expr> &origin, bool k_last,
                      bool is_a, int k0) {
    llvm::Value *q = builder.CreateLShr(lane, builder.getInt32(3));
    if (!is_a)
      q = builder.CreateAnd(q, builder.getInt32(1)); // x2: lanes 16-31's addresses are unused
    llvm::Value *q_low = builder.CreateAnd(q, builder.getInt32(1));
    llvm::Value *q_high = builder.CreateLShr(q, builder.getInt32(1));
    // The matrix's block row (0 or 8) and its k (0 or 8 elements; TF32: 0 or 4).
    llvm::Value *block_row = is_a ? q_low : builder.getInt32(0);
    llvm::Value *block_k =
        builder.CreateAdd(builder.CreateShl(is_a ? q_high : q, tf32 ? 2 : 3), builder.getInt32(k0));
    llvm::Value *row, *col;
    if (k_last) // the lane's row is a block row; the matrix starts at its k
      row = builder.CreateAdd(builder.CreateShl(block_row, 3), r), col = block_k;
    else // the lane's row is a k; the matrix starts at its block row
      row = builder.CreateAdd(block_k, r), col = builder.CreateShl(block_row, 3);
    const llvm::Intrinsic::ID load =
        is_a ? (k_last ? llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_b16
                       : llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_trans_b16)
             : (k_last ? llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x2_b16
                       : llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x2_trans_b16);
    llvm::Function *f = llvm::Intrinsic::isOverloaded(load)
                            ? llvm::Intrinsic::getDeclaration(module.get(), load, {pointer})
                            : llvm::Intrinsic::getDeclaration(module.get(), load);
    llvm::Value *loaded = builder.CreateCall(f, {address_of(array, origin, row, col)});
    std::vector<llvm::Value *> regs;
    for (unsigned k = 0; k < (is_a ? 4u : 2u); ++k)
      regs.push_back(builder.CreateExtractValue(loaded, {k}));
    return regs;
  };
  // A TF32 fragment whose k starts at `k0`: register e holds element (row e % 2 * 8 + l / 4,
  // k e / 2 * 4 + l % 4) of A (e < 4), (n l / 4, k e * 4 + l % 4) of B (e < 2), rounded.
  auto tf32_fragment = [&](const ir::Shared &array, const std::vector<ir::Expr> &origin,
                           bool k_last, bool is_a, int k0) {
    std::vector<llvm::Value *> regs;
    if (k_last)
      regs = ldmatrix(array, origin, k_last, is_a, k0);
    llvm::Value *group = builder.CreateLShr(lane, builder.getInt32(2));
    llvm::Value *in_group = builder.CreateAnd(lane, builder.getInt32(3));
    for (unsigned e = 0; e < (is_a ? 4u : 2u); ++e) {
      llvm::Value *value;
      if (k_last) {
        value = builder.CreateBitCast(regs[e], builder.getFloatTy());
      } else {
        llvm::Value *row = builder.CreateAdd(group, builder.getInt32(is_a ? e % 2 * 8 : 0));
        llvm::Value *k = builder.CreateAdd(
            in_group, builder.getInt32(k0 + static_cast<int>(is_a ? e / 2 * 4 : e * 4)));
        value = builder.CreateLoad(builder.getFloatTy(), address_of(array, origin, k, row));
      }
      value = builder.CreateIntrinsic(llvm::Intrinsic::nvvm_f2tf32_rna, {}, {value});
      if (regs.size() > e)
        regs[e] = value;
      else
        regs.push_back(value);
    }
    return regs;
  };
  llvm::Function *mma = llvm::Intrinsic::getDeclaration(
      module.get(), tf32 ? llvm::Intrinsic::nvvm_mma_m16n8k8_row_col_tf32
                    : op->input == ir::ScalarType::F16
                        ? llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32
                        : llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_bf16);
  llvm::FunctionType *type = mma->getFunctionType();
  std::vector<llvm::Value *> acc;
  for (const ir::Var &v : op->acc)
    acc.push_back(builder.CreateLoad(builder.getFloatTy(), lookup(v)));
  for (int k0 = 0; k0 < 16; k0 += tf32 ? 8 : 16) {
    std::vector<llvm::Value *> args =
        tf32 ? tf32_fragment(op->a, op->a_origin, op->a_k_last, true, k0)
             : ldmatrix(op->a, op->a_origin, op->a_k_last, true, 0);
    for (llvm::Value *v : tf32 ? tf32_fragment(op->b, op->b_origin, op->b_k_last, false, k0)
                               : ldmatrix(op->b, op->b_origin, op->b_k_last, false, 0))
      args.push_back(v);
    args.insert(args.end(), acc.begin(), acc.end());
    for (unsigned k = 0; k < args.size(); ++k)
      if (args[k]->getType() != type->getParamType(k)) // <2 x half> for f16, i32 for bf16
        args[k] = builder.CreateBitCast(args[k], type->getParamType(k));
    llvm::Value *d = builder.CreateCall(mma, args);
    for (unsigned e = 0; e < 4; ++e)
      acc[e] = builder.CreateExtractValue(d, {e});
  }
  for (unsigned e = 0; e < 4; ++e)
    builder.CreateStore(acc[e], lookup(op->acc[e]));
}

// cp.async.cg.shared.global [dst], [src], 16: the 16 bytes bypass L1 and the registers (8 and 4
// bytes: cp.async.ca, through L1); with a valid count, its bytes as the src-size operand, the rest
// zero-filled.
// cvt.rna.tf32.f32 (sm_80 and later, as the 16-bit roundings): the tensor-core passes that make a
// RoundTF32 do so for those only.
llvm::Value *CodegenPTX::round_to_tf32(llvm::Value *v) {
  llvm::Value *bits = builder.CreateIntrinsic(llvm::Intrinsic::nvvm_f2tf32_rna, {}, {v});
  return builder.CreateBitCast(bits, builder.getFloatTy());
}

void CodegenPTX::emit_async_copy(const ir::AsyncCopy *op) {
  llvm::Value *dst = in_space(shared_address(op->dst, op->dst_index), 3);
  llvm::Value *src = in_space(element_address(op->array, op->src_index), 1);
  const int64_t bytes = op->count * ir::byte_size(op->dst->type);
  using namespace llvm::Intrinsic;
  if (!op->valid.defined()) {
    builder.CreateIntrinsic(bytes == 16  ? nvvm_cp_async_cg_shared_global_16
                            : bytes == 8 ? nvvm_cp_async_ca_shared_global_8
                                         : nvvm_cp_async_ca_shared_global_4,
                            {}, {dst, src});
    return;
  }
  llvm::Value *src_bytes = builder.CreateTrunc(
      builder.CreateMul(value_of(op->valid), builder.getInt64(ir::byte_size(op->dst->type))),
      builder.getInt32Ty());
  builder.CreateIntrinsic(bytes == 16  ? nvvm_cp_async_cg_shared_global_16_s
                          : bytes == 8 ? nvvm_cp_async_ca_shared_global_8_s
                                       : nvvm_cp_async_ca_shared_global_4_s,
                          {}, {dst, src, src_bytes});
}

void CodegenPTX::emit_async_wait(const ir::AsyncWait &op) {
  if (op.pending == ir::AsyncWait::fence_only) {
    // only the fence below
  } else if (op.pending < 0) {
    builder.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_wait_all, {}, {});
  } else {
    builder.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_commit_group, {}, {});
    builder.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_wait_group, {},
                            {builder.getInt32(op.pending)});
  }
  if (op.async_proxy) {
    // LLVM 19 has no intrinsic for it.
    auto *type = llvm::FunctionType::get(builder.getVoidTy(), {}, false);
    builder.CreateCall(type,
                       llvm::InlineAsm::get(type, "fence.proxy.async.shared::cta;", "~{memory}",
                                            /*hasSideEffects=*/true));
  }
}

// A warpgroup's chunk of products as one inline PTX block (LLVM 19 has no wgmma intrinsics):
// wgmma.fence, then for each 16 of k every product's wgmma.mma_async, then wgmma.commit_group and
// wgmma.wait_group 0. One block, so that nothing LLVM schedules touches the accumulators while
// the products run. Each operand's matrix descriptor (PTX ISA, "Matrix Descriptor Format"): bits
// 0-13 the start address / 16, 16-29 the leading byte offset / 16, 32-45 the stride byte offset
// / 16, 62-63 the swizzle (1: 128 bytes); the next 16 of k adds k_step_bytes / 16 to the start.
void CodegenPTX::emit_warpgroup_mma(const ir::WarpgroupMma *op) {
  llvm::Type *i64 = builder.getInt64Ty(), *f32 = builder.getFloatTy();
  auto descriptor = [&](const ir::Expr &offset, const ir::WarpgroupMma::Layout &l) {
    // The element's address in the shared window (an addrspace(3) pointer's value).
    llvm::Value *element = in_space(shared_address(op->smem, {offset}), 3);
    llvm::Value *address =
        builder.CreateZExt(builder.CreatePtrToInt(element, builder.getInt32Ty()), i64);
    llvm::Value *start =
        builder.CreateAnd(builder.CreateLShr(address, 4), builder.getInt64(0x3fff));
    const uint64_t fixed = (uint64_t((l.lbo >> 4) & 0x3fff) << 16) |
                           (uint64_t((l.sbo >> 4) & 0x3fff) << 32) | (uint64_t(1) << 62);
    return builder.CreateOr(start, builder.getInt64(fixed));
  };
  const int64_t per = op->n / 2;
  const size_t products = op->products.size();
  std::vector<llvm::Value *> args;
  std::vector<llvm::Type *> outs;
  std::string constraints;
  for (size_t p = 0; p < products; ++p)
    for (int64_t e = 0; e < per; ++e) {
      args.push_back(builder.CreateLoad(f32, lookup(op->products[p].acc[size_t(e)])));
      outs.push_back(f32);
      constraints += (constraints.empty() ? "" : ",") + std::string("=f");
    }
  const size_t accs = args.size();
  for (size_t p = 0; p < products && op->k_steps > 0; ++p) {
    args.push_back(descriptor(op->products[p].a_offset, op->a));
    args.push_back(descriptor(op->products[p].b_offset, op->b));
    constraints += ",l,l";
  }
  for (size_t k = 0; k < accs; ++k) // tied: each accumulator is read and written
    constraints += "," + std::to_string(k);
  constraints += ",~{memory}";
  const bool tf32 = op->input == ir::ScalarType::F32; // m64nNk8, both operands k-major
  const char *type = tf32 ? "tf32" : op->input == ir::ScalarType::F16 ? "f16" : "bf16";
  std::string text = op->k_steps == 0
                         ? "{\n"
                         : "{\n.reg .pred p;\n.reg .b64 da, db;\nsetp.ne.b32 p, 1, 0;\n"
                           "wgmma.fence.sync.aligned;\n";
  for (int ks = 0; ks < op->k_steps; ++ks)
    for (size_t p = 0; p < products; ++p) {
      const size_t a = accs + 2 * p, b = a + 1;
      text += "add.s64 da, $" + std::to_string(a) + ", " +
              std::to_string(ks * op->a.k_step_bytes / 16) + ";\n";
      text += "add.s64 db, $" + std::to_string(b) + ", " +
              std::to_string(ks * op->b.k_step_bytes / 16) + ";\n";
      text += "wgmma.mma_async.sync.aligned.m64n" + std::to_string(op->n) + (tf32 ? "k8" : "k16") +
              ".f32." + type + "." + type + " {";
      for (int64_t e = 0; e < per; ++e)
        text += (e ? ", $" : "$") + std::to_string(int64_t(p) * per + e);
      // scale-d (accumulate), scale-a, scale-b, then (16-bit inputs) A and B transposed: m- or
      // n-major.
      text += "}, da, db, p, 1, 1" +
              (tf32 ? std::string()
                    : std::string(", ") + (op->a.k_major ? "0" : "1") + ", " +
                          (op->b.k_major ? "0" : "1")) +
              ";\n";
    }
  if (op->k_steps > 0)
    text += "wgmma.commit_group.sync.aligned;\n";
  text += "wgmma.wait_group.sync.aligned " + std::to_string(op->pending) + ";\n}";
  std::vector<llvm::Type *> in_types;
  for (size_t k = accs; k < args.size(); ++k)
    in_types.push_back(i64);
  for (size_t k = 0; k < accs; ++k)
    in_types.push_back(f32);
  std::vector<llvm::Value *> operands(args.begin() + long(accs), args.end());
  operands.insert(operands.end(), args.begin(), args.begin() + long(accs));
  auto *result_type = llvm::StructType::get(context, outs);
  auto *fn_type = llvm::FunctionType::get(result_type, in_types, false);
  llvm::Value *d = builder.CreateCall(
      fn_type, llvm::InlineAsm::get(fn_type, text, constraints, /*hasSideEffects=*/true), operands);
  for (size_t p = 0; p < products; ++p)
    for (int64_t e = 0; e < per; ++e)
      builder.CreateStore(builder.CreateExtractValue(d, {unsigned(int64_t(p) * per + e)}),
                          lookup(op->products[p].acc[size_t(e)]));
}

// A memory barrier's operation (ir::Mbarrier): init and the arrivals through LLVM's intrinsics; the
// wait, for which LLVM 19 has none, as a loop around one inline mbarrier.try_wait.parity (which
// itself waits a while, in hardware, before it answers false).
void CodegenPTX::emit_mbarrier(const ir::Mbarrier *op) {
  llvm::Value *at = in_space(shared_address(op->barriers, {op->index}), 3);
  switch (op->op) {
  case ir::Mbarrier::Op::Init:
    builder.CreateIntrinsic(llvm::Intrinsic::nvvm_mbarrier_init_shared, {},
                            {at, builder.CreateTrunc(value_of(op->value), builder.getInt32Ty())});
    return;
  case ir::Mbarrier::Op::Arrive:
    builder.CreateIntrinsic(llvm::Intrinsic::nvvm_mbarrier_arrive_shared, {}, {at});
    return;
  case ir::Mbarrier::Op::ArriveOnCopies:
    builder.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_mbarrier_arrive_noinc_shared, {}, {at});
    return;
  case ir::Mbarrier::Op::Wait:
    break;
  }
  llvm::Type *i32 = builder.getInt32Ty();
  llvm::Value *address = builder.CreatePtrToInt(at, i32);
  llvm::Value *parity = builder.CreateTrunc(value_of(op->value), i32);
  auto *type = llvm::FunctionType::get(i32, {i32, i32}, false);
  auto *try_wait = llvm::InlineAsm::get(
      type,
      "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2;\n"
      "selp.u32 $0, 1, 0, p;\n}",
      "=r,r,r,~{memory}", /*hasSideEffects=*/true);
  llvm::Function *fn = builder.GetInsertBlock()->getParent();
  auto *loop = llvm::BasicBlock::Create(context, "mbarrier.wait", fn);
  auto *done = llvm::BasicBlock::Create(context, "mbarrier.done", fn);
  builder.CreateBr(loop);
  builder.SetInsertPoint(loop);
  llvm::Value *complete = builder.CreateCall(type, try_wait, {address, parity});
  builder.CreateCondBr(builder.CreateICmpNE(complete, builder.getInt32(0)), done, loop);
  builder.SetInsertPoint(done);
}

} // namespace loom::codegen
