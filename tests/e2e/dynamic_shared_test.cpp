// Dynamic shared memory (loom::dynamic_shared_array, Kernel::shape(grid, block, shared_bytes)):
// a block reduction and a tiled transpose whose tiles are sized at run time, on both targets and
// on the interpreter, against references computed here on random inputs; one compile serving
// every size; sizes past 48 KiB; bounds checks against the launch's extent; and the launches a
// call refuses (no size, a size that is not whole elements, a size past the target's limit).
#include "support/TestUtil.h"

#include "ir/DynamicShared.h"
#include "ir/Interpreter.h"
#include "ir/Lower.h"

#include <cstring>

using namespace loom;
using loomtest::random_vector;

namespace {

// Each block sums its threads' elements in a tree over the dynamic array, which holds one element
// per thread (the launch gives it blockDim.x * 8 bytes), and writes the block's sum: i64, exact.
Kernel block_sums() {
  return simt_kernel("dynamic_block_sums",
                     [](Array<int64_t> x, Array<int64_t> sums) {
                       auto partial = dynamic_shared_array<int64_t>();
                       I32 t = thread_idx().x;
                       Index i = grid<1>();
                       partial[t] = select(i < x.size(), x[min(i, x.size() - 1)], int64_t(0));
                       barrier();
                       Var<int64_t> stride("stride", partial.size() / 2);
                       while_(stride > 0, [&] {
                         if_(Index(t) < stride, [&] { partial[t] += partial[t + stride]; });
                         barrier();
                         stride = stride / 2;
                       });
                       if_(t == 0, [&] { sums[block_idx().x] = partial[0]; });
                     },
                     {"x", "sums"});
}

// b = a^T through a T x (T + 1) tile of f32 (the padding column keeps the column reads off one
// bank), T given at run time: blocks of T x T threads, shared_bytes = T * (T + 1) * 4.
Kernel tiled_transpose() {
  return simt_kernel("dynamic_transpose",
                     [](Array2<float> a, Array2<float> b, I32 T) {
                       auto tile = dynamic_shared_array<float>();
                       I32 tx = thread_idx().x, ty = thread_idx().y;
                       I32 r = block_idx().y * T + ty, c = block_idx().x * T + tx;
                       if_(Index(r) < a.dim(0) && Index(c) < a.dim(1),
                           [&] { tile[ty * (T + 1) + tx] = a(r, c); });
                       barrier();
                       I32 r2 = block_idx().x * T + ty, c2 = block_idx().y * T + tx;
                       if_(Index(r2) < b.dim(0) && Index(c2) < b.dim(1),
                           [&] { b(r2, c2) = tile[tx * (T + 1) + ty]; });
                     },
                     {"a", "b", "T"});
}

std::vector<int64_t> reference_block_sums(const std::vector<int64_t> &x, int64_t threads) {
  std::vector<int64_t> sums((x.size() + threads - 1) / threads, 0);
  for (size_t i = 0; i < x.size(); ++i)
    sums[i / threads] += x[i];
  return sums;
}

class DynamicShared : public loomtest::TargetTest {};

// One compile serves blocks of 32 to 512 threads, each launch sizing the array to its block.
TEST_P(DynamicShared, BlockReductionWithTheBlockSizeChosenAtRunTime) {
  Kernel k = block_sums();
  prepare(k);
  const std::vector<int64_t> x = random_vector<int64_t>(10007, -1000000, 1000000, 11);
  for (unsigned threads : {32u, 128u, 512u, 64u}) {
    const unsigned blocks = unsigned((x.size() + threads - 1) / threads);
    std::vector<int64_t> sums(blocks, -1);
    k.shape(blocks, threads, threads * sizeof(int64_t))(x, sums);
    EXPECT_EQ(sums, reference_block_sums(x, threads)) << threads << " threads";
  }
}

// Tiles of 8, 16 and 32 (T chosen at run time) on a matrix whose sides are no multiple of them.
TEST_P(DynamicShared, TiledTransposeWithTheTileChosenAtRunTime) {
  Kernel k = tiled_transpose();
  prepare(k);
  const int64_t n = 70, m = 45;
  std::vector<float> a = random_vector<float>(n * m, -100, 100, 12);
  for (int T : {16, 8, 32}) {
    std::vector<float> b(m * n, 0.0f);
    k.shape({unsigned((m + T - 1) / T), unsigned((n + T - 1) / T)}, {unsigned(T), unsigned(T)},
            size_t(T) * (T + 1) * sizeof(float))(view(a, {n, m}), view(b, {m, n}), T);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j)
        ASSERT_EQ(b[j * n + i], a[i * m + j]) << "T " << T << ": b[" << j << ", " << i << "]";
  }
}

// Bounds-checked, every index of the dynamic array lies below the launch's extent: the transpose
// runs clean, and a launch too small for the tile is a BoundsError naming the array and extent.
TEST_P(DynamicShared, BoundsChecksUseTheLaunchsExtent) {
  Kernel k = tiled_transpose();
  prepare(k).bounds_check();
  const int64_t n = 20, m = 12, T = 8;
  std::vector<float> a = random_vector<float>(n * m, -1, 1, 13);
  std::vector<float> b(m * n, 0.0f);
  const Dim3 grid(unsigned((m + T - 1) / T), unsigned((n + T - 1) / T)), block(T, T);
  k.shape(grid, block, T * (T + 1) * sizeof(float))(view(a, {n, m}), view(b, {m, n}), int32_t(T));
  EXPECT_EQ(b[3 * n + 5], a[5 * m + 3]);
  try {
    k.shape(grid, block, T * T * sizeof(float))(view(a, {n, m}), view(b, {m, n}), int32_t(T));
    FAIL() << "a tile past the dynamic array's end ran without a BoundsError";
  } catch (const BoundsError &e) {
    EXPECT_EQ(e.array(), "shared0 (shared)") << e.what();
    EXPECT_EQ(e.extent(), T * T) << e.what();
    EXPECT_GE(e.index(), T * T) << e.what();
  }
}

// More than the 48 KiB every kernel may have (on the GPU: the kernel opts in to the device's
// limit): 100 KiB of f32, each thread writing 100 elements and reading another thread's back.
TEST_P(DynamicShared, MoreThan48KiB) {
  Kernel k = simt_kernel(
      "dynamic_large",
      [](Array<float> out) {
        auto big = dynamic_shared_array<float>();
        I32 t = thread_idx().x, threads = block_dim().x;
        Index per = big.size() / Index(threads);
        for_range(per, [&](Index e) { big[Index(t) * per + e] = cast<float>(Index(t) * 10 + e); });
        barrier();
        Index other = Index(threads - 1 - t);
        Var<float> sum("sum", 0.0f);
        for_range(per, [&](Index e) { sum = sum + big[other * per + e]; });
        out[Index(block_idx().x) * Index(threads) + Index(t)] = sum;
      },
      {"out"});
  prepare(k);
  const unsigned threads = 256, blocks = 3;
  const size_t bytes = 100 * 1024; // 25600 floats: 100 a thread
  std::vector<float> out(blocks * threads, 0.0f);
  k.shape(blocks, threads, bytes)(out);
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned t = 0; t < threads; ++t) {
      const double other = threads - 1 - t;
      const double expected = 100 * other * 10 + 99 * 100 / 2; // below 2^24: exact in f32
      ASSERT_EQ(out[b * threads + t], float(expected)) << b << "," << t;
    }
}

// What a call refuses, before anything runs: no size for the dynamic array, a size that is not
// whole elements, a size past the target's limit (naming it), and a size for a kernel without one.
TEST_P(DynamicShared, RefusesLaunchesThatDoNotFit) {
  Kernel k = block_sums();
  prepare(k);
  std::vector<int64_t> x(64, 1), sums(1, 0);
  auto refused = [&](size_t bytes, const std::string &needle) {
    try {
      k.shape(1, 64, bytes)(x, sums);
      ADD_FAILURE() << bytes << " bytes were taken";
    } catch (const ArgumentError &e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  refused(0, "takes its size from the launch");
  refused(12, "not a whole number of elements"); // i64: 8 bytes each
  // The limit: 227 KiB on the CPU (and on an H200); the message names it.
  const int64_t limit = target() == ir::Target::GPU
                            ? runtime::GpuContext::get().info().max_shared_per_block_optin
                            : ir::max_cpu_block_shared_bytes;
  refused(size_t(limit) + 8, "at most " + std::to_string(limit) + " bytes");
  k.shape(1, 64, 64 * 8)(x, sums); // and a good launch still runs
  EXPECT_EQ(sums[0], 64);

  Kernel fixed =
      simt_kernel("fixed", [](Array<int32_t> y) { y[Index(thread_idx().x)] = 1; }, {"y"});
  fixed.on(target());
  std::vector<int32_t> y(32, 0);
  try {
    fixed.shape(1, 32, 128)(y);
    FAIL() << "dynamic shared memory for a kernel without a dynamic array";
  } catch (const ArgumentError &e) {
    EXPECT_NE(std::string(e.what()).find("declares no dynamic shared array"), std::string::npos)
        << e.what();
  }
}

LOOM_INSTANTIATE_TARGETS(DynamicShared);

// ---- the interpreter ---------------------------------------------------------------------------

template <class T> ir::InterpreterArg array(std::vector<int64_t> shape, const std::vector<T> &v) {
  ir::Buffer b(dtype_of<T>(), std::move(shape));
  std::memcpy(b.data(), v.data(), v.size() * sizeof(T));
  return ir::InterpreterArg::of_array(std::move(b));
}
template <class T> std::vector<T> values_of(const ir::InterpreterArg &a) {
  std::vector<T> v(a.array.size());
  std::memcpy(v.data(), a.array.bytes.data(), a.array.bytes.size());
  return v;
}

// The same kernels on the interpreter, as built and as lowered for either target.
TEST(DynamicSharedInterpreter, BlockReductionAndTransposeAsBuiltAndLowered) {
  const ir::Kernel sums_ir = block_sums().ir(), transpose_ir = tiled_transpose().ir();
  const std::vector<int64_t> x = random_vector<int64_t>(1000, -1000000, 1000000, 14);
  const int64_t n = 21, m = 13, T = 4;
  const std::vector<float> a = random_vector<float>(n * m, -10, 10, 15);
  for (int form = 0; form < 3; ++form) {
    auto run = [&](const ir::Kernel &k, std::vector<ir::InterpreterArg> &args,
                   const ir::InterpreterOptions &o) {
      if (form == 0)
        ir::interpret(k, args, o);
      else
        ir::interpret(ir::lower(k, form == 1 ? ir::Target::CPU : ir::Target::GPU), args, o);
    };
    ir::InterpreterOptions o;
    o.simt_block = {128, 1, 1};
    o.simt_grid = {unsigned((x.size() + 127) / 128), 1, 1};
    o.simt_dynamic_shared_bytes = 128 * 8;
    std::vector<ir::InterpreterArg> args = {
        array<int64_t>({int64_t(x.size())}, x),
        ir::InterpreterArg::of_array(ir::Buffer(ir::ScalarType::I64, {int64_t(o.simt_grid[0])}))};
    run(sums_ir, args, o);
    EXPECT_EQ(values_of<int64_t>(args[1]), reference_block_sums(x, 128)) << "form " << form;

    o.simt_block = {unsigned(T), unsigned(T), 1};
    o.simt_grid = {unsigned((m + T - 1) / T), unsigned((n + T - 1) / T), 1};
    o.simt_dynamic_shared_bytes = T * (T + 1) * 4;
    std::vector<ir::InterpreterArg> targs = {
        array<float>({n, m}, a),
        ir::InterpreterArg::of_array(ir::Buffer(ir::ScalarType::F32, {m, n})),
        ir::InterpreterArg::of_scalar(ir::int_value(ir::ScalarType::I32, T))};
    run(transpose_ir, targs, o);
    const std::vector<float> b = values_of<float>(targs[1]);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j)
        ASSERT_EQ(b[j * n + i], a[i * m + j]) << "form " << form << ": " << j << "," << i;
  }
}

// The interpreter refuses the launches the compiled code refuses, and an index past the launch's
// extent.
TEST(DynamicSharedInterpreter, RefusesWhatTheCallsRefuse) {
  const ir::Kernel k = block_sums().ir();
  std::vector<ir::InterpreterArg> args = {
      ir::InterpreterArg::of_array(ir::Buffer(ir::ScalarType::I64, {64})),
      ir::InterpreterArg::of_array(ir::Buffer(ir::ScalarType::I64, {1}))};
  ir::InterpreterOptions o;
  o.simt_grid = {1, 1, 1};
  o.simt_block = {64, 1, 1};
  for (int64_t bytes : {int64_t(0), int64_t(20), ir::max_cpu_block_shared_bytes + 8}) {
    o.simt_dynamic_shared_bytes = bytes;
    EXPECT_THROW(ir::interpret(k, args, o), ArgumentError) << bytes;
  }
  o.simt_dynamic_shared_bytes = 32 * 8; // half the block's threads
  try {
    ir::interpret(k, args, o);
    FAIL() << "thread 32 stored past the dynamic array's end";
  } catch (const InterpreterError &e) {
    EXPECT_NE(std::string(e.what()).find("shared array 'shared0' (extent 32)"), std::string::npos)
        << e.what();
  }
}

// The size is a launch parameter, not part of the code: one cache key, one compile for every size;
// a dynamic array and a static one are different code.
TEST(DynamicSharedCode, OneCompileServesEverySize) {
  Kernel k = block_sums();
  k.on(ir::Target::CPU);
  std::vector<int64_t> x(256, 2), sums(4, 0);
  k.shape(4, 64, 64 * 8)(x, sums);
  const std::string lowered = k.lowered(ir::Target::CPU);
  k.shape(2, 128, 128 * 8)(x, sums);
  EXPECT_EQ(sums[0], 256);
  EXPECT_EQ(k.lowered(ir::Target::CPU), lowered);
  EXPECT_NE(k.ir_text().find("shared i64[dynamic]"), std::string::npos) << k.ir_text();
  const std::string ptx = k.ptx("sm_90");
  EXPECT_NE(ptx.find(".extern .shared .align 16 .b8 loom_dynamic_shared[]"), std::string::npos)
      << ptx;
  EXPECT_NE(ptx.find("%dynamic_smem_size"), std::string::npos) << ptx;
}

// What tracing refuses: a second dynamic array, one outside a SIMT kernel, a static array of
// extent 0 (the dynamic one is another function), a second dimension.
TEST(DynamicSharedErrors, TraceTimeChecks) {
  auto message = [](auto body) {
    try {
      body();
    } catch (const DslError &e) {
      return std::string(e.what());
    }
    return std::string("no DslError");
  };
  EXPECT_NE(message([] {
              simt_kernel("two", [](Array<float> x) {
                auto a = dynamic_shared_array<float>();
                auto b = dynamic_shared_array<int32_t>();
                a[0] = x[0];
                b[0] = 1;
              });
            }).find("at most one dynamic shared array, and 'shared0' is one already"),
            std::string::npos);
  EXPECT_NE(message([] {
              kernel("not_simt", [](Array<float> x) {
                auto a = dynamic_shared_array<float>();
                a[0] = x[0];
              });
            }).find("dynamic_shared_array() is part of the SIMT level"),
            std::string::npos);
  EXPECT_NE(message([] {
              simt_kernel("zero", [](Array<float> x) {
                auto a = shared_array<float>(0);
                a[0] = x[0];
              });
            }).find("loom::dynamic_shared_array<T>()"),
            std::string::npos);
  EXPECT_NE(message([] {
              simt_kernel("rank", [](Array<float> x) {
                auto a = dynamic_shared_array<float>();
                x[0] = cast<float>(a.dim(1));
              });
            }).find("one dimension; dim(1) does not exist"),
            std::string::npos);
}

} // namespace
