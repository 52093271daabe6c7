// The disk cache on the CPU, through Kernel objects: hits after misses, the directory it creates,
// entries that are truncated, corrupted or of another format (ignored, recompiled, rewritten),
// and the LOOM_CACHE modes.
#include "CacheTestUtil.h"

#include "loom/DiskCache.h"

#include <chrono>
#include <filesystem>

using namespace loom;
using namespace loomtest;

namespace {

class DiskCache : public CacheTest {
protected:
  // A new saxpy Kernel object, compiled on the CPU with nothing in the in-memory cache, and
  // checked; returns where its code came from.
  CodeSource compile_saxpy() {
    clear_memory_cache();
    Kernel k = cpu(make_saxpy());
    EXPECT_TRUE(saxpy_is_correct(k));
    return k.compile_times().source;
  }

  // Compiles saxpy into the empty cache, damages its entry with `damage`, and checks that the
  // next compile rejects the entry, compiles, gets correct results and rewrites a valid entry.
  void expect_rejected_and_rewritten(const std::function<void(std::string &bytes)> &damage,
                                     const std::string &reason) {
    ASSERT_EQ(CodeSource::Compiled, compile_saxpy());
    std::string path = only_entry("cpu-object");
    std::string bytes = read_bytes(path);
    damage(bytes);
    write_bytes(path, bytes);
    reset_cache_stats();

    EXPECT_EQ(CodeSource::Compiled, compile_saxpy());
    CacheStats stats = cache_stats();
    EXPECT_EQ(1u, stats.disk_rejected);
    EXPECT_EQ(0u, stats.disk_hits);
    EXPECT_EQ(1u, stats.disk_writes);
    EXPECT_NE(std::string::npos, stats.last_problem.find(path)) << stats.last_problem;
    EXPECT_NE(std::string::npos, stats.last_problem.find(reason)) << stats.last_problem;
    std::string why;
    EXPECT_TRUE(entry_is_valid(path, &why)) << why;

    reset_cache_stats();
    EXPECT_EQ(CodeSource::DiskCache, compile_saxpy());
    EXPECT_EQ(1u, cache_stats().disk_hits);
  }
};

TEST_F(DiskCache, SecondKernelObjectLoadsTheObjectCodeWrittenByTheFirst) {
  Kernel first = cpu(make_saxpy());
  EXPECT_EQ(CodeSource::NotCompiled, first.compile_times().source);
  EXPECT_TRUE(saxpy_is_correct(first));
  CompileTimes t1 = first.compile_times();
  EXPECT_EQ(CodeSource::Compiled, t1.source);
  EXPECT_GT(t1.optimize_ms, 0);
  EXPECT_GT(t1.emit_ms, 0);
  CacheStats stats = cache_stats();
  EXPECT_EQ(0u, stats.disk_hits);
  EXPECT_EQ(1u, stats.disk_misses);
  EXPECT_EQ(1u, stats.disk_writes);
  std::string path = only_entry("cpu-object");
  std::string why;
  EXPECT_TRUE(entry_is_valid(path, &why)) << why;
  EXPECT_EQ(1u, files_in(cache_dir()).size()) << "no temporary file may be left behind";

  clear_memory_cache(); // else the second object would share the first's code
  Kernel second = cpu(make_saxpy());
  second.compile();
  CompileTimes t2 = second.compile_times();
  EXPECT_EQ(CodeSource::DiskCache, t2.source) << t2.detail;
  EXPECT_EQ(0, t2.optimize_ms) << "a hit must not run LLVM's optimizer";
  EXPECT_EQ(0, t2.emit_ms);
  EXPECT_TRUE(saxpy_is_correct(second));
  stats = cache_stats();
  EXPECT_EQ(1u, stats.disk_hits);
  EXPECT_EQ(1u, stats.disk_writes);
  EXPECT_NE(std::string::npos, second.explain().find("object code from the disk cache"))
      << second.explain();
}

TEST_F(DiskCache, DifferentKernelsGetDifferentEntries) {
  Kernel s = cpu(make_saxpy()), m = cpu(make_matmul());
  EXPECT_TRUE(saxpy_is_correct(s));
  EXPECT_TRUE(matmul_is_correct(m));
  EXPECT_EQ(2u, files_starting_with(cache_dir(), "cpu-object-").size());
  clear_memory_cache();
  Kernel m2 = cpu(make_matmul());
  EXPECT_TRUE(matmul_is_correct(m2));
  EXPECT_EQ(CodeSource::DiskCache, m2.compile_times().source);
}

TEST_F(DiskCache, CreatesItsDirectoryWithMode0700) {
  ScopedEnv deep("LOOM_CACHE_DIR", dir_.path() + "/a/b/loom");
  EXPECT_EQ(dir_.path() + "/a/b/loom", cache_directory());
  ASSERT_EQ(CodeSource::Compiled, compile_saxpy());
  for (const char *sub : {"/a", "/a/b", "/a/b/loom"})
    EXPECT_EQ(0700u, permissions_of(dir_.path() + sub)) << sub;
  EXPECT_EQ(0600u, permissions_of(dir_.path() + "/a/b/loom/" +
                                  files_starting_with(dir_.path() + "/a/b/loom", "cpu-")[0]));
}

TEST_F(DiskCache, DirectoryFallsBackToXdgCacheHomeThenHome) {
  ScopedEnv no_dir("LOOM_CACHE_DIR", std::nullopt);
  {
    ScopedEnv xdg("XDG_CACHE_HOME", dir_.path() + "/xdg");
    EXPECT_EQ(dir_.path() + "/xdg/loom", cache_directory());
    ASSERT_EQ(CodeSource::Compiled, compile_saxpy());
    EXPECT_EQ(1u, files_starting_with(dir_.path() + "/xdg/loom", "cpu-object-").size());
    EXPECT_EQ(0700u, permissions_of(dir_.path() + "/xdg/loom"));
  }
  ScopedEnv no_xdg("XDG_CACHE_HOME", std::nullopt);
  ScopedEnv home("HOME", dir_.path() + "/home");
  EXPECT_EQ(dir_.path() + "/home/.cache/loom", cache_directory());
  ASSERT_EQ(CodeSource::Compiled, compile_saxpy());
  EXPECT_EQ(1u, files_starting_with(dir_.path() + "/home/.cache/loom", "cpu-object-").size());
  EXPECT_EQ(0700u, permissions_of(dir_.path() + "/home/.cache"));
}

TEST_F(DiskCache, TruncatedEntryIsRejectedAndRewritten) {
  expect_rejected_and_rewritten([](std::string &b) { b.resize(b.size() / 2); }, "truncated");
}

TEST_F(DiskCache, EntryCutInsideItsHeaderIsRejectedAndRewritten) {
  expect_rejected_and_rewritten([](std::string &b) { b.resize(20); }, "truncated");
}

TEST_F(DiskCache, EmptyEntryIsRejectedAndRewritten) {
  expect_rejected_and_rewritten([](std::string &b) { b.clear(); }, "truncated");
}

TEST_F(DiskCache, FlippedPayloadByteIsRejectedAndRewritten) {
  expect_rejected_and_rewritten([](std::string &b) { b[b.size() - 100] ^= 0x10; },
                                "does not match its hash");
}

TEST_F(DiskCache, FlippedKeyByteIsRejectedAndRewritten) {
  expect_rejected_and_rewritten([](std::string &b) { b[cache_entry_header_size + 10] ^= 1; },
                                "key differs");
}

TEST_F(DiskCache, FlippedSizeFieldIsRejectedAndRewritten) {
  expect_rejected_and_rewritten([](std::string &b) { b[24 + 7] ^= 0x80; }, "sizes do not match");
}

TEST_F(DiskCache, OtherFormatVersionIsRejectedAndRewritten) {
  expect_rejected_and_rewritten([](std::string &b) { b[8] = char(cache_entry_format_version + 1); },
                                "format version 2");
}

TEST_F(DiskCache, ForeignFileIsRejectedAndRewritten) {
  expect_rejected_and_rewritten([](std::string &b) { b = "#!/bin/sh\necho not an entry\n"; },
                                "no LOOMCACH magic");
}

TEST_F(DiskCache, ObjectCodeTheJitRefusesIsRejectedAndRewritten) {
  // A well-formed entry (hash and all) whose payload is not an object file: the check passes,
  // loading fails, and the kernel is compiled.
  ASSERT_EQ(CodeSource::Compiled, compile_saxpy());
  std::string path = only_entry("cpu-object");
  std::string bytes = read_bytes(path);
  uint64_t key_size = 0;
  for (int b = 0; b < 8; ++b)
    key_size |= uint64_t(static_cast<unsigned char>(bytes[16 + b])) << (8 * b);
  std::string key = bytes.substr(cache_entry_header_size, key_size);
  write_bytes(path, encode_cache_entry(key, "\x7f"
                                            "ELF but not really"));
  reset_cache_stats();
  EXPECT_EQ(CodeSource::Compiled, compile_saxpy());
  CacheStats stats = cache_stats();
  EXPECT_EQ(1u, stats.disk_rejected);
  EXPECT_NE(std::string::npos, stats.last_problem.find("refused when loaded"))
      << stats.last_problem;
  std::string why;
  EXPECT_TRUE(entry_is_valid(path, &why)) << why;
  EXPECT_EQ(CodeSource::DiskCache, compile_saxpy());
}

// A compile lock held by one holder makes the next wait, at most its patience (then it goes on
// unlocked, counted); once released, the next takes it at once. LOOM_CACHE=read takes none.
TEST_F(DiskCache, CompileLocksTakeTurnsAndWaitABoundedTime) {
  const CacheKey key{"cpu-object", "some kernel", std::string(64, 'a')};
  reset_cache_stats();
  {
    disk_cache::CompileLock first(key);
    EXPECT_FALSE(first.waited());
    EXPECT_TRUE(std::filesystem::is_regular_file(cache_dir() + "/locks/" + key.file_name()));
    const auto start = std::chrono::steady_clock::now();
    disk_cache::CompileLock second(key, 0.2);
    const double waited_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_TRUE(second.waited());
    EXPECT_GE(waited_s, 0.19);
    EXPECT_LT(waited_s, 5.0);
    CacheStats stats = cache_stats();
    EXPECT_EQ(1u, stats.disk_lock_waits);
    EXPECT_EQ(1u, stats.disk_lock_timeouts);
  }
  disk_cache::CompileLock again(key, 0.2);
  EXPECT_FALSE(again.waited());
  EXPECT_EQ(1u, cache_stats().disk_lock_waits);
  EXPECT_TRUE(files_in(cache_dir()).empty()) << "a lock is no entry";

  ScopedEnv read_only("LOOM_CACHE", std::string("read"));
  disk_cache::CompileLock unlocked(key, 0.2); // `again` still holds it: no lock, no wait
  EXPECT_FALSE(unlocked.waited());
}

TEST_F(DiskCache, EntryThatIsADirectoryIsRejectedAndTheKernelStillRuns) {
  ASSERT_EQ(CodeSource::Compiled, compile_saxpy());
  std::string path = only_entry("cpu-object");
  std::filesystem::remove(path);
  std::filesystem::create_directories(path + "/inside");
  reset_cache_stats();
  EXPECT_EQ(CodeSource::Compiled, compile_saxpy());
  CacheStats stats = cache_stats();
  EXPECT_EQ(1u, stats.disk_rejected);
  EXPECT_EQ(1u, stats.disk_write_failures); // rename cannot replace a non-empty directory
  EXPECT_NE(std::string::npos, stats.last_problem.find("cannot rename")) << stats.last_problem;
  EXPECT_EQ(1u, files_in(cache_dir()).size()) << "the failed write's temporary file is removed";
}

TEST_F(DiskCache, UnwritableDirectoryIsCountedAndTheKernelStillRuns) {
  std::string file = dir_.path() + "/plain-file";
  write_bytes(file, "x");
  ScopedEnv bad("LOOM_CACHE_DIR", file + "/loom"); // a directory under a file cannot exist
  EXPECT_EQ(CodeSource::Compiled, compile_saxpy());
  CacheStats stats = cache_stats();
  EXPECT_EQ(1u, stats.disk_write_failures);
  EXPECT_EQ(0u, stats.disk_writes);
  EXPECT_EQ(1u, stats.disk_misses);
  EXPECT_NE(std::string::npos, stats.last_problem.find("exists and is not a directory"))
      << stats.last_problem;
}

TEST_F(DiskCache, OffNeitherReadsNorWrites) {
  ASSERT_EQ(CodeSource::Compiled, compile_saxpy()); // an entry to ignore
  std::vector<std::string> before = files_in(cache_dir());
  reset_cache_stats();
  ScopedEnv off("LOOM_CACHE", "off");
  EXPECT_EQ(CodeSource::Compiled, compile_saxpy());
  CacheStats stats = cache_stats();
  EXPECT_EQ(0u, stats.disk_hits + stats.disk_misses + stats.disk_rejected + stats.disk_writes);
  EXPECT_EQ(before, files_in(cache_dir()));

  ScopedEnv empty("LOOM_CACHE_DIR", dir_.path() + "/never");
  EXPECT_EQ(CodeSource::Compiled, compile_saxpy());
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/never"));
}

TEST_F(DiskCache, ReadUsesEntriesButWritesNone) {
  {
    ScopedEnv read("LOOM_CACHE", "read");
    EXPECT_EQ(CodeSource::Compiled, compile_saxpy());
    EXPECT_TRUE(files_in(cache_dir()).empty());
    EXPECT_EQ(1u, cache_stats().disk_misses);
    EXPECT_EQ(0u, cache_stats().disk_writes);
  }
  ASSERT_EQ(CodeSource::Compiled, compile_saxpy()); // on: writes the entry
  std::string path = only_entry("cpu-object");
  reset_cache_stats();
  ScopedEnv read("LOOM_CACHE", "read");
  EXPECT_EQ(CodeSource::DiskCache, compile_saxpy());
  EXPECT_EQ(1u, cache_stats().disk_hits);

  // A damaged entry is ignored but, in read mode, left as it is.
  write_bytes(path, "damaged");
  reset_cache_stats();
  EXPECT_EQ(CodeSource::Compiled, compile_saxpy());
  EXPECT_EQ(1u, cache_stats().disk_rejected);
  EXPECT_EQ(0u, cache_stats().disk_writes);
  EXPECT_EQ("damaged", read_bytes(path));
}

TEST_F(DiskCache, WriteWritesEntriesButReadsNone) {
  ASSERT_EQ(CodeSource::Compiled, compile_saxpy());
  std::string path = only_entry("cpu-object");
  struct stat before {};
  ASSERT_EQ(0, stat(path.c_str(), &before));
  reset_cache_stats();
  ScopedEnv write("LOOM_CACHE", "write");
  EXPECT_EQ(CodeSource::Compiled, compile_saxpy()); // the valid entry is not read...
  CacheStats stats = cache_stats();
  EXPECT_EQ(0u, stats.disk_hits + stats.disk_misses + stats.disk_rejected);
  EXPECT_EQ(1u, stats.disk_writes); // ...but replaced by a new one
  struct stat after {};
  ASSERT_EQ(0, stat(path.c_str(), &after));
  EXPECT_NE(before.st_ino, after.st_ino) << "a rewritten entry is a new file renamed into place";
  std::string why;
  EXPECT_TRUE(entry_is_valid(path, &why)) << why;
}

TEST_F(DiskCache, UnknownModeIsACacheError) {
  ScopedEnv bad("LOOM_CACHE", "sometimes");
  Kernel k = cpu(make_saxpy());
  try {
    k.compile();
    FAIL() << "expected CacheError";
  } catch (const CacheError &e) {
    EXPECT_STREQ("LOOM_CACHE='sometimes' is not a cache mode; expected on, off, read or write",
                 e.what());
  }
}

} // namespace
