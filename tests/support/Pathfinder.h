// Rodinia's pathfinder as a text-DSL kernel (bench/rodinia/pathfinder/pathfinder.loom's loop),
// which the tests of ir/StepsPerLaunch.cpp run 16 steps a launch on the GPU.
#pragma once

namespace loomtest {

inline constexpr const char *pathfinder_source = R"(
@kernel
def pathfinder(wall: i32[R, C], cost: i32[2, C]):
    for t in range(R - 1):
        for n in parallel(C):
            above = cost[t % 2, n]
            left = cost[t % 2, max(n - 1, 0)]
            right = cost[t % 2, min(n + 1, C - 1)]
            cost[(t + 1) % 2, n] = wall[t + 1, n] + min(above, min(left, right))
)";

} // namespace loomtest
