// One version, from project(loom VERSION ...): the library's, the headers', and the disk cache
// key's.
#include <loom/loom.hpp>

#include "ir/Lower.h"
#include "loom/CacheKey.h"

#include <gtest/gtest.h>

#include <string>

TEST(Version, LibraryAndHeadersAgree) {
  EXPECT_STREQ(loom::version(), LOOM_EXPECTED_VERSION);
  EXPECT_STREQ(LOOM_VERSION_STRING, LOOM_EXPECTED_VERSION);
  EXPECT_EQ(std::to_string(LOOM_VERSION_MAJOR) + "." + std::to_string(LOOM_VERSION_MINOR) + "." +
                std::to_string(LOOM_VERSION_PATCH),
            LOOM_EXPECTED_VERSION);
  EXPECT_TRUE(loom::detail::header_version_checked);
}

TEST(Version, IsPartOfTheCacheKey) {
  loom::Kernel k = loom::kernel("scale", [](loom::Array<float> x) {
    loom::parallel_for(x.size(), [&](loom::Index i) { x[i] = 2.0f * x[i]; });
  });
  const loom::CacheKey key = loom::cpu_object_key(loom::ir::lower(k.ir(), loom::ir::Target::CPU));
  EXPECT_NE(key.text.find("loom: " LOOM_EXPECTED_VERSION " build "), std::string::npos) << key.text;
}
