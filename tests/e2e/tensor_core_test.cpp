// The tile schedule on the tensor cores (ir/TileMma.cpp): matmuls over f16 and bf16 arrays with
// f32 accumulation. The GPU lowering (mma.sync through ir::Mma) runs in the IR interpreter on the
// CPU instance, and every call runs on each target; results are checked against references
// computed in double from the rounded inputs, within f32 accumulation's bound (the tensor cores
// add the exact products in an order of their own). Where the form, the tile or the GPU does not
// allow the tensor cores, the lowering says which condition failed and keeps the FP32 units.
#include "support/TestUtil.h"

#include "ir/Interpreter.h"
#include "ir/Lower.h"
#include "ir/Printer.h"

#include <cmath>
#include <cstring>

using namespace loom;
using loomtest::random_vector;

namespace {

// C = A B, or with the epilogue C = max(alpha * A B + beta * C + bias[j], 0); `transposed` reads
// A as At[k, i] and B as Bt[j, k].
template <class H> Kernel half_matmul(bool epilogue, bool transposed = false) {
  return kernel(
      std::string("matmul_") + (std::is_same_v<H, f16> ? "f16" : "bf16"),
      [=](Array2<H> A, Array2<H> B, Array<float> bias, Array2<float> C, F32 alpha, F32 beta) {
        parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
          Var<float> acc("acc", 0.0f);
          if (transposed)
            for_range(A.dim(0), [&](Index k) { acc += A(k, i) * B(j, k); });
          else
            for_range(A.dim(1), [&](Index k) { acc += A(i, k) * B(k, j); });
          if (epilogue)
            C(i, j) = max(alpha * acc + beta * C(i, j) + bias(j), 0.0f);
          else
            C(i, j) = acc;
        });
      },
      {"A", "B", "bias", "C", "alpha", "beta"});
}

// Random values in [-1, 1] as H, and the floats they are.
template <class H> struct Operand {
  std::vector<H> h;
  std::vector<float> f;
  Operand(size_t n, uint64_t seed) {
    for (float x : random_vector<float>(n, -1, 1, seed)) {
      h.push_back(H(x));
      f.push_back(float(h.back()));
    }
  }
};

// The worst error of C against the double reference, over the bound of an f32 sum of `kk`
// products: kk * 2^-24 * (sum of |products| + |the rest|), which the tensor cores' f32 sums of
// exact products stay within whatever their order.
double worst_error(const std::vector<float> &A, const std::vector<float> &B,
                   const std::vector<float> &bias, const std::vector<float> &C0,
                   const std::vector<float> &C, int64_t m, int64_t n, int64_t kk, bool epilogue,
                   bool transposed, float alpha, float beta) {
  double worst = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double ref = 0, mag = 0;
      for (int64_t p = 0; p < kk; ++p) {
        double a = transposed ? A[p * m + i] : A[i * kk + p];
        double b = transposed ? B[j * kk + p] : B[p * n + j];
        ref += a * b, mag += std::fabs(a * b);
      }
      if (epilogue) {
        double rest = beta * double(C0[i * n + j]) + bias[j];
        mag = std::fabs(alpha) * mag + std::fabs(rest);
        ref = std::max(alpha * ref + rest, 0.0);
      }
      const double bound = double(kk + 3) * 0x1p-24 * mag + 1e-30;
      if (std::isnan(C[i * n + j]))
        return INFINITY;
      worst = std::max(worst, std::fabs(C[i * n + j] - ref) / bound);
    }
  return worst;
}

ir::Buffer buffer(ir::ScalarType t, std::vector<int64_t> shape, const void *data) {
  ir::Buffer b(t, std::move(shape));
  std::memcpy(b.data(), data, b.bytes.size());
  return b;
}

ir::LoweredKernel lower_for(const Kernel &k, const ir::TileSchedule &tile, int sm) {
  ir::Kernel traced = k.ir();
  traced.schedule = ir::with_tile(traced.schedule, tile);
  return ir::lower(traced, ir::Target::GPU, nullptr, {.sm = sm});
}

template <class H>
void check_interpreted(bool epilogue, bool transposed, int64_t m, int64_t n, int64_t kk);

template <class H> void check_interpreted(bool epilogue, bool transposed) {
  // 37 x 45 outputs (edge tiles both ways, rows of 45 elements: every copy element by element),
  // then 64 x 48 x 48 (rows multiples of 8: whole chunks of whole tiles copied 16 bytes at a
  // time, the assumptions checked by the interpreter).
  for (auto [m, n, kk] : {std::array<int64_t, 3>{37, 45, 40}, {64, 48, 48}})
    check_interpreted<H>(epilogue, transposed, m, n, kk);
}

template <class H>
void check_interpreted(bool epilogue, bool transposed, int64_t m, int64_t n, int64_t kk) {
  constexpr ir::ScalarType type =
      std::is_same_v<H, f16> ? ir::ScalarType::F16 : ir::ScalarType::BF16;
  Kernel k = half_matmul<H>(epilogue, transposed);
  Operand<H> A(size_t(m * kk), 81), B(size_t(kk * n), 82);
  std::vector<float> bias = random_vector<float>(size_t(n), -1, 1, 83);
  std::vector<float> C0 = random_vector<float>(size_t(m * n), -1, 1, 84);
  const float alpha = 0.75f, beta = -1.25f;
  for (ir::TileSchedule tile :
       {ir::TileSchedule{32, 32, 4, 4, 16}, ir::TileSchedule{16, 32, 4, 4, 32}}) {
    ir::LoweredKernel gpu = lower_for(k, tile, 90);
    ASSERT_EQ(gpu.tasks.size(), 1u);
    EXPECT_EQ(gpu.tasks[0].tensor_cores.rfind("mma.sync m16n8k16", 0), 0u)
        << gpu.tasks[0].tensor_cores;
    EXPECT_NE(ir::to_string(gpu).find("mma.m16n8k16"), std::string::npos);
    EXPECT_NE(ir::to_string(gpu).find("async_copy"), std::string::npos);
    std::vector<ir::InterpreterArg> args = {
        ir::InterpreterArg::of_array(
            buffer(type, transposed ? std::vector<int64_t>{kk, m} : std::vector<int64_t>{m, kk},
                   A.h.data())),
        ir::InterpreterArg::of_array(
            buffer(type, transposed ? std::vector<int64_t>{n, kk} : std::vector<int64_t>{kk, n},
                   B.h.data())),
        ir::InterpreterArg::of_array(buffer(ir::ScalarType::F32, {n}, bias.data())),
        ir::InterpreterArg::of_array(buffer(ir::ScalarType::F32, {m, n}, C0.data())),
        ir::InterpreterArg::of_scalar(ir::float_value(ir::ScalarType::F32, alpha)),
        ir::InterpreterArg::of_scalar(ir::float_value(ir::ScalarType::F32, beta))};
    ir::InterpreterOptions options;
    options.gpu_grid = {3, 1, 1};
    ir::interpret(gpu, args, options);
    std::vector<float> C(size_t(m * n));
    std::memcpy(C.data(), args[3].array.data(), C.size() * sizeof(float));
    EXPECT_LE(worst_error(A.f, B.f, bias, C0, C, m, n, kk, epilogue, transposed, alpha, beta), 1.0)
        << "tile " << tile.rows << "x" << tile.cols << " depth " << tile.depth << ", " << m << "x"
        << n << "x" << kk;
  }
}

TEST(TensorCoreInterpreter, F16MatmulWithinTheBoundOfF32Sums) {
  check_interpreted<f16>(false, false);
}
TEST(TensorCoreInterpreter, Bf16EpilogueAndTransposedOperands) {
  check_interpreted<bf16>(true, false);
  check_interpreted<bf16>(false, true);
  check_interpreted<f16>(true, true);
}

// f32 rounded to TF32, computed here apart from loom's: 11 significant bits, ties away from zero
// (std::round), for the normal values the tests use.
double tf32(float x) {
  if (x == 0)
    return x;
  const double unit = std::ldexp(1.0, std::ilogb(x) - 10);
  return std::round(double(x) / unit) * unit;
}

// C = A B of f32 arrays; `transposed` reads A as At[k, i] and B as Bt[j, k].
Kernel f32_matmul(bool transposed = false) {
  return kernel("matmul_f32",
                [=](Array2<float> A, Array2<float> B, Array2<float> C) {
                  parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
                    Var<float> acc("acc", 0.0f);
                    if (transposed)
                      for_range(A.dim(0), [&](Index k) { acc += A(k, i) * B(j, k); });
                    else
                      for_range(A.dim(1), [&](Index k) { acc += A(i, k) * B(k, j); });
                    C(i, j) = acc;
                  });
                },
                {"A", "B", "C"});
}

// TF32 (allowed): the tensor cores read each f32 rounded to TF32, so the result is within the
// bound of f32 sums of the rounded inputs' exact products; unrounded inputs would be ~2^-11 off,
// far outside it. Both layouts of the copies (rows of 37 elements, and of multiples of 4).
TEST(TensorCoreInterpreter, Tf32RoundsEachInputThenSumsInF32) {
  Kernel k = f32_matmul();
  k.allow_tf32();
  for (auto [m, n, kk] : {std::array<int64_t, 3>{37, 45, 37}, {64, 48, 48}}) {
    std::vector<float> A = random_vector<float>(size_t(m * kk), -1, 1, 71),
                       B = random_vector<float>(size_t(kk * n), -1, 1, 72);
    std::vector<float> Ar, Br, bias(size_t(n), 0.0f), C0(size_t(m * n), 0.0f);
    for (float x : A)
      Ar.push_back(float(tf32(x)));
    for (float x : B)
      Br.push_back(float(tf32(x)));
    ir::Kernel traced = k.ir();
    traced.schedule = ir::with_tile(traced.schedule, {32, 32, 4, 4, 16});
    ir::LoweredKernel gpu = ir::lower(traced, ir::Target::GPU, nullptr, {.sm = 80});
    ASSERT_EQ(gpu.tasks[0].tensor_cores.rfind("mma.sync m16n8k8, f32 read as TF32", 0), 0u)
        << gpu.tasks[0].tensor_cores;
    EXPECT_NE(ir::to_string(gpu).find("mma.m16n8k16.tf32"), std::string::npos);
    std::vector<ir::InterpreterArg> args = {
        ir::InterpreterArg::of_array(buffer(ir::ScalarType::F32, {m, kk}, A.data())),
        ir::InterpreterArg::of_array(buffer(ir::ScalarType::F32, {kk, n}, B.data())),
        ir::InterpreterArg::of_array(buffer(ir::ScalarType::F32, {m, n}, C0.data()))};
    ir::InterpreterOptions options;
    options.gpu_grid = {2, 1, 1};
    ir::interpret(gpu, args, options);
    std::vector<float> C(size_t(m * n));
    std::memcpy(C.data(), args[2].array.data(), C.size() * sizeof(float));
    EXPECT_LE(worst_error(Ar, Br, bias, C0, C, m, n, kk, false, false, 1, 0), 1.0)
        << m << "x" << n << "x" << kk;
    // And the unrounded inputs' product is not what came out.
    EXPECT_GT(worst_error(A, B, bias, C0, C, m, n, kk, false, false, 1, 0), 4.0);
  }
}

// What the 16-bit kernels' epilogue reads: `bias`, C's `C0`, alpha and beta (without one: zeros,
// 1 and 0).
struct Epilogue {
  std::vector<float> bias, C0;
  float alpha = 1, beta = 0;
};

// Hopper's warp-specialized tiles (ir/TileWgmma.cpp) in the interpreter: the producer warpgroup,
// its memory barriers, the raw slots of TF32 and the warpgroup products run on the CPU, at shapes
// with edge tiles (130 x 260 x 40: zero-filled chunks, rows of odd lengths) and whole ones.
template <class H>
std::vector<float> run_wgmma_interpreted(const Kernel &k, const ir::TileSchedule &tile,
                                         bool transposed, int64_t m, int64_t n, int64_t kk,
                                         const std::vector<H> &A, const std::vector<H> &B,
                                         const Epilogue *epilogue = nullptr) {
  constexpr ir::ScalarType type = std::is_same_v<H, f16>    ? ir::ScalarType::F16
                                  : std::is_same_v<H, bf16> ? ir::ScalarType::BF16
                                                            : ir::ScalarType::F32;
  ir::LoweredKernel gpu = lower_for(k, tile, 90);
  EXPECT_EQ(gpu.tasks[0].tensor_cores.rfind("wgmma", 0), 0u) << gpu.tasks[0].tensor_cores;
  std::vector<float> bias = epilogue ? epilogue->bias : std::vector<float>(size_t(n), 0.0f),
                     C = epilogue ? epilogue->C0 : std::vector<float>(size_t(m * n), 0.0f);
  std::vector<ir::InterpreterArg> args = {
      ir::InterpreterArg::of_array(buffer(
          type, transposed ? std::vector<int64_t>{kk, m} : std::vector<int64_t>{m, kk}, A.data())),
      ir::InterpreterArg::of_array(buffer(
          type, transposed ? std::vector<int64_t>{n, kk} : std::vector<int64_t>{kk, n}, B.data()))};
  if (type != ir::ScalarType::F32)
    args.push_back(ir::InterpreterArg::of_array(buffer(ir::ScalarType::F32, {n}, bias.data())));
  args.push_back(ir::InterpreterArg::of_array(buffer(ir::ScalarType::F32, {m, n}, C.data())));
  if (type != ir::ScalarType::F32) {
    args.push_back(ir::InterpreterArg::of_scalar(
        ir::float_value(ir::ScalarType::F32, epilogue ? epilogue->alpha : 1.0)));
    args.push_back(ir::InterpreterArg::of_scalar(
        ir::float_value(ir::ScalarType::F32, epilogue ? epilogue->beta : 0.0)));
  }
  ir::InterpreterOptions options;
  options.gpu_grid = {3, 1, 1}; // fewer blocks than tiles: a block takes a second tile
  ir::interpret(gpu, args, options);
  std::memcpy(C.data(), args[type != ir::ScalarType::F32 ? 3 : 2].array.data(),
              C.size() * sizeof(float));
  return C;
}

TEST(TensorCoreInterpreter, WarpgroupTilesRunWithTheirProducer) {
  for (auto [m, n, kk] : {std::array<int64_t, 3>{130, 260, 40}, {128, 256, 64}})
    for (bool transposed : {false, true}) {
      Operand<f16> A(size_t(m * kk), uint64_t(m + kk)), B(size_t(kk * n), uint64_t(n + kk));
      std::vector<float> zeros(size_t(m * n), 0.0f), none(size_t(n), 0.0f);
      // The producer (4 stages) and, two blocks an SM, every warpgroup copying (3 stages).
      for (ir::TileSchedule tile :
           {ir::TileSchedule{128, 256, 8, 16, 64}, ir::TileSchedule{128, 128, 8, 8, 64, 2}}) {
        Kernel k = half_matmul<f16>(false, transposed);
        std::vector<float> C = run_wgmma_interpreted<f16>(k, tile, transposed, m, n, kk, A.h, B.h);
        EXPECT_LE(worst_error(A.f, B.f, none, zeros, C, m, n, kk, false, transposed, 1, 0), 1.0)
            << "f16, tile " << tile.rows << "x" << tile.cols << ", " << m << "x" << n << "x" << kk
            << (transposed ? " transposed" : "");
      }
      // The epilogue on whole and edge tiles: a random bias and C, alpha and beta, ReLU.
      Epilogue e{random_vector<float>(size_t(n), -1, 1, uint64_t(n + 3)),
                 random_vector<float>(size_t(m * n), -1, 1, uint64_t(m + 3)), 1.5f, -0.75f};
      Kernel k = half_matmul<f16>(true, transposed);
      std::vector<float> C = run_wgmma_interpreted<f16>(k, ir::TileSchedule{128, 256, 8, 16, 64},
                                                        transposed, m, n, kk, A.h, B.h, &e);
      EXPECT_LE(worst_error(A.f, B.f, e.bias, e.C0, C, m, n, kk, true, transposed, e.alpha, e.beta),
                1.0)
          << "f16 + bias + ReLU, " << m << "x" << n << "x" << kk
          << (transposed ? " transposed" : "");
      // TF32: the raw slots, rounded shared to shared (B[k, j], or A[k, i], transposed).
      std::vector<float> Af = random_vector<float>(size_t(m * kk), -1, 1, uint64_t(m + 7)),
                         Bf = random_vector<float>(size_t(kk * n), -1, 1, uint64_t(n + 7));
      std::vector<float> Ar = Af, Br = Bf;
      for (float &x : Ar)
        x = float(tf32(x));
      for (float &x : Br)
        x = float(tf32(x));
      for (ir::TileSchedule tile :
           {ir::TileSchedule{128, 256, 8, 16, 32}, ir::TileSchedule{256, 128, 16, 8, 32}}) {
        Kernel k = f32_matmul(transposed);
        k.allow_tf32();
        std::vector<float> C = run_wgmma_interpreted<float>(k, tile, transposed, m, n, kk, Af, Bf);
        EXPECT_LE(worst_error(Ar, Br, none, zeros, C, m, n, kk, false, transposed, 1, 0), 1.0)
            << "tf32, tile " << tile.rows << "x" << tile.cols << ", " << m << "x" << n << "x" << kk
            << (transposed ? " transposed" : "");
        EXPECT_GT(worst_error(Af, Bf, none, zeros, C, m, n, kk, false, transposed, 1, 0), 4.0);
      }
    }
}

// Where the tensor cores cannot run the loop, the task says why and the FP32 tile runs it.
TEST(TensorCoreLowering, SaysWhichConditionFailed) {
  auto why = [](const Kernel &k, const ir::TileSchedule &tile, int sm) {
    return lower_for(k, tile, sm).tasks[0].tensor_cores;
  };
  const ir::TileSchedule good{128, 128, 8, 8, 32};
  EXPECT_EQ(why(f32_matmul(), {128, 128, 8, 8, 16}, 90),
            "not used: the product's arrays are f32; the tensor cores read f32 as TF32 (10 "
            "significand bits) only when the kernel allows it: @kernel(tf32=True), "
            "Kernel::allow_tf32()");
  Kernel mixed = kernel("matmul_mixed",
                        [](Array2<f16> A, Array2<float> B, Array2<float> C) {
                          parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
                            Var<float> acc("acc", 0.0f);
                            for_range(A.dim(1), [&](Index k) { acc += A(i, k) * B(k, j); });
                            C(i, j) = acc;
                          });
                        },
                        {"A", "B", "C"});
  EXPECT_EQ(why(mixed, good, 90),
            "not used: the product's arrays are f16 and f32; the tensor cores take two f16, two "
            "bf16 or (TF32) two f32 arrays");
  Kernel h = half_matmul<f16>(false);
  EXPECT_EQ(why(h, good, 75), "not used: the GPU is sm_75; mma.sync needs sm_80 or later");
  EXPECT_EQ(why(h, good, 0), "not used: the GPU's architecture is not known");
  EXPECT_EQ(why(h, {128, 128, 8, 8, 8}, 90),
            "not used: the depth 8 is not a positive multiple of 16, the k of one mma");
  EXPECT_EQ(why(h, {24, 16, 4, 4, 16}, 90), "not used: the tile's 24 threads are not whole warps");
  EXPECT_EQ(why(h, {16, 8, 1, 1, 16}, 90),
            "not used: the 16 x 8 tile does not split among 4 warps into blocks of whole 16 x 8 "
            "products");
  EXPECT_EQ(why(h, {128, 128, 16, 16, 16}, 90),
            "not used: each thread would keep 256 accumulators (at most 128); use more threads "
            "or a smaller tile");
  Kernel f64_acc =
      kernel("matmul_f64_acc",
             [](Array2<f16> A, Array2<f16> B, Array2<double> C) {
               parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
                 Var<double> acc("acc", 0.0);
                 for_range(A.dim(1), [&](Index k) { acc += cast<double>(A(i, k) * B(k, j)); });
                 C(i, j) = acc;
               });
             },
             {"A", "B", "C"});
  EXPECT_EQ(why(f64_acc, good, 90),
            "not used: the accumulator 'acc' is f64; the tensor cores accumulate in f32");
}

template <class F> void expect_compile_error(F f, const std::string &message) {
  try {
    f();
    ADD_FAILURE() << "expected a CompileError: " << message;
  } catch (const CompileError &e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

// tensor_cores=True: what does not allow them is a CompileError saying which condition failed,
// except a GPU without them, which keeps the FP32 tile; tensor_cores=False keeps the FP32 tile.
TEST(TensorCoreLowering, ARequestThatCannotBeMetIsACompileError) {
  auto lower = [](const Kernel &k, ir::TileSchedule tile, ir::TensorCores use, int sm) {
    tile.tensor_cores = use;
    return lower_for(k, tile, sm);
  };
  Kernel h = half_matmul<f16>(false);
  const ir::TileSchedule good{128, 128, 8, 8, 32};
  EXPECT_EQ(lower(h, good, ir::TensorCores::Required, 90).tasks[0].tensor_cores.rfind("mma", 0),
            0u);
  EXPECT_EQ(lower(h, good, ir::TensorCores::Off, 90).tasks[0].tensor_cores,
            "not used: the schedule turns them off (tensor_cores=False)");
  EXPECT_EQ(lower(h, good, ir::TensorCores::Required, 75).tasks[0].tensor_cores,
            "not used: the GPU is sm_75; mma.sync needs sm_80 or later");
  expect_compile_error(
      [&] {
        lower(h, {128, 128, 8, 8, 8}, ir::TensorCores::Required, 90);
      },
      "kernel 'matmul_f16': the tile schedule requires the tensor cores (tensor_cores=True), but "
      "the depth 8 is not a positive multiple of 16, the k of one mma");
  expect_compile_error(
      [&] { lower(f32_matmul(), good, ir::TensorCores::Required, 80); },
      "kernel 'matmul_f32': the tile schedule requires the tensor cores (tensor_cores=True), but "
      "the product's arrays are f32; the tensor cores read f32 as TF32 (10 significand bits) "
      "only when the kernel allows it: @kernel(tf32=True), Kernel::allow_tf32()");
  // The text DSL's options, and a kernel not of the matmul form under the request.
  Module m = compile(R"(
@kernel(tile=(64, 64), thread_tile=(4, 4), stage=16, tensor_cores=True, tf32=True)
def mm(A: f32[m, p], B: f32[p, n], C: f32[m, n]):
    for i, j in parallel(m, n):
        acc = f32(0.0)
        for k in range(p):
            acc += A[i, k] * B[k, j]
        C[i, j] = acc

@kernel(tile=(64, 64), thread_tile=(4, 4), stage=16, tensor_cores=True)
def add(A: f16[m, n], C: f32[m, n]):
    for i, j in parallel(m, n):
        C[i, j] = f32(A[i, j]) * 2.0
)");
  ir::LoweredKernel mm = ir::lower(m["mm"].ir(), ir::Target::GPU, nullptr, {.sm = 90});
  EXPECT_EQ(mm.tasks[0].tensor_cores.rfind("mma.sync m16n8k8, f32 read as TF32", 0), 0u);
  expect_compile_error(
      [&] { ir::lower(m["add"].ir(), ir::Target::GPU, nullptr, {.sm = 90}); },
      "kernel 'add': the tile schedule requires the tensor cores (tensor_cores=True), but the "
      "iteration has no inner range loop");
}

// sm_90: a tile of whole warpgroups whose operands read along k are staged 64 steps deep runs
// on wgmma, its stages in dynamic shared memory; other tiles keep mma.sync and say why not.
TEST(TensorCoreLowering, WarpgroupInstructionsOnSm90) {
  Kernel h = half_matmul<f16>(true), t = half_matmul<bf16>(false, true);
  ir::LoweredKernel wide = lower_for(h, {128, 256, 8, 16, 64}, 90);
  EXPECT_EQ(wide.tasks[0].tensor_cores,
            "wgmma m64n256k16 (sm_90a), f16 products into f32: 2 x 1 warpgroups, each 1 product "
            "of 64 x 256 per 16 steps of k; 4 stages of 64 steps in 196672 bytes of dynamic "
            "shared memory (A staged along k, B along its rows or columns, 128-byte swizzle), "
            "cp.async copies by a producer warpgroup, handed over through mbarriers");
  // The stages, then each stage's two memory barriers; a third warpgroup copies, and the launch
  // bound (one block an SM) leaves each of the 384 threads 168 registers.
  EXPECT_EQ(wide.tasks[0].dynamic_shared_bytes, 4 * (128 + 256) * 64 * 2 + 4 * 2 * 8);
  EXPECT_EQ(wide.tasks[0].threads, 384);
  EXPECT_EQ(wide.tasks[0].tile.min_blocks, 1);
  EXPECT_TRUE(wide.tasks[0].persistent); // one wave of blocks: the producer runs into the next tile
  EXPECT_TRUE(wide.tasks[0].arch_specific);
  // Two blocks an SM: three stages of 32 KiB each; 384 threads would leave each 80 registers,
  // too few for 64 accumulators and the rest: no producer, every warpgroup copies.
  ir::LoweredKernel two = lower_for(h, {128, 128, 8, 8, 64, 2}, 90);
  EXPECT_EQ(two.tasks[0].dynamic_shared_bytes, 3 * (128 + 128) * 64 * 2);
  EXPECT_EQ(two.tasks[0].threads, 256);
  EXPECT_EQ(two.tasks[0].tensor_cores.find("producer"), std::string::npos);
  EXPECT_FALSE(two.tasks[0].persistent);
  // 64 x 128 with four blocks an SM: two stages, each chunk's products waited for.
  ir::LoweredKernel pair = lower_for(h, {64, 128, 4, 16, 64, 4}, 90);
  EXPECT_EQ(pair.tasks[0].dynamic_shared_bytes, 2 * (64 + 128) * 64 * 2);
  EXPECT_EQ(ir::to_string(pair).find("wgmma.wait 0"), std::string::npos);
  // A launch bound whose registers cannot hold the accumulators: mma.sync.
  EXPECT_NE(lower_for(h, {64, 64, 4, 8, 64, 16}, 90)
                .tasks[0]
                .tensor_cores.find("; not wgmma: with 16 blocks an SM a thread has 32 registers, "
                                   "fewer than its 32 accumulators and 32 others need"),
            std::string::npos)
      << lower_for(h, {64, 64, 4, 8, 64, 16}, 90).tasks[0].tensor_cores;
  // A[k, i] and B[j, k]: A along its rows, B along k; 256 x 128 in two products a warpgroup.
  EXPECT_EQ(lower_for(t, {256, 128, 16, 8, 64}, 90)
                .tasks[0]
                .tensor_cores.rfind("wgmma m64n128k16 (sm_90a), bf16 products into f32: 2 x 1 "
                                    "warpgroups, each 2 products of 64 x 128",
                                    0),
            0u);
  // Where it does not apply: mma.sync, saying why not.
  EXPECT_EQ(lower_for(h, {128, 128, 8, 8, 32}, 90).tasks[0].tensor_cores,
            "mma.sync m16n8k16, f16 products into f32: 2 x 4 warps, each a 64 x 32 block (4 x 4 "
            "products of 16 x 8) per 32 steps of k; not wgmma: an operand read along k (A[i, k] "
            "or B[j, k]) is staged in rows of 64 steps of k (128 swizzled bytes), and the depth "
            "is 32, not 64");
  EXPECT_NE(
      lower_for(h, {64, 64, 8, 8, 64}, 90)
          .tasks[0]
          .tensor_cores.find("not wgmma: the tile's 64 threads are not whole warpgroups of 128"),
      std::string::npos);
  EXPECT_NE(lower_for(h, {64, 64, 4, 8, 64, 8}, 90)
                .tasks[0]
                .tensor_cores.find("; not wgmma: two stages of the tile take 32768 bytes of "
                                   "shared memory, more than the 28160 a block has with 8 blocks "
                                   "an SM"),
            std::string::npos)
      << lower_for(h, {64, 64, 4, 8, 64, 8}, 90).tasks[0].tensor_cores;
  ir::LoweredKernel ampere = lower_for(h, {128, 256, 8, 16, 64}, 80);
  EXPECT_EQ(ampere.tasks[0].tensor_cores.find("wgmma"), std::string::npos);
  EXPECT_FALSE(ampere.tasks[0].arch_specific);
  EXPECT_EQ(ampere.tasks[0].dynamic_shared_bytes, 0);
}

// TF32 on wgmma: f32 stages of 32 steps of k (128 bytes), both operands along k, a producer
// warpgroup that rounds every element as it copies (transposing B[k, j] in blocks of 4 x 4).
TEST(TensorCoreLowering, WarpgroupTf32OnSm90) {
  Kernel k = f32_matmul();
  k.allow_tf32();
  ir::LoweredKernel wide = lower_for(k, {128, 256, 8, 16, 32}, 90);
  EXPECT_EQ(wide.tasks[0].tensor_cores,
            "wgmma m64n256k8 (sm_90a), f32 read as TF32 products into f32: 2 x 1 warpgroups, "
            "each 1 product of 64 x 256 per 8 steps of k; 2 stages of 32 steps in 196672 bytes "
            "of dynamic shared memory (A staged along k, B along k, 128-byte swizzle), cp.async "
            "copies into 2 raw slots, rounded to TF32 and staged along k by a producer "
            "warpgroup, handed over through mbarriers");
  // Two stages and two raw slots of 48 KiB, then 2 barriers each.
  EXPECT_EQ(wide.tasks[0].dynamic_shared_bytes, 4 * (128 + 256) * 32 * 4 + 8 * 8);
  EXPECT_EQ(wide.tasks[0].threads, 384);
  EXPECT_TRUE(wide.tasks[0].persistent);
  const std::string printed = ir::to_string(wide);
  EXPECT_NE(printed.find("wgmma.m64n256k8.tf32 x 4 steps of k, A k-major lbo 16 sbo 1024, B "
                         "k-major lbo 16 sbo 1024"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("round_tf32"), std::string::npos);
  EXPECT_NE(printed.find("async_copy"), std::string::npos);
  EXPECT_NE(printed.find("async proxy fence"), std::string::npos); // no wait for the copies ahead
  // Where TF32 cannot run on wgmma: mma.sync, saying why not.
  EXPECT_NE(lower_for(k, {128, 128, 8, 8, 16}, 90)
                .tasks[0]
                .tensor_cores.find("not wgmma: TF32 stages both operands along k in rows of 32 "
                                   "steps of k (128 swizzled bytes), and the depth is 16, not 32"),
            std::string::npos);
  // Eight blocks an SM: a fifth warpgroup would leave 32 registers a thread.
  EXPECT_NE(lower_for(k, {64, 64, 4, 8, 32, 8}, 90)
                .tasks[0]
                .tensor_cores.find("not wgmma: TF32 needs a producer warpgroup (to round the "
                                   "operands and stage them along k), and 256 threads leave 32 "
                                   "registers a thread, fewer than 64"),
            std::string::npos);
}

class TensorCore : public loomtest::TargetTest {};

// Calls on each target (the CPU runs the FP32 tile; its instance also assembles the tensor-core
// PTX), at shapes that are not multiples of the tile, with and without the epilogue.
template <class H> void check_calls(ir::Target target, bool epilogue) {
  Kernel k = half_matmul<H>(epilogue);
  k.tile({128, 128, 8, 8, 32});
  k.on(target);
  std::vector<std::array<int64_t, 3>> shapes = {{300, 200, 170}, {129, 257, 64}, {1, 3, 1}};
  if (target == ir::Target::GPU)
    shapes.push_back({1000, 3000, 700});
  for (auto [m, n, kk] : shapes) {
    Operand<H> A(size_t(m * kk), uint64_t(90 + m)), B(size_t(kk * n), uint64_t(91 + n));
    std::vector<float> bias = random_vector<float>(size_t(n), -1, 1, 92);
    std::vector<float> C0 = random_vector<float>(size_t(m * n), -1, 1, 93), C = C0;
    k(view(A.h, {m, kk}), view(B.h, {kk, n}), bias, view(C, {m, n}), 1.5f, 0.5f);
    EXPECT_LE(worst_error(A.f, B.f, bias, C0, C, m, n, kk, epilogue, false, 1.5f, 0.5f), 1.0)
        << m << "x" << n << "x" << kk;
  }
  if (target == ir::Target::GPU)
    EXPECT_NE(k.explain().find("tile on the tensor cores, mma.sync m16n8k16"), std::string::npos)
        << k.explain();
}

TEST_P(TensorCore, F16Matmul) {
  if (target() == ir::Target::CPU) {
    Kernel k = half_matmul<f16>(true);
    k.tile({128, 128, 8, 8, 32});
    prepare(k); // assembles the PTX (mma.sync, ldmatrix) with ptxas
  }
  check_calls<f16>(target(), false);
  check_calls<f16>(target(), true);
}

TEST_P(TensorCore, Bf16Matmul) {
  check_calls<bf16>(target(), false);
  check_calls<bf16>(target(), true);
}

// allow_tf32(): the GPU reads the f32 arrays as TF32 (within the bound of the rounded inputs'
// products); the CPU runs the FP32 tile (within the bound of the inputs' own). Both layouts of
// each operand: A row-major and B k-major (ldmatrix for A, element loads for B), then the reverse.
TEST_P(TensorCore, Tf32Matmul) {
  for (bool transposed : {false, true}) {
    Kernel k = f32_matmul(transposed);
    k.allow_tf32().tile({128, 128, 8, 8, 16});
    if (target() == ir::Target::CPU)
      prepare(k); // assembles the PTX (mma.sync m16n8k8 tf32, cvt.rna.tf32.f32) with ptxas
    k.on(target());
    for (auto [m, n, kk] : {std::array<int64_t, 3>{300, 200, 172}, {256, 256, 256}}) {
      std::vector<float> A = random_vector<float>(size_t(m * kk), -1, 1, uint64_t(60 + m)),
                         B = random_vector<float>(size_t(kk * n), -1, 1, uint64_t(61 + n)),
                         C(size_t(m * n)), zeros(size_t(std::max(m * n, n)), 0.0f);
      k(view(A, transposed ? std::vector<int64_t>{kk, m} : std::vector<int64_t>{m, kk}),
        view(B, transposed ? std::vector<int64_t>{n, kk} : std::vector<int64_t>{kk, n}),
        view(C, {m, n}));
      std::vector<float> Ar = A, Br = B;
      if (target() == ir::Target::GPU) {
        for (float &x : Ar)
          x = float(tf32(x));
        for (float &x : Br)
          x = float(tf32(x));
      }
      EXPECT_LE(worst_error(Ar, Br, zeros, zeros, C, m, n, kk, false, transposed, 1, 0), 1.0)
          << m << "x" << n << "x" << kk << (transposed ? " transposed" : "");
    }
    if (target() == ir::Target::GPU)
      EXPECT_NE(k.explain().find("tile on the tensor cores, mma.sync m16n8k8, f32 read as TF32"),
                std::string::npos)
          << k.explain();
  }
}

// TF32 on Hopper's wgmma (sm_90; elsewhere mma.sync or the FP32 tile): both layouts of each
// operand, rows that are multiples of 16 bytes (16-byte loads) and not (element loads), tiles at
// the loops' ends, two tiles. Against a double reference of the TF32-rounded inputs on the GPU,
// of the inputs themselves on the CPU. The CPU instance assembles the sm_90a PTX with ptxas.
TEST_P(TensorCore, WarpgroupTf32Matmul) {
  const std::vector<ir::TileSchedule> tiles = {{128, 256, 8, 16, 32}, {256, 128, 16, 8, 32}};
  const bool hopper =
      target() == ir::Target::GPU && runtime::GpuContext::get().info().cc_major == 9;
  for (bool transposed : {false, true})
    for (const ir::TileSchedule &tile : tiles) {
      Kernel k = f32_matmul(transposed);
      k.allow_tf32().tile(tile);
      if (target() == ir::Target::CPU && !transposed) {
        // On sm_80 the tile is too large for mma.sync's TF32 stages (a CompileError).
        loomtest::expect_ptx_assembles(k, {"sm_90"});
        const std::string ptx = k.ptx("sm_90");
        EXPECT_NE(ptx.find("wgmma.mma_async.sync.aligned.m64n" + std::to_string(tile.cols) +
                           "k8.f32.tf32.tf32"),
                  std::string::npos);
        EXPECT_NE(ptx.find("cp.async.cg.shared.global"), std::string::npos); // 16-byte copies
        EXPECT_NE(ptx.find("ld.shared.v4"), std::string::npos); // the rounding's 16-byte accesses
        EXPECT_NE(ptx.find("st.shared.v4"), std::string::npos);
        EXPECT_NE(ptx.find("cvt.rna.tf32.f32"), std::string::npos);
      }
      k.on(target());
      std::vector<std::array<int64_t, 3>> shapes = {
          {300, 200, 172}, {256, 512, 192}, {130, 260, 70}};
      if (target() == ir::Target::GPU)
        shapes.push_back({1000, 3000, 700});
      for (auto [m, n, kk] : shapes) {
        const uint64_t seed = uint64_t(m + n + kk + tile.rows + (transposed ? 1 : 0));
        std::vector<float> A = random_vector<float>(size_t(m * kk), -1, 1, seed),
                           B = random_vector<float>(size_t(kk * n), -1, 1, seed + 1),
                           C(size_t(m * n)), zeros(size_t(std::max(m * n, n)), 0.0f);
        k(view(A, transposed ? std::vector<int64_t>{kk, m} : std::vector<int64_t>{m, kk}),
          view(B, transposed ? std::vector<int64_t>{n, kk} : std::vector<int64_t>{kk, n}),
          view(C, {m, n}));
        std::vector<float> Ar = A, Br = B;
        if (target() == ir::Target::GPU) {
          for (float &x : Ar)
            x = float(tf32(x));
          for (float &x : Br)
            x = float(tf32(x));
        }
        EXPECT_LE(worst_error(Ar, Br, zeros, zeros, C, m, n, kk, false, transposed, 1, 0), 1.0)
            << tile.rows << "x" << tile.cols << ": " << m << "x" << n << "x" << kk
            << (transposed ? " transposed" : "");
        if (hopper && kk < 256) // and the unrounded inputs' product is not what came out
          EXPECT_GT(worst_error(A, B, zeros, zeros, C, m, n, kk, false, transposed, 1, 0), 4.0);
      }
      if (hopper)
        EXPECT_NE(k.explain().find("f32 read as TF32 products into f32"), std::string::npos)
            << k.explain();
    }
}

// Hopper's wgmma (sm_90 GPUs; elsewhere the tile runs mma.sync or the FP32 units, and the
// results are the same within the bound): f16 and bf16, both layouts of each operand, the
// epilogue, shapes that are not multiples of the tile or of the depth, tiles of 2 or 3 stages,
// one or two products a warpgroup. The CPU instance assembles the sm_90a PTX with ptxas.
// One call of the (epilogue) matmul over H arrays, checked against the double reference.
template <class H>
void check_call(Kernel &k, int64_t m, int64_t n, int64_t kk, bool epilogue, bool transposed,
                uint64_t seed) {
  Operand<H> A(size_t(m * kk), seed), B(size_t(kk * n), seed + 1);
  std::vector<float> bias = random_vector<float>(size_t(n), -1, 1, seed + 2);
  std::vector<float> C0 = random_vector<float>(size_t(m * n), -1, 1, seed + 3), C = C0;
  k(view(A.h, transposed ? std::vector<int64_t>{kk, m} : std::vector<int64_t>{m, kk}),
    view(B.h, transposed ? std::vector<int64_t>{n, kk} : std::vector<int64_t>{kk, n}), bias,
    view(C, {m, n}), 1.5f, 0.5f);
  EXPECT_LE(worst_error(A.f, B.f, bias, C0, C, m, n, kk, epilogue, transposed, 1.5f, 0.5f), 1.0)
      << k.name() << " " << m << "x" << n << "x" << kk << (transposed ? " transposed" : "");
}

TEST_P(TensorCore, WarpgroupMatmul) {
  // Four stages; three (2 blocks an SM); four, two products a warpgroup; two (4 blocks an SM:
  // each chunk's products waited for before the next copies).
  const std::vector<ir::TileSchedule> tiles = {{128, 256, 8, 16, 64},
                                               {128, 128, 8, 8, 64, 2},
                                               {256, 128, 16, 8, 64},
                                               {64, 128, 4, 16, 64, 4}};
  if (target() == ir::Target::CPU) {
    Kernel k = half_matmul<f16>(true);
    k.tile(tiles[0]);
    prepare(k);
    std::string ptx = k.ptx("sm_90");
    EXPECT_NE(ptx.find("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16"), std::string::npos);
    EXPECT_NE(ptx.find(".target sm_90a"), std::string::npos);
  }
  const bool hopper =
      target() == ir::Target::GPU && runtime::GpuContext::get().info().cc_major == 9;
  int run = 0;
  for (bool transposed : {false, true})
    for (const ir::TileSchedule &tile : tiles) {
      const bool epilogue = run++ % 2 == 0;
      Kernel f = half_matmul<f16>(epilogue, transposed),
             b = half_matmul<bf16>(!epilogue, transposed);
      f.tile(tile).on(target());
      b.tile(tile).on(target());
      std::vector<std::array<int64_t, 3>> shapes = {{300, 200, 170}, {256, 512, 192}, {1, 3, 1}};
      if (target() == ir::Target::GPU && run == 1)
        shapes.push_back({1000, 3000, 700});
      for (auto [m, n, kk] : shapes) {
        const uint64_t seed = uint64_t(m * 7 + n + kk + run);
        check_call<f16>(f, m, n, kk, epilogue, transposed, seed);
        check_call<bf16>(b, m, n, kk, !epilogue, transposed, seed + 10);
      }
      if (hopper)
        for (Kernel *k : {&f, &b})
          EXPECT_NE(k->explain().find("tile on the tensor cores, wgmma m64n"), std::string::npos)
              << k->explain();
    }
}

LOOM_INSTANTIATE_TARGETS(TensorCore);

} // namespace
