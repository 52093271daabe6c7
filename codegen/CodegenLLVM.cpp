#include "codegen/CodegenLLVM.h"

#include "codegen/LlvmSupport.h"
#include "support/Error.h"

#include <set>

namespace loom::codegen {

using ir::ScalarType;

namespace {

// The arrays a task stores to; the others are passed `readonly`.
class FindStores : public ir::Visitor {
public:
  std::set<int> written;

protected:
  void visit_node(const ir::Store *op) override {
    written.insert(op->array);
    ir::Visitor::visit_node(op);
  }
  void visit_node(const ir::Reduce *op) override {
    written.insert(op->array);
    ir::Visitor::visit_node(op);
  }
  void visit_node(const ir::Atomic *op) override {
    if (!op->shared)
      written.insert(op->array);
    ir::Visitor::visit_node(op);
  }
};

// Whether the IR has a float min or max (see CodegenLLVM::fma).
class FindFloatMinMax : public ir::Visitor {
public:
  bool found = false;

protected:
  void visit_node(const ir::Binary *op) override {
    if ((op->op == ir::BinaryOp::Min || op->op == ir::BinaryOp::Max) && ir::is_float(op->a.type()))
      found = true;
    ir::Visitor::visit_node(op);
  }
};

} // namespace

void internal_error(const std::string &what) {
  throw CompileError("internal error in codegen: " + what);
}

CodegenLLVM::CodegenLLVM(llvm::LLVMContext &context)
    : context(context), builder(context), alloca_builder_(context) {}

std::unique_ptr<llvm::Module> CodegenLLVM::compile(const ir::LoweredKernel &k,
                                                   const std::string &triple,
                                                   const llvm::DataLayout &layout) {
  kernel = &k;
  // fastmath on the CPU: float operations may be reassociated and contracted, and the sign of a
  // zero may change, which is what lets the vectorizer split a float sum into vector lanes. (The
  // GPU's fastmath is its approximate division, square root and flushed denormals, set as
  // function attributes by the PTX target.)
  llvm::FastMathFlags flags;
  if (k.fast_math && k.target == ir::Target::CPU) {
    flags.setAllowReassoc();
    flags.setAllowContract();
    flags.setNoSignedZeros();
  }
  builder.setFastMathFlags(flags);
  module = std::make_unique<llvm::Module>(k.name, context);
  module->setTargetTriple(triple);
  module->setDataLayout(layout);
  first_flat_arg_.clear();
  unsigned flat = 0;
  for (const ir::Param &p : k.params) {
    first_flat_arg_.push_back(flat);
    // An array: its pointer and extents, and a strided one its strides (support/Abi.h).
    flat += p.kind == ir::ParamKind::Array ? 1 + p.rank * (p.strided ? 2 : 1) : 1;
  }
  FindFloatMinMax min_max;
  for (const ir::Task &task : k.tasks)
    min_max.visit(task.body);
  // The GPU's float min and max are inline PTX (CodegenPTX::float_min_max): no minnum there.
  fma_through_helper_ = min_max.found && k.target == ir::Target::CPU;
  for (const ir::Task &task : k.tasks)
    compile_task(task);
  verify_module(*module);
  kernel = nullptr;
  return std::move(module);
}

llvm::Type *CodegenLLVM::llvm_type(ScalarType t) const {
  switch (t) {
  case ScalarType::Bool:
    return llvm::Type::getInt1Ty(context);
  case ScalarType::I8:
  case ScalarType::U8:
    return llvm::Type::getInt8Ty(context);
  case ScalarType::I16:
  case ScalarType::U16:
    return llvm::Type::getInt16Ty(context);
  case ScalarType::I32:
  case ScalarType::U32:
    return llvm::Type::getInt32Ty(context);
  case ScalarType::I64:
  case ScalarType::U64:
    return llvm::Type::getInt64Ty(context);
  case ScalarType::F32:
    return llvm::Type::getFloatTy(context);
  case ScalarType::F64:
    return llvm::Type::getDoubleTy(context);
  case ScalarType::F16:
    return llvm::Type::getHalfTy(context);
  case ScalarType::BF16:
    return llvm::Type::getBFloatTy(context);
  case ScalarType::C64: // ir/ExpandComplex.cpp made every complex value its parts
  case ScalarType::C128:
    internal_error("a complex value reached code generation");
  }
  internal_error("unknown scalar type");
}

llvm::Type *CodegenLLVM::memory_type(ScalarType t) const {
  return t == ScalarType::Bool   ? llvm::Type::getInt8Ty(context)
         : t == ScalarType::BF16 ? bf16_memory_type()
                                 : llvm_type(t);
}

llvm::Value *CodegenLLVM::from_memory(llvm::Value *v, ScalarType t) {
  // Any non-zero byte is true, so bools written by other code cannot produce a bad i1.
  if (t == ScalarType::Bool)
    return builder.CreateICmpNE(v, builder.getInt8(0));
  // f16 and bf16 are storage: values are f32, exactly (every f16 and bf16 is an f32).
  if (t == ir::ScalarType::BF16)
    return widen_bf16(v);
  if (ir::is_half_float(t))
    return builder.CreateFPExt(v, builder.getFloatTy());
  return v;
}

llvm::Value *CodegenLLVM::to_memory(llvm::Value *v, ScalarType t) {
  if (t == ScalarType::Bool)
    return builder.CreateZExt(v, builder.getInt8Ty());
  if (t == ScalarType::BF16)
    return round_to_bf16(v);
  if (t == ScalarType::F16) // rounded to nearest even
    return builder.CreateFPTrunc(v, memory_type(t));
  return v;
}

// ---- tasks ----------------------------------------------------------------------------------

CodegenLLVM::TaskFunction CodegenLLVM::define_task(const ir::Task &task,
                                                   const std::vector<llvm::Type *> &flat_types) {
  llvm::Type *i64 = builder.getInt64Ty();
  std::vector<llvm::Type *> body_args = flat_types;
  body_args.push_back(i64);
  body_args.push_back(i64);
  body_args.push_back(i64);
  auto *body =
      llvm::Function::Create(llvm::FunctionType::get(builder.getVoidTy(), body_args, false),
                             llvm::GlobalValue::InternalLinkage, task.name + ".body", module.get());
  body->addFnAttr(llvm::Attribute::AlwaysInline);
  body->addFnAttr(llvm::Attribute::NoUnwind);

  llvm::Type *ptr = builder.getPtrTy();
  auto *entry = llvm::Function::Create(
      llvm::FunctionType::get(builder.getVoidTy(), {ptr, i64, i64, i64}, false),
      llvm::GlobalValue::ExternalLinkage, task.name, module.get());
  entry->addFnAttr(llvm::Attribute::NoUnwind);
  entry->getArg(0)->setName("params");
  entry->getArg(1)->setName("chunk_begin");
  entry->getArg(2)->setName("chunk_end");
  entry->getArg(3)->setName("chunk_index");
  entry->addParamAttr(0, llvm::Attribute::NoCapture);
  entry->addParamAttr(0, llvm::Attribute::ReadOnly);

  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", entry));
  std::vector<llvm::Value *> values;
  for (unsigned k = 0; k < flat_types.size(); ++k) {
    llvm::Value *slot = b.CreateConstInBoundsGEP1_64(ptr, entry->getArg(0), k);
    llvm::Value *address = b.CreateAlignedLoad(ptr, slot, llvm::Align(8));
    values.push_back(b.CreateLoad(flat_types[k], address));
  }
  values.push_back(entry->getArg(1));
  values.push_back(entry->getArg(2));
  values.push_back(entry->getArg(3));
  b.CreateCall(body, values);
  b.CreateRetVoid();

  const unsigned n = flat_types.size();
  return {body, body->getArg(n), body->getArg(n + 1), body->getArg(n + 2)};
}

void CodegenLLVM::compile_task(const ir::Task &task) {
  std::vector<llvm::Type *> flat_types;
  for (const ir::Param &p : kernel->params) {
    if (p.kind == ir::ParamKind::Array) {
      flat_types.push_back(llvm::PointerType::get(context, array_address_space()));
      flat_types.insert(flat_types.end(), p.rank * (p.strided ? 2 : 1), builder.getInt64Ty());
    } else {
      flat_types.push_back(memory_type(p.type));
    }
  }
  // A task with reductions takes one more pointer: the scratch memory its workers' partial
  // results go to (support/Abi.h).
  if (!task.reductions.empty())
    flat_types.push_back(llvm::PointerType::get(context, array_address_space()));
  // A kernel with bounds checks or assertions: its tasks take the record last (support/Abi.h).
  const bool record = kernel->takes_record();
  if (record)
    flat_types.push_back(llvm::PointerType::get(context, array_address_space()));
  const unsigned scratch_arg = flat_types.size() - 1 - (record ? 1 : 0);
  FindStores stores;
  stores.visit(task.body);
  for (const ir::TaskReduction &r : task.reductions) // updated after the body
    stores.written.insert(r.array);

  TaskFunction tf = define_task(task, flat_types);
  function_ = tf.body;
  slots_.clear();
  counters32_.clear();
  bounds_record_ = nullptr;
  record_ = nullptr;
  simt_thread_ = nullptr;
  shared_bases_.assign(kernel->shared.size(), nullptr);
  local_bases_.assign(kernel->locals.size(), nullptr);
  dynamic_bytes_ = nullptr;
  if (record) {
    llvm::Argument *arg = function_->getArg(flat_types.size() - 1);
    arg->setName("bounds_record");
    arg->addAttr(llvm::Attribute::NoAlias);
    arg->addAttr(llvm::Attribute::NoCapture);
    arg->addAttr(llvm::Attribute::getWithAlignment(context, llvm::Align(8)));
    record_ = arg;
    if (kernel->bounds_check)
      bounds_record_ = arg;
  }
  // Allocas live in their own entry block so that mem2reg/SROA can promote all of them.
  llvm::BasicBlock *entry = llvm::BasicBlock::Create(context, "entry", function_);
  llvm::BasicBlock *start = llvm::BasicBlock::Create(context, "body", function_);
  alloca_builder_.SetInsertPoint(entry);
  builder.SetInsertPoint(start);

  for (size_t i = 0; i < kernel->params.size(); ++i) {
    const ir::Param &p = kernel->params[i];
    llvm::Argument *arg = function_->getArg(first_flat_arg_[i]);
    arg->setName(p.name);
    if (p.kind == ir::ParamKind::Array) {
      // The runtime guarantees that an array the kernel writes overlaps no other argument. But
      // where threads share an iteration's work and synchronize (SIMT tasks, block_per_iteration),
      // other threads write such an array across a barrier: noalias would let LLVM keep values
      // loaded before the barrier (it then cannot touch the array), so only arrays nobody writes
      // keep it.
      const bool written = stores.written.count(static_cast<int>(i)) != 0;
      const bool shared_work = task.kind == ir::TaskKind::Simt || task.threads > 0;
      if (!(written && shared_work))
        arg->addAttr(llvm::Attribute::NoAlias);
      arg->addAttr(llvm::Attribute::NoCapture);
      // A strided view may start anywhere in its buffer: its elements' own alignment only.
      arg->addAttr(llvm::Attribute::getWithAlignment(
          context, llvm::Align(p.strided ? ir::byte_size(p.type)
                                         : std::max(ir::byte_size(p.type), array_alignment()))));
      if (!stores.written.count(static_cast<int>(i)))
        arg->addAttr(llvm::Attribute::ReadOnly);
      for (int d = 0; d < p.rank; ++d)
        function_->getArg(first_flat_arg_[i] + 1 + d)
            ->setName(p.name + ".extent" + std::to_string(d));
      for (int d = 0; p.strided && d < p.rank; ++d)
        function_->getArg(first_flat_arg_[i] + 1 + p.rank + d)
            ->setName(p.name + ".stride" + std::to_string(d));
    } else if (p.var) {
      builder.CreateStore(from_memory(arg, p.type), create_alloca(p.var));
    }
  }
  if (task.chunk_begin || task.chunk_end) {
    if (!tf.chunk_begin || !task.chunk_begin || !task.chunk_end)
      throw CompileError("task '" + task.name + "' has chunk bounds, which only CPU tasks take");
    builder.CreateStore(tf.chunk_begin, create_alloca(task.chunk_begin));
    builder.CreateStore(tf.chunk_end, create_alloca(task.chunk_end));
  }

  if (task.waits_for_grid)
    wait_for_previous_grid();
  if (task.kind == ir::TaskKind::Simt)
    begin_simt_task();
  codegen(task.body);
  if (!task.reductions.empty()) {
    llvm::Argument *scratch = function_->getArg(scratch_arg);
    scratch->setName("reduction_scratch");
    scratch->addAttr(llvm::Attribute::NoAlias);
    scratch->addAttr(llvm::Attribute::NoCapture);
    std::vector<llvm::Value *> partials;
    for (const ir::TaskReduction &r : task.reductions)
      partials.push_back(builder.CreateLoad(llvm_type(r.accumulator->type), lookup(r.accumulator)));
    combine_partials(task, partials, scratch, tf);
  }
  builder.CreateRetVoid();
  alloca_builder_.CreateBr(start);
  function_ = nullptr;
}

llvm::AllocaInst *CodegenLLVM::create_alloca(const ir::Var &var, llvm::Type *type) {
  auto *slot = alloca_builder_.CreateAlloca(type ? type : llvm_type(var->type), nullptr, var->name);
  slots_[var.get()] = slot;
  return slot;
}

llvm::AllocaInst *CodegenLLVM::lookup(const ir::Var &var) const {
  auto it = slots_.find(var.get());
  if (it == slots_.end())
    internal_error("variable '" + var->name + "' used before it is declared");
  return it->second;
}

void CodegenLLVM::combine_partials(const ir::Task &task, const std::vector<llvm::Value *> &partials,
                                   llvm::Value *scratch, const TaskFunction &tf) {
  // Chunk c's partial of reduction r goes to 8-byte slot 1 + c * R + r (slot 0 is the GPU's
  // block counter); the runtime combines the chunks in order.
  llvm::Value *base = builder.CreateMul(tf.chunk_index, builder.getInt64(partials.size()));
  for (size_t r = 0; r < partials.size(); ++r) {
    llvm::Value *slot = builder.CreateAdd(base, builder.getInt64(1 + r));
    llvm::Value *address = builder.CreateInBoundsGEP(builder.getInt64Ty(), scratch, slot);
    builder.CreateAlignedStore(partials[r], address, llvm::Align(8));
  }
  (void)task;
}

// ---- statements -----------------------------------------------------------------------------

void CodegenLLVM::codegen(const ir::Stmt &s) {
  visit(s);
}

void CodegenLLVM::visit_node(const ir::Block *op) {
  for (const ir::Stmt &s : op->stmts)
    codegen(s);
}

void CodegenLLVM::visit_node(const ir::Declare *op) {
  llvm::Value *init = codegen(op->init);
  builder.CreateStore(init, create_alloca(op->var));
}

void CodegenLLVM::visit_node(const ir::Assign *op) {
  builder.CreateStore(codegen(op->value), lookup(op->var));
}

void CodegenLLVM::visit_node(const ir::Store *op) {
  ScalarType t = kernel->params.at(op->array).type;
  if (op->value.type() != ir::value_type(t))
    internal_error("store of a " + std::string(ir::type_name(op->value.type())) + " into a " +
                   ir::type_name(t) + " array");
  llvm::Value *value = to_memory(codegen(op->value), t);
  llvm::Value *address = strided_address(op);
  builder.CreateAlignedStore(value, address ? address : element_address(op->array, op->indices),
                             access_alignment(op->array, op->indices));
}

// A Reduce that lowering left in place can meet other iterations' updates of its element: an
// atomic read-modify-write (LLVM expands what the target lacks into a compare-exchange loop).
void CodegenLLVM::visit_node(const ir::Reduce *op) {
  const ScalarType t = kernel->params.at(op->array).type;
  if (op->value.type() != t || t == ScalarType::Bool || ir::is_half_float(t))
    internal_error("reduction of a " + std::string(ir::type_name(op->value.type())) + " into a " +
                   ir::type_name(t) + " array");
  llvm::Value *value = codegen(op->value);
  llvm::Value *address = element_address(op->array, op->indices);
  const llvm::Align align(ir::byte_size(t));
  const bool fp = ir::is_float(t);
  using Rmw = llvm::AtomicRMWInst;
  Rmw::BinOp rmw = Rmw::BAD_BINOP;
  switch (op->op) {
  case ir::ReduceOp::Add:
    rmw = fp ? Rmw::FAdd : Rmw::Add;
    break;
  case ir::ReduceOp::Min:
    rmw = fp ? Rmw::FMin : ir::is_unsigned(t) ? Rmw::UMin : Rmw::Min;
    break;
  case ir::ReduceOp::Max:
    rmw = fp ? Rmw::FMax : ir::is_unsigned(t) ? Rmw::UMax : Rmw::Max;
    break;
  case ir::ReduceOp::Mul:
    break;
  }
  if (rmw != Rmw::BAD_BINOP) {
    builder.CreateAtomicRMW(rmw, address, value, align, llvm::AtomicOrdering::Monotonic);
    return;
  }
  // Multiplication has no atomic instruction: compare-exchange the bits until no other update
  // came in between.
  llvm::Type *bits = builder.getIntNTy(ir::byte_size(t) * 8);
  llvm::BasicBlock *before = builder.GetInsertBlock();
  llvm::BasicBlock *retry = llvm::BasicBlock::Create(context, "mul.retry", function_);
  llvm::BasicBlock *done = llvm::BasicBlock::Create(context, "mul.done", function_);
  llvm::Value *first = builder.CreateAlignedLoad(bits, address, align);
  builder.CreateBr(retry);
  builder.SetInsertPoint(retry);
  llvm::PHINode *seen = builder.CreatePHI(bits, 2);
  seen->addIncoming(first, before);
  llvm::Value *old = fp ? builder.CreateBitCast(seen, llvm_type(t)) : seen;
  llvm::Value *product = arith(ir::BinaryOp::Mul, t, old, value);
  llvm::Value *wanted = fp ? builder.CreateBitCast(product, bits) : product;
  llvm::Value *pair =
      builder.CreateAtomicCmpXchg(address, seen, wanted, align, llvm::AtomicOrdering::Monotonic,
                                  llvm::AtomicOrdering::Monotonic);
  llvm::Value *current = builder.CreateExtractValue(pair, 0);
  seen->addIncoming(current, builder.GetInsertBlock());
  builder.CreateCondBr(builder.CreateExtractValue(pair, 1), done, retry);
  builder.SetInsertPoint(done);
}

void CodegenLLVM::visit_node(const ir::IfThenElse *op) {
  llvm::Value *cond = codegen(op->cond);
  auto *then_bb = llvm::BasicBlock::Create(context, "then", function_);
  auto *after_bb = llvm::BasicBlock::Create(context, "endif", function_);
  auto *else_bb =
      op->else_case.defined() ? llvm::BasicBlock::Create(context, "else", function_) : after_bb;
  builder.CreateCondBr(cond, then_bb, else_bb);
  builder.SetInsertPoint(then_bb);
  codegen(op->then_case);
  builder.CreateBr(after_bb);
  if (op->else_case.defined()) {
    builder.SetInsertPoint(else_bb);
    codegen(op->else_case);
    builder.CreateBr(after_bb);
  }
  after_bb->moveAfter(builder.GetInsertBlock());
  builder.SetInsertPoint(after_bb);
}

void CodegenLLVM::visit_node(const ir::For *op) {
  // The bounds are evaluated once, before the first iteration (like Python's range).
  llvm::Value *begin = codegen(op->begin);
  llvm::Value *end = codegen(op->end);
  llvm::Value *step = codegen(op->step);
  // A counter whose values provably fit 32 bits counts in 32 bits (IndexRange.h); its readers
  // see it sign-extended (VarRef).
  std::optional<IndexRange> range32;
  if (index32)
    range32 = counter_range_32(*op, counters32_);
  llvm::Type *type = builder.getInt64Ty();
  if (range32) {
    type = builder.getInt32Ty();
    begin = builder.CreateTrunc(begin, type);
    end = builder.CreateTrunc(end, type);
    step = builder.CreateTrunc(step, type);
  }
  llvm::AllocaInst *slot = create_alloca(op->var, type);
  builder.CreateStore(begin, slot);
  begin_strided_pointers(*op);

  auto *head = llvm::BasicBlock::Create(context, op->var->name + ".head", function_);
  auto *body = llvm::BasicBlock::Create(context, op->var->name + ".body", function_);
  auto *exit = llvm::BasicBlock::Create(context, op->var->name + ".exit", function_);
  builder.CreateBr(head);
  builder.SetInsertPoint(head);
  llvm::Value *index = builder.CreateLoad(type, slot);
  builder.CreateCondBr(builder.CreateICmpSLT(index, end), body, exit);
  builder.SetInsertPoint(body);
  if (range32)
    counters32_[op->var.get()] = *range32;
  codegen(op->body);
  counters32_.erase(op->var.get());
  advance_strided_pointers();
  llvm::Value *current = builder.CreateLoad(type, slot);
  // A 32-bit counter's last step provably does not overflow.
  builder.CreateStore(builder.CreateAdd(current, step, "", false, range32.has_value()), slot);
  llvm::BranchInst *back = builder.CreateBr(head);
  if (llvm::MDNode *hint = loop_hint(*op))
    back->setMetadata(llvm::LLVMContext::MD_loop, hint);
  end_strided_pointers();
  exit->moveAfter(builder.GetInsertBlock());
  builder.SetInsertPoint(exit);
}

void CodegenLLVM::visit_node(const ir::While *op) {
  auto *head = llvm::BasicBlock::Create(context, "while.head", function_);
  auto *body = llvm::BasicBlock::Create(context, "while.body", function_);
  auto *exit = llvm::BasicBlock::Create(context, "while.exit", function_);
  builder.CreateBr(head);
  builder.SetInsertPoint(head);
  builder.CreateCondBr(codegen(op->cond), body, exit);
  builder.SetInsertPoint(body);
  codegen(op->body);
  builder.CreateBr(head);
  exit->moveAfter(builder.GetInsertBlock());
  builder.SetInsertPoint(exit);
}

void CodegenLLVM::visit_node(const ir::ParallelFor *) {
  throw CompileError("internal error: a parallel loop reached codegen; lowering must turn it "
                     "into the tasks' loops first");
}

// ---- expressions ----------------------------------------------------------------------------

llvm::Value *CodegenLLVM::codegen(const ir::Expr &e) {
  if (!e.defined())
    internal_error("undefined expression");
  value_ = nullptr;
  visit(e);
  llvm::Value *v = value_;
  value_ = nullptr;
  return v;
}

void CodegenLLVM::visit_node(const ir::IntConst *op) {
  // The value as held (wrap_int): sign-extended for signed types, zero-extended for unsigned.
  value_ = llvm::ConstantInt::get(llvm_type(op->type), static_cast<uint64_t>(op->value),
                                  !ir::is_unsigned(op->type));
}

void CodegenLLVM::visit_node(const ir::FloatConst *op) {
  value_ = llvm::ConstantFP::get(llvm_type(op->type), op->value);
}

void CodegenLLVM::visit_node(const ir::BoolConst *op) {
  value_ = builder.getInt1(op->value);
}

void CodegenLLVM::visit_node(const ir::VarRef *op) {
  if (counters32_.count(op->var.get())) {
    llvm::Value *narrow = builder.CreateLoad(builder.getInt32Ty(), lookup(op->var), op->var->name);
    value_ = builder.CreateSExt(narrow, builder.getInt64Ty());
    return;
  }
  value_ = builder.CreateLoad(llvm_type(op->var->type), lookup(op->var), op->var->name);
}

void CodegenLLVM::visit_node(const ir::ArrayExtent *op) {
  value_ = array_extent(op->array, op->dim);
}

void CodegenLLVM::visit_node(const ir::Load *op) {
  ScalarType t = kernel->params.at(op->array).type;
  if (ir::value_type(t) != op->type)
    internal_error("load of a " + std::string(ir::type_name(op->type)) + " from a " +
                   ir::type_name(t) + " array");
  llvm::Value *address = strided_address(op);
  if (!address)
    address = element_address(op->array, op->indices);
  value_ = from_memory(
      builder.CreateAlignedLoad(memory_type(t), address, access_alignment(op->array, op->indices)),
      t);
}

void CodegenLLVM::visit_node(const ir::Unary *op) {
  llvm::Value *a = codegen(op->a);
  switch (op->op) {
  case ir::UnaryOp::Neg:
    value_ = ir::is_float(op->type) ? builder.CreateFNeg(a) : builder.CreateNeg(a);
    return;
  case ir::UnaryOp::Not:
  case ir::UnaryOp::BitNot:
    value_ = builder.CreateNot(a); // xor with all ones: 1 for i1, -1 for integers
    return;
  case ir::UnaryOp::RoundF16:
  case ir::UnaryOp::RoundBF16: {
    // The nearest 16-bit float, as an f32: an f64 rounds to odd first (support/Float16.h), so
    // that it rounds once.
    llvm::Value *f = a->getType()->isDoubleTy() ? round_to_odd_f32(a) : a;
    value_ = round_to_16_bits(f, op->op == ir::UnaryOp::RoundBF16);
    return;
  }
  case ir::UnaryOp::RoundTF32:
    value_ = round_to_tf32(a->getType()->isDoubleTy() ? round_to_odd_f32(a) : a);
    return;
  }
}

void CodegenLLVM::visit_node(const ir::Select *op) {
  llvm::Value *cond = codegen(op->cond);
  llvm::Value *a = codegen(op->a);
  llvm::Value *b = codegen(op->b);
  value_ = builder.CreateSelect(cond, a, b);
}

void CodegenLLVM::visit_node(const ir::SpecialReg *op) {
  value_ = special_reg(op);
}

llvm::Value *CodegenLLVM::special_reg(const ir::SpecialReg *op) {
  if (!simt_thread_)
    throw CompileError("kernel '" + kernel->name +
                       "' reads a GPU thread/block index outside a SIMT kernel");
  // SimtThread::regs[reg][dim] (support/Abi.h).
  llvm::Value *slot = builder.CreateConstInBoundsGEP1_64(builder.getInt32Ty(), simt_thread_,
                                                         static_cast<int>(op->reg) * 3 + op->dim);
  return builder.CreateAlignedLoad(builder.getInt32Ty(), slot, llvm::Align(4));
}

} // namespace loom::codegen
