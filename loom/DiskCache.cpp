#include "loom/DiskCache.h"

#include "loom/CacheEntry.h"
#include "support/Env.h"
#include "support/Error.h"
#include "support/Settings.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>

namespace loom::disk_cache {

namespace {

// A file this large is not an entry loom wrote (objects and cubins are kilobytes to megabytes);
// it is rejected before it is read into memory.
constexpr off_t max_entry_bytes = off_t(1) << 30;

struct Counters {
  std::atomic<uint64_t> hits{0}, misses{0}, rejected{0}, writes{0}, write_failures{0};
  std::atomic<uint64_t> lock_waits{0}, lock_timeouts{0};
  std::mutex mutex; // guards last_problem
  std::string last_problem;
};

Counters &counters() {
  static Counters *c = new Counters(); // never destroyed: kernels may compile during exit
  return *c;
}

void note_problem(std::atomic<uint64_t> &counter, const std::string &problem) {
  Counters &c = counters();
  ++counter;
  std::lock_guard<std::mutex> lock(c.mutex);
  c.last_problem = problem;
}

std::string errno_text(int error) {
  return std::strerror(error);
}

// Closes a descriptor on every path out.
class FileDescriptor {
public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  FileDescriptor(const FileDescriptor &) = delete;
  FileDescriptor &operator=(const FileDescriptor &) = delete;
  int get() const { return fd_; }
  // Closes now, reporting close's error (a write may only fail there, e.g. on NFS).
  int close() {
    int result = ::close(fd_);
    fd_ = -1;
    return result;
  }

private:
  int fd_;
};

enum class ReadResult { Read, Missing, Failed };

ReadResult read_file(const std::string &path, std::string &contents, std::string &why) {
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT || errno == ENOTDIR)
      return ReadResult::Missing;
    why = "cannot open: " + errno_text(errno);
    return ReadResult::Failed;
  }
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) {
    why = "cannot stat: " + errno_text(errno);
    return ReadResult::Failed;
  }
  if (!S_ISREG(st.st_mode)) {
    why = "not a regular file";
    return ReadResult::Failed;
  }
  if (st.st_size > max_entry_bytes) {
    why = "too large for an entry (" + std::to_string(st.st_size) + " bytes)";
    return ReadResult::Failed;
  }
  contents.resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = ::read(fd.get(), contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      why = "cannot read: " + errno_text(errno);
      return ReadResult::Failed;
    }
    if (n == 0)
      break; // shorter than fstat said: decoding will find it truncated
    done += static_cast<size_t>(n);
  }
  contents.resize(done);
  return ReadResult::Read;
}

// mkdir -p, each directory it creates with mode 0700 (the cache holds code this user runs).
bool make_directories(const std::string &path, std::string &why) {
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return true;
    why = path + " exists and is not a directory";
    return false;
  }
  size_t slash = path.find_last_of('/');
  if (slash != std::string::npos && slash > 0 && !make_directories(path.substr(0, slash), why))
    return false;
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    why = "cannot create the directory " + path + ": " + errno_text(errno);
    return false;
  }
  return true;
}

bool write_all(int fd, std::string_view data, std::string &why) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      why = "cannot write: " + errno_text(n < 0 ? errno : EIO);
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

// The entry written to a temporary file beside its place, then renamed over it: rename is atomic
// within a directory, so a reader never sees a partial entry (and readers check entries anyway,
// which is why there is no fsync: a crash can leave a short file, which is then rejected).
bool write_entry(const std::string &dir, const std::string &path, std::string_view bytes,
                 std::string &why) {
  if (!make_directories(dir, why))
    return false;
  static std::atomic<uint64_t> counter{0};
  std::string temporary =
      path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  FileDescriptor fd(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (fd.get() < 0) {
    why = "cannot create " + temporary + ": " + errno_text(errno);
    return false;
  }
  bool written = write_all(fd.get(), bytes, why);
  if (fd.close() != 0 && written) {
    why = "cannot write: " + errno_text(errno);
    written = false;
  }
  if (written && ::rename(temporary.c_str(), path.c_str()) != 0) {
    why = "cannot rename " + temporary + " into place: " + errno_text(errno);
    written = false;
  }
  if (!written)
    ::unlink(temporary.c_str());
  return written;
}

} // namespace

Mode mode() {
  return settings::cache_mode();
}

std::string directory() {
  if (std::optional<std::string> dir = settings::cache_dir())
    return *dir;
  if (std::optional<std::string> xdg = env("XDG_CACHE_HOME"))
    return *xdg + "/loom";
  if (std::optional<std::string> home = env("HOME"))
    return *home + "/.cache/loom";
  return "";
}

std::string entry_path(const CacheKey &key) {
  return directory() + "/" + key.file_name();
}

bool load(const CacheKey &key, const std::function<void(std::string &&payload)> &use) {
  Mode m = mode();
  if (m == Mode::Off || m == Mode::Write)
    return false;
  std::string dir = directory();
  if (dir.empty())
    return false;
  Counters &c = counters();
  std::string path = dir + "/" + key.file_name(), file, why;
  switch (read_file(path, file, why)) {
  case ReadResult::Missing:
    ++c.misses;
    return false;
  case ReadResult::Failed:
    note_problem(c.rejected, path + ": " + why);
    return false;
  case ReadResult::Read:
    break;
  }
  std::optional<std::string> payload = decode_cache_entry(file, key.text, &why);
  if (!payload) {
    note_problem(c.rejected, path + ": " + why);
    return false;
  }
  try {
    use(std::move(*payload));
  } catch (const Error &e) {
    note_problem(c.rejected, path + ": refused when loaded: " + e.what());
    return false;
  }
  ++c.hits;
  return true;
}

bool has(const CacheKey &key) {
  Mode m = mode();
  std::string dir = directory();
  return m != Mode::Off && m != Mode::Write && !dir.empty() &&
         ::access((dir + "/" + key.file_name()).c_str(), R_OK) == 0;
}

void store(const CacheKey &key, std::string_view payload) {
  Mode m = mode();
  if (m == Mode::Off || m == Mode::Read)
    return;
  Counters &c = counters();
  std::string dir = directory();
  if (dir.empty()) {
    note_problem(c.write_failures,
                 "no cache directory: none of LOOM_CACHE_DIR, XDG_CACHE_HOME and HOME is set");
    return;
  }
  std::string path = dir + "/" + key.file_name(), why;
  if (write_entry(dir, path, encode_cache_entry(key.text, payload), why))
    ++c.writes;
  else
    note_problem(c.write_failures, path + ": " + why);
}

CompileLock::CompileLock(const CacheKey &key, double patience_seconds) {
  if (mode() != Mode::On)
    return;
  const std::string dir = directory();
  std::string why;
  if (dir.empty() || !make_directories(dir + "/locks", why))
    return; // no lock: at worst two processes compile the same kernel, as without one
  fd_ = ::open((dir + "/locks/" + key.file_name()).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0)
    return;
  if (::flock(fd_, LOCK_EX | LOCK_NB) == 0)
    return;
  // Another process compiles this kernel: wait for it, polling so that the wait is bounded.
  waited_ = true;
  ++counters().lock_waits;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(patience_seconds);
  auto pause = std::chrono::microseconds(500);
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    if ((errno != EWOULDBLOCK && errno != EINTR) || std::chrono::steady_clock::now() > deadline) {
      ++counters().lock_timeouts;
      ::close(fd_);
      fd_ = -1;
      return;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(20000));
  }
}

CompileLock::~CompileLock() {
  if (fd_ >= 0)
    ::close(fd_); // releases the flock
}

void add_stats(CacheStats &stats) {
  Counters &c = counters();
  stats.disk_lock_waits += c.lock_waits;
  stats.disk_lock_timeouts += c.lock_timeouts;
  stats.disk_hits += c.hits;
  stats.disk_misses += c.misses;
  stats.disk_rejected += c.rejected;
  stats.disk_writes += c.writes;
  stats.disk_write_failures += c.write_failures;
  std::lock_guard<std::mutex> lock(c.mutex);
  stats.last_problem = c.last_problem;
}

void reset_stats() {
  Counters &c = counters();
  c.hits = 0, c.misses = 0, c.rejected = 0, c.writes = 0, c.write_failures = 0;
  c.lock_waits = 0, c.lock_timeouts = 0;
  std::lock_guard<std::mutex> lock(c.mutex);
  c.last_problem.clear();
}

} // namespace loom::disk_cache
