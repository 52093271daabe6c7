// Small LLVM utilities shared by the targets: turning LLVM's errors into loom::CompileError at the
// boundary, verifying and printing modules, and the O3 pipeline.
#pragma once

#include "support/Error.h"

#include <llvm/Support/CodeGen.h>
#include <llvm/Support/Error.h>

#include <functional>
#include <memory>
#include <string>
#include <type_traits>

namespace llvm {
class LLVMContext;
class PassBuilder;
class Module;
class TargetMachine;
class raw_pwrite_stream;
namespace legacy {
class PassManager;
}
} // namespace llvm

namespace loom::codegen {

// Registers the host and NVPTX targets with LLVM, once per process (registration is not
// thread-safe, so both targets go through this one call_once).
void initialize_llvm_targets();

// Throws a CompileError saying `what` failed, with LLVM's message.
[[noreturn]] void throw_llvm_error(llvm::Error error, const std::string &what);

template <class T> T unwrap(llvm::Expected<T> value, const std::string &what) {
  if (!value)
    throw_llvm_error(value.takeError(), what);
  if constexpr (std::is_reference_v<T>)
    return *value;
  else
    return std::move(*value);
}

inline void check(llvm::Error error, const std::string &what) {
  if (error)
    throw_llvm_error(std::move(error), what);
}

// Makes `context` collect its error diagnostics into the returned string instead of printing
// them and ending the process (LLVM's default); check_diagnostics throws if there were any.
std::shared_ptr<std::string> collect_diagnostics(llvm::LLVMContext &context);
void check_diagnostics(const std::string &errors, const std::string &what);

// Runs LLVM's verifier; a broken module is a bug in codegen, reported as an internal error.
void verify_module(const llvm::Module &module);

// The module as LLVM assembly text.
std::string module_text(const llvm::Module &module);

// The standard O3 pipeline, built with `target` so that its cost model and its own passes (for
// NVPTX: NVVMReflect and friends) take part; `extend`, if given, registers a target's own passes
// at the pipeline's extension points. With `pipeline` (LLVM's textual pipeline syntax, as opt's
// -passes takes) that pipeline instead.
void optimize_module(llvm::Module &module, llvm::TargetMachine &target,
                     const std::function<void(llvm::PassBuilder &)> &extend = {},
                     const char *pipeline = nullptr);

// Adds `target`'s code generation passes, emitting `type` to `out`, to `passes`
// (TargetMachine::addPassesToEmitFile), with LLVM's loop strength reduction left out unless
// `loop_strength_reduction`. Throws loom::CompileError when the target cannot emit `type`.
void add_codegen_passes(llvm::TargetMachine &target, llvm::legacy::PassManager &passes,
                        llvm::raw_pwrite_stream &out, llvm::CodeGenFileType type,
                        bool loop_strength_reduction);

} // namespace loom::codegen
