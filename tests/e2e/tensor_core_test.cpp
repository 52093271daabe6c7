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

// Where the tensor cores cannot run the loop, the task says why and the FP32 tile runs it.
TEST(TensorCoreLowering, SaysWhichConditionFailed) {
  auto why = [](const Kernel &k, const ir::TileSchedule &tile, int sm) {
    return lower_for(k, tile, sm).tasks[0].tensor_cores;
  };
  const ir::TileSchedule good{128, 128, 8, 8, 32};
  Kernel f32_matmul = kernel("matmul_f32",
                             [](Array2<float> A, Array2<float> B, Array2<float> C) {
                               parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
                                 Var<float> acc("acc", 0.0f);
                                 for_range(A.dim(1), [&](Index k) { acc += A(i, k) * B(k, j); });
                                 C(i, j) = acc;
                               });
                             },
                             {"A", "B", "C"});
  EXPECT_EQ(why(f32_matmul, {128, 128, 8, 8, 16}, 90),
            "not used: the product's arrays are f32 and f32; the tensor cores take two f16 or "
            "two bf16 arrays");
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

LOOM_INSTANTIATE_TARGETS(TensorCore);

} // namespace
