// SharedLibrary (runtime/SharedLibrary.h) on the C library, which every process has: loading,
// resolving a list of entry points, naming the one missing, the older symbol, clearing.
#include "runtime/SharedLibrary.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace loom::runtime;

namespace {

using strlen_fn = size_t (*)(const char *);

TEST(runtime_shared_library, MissingLibrarySaysWhy) {
  std::string why;
  EXPECT_FALSE(SharedLibrary::open("/nonexistent/libloom-test.so", &why));
  EXPECT_NE(why.find("/nonexistent/libloom-test.so"), std::string::npos) << why;
}

TEST(runtime_shared_library, ResolvesEntryPointsAndNamesTheFirstMissing) {
  std::string why;
  std::optional<SharedLibrary> libc = SharedLibrary::open("libc.so.6", &why);
  ASSERT_TRUE(libc) << why;
  strlen_fn length = nullptr, renamed = nullptr, missing = nullptr;
  EntryPoint points[] = {
      {"strlen", reinterpret_cast<void **>(&length)},
      {"loom_strlen_v9", reinterpret_cast<void **>(&renamed), "strlen"},
      {"loom_no_such_symbol", reinterpret_cast<void **>(&missing)},
  };
  EXPECT_STREQ("loom_no_such_symbol", libc->resolve(points));
  ASSERT_NE(nullptr, length);
  EXPECT_EQ(5u, length("loom!"));
  EXPECT_EQ(length, renamed) << "the older symbol stands in";
  EXPECT_EQ(nullptr, missing);
  EXPECT_NE(SharedLibrary::file_of(reinterpret_cast<const void *>(length)).find("libc"),
            std::string::npos);
  EXPECT_EQ(nullptr, libc->resolve(std::span(points, 2)));
  SharedLibrary::clear(points);
  EXPECT_EQ(nullptr, length);
  EXPECT_EQ(nullptr, renamed);
}

} // namespace
