// loom's compile caches, as a program sees them (docs/caching.md):
//
//  - in memory: a Kernel object whose lowered IR, options and target equal those of a kernel
//    already compiled in this process reuses that code (no compilation);
//  - on disk: PTX and GPU machine code (cubin), and CPU object code, kept across processes under
//    $LOOM_CACHE_DIR (else $XDG_CACHE_HOME/loom, else ~/.cache/loom). LOOM_CACHE=on|off|read|write
//    (default on) says whether loom reads and writes it.
#pragma once

#include <cstdint>
#include <string>

namespace loom {

// Counts since the process started (or since reset_cache_stats()).
struct CacheStats {
  uint64_t memory_hits = 0;   // compiles answered by code this process already had
  uint64_t memory_misses = 0; // compiles that had to get their code elsewhere
  uint64_t disk_hits = 0;     // entries read, found valid, and used
  uint64_t disk_misses = 0;   // entries looked for and not found
  // Entries found but not used: truncated, corrupted, of another format version or key, or
  // refused when loaded. Each was compiled anew and (unless LOOM_CACHE=read) rewritten.
  uint64_t disk_rejected = 0;
  uint64_t disk_writes = 0;         // entries written
  uint64_t disk_write_failures = 0; // entries that could not be written (compiling went on)
  // Compiles that found another process compiling the same kernel and waited for it (then
  // loaded its entry), and waits given up after two minutes (then compiled themselves).
  uint64_t disk_lock_waits = 0;
  uint64_t disk_lock_timeouts = 0;
  std::string last_problem; // the last rejection or write failure: file and reason
};

CacheStats cache_stats();
void reset_cache_stats();

// Drops this process's compiled code from the in-memory cache: the next new Kernel object
// compiles (or reads the disk cache) again. Kernel objects that hold code keep it.
void clear_memory_cache();

// The disk cache's directory as the environment says now (it may not exist yet); empty when
// neither LOOM_CACHE_DIR, XDG_CACHE_HOME nor HOME is set.
std::string cache_directory();

// Where a kernel object's code came from.
enum class CodeSource {
  NotCompiled,
  Compiled,    // LLVM ran (for the GPU, maybe with PTX from the disk cache; see detail)
  DiskCache,   // machine code (CPU object, cubin) from the disk cache: no LLVM at all
  MemoryCache, // code this process had already compiled for an identical kernel
};
const char *code_source_name(CodeSource source);

// How long the first compile of a kernel object took, per stage (milliseconds).
struct CompileTimes {
  CodeSource source = CodeSource::NotCompiled;
  std::string detail;     // e.g. "PTX from the disk cache, linked to machine code by the driver"
  double lower_ms = 0;    // lowering passes (always run: the key is the lowered IR)
  double key_ms = 0;      // canonical IR text and its hash
  double cache_ms = 0;    // reading and checking disk cache entries, memory cache lookup
  double llvm_ir_ms = 0;  // loom IR -> LLVM IR (with libdevice on the GPU)
  double optimize_ms = 0; // LLVM's O3 pipeline (a quick tier's: codegen::quick_pipeline)
  double emit_ms = 0;     // PTX text or CPU object code
  double link_ms = 0;     // GPU: PTX -> machine code by the driver's linker
  double load_ms = 0;     // JIT linking of the object (CPU), loading the module (GPU)
  double store_ms = 0;    // writing disk cache entries
  double total_ms = 0;    // all of the above and what lies between
};

} // namespace loom
