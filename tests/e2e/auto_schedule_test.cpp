// The schedule the CPU chooses itself (ir/AutoSchedule.cpp): a 2-D parallel loop of the matmul
// form runs in register blocks without being asked, with the default mapping's results bit for
// bit; loom::none / @kernel(schedule=None) turns it off; loops the blocks do not fit keep the
// default mapping and explain() says why.
#include "support/TestUtil.h"

#include "ir/Lower.h"

#include <cmath>
#include <cstring>

using namespace loom;
using loomtest::random_vector;

namespace {

template <class T> Kernel matmul(const std::string &name) {
  return kernel(name,
                [](Array2<T> A, Array2<T> B, Array2<T> C) {
                  parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
                    Var<T> acc("acc", T(0));
                    for_range(A.dim(1), [&](Index k) { acc += A(i, k) * B(k, j); });
                    C(i, j) = acc;
                  });
                },
                {"A", "B", "C"});
}

// A weighted product with an epilogue that reads C: C = alpha * (A diag(w) B) + C.
Kernel weighted(const std::string &name) {
  return kernel(
      name,
      [](Array2<double> A, Array2<double> B, Array<double> w, Array2<double> C, F64 alpha) {
        parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
          Var<double> acc("acc", 0.0);
          for_range(A.dim(1), [&](Index k) { acc += A(i, k) * w(k) * B(k, j); });
          C(i, j) = alpha * acc + C(i, j);
        });
      },
      {"A", "B", "w", "C", "alpha"});
}

// What the CPU lowering chose for the kernel's one task, for a host with `bits`-bit vectors.
std::string choice(const Kernel &k, int bits = 512, int registers = 32) {
  ir::LoweredKernel l = ir::lower(k.ir(), ir::Target::CPU, nullptr,
                                  {.cpu_vector_bits = bits, .cpu_vector_registers = registers});
  return l.tasks.at(0).auto_schedule;
}
ir::TileSchedule chosen_tile(const Kernel &k, int bits = 512, int registers = 32) {
  return ir::lower(k.ir(), ir::Target::CPU, nullptr,
                   {.cpu_vector_bits = bits, .cpu_vector_registers = registers})
      .tasks.at(0)
      .tile;
}

bool starts_with(const std::string &s, const std::string &prefix) {
  return s.rfind(prefix, 0) == 0;
}

} // namespace

// The blocks follow the element type and the host's vectors: two vectors of columns, 4 rows.
TEST(AutoSchedule, BlocksAreSizedToTheVectorRegisters) {
  Kernel f = matmul<float>("mm_f32"), d = matmul<double>("mm_f64");
  EXPECT_EQ(chosen_tile(f), (ir::TileSchedule{64, 128, 4, 32}));
  EXPECT_EQ(chosen_tile(d), (ir::TileSchedule{64, 64, 4, 16}));
  EXPECT_EQ(chosen_tile(f, 256, 16), (ir::TileSchedule{64, 64, 4, 16}));
  EXPECT_EQ(chosen_tile(d, 128, 16), (ir::TileSchedule{64, 16, 4, 4}));
  EXPECT_TRUE(starts_with(choice(f), "register blocks of 4x32 iterations, chosen by loom (the "
                                     "tile schedule {64, 128, 4, 32}"))
      << choice(f);
  EXPECT_NE(choice(f).find("the inner loop reads B[k, j] and A[i, k] in every step"),
            std::string::npos)
      << choice(f);
  // Not known (the interpreter's lowering, a GPU): nothing chosen.
  EXPECT_EQ(ir::lower(f.ir(), ir::Target::CPU).tasks[0].tile.rows, 0);
  EXPECT_EQ(ir::lower(f.ir(), ir::Target::GPU).tasks[0].tile.rows, 0);
}

// Loops the blocks do not fit keep the default mapping; the reason is explain()'s.
TEST(AutoSchedule, LoopsItDoesNotFitKeepTheDefaultMapping) {
  // B read at [j, k]: no row along j to load as vectors.
  Kernel transposed = kernel("abt",
                             [](Array2<float> A, Array2<float> B, Array2<float> C) {
                               parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
                                 Var<float> acc("acc", 0.0f);
                                 for_range(A.dim(1), [&](Index k) { acc += A(i, k) * B(j, k); });
                                 C(i, j) = acc;
                               });
                             },
                             {"A", "B", "C"});
  EXPECT_EQ(choice(transposed),
            "not register-blocked: the inner loop reads no array at [k, j] (or [o + k, p + j], o "
            "and p the same in every step) in every step (a row along j that a block of "
            "iterations could load as vectors and share)");
  // B read at [k + i, j]: a row along j, but each row of the block reads another one.
  Kernel skewed = kernel("skewed",
                         [](Array2<float> A, Array2<float> B, Array2<float> C) {
                           parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
                             Var<float> acc("acc", 0.0f);
                             for_range(A.dim(1), [&](Index k) { acc += A(i, k) * B(k + i, j); });
                             C(i, j) = acc;
                           });
                         },
                         {"A", "B", "C"});
  EXPECT_TRUE(starts_with(choice(skewed), "not register-blocked: the inner loop reads no array"))
      << choice(skewed);
  // No inner loop.
  Kernel add = kernel(
      "add2",
      [](Array2<float> A, Array2<float> C) {
        parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) { C(i, j) = A(i, j) * 2.0f; });
      },
      {"A", "C"});
  EXPECT_EQ(choice(add), "not register-blocked: the iteration has no inner range loop to fuse and "
                         "stage (use the default mapping)");
  // An inner loop that writes an array.
  Kernel writes = kernel("writes",
                         [](Array2<float> A, Array2<float> C) {
                           parallel_for({C.dim(0), C.dim(1)}, [&](Index i, Index j) {
                             for_range(A.dim(1), [&](Index k) { C(i, j) = A(i, k); });
                           });
                         },
                         {"A", "C"});
  EXPECT_TRUE(starts_with(choice(writes), "not register-blocked: the inner loop writes to array "
                                          "'C'"))
      << choice(writes);
  // A 1-D loop: nothing to say.
  EXPECT_EQ(choice(kernel("scale",
                          [](Array<float> x) {
                            parallel_for(x.dim(0), [&](Index i) { x(i) = x(i) * 2.0f; });
                          },
                          {"x"})),
            "");
  // Hand tuning of the default mapping (unroll) and loom::none: nothing chosen, nothing said.
  Kernel tuned = matmul<float>("tuned");
  tuned.unroll("k", 4);
  EXPECT_EQ(chosen_tile(tuned).rows, 0);
  EXPECT_EQ(choice(tuned), "");
  Kernel off = matmul<float>("off");
  off.schedule(loom::none);
  EXPECT_EQ(chosen_tile(off).rows, 0);
  EXPECT_FALSE(off.ir().schedule.automatic);
  off.schedule(loom::automatic);
  EXPECT_EQ(chosen_tile(off).rows, 64);
  // From an explicit tile, loom::none goes back to the default mapping.
  Kernel tiled = matmul<float>("tiled");
  tiled.tile({64, 128, 8, 32}).schedule(loom::none);
  EXPECT_EQ(tiled.ir().schedule.mapping, ir::Mapping::Parallel);
  EXPECT_EQ(chosen_tile(tiled).rows, 0);
}

// Calls on the CPU: the chosen blocks give the default mapping's bits, at extents that are not
// multiples of the block (edge shares), an empty k range and a single element; both against a
// reference in double.
template <class T> void check_exact(const std::vector<std::array<int64_t, 3>> &shapes) {
  Kernel automatic = matmul<T>(sizeof(T) == 4 ? "auto_f32" : "auto_f64");
  Kernel plain = matmul<T>(sizeof(T) == 4 ? "plain_f32" : "plain_f64");
  automatic.on(Target::CPU);
  plain.on(Target::CPU).schedule(loom::none);
  uint64_t seed = 11;
  for (auto [m, p, n] : shapes) {
    SCOPED_TRACE(::testing::Message() << m << " x " << p << " x " << n);
    std::vector<T> A = random_vector<T>(size_t(m * p), -1, 1, seed++),
                   B = random_vector<T>(size_t(p * n), -1, 1, seed++);
    std::vector<T> C1(size_t(m * n), T(NAN)), C2(size_t(m * n), T(NAN));
    automatic(view(A, {m, p}), view(B, {p, n}), view(C1, {m, n}));
    plain(view(A, {m, p}), view(B, {p, n}), view(C2, {m, n}));
    EXPECT_EQ(std::memcmp(C1.data(), C2.data(), C1.size() * sizeof(T)), 0);
    double worst = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double ref = 0, mag = 0;
        for (int64_t k = 0; k < p; ++k)
          ref += double(A[i * p + k]) * double(B[k * n + j]),
              mag += std::fabs(double(A[i * p + k]) * double(B[k * n + j]));
        worst = std::max(worst, std::fabs(double(C1[i * n + j]) - ref) / std::max(mag, 1e-30));
      }
    // Each product and each addition rounded once: p + 1 roundings of the magnitude at most.
    EXPECT_LE(worst, double(p + 1) * (sizeof(T) == 4 ? 0x1p-24 : 0x1p-53));
  }
  EXPECT_NE(automatic.explain().find("register blocks of"), std::string::npos)
      << automatic.explain();
  EXPECT_EQ(plain.explain().find("register blocks of"), std::string::npos) << plain.explain();
}

TEST(AutoSchedule, CallsGiveTheDefaultMappingsBits) {
  const std::vector<std::array<int64_t, 3>> shapes = {{1, 1, 1},     {3, 5, 7},      {64, 40, 128},
                                                      {67, 33, 131}, {130, 70, 257}, {5, 0, 9}};
  check_exact<float>(shapes);
  check_exact<double>(shapes);
}

// An epilogue that reads C, an operand read through a 1-D array, and the f64 element type: the
// same bits as the default mapping, and a reference in double.
TEST(AutoSchedule, EpiloguesAndOtherOperandsKeepTheirBits) {
  Kernel automatic = weighted("weighted_auto"), plain = weighted("weighted_plain");
  automatic.on(Target::CPU);
  plain.on(Target::CPU).schedule(loom::none);
  ASSERT_TRUE(starts_with(choice(automatic), "register blocks of 4x16"));
  const int64_t m = 45, p = 37, n = 83;
  std::vector<double> A = random_vector<double>(size_t(m * p), -1, 1, 3),
                      B = random_vector<double>(size_t(p * n), -1, 1, 4),
                      w = random_vector<double>(size_t(p), 0.5, 2, 5),
                      C0 = random_vector<double>(size_t(m * n), -1, 1, 6);
  std::vector<double> C1 = C0, C2 = C0;
  automatic(view(A, {m, p}), view(B, {p, n}), w, view(C1, {m, n}), 0.75);
  plain(view(A, {m, p}), view(B, {p, n}), w, view(C2, {m, n}), 0.75);
  EXPECT_EQ(std::memcmp(C1.data(), C2.data(), C1.size() * sizeof(double)), 0);
  for (int64_t i = 0; i < m; i += 7)
    for (int64_t j = 0; j < n; ++j) {
      long double ref = 0;
      for (int64_t k = 0; k < p; ++k)
        ref += (long double)A[i * p + k] * w[k] * B[k * n + j];
      EXPECT_NEAR(C1[i * n + j], double(0.75L * ref + C0[i * n + j]), 1e-12);
    }
}

// Rodinia's lud, the trailing update of one step as a Numba user writes it: the loop over a
// range that starts at an offset, the block column and row read at offsets of k, and the
// element's own update after its sum. The blocks apply (the offsets are the same in every
// iteration and step), with the default mapping's bits, and a reference in double.
TEST(AutoSchedule, OffsetOperandsAndTheElementsOwnUpdate) {
  const char *source = R"(
@kernel(schedule=SCHEDULE)
def trailing(a: f32[n, n], o: i64):
    for i, j in parallel((o + 16, n), (o + 16, n)):
        s: f32 = 0.0
        for k in range(16):
            s += a[i, o + k] * a[o + k, j]
        inner = a[i, j]
        a[i, j] = inner - s
)";
  auto with = [&](const std::string &schedule) {
    std::string text = source;
    text.replace(text.find("SCHEDULE"), 8, schedule);
    return compile(text)["trailing"];
  };
  Kernel automatic = with("\"auto\""), plain = with("None");
  automatic.on(Target::CPU);
  plain.on(Target::CPU);
  EXPECT_TRUE(starts_with(choice(automatic), "register blocks of 4x32 iterations"))
      << choice(automatic);
  EXPECT_NE(choice(automatic).find("the inner loop reads a[o + k, o + 16 + j] and "
                                   "a[o + 16 + i, o + k] in every step"),
            std::string::npos)
      << choice(automatic);
  for (auto [n, o] : std::vector<std::pair<int64_t, int64_t>>{{181, 32}, {96, 0}, {40, 24}}) {
    SCOPED_TRACE(::testing::Message() << "n = " << n << ", o = " << o);
    std::vector<float> a0 = random_vector<float>(size_t(n * n), -1, 1, uint64_t(n + o));
    std::vector<float> a1 = a0, a2 = a0;
    automatic(view(a1, {n, n}), o);
    plain(view(a2, {n, n}), o);
    EXPECT_EQ(std::memcmp(a1.data(), a2.data(), a1.size() * sizeof(float)), 0);
    double worst = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double ref = a0[i * n + j], mag = std::fabs(ref);
        if (i >= o + 16 && j >= o + 16)
          for (int64_t k = 0; k < 16; ++k) {
            double t = double(a0[i * n + o + k]) * double(a0[(o + k) * n + j]);
            ref -= t, mag += std::fabs(t);
          }
        worst = std::max(worst, std::fabs(double(a1[i * n + j]) - ref) / std::max(mag, 1e-30));
      }
    // 16 products, 16 additions and the subtraction, each rounded once.
    EXPECT_LE(worst, 33 * 0x1p-24);
  }
}

// The text DSL's option, and what it takes.
TEST(AutoSchedule, TextOption) {
  Module m = compile(R"(
@kernel(schedule=None)
def off(A: f32[m, p], B: f32[p, n], C: f32[m, n]):
    for i, j in parallel(m, n):
        acc = f32(0.0)
        for k in range(p):
            acc += A[i, k] * B[k, j]
        C[i, j] = acc

@kernel(schedule="auto")
def on(A: f32[m, p], B: f32[p, n], C: f32[m, n]):
    for i, j in parallel(m, n):
        acc = f32(0.0)
        for k in range(p):
            acc += A[i, k] * B[k, j]
        C[i, j] = acc
)");
  EXPECT_FALSE(m["off"].ir().schedule.automatic);
  EXPECT_EQ(choice(m["off"]), "");
  EXPECT_TRUE(starts_with(choice(m["on"]), "register blocks of 4x32"));
  try {
    compile(R"(
@kernel(schedule=3)
def bad(x: f32[n]):
    for i in parallel(n):
        x[i] = 1.0
)");
    ADD_FAILURE() << "expected a DslError";
  } catch (const DslError &e) {
    EXPECT_NE(std::string(e.what()).find("option 'schedule' takes None (the default mapping, with "
                                         "no schedule of loom's choosing) or \"auto\" (loom may "
                                         "choose one)"),
              std::string::npos)
        << e.what();
  }
}
