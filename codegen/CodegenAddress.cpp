// CodegenLLVM's addresses: an array's extents and strides from its parameters, the index values
// of an access, the element's address (row-major, strided or a complex array's part), the
// bounds check around it, and the alignment an access may assume.
#include "codegen/CodegenLLVM.h"

#include "support/Abi.h"
#include "support/Error.h"

#include <llvm/IR/MDBuilder.h>

namespace loom::codegen {

using ir::ScalarType;

llvm::Value *CodegenLLVM::array_extent(int array, int dim) const {
  if (array < 0 || array >= static_cast<int>(kernel->params.size()) ||
      kernel->params[array].kind != ir::ParamKind::Array || dim < 0 ||
      dim >= kernel->params[array].rank)
    internal_error("extent " + std::to_string(dim) + " of parameter " + std::to_string(array) +
                   ", which is not an array of that rank");
  llvm::Argument *extent = function_->getArg(first_flat_arg_[array] + 1 + dim);
  // The parts of a complex array: the innermost extent is always 2, and as a constant it lets
  // LLVM see that neighbouring elements' parts are neighbours (one vector load of a run).
  if (kernel->params[array].part == ir::ComplexPart::Parts && dim == kernel->params[array].rank - 1)
    return llvm::ConstantInt::get(extent->getType(), 2);
  return extent;
}

llvm::Value *CodegenLLVM::array_stride(int array, int dim) const {
  const ir::Param &p = kernel->params.at(array);
  if (!p.strided || dim < 0 || dim >= p.rank)
    internal_error("stride " + std::to_string(dim) + " of parameter '" + p.name +
                   "', which is not a strided array of that rank");
  return function_->getArg(first_flat_arg_[array] + 1 + p.rank + dim);
}

std::vector<llvm::Value *> CodegenLLVM::index_values(const std::vector<ir::Expr> &indices,
                                                     bool split, int64_t *constant) {
  *constant = 0;
  std::vector<llvm::Value *> index;
  for (size_t d = 0; d < indices.size(); ++d) {
    const ir::Expr *e = &indices[d];
    if (split && d + 1 == indices.size())
      if (auto *add = e->as<ir::Binary>(); add && add->op == ir::BinaryOp::Add)
        if (auto *c = add->b.as<ir::IntConst>()) {
          *constant = c->value;
          e = &add->a;
        }
    index.push_back(codegen(*e));
  }
  return index;
}

std::vector<llvm::Value *> CodegenLLVM::whole(std::vector<llvm::Value *> index, int64_t constant) {
  if (constant != 0)
    index.back() = builder.CreateAdd(index.back(), builder.getInt64(constant));
  return index;
}

llvm::Value *CodegenLLVM::element_address(int array, const std::vector<ir::Expr> &indices) {
  const ir::Param &p = kernel->params.at(array);
  if (p.kind != ir::ParamKind::Array || static_cast<int>(indices.size()) != p.rank)
    internal_error("access to parameter '" + p.name + "' with " + std::to_string(indices.size()) +
                   " indices");
  // Multi-dimensional arrays split a constant off the last index (the tile schedule's
  // neighbouring iterations on the CPU).
  int64_t constant = 0;
  std::vector<llvm::Value *> index = index_values(indices, indices.size() > 1, &constant);
  // Row-major: ((i0 * e1 + i1) * e2 + i2). In-bounds indices cannot overflow, so nsw is safe
  // and lets the vectorizer see consecutive accesses.
  // With 32-bit indices (GpuTarget::index32) the array has fewer than 2^31 elements, so an
  // in-bounds index and offset fit 32 bits; the offset is sign-extended by the GEP.
  auto narrow = [&](llvm::Value *v) {
    return index32 ? builder.CreateTrunc(v, builder.getInt32Ty()) : v;
  };
  llvm::Value *linear = nullptr;
  if (p.strided) {
    // A view: i0 * s0 + i1 * s1 + ..., the strides in elements and of any sign (the split
    // constant goes back into the last index).
    index = whole(std::move(index), constant);
    constant = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      llvm::Value *term = builder.CreateMul(
          narrow(index[d]), narrow(array_stride(array, static_cast<int>(d))), "", false, true);
      linear = linear ? builder.CreateAdd(linear, term, "", false, true) : term;
    }
  } else {
    linear = narrow(index[0]);
    for (size_t d = 1; d < index.size(); ++d) {
      llvm::Value *scaled =
          builder.CreateMul(linear, narrow(array_extent(array, d)), "", false, true);
      linear = builder.CreateAdd(scaled, narrow(index[d]), "", false, true);
    }
  }
  llvm::Value *address = builder.CreateInBoundsGEP(
      memory_type(p.type), function_->getArg(first_flat_arg_[array]), linear);
  if (constant != 0)
    address =
        builder.CreateInBoundsGEP(memory_type(p.type), address, narrow(builder.getInt64(constant)));
  if (!bounds_record_)
    return address;
  std::vector<llvm::Value *> extents;
  for (size_t d = 0; d < index.size(); ++d)
    extents.push_back(array_extent(array, static_cast<int>(d)));
  return checked_address(array, whole(index, constant), extents, address);
}

llvm::Value *CodegenLLVM::record_slot(int slot) {
  return builder.CreateConstInBoundsGEP1_64(builder.getInt64Ty(), record_, slot);
}

llvm::Value *CodegenLLVM::checked_address(int array, const std::vector<llvm::Value *> &index,
                                          const std::vector<llvm::Value *> &extents,
                                          llvm::Value *address) {
  namespace slot = bounds_record;
  // Unsigned: a negative index is a huge one.
  std::vector<llvm::Value *> in_range;
  llvm::Value *all_in_range = nullptr;
  for (size_t d = 0; d < index.size(); ++d) {
    in_range.push_back(builder.CreateICmpULT(index[d], extents[d]));
    all_in_range = all_in_range ? builder.CreateAnd(all_in_range, in_range[d]) : in_range[d];
  }
  llvm::BasicBlock *report = llvm::BasicBlock::Create(context, "out_of_bounds", function_);
  llvm::BasicBlock *write = llvm::BasicBlock::Create(context, "claimed_bounds_record", function_);
  llvm::BasicBlock *next = llvm::BasicBlock::Create(context, "bounds_checked", function_);
  llvm::MDBuilder weights(context);
  builder.CreateCondBr(all_in_range, next, report, weights.createLikelyBranchWeights());

  // The first dimension out of range, its index and extent.
  builder.SetInsertPoint(report);
  const int last = static_cast<int>(index.size()) - 1;
  llvm::Value *dim = builder.getInt64(last);
  llvm::Value *value = index[last];
  llvm::Value *extent = extents[last];
  for (int d = last - 1; d >= 0; --d) {
    llvm::Value *out = builder.CreateNot(in_range[d]);
    dim = builder.CreateSelect(out, builder.getInt64(d), dim);
    value = builder.CreateSelect(out, index[d], value);
    extent = builder.CreateSelect(out, extents[d], extent);
  }
  llvm::Value *claim = builder.CreateAtomicCmpXchg(
      record_slot(slot::claimed), builder.getInt64(0), builder.getInt64(1), llvm::MaybeAlign(8),
      llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic);
  builder.CreateCondBr(builder.CreateExtractValue(claim, 1), write, next);

  builder.SetInsertPoint(write);
  builder.CreateAlignedStore(builder.getInt64(array), record_slot(slot::array), llvm::Align(8));
  builder.CreateAlignedStore(dim, record_slot(slot::dimension), llvm::Align(8));
  builder.CreateAlignedStore(value, record_slot(slot::index), llvm::Align(8));
  builder.CreateAlignedStore(extent, record_slot(slot::extent), llvm::Align(8));
  builder.CreateBr(next);

  builder.SetInsertPoint(next);
  llvm::Value *sink = record_slot(slot::sink);
  if (address->getType() != sink->getType()) { // GPU shared memory: both as generic pointers
    address = builder.CreateAddrSpaceCast(address, builder.getPtrTy());
    sink = builder.CreateAddrSpaceCast(sink, builder.getPtrTy());
  }
  return builder.CreateSelect(all_in_range, address, sink);
}

llvm::Align CodegenLLVM::access_alignment(int array, const std::vector<ir::Expr> &indices) const {
  const ir::Param &p = kernel->params.at(array);
  const int64_t bytes = ir::byte_size(p.type);
  // The real part of a complex element of a dense array whose start is aligned to the whole
  // element: aligned to it too, so LLVM's load/store vectorizer makes one 8- or 16-byte access of
  // both parts (ld.global.v2).
  if (p.part == ir::ComplexPart::Parts && !p.strided && array_alignment() >= 2 * bytes)
    if (auto *c = indices.back().as<ir::IntConst>(); c && c->value == 0)
      return llvm::Align(2 * bytes);
  return llvm::Align(bytes);
}

} // namespace loom::codegen
