// The tile schedule: a 2-D parallel loop runs as register-blocked tiles; on the GPU the arrays its
// inner loop reads at [i, k] / [k, j] are staged through shared memory, on the CPU the tiles are
// shared among threads and the register blocks vectorized.
// The GPU lowering is run by the IR interpreter on the CPU instance (blocks on fibers) and must
// give the default lowering's results bit for bit (each iteration's steps stay in order); calls
// on each target are checked against references computed in double. Edge tiles (extents that are
// not multiples of the tile), a last partial chunk of the staged loop, transposed operands,
// statements before and after the inner loop, unstaged and conditional loads are all covered.
#include "support/TestUtil.h"

#include "ir/Interpreter.h"
#include "ir/Lower.h"
#include "ir/Printer.h"

#include <cmath>
#include <cstring>

using namespace loom;
using loomtest::random_vector;

namespace {

Kernel matmul_kernel() {
  return kernel("matmul",
                [](Array2<float> A, Array2<float> B, Array2<float> C) {
                  parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
                    Var<float> acc("acc", 0.0f);
                    for_range(A.dim(1), [&](Index k) { acc += A(i, k) * B(k, j); });
                    C(i, j) = acc;
                  });
                },
                {"A", "B", "C"});
}

// C = alpha * At^T Bt^T * w + beta * C in double: both operands transposed (At[k, i], Bt[j, k]),
// an unstaged 1-D load, a statement before the loop and one after it that reads C.
Kernel transposed_kernel() {
  return kernel("gemm_t",
                [](Array2<double> At, Array2<double> Bt, Array<double> w, Array2<double> C,
                   F64 alpha, F64 beta) {
                  parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
                    Var<double> acc("acc", 0.0);
                    Var<double> scale("scale", alpha * 2.0);
                    for_range(At.dim(0), [&](Index k) { acc += At(k, i) * Bt(j, k) * w(k); });
                    C(i, j) = scale * acc + beta * C(i, j);
                  });
                },
                {"At", "Bt", "w", "C", "alpha", "beta"});
}

// Integers, exact: a staged product, a staged load read again under a condition, and a load
// only a condition reads (not staged).
Kernel integer_kernel() {
  return kernel("int_mix",
                [](Array2<int32_t> A, Array2<int32_t> B, Array2<int32_t> D, Array2<int32_t> C) {
                  parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
                    Var<int32_t> acc("acc", int32_t(0));
                    for_range(A.dim(1), [&](Index k) {
                      acc += A(i, k) * B(k, j);
                      if_(k % 3 == 0, [&] { acc += A(i, k) - D(i, k); });
                    });
                    C(i, j) = acc;
                  });
                },
                {"A", "B", "D", "C"});
}

ir::Buffer buffer(ir::ScalarType t, std::vector<int64_t> shape, const void *data) {
  ir::Buffer b(t, std::move(shape));
  std::memcpy(b.data(), data, b.bytes.size());
  return b;
}

// Runs the kernel's GPU lowering in the interpreter (with `tile`, or the default mapping when
// rows == 0) on a grid of `blocks` blocks; returns the arguments after the call.
std::vector<ir::InterpreterArg> run_gpu_lowering(const Kernel &k, const ir::TileSchedule &tile,
                                                 std::vector<ir::InterpreterArg> args,
                                                 unsigned blocks = 3) {
  ir::Kernel traced = k.ir();
  traced.schedule = ir::with_tile(traced.schedule, tile);
  ir::LoweredKernel gpu = ir::lower(traced, ir::Target::GPU);
  ir::InterpreterOptions options;
  options.gpu_grid = {blocks, 1, 1};
  ir::interpret(gpu, args, options);
  return args;
}

void expect_same_bits(const ir::Buffer &a, const ir::Buffer &b) {
  ASSERT_EQ(a.bytes.size(), b.bytes.size());
  EXPECT_EQ(std::memcmp(a.bytes.data(), b.bytes.data(), a.bytes.size()), 0);
}

TEST(TileInterpreter, MatmulMatchesTheDefaultLoweringBitForBit) {
  Kernel k = matmul_kernel();
  // 37 x 29 outputs (edge tiles both ways), k of 19: chunks of 4 end with a partial one.
  const int64_t m = 37, n = 29, kk = 19;
  std::vector<float> A = random_vector<float>(m * kk, -1, 1, 51);
  std::vector<float> B = random_vector<float>(kk * n, -1, 1, 52);
  auto args = [&] {
    return std::vector<ir::InterpreterArg>{
        ir::InterpreterArg::of_array(buffer(ir::ScalarType::F32, {m, kk}, A.data())),
        ir::InterpreterArg::of_array(buffer(ir::ScalarType::F32, {kk, n}, B.data())),
        ir::InterpreterArg::of_array(ir::Buffer(ir::ScalarType::F32, {m, n}))};
  };
  std::vector<ir::InterpreterArg> want = run_gpu_lowering(k, {}, args());
  // Reference in double: f32 sums of 19 products of magnitude <= 1 are within 19 * 2^-24 * 19.
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double ref = 0;
      for (int64_t p = 0; p < kk; ++p)
        ref += double(A[i * kk + p]) * B[p * n + j];
      ASSERT_NEAR(want[2].array.get(i * n + j).f, ref, 1e-4) << i << "," << j;
    }
  for (ir::TileSchedule tile :
       {ir::TileSchedule{8, 8, 2, 2, 4}, ir::TileSchedule{16, 8, 4, 2, 4},
        ir::TileSchedule{16, 16, 4, 4, 8}, ir::TileSchedule{8, 16, 1, 8, 3},
        ir::TileSchedule{8, 8, 2, 2, 0}, ir::TileSchedule{4, 32, 1, 4, 19}}) {
    SCOPED_TRACE(ir::tile_problem(tile) + " tile " + std::to_string(tile.rows) + "x" +
                 std::to_string(tile.cols) + "/" + std::to_string(tile.thread_rows) + "x" +
                 std::to_string(tile.thread_cols) + " depth " + std::to_string(tile.depth));
    std::vector<ir::InterpreterArg> got = run_gpu_lowering(k, tile, args());
    expect_same_bits(got[2].array, want[2].array);
  }
}

TEST(TileInterpreter, TransposedOperandsAndStatementsAroundTheLoop) {
  Kernel k = transposed_kernel();
  const int64_t m = 21, n = 18, kk = 11;
  std::vector<double> At = random_vector<double>(kk * m, -1, 1, 53);
  std::vector<double> Bt = random_vector<double>(n * kk, -1, 1, 54);
  std::vector<double> w = random_vector<double>(kk, -1, 1, 55);
  std::vector<double> C = random_vector<double>(m * n, -1, 1, 56);
  const double alpha = 0.75, beta = -1.5;
  auto args = [&] {
    return std::vector<ir::InterpreterArg>{
        ir::InterpreterArg::of_array(buffer(ir::ScalarType::F64, {kk, m}, At.data())),
        ir::InterpreterArg::of_array(buffer(ir::ScalarType::F64, {n, kk}, Bt.data())),
        ir::InterpreterArg::of_array(buffer(ir::ScalarType::F64, {kk}, w.data())),
        ir::InterpreterArg::of_array(buffer(ir::ScalarType::F64, {m, n}, C.data())),
        ir::InterpreterArg::of_scalar(ir::float_value(ir::ScalarType::F64, alpha)),
        ir::InterpreterArg::of_scalar(ir::float_value(ir::ScalarType::F64, beta))};
  };
  std::vector<ir::InterpreterArg> want = run_gpu_lowering(k, {}, args());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < kk; ++p)
        acc += At[p * m + i] * Bt[j * kk + p] * w[p];
      ASSERT_NEAR(want[3].array.get(i * n + j).f, 2 * alpha * acc + beta * C[i * n + j], 1e-12);
    }
  ir::Kernel traced = k.ir();
  traced.schedule = ir::with_tile(traced.schedule, {8, 8, 2, 4, 4});
  std::string lowered = ir::to_string(ir::lower(traced, ir::Target::GPU));
  EXPECT_NE(lowered.find("At_tile"), std::string::npos) << lowered;
  EXPECT_NE(lowered.find("Bt_tile"), std::string::npos) << lowered;
  EXPECT_EQ(lowered.find("w_tile"), std::string::npos) << lowered; // 1-D: read from memory
  for (ir::TileSchedule tile : {ir::TileSchedule{8, 8, 2, 4, 4}, ir::TileSchedule{4, 8, 4, 4, 16},
                                ir::TileSchedule{8, 4, 4, 1, 5}}) {
    std::vector<ir::InterpreterArg> got = run_gpu_lowering(k, tile, args(), 2);
    expect_same_bits(got[3].array, want[3].array);
  }
}

TEST(TileInterpreter, IntegersWithConditionalLoads) {
  Kernel k = integer_kernel();
  const int64_t m = 13, n = 10, kk = 17;
  std::vector<int32_t> A = random_vector<int32_t>(m * kk, -1000, 1000, 57);
  std::vector<int32_t> B = random_vector<int32_t>(kk * n, -1000, 1000, 58);
  std::vector<int32_t> D = random_vector<int32_t>(m * kk, -1000, 1000, 59);
  auto args = [&] {
    return std::vector<ir::InterpreterArg>{
        ir::InterpreterArg::of_array(buffer(ir::ScalarType::I32, {m, kk}, A.data())),
        ir::InterpreterArg::of_array(buffer(ir::ScalarType::I32, {kk, n}, B.data())),
        ir::InterpreterArg::of_array(buffer(ir::ScalarType::I32, {m, kk}, D.data())),
        ir::InterpreterArg::of_array(ir::Buffer(ir::ScalarType::I32, {m, n}))};
  };
  ir::Kernel traced = k.ir();
  traced.schedule = ir::with_tile(traced.schedule, {8, 4, 2, 2, 4});
  std::string lowered = ir::to_string(ir::lower(traced, ir::Target::GPU));
  EXPECT_NE(lowered.find("A_tile"), std::string::npos) << lowered;
  EXPECT_EQ(lowered.find("D_tile"), std::string::npos) << lowered; // only read under a condition
  std::vector<ir::InterpreterArg> got = run_gpu_lowering(k, traced.schedule.tile, args());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int32_t acc = 0;
      for (int64_t p = 0; p < kk; ++p) {
        acc += A[i * kk + p] * B[p * n + j];
        if (p % 3 == 0)
          acc += A[i * kk + p] - D[i * kk + p];
      }
      ASSERT_EQ(got[3].array.get(i * n + j).i, acc) << i << "," << j;
    }
}

// What the schedule cannot do is a CompileError naming the reason; a kernel without a 2-D loop
// keeps the default mapping.
TEST(TileErrors, SaysWhyALoopCannotBeTiled) {
  auto lower_tiled = [](const Kernel &k) {
    ir::Kernel traced = k.ir();
    traced.schedule = ir::with_tile(traced.schedule, {16, 16, 2, 2, 8});
    return ir::lower(traced, ir::Target::GPU);
  };
  auto expect_error = [&](const Kernel &k, const std::string &why) {
    try {
      lower_tiled(k);
      ADD_FAILURE() << "no error, expected: " << why;
    } catch (const CompileError &e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("schedule tile"), std::string::npos) << e.what();
    }
  };
  expect_error(kernel("writes",
                      [](Array2<float> A, Array2<float> C) {
                        parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
                          for_range(A.dim(1), [&](Index k) { C(i, j) = A(i, k); });
                        });
                      },
                      {"A", "C"}),
               "the inner loop writes to array 'C'");
  expect_error(kernel("two_loops",
                      [](Array2<float> A, Array2<float> C) {
                        parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
                          Var<float> s("s", 0.0f);
                          for_range(A.dim(1), [&](Index k) { s += A(i, k); });
                          for_range(A.dim(1), [&](Index k) { s += A(j, k); });
                          C(i, j) = s;
                        });
                      },
                      {"A", "C"}),
               "more than one loop");
  expect_error(
      kernel(
          "no_loop",
          [](Array2<float> A, Array2<float> C) {
            parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) { C(i, j) = A(i, j) * 2.0f; });
          },
          {"A", "C"}),
      "no inner range loop");
  expect_error(kernel("bounds_of_i",
                      [](Array2<float> A, Array2<float> C) {
                        parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
                          Var<float> s("s", 0.0f);
                          for_range(i, A.dim(1), [&](Index k) { s += A(i, k); });
                          C(i, j) = s;
                        });
                      },
                      {"A", "C"}),
               "bounds depend on 'i'");
  expect_error(kernel("step_two",
                      [](Array2<float> A, Array2<float> C) {
                        parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
                          Var<float> s("s", 0.0f);
                          for_range(0, A.dim(1), 2, [&](Index k) { s += A(i, k); });
                          C(i, j) = s;
                        });
                      },
                      {"A", "C"}),
               "step is not 1");
  // 1-D loops keep the default mapping.
  Kernel saxpy = kernel("saxpy",
                        [](F32 a, Array<float> x, Array<float> y) {
                          parallel_for(x.dim(0), [&](Index i) { y(i) = a * x(i) + y(i); });
                        },
                        {"a", "x", "y"});
  EXPECT_EQ(ir::to_string(lower_tiled(saxpy)).find("tiles of"), std::string::npos);
  // Too much shared memory: two tiles, each two buffers of 64 x (256 + 4) floats.
  ir::Kernel big = matmul_kernel().ir();
  big.schedule = ir::with_tile(big.schedule, {256, 256, 16, 16, 64});
  try {
    ir::lower(big, ir::Target::GPU);
    ADD_FAILURE() << "no error for 266 KB of shared memory";
  } catch (const CompileError &e) {
    EXPECT_NE(std::string(e.what()).find("266240 bytes of shared memory"), std::string::npos)
        << e.what();
  }
}

TEST(TileErrors, InvalidSchedulesAreArgumentErrors) {
  Kernel k = matmul_kernel();
  EXPECT_THROW(k.tile({128, 128, 3, 8, 8}), ArgumentError);   // 128 % 3
  EXPECT_THROW(k.tile({1024, 1024, 1, 1, 8}), ArgumentError); // a million threads
  EXPECT_THROW(k.tile({128, 128, 8, 8, 65}), ArgumentError);  // depth past 64
  EXPECT_THROW(k.tile({128, 128, 8, 8, 8, 40}), ArgumentError);
  EXPECT_THROW(k.tile({128, 128, 2, 2, 8, 8}), ArgumentError); // 4096 threads x 8 blocks
  k.tile({128, 128, 8, 8, 8, 2});
  EXPECT_EQ(k.ir().schedule.tile.rows, 128);
  k.tile({});
  EXPECT_EQ(k.ir().schedule.tile.rows, 0);
  Kernel s = simt_kernel("simt", [](Array<float> x) { x(Index(thread_idx().x)) = 1.0f; }, {"x"});
  EXPECT_THROW(s.tile({32, 32, 2, 2, 4}), ArgumentError);
}

// On the CPU the tiled kernel gives the untiled kernel's bits: whole register blocks (vectorized)
// and the clamped edge blocks alike.
TEST(TileCpu, SameBitsAsTheDefaultMapping) {
  Kernel plain = matmul_kernel(), tiled = matmul_kernel();
  plain.on(ir::Target::CPU);
  tiled.on(ir::Target::CPU);
  for (ir::TileSchedule tile : {ir::TileSchedule{64, 128, 8, 32}, ir::TileSchedule{16, 16, 4, 4},
                                ir::TileSchedule{8, 24, 2, 3}}) {
    tiled.tile(tile);
    for (auto [m, n, kk] : {std::array<int64_t, 3>{150, 270, 45}, {128, 256, 64}, {7, 5, 3}}) {
      std::vector<float> A = random_vector<float>(m * kk, -1, 1, 70 + m);
      std::vector<float> B = random_vector<float>(kk * n, -1, 1, 71 + n);
      std::vector<float> want(m * n, NAN), got(m * n, NAN);
      plain(view(A, {m, kk}), view(B, {kk, n}), view(want, {m, n}));
      tiled(view(A, {m, kk}), view(B, {kk, n}), view(got, {m, n}));
      ASSERT_EQ(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)), 0)
          << tile.rows << "x" << tile.cols << " " << m << "x" << n << "x" << kk;
    }
  }
  std::string lowered = tiled.lowered(ir::Target::CPU);
  EXPECT_NE(lowered.find("tiles of 8x24, 2x3 per thread"), std::string::npos) << lowered;
  EXPECT_NE(lowered.find("chunk [chunk_begin, chunk_end)"), std::string::npos) << lowered;
}

class Tile : public loomtest::TargetTest {};

// A call of the tiled matmul on each target, checked in double.
TEST_P(Tile, MatmulSchedulesCompute) {
  Kernel k = matmul_kernel();
  k.tile({128, 128, 8, 8, 8, 2});
  prepare(k);
  for (auto [m, n, kk] : {std::array<int64_t, 3>{300, 200, 170}, {128, 256, 64}, {1, 3, 1}}) {
    std::vector<float> A = random_vector<float>(m * kk, -1, 1, 60 + m);
    std::vector<float> B = random_vector<float>(kk * n, -1, 1, 61 + n);
    std::vector<float> C(m * n, NAN);
    k(view(A, {m, kk}), view(B, {kk, n}), view(C, {m, n}));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double ref = 0;
        for (int64_t p = 0; p < kk; ++p)
          ref += double(A[i * kk + p]) * B[p * n + j];
        // f32 sums of kk products of magnitude <= 1: within kk^2 * 2^-24.
        ASSERT_NEAR(C[i * n + j], ref, 1e-7 * double(kk * kk) + 1e-6) << i << "," << j;
      }
  }
  std::string lowered = k.lowered(ir::Target::GPU);
  EXPECT_NE(lowered.find("tiles of 128x128, 8x8 per thread, depth 8"), std::string::npos)
      << lowered;
  if (target() == ir::Target::GPU) {
    EXPECT_NE(k.explain().find("tile: a block of 256 threads per 128x128 tile"), std::string::npos)
        << k.explain();
  }
}

// The transposed, double-precision kernel on each target.
TEST_P(Tile, TransposedGemmComputes) {
  Kernel k = transposed_kernel();
  k.tile({64, 32, 4, 4, 16});
  prepare(k);
  const int64_t m = 150, n = 70, kk = 45;
  std::vector<double> At = random_vector<double>(kk * m, -1, 1, 62);
  std::vector<double> Bt = random_vector<double>(n * kk, -1, 1, 63);
  std::vector<double> w = random_vector<double>(kk, -1, 1, 64);
  std::vector<double> C = random_vector<double>(m * n, -1, 1, 65), C0 = C;
  k(view(At, {kk, m}), view(Bt, {n, kk}), w, view(C, {m, n}), 0.5, 2.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < kk; ++p)
        acc += At[p * m + i] * Bt[j * kk + p] * w[p];
      ASSERT_NEAR(C[i * n + j], acc + 2.0 * C0[i * n + j], 1e-12) << i << "," << j;
    }
}

LOOM_INSTANTIATE_TARGETS(Tile);

} // namespace
