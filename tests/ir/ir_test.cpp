// IR construction, printing and verification.
#include "ir/IR.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "support/Error.h"

#include <gtest/gtest.h>

using namespace loom;
using namespace loom::ir;

namespace {

Param array_param(const std::string &name, ScalarType t, int rank) {
  return {name, ParamKind::Array, t, rank, nullptr};
}
Param scalar_param(const std::string &name, ScalarType t) {
  return {name, ParamKind::Scalar, t, 0, make_var(name, t)};
}
Expr i64(int64_t v) {
  return IntConst::make(ScalarType::I64, v);
}

// saxpy written directly in IR.
Kernel saxpy() {
  Kernel k{"saxpy",
           {scalar_param("a", ScalarType::F32), array_param("x", ScalarType::F32, 1),
            array_param("y", ScalarType::F32, 1)},
           {},
           false,
           false,
           {}};
  Var i = make_var("i", ScalarType::I64);
  Expr xi = Load::make(ScalarType::F32, 1, {VarRef::make(i)});
  Expr yi = Load::make(ScalarType::F32, 2, {VarRef::make(i)});
  Expr v = Binary::make(BinaryOp::Add,
                        Binary::make(BinaryOp::Mul, VarRef::make(k.params[0].var), xi), yi);
  k.body = ParallelFor::make({i}, {ArrayExtent::make(1, 0)}, Store::make(2, {VarRef::make(i)}, v));
  return k;
}

TEST(IR, ConstantsTakeTheirType) {
  EXPECT_EQ(IntConst::make(ScalarType::I32, 5).type(), ScalarType::I32);
  // i32 constants wrap like the type does.
  EXPECT_EQ(IntConst::make(ScalarType::I32, (int64_t(1) << 32) + 7).as<IntConst>()->value, 7);
  EXPECT_EQ(FloatConst::make(ScalarType::F32, 0.1).as<FloatConst>()->value, double(0.1f));
  EXPECT_THROW(IntConst::make(ScalarType::F32, 1), VerifyError);
}

TEST(IR, BinaryRequiresMatchingTypesAndGivesComparisonsBool) {
  Expr a = IntConst::make(ScalarType::I32, 1), b = IntConst::make(ScalarType::I64, 2);
  EXPECT_THROW(Binary::make(BinaryOp::Add, a, b), VerifyError);
  EXPECT_EQ(Binary::make(BinaryOp::Lt, b, b).type(), ScalarType::Bool);
  EXPECT_EQ(Binary::make(BinaryOp::Add, b, b).type(), ScalarType::I64);
  EXPECT_THROW(Binary::make(BinaryOp::Shl, FloatConst::make(ScalarType::F32, 1),
                            FloatConst::make(ScalarType::F32, 1)),
               VerifyError);
  EXPECT_THROW(Binary::make(BinaryOp::And, b, b), VerifyError);
}

TEST(IR, CastToSameTypeIsIdentity) {
  Expr a = IntConst::make(ScalarType::I64, 3);
  EXPECT_TRUE(Cast::make(ScalarType::I64, a).same_as(a));
  EXPECT_EQ(Cast::make(ScalarType::F64, a).kind(), ExprKind::Cast);
}

TEST(IR, CallChecksArityAndTypes) {
  Expr f = FloatConst::make(ScalarType::F32, 2);
  EXPECT_EQ(Call::make(MathFn::Sqrt, {f}).type(), ScalarType::F32);
  EXPECT_THROW(Call::make(MathFn::Pow, {f}), VerifyError);
  EXPECT_THROW(Call::make(MathFn::Sqrt, {IntConst::make(ScalarType::I32, 4)}), VerifyError);
  EXPECT_EQ(Call::make(MathFn::Abs, {IntConst::make(ScalarType::I32, -4)}).type(), ScalarType::I32);
}

TEST(IR, PrintsSaxpyReadably) {
  EXPECT_EQ(to_string(saxpy()), "kernel saxpy(a: f32, x: f32[?], y: f32[?]) {\n"
                                "  parallel for i in (x.shape[0]) {\n"
                                "    y[i] = a * x[i] + y[i]\n"
                                "  }\n"
                                "}\n");
}

TEST(IR, PrinterParenthesisesByPrecedenceAndTellsSameNamesApart) {
  Var a = make_var("t", ScalarType::I64), b = make_var("t", ScalarType::I64);
  Expr sum = Binary::make(BinaryOp::Add, VarRef::make(a), VarRef::make(b));
  Expr prod = Binary::make(BinaryOp::Mul, sum, i64(3));
  EXPECT_EQ(to_string(prod), "(t + t.1) * 3");
  Expr sub = Binary::make(BinaryOp::Sub, i64(1), Binary::make(BinaryOp::Sub, i64(2), i64(3)));
  EXPECT_EQ(to_string(sub), "1 - (2 - 3)");
  EXPECT_EQ(to_string(Cast::make(ScalarType::F32, VarRef::make(a))), "f32(t)");
}

TEST(Verifier, AcceptsSaxpy) {
  EXPECT_NO_THROW(verify(saxpy()));
}

TEST(Verifier, RejectsWrongRank) {
  Kernel k = saxpy();
  k.body = Store::make(2, {i64(0), i64(0)}, FloatConst::make(ScalarType::F32, 1));
  try {
    verify(k);
    FAIL() << "expected VerifyError";
  } catch (const VerifyError &e) {
    EXPECT_NE(std::string(e.what()).find("'y' has rank 1 but is indexed with 2 indices"),
              std::string::npos)
        << e.what();
  }
}

TEST(Verifier, RejectsVariableOutOfScope) {
  Kernel k = saxpy();
  Var ghost = make_var("ghost", ScalarType::F32);
  k.body = Store::make(2, {i64(0)}, VarRef::make(ghost));
  EXPECT_THROW(verify(k), VerifyError);
  // Declared in an inner block, used after it.
  Var v = make_var("v", ScalarType::F32);
  k.body = Block::make(
      {IfThenElse::make(BoolConst::make(true),
                        Block::make({Declare::make(v, FloatConst::make(ScalarType::F32, 1))})),
       Store::make(2, {i64(0)}, VarRef::make(v))});
  EXPECT_THROW(verify(k), VerifyError);
}

TEST(Verifier, RejectsStoreOfWrongTypeAndScalarIndexing) {
  Kernel k = saxpy();
  k.body = Store::make(2, {i64(0)}, FloatConst::make(ScalarType::F64, 1));
  EXPECT_THROW(verify(k), VerifyError);
  k.body = Store::make(0, {i64(0)}, FloatConst::make(ScalarType::F32, 1));
  EXPECT_THROW(verify(k), VerifyError);
}

TEST(Verifier, RejectsNestedParallelLoopsAndAssigningLoopIndex) {
  Kernel k = saxpy();
  Var i = make_var("i", ScalarType::I64), j = make_var("j", ScalarType::I64);
  Stmt inner = ParallelFor::make({j}, {i64(4)}, Block::make({}));
  k.body = ParallelFor::make({i}, {i64(4)}, inner);
  EXPECT_THROW(verify(k), VerifyError);
  k.body = For::make(i, i64(0), i64(4), i64(1), Assign::make(i, i64(2)));
  EXPECT_THROW(verify(k), VerifyError);
}

TEST(Verifier, AfterAPassNamesThePassAsAnInternalError) {
  Kernel k = saxpy();
  LoweredKernel lowered{k.name, k.params, Target::CPU, {}};
  Task task;
  task.name = "saxpy_task0";
  task.kind = TaskKind::Serial;
  task.body = Store::make(2, {i64(0)}, FloatConst::make(ScalarType::F64, 1));
  lowered.tasks.push_back(task);
  try {
    verify_after_pass("lower_reductions", lowered);
    FAIL() << "expected VerifyError";
  } catch (const VerifyError &e) {
    EXPECT_EQ(
        std::string(e.what()).rfind("internal error: the IR is invalid after lowering pass "
                                    "lower_reductions: kernel 'saxpy': store of a f64 into 'y'",
                                    0),
        0u)
        << e.what();
  }
  lowered.tasks[0].body = Store::make(2, {i64(0)}, FloatConst::make(ScalarType::F32, 1));
  EXPECT_NO_THROW(verify_after_pass("lower_reductions", lowered));
  // Until map_parallel_loops, a parallel task holds its loop; after lowering, none is left.
  Var i = make_var("i", ScalarType::I64);
  Task &loop = lowered.tasks[0];
  loop.kind = TaskKind::Parallel;
  loop.domain = {i64(4)};
  loop.body = ParallelFor::make(
      {i}, {i64(4)}, Store::make(2, {VarRef::make(i)}, FloatConst::make(ScalarType::F32, 1)));
  EXPECT_NO_THROW(verify_after_pass("split_into_tasks", lowered));
  EXPECT_THROW(verify(lowered), VerifyError);
  loop.body = ParallelFor::make({i}, {i64(4)}, loop.body);
  EXPECT_THROW(verify_after_pass("split_into_tasks", lowered), VerifyError) << "nested";
}

TEST(Verifier, RejectsThreadIndicesBeforeLowering) {
  Kernel k = saxpy();
  k.body = Store::make(2, {Cast::make(ScalarType::I64, SpecialReg::make(Reg::ThreadIdx, 0))},
                       FloatConst::make(ScalarType::F32, 1));
  EXPECT_THROW(verify(k), VerifyError);
}

} // namespace
