// The IR interpreter: loom's scalar semantics, kernels before and after lowering, its errors,
// and the uncertainty it tracks for comparisons with the GPU.
#include "frontend/DSL.h"
#include "ir/Evaluate.h"
#include "ir/Interpreter.h"
#include "ir/Lower.h"
#include "ir/Printer.h"
#include "ir/Uncertainty.h"
#include "support/Error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace loom;
using namespace loom::ir;

namespace {

ScalarValue i(ScalarType t, int64_t v) {
  return int_value(t, v);
}
ScalarValue f(ScalarType t, double v) {
  return float_value(t, v);
}
int64_t binary_i(BinaryOp op, ScalarType t, int64_t a, int64_t b) {
  return binary_op(op, t, i(t, a), i(t, b)).i;
}
int64_t cast_to_int(ScalarType to, ScalarType from, double v) {
  return cast_op(to, from, f(from, v)).i;
}

constexpr int64_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int64_t kMax32 = std::numeric_limits<int32_t>::max();
constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
constexpr auto I32 = ScalarType::I32;
constexpr auto I64 = ScalarType::I64;
constexpr auto F32 = ScalarType::F32;
constexpr auto F64 = ScalarType::F64;

TEST(Semantics, IntegersWrapAndDivisionIsDefined) {
  EXPECT_EQ(binary_i(BinaryOp::Add, I32, kMax32, 1), kMin32);
  EXPECT_EQ(binary_i(BinaryOp::Mul, I64, kMax64, 2), -2);
  EXPECT_EQ(binary_i(BinaryOp::Div, I32, 7, 0), 0);
  EXPECT_EQ(binary_i(BinaryOp::Mod, I32, 7, 0), 7);
  EXPECT_EQ(binary_i(BinaryOp::Div, I64, kMin64, -1), kMin64);
  EXPECT_EQ(binary_i(BinaryOp::Mod, I32, kMin32, -1), 0);
  EXPECT_EQ(binary_i(BinaryOp::Div, I32, -7, 2), -3); // toward zero
  EXPECT_EQ(binary_i(BinaryOp::Mod, I32, -7, 2), -1); // the dividend's sign
  EXPECT_EQ(unary_op(UnaryOp::Neg, I32, i(I32, kMin32)).i, kMin32);
  ScalarValue m = i(I32, kMin32);
  EXPECT_EQ(math_op(MathFn::Abs, I32, &m).i, kMin32);
}

TEST(Semantics, ShiftsTakeTheAmountModuloTheWidth) {
  EXPECT_EQ(binary_i(BinaryOp::Shl, I32, 1, 33), 2);
  EXPECT_EQ(binary_i(BinaryOp::Shl, I64, 1, 65), 2);
  EXPECT_EQ(binary_i(BinaryOp::Shl, I32, 1, 31), kMin32);
  EXPECT_EQ(binary_i(BinaryOp::Shr, I32, -16, 2), -4); // arithmetic
  EXPECT_EQ(binary_i(BinaryOp::Shr, I32, -16, 34), -4);
  EXPECT_EQ(binary_i(BinaryOp::Shl, I32, 3, -1), kMin32); // -1 % 32 == 31 as unsigned
}

TEST(Semantics, FloatToIntCastsSaturateAndNanIsZero) {
  EXPECT_EQ(cast_to_int(I32, F32, 1e10), kMax32);
  EXPECT_EQ(cast_to_int(I32, F64, -1e10), kMin32);
  EXPECT_EQ(cast_to_int(I64, F64, 1e300), kMax64);
  EXPECT_EQ(cast_to_int(I64, F32, -INFINITY), kMin64);
  EXPECT_EQ(cast_to_int(I32, F64, NAN), 0);
  EXPECT_EQ(cast_to_int(I32, F64, -2.9), -2);
  EXPECT_EQ(cast_to_int(ScalarType::Bool, F64, NAN), 1);
  EXPECT_EQ(cast_to_int(ScalarType::Bool, F64, -0.0), 0);
  EXPECT_EQ(cast_op(I32, I64, i(I64, (int64_t{1} << 32) + 5)).i, 5); // low bits
}

TEST(Semantics, IntToF32RoundsOnce) {
  // 2^55 + 2^31 + 1 is nearer 2^55 + 2^32; through f64 it would tie and round to 2^55.
  const int64_t v = (int64_t{1} << 55) + (int64_t{1} << 31) + 1;
  EXPECT_EQ(cast_op(F32, I64, i(I64, v)).f, 36028801313931264.0);
}

TEST(Semantics, F32RoundsAfterEveryOperation) {
  ScalarValue big = f(F32, 1e8), one = f(F32, 1);
  ScalarValue sum = binary_op(BinaryOp::Add, F32, big, one);
  EXPECT_EQ(binary_op(BinaryOp::Sub, F32, sum, big).f, 0.0); // 1e8f + 1 == 1e8f
  EXPECT_EQ(binary_op(BinaryOp::Sub, F64, binary_op(BinaryOp::Add, F64, big, one), big).f, 1.0);
  ScalarValue third = binary_op(BinaryOp::Div, F32, one, f(F32, 3));
  EXPECT_EQ(third.f, static_cast<double>(1.0f / 3.0f));
  ScalarValue x = f(F32, 0.5f);
  EXPECT_EQ(math_op(MathFn::Exp, F32, &x).f, static_cast<double>(std::exp(0.5f)));
}

TEST(Semantics, MinMaxIgnoreNanAndFloatModIsFmod) {
  EXPECT_EQ(binary_op(BinaryOp::Min, F64, f(F64, NAN), f(F64, 2)).f, 2.0);
  EXPECT_EQ(binary_op(BinaryOp::Max, F32, f(F32, 3), f(F32, NAN)).f, 3.0);
  EXPECT_EQ(binary_op(BinaryOp::Mod, F64, f(F64, -7.5), f(F64, 2)).f, -1.5);
  EXPECT_EQ(binary_op(BinaryOp::Mod, F32, f(F32, 1e10), f(F32, 3)).f,
            static_cast<double>(std::fmod(1e10f, 3.0f)));
  EXPECT_EQ(binary_op(BinaryOp::Ne, F64, f(F64, NAN), f(F64, NAN)).i, 1);
  EXPECT_EQ(binary_op(BinaryOp::Le, F64, f(F64, NAN), f(F64, NAN)).i, 0);
}

TEST(Evaluate, CastsSaturateInLaunchDomains) {
  // The host evaluator shares the interpreter's semantics: no undefined double -> int cast.
  Param n{"n", ParamKind::Scalar, F64, 0, make_var("n", F64)};
  ArgumentValues args;
  args.scalars = {f(F64, 1e30)};
  args.extents = {{}};
  Expr e = Cast::make(I32, VarRef::make(n.var));
  EXPECT_EQ(evaluate(e, {n}, args).i, kMax32);
}

// ---- kernels ---------------------------------------------------------------------------------

template <class T> Buffer buffer(ScalarType t, std::vector<int64_t> shape, std::vector<T> values) {
  Buffer b(t, std::move(shape));
  if (!values.empty()) // an empty vector's data() may be null, which memcpy must not get
    std::memcpy(b.data(), values.data(), values.size() * sizeof(T));
  return b;
}
template <class T> std::vector<T> values_of(const Buffer &b) {
  std::vector<T> v(b.size());
  if (!v.empty())
    std::memcpy(v.data(), b.bytes.data(), b.bytes.size());
  return v;
}

ir::Kernel matmul() {
  return trace("matmul",
               [](Array2<float> A, Array2<float> B, Array2<float> C) {
                 parallel_for({C.dim(0), C.dim(1)}, [&](Index r, Index c) {
                   loom::Var<float> acc = 0.0f;
                   for_range(A.dim(1), [&](Index k) { acc += A(r, k) * B(k, c); });
                   C(r, c) = acc;
                 });
               },
               {"A", "B", "C"});
}

std::vector<InterpreterArg> matmul_args() {
  std::vector<InterpreterArg> args;
  args.push_back(InterpreterArg::of_array(buffer<float>(F32, {2, 3}, {1, 2, 3, 4, 5, 6})));
  args.push_back(InterpreterArg::of_array(buffer<float>(F32, {3, 2}, {1, 0, 0, 1, 2, 2})));
  args.push_back(InterpreterArg::of_array(Buffer(F32, {2, 2})));
  return args;
}

TEST(Interpreter, RunsAKernelAsTheFrontEndBuiltIt) {
  std::vector<InterpreterArg> args = matmul_args();
  InterpreterResult r = interpret(matmul(), args);
  EXPECT_EQ(values_of<float>(args[2].array), (std::vector<float>{7, 8, 16, 17}));
  EXPECT_GT(r.steps, 12u);
}

// f16 and bf16 arrays hold 16 bits; the interpreter reads them as f32 and rounds stores to
// nearest even, as the host's conversions do (support/Float16.h).
TEST(Interpreter, F16AndBf16ArraysAreStorage) {
  ir::Kernel k = trace("half",
                       [](Array<float> x, Array<loom::f16> h, Array<loom::bf16> b) {
                         parallel_for(x.size(), [&](Index i) {
                           h[i] = x[i] * 3.0f;
                           b[i] = h[i] + 0.5f;
                         });
                       },
                       {"x", "h", "b"});
  std::vector<float> x = {1.0f / 3, 0.1f, 70000.0f, -2.5e-8f, 1.0f};
  std::vector<InterpreterArg> args;
  args.push_back(InterpreterArg::of_array(buffer<float>(F32, {5}, x)));
  args.push_back(InterpreterArg::of_array(Buffer(ScalarType::F16, {5})));
  args.push_back(InterpreterArg::of_array(Buffer(ScalarType::BF16, {5})));
  interpret(k, args);
  std::vector<loom::f16> h = values_of<loom::f16>(args[1].array);
  std::vector<loom::bf16> b = values_of<loom::bf16>(args[2].array);
  for (size_t i = 0; i < x.size(); ++i) {
    loom::f16 want_h(x[i] * 3.0f);
    EXPECT_EQ(want_h.bits, h[i].bits) << i;
    EXPECT_EQ(loom::bf16(static_cast<float>(want_h) + 0.5f).bits, b[i].bits) << i;
  }
  EXPECT_EQ(std::numeric_limits<float>::infinity(), static_cast<float>(h[2])); // 210000
}

// `h[i] += v` on an f16 array reads the element as f32, adds in f32 and rounds the sum to f16,
// before and after lowering.
TEST(Interpreter, ElementwiseUpdateOfAnF16Array) {
  ir::Kernel k = trace("accumulate_f16",
                       [](Array<float> x, Array<loom::f16> h) {
                         parallel_for(x.size(), [&](Index i) { h[i] += x[i] * 2.0f; });
                       },
                       {"x", "h"});
  std::vector<float> x = {1.0f / 3, 0.1f, 3000.7f, -2.5e-8f};
  std::vector<loom::f16> h0 = {loom::f16(1.0f), loom::f16(-7.5f), loom::f16(60000.0f),
                               loom::f16(0.001f)};
  for (bool lowered : {false, true}) {
    std::vector<InterpreterArg> args;
    args.push_back(InterpreterArg::of_array(buffer<float>(F32, {4}, x)));
    args.push_back(InterpreterArg::of_array(buffer<loom::f16>(ScalarType::F16, {4}, h0)));
    if (lowered)
      interpret(lower(k, Target::CPU), args);
    else
      interpret(k, args);
    std::vector<loom::f16> h = values_of<loom::f16>(args[1].array);
    for (size_t i = 0; i < x.size(); ++i)
      EXPECT_EQ(loom::f16(static_cast<float>(h0[i]) + x[i] * 2.0f).bits, h[i].bits)
          << i << (lowered ? " lowered" : "");
  }
}

TEST(Interpreter, LoweredKernelsGiveTheSameResult) {
  for (Target target : {Target::CPU, Target::GPU}) {
    std::vector<InterpreterArg> args = matmul_args();
    InterpreterOptions options;
    options.cpu_chunks = 3;        // 2 rows in 3 chunks: one chunk is empty
    options.gpu_block = {1, 1, 1}; // 2 threads cover 2x2 by grid-stride loops
    options.gpu_grid = {1, 2, 1};
    interpret(lower(matmul(), target), args, options);
    EXPECT_EQ(values_of<float>(args[2].array), (std::vector<float>{7, 8, 16, 17}))
        << target_name(target);
  }
}

// Lowered for a covering launch (ir::LowerOptions::covering_launch), a GPU parallel loop whose
// iterations run a loop, without runs or reductions, takes one iteration per thread under an `if`:
// with any grid that gives every iteration a thread (exactly, or with threads to spare) the results
// are the grid-stride code's, bit for bit. Loops with runs or reductions keep their grid-stride
// loops.
TEST(Interpreter, CoveringLaunchGivesEveryIterationAThread) {
  auto rows = trace("rows",
                    [](Array2<float> x, Array<float> y) {
                      parallel_for(x.dim(0), [&](Index r) {
                        loom::Var<float> s = 0.0f;
                        for_range(x.dim(1), [&](Index c) { s += x(r, c) * x(r, c); });
                        y[r] = s;
                      });
                    },
                    {"x", "y"});
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  auto random = [&](int64_t n) {
    std::vector<float> v(static_cast<size_t>(n));
    for (float &e : v)
      e = value(rng);
    return v;
  };
  const int64_t n = 5, k = 7, m = 6;
  std::vector<float> a = random(n * k), b = random(k * m), x = random(n * k);
  auto matmul_args_of = [&] {
    std::vector<InterpreterArg> args;
    args.push_back(InterpreterArg::of_array(buffer<float>(F32, {n, k}, a)));
    args.push_back(InterpreterArg::of_array(buffer<float>(F32, {k, m}, b)));
    args.push_back(InterpreterArg::of_array(Buffer(F32, {n, m})));
    return args;
  };
  auto rows_args_of = [&] {
    std::vector<InterpreterArg> args;
    args.push_back(InterpreterArg::of_array(buffer<float>(F32, {n, k}, x)));
    args.push_back(InterpreterArg::of_array(Buffer(F32, {n})));
    return args;
  };

  InterpreterOptions strided; // 2 blocks of 2 threads stride over every dimension
  strided.gpu_block = {2, 1, 1};
  strided.gpu_grid = {1, 2, 1};
  std::vector<InterpreterArg> mm = matmul_args_of(), rs = rows_args_of();
  interpret(lower(matmul(), Target::GPU), mm, strided);
  interpret(lower(rows, Target::GPU), rs, strided);

  LoweredKernel mm_cover = lower(matmul(), Target::GPU, nullptr, {.covering_launch = true});
  LoweredKernel rs_cover = lower(rows, Target::GPU, nullptr, {.covering_launch = true});
  ASSERT_TRUE(mm_cover.tasks.at(0).covering);
  ASSERT_TRUE(rs_cover.tasks.at(0).covering);
  EXPECT_NE(to_string(mm_cover).find("if j < C.shape[1] {"), std::string::npos)
      << to_string(mm_cover);
  EXPECT_EQ(to_string(mm_cover).find("gridDim"), std::string::npos) << to_string(mm_cover);
  // Exactly covering (6 x 5 threads for 6 columns and 5 rows), and with threads to spare.
  for (auto [block, grid] :
       {std::pair<std::array<unsigned, 3>, std::array<unsigned, 3>>{{3, 5, 1}, {2, 1, 1}},
        {{4, 2, 1}, {2, 3, 1}}}) {
    InterpreterOptions covering;
    covering.gpu_block = block;
    covering.gpu_grid = grid;
    std::vector<InterpreterArg> mm2 = matmul_args_of();
    interpret(mm_cover, mm2, covering);
    EXPECT_EQ(values_of<float>(mm2[2].array), values_of<float>(mm[2].array));
    covering.gpu_block = {block[0] * block[1], 1, 1}; // 1-D: along x
    covering.gpu_grid = {grid[0] * grid[1], 1, 1};
    std::vector<InterpreterArg> rs2 = rows_args_of();
    interpret(rs_cover, rs2, covering);
    EXPECT_EQ(values_of<float>(rs2[1].array), values_of<float>(rs[1].array));
  }

  // A reduction, a loop taking runs and a flat 2-D body (no loop inside) keep their grid-stride
  // loops.
  auto flat = trace(
      "flat",
      [](Array2<float> x, Array2<float> y) {
        parallel_for({x.dim(0), x.dim(1)}, [&](Index r, Index c) { y(r, c) = x(r, c) * 2.0f; });
      },
      {"x", "y"});
  auto sum = trace("sum",
                   [](Array<float> x, Array<float> t) {
                     parallel_for(x.size(), [&](Index i) { t[0] += x[i]; });
                   },
                   {"x", "t"});
  auto saxpy = trace("saxpy",
                     [](loom::F32 s, Array<float> x, Array<float> y) {
                       parallel_for(x.size(), [&](Index i) { y[i] = s * x[i] + y[i]; });
                     },
                     {"s", "x", "y"});
  for (const ir::Kernel &kernel : {sum, saxpy, flat}) {
    LoweredKernel l = lower(kernel, Target::GPU, nullptr, {.covering_launch = true});
    EXPECT_FALSE(l.tasks.at(0).covering) << kernel.name;
    EXPECT_NE(to_string(l).find("gridDim"), std::string::npos) << to_string(l);
  }
}

// The GPU's runs of consecutive iterations (8 i32 or 4 i64 per thread at a time, then the rest one
// per thread) cover every element once, for extents below, at and past a multiple of the run and
// grids smaller and larger than the number of runs: integer sums are exact.
TEST(Interpreter, GpuRunsOfIterationsCoverEveryElementOnce) {
  auto k = trace("sums",
                 [](Array<int32_t> x, Array<int64_t> y, Array<int32_t> total, Array<int64_t> big,
                    Array<int32_t> count) {
                   parallel_for(x.size(), [&](Index i) {
                     total[0] += x[i] * 3;
                     big[0] += cast<int64_t>(x[i]) * y[i];
                     count[0] += 1;
                   });
                 },
                 {"x", "y", "total", "big", "count"});
  LoweredKernel gpu = lower(k, Target::GPU);
  ASSERT_NE(to_string(gpu).find("for i_in_run in 0 .. 4 {"), std::string::npos) << to_string(gpu);
  for (int64_t n : {0, 3, 4, 8, 37, 301}) {
    for (unsigned threads : {1u, 3u, 64u}) {
      std::vector<int32_t> x(n);
      std::vector<int64_t> y(n);
      int64_t total = 0, big = 0;
      for (int64_t e = 0; e < n; ++e) {
        x[e] = static_cast<int32_t>((e * 7919) % 201) - 100;
        y[e] = (e * 104729) % 1000003 - 500000;
        total += x[e] * 3;
        big += x[e] * y[e];
      }
      std::vector<InterpreterArg> args = {InterpreterArg::of_array(buffer<int32_t>(I32, {n}, x)),
                                          InterpreterArg::of_array(buffer<int64_t>(I64, {n}, y)),
                                          InterpreterArg::of_array(buffer<int32_t>(I32, {1}, {5})),
                                          InterpreterArg::of_array(buffer<int64_t>(I64, {1}, {-7})),
                                          InterpreterArg::of_array(buffer<int32_t>(I32, {1}, {0}))};
      InterpreterOptions options;
      options.gpu_block = {threads, 1, 1};
      options.gpu_grid = {2, 1, 1};
      interpret(gpu, args, options);
      SCOPED_TRACE("n = " + std::to_string(n) + ", " + std::to_string(2 * threads) + " threads");
      EXPECT_EQ(values_of<int32_t>(args[2].array)[0], 5 + total);
      EXPECT_EQ(values_of<int64_t>(args[3].array)[0], -7 + big);
      EXPECT_EQ(values_of<int32_t>(args[4].array)[0], n);
    }
  }
}

TEST(Interpreter, SerialCodeBetweenParallelLoopsSeesEarlierLoops) {
  auto k = trace("prefix",
                 [](Array<int64_t> x, Array<int64_t> y) {
                   parallel_for(x.size(), [&](Index i) { x[i] = i * 2; });
                   loom::Var<int64_t> s = 0;
                   for_range(x.size(), [&](Index i) {
                     s += x[i];
                     y[i] = s;
                   });
                 },
                 {"x", "y"});
  std::vector<InterpreterArg> args = {InterpreterArg::of_array(Buffer(I64, {4})),
                                      InterpreterArg::of_array(Buffer(I64, {4}))};
  interpret(k, args);
  EXPECT_EQ(values_of<int64_t>(args[1].array), (std::vector<int64_t>{0, 2, 6, 12}));
}

TEST(Interpreter, IndexOutOfBoundsNamesArrayIndexAndExtent) {
  auto k = trace("oob",
                 [](Array<float> x) { parallel_for(x.size(), [&](Index i) { x[i + 1] = 1.0f; }); },
                 {"x"});
  std::vector<InterpreterArg> args = {InterpreterArg::of_array(Buffer(F32, {3}))};
  try {
    interpret(k, args);
    FAIL() << "no error";
  } catch (const InterpreterError &e) {
    std::string m = e.what();
    EXPECT_NE(m.find("index 3 is out of bounds of dimension 0 of 'x' (extent 3)"),
              std::string::npos)
        << m;
  }
}

TEST(Interpreter, StepLimitStopsALoopThatDoesNotEnd) {
  auto k = trace("forever",
                 [](Array<int32_t> x) {
                   loom::Var<int32_t> n = 0;
                   while_(n >= 0, [&] { n = n * 1; });
                   x[0] = n;
                 },
                 {"x"});
  std::vector<InterpreterArg> args = {InterpreterArg::of_array(Buffer(I32, {1}))};
  InterpreterOptions options;
  options.step_limit = 1000;
  EXPECT_THROW(interpret(k, args, options), InterpreterError);
  try {
    interpret(k, args, options);
  } catch (const InterpreterError &e) {
    EXPECT_NE(std::string(e.what()).find("step limit of 1000"), std::string::npos) << e.what();
  }
}

TEST(Interpreter, RejectsArgumentsOfTheWrongType) {
  std::vector<InterpreterArg> args = matmul_args();
  args[1].array = Buffer(F64, {3, 2});
  EXPECT_THROW(interpret(matmul(), args), ArgumentError);
  args.pop_back();
  EXPECT_THROW(interpret(matmul(), args), ArgumentError);
}

// ---- uncertainty -------------------------------------------------------------------------------

TEST(Uncertainty, ExactOperationsStayExactAndMathFunctionsDoNot) {
  Uncertainty none;
  ScalarValue a = f(F32, 1.5), b = f(F32, 0.1);
  ScalarValue sum = binary_op(BinaryOp::Add, F32, a, b);
  EXPECT_EQ(binary_uncertainty(BinaryOp::Add, F32, a, none, b, none, sum).error, 0);
  ScalarValue e = math_op(MathFn::Exp, F32, &a);
  Uncertainty ue = math_uncertainty(MathFn::Exp, F32, &a, &none, e);
  EXPECT_GT(ue.error, 0);
  EXPECT_LT(ue.error, 1e-5 * e.f); // a few ulps
  // A rounded product may be fused into the following add on the GPU.
  ScalarValue p = binary_op(BinaryOp::Mul, F32, b, b);
  Uncertainty up = binary_uncertainty(BinaryOp::Mul, F32, b, none, b, none, p);
  EXPECT_EQ(up.error, 0);
  EXPECT_GT(up.fma_slack, 0);
  EXPECT_GT(binary_uncertainty(BinaryOp::Add, F32, p, up, a, none, sum).error, 0);
  // floor of a value known to lie within (2, 3) is exactly 2 everywhere.
  ScalarValue x = f(F32, 2.5);
  Uncertainty ux{0.01, 0};
  EXPECT_EQ(math_uncertainty(MathFn::Floor, F32, &x, &ux, math_op(MathFn::Floor, F32, &x)).error,
            0);
  EXPECT_TRUE(within_uncertainty(F32, x, ux, f(F32, 2.505)));
  EXPECT_FALSE(within_uncertainty(F32, x, ux, f(F32, 2.52)));
}

// A zero whose sign an uncertain operand decides (x / inf, x * 0) carries the smallest positive
// error, so that what tells its sign (rsqrt, a division by it) is unknown; with the operand's
// sign certain it stays exact.
TEST(Uncertainty, AZeroOfUncertainSignIsNotExact) {
  const double inf = std::numeric_limits<double>::infinity();
  ScalarValue s = f(F64, 0.25), minus_inf = f(F64, -inf), zero = f(F64, 0);
  Uncertainty wide{2.0, 0}, narrow{0.1, 0}, none;
  ScalarValue q = binary_op(BinaryOp::Div, F64, s, minus_inf); // -0
  Uncertainty uq = binary_uncertainty(BinaryOp::Div, F64, s, wide, minus_inf, none, q);
  EXPECT_GT(uq.error, 0);
  ScalarValue r = math_op(MathFn::Rsqrt, F64, &q);
  EXPECT_TRUE(math_uncertainty(MathFn::Rsqrt, F64, &q, &uq, r).unknown());
  EXPECT_EQ(binary_uncertainty(BinaryOp::Div, F64, s, narrow, minus_inf, none, q).error, 0);
  // A dividend that may overflow to inf gives inf / inf, a NaN, elsewhere.
  ScalarValue big = f(F64, 1.7e308);
  EXPECT_TRUE(binary_uncertainty(BinaryOp::Div, F64, big, Uncertainty{1e307, 0}, minus_inf, none,
                                 binary_op(BinaryOp::Div, F64, big, minus_inf))
                  .unknown());
  ScalarValue p = binary_op(BinaryOp::Mul, F64, s, zero);
  EXPECT_GT(binary_uncertainty(BinaryOp::Mul, F64, s, wide, zero, none, p).error, 0);
}

TEST(Uncertainty, ADecisionOnAnUncertainValueMakesTheRunInconclusive) {
  auto k = trace("branch",
                 [](Array<float> x, Array<int32_t> y) {
                   if_(loom::exp(x[0]) > 2.7182817f, [&] { y[0] = 1; }).else_([&] { y[0] = 2; });
                 },
                 {"x", "y"});
  std::vector<InterpreterArg> args = {InterpreterArg::of_array(buffer<float>(F32, {1}, {1.0f})),
                                      InterpreterArg::of_array(Buffer(I32, {1}))};
  InterpreterOptions options;
  options.track_uncertainty = true;
  InterpreterResult r = interpret(k, args, options);
  EXPECT_NE(r.inconclusive.find("an if condition"), std::string::npos) << r.inconclusive;
  EXPECT_EQ(values_of<int32_t>(args[1].array), std::vector<int32_t>{2}); // it ran on, as usual
  // Far from the threshold the branch is certain.
  args[0].array = buffer<float>(F32, {1}, {3.0f});
  r = interpret(k, args, options);
  EXPECT_EQ(r.inconclusive, "");
  EXPECT_EQ(r.error_bounds[1][0], 0);
}

} // namespace
