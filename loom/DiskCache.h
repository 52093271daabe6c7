// The disk cache: compiled code kept across processes, one file per entry (loom/CacheEntry.h)
// in one directory. Safe for any number of processes at once: an entry is written to a
// temporary file in the same directory and renamed into place, so readers see a whole entry or
// none; and every entry is checked when read, so a torn or corrupted file is never loaded. A
// cache problem never stops a kernel: it is counted (cache_stats()) and the kernel compiled.
#pragma once

#include "loom/Cache.hpp"
#include "loom/CacheKey.h"
#include "support/Settings.h"

#include <functional>
#include <string>
#include <string_view>

namespace loom::disk_cache {

// LOOM_CACHE: on (the default: read and write), off, read (use entries, write none) or write
// (write entries, use none: to refresh them). Throws CacheError for another value.
using Mode = settings::CacheMode; // On, Off, Read, Write
Mode mode();

// $LOOM_CACHE_DIR, else $XDG_CACHE_HOME/loom, else $HOME/.cache/loom; empty if none is set.
std::string directory();
// The file of `key`'s entry in directory().
std::string entry_path(const CacheKey &key);

// Unless the mode forbids reading: reads `key`'s entry and hands its payload to `use`. Returns
// true (a hit) when `use` returned. An entry that fails its checks, or that `use` refuses by
// throwing loom::Error, is counted as rejected, not used, and left for store() to replace.
bool load(const CacheKey &key, const std::function<void(std::string &&payload)> &use);

// Whether `key` has an entry that load() would read (not checked, not counted): for choosing
// between waiting for an entry and compiling something else first.
bool has(const CacheKey &key);

// Unless the mode forbids writing: writes `key`'s entry atomically, creating the directory
// (mode 0700) if needed. Never throws: a failure is counted and kept as last_problem.
void store(const CacheKey &key, std::string_view payload);

// While alive, holds `key`'s compile lock: an flock on a file named after the entry in the
// directory's locks/ folder. Processes that miss one entry at once (the ranks of an MPI job on
// one node, a build's parallel jobs) take turns: the first compiles and stores, and the others,
// once they hold the lock, find its entry (waited() and has() tell them to look again). A lock dies
// with its process, so a crash leaves no stale lock; a holder that takes longer than `patience` is
// not waited for any longer (the waiter compiles too, counted as a lock timeout). Takes no lock
// unless the mode reads and writes (LOOM_CACHE=on) and the locks/ folder can be made.
class CompileLock {
public:
  explicit CompileLock(const CacheKey &key, double patience_seconds = 120);
  ~CompileLock();
  CompileLock(const CompileLock &) = delete;
  CompileLock &operator=(const CompileLock &) = delete;
  // Whether another process held the lock when this one asked (its entry may now be there).
  bool waited() const { return waited_; }

private:
  int fd_ = -1;
  bool waited_ = false;
};

// Adds the disk cache's counts to `stats`; resets them.
void add_stats(CacheStats &stats);
void reset_stats();

} // namespace loom::disk_cache
