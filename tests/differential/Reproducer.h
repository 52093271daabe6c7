// Turns a failing program into something a person can act on: C++ that rebuilds it exactly (the
// kernel through the helpers of differential/Build.h, the arguments with every bit), written as a
// GoogleTest to paste into tests/differential/regressions_test.cpp.
#pragma once

#include "differential/Shrink.h"

#include <string>

namespace loom::difftest {

// A TEST(DifferentialRegression, <name>) rebuilding `program` and calling
// expect_backends_agree(program); `comment` becomes its first comment lines.
std::string reproducer_cpp(const Program &program, const std::string &name,
                           const std::string &comment);

// The strided views the compiled runs pass (Program::views), a line each; empty when none.
std::string views_text(const Program &program);

// Shrinks the failure, then describes it: the seed, the check and its first difference, the
// smallest failing program as IR text and its views, and the C++ of a regression test for it, which
// is also written to `dir`/<kernel name>.cpp when `dir` is not empty.
std::string shrink_and_report(const Program &program, const Failure &failure,
                              const CheckOptions &options, const std::string &dir);

} // namespace loom::difftest
