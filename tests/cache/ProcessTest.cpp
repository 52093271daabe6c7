// The disk cache across processes: a second process loads what the first wrote, and eight
// processes compiling the same kernels at once into an empty directory leave only whole entries
// and all compute the right results. The children are cache_child (LOOM_CACHE_CHILD).
#include "CacheTestUtil.h"

#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <cstring>
#include <thread>

extern char **environ;

using namespace loom;
using namespace loomtest;

namespace {

struct ChildReport {
  int saxpy_source = -1, matmul_source = -1;
  uint64_t hits = 0, misses = 0, rejected = 0, writes = 0, failures = 0;
};

class Processes : public CacheTest {
protected:
  pid_t start_child(const std::string &result, const std::string &start_file = "") {
    static const std::string child = test_helper("cache_child", LOOM_CACHE_CHILD);
    std::vector<std::string> args = {child, result};
    if (!start_file.empty())
      args.push_back(start_file);
    std::vector<char *> argv;
    for (std::string &a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    int error = posix_spawn(&pid, child.c_str(), nullptr, nullptr, argv.data(), environ);
    EXPECT_EQ(0, error) << "posix_spawn " << child << ": " << std::strerror(error);
    return error == 0 ? pid : -1;
  }

  // The child's exit status (-1 when it did not exit normally).
  int wait_for(pid_t pid) {
    int status = 0;
    if (pid <= 0 || waitpid(pid, &status, 0) != pid)
      return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  ChildReport report(const std::string &result) {
    ChildReport r;
    std::istringstream in(read_bytes(result));
    std::string word;
    in >> word >> r.saxpy_source >> word >> r.matmul_source >> word >> r.hits >> word >> r.misses >>
        word >> r.rejected >> word >> r.writes >> word >> r.failures;
    return r;
  }

  ChildReport run_child(const std::string &name) {
    std::string result = dir_.path() + "/" + name;
    EXPECT_EQ(0, wait_for(start_child(result))) << name;
    return report(result);
  }
};

TEST_F(Processes, SecondProcessLoadsWhatTheFirstWrote) {
  ChildReport first = run_child("first");
  EXPECT_EQ(int(CodeSource::Compiled), first.saxpy_source);
  EXPECT_EQ(int(CodeSource::Compiled), first.matmul_source);
  EXPECT_EQ(0u, first.hits);
  EXPECT_GE(first.writes, 2u); // CPU: an object each; GPU: PTX and a cubin each
  EXPECT_EQ(0u, first.failures);
  std::vector<std::string> entries = files_in(cache_dir());
  EXPECT_EQ(first.writes, entries.size());

  ChildReport second = run_child("second");
  EXPECT_EQ(int(CodeSource::DiskCache), second.saxpy_source);
  EXPECT_EQ(int(CodeSource::DiskCache), second.matmul_source);
  EXPECT_EQ(2u, second.hits);
  EXPECT_EQ(0u, second.misses);
  EXPECT_EQ(0u, second.writes);
  EXPECT_EQ(entries, files_in(cache_dir()));
}

TEST_F(Processes, EightProcessesAtOnceLeaveOnlyWholeEntries) {
  constexpr int children = 8;
  std::string start_file = dir_.path() + "/start";
  std::vector<pid_t> pids;
  for (int c = 0; c < children; ++c)
    pids.push_back(start_child(dir_.path() + "/result" + std::to_string(c), start_file));
  // All have started (and loaded loom) before any compiles; then they race.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  write_bytes(start_file, "go");
  uint64_t writes = 0;
  int saxpy_compiles = 0, matmul_compiles = 0;
  for (int c = 0; c < children; ++c) {
    EXPECT_EQ(0, wait_for(pids[c])) << "child " << c << " failed or computed wrong results";
    ChildReport r = report(dir_.path() + "/result" + std::to_string(c));
    EXPECT_EQ(0u, r.rejected) << "child " << c << " saw a torn entry";
    EXPECT_EQ(0u, r.failures) << "child " << c;
    writes += r.writes;
    saxpy_compiles += r.saxpy_source == int(CodeSource::Compiled);
    matmul_compiles += r.matmul_source == int(CodeSource::Compiled);
  }
  // The compile locks (disk_cache::CompileLock): one process compiled each kernel, the other
  // seven waited for it and loaded its entry, so each entry was written once.
  EXPECT_EQ(1, saxpy_compiles);
  EXPECT_EQ(1, matmul_compiles);
  std::vector<std::string> entries = files_in(cache_dir());
  EXPECT_GE(entries.size(), 2u);
  EXPECT_EQ(writes, entries.size());
  for (const std::string &name : entries) {
    EXPECT_EQ(std::string::npos, name.find(".tmp")) << "temporary file left: " << name;
    std::string why;
    EXPECT_TRUE(entry_is_valid(cache_dir() + "/" + name, &why)) << name << ": " << why;
  }
  // And the entries they left are the ones a later process uses.
  ChildReport later = run_child("later");
  EXPECT_EQ(int(CodeSource::DiskCache), later.saxpy_source);
  EXPECT_EQ(int(CodeSource::DiskCache), later.matmul_source);
}

} // namespace
