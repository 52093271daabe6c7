// The host CPU target: O3 and object code from one cached target machine, then one process-wide
// ORC LLJIT that links each kernel's object into its own JITDylib. Object code in between is what
// the disk cache keeps (loom/DiskCache.h): a cached object skips LLVM's optimization entirely.
#include "codegen/CodegenLLVM.h"
#include "codegen/CpuLoopHints.h"
#include "codegen/LlvmSupport.h"
#include "codegen/Targets.h"

#include <algorithm>

#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/Mangling.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <atomic>
#include <iostream>
#include <mutex>

namespace loom::codegen {

namespace {

// The host as LLVM sees it, with a target machine for the O3 pipeline's cost model. Its mutex
// serialises the passes that use it (X86's subtarget cache is not thread-safe).
struct Host {
  llvm::orc::JITTargetMachineBuilder builder;
  std::unique_ptr<llvm::TargetMachine> machine;
  std::mutex mutex;
  std::string cpu, features;
  bool avx512 = false; // 512-bit registers, not only AVX-512's instructions on 256-bit ones

  static Host &get() {
    // Created on first use and never destroyed: kernels may outlive static destruction order.
    static Host *host = new Host(create_builder());
    return *host;
  }

private:
  explicit Host(llvm::orc::JITTargetMachineBuilder b) : builder(std::move(b)) {
    builder.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
    // Objects are linked by JITLink at any address: position-independent code, small code model
    // (what LLJIT itself would set up for its own code generation).
    builder.setRelocationModel(llvm::Reloc::PIC_);
    builder.setCodeModel(llvm::CodeModel::Small);
    machine = unwrap(builder.createTargetMachine(), "cannot create a target machine for the host");
    cpu = builder.getCPU();
    features = builder.getFeatures().getString();
    avx512 = features.find("+avx512f") != std::string::npos &&
             features.find("+evex512") != std::string::npos;
  }
  static llvm::orc::JITTargetMachineBuilder create_builder() {
    initialize_llvm_targets();
    // detectHost fills in the host's CPU name and features (AVX2, AVX-512, ...).
    return unwrap(llvm::orc::JITTargetMachineBuilder::detectHost(), "cannot detect the host CPU");
  }
};

// One JIT per process: its sessions are thread-safe, and each kernel's code lives in its own
// JITDylib, so kernels with equal task names do not clash and each can be freed alone.
llvm::orc::LLJIT &jit() {
  static llvm::orc::LLJIT *instance = [] {
    Host &host = Host::get();
    std::unique_ptr<llvm::orc::LLJIT> created = unwrap(
        llvm::orc::LLJITBuilder()
            .setJITTargetMachineBuilder(host.builder)
            // Kernels call libm (expf, pow, ...): resolve against what this process has loaded.
            .setProcessSymbolsJITDylibSetup(
                [](llvm::orc::LLJIT &j) -> llvm::Expected<llvm::orc::JITDylibSP> {
                  llvm::orc::JITDylib &process =
                      j.getExecutionSession().createBareJITDylib("<process>");
                  auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
                      j.getDataLayout().getGlobalPrefix());
                  if (!generator)
                    return generator.takeError();
                  process.addGenerator(std::move(*generator));
                  // SIMT tasks call the runtime (support/Abi.h); libloom does not export it.
                  llvm::orc::MangleAndInterner mangle(j.getExecutionSession(), j.getDataLayout());
                  auto symbol = [](auto *function) {
                    return llvm::orc::ExecutorSymbolDef(llvm::orc::ExecutorAddr::fromPtr(function),
                                                        llvm::JITSymbolFlags::Exported);
                  };
                  const SimtEntryPoints &runtime = simt_entry_points();
                  if (!runtime.thread || !runtime.barrier || !runtime.warp ||
                      !print_entry_point().print)
                    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                                   "the CPU runtime's SIMT entry points are not "
                                                   "registered (runtime/CpuSimt.cpp)");
                  if (llvm::Error e = process.define(llvm::orc::absoluteSymbols(
                          {{mangle("loom_simt_thread"), symbol(runtime.thread)},
                           {mangle("loom_simt_barrier"), symbol(runtime.barrier)},
                           {mangle("loom_simt_warp"), symbol(runtime.warp)},
                           {mangle("loom_print"), symbol(print_entry_point().print)}})))
                    return e;
                  return &process;
                })
            .create(),
        "cannot create the CPU JIT");
    return created.release(); // never destroyed, like Host
  }();
  return *instance;
}

class JitCpuCode : public CpuCode {
public:
  explicit JitCpuCode(llvm::orc::JITDylib &dylib) : dylib_(dylib) {}
  ~JitCpuCode() override {
    // Frees the kernel's machine code. A destructor cannot throw, so a failure is only reported.
    if (llvm::Error error = jit().getExecutionSession().removeJITDylib(dylib_))
      std::cerr << "loom: freeing JIT-compiled code failed: " << llvm::toString(std::move(error))
                << "\n";
    // The session's symbol-name pool keeps the entries of released names until asked to drop
    // them (about 70 bytes per kernel name otherwise, for the life of the process).
    jit().getExecutionSession().getSymbolStringPool()->clearDeadEntries();
  }
  const std::vector<CpuTaskFn> &tasks() const override { return tasks_; }

  llvm::orc::JITDylib &dylib_;
  std::vector<CpuTaskFn> tasks_;
};

} // namespace

std::unique_ptr<llvm::Module> cpu_module(const ir::LoweredKernel &kernel,
                                         llvm::LLVMContext &context, bool optimize,
                                         StageTimes *times) {
  if (kernel.target != ir::Target::CPU)
    throw CompileError("kernel '" + kernel.name + "' was lowered for the GPU, not the CPU");
  Host &host = Host::get();
  std::unique_ptr<llvm::Module> module;
  {
    StageTimer timer(times ? &times->llvm_ir_ms : nullptr);
    module = CodegenLLVM(context).compile(kernel, host.machine->getTargetTriple().str(),
                                          host.machine->createDataLayout());
    // As clang does: the functions say which CPU they are for, so every pass sees its features.
    for (llvm::Function &f : *module)
      if (!f.isDeclaration()) {
        f.addFnAttr("target-cpu", host.cpu);
        f.addFnAttr("target-features", host.features);
        // LLVM keeps to 256-bit vectors on AVX-512 hosts unless asked (older Xeons clocked down
        // on 512-bit code); g++ -march=native uses 512 bits on recent ones. Streaming loops (the
        // stencil, saxpy) match g++ only with 512-bit vectors and no interleaving together.
        if (host.avx512)
          f.addFnAttr("prefer-vector-width", "512");
        // A stack aligned to 32 bytes at entry, as g++ -march=native gives its AVX functions:
        // the System V ABI promises 16, so LLVM otherwise spills 256-bit registers to slots a
        // cache line may split, depending on the caller's stack. The tile schedule's matmul
        // spills 7 accumulators per k step: against g++'s same blocking its speed depended on
        // the offset of the caller's stack, and with this it does not (bench/RESULTS.md, "CPU
        // against g++ and Numba: sums in lanes, a realigned stack").
        f.addFnAttr("stackrealign");
      }
  }
  if (optimize) {
    std::lock_guard<std::mutex> lock(host.mutex);
    StageTimer timer(times ? &times->optimize_ms : nullptr);
    const bool neighbours =
        std::any_of(kernel.tasks.begin(), kernel.tasks.end(),
                    [](const ir::Task &t) { return t.tile.rows > 0 || t.lanes > 1; });
    optimize_module(*module, *host.machine, [neighbours](llvm::PassBuilder &builder) {
      add_cpu_loop_hints(builder, neighbours);
    });
  }
  return module;
}

std::string compile_cpu_object(const ir::LoweredKernel &kernel, StageTimes *times) {
  llvm::LLVMContext context;
  std::shared_ptr<std::string> errors = collect_diagnostics(context);
  std::unique_ptr<llvm::Module> module = cpu_module(kernel, context, true, times);
  check_diagnostics(*errors, "LLVM failed on kernel '" + kernel.name + "'");

  Host &host = Host::get();
  llvm::SmallString<0> object;
  {
    llvm::raw_svector_ostream os(object);
    llvm::legacy::PassManager passes;
    std::lock_guard<std::mutex> lock(host.mutex);
    StageTimer timer(times ? &times->emit_ms : nullptr);
    add_codegen_passes(*host.machine, passes, os, llvm::CodeGenFileType::ObjectFile, true);
    passes.run(*module);
  }
  check_diagnostics(*errors, "code generation failed for kernel '" + kernel.name + "'");
  return std::string(object.str());
}

std::unique_ptr<CpuCode> load_cpu_object(const std::string &object,
                                         const ir::LoweredKernel &kernel) {
  llvm::orc::LLJIT &j = jit();
  static std::atomic<uint64_t> next_id{0};
  llvm::orc::JITDylib &dylib =
      unwrap(j.createJITDylib("loom." + kernel.name + "." + std::to_string(next_id++)),
             "cannot create a JITDylib");
  auto code = std::make_unique<JitCpuCode>(dylib); // from here on, its destructor frees dylib
  check(j.addObjectFile(dylib, llvm::MemoryBuffer::getMemBufferCopy(object, kernel.name + ".o")),
        "cannot add the object code of kernel '" + kernel.name + "' to the JIT");
  for (const ir::Task &task : kernel.tasks) {
    llvm::orc::ExecutorAddr address =
        unwrap(j.lookup(dylib, task.name), "linking task '" + task.name + "' in the JIT failed");
    code->tasks_.push_back(address.toPtr<CpuTaskFn>());
  }
  return code;
}

std::unique_ptr<CpuCode> compile_cpu(const ir::LoweredKernel &kernel) {
  return load_cpu_object(compile_cpu_object(kernel), kernel);
}

std::string host_cpu_name() {
  return llvm::sys::getHostCPUName().str();
}

VectorRegisters host_vector_registers() {
  Host &host = Host::get();
  const llvm::Triple triple = host.machine->getTargetTriple();
  if (triple.isAArch64())
    return {128, 32};
  if (host.avx512)
    return {512, 32};
  // LLVM's features: "+sse2,+avx,-avx512f,...".
  const std::string features = "," + host.features + ",";
  if (features.find(",+avx,") != std::string::npos)
    return {256, 16};
  return {128, 16};
}

std::string llvm_version() {
  return LLVM_VERSION_STRING;
}

std::string host_cpu_identity() {
  Host &host = Host::get();
  return host.machine->getTargetTriple().str() + " " + host.cpu + " " + host.features;
}

} // namespace loom::codegen
