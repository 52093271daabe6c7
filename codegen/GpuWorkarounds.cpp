#include "codegen/GpuWorkarounds.h"

#include <algorithm>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

#include <optional>
#include <string>
#include <vector>

namespace loom::codegen {
namespace {

// The PTX register constraint for an integer type, or nullptr for one PTX registers do not
// hold directly (those are left alone).
const char *register_constraint(llvm::Type *type) {
  if (!type->isIntegerTy())
    return nullptr;
  switch (type->getIntegerBitWidth()) {
  case 16:
    return "h";
  case 32:
    return "r";
  case 64:
    return "l";
  default:
    return nullptr;
  }
}

// Inline PTX equivalent to an integer min, max or abs `call`, else nullptr.
// `$1 op $2 ? $1 : $2` for min/max, `$1 < 0 ? -$1 : $1` for abs.
llvm::InlineAsm *integer_min_max_abs_ptx(const llvm::IntrinsicInst &call) {
  const char *reg = register_constraint(call.getType());
  if (!reg)
    return nullptr;
  std::string w = std::to_string(call.getType()->getIntegerBitWidth());
  std::string r = reg;
  std::string text;
  unsigned operands = 2;
  auto min_max = [&](const char *comparison) {
    return "{\n\t.reg .pred %lp;\n\tsetp." + std::string(comparison) + w +
           " %lp, $1, $2;\n\tselp.b" + w + " $0, $1, $2, %lp;\n\t}";
  };
  switch (call.getIntrinsicID()) {
  case llvm::Intrinsic::smin:
    text = min_max("lt.s");
    break;
  case llvm::Intrinsic::smax:
    text = min_max("gt.s");
    break;
  case llvm::Intrinsic::umin:
    text = min_max("lt.u");
    break;
  case llvm::Intrinsic::umax:
    text = min_max("gt.u");
    break;
  case llvm::Intrinsic::abs:
    operands = 1;
    // A 16-bit negation is made in 32 bits, modulo 2^16 (negate_16_bits_in_32).
    text = w == "16" ? "{\n\t.reg .pred %lp;\n\t.reg .b32 %lw;\n\t.reg .b16 %ln;\n\t"
                       "setp.lt.s16 %lp, $1, 0;\n\tcvt.u32.u16 %lw, $1;\n\txor.b32 %lw, %lw, "
                       "65535;\n\tadd.u32 %lw, %lw, 1;\n\tand.b32 %lw, %lw, 65535;\n\t"
                       "cvt.u16.u32 %ln, %lw;\n\tselp.b16 $0, %ln, $1, %lp;\n\t}"
                     : "{\n\t.reg .pred %lp;\n\t.reg .b" + w + " %ln;\n\tsetp.lt.s" + w +
                           " %lp, $1, 0;\n\tneg.s" + w + " %ln, $1;\n\tselp.b" + w +
                           " $0, %ln, $1, %lp;\n\t}";
    break;
  default:
    return nullptr;
  }
  std::vector<llvm::Type *> params(operands, call.getType());
  std::string constraints = "=" + r + (operands == 2 ? "," + r + "," + r : "," + r);
  return llvm::InlineAsm::get(llvm::FunctionType::get(call.getType(), params, false), text,
                              constraints, /*hasSideEffects=*/false);
}

// The bits of a float `call` to fabs with the sign bit cleared, as inline PTX, else nullptr.
llvm::InlineAsm *float_abs_ptx(const llvm::IntrinsicInst &call) {
  llvm::Type *type = call.getType();
  if (call.getIntrinsicID() != llvm::Intrinsic::fabs || !(type->isFloatTy() || type->isDoubleTy()))
    return nullptr;
  bool f32 = type->isFloatTy();
  std::string w = f32 ? "32" : "64";
  std::string text = "{\n\t.reg .b" + w + " %la;\n\tmov.b" + w + " %la, $1;\n\tand.b" + w +
                     " %la, %la, " + (f32 ? "2147483647" : "9223372036854775807") + ";\n\tmov.b" +
                     w + " $0, %la;\n\t}";
  return llvm::InlineAsm::get(llvm::FunctionType::get(type, {type}, false), text,
                              f32 ? "=f,f" : "=d,d", /*hasSideEffects=*/false);
}

// Replaces every intrinsic call `as_ptx` gives inline PTX for with a call of that PTX.
void replace_with_inline_ptx(llvm::Module &module,
                             llvm::InlineAsm *(*as_ptx)(const llvm::IntrinsicInst &)) {
  std::vector<llvm::IntrinsicInst *> calls;
  for (llvm::Function &fn : module)
    for (llvm::BasicBlock &block : fn)
      for (llvm::Instruction &inst : block)
        if (auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst))
          calls.push_back(call);
  for (llvm::IntrinsicInst *call : calls) {
    llvm::InlineAsm *asm_fn = as_ptx(*call);
    if (!asm_fn)
      continue;
    std::vector<llvm::Value *> args;
    for (unsigned i = 0; i < asm_fn->getFunctionType()->getNumParams(); ++i)
      args.push_back(call->getArgOperand(i));
    auto *replacement = llvm::CallInst::Create(asm_fn, args, call->getName(), call);
    replacement->setDoesNotAccessMemory();
    replacement->setDoesNotThrow();
    call->replaceAllUsesWith(replacement);
    call->eraseFromParent();
  }
}

// Rewrites every i8 integer min, max and abs (no PTX register holds an i8) as the same
// operation on i16 operands extended as the operation reads them, truncated back.
void widen_i8_min_max_abs(llvm::Module &module) {
  std::vector<llvm::IntrinsicInst *> calls;
  for (llvm::Function &fn : module)
    for (llvm::BasicBlock &block : fn)
      for (llvm::Instruction &inst : block)
        if (auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst))
          if (call->getType()->isIntegerTy(8))
            switch (call->getIntrinsicID()) {
            case llvm::Intrinsic::smin:
            case llvm::Intrinsic::smax:
            case llvm::Intrinsic::umin:
            case llvm::Intrinsic::umax:
            case llvm::Intrinsic::abs:
              calls.push_back(call);
              break;
            default:
              break;
            }
  for (llvm::IntrinsicInst *call : calls) {
    llvm::IRBuilder<> b(call);
    const llvm::Intrinsic::ID id = call->getIntrinsicID();
    const bool is_signed = id != llvm::Intrinsic::umin && id != llvm::Intrinsic::umax;
    auto widen = [&](llvm::Value *v) {
      return is_signed ? b.CreateSExt(v, b.getInt16Ty()) : b.CreateZExt(v, b.getInt16Ty());
    };
    llvm::Value *wide =
        id == llvm::Intrinsic::abs
            ? b.CreateBinaryIntrinsic(id, widen(call->getArgOperand(0)), call->getArgOperand(1))
            : b.CreateBinaryIntrinsic(id, widen(call->getArgOperand(0)),
                                      widen(call->getArgOperand(1)));
    llvm::Value *narrow = b.CreateTrunc(wide, call->getType(), call->getName());
    call->replaceAllUsesWith(narrow);
    call->eraseFromParent();
  }
}

// An i8 or i16 operation (no PTX register holds an i8: the backend makes it 16 bits).
bool is_narrow_integer(const llvm::BinaryOperator *op) {
  return op->getType()->isIntegerTy(16) || op->getType()->isIntegerTy(8);
}

// Replaces every binary operation that `matches` accepts by what `make` builds before it (with
// the operation's name): the operations are gathered first, so `make` may add instructions.
template <class Matches, class Make>
void replace_binary_operations(llvm::Module &module, Matches matches, Make make) {
  std::vector<llvm::BinaryOperator *> found;
  for (llvm::Function &fn : module)
    for (llvm::BasicBlock &block : fn)
      for (llvm::Instruction &inst : block)
        if (auto *op = llvm::dyn_cast<llvm::BinaryOperator>(&inst); op && matches(op))
          found.push_back(op);
  for (llvm::BinaryOperator *op : found) {
    llvm::IRBuilder<> b(op);
    llvm::Value *replacement = make(b, op);
    replacement->takeName(op);
    op->replaceAllUsesWith(replacement);
    op->eraseFromParent();
  }
}

// A call of inline PTX that touches no memory (so LLVM may move, merge or drop it).
llvm::CallInst *call_pure(llvm::IRBuilder<> &b, llvm::InlineAsm *ptx,
                          llvm::ArrayRef<llvm::Value *> args) {
  llvm::CallInst *call = b.CreateCall(ptx, args);
  call->setDoesNotAccessMemory();
  call->setDoesNotThrow();
  return call;
}

} // namespace

void negate_16_bits_in_32(llvm::Module &module) {
  llvm::Type *i16 = llvm::Type::getInt16Ty(module.getContext());
  llvm::InlineAsm *negate =
      llvm::InlineAsm::get(llvm::FunctionType::get(i16, {i16}, false),
                           "{\n\t.reg .b32 %lw;\n\tcvt.u32.u16 %lw, $1;\n\txor.b32 %lw, %lw, "
                           "65535;\n\tadd.u32 %lw, %lw, 1;\n\tand.b32 %lw, %lw, "
                           "65535;\n\tcvt.u16.u32 $0, %lw;\n\t}",
                           "=h,h", /*hasSideEffects=*/false);
  replace_binary_operations(
      module,
      [](llvm::BinaryOperator *op) {
        auto *zero = llvm::dyn_cast<llvm::ConstantInt>(op->getOperand(0));
        return op->getOpcode() == llvm::Instruction::Sub && op->getType()->isIntegerTy(16) &&
               zero && zero->isZero();
      },
      [&](llvm::IRBuilder<> &b, llvm::BinaryOperator *op) {
        return call_pure(b, negate, {op->getOperand(1)});
      });
}

void shift_narrow_integers_in_32(llvm::Module &module) {
  llvm::Type *i16 = llvm::Type::getInt16Ty(module.getContext());
  auto shift_ptx = [i16](const char *widen, const char *shift) {
    const std::string text = std::string("{\n\t.reg .b32 %lw, %ls;\n\t") + widen +
                             " %lw, $1;\n\tcvt.u32.u16 %ls, $2;\n\t" + shift +
                             " %lw, %lw, %ls;\n\tcvt.u16.u32 $0, %lw;\n\t}";
    return llvm::InlineAsm::get(llvm::FunctionType::get(i16, {i16, i16}, false), text, "=h,h,h",
                                /*hasSideEffects=*/false);
  };
  llvm::InlineAsm *shl = shift_ptx("cvt.u32.u16", "shl.b32");
  llvm::InlineAsm *ashr = shift_ptx("cvt.s32.s16", "shr.s32");
  llvm::InlineAsm *lshr = shift_ptx("cvt.u32.u16", "shr.u32");
  replace_binary_operations(
      module, [](llvm::BinaryOperator *op) { return op->isShift() && is_narrow_integer(op); },
      [&](llvm::IRBuilder<> &b, llvm::BinaryOperator *op) {
        const bool arithmetic = op->getOpcode() == llvm::Instruction::AShr;
        // An i8 shift reads its operand extended as the shift does; the amount is below 8.
        llvm::Value *x = op->getOperand(0), *amount = b.CreateZExt(op->getOperand(1), i16);
        x = arithmetic ? b.CreateSExt(x, i16) : b.CreateZExt(x, i16);
        llvm::InlineAsm *ptx = op->getOpcode() == llvm::Instruction::Shl ? shl
                               : arithmetic                              ? ashr
                                                                         : lshr;
        return b.CreateTrunc(call_pure(b, ptx, {x, amount}), op->getType());
      });
}

void multiply_narrow_integers_in_32(llvm::Module &module) {
  llvm::Type *i16 = llvm::Type::getInt16Ty(module.getContext());
  llvm::InlineAsm *multiply = llvm::InlineAsm::get(
      llvm::FunctionType::get(i16, {i16, i16}, false),
      "{\n\t.reg .b32 %lx, %ly;\n\tcvt.u32.u16 %lx, $1;\n\tcvt.u32.u16 %ly, $2;\n\tmul.lo.u32 "
      "%lx, %lx, %ly;\n\tand.b32 %lx, %lx, 65535;\n\tcvt.u16.u32 $0, %lx;\n\t}",
      "=h,h,h", /*hasSideEffects=*/false);
  replace_binary_operations(
      module,
      [](llvm::BinaryOperator *op) {
        return op->getOpcode() == llvm::Instruction::Mul && is_narrow_integer(op);
      },
      [&](llvm::IRBuilder<> &b, llvm::BinaryOperator *op) {
        // The low bits of a product do not depend on how its operands were extended.
        llvm::Value *product =
            call_pure(b, multiply,
                      {b.CreateZExt(op->getOperand(0), i16), b.CreateZExt(op->getOperand(1), i16)});
        return b.CreateTrunc(product, op->getType());
      });
}

void scalarize_packed_narrow_integers(llvm::Module &module) {
  replace_binary_operations(
      module,
      [](llvm::BinaryOperator *op) {
        auto *vector = llvm::dyn_cast<llvm::FixedVectorType>(op->getType());
        return vector && (vector->getElementType()->isIntegerTy(16) ||
                          vector->getElementType()->isIntegerTy(8));
      },
      [](llvm::IRBuilder<> &b, llvm::BinaryOperator *op) {
        auto *vector = llvm::cast<llvm::FixedVectorType>(op->getType());
        llvm::Value *result = llvm::PoisonValue::get(vector);
        for (unsigned lane = 0; lane < vector->getNumElements(); ++lane) {
          llvm::Value *x = b.CreateExtractElement(op->getOperand(0), lane);
          llvm::Value *y = b.CreateExtractElement(op->getOperand(1), lane);
          llvm::Value *scalar = b.CreateBinOp(op->getOpcode(), x, y);
          if (auto *scalar_op = llvm::dyn_cast<llvm::BinaryOperator>(scalar))
            scalar_op->copyIRFlags(op);
          result = b.CreateInsertElement(result, scalar, lane);
        }
        return result;
      });
  // The loop vectorizer's reductions of such vectors (llvm.vector.reduce.*), which the backend
  // would otherwise select as packed operations: the lanes combined one after another.
  std::vector<llvm::IntrinsicInst *> reductions;
  for (llvm::Function &fn : module)
    for (llvm::BasicBlock &block : fn)
      for (llvm::Instruction &inst : block)
        if (auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst))
          if (call->arg_size() == 1 &&
              (call->getType()->isIntegerTy(16) || call->getType()->isIntegerTy(8)))
            if (llvm::isa<llvm::FixedVectorType>(call->getArgOperand(0)->getType()))
              reductions.push_back(call);
  for (llvm::IntrinsicInst *call : reductions) {
    std::optional<llvm::Instruction::BinaryOps> op;
    llvm::Intrinsic::ID min_max = llvm::Intrinsic::not_intrinsic;
    switch (call->getIntrinsicID()) {
    case llvm::Intrinsic::vector_reduce_add:
      op = llvm::Instruction::Add;
      break;
    case llvm::Intrinsic::vector_reduce_mul:
      op = llvm::Instruction::Mul;
      break;
    case llvm::Intrinsic::vector_reduce_and:
      op = llvm::Instruction::And;
      break;
    case llvm::Intrinsic::vector_reduce_or:
      op = llvm::Instruction::Or;
      break;
    case llvm::Intrinsic::vector_reduce_xor:
      op = llvm::Instruction::Xor;
      break;
    case llvm::Intrinsic::vector_reduce_smin:
      min_max = llvm::Intrinsic::smin;
      break;
    case llvm::Intrinsic::vector_reduce_smax:
      min_max = llvm::Intrinsic::smax;
      break;
    case llvm::Intrinsic::vector_reduce_umin:
      min_max = llvm::Intrinsic::umin;
      break;
    case llvm::Intrinsic::vector_reduce_umax:
      min_max = llvm::Intrinsic::umax;
      break;
    default:
      continue;
    }
    llvm::IRBuilder<> b(call);
    llvm::Value *vector = call->getArgOperand(0);
    const unsigned lanes = llvm::cast<llvm::FixedVectorType>(vector->getType())->getNumElements();
    llvm::Value *total = b.CreateExtractElement(vector, uint64_t(0));
    for (unsigned lane = 1; lane < lanes; ++lane) {
      llvm::Value *x = b.CreateExtractElement(vector, lane);
      total = op ? b.CreateBinOp(*op, total, x) : b.CreateBinaryIntrinsic(min_max, total, x);
    }
    total->takeName(call);
    call->replaceAllUsesWith(total);
    call->eraseFromParent();
  }
}

void hide_integer_min_max_abs_from_ptxas(llvm::Module &module) {
  widen_i8_min_max_abs(module);
  replace_with_inline_ptx(module, integer_min_max_abs_ptx);
}

void select_instead_of_sitofp_i1(llvm::Module &module) {
  std::vector<llvm::SIToFPInst *> conversions;
  for (llvm::Function &fn : module)
    for (llvm::BasicBlock &block : fn)
      for (llvm::Instruction &inst : block)
        if (auto *conversion = llvm::dyn_cast<llvm::SIToFPInst>(&inst))
          if (conversion->getOperand(0)->getType()->isIntOrIntVectorTy(1))
            conversions.push_back(conversion);
  for (llvm::SIToFPInst *conversion : conversions) {
    llvm::Type *type = conversion->getType();
    auto *replacement = llvm::SelectInst::Create(
        conversion->getOperand(0), llvm::ConstantFP::get(type, -1.0),
        llvm::ConstantFP::get(type, 0.0), conversion->getName(), conversion);
    conversion->replaceAllUsesWith(replacement);
    conversion->eraseFromParent();
  }
}

void float_abs_as_bit_and(llvm::Module &module) {
  replace_with_inline_ptx(module, float_abs_ptx);
}

void restore_nan_after_max_zero_min_one(llvm::Module &module) {
  auto is_constant = [](llvm::Value *v, double value) {
    auto *c = llvm::dyn_cast<llvm::ConstantFP>(v);
    return c && c->getValueAPF().convertToDouble() == value;
  };
  // loom's float min and max on the GPU (CodegenPTX::float_min_max): inline min.f32 / max.f64 ...
  auto inline_ptx = [](llvm::Value *v, const char *op) -> llvm::CallInst * {
    auto *call = llvm::dyn_cast<llvm::CallInst>(v);
    auto *ptx = call ? llvm::dyn_cast<llvm::InlineAsm>(call->getCalledOperand()) : nullptr;
    if (!ptx || call->arg_size() != 2 ||
        !(call->getType()->isFloatTy() || call->getType()->isDoubleTy()))
      return nullptr;
    const std::string &text = ptx->getAsmString();
    return text.rfind(std::string(op) + ".f32 $0, $1, $2;", 0) == 0 ||
                   text.rfind(std::string(op) + ".f64 $0, $1, $2;", 0) == 0
               ? call
               : nullptr;
  };
  // Each max(0, min(x, 1)) (either operand order) and its x.
  std::vector<std::pair<llvm::CallInst *, llvm::Value *>> clamps;
  for (llvm::Function &fn : module)
    for (llvm::BasicBlock &block : fn)
      for (llvm::Instruction &inst : block) {
        llvm::CallInst *max = inline_ptx(&inst, "max");
        if (!max)
          continue;
        for (unsigned k = 0; k < 2; ++k) {
          llvm::CallInst *min = inline_ptx(max->getArgOperand(k), "min");
          if (!min || !is_constant(max->getArgOperand(1 - k), 0.0))
            continue;
          for (unsigned m = 0; m < 2; ++m)
            if (is_constant(min->getArgOperand(1 - m), 1.0) &&
                !llvm::isa<llvm::Constant>(min->getArgOperand(m))) {
              clamps.push_back({max, min->getArgOperand(m)});
              break;
            }
          break;
        }
      }
  for (auto [max, x] : clamps) {
    llvm::Type *type = max->getType();
    const bool f32 = type->isFloatTy();
    const std::string t = f32 ? "f32" : "f64";
    // isnan(x) ? 1 : max(0, min(x, 1)): what ptxas takes for a saturation of x, with a NaN x's
    // result (1) restored; ptxas, taking the two to differ for a NaN, keeps the select.
    const std::string text = "{\n\t.reg .pred %ln;\n\tsetp.nan." + t + " %ln, $1, $1;\n\tselp." +
                             t + " $0, " + (f32 ? "0f3F800000" : "0d3FF0000000000000") +
                             ", $2, %ln;\n\t}";
    llvm::InlineAsm *ptx =
        llvm::InlineAsm::get(llvm::FunctionType::get(type, {type, type}, false), text,
                             f32 ? "=f,f,f" : "=d,d,d", /*hasSideEffects=*/false);
    auto *fixed = llvm::CallInst::Create(ptx, {x, max}, max->getName() + ".nan");
    fixed->insertAfter(max);
    fixed->setDoesNotAccessMemory();
    fixed->setDoesNotThrow();
    max->replaceUsesWithIf(fixed, [&](llvm::Use &use) { return use.getUser() != fixed; });
  }
}

void work_around_gpu_miscompiles(llvm::Module &module) {
  scalarize_packed_narrow_integers(module);
  negate_16_bits_in_32(module);
  shift_narrow_integers_in_32(module);
  multiply_narrow_integers_in_32(module);
  hide_integer_min_max_abs_from_ptxas(module);
  select_instead_of_sitofp_i1(module);
  float_abs_as_bit_and(module);
  restore_nan_after_max_zero_min_one(module);
}

} // namespace loom::codegen
