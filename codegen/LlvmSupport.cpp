#include "codegen/LlvmSupport.h"

#include "codegen/Codegen.h"

#include "support/Settings.h"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <mutex>
#include <sstream>
#include <vector>

namespace loom::codegen {

namespace {

// LOOM_LLVM_ARGS as given, and LLVM's complaint when it rejected them.
struct LlvmOptions {
  std::string text;
  std::string error;
};

LlvmOptions &llvm_options_state() {
  static LlvmOptions options;
  return options;
}

// Hands LOOM_LLVM_ARGS (e.g. "-disable-lsr -unroll-runtime=false") to LLVM's option parser, as
// llc's command line would. LLVM's options are process-wide: they apply to every compilation of
// the process, and cache keys include them (llvm_options()).
void apply_llvm_options() {
  LlvmOptions &options = llvm_options_state();
  options.text = settings::llvm_args();
  std::vector<std::string> words;
  std::istringstream in(options.text);
  for (std::string word; in >> word;)
    words.push_back(word);
  if (words.empty())
    return;
  std::vector<const char *> argv{"loom"};
  for (const std::string &word : words)
    argv.push_back(word.c_str());
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (!llvm::cl::ParseCommandLineOptions(static_cast<int>(argv.size()), argv.data(), "", &os)) {
    os.flush();
    // LLVM's first line says what is wrong ("loom: Unknown command line argument '-x'.  Try:
    // 'loom --help'"); its advice about a --help that loom has not got is dropped.
    std::string first = errors.substr(0, errors.find('\n'));
    first = first.substr(0, first.find("  Try:"));
    options.error = "LLVM rejected LOOM_LLVM_ARGS='" + options.text + "': " + first;
  }
}

} // namespace

void initialize_llvm_targets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    // A loop's vectorize hint (Kernel::vectorize) must not let LLVM reorder a float reduction,
    // which changes its bits; fastmath's reassoc flags still do. LOOM_LLVM_ARGS may say otherwise.
    if (auto *reorder = static_cast<llvm::cl::opt<bool> *>(
            llvm::cl::getRegisteredOptions().lookup("hints-allow-reordering")))
      reorder->setValue(false);
    // Dead-store elimination walks up from each store past up to 90 others by default, asking
    // alias analysis about each: a register-blocked tile's epilogue (256 stores of C in one
    // block) spent 45 of its 110 ms of compile time there, finding nothing. 16 steps find the
    // dead stores loom's code has (a store overwritten nearby).
    if (auto *walk = static_cast<llvm::cl::opt<unsigned> *>(
            llvm::cl::getRegisteredOptions().lookup("dse-memoryssa-walklimit")))
      walk->setValue(16);
    apply_llvm_options();
  });
  if (!llvm_options_state().error.empty())
    throw CompileError(llvm_options_state().error);
}

void add_codegen_passes(llvm::TargetMachine &target, llvm::legacy::PassManager &passes,
                        llvm::raw_pwrite_stream &out, llvm::CodeGenFileType type,
                        bool loop_strength_reduction) {
  // Codegen reads LLVM's process-wide -disable-lsr while it builds its pipeline, so the option is
  // set for this one construction, under a lock every construction takes; the value it had
  // (LOOM_LLVM_ARGS may have set it) is restored after.
  static std::mutex mutex;
  static auto *disable_lsr =
      static_cast<llvm::cl::opt<bool> *>(llvm::cl::getRegisteredOptions().lookup("disable-lsr"));
  std::lock_guard<std::mutex> lock(mutex);
  bool before = disable_lsr ? disable_lsr->getValue() : false;
  if (disable_lsr && !loop_strength_reduction)
    disable_lsr->setValue(true);
  bool failed = target.addPassesToEmitFile(passes, out, nullptr, type);
  if (disable_lsr)
    disable_lsr->setValue(before);
  if (failed)
    throw CompileError("LLVM's " + target.getTargetTriple().str() + " backend cannot emit " +
                       (type == llvm::CodeGenFileType::ObjectFile ? "object code" : "assembly"));
}

std::string llvm_options() {
  initialize_llvm_targets();
  return llvm_options_state().text;
}

void throw_llvm_error(llvm::Error error, const std::string &what) {
  throw CompileError(what + ": " + llvm::toString(std::move(error)));
}

namespace {
class CollectingHandler : public llvm::DiagnosticHandler {
public:
  explicit CollectingHandler(std::shared_ptr<std::string> errors) : errors_(std::move(errors)) {}
  bool handleDiagnostics(const llvm::DiagnosticInfo &info) override {
    if (info.getSeverity() == llvm::DS_Error) {
      llvm::raw_string_ostream os(*errors_);
      llvm::DiagnosticPrinterRawOStream printer(os);
      info.print(printer);
      os << "\n";
    }
    return true; // warnings and remarks are dropped rather than printed to stderr
  }

private:
  std::shared_ptr<std::string> errors_;
};
} // namespace

std::shared_ptr<std::string> collect_diagnostics(llvm::LLVMContext &context) {
  auto errors = std::make_shared<std::string>();
  context.setDiagnosticHandler(std::make_unique<CollectingHandler>(errors));
  return errors;
}

void check_diagnostics(const std::string &errors, const std::string &what) {
  if (!errors.empty())
    throw CompileError(what + ": " + errors);
}

void verify_module(const llvm::Module &module) {
  std::string report;
  llvm::raw_string_ostream os(report);
  if (llvm::verifyModule(module, &os)) {
    os.flush();
    throw CompileError("internal error: loom generated invalid LLVM IR for '" +
                       module.getName().str() + "':\n" + report);
  }
}

std::string module_text(const llvm::Module &module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  os.flush();
  return text;
}

void optimize_module(llvm::Module &module, llvm::TargetMachine &target,
                     const std::function<void(llvm::PassBuilder &)> &extend, const char *pipeline) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // LOOM_VERIFY_EACH_PASS=1 (set by the sanitizer stage of CI) runs the verifier after every
  // pass, naming the pass that broke the module; otherwise it runs once, after the pipeline.
  llvm::PassInstrumentationCallbacks callbacks;
  llvm::StandardInstrumentations instrumentations(module.getContext(), false,
                                                  settings::verify_each_pass());
  instrumentations.registerCallbacks(callbacks, &mam);
  llvm::PassBuilder builder(&target, llvm::PipelineTuningOptions(), std::nullopt, &callbacks);
  if (extend)
    extend(builder);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes;
  if (!pipeline)
    passes = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  else if (llvm::Error error = builder.parsePassPipeline(passes, pipeline))
    throw_llvm_error(std::move(error),
                     std::string("internal error: LLVM pipeline '") + pipeline + "' did not parse");
  passes.run(module, mam);
  verify_module(module);
}

} // namespace loom::codegen
