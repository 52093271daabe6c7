// CodegenLLVM's arithmetic: binary operators, casts and math functions, with loom's defined
// semantics. Where C or LLVM leave a case undefined (division by zero, INT_MIN / -1, shifts by
// the bit width or more, out-of-range float -> int) loom gives it a value, so no input can make
// the generated code undefined.
#include "codegen/CodegenLLVM.h"

#include "ir/MathFunctions.h"
#include "support/Error.h"

#include <llvm/IR/Intrinsics.h>

#include <cstdint>
#include <limits>

namespace loom::codegen {

using ir::BinaryOp;
using ir::MathFn;
using ir::ScalarType;

void CodegenLLVM::visit_node(const ir::Binary *op) {
  ScalarType t = op->a.type();
  llvm::Value *a = codegen(op->a);
  llvm::Value *b = codegen(op->b);
  const bool clamp = op->op == BinaryOp::Min || op->op == BinaryOp::Max;
  if (index32 && t == ScalarType::I64 && (clamp || ir::is_comparison(op->op))) {
    // A clamped index of 32-bit index arithmetic (`max(x - 1, 0)`, `min(x + 1, n - 1)`), or a
    // comparison of indices (a guard, a window's bounds): where both operands provably fit 32
    // bits, it is taken in 32 bits, the same value. LLVM then keeps the index in 32 bits
    // throughout; a 64-bit min, max or comparison costs ptxas twice the instructions and the
    // conversions around it (bench/RESULTS.md, hotspot3D).
    auto fits_32 = [&](const ir::Expr &e) {
      std::optional<IndexRange> r = index_range(e, counters32_);
      return r && r->lo >= std::numeric_limits<int32_t>::min() &&
             r->hi <= std::numeric_limits<int32_t>::max();
    };
    if (fits_32(op->a) && fits_32(op->b)) {
      llvm::Type *i32 = builder.getInt32Ty();
      llvm::Value *a32 = builder.CreateTrunc(a, i32), *b32 = builder.CreateTrunc(b, i32);
      if (!clamp) {
        value_ = compare(op->op, ScalarType::I32, a32, b32);
        return;
      }
      llvm::Value *m = builder.CreateBinaryIntrinsic(
          op->op == BinaryOp::Min ? llvm::Intrinsic::smin : llvm::Intrinsic::smax, a32, b32);
      value_ = builder.CreateSExt(m, a->getType());
      return;
    }
  }
  value_ = ir::is_comparison(op->op) ? compare(op->op, t, a, b) : arith(op->op, t, a, b);
}

llvm::Value *CodegenLLVM::float_min_max(BinaryOp op, llvm::Value *a, llvm::Value *b) {
  // minnum/maxnum, with each operand's NaN case spelled out, which changes no value: LLVM 19
  // takes the sign of maxnum(x, y) from an operand whose sign it knows even when that operand
  // may be a NaN, and the result is then the other operand. It folds
  // copysign(2, maxnum(fabs(y), -1.5)) to 2 and drops the fabs of maxnum(select(c, NaN, 3), -1.5)
  // (inlined libdevice tanh ends in such a copysign). Through the selects LLVM sees either
  // operand's sign. ptxas and x86 selection fold them into the min/max where they can.
  llvm::Value *m = op == BinaryOp::Min ? builder.CreateMinNum(a, b) : builder.CreateMaxNum(a, b);
  m = builder.CreateSelect(builder.CreateFCmpUNO(a, a), b, m);
  return builder.CreateSelect(builder.CreateFCmpUNO(b, b), a, m);
}

llvm::Value *CodegenLLVM::arith(BinaryOp op, ScalarType t, llvm::Value *a, llvm::Value *b) {
  bool fp = ir::is_float(t);
  switch (op) {
  case BinaryOp::Add: // integers wrap: no nsw/nuw
    return fp ? builder.CreateFAdd(a, b) : builder.CreateAdd(a, b);
  case BinaryOp::Sub:
    return fp ? builder.CreateFSub(a, b) : builder.CreateSub(a, b);
  case BinaryOp::Mul:
    return fp ? builder.CreateFMul(a, b) : builder.CreateMul(a, b);
  case BinaryOp::Div:
    return fp ? builder.CreateFDiv(a, b) : int_div_mod(op, t, a, b);
  case BinaryOp::Mod:
    return fp ? float_remainder(a, b, t) : int_div_mod(op, t, a, b);
  case BinaryOp::Min:
    return fp ? float_min_max(op, a, b)
              : builder.CreateBinaryIntrinsic(
                    ir::is_unsigned(t) ? llvm::Intrinsic::umin : llvm::Intrinsic::smin, a, b);
  case BinaryOp::Max:
    return fp ? float_min_max(op, a, b)
              : builder.CreateBinaryIntrinsic(
                    ir::is_unsigned(t) ? llvm::Intrinsic::umax : llvm::Intrinsic::smax, a, b);
  case BinaryOp::BitAnd:
  case BinaryOp::And: // both operands are already evaluated: no short circuit
    return builder.CreateAnd(a, b);
  case BinaryOp::BitOr:
  case BinaryOp::Or:
    return builder.CreateOr(a, b);
  case BinaryOp::BitXor:
    return builder.CreateXor(a, b);
  case BinaryOp::Shl:
  case BinaryOp::Shr: {
    // The amount is taken modulo the width, as x86 and PTX hardware do for 32/64-bit shifts.
    llvm::Value *amount = builder.CreateAnd(b, ir::bit_width(t) - 1);
    if (op == BinaryOp::Shl)
      return builder.CreateShl(a, amount);
    return ir::is_unsigned(t) ? builder.CreateLShr(a, amount) : builder.CreateAShr(a, amount);
  }
  default:
    throw CompileError("internal error in codegen: unhandled binary operator");
  }
}

llvm::Value *CodegenLLVM::int_div_mod(BinaryOp op, ScalarType t, llvm::Value *a, llvm::Value *b) {
  // Division by zero is UB in LLVM (and INT_MIN / -1 for sdiv), so the divisor becomes 1 there
  // and the defined results are selected afterwards: x/0 == 0, x%0 == x, and for signed types
  // x/-1 == -x (wrapping), x%-1 == 0.
  llvm::Type *type = a->getType();
  llvm::Value *zero = llvm::ConstantInt::get(type, 0);
  llvm::Value *one = llvm::ConstantInt::get(type, 1);
  llvm::Value *by_zero = builder.CreateICmpEQ(b, zero);
  if (ir::is_unsigned(t)) {
    llvm::Value *safe = builder.CreateSelect(by_zero, one, b);
    if (op == BinaryOp::Div)
      return builder.CreateSelect(by_zero, zero, builder.CreateUDiv(a, safe));
    return builder.CreateSelect(by_zero, a, builder.CreateURem(a, safe));
  }
  llvm::Value *minus_one = llvm::ConstantInt::getSigned(type, -1);
  llvm::Value *by_minus_one = builder.CreateICmpEQ(b, minus_one);
  llvm::Value *safe = builder.CreateSelect(builder.CreateOr(by_zero, by_minus_one), one, b);
  if (op == BinaryOp::Div) {
    llvm::Value *q = builder.CreateSDiv(a, safe);
    q = builder.CreateSelect(by_minus_one, builder.CreateNeg(a), q);
    return builder.CreateSelect(by_zero, zero, q);
  }
  llvm::Value *r = builder.CreateSRem(a, safe); // x % 1 == 0 covers b == -1
  return builder.CreateSelect(by_zero, a, r);
}

llvm::Value *CodegenLLVM::compare(BinaryOp op, ScalarType t, llvm::Value *a, llvm::Value *b) {
  using P = llvm::CmpInst::Predicate;
  if (ir::is_float(t)) {
    // Ordered comparisons are false with a NaN operand, except != which is then true.
    static const P fp[] = {P::FCMP_OLT, P::FCMP_OLE, P::FCMP_OGT,
                           P::FCMP_OGE, P::FCMP_OEQ, P::FCMP_UNE};
    return builder.CreateFCmp(fp[int(op) - int(BinaryOp::Lt)], a, b);
  }
  // Bools compare unsigned (false < true); as signed i1, true would be -1.
  static const P sint[] = {P::ICMP_SLT, P::ICMP_SLE, P::ICMP_SGT,
                           P::ICMP_SGE, P::ICMP_EQ,  P::ICMP_NE};
  static const P uint[] = {P::ICMP_ULT, P::ICMP_ULE, P::ICMP_UGT,
                           P::ICMP_UGE, P::ICMP_EQ,  P::ICMP_NE};
  const P *table = t == ScalarType::Bool || ir::is_unsigned(t) ? uint : sint;
  return builder.CreateICmp(table[int(op) - int(BinaryOp::Lt)], a, b);
}

void CodegenLLVM::visit_node(const ir::Cast *op) {
  value_ = cast(op->type, op->a.type(), codegen(op->a));
}

llvm::Value *CodegenLLVM::cast(ScalarType to, ScalarType from, llvm::Value *v) {
  if (to == from)
    return v;
  llvm::Type *type = llvm_type(to);
  if (to == ScalarType::Bool) // anything non-zero is true; NaN too, as in C
    return ir::is_float(from) ? builder.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0))
                              : builder.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  if (from == ScalarType::Bool)
    return ir::is_float(to) ? builder.CreateUIToFP(v, type) : builder.CreateZExt(v, type);
  if (ir::is_int(from) && ir::is_int(to)) // the source's signedness decides the extension
    return ir::is_unsigned(from) ? builder.CreateZExtOrTrunc(v, type)
                                 : builder.CreateSExtOrTrunc(v, type);
  if (ir::is_int(from))
    return ir::is_unsigned(from) ? builder.CreateUIToFP(v, type) : builder.CreateSIToFP(v, type);
  if (ir::is_int(to)) // saturating, NaN -> 0: fptosi is poison out of range
    return builder.CreateIntrinsic(ir::is_unsigned(to) ? llvm::Intrinsic::fptoui_sat
                                                       : llvm::Intrinsic::fptosi_sat,
                                   {type, v->getType()}, {v});
  return to == ScalarType::F64 ? builder.CreateFPExt(v, type) : builder.CreateFPTrunc(v, type);
}

void CodegenLLVM::visit_node(const ir::Call *op) {
  std::vector<llvm::Value *> args;
  for (const ir::Expr &a : op->args)
    args.push_back(codegen(a));
  const ScalarType t = op->args[0].type(); // the type the function is computed in
  llvm::Type *type = llvm_type(t);
  llvm::Value *x = args[0];
  auto intrinsic = [&](llvm::Intrinsic::ID id) {
    return builder.CreateIntrinsic(id, {type}, args);
  };
  auto magnitude_vs_infinity = [&](llvm::CmpInst::Predicate p) {
    llvm::Value *m = builder.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    return builder.CreateFCmp(p, m, llvm::ConstantFP::getInfinity(type));
  };
  switch (op->fn) {
  case MathFn::Sqrt:
    value_ = square_root(x, t);
    return;
  case MathFn::Floor:
    value_ = intrinsic(llvm::Intrinsic::floor);
    return;
  case MathFn::Ceil:
    value_ = intrinsic(llvm::Intrinsic::ceil);
    return;
  case MathFn::Trunc:
    value_ = intrinsic(llvm::Intrinsic::trunc);
    return;
  case MathFn::Round: // half to even
    value_ = intrinsic(llvm::Intrinsic::roundeven);
    return;
  case MathFn::Copysign:
    value_ = intrinsic(llvm::Intrinsic::copysign);
    return;
  case MathFn::Fma:
    value_ = fma(type, args);
    return;
  case MathFn::Abs:
    if (ir::is_float(t)) {
      value_ = builder.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    } else if (ir::is_unsigned(t)) {
      value_ = x;
    } else { // abs(INT_MIN) == INT_MIN, not poison
      value_ = builder.CreateBinaryIntrinsic(llvm::Intrinsic::abs, x, builder.getFalse());
    }
    return;
  case MathFn::Sign: {
    llvm::Value *zero = llvm::Constant::getNullValue(type);
    if (ir::is_float(t)) { // ±0 and NaN are their own sign
      llvm::Value *one = llvm::ConstantFP::get(type, 1.0),
                  *minus = llvm::ConstantFP::get(type, -1.0);
      value_ = builder.CreateSelect(builder.CreateFCmpOGT(x, zero), one,
                                    builder.CreateSelect(builder.CreateFCmpOLT(x, zero), minus, x));
    } else if (ir::is_unsigned(t)) {
      value_ = builder.CreateZExt(builder.CreateICmpNE(x, zero), type);
    } else {
      value_ = builder.CreateSub(builder.CreateZExt(builder.CreateICmpSGT(x, zero), type),
                                 builder.CreateZExt(builder.CreateICmpSLT(x, zero), type));
    }
    return;
  }
  case MathFn::IsNan:
    value_ = builder.CreateFCmpUNO(x, x);
    return;
  case MathFn::IsInf:
    value_ = magnitude_vs_infinity(llvm::CmpInst::FCMP_OEQ);
    return;
  case MathFn::IsFinite: // ordered and not infinite: false for NaN
    value_ = magnitude_vs_infinity(llvm::CmpInst::FCMP_ONE);
    return;
  case MathFn::Ldexp:
    value_ = scale_by_power_of_two(x, args[1], t);
    return;
  case MathFn::Rsqrt:
    value_ = reciprocal_square_root(x, t);
    return;
  default:
    break;
  }
  if (ir::math_info(op->fn).impl != ir::MathImpl::Library)
    throw CompileError(std::string("internal error in codegen: unhandled math function ") +
                       ir::fn_name(op->fn));
  value_ = library_function(op->fn, t, args);
}

llvm::Value *CodegenLLVM::library_function(MathFn fn, ScalarType t,
                                           const std::vector<llvm::Value *> &args) {
  llvm::Type *type = llvm_type(t);
  if (fn != MathFn::Lgamma)
    return call_math_library(math_function_name(fn, t), type, args);
  // lgamma_r: lgamma itself writes the global signgam, a data race between worker threads.
  llvm::Type *i32 = builder.getInt32Ty();
  llvm::Value *sign = alloca_builder_.CreateAlloca(i32, nullptr, "lgamma.sign");
  std::string name = t == ScalarType::F32 ? "lgammaf_r" : "lgamma_r";
  llvm::FunctionCallee callee = module->getOrInsertFunction(
      name, llvm::FunctionType::get(type, {type, sign->getType()}, false));
  if (auto *f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setOnlyAccessesArgMemory();
    f->setDoesNotThrow();
    f->setWillReturn();
  }
  return builder.CreateCall(callee, {args[0], sign});
}

llvm::Value *CodegenLLVM::scale_by_power_of_two(llvm::Value *x, llvm::Value *exponent, ScalarType) {
  return builder.CreateIntrinsic(llvm::Intrinsic::ldexp, {x->getType(), exponent->getType()},
                                 {x, exponent});
}

llvm::Value *CodegenLLVM::reciprocal_square_root(llvm::Value *x, ScalarType t) {
  // 1 / sqrt(x), both correctly rounded, as the interpreter computes it.
  return builder.CreateFDiv(llvm::ConstantFP::get(x->getType(), 1.0), square_root(x, t));
}

llvm::Value *CodegenLLVM::square_root(llvm::Value *v, ScalarType t) {
  return builder.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, v);
}

llvm::Value *CodegenLLVM::fma(llvm::Type *type, const std::vector<llvm::Value *> &args) {
  if (!fma_through_helper_)
    return builder.CreateIntrinsic(llvm::Intrinsic::fma, {type}, args);
  std::string name = type->isFloatTy() ? "loom.fma.f32" : "loom.fma.f64";
  llvm::Function *helper = module->getFunction(name);
  if (!helper) {
    helper = llvm::Function::Create(llvm::FunctionType::get(type, {type, type, type}, false),
                                    llvm::GlobalValue::InternalLinkage, name, module.get());
    helper->addFnAttr(llvm::Attribute::NoInline);
    helper->addFnAttr(llvm::Attribute::NoUnwind);
    helper->setDoesNotAccessMemory();
    helper->setWillReturn();
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", helper));
    b.CreateRet(b.CreateIntrinsic(llvm::Intrinsic::fma, {type},
                                  {helper->getArg(0), helper->getArg(1), helper->getArg(2)}));
  }
  return builder.CreateCall(helper, args);
}

llvm::Value *CodegenLLVM::call_math_library(const std::string &name, llvm::Type *type,
                                            const std::vector<llvm::Value *> &args) {
  std::vector<llvm::Type *> arg_types;
  for (llvm::Value *a : args)
    arg_types.push_back(a->getType());
  llvm::FunctionCallee callee =
      module->getOrInsertFunction(name, llvm::FunctionType::get(type, arg_types, false));
  if (auto *f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    // Pure functions of their arguments (errno is never read), so LLVM may hoist or drop them.
    f->setDoesNotAccessMemory();
    f->setDoesNotThrow();
    f->setWillReturn();
  }
  auto *call = builder.CreateCall(callee, args);
  call->setDoesNotAccessMemory();
  return call;
}

llvm::Value *CodegenLLVM::float_remainder(llvm::Value *a, llvm::Value *b, ScalarType) {
  return builder.CreateFRem(a, b); // fmod, exactly, on the CPU
}

std::string CodegenLLVM::math_function_name(MathFn fn, ScalarType t) const {
  std::string name = ir::math_info(fn).c_name;
  return t == ScalarType::F32 ? name + "f" : name;
}

llvm::Type *CodegenLLVM::bf16_memory_type() const {
  return llvm::Type::getInt16Ty(context);
}

llvm::Value *CodegenLLVM::widen_bf16(llvm::Value *v) {
  llvm::Value *bits = builder.CreateZExt(v, builder.getInt32Ty());
  return builder.CreateBitCast(builder.CreateShl(bits, 16), builder.getFloatTy());
}

llvm::Value *CodegenLLVM::round_to_16_bits(llvm::Value *f, bool bf16) {
  if (bf16)
    return widen_bf16(round_to_bf16(f));
  return builder.CreateFPExt(builder.CreateFPTrunc(f, builder.getHalfTy()), builder.getFloatTy());
}

llvm::Value *CodegenLLVM::round_to_odd_f32(llvm::Value *d) {
  // Toward zero, then the lowest bit set when inexact (f32_round_to_odd); a NaN is left as
  // fptrunc makes it.
  llvm::Value *r = builder.CreateFPTrunc(d, builder.getFloatTy());
  llvm::Value *back = builder.CreateFPExt(r, builder.getDoubleTy());
  llvm::Value *bits = builder.CreateBitCast(r, builder.getInt32Ty());
  llvm::Value *away =
      builder.CreateFCmpOGT(builder.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, back),
                            builder.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, d));
  bits = builder.CreateSelect(away, builder.CreateSub(bits, builder.getInt32(1)), bits);
  llvm::Value *inexact = builder.CreateFCmpONE(back, d);
  bits = builder.CreateSelect(inexact, builder.CreateOr(bits, builder.getInt32(1)), bits);
  return builder.CreateBitCast(bits, builder.getFloatTy());
}

llvm::Value *CodegenLLVM::round_to_bf16(llvm::Value *v) {
  // x86's vcvtneps2bf16, which LLVM picks for fptrunc on AVX512-BF16 hosts, reads f32 subnormals
  // as zero; loom rounds every f32 to nearest even (support/Float16.h), in integer arithmetic:
  // add 0x7fff plus the lowest kept bit, keep the top 16 bits; a NaN keeps its top bits, quiet.
  llvm::Value *bits = builder.CreateBitCast(v, builder.getInt32Ty());
  llvm::Value *lowest_kept = builder.CreateAnd(builder.CreateLShr(bits, 16), builder.getInt32(1));
  llvm::Value *rounded =
      builder.CreateAdd(bits, builder.CreateAdd(lowest_kept, builder.getInt32(0x7fff)));
  llvm::Value *top = builder.CreateTrunc(builder.CreateLShr(rounded, 16), builder.getInt16Ty());
  llvm::Value *quiet_nan =
      builder.CreateOr(builder.CreateTrunc(builder.CreateLShr(bits, 16), builder.getInt16Ty()),
                       builder.getInt16(0x40));
  return builder.CreateSelect(builder.CreateFCmpUNO(v, v), quiet_nan, top);
}

llvm::Value *CodegenLLVM::round_to_tf32(llvm::Value *v) {
  // support/Float16.h's round_to_tf32: half of the dropped 13 bits' weight added to the
  // magnitude, those bits cleared (ties away from zero); infinities and NaNs left as they are.
  llvm::Value *bits = builder.CreateBitCast(v, builder.getInt32Ty());
  llvm::Value *rounded = builder.CreateAnd(builder.CreateAdd(bits, builder.getInt32(0x1000)),
                                           builder.getInt32(static_cast<int32_t>(0xffffe000u)));
  llvm::Value *exponent = builder.CreateAnd(bits, builder.getInt32(0x7f800000));
  llvm::Value *special = builder.CreateICmpEQ(exponent, builder.getInt32(0x7f800000));
  return builder.CreateBitCast(builder.CreateSelect(special, bits, rounded), builder.getFloatTy());
}

} // namespace loom::codegen
