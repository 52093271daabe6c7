// CPU JIT: hand-built lowered kernels compiled with compile_cpu and run on random inputs.
#include "CodegenTestUtil.h"

#include "support/Error.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <random>
#include <thread>

namespace loom::codegen::test {
namespace {

std::vector<float> random_floats(size_t n, unsigned seed, float lo = -10, float hi = 10) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

// saxpy over the chunk [chunk_begin, chunk_end): y[i] = a * x[i] + y[i].
LoweredKernel saxpy_kernel() {
  std::vector<Param> params{scalar_param("a", ScalarType::F32), array_param("x", ScalarType::F32),
                            array_param("y", ScalarType::F32)};
  Var i = make_var("i", ScalarType::I64);
  Var begin = make_var("chunk_begin", ScalarType::I64),
      end = make_var("chunk_end", ScalarType::I64);
  Expr ax = bin(BinaryOp::Mul, var(params[0].var), load(params, 1, {var(i)}));
  Stmt body = Store::make(2, {var(i)}, bin(BinaryOp::Add, ax, load(params, 2, {var(i)})));
  Stmt loop = For::make(i, var(begin), var(end), i64(1), body);
  return LoweredKernel{
      "saxpy",
      params,
      Target::CPU,
      {Task{"saxpy_task", TaskKind::Parallel, {ArrayExtent::make(1, 0)}, begin, end, loop, {}}}};
}

TEST(codegen_cpu_jit, SaxpyRunsExactlyTheGivenChunk) {
  const int64_t n = 1000;
  std::vector<float> x = random_floats(n, 1), y0 = random_floats(n, 2), y = y0;
  const float a = 1.75f;
  std::unique_ptr<CpuCode> code = compile_cpu(saxpy_kernel());
  ASSERT_EQ(code->tasks().size(), 1u);
  ParamPack args;
  args.scalar(a).array(x.data(), {n}).array(y.data(), {n});

  code->tasks()[0](args.params(), 10, 517, 0);
  for (int64_t i = 0; i < n; ++i) {
    float expected = (i >= 10 && i < 517) ? a * x[i] + y0[i] : y0[i];
    ASSERT_EQ(y[i], expected) << "i=" << i; // one rounding per operation, no contraction
  }
  code->tasks()[0](args.params(), 0, 10, 0);
  code->tasks()[0](args.params(), 517, n, 0);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(y[i], a * x[i] + y0[i]) << "i=" << i;
}

TEST(codegen_cpu_jit, MatmulIsRowMajorOverNonSquareShapes) {
  // C[i, j] = sum_k A[i, k] * B[k, j], rows chunked; shapes differ so a transposed index shows.
  const int64_t N = 7, K = 5, M = 13;
  std::vector<Param> params{array_param("A", ScalarType::F64, 2),
                            array_param("B", ScalarType::F64, 2),
                            array_param("C", ScalarType::F64, 2)};
  Var i = make_var("i", ScalarType::I64), j = make_var("j", ScalarType::I64),
      k = make_var("k", ScalarType::I64), acc = make_var("acc", ScalarType::F64);
  Var begin = make_var("b", ScalarType::I64), end = make_var("e", ScalarType::I64);
  Expr prod =
      bin(BinaryOp::Mul, load(params, 0, {var(i), var(k)}), load(params, 1, {var(k), var(j)}));
  Stmt inner = For::make(k, i64(0), ArrayExtent::make(0, 1), i64(1),
                         Assign::make(acc, bin(BinaryOp::Add, var(acc), prod)));
  Stmt cols = For::make(j, i64(0), ArrayExtent::make(2, 1), i64(1),
                        Block::make({Declare::make(acc, FloatConst::make(ScalarType::F64, 0)),
                                     inner, Store::make(2, {var(i), var(j)}, var(acc))}));
  Stmt rows = For::make(i, var(begin), var(end), i64(1), cols);
  LoweredKernel kernel{"matmul",
                       params,
                       Target::CPU,
                       {Task{"matmul_rows", TaskKind::Parallel, {i64(N)}, begin, end, rows, {}}}};

  std::mt19937 rng(3);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<double> A(N * K), B(K * M), C(N * M, -99);
  for (double &v : A)
    v = dist(rng);
  for (double &v : B)
    v = dist(rng);
  ParamPack args;
  args.array(A.data(), {N, K}).array(B.data(), {K, M}).array(C.data(), {N, M});
  std::unique_ptr<CpuCode> code = compile_cpu(kernel);
  code->tasks()[0](args.params(), 0, 3, 0);
  code->tasks()[0](args.params(), 3, N, 0);
  for (int64_t r = 0; r < N; ++r)
    for (int64_t c = 0; c < M; ++c) {
      double expected = 0;
      for (int64_t q = 0; q < K; ++q)
        expected += A[r * K + q] * B[q * M + c];
      EXPECT_NEAR(C[r * M + c], expected, 1e-12) << r << "," << c;
    }
}

TEST(codegen_cpu_jit, WhileLoopCountsCollatzSteps) {
  std::vector<Param> params{array_param("x", ScalarType::I64),
                            array_param("steps", ScalarType::I32)};
  LoweredKernel kernel = cpu_elementwise("collatz", params, [&](const Var &i) {
    Var v = make_var("v", ScalarType::I64), n = make_var("n", ScalarType::I32);
    Expr even = bin(BinaryOp::Eq, bin(BinaryOp::Mod, var(v), i64(2)), i64(0));
    Expr next = Select::make(even, bin(BinaryOp::Div, var(v), i64(2)),
                             bin(BinaryOp::Add, bin(BinaryOp::Mul, var(v), i64(3)), i64(1)));
    Stmt step = Block::make(
        {Assign::make(v, next),
         Assign::make(n, bin(BinaryOp::Add, var(n), IntConst::make(ScalarType::I32, 1)))});
    return Block::make({Declare::make(v, load(params, 0, {var(i)})),
                        Declare::make(n, IntConst::make(ScalarType::I32, 0)),
                        While::make(bin(BinaryOp::Gt, var(v), i64(1)), step),
                        Store::make(1, {var(i)}, var(n))});
  });
  std::vector<int64_t> x{1, 2, 3, 6, 7, 27, 97, 871};
  std::vector<int32_t> steps(x.size(), -1);
  ParamPack args;
  args.array(x.data(), {int64_t(x.size())}).array(steps.data(), {int64_t(x.size())});
  run_cpu(kernel, args);
  EXPECT_EQ(steps, (std::vector<int32_t>{0, 1, 7, 8, 16, 111, 118, 178}));
}

TEST(codegen_cpu_jit, BoolArraysAndBoolScalarsUseOneByte) {
  // out[i] = (in[i] && x[i] > 0) != flag;  count[i] = i32(in[i]) * 10 + i32(in[i] < flag)
  std::vector<Param> params{array_param("in", ScalarType::Bool), array_param("x", ScalarType::I32),
                            scalar_param("flag", ScalarType::Bool),
                            array_param("out", ScalarType::Bool),
                            array_param("count", ScalarType::I32)};
  LoweredKernel kernel = cpu_elementwise("bools", params, [&](const Var &i) {
    Expr in = load(params, 0, {var(i)}), flag = var(params[2].var);
    Expr positive =
        bin(BinaryOp::Gt, load(params, 1, {var(i)}), IntConst::make(ScalarType::I32, 0));
    Expr count = bin(
        BinaryOp::Add,
        bin(BinaryOp::Mul, Cast::make(ScalarType::I32, in), IntConst::make(ScalarType::I32, 10)),
        Cast::make(ScalarType::I32, bin(BinaryOp::Lt, in, flag)));
    return Block::make(
        {Store::make(3, {var(i)}, bin(BinaryOp::Ne, bin(BinaryOp::And, in, positive), flag)),
         Store::make(4, {var(i)}, count)});
  });
  std::vector<uint8_t> in{0, 1, 1, 0, 2}; // any non-zero byte reads as true
  std::vector<int32_t> x{5, 5, -5, -5, 3};
  for (uint8_t flag : {uint8_t(0), uint8_t(1)}) {
    std::vector<uint8_t> out(in.size(), 77);
    std::vector<int32_t> count(in.size(), -1);
    const int64_t n = in.size();
    ParamPack args;
    args.array(in.data(), {n})
        .array(x.data(), {n})
        .scalar(flag)
        .array(out.data(), {n})
        .array(count.data(), {n});
    run_cpu(kernel, args);
    for (size_t i = 0; i < in.size(); ++i) {
      bool b = in[i] != 0;
      EXPECT_EQ(out[i], uint8_t((b && x[i] > 0) != bool(flag))) << i << " flag " << int(flag);
      EXPECT_EQ(count[i], int(b) * 10 + int(b < bool(flag))) << i << " flag " << int(flag);
    }
  }
}

// out[i] = i + k, as a kernel named `name` with one task named "task".
LoweredKernel iota_plus(int64_t k, const std::string &name = "iota") {
  std::vector<Param> params{array_param("out", ScalarType::I64)};
  LoweredKernel kernel = cpu_elementwise(name, params, [&](const Var &i) {
    return Store::make(0, {var(i)}, bin(BinaryOp::Add, var(i), i64(k)));
  });
  kernel.tasks[0].name = "task";
  return kernel;
}

TEST(codegen_cpu_jit, KernelsWithEqualTaskNamesStayApart) {
  std::unique_ptr<CpuCode> first = compile_cpu(iota_plus(100));
  std::unique_ptr<CpuCode> second = compile_cpu(iota_plus(200));
  std::vector<int64_t> a(4), b(4);
  ParamPack pa, pb;
  pa.array(a.data(), {4});
  pb.array(b.data(), {4});
  first->tasks()[0](pa.params(), 0, 0, 0);
  second->tasks()[0](pb.params(), 0, 0, 0);
  EXPECT_EQ(a, (std::vector<int64_t>{100, 101, 102, 103}));
  EXPECT_EQ(b, (std::vector<int64_t>{200, 201, 202, 203}));
}

TEST(codegen_cpu_jit, CompilingAndFreeingManyKernels) {
  for (int k = 0; k < 200; ++k) {
    std::unique_ptr<CpuCode> code = compile_cpu(iota_plus(k, "iota" + std::to_string(k % 3)));
    std::vector<int64_t> out(3);
    ParamPack args;
    args.array(out.data(), {3});
    code->tasks()[0](args.params(), 0, 0, 0);
    ASSERT_EQ(out, (std::vector<int64_t>{k, k + 1, k + 2})) << "kernel " << k;
  }
}

TEST(codegen_cpu_jit, CompilesFromManyThreadsAtOnce) {
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t, &failures] {
      for (int64_t k = t * 100; k < t * 100 + 10; ++k) {
        try {
          std::unique_ptr<CpuCode> code = compile_cpu(iota_plus(k));
          std::vector<int64_t> out(3);
          ParamPack args;
          args.array(out.data(), {3});
          code->tasks()[0](args.params(), 0, 0, 0);
          failures += out != std::vector<int64_t>{k, k + 1, k + 2};
        } catch (const std::exception &) {
          ++failures;
        }
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(failures, 0);
}

TEST(codegen_cpu_jit, TasksRunInOrderAndSeeEachOthersWrites) {
  std::vector<Param> params{array_param("x", ScalarType::I32), array_param("y", ScalarType::I32)};
  Var i = make_var("i", ScalarType::I64);
  auto loop = [&](Stmt body) {
    return For::make(i, i64(0), ArrayExtent::make(0, 0), i64(1), body);
  };
  Expr two = IntConst::make(ScalarType::I32, 2);
  Stmt first = loop(Store::make(1, {var(i)}, bin(BinaryOp::Mul, load(params, 0, {var(i)}), two)));
  Stmt second = loop(Store::make(0, {var(i)}, bin(BinaryOp::Sub, load(params, 1, {var(i)}), two)));
  LoweredKernel kernel{"two",
                       params,
                       Target::CPU,
                       {Task{"two_a", TaskKind::Serial, {}, nullptr, nullptr, first, {}},
                        Task{"two_b", TaskKind::Serial, {}, nullptr, nullptr, second, {}}}};
  std::vector<int32_t> x{1, 2, 3}, y(3);
  ParamPack args;
  args.array(x.data(), {3}).array(y.data(), {3});
  std::unique_ptr<CpuCode> code = compile_cpu(kernel);
  ASSERT_EQ(code->tasks().size(), 2u);
  code->tasks()[0](args.params(), 0, 0, 0);
  code->tasks()[1](args.params(), 0, 0, 0);
  EXPECT_EQ(y, (std::vector<int32_t>{2, 4, 6}));
  EXPECT_EQ(x, (std::vector<int32_t>{0, 2, 4}));
}

TEST(codegen_cpu_jit, GpuOnlyConstructsAreCompileErrors) {
  std::vector<Param> params{array_param("out", ScalarType::I32)};
  LoweredKernel sreg = cpu_elementwise("sreg", params, [](const Var &i) {
    return Store::make(0, {var(i)}, SpecialReg::make(Reg::ThreadIdx, 0));
  });
  EXPECT_THROW(
      {
        try {
          compile_cpu(sreg);
        } catch (const CompileError &e) {
          EXPECT_NE(std::string(e.what()).find("GPU"), std::string::npos) << e.what();
          throw;
        }
      },
      CompileError);

  Var p = make_var("p", ScalarType::I64);
  LoweredKernel parallel{
      "pf",
      params,
      Target::CPU,
      {Task{"pf",
            TaskKind::Serial,
            {},
            nullptr,
            nullptr,
            ParallelFor::make({p}, {i64(4)},
                              Store::make(0, {var(p)}, IntConst::make(ScalarType::I32, 1))),
            {}}}};
  EXPECT_THROW(compile_cpu(parallel), CompileError);

  LoweredKernel gpu = iota_plus(1);
  gpu.target = Target::GPU;
  EXPECT_THROW(compile_cpu(gpu), CompileError);
}

TEST(codegen_cpu_jit, EmitLlvmShowsEntriesAttributesAndVectorizedLoops) {
  std::string plain = emit_llvm(saxpy_kernel(), LlvmStage::Unoptimized);
  EXPECT_NE(plain.find("define void @saxpy_task(ptr"), std::string::npos) << plain;
  EXPECT_NE(plain.find("noalias"), std::string::npos);
  // x is only read, y is written: exactly one array argument is readonly.
  EXPECT_NE(plain.find("readonly align 4 %x"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("readonly align 4 %y"), std::string::npos) << plain;

  std::string optimized = emit_llvm(saxpy_kernel(), LlvmStage::Optimized);
  EXPECT_NE(optimized.find("define void @saxpy_task("), std::string::npos);
  EXPECT_EQ(optimized.find("define internal void @saxpy_task.body"), std::string::npos)
      << "body was not inlined";
  bool vectorized = optimized.find("<4 x float>") != std::string::npos ||
                    optimized.find("<8 x float>") != std::string::npos ||
                    optimized.find("<16 x float>") != std::string::npos;
  EXPECT_TRUE(vectorized) << optimized;
}

TEST(codegen_cpu_jit, HostCpuIsNamed) {
  std::string cpu = host_cpu_name();
  EXPECT_FALSE(cpu.empty());
  EXPECT_NE(cpu, "generic");
}

} // namespace
} // namespace loom::codegen::test
