// Warp matrix products at the SIMT level (mma_sync, frontend/Mma.h; the text DSL's mma_sync): a
// kernel that tiles a matmul itself stages f16 or bf16 blocks in shared arrays and multiplies
// them on the tensor cores, in both front ends, on both targets and in the IR interpreter.
// Results are checked against a double reference of the 16-bit inputs within the bound of f32
// sums of exact products; bad arguments are typed errors that say what was expected.
#include "support/TestUtil.h"

#include "ir/Interpreter.h"
#include "ir/Lower.h"
#include "ir/Printer.h"

#include <cmath>
#include <cstring>

using namespace loom;
using loomtest::random_vector;

namespace {

constexpr int64_t kRows = 64; // a block's rows: 4 warps of 16

// C = A B for A [M, K], B [K, N] with M a multiple of 64, N of 8 and K of 16: block (x, y) computes
// rows 64y .. 64y+63 and columns 8x .. 8x+7, warp w the 16 rows at 16w, through shared blocks of
// 64 x 16 (rows padded to 24 elements) and 16 x 8 (padded to 16).
template <class H> Kernel simt_matmul() {
  return simt_kernel("simt_mma",
                     [](Array2<H> A, Array2<H> B, Array2<float> C) {
                       auto As = shared_array<H>(64, 24);
                       auto Bs = shared_array<H>(16, 16);
                       auto acc = local_array<float>(4);
                       Var<int64_t> t("t", Index(thread_idx().x));
                       Var<int64_t> warp("warp", t / 32);
                       Var<int64_t> lane("lane", t % 32);
                       Var<int64_t> row0("row0", Index(block_idx().y) * kRows);
                       Var<int64_t> col0("col0", Index(block_idx().x) * 8);
                       for (int r = 0; r < 4; ++r)
                         acc[r] = 0.0f;
                       for_range(0, A.dim(1), 16, [&](Index k0) {
                         for (int e = 0; e < 8; ++e) { // 1024 elements of A's block, 8 a thread
                           Index x = t * 8 + e;
                           As(x / 16, x % 16) = A(row0 + x / 16, k0 + x % 16);
                         }
                         Bs(t / 8, t % 8) = B(k0 + t / 8, col0 + t % 8);
                         barrier();
                         mma_sync(acc, As, warp * 16, 0, Bs, 0, 0);
                         barrier();
                       });
                       for (int r = 0; r < 4; ++r)
                         C(row0 + warp * 16 + lane / 4 + 8 * (r / 2),
                           col0 + 2 * (lane % 4) + r % 2) = acc[r];
                     },
                     {"A", "B", "C"});
}

// The same kernel in the text DSL.
const char *kTextSource = R"(
@kernel(simt=True)
def simt_mma(A: f16[M, K], B: f16[K, N], C: f32[M, N]):
    As = shared.array((64, 24), f16)
    Bs = shared.array((16, 16), f16)
    acc = local.array(4, f32)
    t = threadIdx.x
    warp = t / 32
    lane = t % 32
    row0 = blockIdx.y * 64
    col0 = blockIdx.x * 8
    for r in range(4):
        acc[r] = f32(0.0)
    for k0 in range(0, K, 16):
        for e in range(8):
            x = t * 8 + e
            As[x / 16, x % 16] = A[row0 + x / 16, k0 + x % 16]
        Bs[t / 8, t % 8] = B[k0 + t / 8, col0 + t % 8]
        syncthreads()
        mma_sync(acc, As, warp * 16, 0, Bs, 0, 0)
        syncthreads()
    for r in range(4):
        C[row0 + warp * 16 + lane / 4 + 8 * (r / 2), col0 + 2 * (lane % 4) + r % 2] = acc[r]
)";

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

// The worst error of C against the double reference over the bound of an f32 sum of kk exact
// products, (kk + 1) * 2^-24 * sum |products|, whatever the order.
double worst_error(const std::vector<float> &A, const std::vector<float> &B,
                   const std::vector<float> &C, int64_t m, int64_t n, int64_t kk) {
  double worst = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double ref = 0, mag = 0;
      for (int64_t p = 0; p < kk; ++p)
        ref += double(A[i * kk + p]) * B[p * n + j],
            mag += std::fabs(double(A[i * kk + p]) * B[p * n + j]);
      if (std::isnan(C[i * n + j]))
        return INFINITY;
      worst = std::max(worst, std::fabs(C[i * n + j] - ref) / ((kk + 1) * 0x1p-24 * mag + 1e-30));
    }
  return worst;
}

class SimtMma : public loomtest::TargetTest {};

template <class H> void check(Kernel &k, int64_t m, int64_t n, int64_t kk, uint64_t seed) {
  Operand<H> A(size_t(m * kk), seed), B(size_t(kk * n), seed + 1);
  std::vector<float> C(size_t(m * n), NAN);
  k.shape({unsigned(n / 8), unsigned(m / kRows)}, {128})(view(A.h, {m, kk}), view(B.h, {kk, n}),
                                                         view(C, {m, n}));
  EXPECT_LE(worst_error(A.f, B.f, C, m, n, kk), 1.0) << m << "x" << n << "x" << kk;
}

TEST_P(SimtMma, EmbeddedDslF16AndBf16) {
  Kernel f = simt_matmul<f16>(), b = simt_matmul<bf16>();
  prepare(f); // on the CPU instance: the PTX (ldmatrix, mma.sync) assembled by ptxas
  prepare(b);
  check<f16>(f, 128, 48, 64, 11);
  check<bf16>(b, 64, 24, 160, 12);
  if (target() == ir::Target::CPU)
    EXPECT_NE(f.ptx().find("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"), std::string::npos);
}

TEST_P(SimtMma, TextDslMatchesTheEmbeddedOne) {
  Module m = compile(kTextSource);
  Kernel &k = m["simt_mma"];
  prepare(k);
  check<f16>(k, 192, 16, 48, 13);
}

// The interpreter runs the kernel as built (each lane's elements from shared memory).
TEST(SimtMmaInterpreter, LanesComputeTheirElements) {
  Kernel k = simt_matmul<f16>();
  const int64_t m = 64, n = 16, kk = 32;
  Operand<f16> A(size_t(m * kk), 21), B(size_t(kk * n), 22);
  ir::Buffer a(ir::ScalarType::F16, {m, kk}), b(ir::ScalarType::F16, {kk, n}),
      c(ir::ScalarType::F32, {m, n});
  std::memcpy(a.data(), A.h.data(), a.bytes.size());
  std::memcpy(b.data(), B.h.data(), b.bytes.size());
  std::vector<ir::InterpreterArg> args = {ir::InterpreterArg::of_array(a),
                                          ir::InterpreterArg::of_array(b),
                                          ir::InterpreterArg::of_array(c)};
  ir::InterpreterOptions options;
  options.simt_grid = {unsigned(n / 8), unsigned(m / kRows), 1};
  options.simt_block = {128, 1, 1};
  ir::interpret(k.ir(), args, options);
  std::vector<float> C(size_t(m * n));
  std::memcpy(C.data(), args[2].array.data(), C.size() * sizeof(float));
  EXPECT_LE(worst_error(A.f, B.f, C, m, n, kk), 1.0);
}

template <class F> void expect_error(F f, const std::string &message) {
  try {
    f();
    ADD_FAILURE() << "expected an error: " << message;
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

// Bad arguments: the accumulator, the operands' types and rows, a kernel that is not SIMT.
TEST(SimtMmaErrors, SayWhatWasExpected) {
  expect_error(
      [] {
        simt_kernel("k", [](Array2<f16> A) {
          auto As = shared_array<f16>(16, 20);
          auto acc = local_array<float>(4);
          mma_sync(acc, As, 0, 0, As, 0, 0);
        });
      },
      "mma_sync(): shared array 'shared0' has rows of 20 elements; the tensor cores read rows of "
      "16 bytes, so its last extent must be a multiple of 8");
  expect_error(
      [] {
        simt_kernel("k", [](Array2<f16> A) {
          auto As = shared_array<f16>(16, 16);
          auto acc = local_array<float>(8);
          mma_sync(acc, As, 0, 0, As, 0, 0);
        });
      },
      "mma_sync(): the accumulator is a local_array<float>(4), the lane's four elements of the "
      "16 x 8 block; this one has 8 elements");
  auto text_error = [](const std::string &body) {
    try {
      compile("@kernel(simt=True)\ndef k(A: f16[m, n]):\n" + body);
    } catch (const Error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string decl = "    As = shared.array((16, 16), f16)\n    acc = local.array(4, f32)\n";
  EXPECT_NE(text_error(decl + "    mma_sync(acc, As, 0, 0, As, 0)\n")
                .find("mma_sync(acc, A, row, k, B, k2, col) takes 7 arguments, got 6"),
            std::string::npos);
  EXPECT_NE(text_error("    As = shared.array((16, 16), f16)\n    acc = local.array(8, f32)\n"
                       "    mma_sync(acc, As, 0, 0, As, 0, 0)\n")
                .find("the first argument of mma_sync(acc, A, row, k, B, k2, col) is the "
                      "accumulator: a local array of 4 f32, as in 'acc = local.array(4, f32)'"),
            std::string::npos);
  EXPECT_NE(text_error("    As = shared.array((16, 16), f32)\n    acc = local.array(4, f32)\n"
                       "    mma_sync(acc, As, 0, 0, As, 0, 0)\n")
                .find("operand A of mma_sync(acc, A, row, k, B, k2, col) is a 2-D shared array "
                      "of f16 or bf16"),
            std::string::npos);
  EXPECT_NE(text_error(decl + "    Bs = shared.array((16, 16), bf16)\n"
                              "    mma_sync(acc, As, 0, 0, Bs, 0, 0)\n")
                .find("the operands of mma_sync(acc, A, row, k, B, k2, col) are f16 and bf16; "
                      "both must be f16 or both bf16"),
            std::string::npos);
  EXPECT_NE(text_error(decl + "    mma_sync(acc, A, 0, 0, As, 0, 0)\n")
                .find("operand A of mma_sync(acc, A, row, k, B, k2, col) is a 2-D shared array"),
            std::string::npos);
  EXPECT_NE(text_error("    x = mma_sync(1)\n").find("mma_sync() is a statement; it has no value"),
            std::string::npos);
  try {
    compile("@kernel\ndef k(A: f32[n]):\n    acc = local.array(4, f32)\n"
            "    mma_sync(acc, A, 0, 0, A, 0, 0)\n");
    ADD_FAILURE() << "expected a CompileError";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("mma_sync() is only for SIMT kernels"), std::string::npos)
        << e.what();
  }
  // The interpreter refuses a block whose rows do not start on 16 bytes.
  Kernel k = simt_kernel("misaligned", [](Array2<f16> A, Array<float> out) {
    auto As = shared_array<f16>(16, 24);
    auto acc = local_array<float>(4);
    for (int r = 0; r < 4; ++r)
      acc[r] = 0.0f;
    mma_sync(acc, As, 0, 4, As, 0, 0);
    out[Index(thread_idx().x)] = acc[0];
  });
  ir::Buffer a(ir::ScalarType::F16, {1, 1}), out(ir::ScalarType::F32, {32});
  std::vector<ir::InterpreterArg> args = {ir::InterpreterArg::of_array(a),
                                          ir::InterpreterArg::of_array(out)};
  ir::InterpreterOptions options;
  options.simt_grid = {1, 1, 1};
  options.simt_block = {32, 1, 1};
  try {
    ir::interpret(k.ir(), args, options);
    ADD_FAILURE() << "expected an InterpreterError";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "kernel 'misaligned': mma reads shared array 'shared0' from index 4 of its last "
                  "dimension (extent 24); both must be multiples of 8, 16 bytes",
                  0),
              0u)
        << e.what();
  }
}

LOOM_INSTANTIATE_TARGETS(SimtMma);

} // namespace
