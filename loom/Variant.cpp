// The one place that decides which code variant a kernel gets: for a call, for a stage dump and
// for dsl-to-ptx alike (include/loom/Variant.hpp).
#include "loom/KernelState.h"

#include "codegen/Codegen.h"
#include "ir/Lower.h"
#include "support/Settings.h"

#include <cctype>
#include <cstdio>

namespace loom {

std::string Variant::to_string() const {
  if (target == Target::CPU)
    return "CPU";
  return "GPU " + sm + ", PTX ISA " + std::to_string(ptx_version / 10) + "." +
         std::to_string(ptx_version % 10) + (index32 ? ", 32-bit indices" : ", 64-bit indices") +
         (covering ? ", covering launch" : ", grid-stride loops") +
         (tier == Tier::Quick ? ", quick tier" : ", optimized");
}

Variant resolve_variant(const KernelState &state, const VariantRequest &request) {
  Variant v;
  v.target = request.target ? *request.target
             : state.target ? state.target->target
                            : choose_target().target;
  if (v.target == Target::CPU)
    return v;
  if (!request.sm || !request.ptx_version) {
    const codegen::GpuTarget &machine = gpu_target_for_this_machine();
    v.sm = machine.sm;
    v.ptx_version = machine.ptx_version;
  }
  if (request.sm)
    v.sm = *request.sm;
  if (request.ptx_version)
    v.ptx_version = *request.ptx_version;
  v.index32 = request.index32.value_or(index32_allowed());
  // Kernel::shape and a capping launch policy choose grids that may not cover the domain.
  v.covering = request.covering.value_or(covering_allowed() && covering_launch_possible(state));
  v.tier = request.tier.value_or(Tier::Optimized);
  return v;
}

namespace {

// LOOM_DUMP=1 prints the IR after every lowering pass to stderr.
ir::PassLog dump_log() {
  if (!settings::dump_ir())
    return nullptr;
  return [](const std::string &pass, const std::string &text) {
    std::fprintf(stderr, "; loom: IR after %s\n%s\n", pass.c_str(), text.c_str());
  };
}

} // namespace

int sm_number(const std::string &sm) {
  int number = 0;
  if (sm.rfind("sm_", 0) == 0)
    for (size_t k = 3; k < sm.size() && std::isdigit(static_cast<unsigned char>(sm[k])); ++k)
      number = number * 10 + (sm[k] - '0');
  return number;
}

ir::LoweredKernel lower_variant(const ir::Kernel &kernel, const Variant &variant,
                                const ir::PassLog &log) {
  const int sm = variant.target == Target::GPU ? sm_number(variant.sm) : 0;
  codegen::VectorRegisters vectors;
  if (variant.target == Target::CPU)
    vectors = codegen::host_vector_registers();
  return ir::lower(kernel, variant.target, log ? log : dump_log(),
                   {.covering_launch = variant.target == Target::GPU && variant.covering,
                    .sm = sm,
                    .cpu_vector_bits = vectors.bits,
                    .cpu_vector_registers = vectors.count});
}

codegen::GpuTarget gpu_target_of(const Variant &variant) {
  codegen::GpuTarget t;
  t.sm = variant.sm;
  t.ptx_version = variant.ptx_version;
  t.index32 = variant.index32;
  t.quick = variant.tier == Tier::Quick;
  return t;
}

} // namespace loom
