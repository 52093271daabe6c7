// The SIMT level's IR -> LLVM IR: shared arrays, barriers, atomics and warp collectives. The
// base class generates the CPU's form, which calls the runtime (support/Abi.h) for what CUDA
// hardware does; CodegenPTX overrides the hooks with NVPTX intrinsics and __shared__ globals.
#include "codegen/CodegenLLVM.h"

#include "ir/Passes.h"

#include "support/Abi.h"
#include "support/Error.h"

#include <algorithm>
#include <cstddef>

namespace loom::codegen {

using ir::ScalarType;

// ---- CPU hooks ------------------------------------------------------------------------------

void CodegenLLVM::begin_simt_task() {
  llvm::FunctionCallee get = module->getOrInsertFunction(
      "loom_simt_thread", llvm::FunctionType::get(builder.getPtrTy(), {}, false));
  // One call per thread's run of the task: the pointer stays valid until the entry returns.
  simt_thread_ = builder.CreateCall(get, {}, "simt_thread");
}

llvm::Value *CodegenLLVM::shared_base(const ir::Shared &array, int index) {
  (void)array;
  if (!simt_thread_)
    throw CompileError("kernel '" + kernel->name + "' uses shared memory outside a SIMT task");
  llvm::Value *field = builder.CreateConstInBoundsGEP1_64(builder.getInt8Ty(), simt_thread_,
                                                          offsetof(SimtThread, shared));
  llvm::Value *buffer = builder.CreateAlignedLoad(builder.getPtrTy(), field, llvm::Align(8));
  std::vector<int64_t> offsets = ir::shared_offsets(kernel->shared, nullptr);
  return builder.CreateConstInBoundsGEP1_64(builder.getInt8Ty(), buffer, offsets.at(index));
}

llvm::Value *CodegenLLVM::dynamic_shared_bytes() {
  if (!simt_thread_)
    throw CompileError("kernel '" + kernel->name +
                       "' uses a dynamic shared array outside a SIMT task");
  llvm::Value *field = builder.CreateConstInBoundsGEP1_64(
      builder.getInt8Ty(), simt_thread_, offsetof(SimtThread, dynamic_shared_bytes));
  return builder.CreateAlignedLoad(builder.getInt64Ty(), field, llvm::Align(8));
}

void CodegenLLVM::emit_print(llvm::Value *format, llvm::Value *slots) {
  llvm::FunctionCallee f = module->getOrInsertFunction(
      "loom_print", llvm::FunctionType::get(builder.getVoidTy(),
                                            {builder.getPtrTy(), builder.getPtrTy()}, false));
  builder.CreateCall(f, {format, slots});
}

void CodegenLLVM::emit_barrier() {
  llvm::FunctionCallee f = module->getOrInsertFunction(
      "loom_simt_barrier", llvm::FunctionType::get(builder.getVoidTy(), {}, false));
  builder.CreateCall(f, {});
}

llvm::Value *CodegenLLVM::warp_op(ir::WarpOpKind op, ScalarType t, llvm::Value *value,
                                  llvm::Value *operand) {
  llvm::Type *i64 = builder.getInt64Ty();
  llvm::FunctionCallee f = module->getOrInsertFunction(
      "loom_simt_warp",
      llvm::FunctionType::get(i64, {builder.getInt32Ty(), i64, builder.getInt32Ty()}, false));
  // The value's bits, zero-extended to 64.
  llvm::Value *bits = value;
  if (ir::is_float(t))
    bits = builder.CreateBitCast(value, builder.getIntNTy(ir::bit_width(t)));
  bits = builder.CreateZExt(bits, i64);
  llvm::Value *result = builder.CreateCall(
      f, {builder.getInt32(static_cast<int>(op)), bits, operand ? operand : builder.getInt32(0)});
  switch (op) {
  case ir::WarpOpKind::Any:
  case ir::WarpOpKind::All:
    return builder.CreateICmpNE(result, builder.getInt64(0));
  case ir::WarpOpKind::Ballot:
    return builder.CreateTrunc(result, builder.getInt32Ty());
  default:
    break;
  }
  result = builder.CreateTrunc(result, builder.getIntNTy(ir::bit_width(t)));
  return ir::is_float(t) ? builder.CreateBitCast(result, llvm_type(t)) : result;
}

// ---- shared by both targets -----------------------------------------------------------------

// At the start of the task, once, so that every use is dominated by it (as the shared arrays'
// bases are): a point after the CPU's SimtThread is fetched.
llvm::Value *CodegenLLVM::at_task_start(const std::function<llvm::Value *()> &make) {
  llvm::IRBuilderBase::InsertPointGuard guard(builder);
  llvm::BasicBlock *start = &*std::next(function_->begin());
  builder.SetInsertPoint(start, start->getFirstInsertionPt());
  if (auto *call = llvm::dyn_cast_or_null<llvm::Instruction>(simt_thread_)) // after it
    builder.SetInsertPoint(call->getParent(), std::next(call->getIterator()));
  return make();
}

// The dynamic shared array's extent: the launch's bytes over the element size (a multiple of it,
// which the call checks: ir/DynamicShared.h).
llvm::Value *CodegenLLVM::dynamic_shared_extent(const ir::Shared &array) {
  if (!dynamic_bytes_)
    dynamic_bytes_ = at_task_start([&] { return dynamic_shared_bytes(); });
  return builder.CreateExactUDiv(dynamic_bytes_, builder.getInt64(ir::byte_size(array->type)));
}

llvm::Value *CodegenLLVM::shared_address(const ir::Shared &array,
                                         const std::vector<ir::Expr> &indices) {
  const std::vector<ir::Shared> &arrays = array->local() ? kernel->locals : kernel->shared;
  int index = -1;
  for (size_t k = 0; k < arrays.size(); ++k)
    if (arrays[k] == array)
      index = static_cast<int>(k);
  if (index < 0 || indices.size() != array->extents.size())
    throw CompileError("internal error in codegen: access to " +
                       std::string(array->local() ? "local" : "shared") + " array '" + array->name +
                       "', which the kernel does not declare with that rank");
  llvm::Value *base = nullptr;
  if (array->local()) {
    // A local array is an alloca of the task's entry block: each CPU worker's run of the task
    // and each GPU thread has its own (in local memory, or in registers once SROA has promoted
    // an array whose every index is a constant after unrolling).
    if (!local_bases_[index]) {
      llvm::AllocaInst *slot = alloca_builder_.CreateAlloca(
          llvm::ArrayType::get(memory_type(array->type), static_cast<uint64_t>(array->size())),
          nullptr, array->name);
      slot->setAlignment(llvm::Align(16));
      local_bases_[index] = slot;
    }
    base = local_bases_[index];
  } else {
    if (!shared_bases_[index])
      shared_bases_[index] = at_task_start([&] { return shared_base(array, index); });
    base = shared_bases_[index];
  }
  // Row-major over static extents: the offset always fits 32 bits (shared arrays are small).
  // A constant added to the last index becomes an address step of its own (neighbouring
  // elements merge into vector loads).
  int64_t constant = 0;
  std::vector<llvm::Value *> wide = index_values(indices, true, &constant);
  llvm::Value *linear = nullptr;
  for (size_t d = 0; d < indices.size(); ++d) {
    llvm::Value *i = builder.CreateTrunc(wide[d], builder.getInt32Ty());
    linear = linear ? builder.CreateAdd(
                          builder.CreateMul(
                              linear, builder.getInt32(static_cast<int32_t>(array->extents[d]))),
                          i)
                    : i;
  }
  llvm::Value *address = builder.CreateGEP(memory_type(array->type), base,
                                           builder.CreateSExt(linear, builder.getInt64Ty()));
  if (constant != 0)
    address = builder.CreateGEP(memory_type(array->type), address, builder.getInt64(constant));
  if (!bounds_record_)
    return address;
  // A bounds-checked kernel checks shared and local indices too, against the static extents (a
  // dynamic array's, the launch's); the record names shared array k as array number
  // (parameters + k), local array k as (parameters + shared arrays + k).
  std::vector<llvm::Value *> extents;
  for (int64_t e : array->extents)
    extents.push_back(array->dynamic ? dynamic_shared_extent(array) : builder.getInt64(e));
  const int number = static_cast<int>(kernel->params.size()) +
                     (array->local() ? static_cast<int>(kernel->shared.size()) : 0) + index;
  return checked_address(number, whole(wide, constant), extents, address);
}

llvm::Value *CodegenLLVM::atomic_update(ir::AtomicOp op, ScalarType t, llvm::Value *address,
                                        llvm::Value *value, llvm::Value *compare) {
  const llvm::Align align(ir::byte_size(t));
  const auto order = llvm::AtomicOrdering::Monotonic; // CUDA's atomics: relaxed
  const bool fp = ir::is_float(t);
  llvm::Type *bits = builder.getIntNTy(ir::bit_width(t));
  switch (op) {
  case ir::AtomicOp::Add:
    return builder.CreateAtomicRMW(fp ? llvm::AtomicRMWInst::FAdd : llvm::AtomicRMWInst::Add,
                                   address, value, align, order);
  case ir::AtomicOp::Exchange:
    return builder.CreateAtomicRMW(llvm::AtomicRMWInst::Xchg, address, value, align, order);
  case ir::AtomicOp::Min:
  case ir::AtomicOp::Max:
    if (!fp)
      return builder.CreateAtomicRMW(
          ir::is_unsigned(t)
              ? (op == ir::AtomicOp::Min ? llvm::AtomicRMWInst::UMin : llvm::AtomicRMWInst::UMax)
              : (op == ir::AtomicOp::Min ? llvm::AtomicRMWInst::Min : llvm::AtomicRMWInst::Max),
          address, value, align, order);
    break; // floats: a compare-and-swap loop with loom's min/max (fmin/fmax), below
  case ir::AtomicOp::CompareExchange: {
    llvm::Value *expected = fp ? builder.CreateBitCast(compare, bits) : compare;
    llvm::Value *desired = fp ? builder.CreateBitCast(value, bits) : value;
    llvm::Value *pair =
        builder.CreateAtomicCmpXchg(address, expected, desired, align, order, order);
    llvm::Value *old = builder.CreateExtractValue(pair, 0);
    return fp ? builder.CreateBitCast(old, llvm_type(t)) : old;
  }
  }
  // old = *address; loop { new = min(old, value); (seen, ok) = cas(address, old, new);
  // if ok: done; old = seen }
  llvm::BasicBlock *before = builder.GetInsertBlock();
  llvm::BasicBlock *loop = llvm::BasicBlock::Create(context, "atomic.loop", function_);
  llvm::BasicBlock *done = llvm::BasicBlock::Create(context, "atomic.done", function_);
  llvm::LoadInst *first = builder.CreateAlignedLoad(bits, address, align);
  first->setAtomic(order); // other threads update it meanwhile
  builder.CreateBr(loop);
  builder.SetInsertPoint(loop);
  llvm::PHINode *old = builder.CreatePHI(bits, 2);
  old->addIncoming(first, before);
  llvm::Value *combined = arith(op == ir::AtomicOp::Min ? ir::BinaryOp::Min : ir::BinaryOp::Max, t,
                                builder.CreateBitCast(old, llvm_type(t)), value);
  llvm::Value *pair = builder.CreateAtomicCmpXchg(
      address, old, builder.CreateBitCast(combined, bits), align, order, order);
  llvm::Value *seen = builder.CreateExtractValue(pair, 0);
  old->addIncoming(seen, loop);
  builder.CreateCondBr(builder.CreateExtractValue(pair, 1), done, loop);
  builder.SetInsertPoint(done);
  return builder.CreateBitCast(old, llvm_type(t));
}

// ---- the nodes ------------------------------------------------------------------------------

namespace {

constexpr int64_t factor_cap = 16;

// The largest power of two, up to 16, that divides v (16 for 0), in unsigned arithmetic (the
// lowest set bit of INT64_MIN is its own).
int64_t power_of_two_dividing(int64_t v) {
  const uint64_t u = uint64_t(v);
  return u == 0 ? factor_cap : int64_t(std::min<uint64_t>(factor_cap, u & (~u + 1)));
}

// The largest power of two, up to 16, that an integer index is a multiple of by its form
// (constants, sums, products, shifts, masks and selects of them); 1 when none is known.
int64_t power_of_two_factor(const ir::Expr &e) {
  constexpr int64_t cap = factor_cap;
  if (auto *c = e.as<ir::IntConst>())
    return power_of_two_dividing(c->value);
  if (auto *s = e.as<ir::Select>())
    return std::min(power_of_two_factor(s->a), power_of_two_factor(s->b));
  auto *b = e.as<ir::Binary>();
  if (!b)
    return 1;
  const int64_t x = power_of_two_factor(b->a), y = power_of_two_factor(b->b);
  switch (b->op) {
  case ir::BinaryOp::Add:
  case ir::BinaryOp::Sub:
  case ir::BinaryOp::Min:
  case ir::BinaryOp::Max:
  case ir::BinaryOp::BitOr:
  case ir::BinaryOp::BitXor:
    return std::min(x, y);
  case ir::BinaryOp::Mul:
    return std::min(cap, x * y);
  case ir::BinaryOp::BitAnd:
    return std::max(x, y);
  case ir::BinaryOp::Shl:
    if (auto *c = b->b.as<ir::IntConst>(); c && c->value >= 0 && c->value < 5)
      return std::min(cap, x << c->value);
    return 1;
  default:
    return 1;
  }
}

} // namespace

int64_t CodegenLLVM::shared_base_alignment(const ir::Shared &array) const {
  return array->local() ? 16 : ir::byte_size(array->type);
}

// A shared or local element's alignment: its type's, or more where its index is provably a
// multiple of more elements (up to 16 bytes, within the array's own alignment), so that LLVM's
// load/store vectorizer merges neighbouring accesses (a tile's 16-byte groups: st.shared.v4).
llvm::Align CodegenLLVM::shared_alignment(const ir::Shared &array,
                                          const std::vector<ir::Expr> &indices) const {
  const int64_t size = ir::byte_size(array->type);
  int64_t factor = 16; // of the row-major index ((i0 e1 + i1) e2 + i2 ...), in elements
  for (size_t d = 0; d < indices.size(); ++d) {
    if (d > 0) {
      const int64_t extent = array->extents[d];
      factor = std::min<int64_t>(16, factor * (extent > 0 ? power_of_two_dividing(extent) : 1));
    }
    factor = d == 0 ? power_of_two_factor(indices[d])
                    : std::min(factor, power_of_two_factor(indices[d]));
  }
  const int64_t bytes = std::min<int64_t>({16, factor * size, shared_base_alignment(array)});
  return llvm::Align(uint64_t(std::max(bytes, size)));
}

void CodegenLLVM::visit_node(const ir::SharedLoad *op) {
  llvm::Value *address = shared_address(op->array, op->indices);
  ScalarType t = op->array->type;
  value_ = from_memory(
      builder.CreateAlignedLoad(memory_type(t), address, shared_alignment(op->array, op->indices)),
      t);
}

void CodegenLLVM::visit_node(const ir::SharedExtent *op) {
  value_ = dynamic_shared_extent(op->array);
}

void CodegenLLVM::visit_node(const ir::SharedStore *op) {
  llvm::Value *value = codegen(op->value);
  llvm::Value *address = shared_address(op->array, op->indices);
  ScalarType t = op->array->type;
  builder.CreateAlignedStore(to_memory(value, t), address,
                             shared_alignment(op->array, op->indices));
}

void CodegenLLVM::visit_node(const ir::Barrier *) {
  emit_barrier();
}

void CodegenLLVM::visit_node(const ir::AsyncCopy *op) {
  emit_async_copy(op);
}

void CodegenLLVM::visit_node(const ir::AsyncWait *op) {
  emit_async_wait(*op);
}

void CodegenLLVM::visit_node(const ir::WarpgroupMma *op) {
  emit_warpgroup_mma(op);
}

void CodegenLLVM::visit_node(const ir::Mbarrier *op) {
  emit_mbarrier(op);
}

void CodegenLLVM::emit_mbarrier(const ir::Mbarrier *) {
  throw CompileError("a memory barrier (mbarrier) is GPU code; the CPU has no code for it");
}

void CodegenLLVM::emit_warpgroup_mma(const ir::WarpgroupMma *) {
  throw CompileError("a warpgroup mma (wgmma) is GPU code; the CPU has no code for it");
}

void CodegenLLVM::emit_async_copy(const ir::AsyncCopy *op) {
  for (int v = 0; v < op->count; ++v) {
    std::vector<ir::Expr> src = op->src_index, dst = op->dst_index;
    src.back() =
        ir::Binary::make(ir::BinaryOp::Add, src.back(), ir::IntConst::make(ir::ScalarType::I64, v));
    dst.back() =
        ir::Binary::make(ir::BinaryOp::Add, dst.back(), ir::IntConst::make(ir::ScalarType::I64, v));
    ir::Stmt copy =
        ir::SharedStore::make(op->dst, dst, ir::Load::make(op->dst->type, op->array, src));
    if (op->valid.defined()) // the elements past `valid` zero-filled, unread
      copy = ir::IfThenElse::make(
          ir::Binary::make(ir::BinaryOp::Lt, ir::IntConst::make(ir::ScalarType::I64, v), op->valid),
          copy,
          ir::SharedStore::make(op->dst, dst, ir::FloatConst::make(ir::ScalarType::F32, 0.0)));
    codegen(copy);
  }
}

void CodegenLLVM::visit_node(const ir::Assume *op) {
  builder.CreateAssumption(codegen(op->cond));
}

void CodegenLLVM::visit_node(const ir::Mma *op) {
  emit_mma(op);
}

void CodegenLLVM::emit_mma(const ir::Mma *op) {
  codegen(ir::mma_by_lane(*op));
}

void CodegenLLVM::visit_node(const ir::Atomic *op) {
  llvm::Value *value = codegen(op->value);
  llvm::Value *compare = op->compare.defined() ? codegen(op->compare) : nullptr;
  ScalarType t = op->shared ? op->shared->type : kernel->params.at(op->array).type;
  llvm::Value *address = op->shared ? shared_address(op->shared, op->indices)
                                    : element_address(op->array, op->indices);
  llvm::Value *old = atomic_update(op->op, t, address, value, compare);
  if (op->result)
    builder.CreateStore(old, lookup(op->result));
}

void CodegenLLVM::visit_node(const ir::WarpOp *op) {
  llvm::Value *value = codegen(op->value);
  llvm::Value *operand = op->operand.defined() ? codegen(op->operand) : nullptr;
  value_ = warp_op(op->op, op->value.type(), value, operand);
}

} // namespace loom::codegen
