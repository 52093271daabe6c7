// A program compiled against the headers of another loom version than the library it loads: the
// check its headers make when it starts (loom/Version.hpp) is made here again with another
// version, as such headers would. Kernels then refuse to be made, naming both versions, rather
// than run with types whose layout may differ.
#include <loom/loom.hpp>

#include <gtest/gtest.h>

#include <string>

TEST(VersionMismatch, KernelsAreRefusedNamingBothVersions) {
  EXPECT_FALSE(loom::detail::check_header_version("0.1.7"));
  try {
    loom::kernel("saxpy", [](loom::F32 a, loom::Array<float> x, loom::Array<float> y) {
      loom::parallel_for(x.size(), [&](loom::Index i) { y[i] = a * x[i] + y[i]; });
    });
    ADD_FAILURE() << "a kernel was made";
  } catch (const loom::VersionError &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("headers of loom 0.1.7"), std::string::npos) << what;
    EXPECT_NE(what.find(std::string("libloom ") + loom::version()), std::string::npos) << what;
  }
  EXPECT_THROW(loom::compile("@kernel\ndef k(x: f32[n]):\n    pass\n"), loom::VersionError);
}
