// The lowering pipeline: a kernel as a front end built it -> tasks ready for code generation.
#pragma once

#include "ir/IR.h"

#include <functional>
#include <string>

namespace loom::ir {

// Called after each pass with the pass name and the IR text after it (LOOM_DUMP, dsl-to-ptx).
using PassLog = std::function<void(const std::string &pass, const std::string &ir_text)>;

// How a kernel is lowered beyond its target.
struct LowerOptions {
  // GPU: parallel loops that can take one iteration per thread do (Task::covering), for a launch
  // whose grid covers their domain.
  bool covering_launch = false;
  // GPU: the architecture the code is for (90 for sm_90 and sm_90a; 0: not known). The tile
  // schedule uses the tensor cores from 80 on.
  int sm = 0;
  // CPU: the host's vector registers, their width in bits and their number (AVX-512: 512 and
  // 32), from which the schedule loom chooses for a loop of the matmul form sizes its register
  // blocks (ir/AutoSchedule.cpp); 0: not known, and no schedule is chosen.
  int cpu_vector_bits = 0;
  int cpu_vector_registers = 0;
};

LoweredKernel lower(const Kernel &kernel, Target target, const PassLog &log = nullptr,
                    const LowerOptions &options = {});

} // namespace loom::ir
