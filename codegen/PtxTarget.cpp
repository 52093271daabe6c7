// The NVPTX target: target machines, PTX ISA and SM selection, and PTX emission. libdevice
// linking lives in Libdevice.cpp.
#include "codegen/CodegenPTX.h"
#include "codegen/GpuWorkarounds.h"
#include "codegen/Libdevice.h"
#include "codegen/LlvmSupport.h"
#include "codegen/Targets.h"

#include <llvm/IR/LegacyPassManager.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include <algorithm>
#include <map>
#include <mutex>

namespace loom::codegen {

namespace {

constexpr const char *kTriple = "nvptx64-nvidia-cuda";

const llvm::Target &nvptx_target() {
  initialize_llvm_targets();
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(kTriple, error);
  if (!target)
    throw CompileError("LLVM's NVPTX target is not available: " + error);
  return *target;
}

// What LLVM's NVPTX backend knows about, read from its own tables so that a newer LLVM brings
// newer PTX versions and SMs without a change here.
struct NvptxCapabilities {
  int max_ptx = 0;
  std::vector<int> sms; // e.g. 75, 80, 86, 90 ('a' variants excluded), ascending
  // The architecture-specific variants ("sm_90a": wgmma, setmaxnreg), which run only on their
  // own architecture: a target by request, never chosen for a device.
  std::vector<std::string> specific;
};

const NvptxCapabilities &capabilities() {
  static const NvptxCapabilities caps = [] {
    NvptxCapabilities c;
    std::unique_ptr<llvm::MCSubtargetInfo> info(
        nvptx_target().createMCSubtargetInfo(kTriple, "sm_90", ""));
    for (const llvm::SubtargetFeatureKV &f : info->getAllProcessorFeatures()) {
      llvm::StringRef key(f.Key);
      int version = 0;
      if (key.consume_front("ptx") && !key.getAsInteger(10, version))
        c.max_ptx = std::max(c.max_ptx, version);
    }
    for (const llvm::SubtargetSubTypeKV &p : info->getAllProcessorDescriptions()) {
      llvm::StringRef key(p.Key);
      int sm = 0;
      if (!key.consume_front("sm_"))
        continue;
      if (!key.getAsInteger(10, sm))
        c.sms.push_back(sm);
      else if (key.ends_with("a") && !key.drop_back().getAsInteger(10, sm))
        c.specific.push_back(p.Key);
    }
    std::sort(c.sms.begin(), c.sms.end());
    return c;
  }();
  return caps;
}

// The lowest PTX ISA version that can target an SM (from the PTX ISA release notes); ptxas and
// the driver reject PTX whose .version is older than its .target needs.
int min_ptx_for_sm(int sm) {
  static const std::pair<int, int> table[] = {{90, 78}, {89, 78}, {87, 74}, {86, 71},
                                              {80, 70}, {75, 63}, {72, 61}, {70, 60}};
  for (auto [s, ptx] : table)
    if (sm >= s)
      return ptx;
  return 32;
}

// A target machine per (sm, PTX version, fast math, tier), created once. Its mutex serialises the
// passes that use it: TargetMachine is not documented as safe to share between threads.
struct CachedMachine {
  std::unique_ptr<llvm::TargetMachine> machine;
  std::mutex mutex;
};

struct ResolvedTarget {
  std::string sm;
  int ptx_version;
};

ResolvedTarget resolve(const GpuTarget &requested, const ir::LoweredKernel &kernel) {
  const NvptxCapabilities &caps = capabilities();
  GpuTarget gpu = requested;
  // A task that needs its SM's architecture-specific instructions (wgmma: sm_90a) takes the
  // kernel there; such code runs on that architecture only, which the lowering chose it for.
  bool arch_specific = false;
  for (const ir::Task &t : kernel.tasks)
    arch_specific = arch_specific || t.arch_specific;
  if (arch_specific && !gpu.sm.ends_with("a")) {
    if (std::find(caps.specific.begin(), caps.specific.end(), gpu.sm + "a") == caps.specific.end())
      throw CompileError("kernel '" + kernel.name + "' needs " + gpu.sm +
                         "a, which LLVM's NVPTX backend does not know");
    gpu.sm += "a";
  }
  llvm::StringRef sm_text(gpu.sm);
  int sm = 0;
  const bool specific =
      std::find(caps.specific.begin(), caps.specific.end(), gpu.sm) != caps.specific.end();
  if (specific)
    sm_text = sm_text.drop_back(); // "sm_90a": sm_90's PTX version at least
  if (!sm_text.consume_front("sm_") || sm_text.getAsInteger(10, sm) ||
      (!specific && std::find(caps.sms.begin(), caps.sms.end(), sm) == caps.sms.end()))
    throw CompileError("GPU architecture '" + gpu.sm +
                       "' is not one LLVM's NVPTX backend knows "
                       "(the newest is sm_" +
                       std::to_string(caps.sms.back()) +
                       (caps.specific.empty() ? "" : ", and " + caps.specific.back()) + ")");
  // A version above LLVM's is clamped rather than refused: LLVM cannot emit it anyway, and the
  // caller's intent ("as new as possible") is met by LLVM's newest.
  int ptx = gpu.ptx_version <= 0 ? caps.max_ptx : std::min(gpu.ptx_version, caps.max_ptx);
  if (ptx < min_ptx_for_sm(sm))
    throw CompileError("PTX ISA " + std::to_string(ptx / 10) + "." + std::to_string(ptx % 10) +
                       " cannot target " + gpu.sm + ", which needs PTX ISA " +
                       std::to_string(min_ptx_for_sm(sm) / 10) + "." +
                       std::to_string(min_ptx_for_sm(sm) % 10) + " (a newer CUDA driver)");
  return {gpu.sm, ptx};
}

CachedMachine &target_machine(const ResolvedTarget &target, bool fast_math, bool quick) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<CachedMachine>> machines;
  std::string key = target.sm + "/" + std::to_string(target.ptx_version) +
                    (fast_math ? "/fast" : "") + (quick ? "/quick" : "");
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<CachedMachine> &slot = machines[key];
  if (!slot) {
    llvm::TargetOptions options;
    options.UnsafeFPMath = fast_math; // approximate division and square root
    // a * b + c may become one fma, as nvcc does by default (--fmad=true): half the instructions
    // in multiply-accumulate loops, and no less accurate (docs/semantics.md).
    options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
    // Default, not Aggressive: the backend's IR passes then clean up with EarlyCSE where they
    // ran GVN twice. The PTX of the benchmark kernels is the same and their emission quicker
    // (bench/RESULTS.md, "Compile latency, second pass: where the time goes"). A quick compile's
    // backend runs at None: no IR passes, the plainest instruction selection (ptxas optimizes
    // what it gets).
    auto cached = std::make_unique<CachedMachine>();
    cached->machine.reset(nvptx_target().createTargetMachine(
        kTriple, target.sm, "+ptx" + std::to_string(target.ptx_version), options, std::nullopt,
        std::nullopt, quick ? llvm::CodeGenOptLevel::None : llvm::CodeGenOptLevel::Default));
    if (!cached->machine)
      throw CompileError("LLVM could not create an NVPTX target machine for " + target.sm);
    slot = std::move(cached);
  }
  return *slot;
}

std::vector<std::string> task_names(const ir::LoweredKernel &kernel) {
  std::vector<std::string> names;
  for (const ir::Task &task : kernel.tasks)
    names.push_back(task.name);
  return names;
}

} // namespace

std::unique_ptr<llvm::Module> gpu_module(const ir::LoweredKernel &kernel,
                                         llvm::LLVMContext &context, const GpuTarget &gpu,
                                         bool optimize, StageTimes *times) {
  if (kernel.target != ir::Target::GPU)
    throw CompileError("kernel '" + kernel.name + "' was lowered for the CPU, not the GPU");
  CachedMachine &cached = target_machine(resolve(gpu, kernel), kernel.fast_math, gpu.quick);
  std::unique_ptr<llvm::Module> module;
  {
    StageTimer timer(times ? &times->llvm_ir_ms : nullptr);
    module = CodegenPTX(context, gpu.index32)
                 .compile(kernel, kTriple, cached.machine->createDataLayout());
    if (optimize)
      link_libdevice(*module, gpu, kernel.fast_math, task_names(kernel));
    // After linking: the inliner keeps "unsafe-fp-math" only where caller and callee agree, as
    // clang also sets its attributes on the builtin bitcode it links.
    if (kernel.fast_math)
      for (llvm::Function &f : *module)
        if (!f.isDeclaration()) {
          f.addFnAttr("unsafe-fp-math", "true"); // approximate division and square root
          f.addFnAttr("denormal-fp-math-f32", "preserve-sign,preserve-sign"); // flush to zero
        }
  }
  if (optimize) {
    std::lock_guard<std::mutex> lock(cached.mutex);
    StageTimer timer(times ? &times->optimize_ms : nullptr);
    optimize_module(*module, *cached.machine, {}, gpu.quick ? quick_pipeline : nullptr);
    work_around_gpu_miscompiles(*module);
  }
  return module;
}

std::string emit_ptx(const ir::LoweredKernel &kernel, const GpuTarget &gpu, StageTimes *times) {
  llvm::LLVMContext context;
  std::shared_ptr<std::string> errors = collect_diagnostics(context);
  std::unique_ptr<llvm::Module> module = gpu_module(kernel, context, gpu, true, times);
  CachedMachine &cached = target_machine(resolve(gpu, kernel), kernel.fast_math, gpu.quick);

  llvm::SmallString<0> ptx;
  {
    llvm::raw_svector_ostream os(ptx);
    llvm::legacy::PassManager passes;
    std::lock_guard<std::mutex> lock(cached.mutex);
    StageTimer timer(times ? &times->emit_ms : nullptr);
    // Without LLVM's loop strength reduction: ptxas does its own, and on the H200 the naive
    // matmul ran faster without LLVM's (saxpy and the sum unchanged), while it took a share of
    // the matmul's PTX emission time (docs/decisions.md, "PTX without LLVM's loop strength
    // reduction; LLVM options from the environment").
    add_codegen_passes(*cached.machine, passes, os, llvm::CodeGenFileType::AssemblyFile, false);
    passes.run(*module);
  }
  check_diagnostics(*errors, "PTX generation failed for kernel '" + kernel.name + "'");
  return std::string(ptx.str());
}

int max_llvm_ptx_version() {
  return capabilities().max_ptx;
}

int ptx_version_for_driver(int driver_version) {
  // cuDriverGetVersion's value (1000 * major + 10 * minor) -> the newest PTX ISA that CUDA
  // release's driver JIT accepts, from the PTX ISA release notes. A version between entries
  // gets the one below it: a driver accepts at least what its CUDA release introduced.
  static const std::pair<int, int> table[] = {
      {9000, 60},  {9010, 61},  {9020, 62},  {10000, 63}, {10010, 64}, {10020, 65}, {11000, 70},
      {11010, 71}, {11020, 72}, {11030, 73}, {11040, 74}, {11050, 75}, {11060, 76}, {11070, 77},
      {11080, 78}, {12000, 80}, {12010, 81}, {12020, 82}, {12030, 83}, {12040, 84}, {12050, 85},
      {12060, 85}, {12080, 87}, {12090, 88}, {13000, 90}};
  int ptx = table[0].second; // older than CUDA 9: no PTX loom can generate will load anyway
  for (auto [driver, version] : table)
    if (driver_version >= driver)
      ptx = version;
  return ptx;
}

std::string sm_for_compute_capability(int major, int minor) {
  // The newest SM LLVM knows that is no newer than the device: PTX for an older SM is JIT-compiled
  // by the driver for any newer device.
  const std::vector<int> &sms = capabilities().sms;
  int wanted = major * 10 + minor;
  int chosen = sms.front();
  for (int sm : sms)
    if (sm <= wanted)
      chosen = sm;
  return "sm_" + std::to_string(chosen);
}

} // namespace loom::codegen
