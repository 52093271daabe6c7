// The host CPU target: one process-wide ORC LLJIT, one JITDylib per compiled kernel.
#include "codegen/CodegenLLVM.h"
#include "codegen/LlvmSupport.h"
#include "codegen/Targets.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
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

  static Host &get() {
    // Created on first use and never destroyed: kernels may outlive static destruction order.
    static Host *host = new Host(create_builder());
    return *host;
  }

private:
  explicit Host(llvm::orc::JITTargetMachineBuilder b) : builder(std::move(b)) {
    builder.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
    machine = unwrap(builder.createTargetMachine(), "cannot create a target machine for the host");
    cpu = builder.getCPU();
    features = builder.getFeatures().getString();
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
            // Compile on whichever thread looks a kernel up, each with its own TargetMachine.
            .setSupportConcurrentCompilation(true)
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
  }
  const std::vector<CpuTaskFn> &tasks() const override { return tasks_; }

  llvm::orc::JITDylib &dylib_;
  std::vector<CpuTaskFn> tasks_;
};

} // namespace

std::unique_ptr<llvm::Module> cpu_module(const ir::LoweredKernel &kernel,
                                         llvm::LLVMContext &context, bool optimize) {
  if (kernel.target != ir::Target::CPU)
    throw CompileError("kernel '" + kernel.name + "' was lowered for the GPU, not the CPU");
  Host &host = Host::get();
  std::unique_ptr<llvm::Module> module = CodegenLLVM(context).compile(
      kernel, host.machine->getTargetTriple().str(), host.machine->createDataLayout());
  // As clang does: the functions say which CPU they are for, so every pass sees its features.
  for (llvm::Function &f : *module)
    if (!f.isDeclaration()) {
      f.addFnAttr("target-cpu", host.cpu);
      f.addFnAttr("target-features", host.features);
    }
  if (optimize) {
    std::lock_guard<std::mutex> lock(host.mutex);
    optimize_module(*module, *host.machine);
  }
  return module;
}

std::unique_ptr<CpuCode> compile_cpu(const ir::LoweredKernel &kernel) {
  auto context = std::make_unique<llvm::LLVMContext>();
  std::shared_ptr<std::string> errors = collect_diagnostics(*context);
  std::unique_ptr<llvm::Module> module = cpu_module(kernel, *context, true);
  check_diagnostics(*errors, "LLVM failed on kernel '" + kernel.name + "'");

  llvm::orc::LLJIT &j = jit();
  static std::atomic<uint64_t> next_id{0};
  llvm::orc::JITDylib &dylib =
      unwrap(j.createJITDylib("loom." + kernel.name + "." + std::to_string(next_id++)),
             "cannot create a JITDylib");
  auto code = std::make_unique<JitCpuCode>(dylib); // from here on, its destructor frees dylib
  check(j.addIRModule(
            dylib, llvm::orc::ThreadSafeModule(std::move(module),
                                               llvm::orc::ThreadSafeContext(std::move(context)))),
        "cannot add kernel '" + kernel.name + "' to the JIT");
  for (const ir::Task &task : kernel.tasks) {
    llvm::orc::ExecutorAddr address =
        unwrap(j.lookup(dylib, task.name), "JIT compilation of task '" + task.name + "' failed");
    code->tasks_.push_back(address.toPtr<CpuTaskFn>());
  }
  check_diagnostics(*errors, "JIT compilation of kernel '" + kernel.name + "' failed");
  return code;
}

std::string host_cpu_name() {
  return llvm::sys::getHostCPUName().str();
}

} // namespace loom::codegen
