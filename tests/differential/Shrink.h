// Delta debugging for a failing program: greedy one-step reductions (remove a statement, take
// one branch of an if, run a loop's body once, run a parallel loop over one point, replace an
// expression by 0, by 1 or by one of its operands), each kept when the program is still valid and
// still fails the same check the same way, until no reduction is kept; then passing a strided
// view dense instead (Program::views), kept likewise. The views kept keep their layouts.
//
// A reduction that breaks the program (an index out of bounds, a data race, an endless loop, a
// variable out of scope) is caught by the verifier or the reference interpreter, and dropped.
#pragma once

#include "differential/Harness.h"

#include <functional>

namespace loom::difftest {

struct ShrinkResult {
  Program program;
  Failure failure; // as the smallest program fails
  int tried = 0;   // candidates run
  int kept = 0;    // reductions kept
};

ShrinkResult shrink(const Program &program, const Failure &failure, const CheckOptions &options,
                    int max_tries = 2000);

// The reduction loop itself, for any failure: `still_fails` decides whether a candidate is kept
// (it must reject invalid programs itself, e.g. with check_program's `invalid`).
Program shrink_while(const Program &program,
                     const std::function<bool(const Program &)> &still_fails, int max_tries,
                     int *tried = nullptr, int *kept = nullptr);

// The number of IR nodes, to report how much a reduction removed.
int program_size(const Program &program);

} // namespace loom::difftest
