// loom's environment variables (LOOM_*) in one table: each one's name, the values it takes, what
// unset means, when it is read and what it does (docs/environment.md lists the same rows). loom
// reads them here and nowhere else, each through the typed accessor below that validates it: a bad
// value throws a loom::Error (the kind the variable's user throws) naming the variable, the value
// and what is expected. support/Env.h's env() is for other programs' variables (HOME, CUDA_HOME),
// and the tests' own variables (LOOM_DIFF_SEED, ...) are theirs.
#pragma once

#include <optional>
#include <span>
#include <string>

namespace loom::settings {

// When a variable is read. Most are read once per process, on first use: what they choose is
// process-wide anyway (a library loaded once, LLVM's options, how every kernel's code is made).
// Those a program may switch between kernels -- where kernels run, the disk cache and its
// directory, the CPU threads, the PTX linker, bounds checks of new kernels -- are read at each use,
// as they always were: the tests switch them with setenv (each cache test has its own directory),
// and so may a program. That is simpler than a reload() that everyone who calls setenv would have
// to know of, and costs one getenv per use.
enum class Reading { Once, EachUse };

struct Variable {
  const char *name;     // "LOOM_CACHE"
  const char *values;   // "on|off|read|write" (one of these words), else what it takes in words
  const char *fallback; // what unset means: one of the words, else in words
  Reading reading;
  const char *meaning; // one line
};

// Every variable, in the order of docs/environment.md.
std::span<const Variable> variables();

// LOOM_TARGET (each use): where kernels run.
enum class Target { Auto, Gpu, Cpu }; // the table's words, in its order
Target target();

// LOOM_CACHE (each use): what the disk cache of compiled code does.
enum class CacheMode { On, Off, Read, Write };
CacheMode cache_mode();
// LOOM_CACHE_DIR (each use): where the disk cache lives; nullopt when unset.
std::optional<std::string> cache_dir();

// LOOM_NUM_THREADS (each use): the CPU threads of a parallel loop; nullopt when unset.
std::optional<int> num_threads();

// LOOM_PTX_LINKER (each use): what turns PTX into machine code.
enum class PtxLinker { Auto, NvJitLink, Driver };
PtxLinker ptx_linker();
// Whether LOOM_PTX_LINKER is set, rather than ptx_linker() being its default (each use).
bool ptx_linker_set();

// LOOM_BOUNDS_CHECK (each use): whether kernels created now check their array accesses.
bool bounds_check();
// LOOM_ASSERTS (each use): whether kernels created now check their assertions (Error for a value
// other than 0 or 1).
bool asserts();

// LOOM_DEVICE (once): the default GPU, as written (runtime/GpuContext.h's default_device reads
// it); nullopt when unset.
const std::optional<std::string> &device();

// LOOM_PRINT_BUFFER (once): the bytes of each GPU's print() buffer; nullopt when unset.
std::optional<size_t> print_buffer();

// LOOM_CUDA_DRIVER (once): the CUDA driver library to load instead of libcuda.so.1.
const std::optional<std::string> &cuda_driver();
// LOOM_NVJITLINK (once): the nvJitLink library to load instead of searching for one.
const std::optional<std::string> &nvjitlink();
// LOOM_LIBDEVICE (once): the libdevice bitcode to use instead of searching for one.
const std::optional<std::string> &libdevice();
// LOOM_LLVM_ARGS (once): options for LLVM's command-line parser; empty when unset.
const std::string &llvm_args();

// LOOM_DUMP (once): print the IR after every lowering pass.
bool dump_ir();
// LOOM_VERIFY_EACH_PASS (once): verify the IR after every lowering pass and every LLVM pass.
bool verify_each_pass();

// LOOM_INDEX_BITS (once): 32 (32-bit GPU index arithmetic where the arrays allow it) or 64.
int index_bits();
// LOOM_GRID_STRIDE (once): GPU parallel loops as grid-stride loops whatever the launch.
bool grid_stride();
// LOOM_OVERLAP_LAUNCHES (once): whether the launches of a task loop's CUDA graph may begin while
// the launch before finishes (programmatic dependent launch, sm_90 on; runtime/LaunchGraph.h).
bool overlap_launches();
// LOOM_STEPS_PER_LAUNCH (once): the steps of a task loop around a 1-D stencil that one GPU launch
// computes (ir/StepsPerLaunch.cpp); 1 leaves one step a launch.
int steps_per_launch();
// LOOM_STAGE_BLOCK_READS (once): whether a GPU block may run the iterations that share what a
// loop reads, staging it in shared memory (ir/StageBlockReads.cpp).
bool stage_block_reads();
// LOOM_TIERED (once): 0 leaves kernels untiered, 1 tiers every one, quick runs quick code only.
enum class Tiered { Off, On, QuickOnly };
Tiered tiered();

} // namespace loom::settings
