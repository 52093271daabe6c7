// The settings table (support/Settings.h): every variable in it once and in docs/environment.md
// alike, each accessor's values, errors and defaults, and which variables are read once.
#include "support/Error.h"
#include "support/Settings.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace loom;

namespace {

// Sets (or, with nullopt, unsets) an environment variable until the end of its scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, std::optional<std::string> value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    set(value);
  }
  ~ScopedEnv() { set(old_); }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

  void set(const std::optional<std::string> &value) {
    if (value)
      setenv(name_, value->c_str(), 1);
    else
      unsetenv(name_);
  }

private:
  const char *name_;
  std::optional<std::string> old_;
};

// The message of the `E` that f throws, or "" when it throws none.
template <class E, class F> std::string message_of(F f) {
  try {
    f();
  } catch (const E &e) {
    return e.what();
  }
  return "";
}

std::vector<std::string> words(const settings::Variable &v) {
  std::vector<std::string> out;
  std::stringstream in(v.values);
  for (std::string word; std::getline(in, word, '|');)
    out.push_back(word);
  return out;
}

TEST(Settings, TableHasEachVariableOnceWithItsDefaultAmongItsValues) {
  std::set<std::string> names;
  for (const settings::Variable &v : settings::variables()) {
    EXPECT_TRUE(names.insert(v.name).second) << v.name << " twice";
    EXPECT_EQ(std::string(v.name).rfind("LOOM_", 0), 0u) << v.name;
    EXPECT_NE(std::string(v.meaning), "") << v.name;
    std::vector<std::string> choices = words(v);
    if (choices.size() > 1) {
      EXPECT_NE(std::find(choices.begin(), choices.end(), v.fallback), choices.end())
          << v.name << ": default " << v.fallback << " is not one of " << v.values;
    }
  }
  EXPECT_EQ(21u, names.size());
}

// docs/environment.md's table: "| `NAME` | `values` | `default` | once or each use | meaning |".
TEST(Settings, DocsListTheTableRowForRow) {
  std::ifstream doc(LOOM_SOURCE_DIR "/docs/environment.md");
  if (!doc)
    GTEST_SKIP() << "docs/environment.md is not here (an installed test without the sources)";
  std::map<std::string, std::vector<std::string>> documented;
  for (std::string line; std::getline(doc, line);) {
    if (line.rfind("| `LOOM_", 0) != 0)
      continue;
    std::vector<std::string> cells;
    std::string cell;
    for (size_t i = 1; i < line.size(); ++i) {
      if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
        cell += '|';
        ++i;
      } else if (line[i] == '|') {
        cells.push_back(cell.substr(cell.find_first_not_of(' '),
                                    cell.find_last_not_of(' ') - cell.find_first_not_of(' ') + 1));
        cell.clear();
      } else if (line[i] != '`' || cells.size() >= 4) {
        cell += line[i];
      }
    }
    ASSERT_EQ(5u, cells.size()) << line;
    EXPECT_TRUE(documented.emplace(cells[0], cells).second) << cells[0] << " listed twice";
  }
  for (const settings::Variable &v : settings::variables()) {
    auto row = documented.find(v.name);
    if (row == documented.end()) {
      ADD_FAILURE() << v.name << " is missing from docs/environment.md";
      continue;
    }
    EXPECT_EQ(v.values, row->second[1]) << v.name;
    EXPECT_EQ(v.fallback, row->second[2]) << v.name;
    EXPECT_EQ(v.reading == settings::Reading::Once ? "once" : "each use", row->second[3]) << v.name;
    documented.erase(row);
  }
  for (const auto &[name, row] : documented)
    ADD_FAILURE() << name << " is documented but not in the settings table";
}

TEST(Settings, TargetIsReadAtEachUse) {
  ScopedEnv target("LOOM_TARGET", std::nullopt);
  EXPECT_EQ(settings::Target::Auto, settings::target());
  target.set("cpu");
  EXPECT_EQ(settings::Target::Cpu, settings::target());
  target.set("gpu");
  EXPECT_EQ(settings::Target::Gpu, settings::target());
  target.set("tpu");
  EXPECT_EQ("LOOM_TARGET='tpu' is not a target; expected auto, gpu or cpu",
            message_of<TargetError>([] { settings::target(); }));
}

TEST(Settings, CacheModeAndDirectoryAreReadAtEachUse) {
  ScopedEnv mode("LOOM_CACHE", std::nullopt);
  ScopedEnv dir("LOOM_CACHE_DIR", std::nullopt);
  EXPECT_EQ(settings::CacheMode::On, settings::cache_mode());
  EXPECT_EQ(std::nullopt, settings::cache_dir());
  mode.set("read");
  dir.set("/tmp/a");
  EXPECT_EQ(settings::CacheMode::Read, settings::cache_mode());
  EXPECT_EQ("/tmp/a", settings::cache_dir());
  mode.set("write");
  dir.set("/tmp/b");
  EXPECT_EQ(settings::CacheMode::Write, settings::cache_mode());
  EXPECT_EQ("/tmp/b", settings::cache_dir());
  mode.set("off");
  EXPECT_EQ(settings::CacheMode::Off, settings::cache_mode());
  mode.set("");
  EXPECT_EQ(settings::CacheMode::On, settings::cache_mode()) << "empty is unset";
  mode.set("maybe");
  EXPECT_EQ("LOOM_CACHE='maybe' is not a cache mode; expected on, off, read or write",
            message_of<CacheError>([] { settings::cache_mode(); }));
}

TEST(Settings, PtxLinkerIsReadAtEachUse) {
  ScopedEnv linker("LOOM_PTX_LINKER", std::nullopt);
  EXPECT_EQ(settings::PtxLinker::Driver, settings::ptx_linker());
  EXPECT_FALSE(settings::ptx_linker_set());
  linker.set("driver");
  EXPECT_EQ(settings::PtxLinker::Driver, settings::ptx_linker());
  EXPECT_TRUE(settings::ptx_linker_set());
  linker.set("auto");
  EXPECT_EQ(settings::PtxLinker::Auto, settings::ptx_linker());
  linker.set("nvjitlink");
  EXPECT_EQ(settings::PtxLinker::NvJitLink, settings::ptx_linker());
  linker.set("ptxas");
  EXPECT_EQ("LOOM_PTX_LINKER=ptxas is not valid: use auto, nvjitlink or driver",
            message_of<LinkerError>([] { settings::ptx_linker(); }));
}

TEST(Settings, ThreadsBoundsChecksAndAssertsAreReadAtEachUse) {
  ScopedEnv threads("LOOM_NUM_THREADS", std::nullopt);
  ScopedEnv bounds("LOOM_BOUNDS_CHECK", std::nullopt);
  EXPECT_EQ(std::nullopt, settings::num_threads());
  EXPECT_FALSE(settings::bounds_check());
  threads.set("12");
  bounds.set("1");
  EXPECT_EQ(12, settings::num_threads());
  EXPECT_TRUE(settings::bounds_check());
  bounds.set("0");
  EXPECT_FALSE(settings::bounds_check());
  ScopedEnv asserts("LOOM_ASSERTS", std::nullopt);
  EXPECT_TRUE(settings::asserts());
  asserts.set("0");
  EXPECT_FALSE(settings::asserts());
  asserts.set("1");
  EXPECT_TRUE(settings::asserts());
  asserts.set("off");
  EXPECT_EQ("LOOM_ASSERTS=off: expected 0 or 1", message_of<Error>([] { settings::asserts(); }));
  for (const char *bad : {"0", "-1", "2x", "many", "2000000"}) {
    threads.set(bad);
    EXPECT_EQ(std::string("LOOM_NUM_THREADS must be a positive integer, got '") + bad + "'",
              message_of<ArgumentError>([] { settings::num_threads(); }));
  }
}

// A variable read once keeps the value it had at its first good reading; a bad value throws at
// each use until then. Each of these variables is read by this test alone.
TEST(Settings, OnceVariablesKeepTheirFirstValue) {
  ScopedEnv bits("LOOM_INDEX_BITS", "16");
  EXPECT_EQ("LOOM_INDEX_BITS=16: expected 32 or 64",
            message_of<Error>([] { settings::index_bits(); }));
  EXPECT_EQ("LOOM_INDEX_BITS=16: expected 32 or 64",
            message_of<Error>([] { settings::index_bits(); }));
  bits.set("64");
  EXPECT_EQ(64, settings::index_bits());
  bits.set("32");
  EXPECT_EQ(64, settings::index_bits());

  ScopedEnv tiered("LOOM_TIERED", "2");
  EXPECT_EQ("LOOM_TIERED=2: expected 0, 1 or quick", message_of<Error>([] { settings::tiered(); }));
  tiered.set("quick");
  EXPECT_EQ(settings::Tiered::QuickOnly, settings::tiered());
  tiered.set("0");
  EXPECT_EQ(settings::Tiered::QuickOnly, settings::tiered());

  ScopedEnv stride("LOOM_GRID_STRIDE", "1");
  EXPECT_TRUE(settings::grid_stride());
  stride.set("0");
  EXPECT_TRUE(settings::grid_stride());

  ScopedEnv steps("LOOM_STEPS_PER_LAUNCH", "0");
  for (const char *bad : {"0", "33", "8x", "many"}) {
    steps.set(bad);
    EXPECT_EQ(std::string("LOOM_STEPS_PER_LAUNCH must be an integer from 1 to 32, got '") + bad +
                  "'",
              message_of<ArgumentError>([] { settings::steps_per_launch(); }));
  }
  steps.set("8");
  EXPECT_EQ(8, settings::steps_per_launch());
  steps.set("1");
  EXPECT_EQ(8, settings::steps_per_launch());

  ScopedEnv libdevice("LOOM_LIBDEVICE", "/opt/first/libdevice.10.bc");
  EXPECT_EQ("/opt/first/libdevice.10.bc", settings::libdevice());
  libdevice.set("/opt/second/libdevice.10.bc");
  EXPECT_EQ("/opt/first/libdevice.10.bc", settings::libdevice());
}

} // namespace
