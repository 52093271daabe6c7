// An element a sequential loop updates in every step lives in a local for the loop
// (ir/PromoteUpdates.cpp): lud's diagonal block, whose reads of the same array are of other
// elements (k < i <= j), is promoted and computes what the loop in C++ computes, bit for bit;
// where another read may be of the element (k reaches j), or the store is conditional, the
// element stays in memory. Random inputs; on both targets.
#include "support/LudDiagonal.h"
#include "support/TestUtil.h"

#include <random>

using namespace loom;

namespace {

class PromoteUpdates : public loomtest::TargetTest {};

const std::string source = loomtest::lud_diagonal_source + R"(
@kernel
def overlapping(a: f32[n, n]):
    for i in parallel(n):
        for j in range(n):
            for k in range(n):
                a[i, j] = a[i, j] - a[i, k] * f32(0.25)

@kernel
def conditional(x: f32[n], y: f32[m]):
    for i in parallel(1):
        for k in range(n):
            if x[k] > 0.0:
                y[0] = y[0] + x[k]
)";

} // namespace

TEST_P(PromoteUpdates, ElementsProvablyAloneLiveInLocals) {
  Module m = compile(source);
  Kernel diagonal = m["diagonal"], overlapping = m["overlapping"], conditional = m["conditional"];
  diagonal.on(target());
  overlapping.on(target());
  conditional.on(target());

  const int64_t n = 48, o = 16;
  std::mt19937 rng(20261204);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> a(n * n);
  for (float &v : a)
    v = u(rng);
  for (int64_t i = 0; i < n; ++i)
    a[i * n + i] += 4.0f; // diagonally dominant: no tiny pivots
  std::vector<float> want = a;
  loomtest::lud_diagonal_reference(want, n, o);
  diagonal(loom::view(a.data(), {n, n}), o);
  // The same operations in the same order: bit for bit on the CPU; the GPU may contract a product
  // and a difference into an fma (docs/semantics.md, "Floats"), a rounding less per step: within
  // a few ulps of the block's entries (they stay below 8 in magnitude, the pivots above 3).
  const bool exact = target() == loom::ir::Target::CPU;
  for (int64_t e = 0; e < n * n; ++e)
    if (exact)
      ASSERT_EQ(a[e], want[e]) << "element " << e;
    else
      ASSERT_NEAR(a[e], want[e], 1e-5) << "element " << e;
  EXPECT_NE(diagonal.lowered().find("a_element"), std::string::npos) << diagonal.lowered();

  std::vector<float> b(6 * 6);
  for (float &v : b)
    v = u(rng);
  std::vector<float> b_want = b;
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 6; ++j)
      for (int64_t k = 0; k < 6; ++k)
        b_want[i * 6 + j] = b_want[i * 6 + j] - b_want[i * 6 + k] * 0.25f;
  overlapping(loom::view(b.data(), {6, 6}));
  for (size_t e = 0; e < b.size(); ++e)
    if (exact)
      ASSERT_EQ(b[e], b_want[e]) << "element " << e;
    else
      ASSERT_NEAR(b[e], b_want[e], 1e-5) << "element " << e;
  EXPECT_EQ(overlapping.lowered().find("a_element"), std::string::npos) << overlapping.lowered();

  std::vector<float> x = {0.5f, -1.0f, 2.0f, -0.25f}, y = {1.0f};
  conditional(x, y);
  EXPECT_EQ(y[0], 3.5f);
  EXPECT_EQ(conditional.lowered().find("y_element"), std::string::npos) << conditional.lowered();
}

LOOM_INSTANTIATE_TARGETS(PromoteUpdates);
