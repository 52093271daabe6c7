#include "codegen/Libdevice.h"

#include "codegen/LlvmSupport.h"
#include "support/Env.h"
#include "support/Settings.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>

namespace loom::codegen {

namespace {

// libdevice's bitcode, read once per path.
const llvm::MemoryBuffer *libdevice_bitcode(const std::string &path) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<llvm::MemoryBuffer>> buffers;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<llvm::MemoryBuffer> &slot = buffers[path];
  if (!slot) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file = llvm::MemoryBuffer::getFile(path);
    if (!file)
      throw CompileError("cannot read libdevice at " + path + ": " + file.getError().message());
    slot = std::move(*file);
  }
  return slot.get();
}

// Tells LLVM that every loop of libdevice's functions ends (they all do: the longest, fmod's and
// remainder's, runs once per bit of the exponents' difference), so that LLVM deletes the loop of a
// call whose result ends up unused. LLVM cannot prove it alone (libdevice is not compiled with
// `mustprogress`) and ptxas then deletes the loop itself, which ptxas 13.0 gets wrong in one case
// at least: when the loop was all of an if's then branch, ptxas turned the branch around it into
// an EXIT whose two predicates it combined wrongly, and the H200 ran the else branch
// (DifferentialRegression.Ptxas_AcosConditionSeed26122974, tests/golden/dead_loop_ptx.loom).
void mark_loops_finite(llvm::Function &f) {
  llvm::DominatorTree dominators(f);
  llvm::LoopInfo loops(dominators);
  llvm::LLVMContext &context = f.getContext();
  for (llvm::Loop *loop : loops.getLoopsInPreorder()) {
    llvm::SmallVector<llvm::Metadata *, 4> operands{nullptr};
    if (llvm::MDNode *id = loop->getLoopID())
      for (unsigned i = 1; i < id->getNumOperands(); ++i)
        operands.push_back(id->getOperand(i));
    operands.push_back(
        llvm::MDNode::get(context, llvm::MDString::get(context, "llvm.loop.mustprogress")));
    llvm::MDNode *id = llvm::MDNode::getDistinct(context, operands);
    id->replaceOperandWith(0, id);
    loop->setLoopID(id);
  }
  f.addFnAttr(llvm::Attribute::MustProgress);
}

// The libdevice functions `needed` with everything they use (helpers, tables), as the bitcode of a
// module of their own, made once per set of functions. Linking it gives a kernel what linking
// libdevice itself does, but is quicker: even a lazy read of libdevice reads the declarations of
// all its ~350 functions, for every kernel (bench/RESULTS.md, "Compile latency, second pass: where
// the time goes"). Few sets recur in a process; one that makes ever new ones (the differential
// tester) keeps at most 64.
std::shared_ptr<const std::string> libdevice_subset(const std::string &path,
                                                    std::vector<std::string> needed) {
  std::sort(needed.begin(), needed.end());
  std::string key = path;
  for (const std::string &name : needed)
    key += "\n" + name;
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const std::string>> subsets;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto found = subsets.find(key); found != subsets.end())
    return found->second;

  const llvm::MemoryBuffer *bitcode = libdevice_bitcode(path);
  llvm::LLVMContext context;
  std::shared_ptr<std::string> errors = collect_diagnostics(context);
  std::unique_ptr<llvm::Module> library =
      unwrap(llvm::getLazyBitcodeModule(bitcode->getMemBufferRef(), context),
             "cannot parse libdevice " + path);
  llvm::Module subset("libdevice", context);
  subset.setTargetTriple(library->getTargetTriple());
  subset.setDataLayout(library->getDataLayout());
  for (const std::string &name : needed)
    if (const llvm::Function *f = library->getFunction(name))
      llvm::Function::Create(f->getFunctionType(), llvm::GlobalValue::ExternalLinkage, name,
                             subset);
  if (llvm::Linker::linkModules(subset, std::move(library), llvm::Linker::Flags::LinkOnlyNeeded))
    throw CompileError("extracting functions from libdevice " + path + " failed: " + *errors);
  for (llvm::Function &f : subset)
    if (!f.isDeclaration())
      mark_loops_finite(f);
  auto out = std::make_shared<std::string>();
  llvm::raw_string_ostream os(*out);
  llvm::WriteBitcodeToFile(subset, os);
  os.flush();
  if (subsets.size() >= 64)
    subsets.clear();
  subsets.emplace(key, out);
  return out;
}

std::string find_libdevice(const GpuTarget &gpu, const std::vector<std::string> &needed) {
  std::vector<std::string> tried = libdevice_candidates(gpu);
  for (const std::string &path : tried) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec))
      return path;
  }
  std::string functions, paths;
  for (const std::string &name : needed) {
    std::string base = name.substr(5); // drop "__nv_"; a trailing 'f' means f32
    std::string fn =
        base.back() == 'f' ? base.substr(0, base.size() - 1) + " (f32)" : base + " (f64)";
    functions += (functions.empty() ? "" : ", ") + fn;
  }
  for (const std::string &path : tried)
    paths += "\n  " + path;
  throw CompileError(
      "the GPU math function(s) " + functions +
      " need CUDA's libdevice (libdevice.10.bc), which was not found; tried:" + paths +
      "\nSet LOOM_LIBDEVICE to its path (it is under nvvm/libdevice/ in "
      "the CUDA toolkit).");
}

} // namespace

std::vector<std::string> libdevice_candidates(const GpuTarget &gpu) {
  // A path the user named is the only one tried: quietly using another would hide a mistake.
  if (!gpu.libdevice_path.empty())
    return {gpu.libdevice_path};
  if (const std::optional<std::string> &path = settings::libdevice())
    return {*path};
  std::vector<std::string> paths;
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (std::optional<std::string> root = env(var))
      paths.push_back(*root + "/nvvm/libdevice/libdevice.10.bc");
#ifdef LOOM_DEFAULT_LIBDEVICE
  paths.push_back(LOOM_DEFAULT_LIBDEVICE);
#endif
  paths.push_back("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc");
  paths.push_back("/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc");
  paths.push_back("/usr/lib/cuda/nvvm/libdevice/libdevice.10.bc");
  std::vector<std::string> unique;
  for (std::string &p : paths)
    if (std::find(unique.begin(), unique.end(), p) == unique.end())
      unique.push_back(std::move(p));
  return unique;
}

std::string libdevice_identity(const GpuTarget &gpu) {
  // The file find_libdevice would pick; its size and modification time stand for its contents
  // (hashing 470 KB of bitcode for every new kernel would cost more than it protects against).
  for (const std::string &path : libdevice_candidates(gpu)) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
      continue;
    uintmax_t size = std::filesystem::file_size(path, ec);
    auto modified = std::filesystem::last_write_time(path, ec);
    return path + " " + std::to_string(size) + " " +
           std::to_string(modified.time_since_epoch().count());
  }
  return "none";
}

void link_libdevice(llvm::Module &module, const GpuTarget &gpu, bool fast_math,
                    const std::vector<std::string> &entries) {
  std::vector<std::string> needed;
  for (const llvm::Function &f : module)
    if (f.isDeclaration() && f.getName().starts_with("__nv_"))
      needed.push_back(f.getName().str());
  if (needed.empty())
    return;

  std::shared_ptr<const std::string> subset = libdevice_subset(find_libdevice(gpu, needed), needed);
  std::unique_ptr<llvm::Module> library = unwrap(
      llvm::parseBitcodeFile(llvm::MemoryBufferRef(*subset, "libdevice"), module.getContext()),
      "cannot parse the functions taken from libdevice");
  // libdevice's own triple and layout are generic ones; matching ours avoids linker warnings.
  library->setTargetTriple(module.getTargetTriple());
  library->setDataLayout(module.getDataLayout());
  if (llvm::Linker::linkModules(module, std::move(library), llvm::Linker::Flags::LinkOnlyNeeded))
    throw CompileError("linking libdevice into kernel '" + module.getName().str() + "' failed");

  for (llvm::Function &f : module)
    if (!f.isDeclaration() &&
        std::find(entries.begin(), entries.end(), f.getName().str()) == entries.end())
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::GlobalVariable &g : module.globals())
    if (!g.isDeclaration())
      g.setLinkage(llvm::GlobalValue::InternalLinkage);
  // libdevice asks __nvvm_reflect("__CUDA_FTZ") whether to flush f32 denormals to zero.
  module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", fast_math ? 1 : 0);
}

} // namespace loom::codegen
