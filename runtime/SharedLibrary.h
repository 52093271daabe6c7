// A library loaded at run time with dlopen, and its entry points resolved by name: how loom uses
// the CUDA driver (Driver.h) and nvJitLink (NvJitLink.h) without linking against either, so that
// it builds without them and runs, saying why, where they are missing.
#pragma once

#include <optional>
#include <span>
#include <string>

namespace loom::runtime {

// One entry point of a library: its symbol, and the function-pointer member it is resolved into.
struct EntryPoint {
  const char *symbol;
  void **slot;
  const char *older_symbol = nullptr; // tried when the library lacks `symbol`
};

// The X-macro entry of an EntryPoint list for member `name`, resolved from the symbol `name`:
// `EntryPoint points[] = {LOOM_CUDA_ENTRY_POINTS(LOOM_ENTRY_POINT)};`.
#define LOOM_ENTRY_POINT(name, params) EntryPoint{#name, reinterpret_cast<void **>(&name)},

// A handle that does not close the library when it goes: the entry points resolved from it are
// used until the process exits. close() gives up one that is not kept.
class SharedLibrary {
public:
  // Loads `path` (RTLD_NOW | RTLD_LOCAL); nullopt when it cannot be, with the loader's reason in
  // *why.
  static std::optional<SharedLibrary> open(const std::string &path, std::string *why);

  // Sets every slot of `entry_points` to its symbol's address (its older symbol's when the library
  // has only that). Returns the first symbol the library has not got, or null when it has all.
  const char *resolve(std::span<const EntryPoint> entry_points) const;
  // Sets every slot to null: half-resolved entry points must not be used.
  static void clear(std::span<const EntryPoint> entry_points);
  // The file the library containing `address` was loaded from (dlopen may have found it through
  // the loader's path); empty when the loader cannot say.
  static std::string file_of(const void *address);

  void close();

private:
  explicit SharedLibrary(void *handle) : handle_(handle) {}
  void *handle_;
};

} // namespace loom::runtime
