// Readable text of IR, used by dumps, explain() and golden tests.
#pragma once

#include "ir/IR.h"

#include <string>

namespace loom::ir {

std::string to_string(const Kernel &kernel);
std::string to_string(const LoweredKernel &kernel);
// An expression or statement alone; `params` names arrays (may be empty: arrays print as #k).
std::string to_string(const Expr &e, const std::vector<Param> &params = {});
std::string to_string(const Stmt &s, const std::vector<Param> &params = {});

} // namespace loom::ir
