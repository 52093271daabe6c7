// NVPTX: PTX text for hand-built GPU kernels, assembled with ptxas when it is installed (no GPU
// is needed), and the mapping from driver versions and compute capabilities to PTX targets.
#include "CodegenTestUtil.h"

#include "support/Error.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>
#include <unistd.h>

namespace loom::codegen::test {
namespace {

Expr sreg(Reg r) {
  return SpecialReg::make(r, 0);
}
Expr i32_mul(Expr a, Expr b) {
  return bin(BinaryOp::Mul, a, b);
}

// A GPU task whose grid-stride loop covers [0, extent(array 0, dim 0)) with `body(i)`.
Task grid_stride_task(std::string name, const std::function<Stmt(const Var &)> &body) {
  Var i = make_var("i", ScalarType::I64);
  Expr first = Cast::make(
      ScalarType::I64,
      bin(BinaryOp::Add, i32_mul(sreg(Reg::BlockIdx), sreg(Reg::BlockDim)), sreg(Reg::ThreadIdx)));
  Expr stride = Cast::make(ScalarType::I64, i32_mul(sreg(Reg::GridDim), sreg(Reg::BlockDim)));
  return Task{std::move(name),
              TaskKind::Parallel,
              {ArrayExtent::make(0, 0)},
              nullptr,
              nullptr,
              For::make(i, first, ArrayExtent::make(0, 0), stride, body(i)),
              {}};
}

LoweredKernel gpu_saxpy() {
  std::vector<Param> params{array_param("x", ScalarType::F32), array_param("y", ScalarType::F32),
                            scalar_param("a", ScalarType::F32)};
  Task task = grid_stride_task("saxpy_gpu", [&](const Var &i) {
    Expr ax = bin(BinaryOp::Mul, var(params[2].var), load(params, 0, {var(i)}));
    return Store::make(1, {var(i)}, bin(BinaryOp::Add, ax, load(params, 1, {var(i)})));
  });
  return LoweredKernel{"saxpy", params, Target::GPU, {task}};
}

// Math from libdevice in f32 and f64, plus the operations with loom-defined edge cases.
LoweredKernel gpu_math() {
  std::vector<Param> params{array_param("x", ScalarType::F32), array_param("d", ScalarType::F64),
                            array_param("k", ScalarType::I32),
                            array_param("flags", ScalarType::Bool)};
  Task f32_task = grid_stride_task("math_f32", [&](const Var &i) {
    Expr x = load(params, 0, {var(i)});
    Expr e = Call::make(MathFn::Pow, {Call::make(MathFn::Exp, {x}), Call::make(MathFn::Tanh, {x})});
    e = bin(BinaryOp::Add, e, Call::make(MathFn::Log, {Call::make(MathFn::Abs, {x})}));
    e = bin(BinaryOp::Add, e,
            bin(BinaryOp::Mul, Call::make(MathFn::Sin, {x}), Call::make(MathFn::Cos, {x})));
    e = Call::make(MathFn::Fma, {e, Call::make(MathFn::Sqrt, {x}), Call::make(MathFn::Floor, {x})});
    Expr k = load(params, 2, {var(i)});
    Expr ints =
        bin(BinaryOp::Add, bin(BinaryOp::Div, k, Cast::make(ScalarType::I32, e)),
            bin(BinaryOp::Mod, k, bin(BinaryOp::Shr, k, IntConst::make(ScalarType::I32, 35))));
    return Block::make({Store::make(0, {var(i)}, bin(BinaryOp::Max, e, x)),
                        Store::make(2, {var(i)}, ints),
                        Store::make(3, {var(i)}, bin(BinaryOp::Lt, x, e))});
  });
  Task f64_task = grid_stride_task("math_f64", [&](const Var &i) {
    Expr d = load(params, 1, {var(i)});
    Expr e = Call::make(MathFn::Pow, {Call::make(MathFn::Exp, {d}), Call::make(MathFn::Tanh, {d})});
    e = bin(BinaryOp::Add, e, Call::make(MathFn::Log, {d}));
    e = bin(BinaryOp::Sub, e,
            bin(BinaryOp::Mod, Call::make(MathFn::Sin, {d}), Call::make(MathFn::Cos, {d})));
    return Store::make(1, {var(i)}, e);
  });
  return LoweredKernel{"math", params, Target::GPU, {f32_task, f64_task}};
}

std::string find_ptxas() {
  if (std::system("command -v ptxas > /dev/null 2>&1") == 0)
    return "ptxas";
  if (std::filesystem::exists("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda/bin/ptxas";
  return "";
}

// Assembles `ptx` for `sm`; returns ptxas's output when it fails.
testing::AssertionResult assembles(const std::string &ptx, const std::string &sm) {
  std::string base = (std::filesystem::temp_directory_path() /
                      ("loom_codegen_" + std::to_string(getpid()) + "_" + sm))
                         .string();
  std::ofstream(base + ".ptx") << ptx;
  std::string command =
      find_ptxas() + " -arch=" + sm + " " + base + ".ptx -o /dev/null > " + base + ".log 2>&1";
  int status = std::system(command.c_str());
  std::ifstream log_file(base + ".log");
  std::string log((std::istreambuf_iterator<char>(log_file)), std::istreambuf_iterator<char>());
  std::filesystem::remove(base + ".ptx");
  std::filesystem::remove(base + ".log");
  if (status != 0)
    return testing::AssertionFailure() << "ptxas -arch=" << sm << " failed:\n" << log;
  return testing::AssertionSuccess();
}

GpuTarget target(const std::string &sm) {
  GpuTarget t;
  t.sm = sm;
  return t;
}

TEST(codegen_ptx, SaxpyHasEntryVersionAndTarget) {
  std::string ptx = emit_ptx(gpu_saxpy(), target("sm_90"));
  EXPECT_NE(ptx.find(".entry saxpy_gpu"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find(".version 8."), std::string::npos);
  EXPECT_NE(ptx.find(".target sm_90"), std::string::npos);
  EXPECT_NE(ptx.find("%ctaid.x"), std::string::npos);
  EXPECT_NE(ptx.find("ld.global"), std::string::npos) << "arrays should be in global memory";
}

TEST(codegen_ptx, SaxpyAndMathAssembleWithPtxas) {
  if (find_ptxas().empty())
    GTEST_SKIP() << "ptxas not found on PATH or at /usr/local/cuda/bin/ptxas";
  for (const char *sm : {"sm_80", "sm_90"}) {
    std::string saxpy = emit_ptx(gpu_saxpy(), target(sm));
    EXPECT_NE(saxpy.find(std::string(".target ") + sm), std::string::npos);
    EXPECT_TRUE(assembles(saxpy, sm));
    std::string math = emit_ptx(gpu_math(), target(sm));
    EXPECT_NE(math.find(".entry math_f32"), std::string::npos);
    EXPECT_NE(math.find(".entry math_f64"), std::string::npos);
    EXPECT_EQ(math.find(".extern"), std::string::npos) << "libdevice calls left unresolved:\n"
                                                       << math;
    EXPECT_TRUE(assembles(math, sm));
  }
}

TEST(codegen_ptx, TaskThatWaitsForTheGridBeforeItAssemblesForSm90) {
  LoweredKernel k = gpu_saxpy();
  k.tasks[0].waits_for_grid = true;
  std::string ptx = emit_ptx(k, target("sm_90"));
  const size_t wait = ptx.find("griddepcontrol.wait;");
  ASSERT_NE(wait, std::string::npos) << ptx;
  EXPECT_LT(wait, ptx.find("griddepcontrol.launch_dependents;")) << ptx;
  EXPECT_LT(ptx.find("griddepcontrol.launch_dependents;"), ptx.find("ld.global")) << ptx;
  if (find_ptxas().empty())
    GTEST_SKIP() << "ptxas not found on PATH or at /usr/local/cuda/bin/ptxas";
  EXPECT_TRUE(assembles(ptx, "sm_90"));
}

// PTX without the "// callseq N" comments, whose numbers count calls over the target machine's
// life.
std::string without_callseq_comments(const std::string &ptx) {
  std::string out;
  size_t start = 0;
  while (start < ptx.size()) {
    size_t end = ptx.find('\n', start);
    end = end == std::string::npos ? ptx.size() : end + 1;
    std::string line = ptx.substr(start, end - start);
    size_t comment = line.find("// callseq");
    out += comment == std::string::npos ? line : line.substr(0, comment) + "\n";
    start = end;
  }
  return out;
}

TEST(codegen_ptx, EmitsTheSamePtxFromManyThreadsAtOnce) {
  // Threads share the cached target machines (two of them here) and libdevice's bitcode.
  const std::string sms[2] = {"sm_80", "sm_90"};
  const std::string expected[2] = {without_callseq_comments(emit_ptx(gpu_math(), target(sms[0]))),
                                   without_callseq_comments(emit_ptx(gpu_math(), target(sms[1])))};
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < 3; ++r) {
        try {
          std::string ptx = emit_ptx(gpu_math(), target(sms[t % 2]));
          mismatches += without_callseq_comments(ptx) != expected[t % 2];
        } catch (const std::exception &) {
          ++mismatches;
        }
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(mismatches, 0);
}

// GpuTarget::index32: the grid-stride counter compares and steps in 32 bits (64-bit only for the
// address), and the PTX still assembles.
TEST(codegen_ptx, Index32CountsInThirtyTwoBits) {
  GpuTarget t = target("sm_90");
  std::string wide = emit_ptx(gpu_saxpy(), t);
  t.index32 = true;
  std::string narrow = emit_ptx(gpu_saxpy(), t);
  std::regex compare64(R"(setp\.\w+\.s64)"), compare32(R"(setp\.\w+\.s32)");
  EXPECT_TRUE(std::regex_search(wide, compare64)) << wide;
  EXPECT_FALSE(std::regex_search(narrow, compare64)) << narrow;
  EXPECT_TRUE(std::regex_search(narrow, compare32)) << narrow;
  if (!find_ptxas().empty()) {
    EXPECT_TRUE(assembles(narrow, "sm_90"));
  }
}

// y[i] = x[max(i - 1, 0)] + x[min(i + 1, n - 1)]: a stencil's clamped neighbours.
LoweredKernel gpu_clamped_neighbours() {
  std::vector<Param> params{array_param("x", ScalarType::F32), array_param("y", ScalarType::F32)};
  Task task = grid_stride_task("neighbours", [&](const Var &i) {
    auto i64 = [](int64_t v) { return IntConst::make(ScalarType::I64, v); };
    Expr left = bin(BinaryOp::Max, bin(BinaryOp::Sub, var(i), i64(1)), i64(0));
    Expr right = bin(BinaryOp::Min, bin(BinaryOp::Add, var(i), i64(1)),
                     bin(BinaryOp::Sub, ArrayExtent::make(0, 0), i64(1)));
    return Store::make(1, {var(i)},
                       bin(BinaryOp::Add, load(params, 0, {left}), load(params, 0, {right})));
  });
  return LoweredKernel{"neighbours", params, Target::GPU, {task}};
}

// Under 32-bit index arithmetic a clamp of operands that provably fit 32 bits is a 32-bit min or
// max: no 64-bit compare or select is left (each costs ptxas two instructions and conversions).
TEST(codegen_ptx, Index32ClampsInThirtyTwoBits) {
  GpuTarget t = target("sm_90");
  std::string wide = emit_ptx(gpu_clamped_neighbours(), t);
  t.index32 = true;
  std::string narrow = emit_ptx(gpu_clamped_neighbours(), t);
  std::regex select64(R"(selp\.b64)"), select32(R"(selp\.b32)"), compare64(R"(setp\.\w+\.[su]64)");
  EXPECT_TRUE(std::regex_search(wide, select64)) << wide;
  EXPECT_FALSE(std::regex_search(narrow, select64)) << narrow;
  EXPECT_FALSE(std::regex_search(narrow, compare64)) << narrow;
  EXPECT_TRUE(std::regex_search(narrow, select32)) << narrow;
  if (!find_ptxas().empty()) {
    EXPECT_TRUE(assembles(narrow, "sm_90"));
  }
}

// Under 32-bit index arithmetic a comparison of indices that provably fit 32 bits (a guard,
// `if i + 1 < n - 1`) compares in 32 bits; in 64-bit code it stays 64-bit.
TEST(codegen_ptx, Index32ComparesIndicesInThirtyTwoBits) {
  std::vector<Param> params{array_param("x", ScalarType::F32), array_param("y", ScalarType::F32)};
  Task task = grid_stride_task("guarded", [&](const Var &i) {
    auto i64 = [](int64_t v) { return IntConst::make(ScalarType::I64, v); };
    Expr next = bin(BinaryOp::Add, var(i), i64(1));
    Expr inside = bin(BinaryOp::Lt, next, bin(BinaryOp::Sub, ArrayExtent::make(0, 0), i64(1)));
    return IfThenElse::make(inside, Store::make(1, {var(i)}, load(params, 0, {next})));
  });
  LoweredKernel kernel{"guarded", params, Target::GPU, {task}};
  GpuTarget t = target("sm_90");
  const std::string wide = emit_ptx(kernel, t);
  t.index32 = true;
  const std::string narrow = emit_ptx(kernel, t);
  std::regex compare64(R"(setp\.\w+\.[su]64)"), compare32(R"(setp\.\w+\.s32)");
  EXPECT_TRUE(std::regex_search(wide, compare64)) << wide;
  EXPECT_FALSE(std::regex_search(narrow, compare64)) << narrow;
  EXPECT_TRUE(std::regex_search(narrow, compare32)) << narrow;
  if (!find_ptxas().empty()) {
    EXPECT_TRUE(assembles(narrow, "sm_90"));
  }
}

TEST(codegen_ptx, FastMathApproximatesDivisionAndFlushesDenormals) {
  std::vector<Param> params{array_param("x", ScalarType::F32), array_param("y", ScalarType::F32)};
  Task task = grid_stride_task("divide", [&](const Var &i) {
    Expr quotient = bin(BinaryOp::Div, load(params, 0, {var(i)}), load(params, 1, {var(i)}));
    return Store::make(1, {var(i)}, Call::make(MathFn::Exp, {quotient})); // libdevice inlined too
  });
  LoweredKernel kernel{"divide", params, Target::GPU, {task}};
  LoweredKernel fast = kernel;
  fast.fast_math = true;
  std::string precise_ptx = emit_ptx(kernel, target("sm_90")),
              fast_ptx = emit_ptx(fast, target("sm_90"));
  EXPECT_NE(precise_ptx.find("div.rn.f32"), std::string::npos) << precise_ptx;
  EXPECT_EQ(precise_ptx.find("div.approx"), std::string::npos);
  EXPECT_NE(fast_ptx.find("div.approx.ftz.f32"), std::string::npos) << fast_ptx;
  if (!find_ptxas().empty()) {
    EXPECT_TRUE(assembles(fast_ptx, "sm_90"));
  }
}

// fastmath makes f32 sin, cos, exp, log and pow the hardware's approximations (as nvcc's
// -use_fast_math); f64 and the strict kernel keep libdevice's accurate functions. Rounding to an
// integer is one cvt instruction either way.
TEST(codegen_ptx, FastMathUsesTheApproximateFunctions) {
  std::vector<Param> params{array_param("x", ScalarType::F32), array_param("d", ScalarType::F64)};
  Task task = grid_stride_task("approx", [&](const Var &i) {
    Expr x = load(params, 0, {var(i)}), d = load(params, 1, {var(i)});
    Expr e = bin(BinaryOp::Add, Call::make(MathFn::Sin, {x}), Call::make(MathFn::Cos, {x}));
    e = bin(BinaryOp::Add, e, Call::make(MathFn::Log2, {Call::make(MathFn::Exp, {x})}));
    e = bin(BinaryOp::Add, e, Call::make(MathFn::Round, {x}));
    e = bin(BinaryOp::Add, e,
            bin(BinaryOp::Mul, Call::make(MathFn::Ceil, {x}), Call::make(MathFn::Trunc, {x})));
    return Block::make(
        {Store::make(0, {var(i)}, e), Store::make(1, {var(i)}, Call::make(MathFn::Sin, {d}))});
  });
  LoweredKernel kernel{"approx", params, Target::GPU, {task}};
  LoweredKernel fast = kernel;
  fast.fast_math = true;
  std::string precise = emit_ptx(kernel, target("sm_90")), approx = emit_ptx(fast, target("sm_90"));
  EXPECT_EQ(precise.find("sin.approx"), std::string::npos) << precise;
  EXPECT_NE(approx.find("sin.approx.ftz.f32"), std::string::npos) << approx;
  EXPECT_NE(approx.find("cos.approx.ftz.f32"), std::string::npos) << approx;
  EXPECT_NE(approx.find("lg2.approx.ftz.f32"), std::string::npos) << approx;
  EXPECT_NE(approx.find("ex2.approx.ftz.f32"), std::string::npos) << approx;
  for (const std::string *ptx : {&precise, &approx}) {
    for (const char *rounding : {"rni", "rpi", "rzi"}) // round (half to even), ceil, trunc
      EXPECT_TRUE(std::regex_search(
          *ptx, std::regex(std::string("cvt\\.") + rounding + "(\\.ftz)?\\.f32\\.f32")))
          << rounding << "\n"
          << *ptx;
    EXPECT_EQ(ptx->find("sin.approx.f64"), std::string::npos);
    if (!find_ptxas().empty()) {
      EXPECT_TRUE(assembles(*ptx, "sm_90"));
    }
  }
}

TEST(codegen_ptx, ExplicitPtxVersionIsHonouredAndClamped) {
  GpuTarget t = target("sm_80");
  t.ptx_version = 78;
  EXPECT_NE(emit_ptx(gpu_saxpy(), t).find(".version 7.8"), std::string::npos);
  t.ptx_version = 999;
  int max = max_llvm_ptx_version();
  std::string version = ".version " + std::to_string(max / 10) + "." + std::to_string(max % 10);
  EXPECT_NE(emit_ptx(gpu_saxpy(), t).find(version), std::string::npos);
  t = target("sm_90");
  t.ptx_version = 70; // sm_90 needs PTX 7.8
  EXPECT_THROW(emit_ptx(gpu_saxpy(), t), CompileError);
  EXPECT_THROW(emit_ptx(gpu_saxpy(), target("sm_999")), CompileError);
}

TEST(codegen_ptx, MissingLibdeviceNamesFunctionPathAndVariable) {
  GpuTarget t = target("sm_90");
  t.libdevice_path = "/nonexistent/libdevice.10.bc";
  try {
    emit_ptx(gpu_math(), t);
    FAIL() << "expected a CompileError";
  } catch (const CompileError &e) {
    std::string message = e.what();
    EXPECT_NE(message.find("tanh"), std::string::npos) << message;
    EXPECT_NE(message.find("/nonexistent/libdevice.10.bc"), std::string::npos) << message;
    EXPECT_NE(message.find("LOOM_LIBDEVICE"), std::string::npos) << message;
  }
  // A kernel without math needs no libdevice at all.
  EXPECT_NE(emit_ptx(gpu_saxpy(), t).find(".entry saxpy_gpu"), std::string::npos);
}

TEST(codegen_ptx, EmitLlvmForGpu) {
  std::string plain = emit_llvm(gpu_math(), LlvmStage::Unoptimized, target("sm_90"));
  EXPECT_NE(plain.find("define void @math_f32(ptr addrspace(1)"), std::string::npos) << plain;
  EXPECT_NE(plain.find("define void @math_f64("), std::string::npos);
  EXPECT_NE(plain.find("!nvvm.annotations"), std::string::npos);
  EXPECT_NE(plain.find("!\"kernel\""), std::string::npos);
  EXPECT_NE(plain.find("declare float @__nv_tanhf(float)"), std::string::npos);
  // Float % is libdevice's fmod: NVPTX would lower frem to x - y * trunc(x / y), which is wrong
  // once x / y rounds (found by the differential tests).
  EXPECT_NE(plain.find("declare double @__nv_fmod(double, double)"), std::string::npos);
  EXPECT_EQ(plain.find(" frem "), std::string::npos);
  EXPECT_NE(plain.find("llvm.nvvm.read.ptx.sreg.ctaid.x"), std::string::npos);
  EXPECT_NE(plain.find("nvptx64-nvidia-cuda"), std::string::npos);

  std::string optimized = emit_llvm(gpu_math(), LlvmStage::Optimized, target("sm_90"));
  EXPECT_NE(optimized.find("define void @math_f32("), std::string::npos);
  EXPECT_EQ(optimized.find("declare float @__nv_tanhf"), std::string::npos)
      << "libdevice not linked";
  EXPECT_EQ(optimized.find("__nvvm_reflect"), std::string::npos) << "NVVMReflect did not run";
}

// A task whose grid-stride loop over y runs `for k in range(extent of x): y[i] += f(x[k])`.
LoweredKernel gpu_inner_loop(ScalarType t, bool library_call) {
  std::vector<Param> params{array_param("x", t), array_param("y", t)};
  Task task = grid_stride_task("inner", [&](const Var &i) {
    Var k = make_var("k", ScalarType::I64);
    Expr term = load(params, 0, {var(k)});
    if (library_call)
      term = Call::make(MathFn::Exp, {term});
    Stmt body = Store::make(1, {var(i)}, bin(BinaryOp::Add, load(params, 1, {var(i)}), term));
    return For::make(k, IntConst::make(ScalarType::I64, 0), ArrayExtent::make(0, 0),
                     IntConst::make(ScalarType::I64, 1), body);
  });
  return LoweredKernel{"inner", params, Target::GPU, {task}};
}

TEST(codegen_ptx, InnermostLoopsCallingTheLibraryAreUnrolledLess) {
  auto count = [](const LoweredKernel &k) {
    std::string ir = emit_llvm(k, LlvmStage::Unoptimized, target("sm_90"));
    std::smatch m;
    return std::regex_search(ir, m, std::regex("\"llvm.loop.unroll.count\", i32 ([0-9]+)"))
               ? std::stoi(m[1])
               : -1;
  };
  // Four operations and no call; an f32 exp (12) with them: 16 copies are within 320.
  EXPECT_EQ(count(gpu_inner_loop(ScalarType::F64, false)), 16);
  EXPECT_EQ(count(gpu_inner_loop(ScalarType::F32, true)), 16);
  // An f64 exp counts 120: two copies of 124 operations, not 16.
  EXPECT_EQ(count(gpu_inner_loop(ScalarType::F64, true)), 2);
}

TEST(codegen_ptx, SpecialRegistersAreGpuOnlyAndCpuKernelsAreRefused) {
  LoweredKernel cpu = gpu_saxpy();
  cpu.target = Target::CPU;
  EXPECT_THROW(emit_ptx(cpu, target("sm_90")), CompileError);
  EXPECT_THROW(compile_cpu(cpu), CompileError); // SpecialReg on the CPU
}

TEST(codegen_ptx, PtxVersionForDriver) {
  EXPECT_EQ(ptx_version_for_driver(11000), 70);
  EXPECT_EQ(ptx_version_for_driver(11040), 74);
  EXPECT_EQ(ptx_version_for_driver(11080), 78);
  EXPECT_EQ(ptx_version_for_driver(12000), 80);
  EXPECT_EQ(ptx_version_for_driver(12010), 81);
  EXPECT_EQ(ptx_version_for_driver(12020), 82);
  EXPECT_EQ(ptx_version_for_driver(12030), 83);
  EXPECT_EQ(ptx_version_for_driver(12040), 84);
  EXPECT_EQ(ptx_version_for_driver(12050), 85);
  EXPECT_EQ(ptx_version_for_driver(12060), 85);
  EXPECT_EQ(ptx_version_for_driver(12070), 85); // between entries: the lower one
  EXPECT_EQ(ptx_version_for_driver(12080), 87);
  EXPECT_EQ(ptx_version_for_driver(12090), 88);
  EXPECT_EQ(ptx_version_for_driver(13000), 90);
  EXPECT_EQ(ptx_version_for_driver(13020), 90);
  EXPECT_EQ(max_llvm_ptx_version(), 85); // LLVM 19's NVPTX: +ptx85 is the newest feature
}

TEST(codegen_ptx, SmForComputeCapability) {
  EXPECT_EQ(sm_for_compute_capability(7, 5), "sm_75");
  EXPECT_EQ(sm_for_compute_capability(8, 0), "sm_80");
  EXPECT_EQ(sm_for_compute_capability(8, 6), "sm_86");
  EXPECT_EQ(sm_for_compute_capability(8, 9), "sm_89");
  EXPECT_EQ(sm_for_compute_capability(9, 0), "sm_90");
  EXPECT_EQ(sm_for_compute_capability(10, 0), "sm_90"); // newer than LLVM 19 knows: clamped
  EXPECT_EQ(sm_for_compute_capability(12, 0), "sm_90");
}

} // namespace
} // namespace loom::codegen::test
