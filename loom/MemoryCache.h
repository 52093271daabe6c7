// The in-memory compile cache: process-wide, from a cache key's digest to compiled code, so that
// a new Kernel object identical to one already compiled reuses its code. Internal to loom.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace loom {

template <class Code> class MemoryCache {
public:
  // The code for `key`: this process's, or what `compile` returns (then kept). Callers asking for
  // a key being compiled wait for that compile rather than repeat it; if it throws, they get its
  // exception and the key is left uncached. *hit says whether the code was already here or being
  // compiled by another caller.
  std::shared_ptr<Code> get_or_compile(const std::string &key,
                                       const std::function<std::shared_ptr<Code>()> &compile,
                                       bool *hit) {
    std::promise<std::shared_ptr<Code>> promise;
    std::shared_future<std::shared_ptr<Code>> future;
    uint64_t id = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto found = entries_.find(key);
      if (found != entries_.end()) {
        future = found->second.code;
      } else {
        id = ++last_id_;
        future = promise.get_future().share();
        entries_.emplace(key, Entry{id, future});
      }
    }
    if (id == 0) { // compiled, or being compiled, by someone else
      std::shared_ptr<Code> code = future.get();
      ++hits_;
      *hit = true;
      return code;
    }
    ++misses_;
    *hit = false;
    try {
      std::shared_ptr<Code> code = compile();
      promise.set_value(code);
      return code;
    } catch (...) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        auto found = entries_.find(key);
        if (found != entries_.end() && found->second.id == id) // not replaced since clear()
          entries_.erase(found);
      }
      promise.set_exception(std::current_exception());
      throw;
    }
  }

  // Forgets every entry; code still held by kernels lives on. Compiles in flight finish for
  // their callers but are not kept.
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.clear();
  }

  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  void reset_counts() { hits_ = 0, misses_ = 0; }

private:
  struct Entry {
    uint64_t id; // tells an entry from one made for the same key after clear()
    std::shared_future<std::shared_ptr<Code>> code;
  };
  std::mutex mutex_;
  std::map<std::string, Entry> entries_;
  uint64_t last_id_ = 0;
  std::atomic<uint64_t> hits_{0}, misses_{0};
};

} // namespace loom
