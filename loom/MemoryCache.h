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
  // A key claimed for one compile, whose code (or exception) goes to whoever asks for the key
  // meanwhile: fulfil() or fail() it, on any thread, exactly once.
  class Claim {
  public:
    void fulfil(std::shared_ptr<Code> code) { promise_.set_value(std::move(code)); }
    void fail(std::exception_ptr error) {
      cache_->forget(key_, id_);
      promise_.set_exception(std::move(error));
    }

  private:
    friend class MemoryCache;
    MemoryCache *cache_ = nullptr;
    std::string key_;
    uint64_t id_ = 0;
    std::promise<std::shared_ptr<Code>> promise_;
  };

  // Claims `key` when nothing has it (a miss): the caller then compiles it. Null when the key
  // has code or a compile in flight.
  std::unique_ptr<Claim> claim(const std::string &key) {
    auto claim = std::make_unique<Claim>();
    std::lock_guard<std::mutex> lock(mutex_);
    if (entries_.count(key))
      return nullptr;
    claim->cache_ = this;
    claim->key_ = key;
    claim->id_ = ++last_id_;
    entries_.emplace(key, Entry{claim->id_, claim->promise_.get_future().share()});
    ++misses_;
    return claim;
  }

  // The code for `key`: this process's, or what `compile` returns (then kept). Callers asking for
  // a key being compiled wait for that compile rather than repeat it; if it throws, they get its
  // exception and the key is left uncached. *hit says whether the code was already here or being
  // compiled by another caller.
  std::shared_ptr<Code> get_or_compile(const std::string &key,
                                       const std::function<std::shared_ptr<Code>()> &compile,
                                       bool *hit) {
    std::unique_ptr<Claim> mine;
    while (!mine) {
      std::shared_future<std::shared_ptr<Code>> future;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        auto found = entries_.find(key);
        if (found != entries_.end())
          future = found->second.code;
      }
      if (future.valid()) { // compiled, or being compiled, by someone else
        std::shared_ptr<Code> code = future.get();
        ++hits_;
        *hit = true;
        return code;
      }
      mine = claim(key); // null when another caller claimed it in between: wait for that one
    }
    *hit = false;
    try {
      std::shared_ptr<Code> code = compile();
      mine->fulfil(code);
      return code;
    } catch (...) {
      mine->fail(std::current_exception());
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
  // Drops the entry of a failed compile (not one made for the same key after clear()).
  void forget(const std::string &key, uint64_t id) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = entries_.find(key);
    if (found != entries_.end() && found->second.id == id)
      entries_.erase(found);
  }

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
