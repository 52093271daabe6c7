// What the compile cache tests share: a fresh cache directory per test, environment overrides,
// the kernels they compile and a check of every entry file in a directory.
#pragma once

#include "support/TestUtil.h"

#include "codegen/Hash.h"
#include "loom/CacheEntry.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace loomtest {

// A file built with the tests (a child program, the fake driver): beside the test binary (the
// build tree), in ../libexec/loom-tests/ (an installed tree, where scripts/gpu_check.sh runs
// every file of tests/), else where the build put it.
inline std::string test_helper(const std::string &name, const std::string &built_at) {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (const std::filesystem::path &candidate :
         {self.parent_path() / name, self.parent_path() / "../libexec/loom-tests" / name})
      if (std::filesystem::exists(candidate, ec))
        return candidate.lexically_normal().string();
  return built_at;
}

// A directory under $TMPDIR (or /tmp), removed with everything in it at the end of its scope.
class TempDir {
public:
  TempDir() {
    std::string base = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
    std::string pattern = base + "/loom_cache_test_XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!mkdtemp(buffer.data()))
      throw std::runtime_error("mkdtemp failed");
    path_ = buffer.data();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

// Sets (or, with nullopt, unsets) an environment variable until the end of its scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, std::optional<std::string> value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    if (value)
      setenv(name, value->c_str(), 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  const char *name_;
  std::optional<std::string> old_;
};

inline loom::Kernel make_saxpy() {
  return loom::kernel("saxpy",
                      [](loom::F32 a, loom::Array<float> x, loom::Array<float> y) {
                        loom::parallel_for(x.size(),
                                           [&](loom::Index i) { y[i] = a * x[i] + y[i]; });
                      },
                      {"a", "x", "y"});
}

inline loom::Kernel make_matmul() {
  return loom::kernel("matmul",
                      [](loom::Array2<float> A, loom::Array2<float> B, loom::Array2<float> C) {
                        loom::parallel_for({C.dim(0), C.dim(1)}, [&](loom::Index i, loom::Index j) {
                          loom::Var<float> acc("acc", 0.0f);
                          loom::for_range(A.dim(1),
                                          [&](loom::Index k) { acc += A(i, k) * B(k, j); });
                          C(i, j) = acc;
                        });
                      },
                      {"A", "B", "C"});
}

// Runs saxpy on 10,000 elements and says whether every result is right.
inline bool saxpy_is_correct(loom::Kernel &k) {
  size_t n = 10000;
  auto x = random_vector<float>(n, -1, 1, 5), y = random_vector<float>(n, -1, 1, 6);
  std::vector<float> y0 = y;
  k(2.5f, x, y);
  for (size_t i = 0; i < n; ++i)
    if (std::abs(y[i] - (2.5 * x[i] + y0[i])) > 1e-5)
      return false;
  return true;
}

inline bool matmul_is_correct(loom::Kernel &k) {
  int64_t n = 67, kk = 45, m = 53;
  auto A = random_vector<float>(n * kk, -1, 1, 7), B = random_vector<float>(kk * m, -1, 1, 8);
  std::vector<float> C(n * m, NAN);
  k(loom::view(A, {n, kk}), loom::view(B, {kk, m}), loom::view(C, {n, m}));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      double ref = 0, mag = 0;
      for (int64_t l = 0; l < kk; ++l) {
        ref += double(A[i * kk + l]) * B[l * m + j];
        mag += std::abs(double(A[i * kk + l]) * B[l * m + j]);
      }
      if (!(std::abs(C[i * m + j] - ref) <= 1e-6 * mag + 1e-7))
        return false;
    }
  return true;
}

// The names of the files in `dir` (none when it does not exist), sorted.
inline std::vector<std::string> files_in(const std::string &dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto &entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().filename() != "locks") // the compile locks' folder (disk_cache::CompileLock)
      names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

inline std::vector<std::string> files_starting_with(const std::string &dir,
                                                    const std::string &prefix) {
  std::vector<std::string> out;
  for (const std::string &name : files_in(dir))
    if (name.rfind(prefix, 0) == 0)
      out.push_back(name);
  return out;
}

inline std::string read_bytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

inline void write_bytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Whether `path` is an intact entry whose key hashes to the digest in its file name
// ("<kind>-<digest>"); *why says what is wrong when not.
inline bool entry_is_valid(const std::string &path, std::string *why) {
  std::string bytes = read_bytes(path);
  if (bytes.size() < loom::cache_entry_header_size) {
    *why = "shorter than a header";
    return false;
  }
  uint64_t key_size = 0;
  for (int b = 0; b < 8; ++b)
    key_size |= uint64_t(static_cast<unsigned char>(bytes[16 + b])) << (8 * b);
  if (key_size > bytes.size() - loom::cache_entry_header_size) {
    *why = "key size past the end";
    return false;
  }
  std::string key = bytes.substr(loom::cache_entry_header_size, key_size);
  if (!loom::decode_cache_entry(bytes, key, why))
    return false;
  std::string name = std::filesystem::path(path).filename().string();
  std::string digest = loom::to_hex(loom::content_hash(key));
  if (name.size() < digest.size() || name.substr(name.size() - digest.size()) != digest) {
    *why = "file name does not end with the key's digest " + digest;
    return false;
  }
  return true;
}

inline mode_t permissions_of(const std::string &path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0)
    return 0;
  return st.st_mode & 07777;
}

// Each test: its own empty cache directory, LOOM_CACHE unset (on), nothing in the in-memory
// cache, counts at zero. Kernels run on the CPU unless a test says otherwise.
class CacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    loom::clear_memory_cache();
    loom::reset_cache_stats();
  }
  void TearDown() override { loom::clear_memory_cache(); }

  std::string cache_dir() const { return dir_.path() + "/cache"; }
  loom::Kernel cpu(loom::Kernel k) {
    k.on(loom::ir::Target::CPU);
    return k;
  }
  // The cache directory's one entry of `kind` ("cpu-object", ...); fails the test otherwise.
  std::string only_entry(const std::string &kind) {
    std::vector<std::string> found = files_starting_with(cache_dir(), kind + "-");
    EXPECT_EQ(1u, found.size()) << kind;
    return found.empty() ? "" : cache_dir() + "/" + found[0];
  }

  TempDir dir_;
  ScopedEnv cache_dir_env_{"LOOM_CACHE_DIR", dir_.path() + "/cache"};
  ScopedEnv cache_mode_env_{"LOOM_CACHE", std::nullopt};
};

} // namespace loomtest
