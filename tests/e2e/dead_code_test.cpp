// What has no effect is not computed (ir/DeadLocals.cpp, drop_empty_parallel_loops): a kernel
// whose only parallel loop runs over a constant empty range has no task and its call changes
// nothing; dead locals (a dead cos, an accumulator nothing reads) leave the results alone; under
// bounds checks a dead local's out-of-range read is still reported. On both targets.
#include "support/TestUtil.h"

#include <cmath>

using namespace loom;

namespace {

class DeadCode : public loomtest::TargetTest {};

} // namespace

TEST_P(DeadCode, WhatHasNoEffectIsNotComputedAndResultsStay) {
  Module m = compile(R"(
@kernel
def nothing(x: f32[n]):
    for i in parallel(0):
        x[i] = 7.0

@kernel
def dead(x: f32[n], y: f64[m]):
    for i in parallel(4):
        w = u32(i)
        c = math.cos(f32(w))
        acc = 0.0
        for k in range(m):
            acc = acc + y[k]
        x[i] = f32(i) * 2.0

@kernel(bounds_check=True)
def dead_checked(x: f32[n], y: f64[m]):
    for i in parallel(1):
        acc = 0.0
        for k in range(m + 1):
            acc = acc + y[k]
        x[0] = 1.0
)");
  std::vector<float> x = {1, 2, 3, 4, 5};
  std::vector<double> y = {0.5, 1.5, 2.5};
  Kernel nothing = m["nothing"], dead = m["dead"], checked = m["dead_checked"];
  nothing.on(target())(x);
  EXPECT_EQ(x, (std::vector<float>{1, 2, 3, 4, 5}));
  EXPECT_EQ(nothing.lowered().find("task"), std::string::npos) << nothing.lowered();
  dead.on(target())(x, y);
  EXPECT_EQ(x, (std::vector<float>{0, 2, 4, 6, 5}));
  EXPECT_EQ(dead.lowered().find("cos"), std::string::npos) << dead.lowered();
  try {
    checked.on(target())(x, y);
    ADD_FAILURE() << "expected a BoundsError";
  } catch (const BoundsError &e) {
    EXPECT_NE(std::string(e.what()).find("'y'"), std::string::npos) << e.what();
  }
}

LOOM_INSTANTIATE_TARGETS(DeadCode);
