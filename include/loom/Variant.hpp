// Which code of a kernel: the target and, on the GPU, the facts besides the kernel itself that
// decide the code (architecture, PTX version, index width, loop mapping, tier). A call resolves
// its variant from the kernel, its arrays and the machine; every stage dump (Kernel::lowered,
// llvm, ptx) and dsl-to-ptx resolve theirs by the same function, so the dump of a variant is the
// code a call of that variant runs, byte for byte.
#pragma once

#include "ir/IR.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loom {

// Where a kernel runs: Target::GPU (PTX through the CUDA driver) or Target::CPU (LLVM's ORC JIT).
using Target = ir::Target;

// A tiered kernel's quick code (LLVM's short pipeline, the backend at -O0) runs while its
// optimized code compiles (Kernel::tiered).
enum class Tier : uint8_t { Optimized, Quick };

struct Variant {
  Target target = Target::GPU;
  // The rest are GPU facts (empty or false for the CPU).
  std::string sm;      // "sm_90"
  int ptx_version = 0; // 85 for PTX ISA 8.5
  // 32-bit index arithmetic: the code of a call whose arrays each have at most 2^30 elements.
  bool index32 = false;
  // Parallel loops take one iteration per thread under an `if` (the launch covers the domain),
  // rather than grid-stride loops that run on any grid.
  bool covering = false;
  Tier tier = Tier::Optimized;

  bool operator==(const Variant &) const = default;
  // "GPU sm_90, PTX ISA 8.5, 32-bit indices, covering launch, optimized" or "CPU".
  std::string to_string() const;
};

// What a dump or a tool asks for: every field left empty takes what a call whose arrays each have
// at most 2^30 elements runs, with the kernel's settings and the machine's GPU (sm_90 and LLVM's
// newest PTX when there is none), LOOM_INDEX_BITS and LOOM_GRID_STRIDE included.
struct VariantRequest {
  std::optional<Target> target; // default: the kernel's target (Kernel::on, else LOOM_TARGET)
  std::optional<std::string> sm;
  std::optional<int> ptx_version;
  std::optional<bool> index32;
  std::optional<bool> covering;
  std::optional<Tier> tier;
  // Array parameters read as strided views (ir::Param::strided): the code of a call that passes
  // views with strides of their own for them (dsl-to-ptx --strided=A,B). Empty: dense arrays.
  std::vector<std::string> strided = {};
};

} // namespace loom
