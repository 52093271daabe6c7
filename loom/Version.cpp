// loom::version() and the check that a program's headers are the library's version.
#include "loom/Version.hpp"

#include "loom/KernelState.h"
#include "support/Error.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

namespace loom {

namespace {

std::mutex mismatch_mutex;
std::string mismatch; // the message, once headers of another version were seen
std::atomic<bool> mismatched{false};

} // namespace

const char *version() {
  return LOOM_VERSION;
}

bool detail::check_header_version(const char *headers) {
  if (std::strcmp(headers, LOOM_VERSION) == 0)
    return true;
  std::lock_guard<std::mutex> lock(mismatch_mutex);
  if (!mismatched) {
    mismatch = std::string("this program was compiled against the headers of loom ") + headers +
               " but loaded libloom " + LOOM_VERSION +
               "; rebuild it against the headers of the library it runs with (or run it with "
               "the library it was built for)";
    mismatched = true;
    std::fprintf(stderr, "loom: %s\n", mismatch.c_str());
  }
  return false;
}

void require_matching_headers() {
  if (!mismatched.load(std::memory_order_relaxed))
    return;
  std::lock_guard<std::mutex> lock(mismatch_mutex);
  throw VersionError(mismatch);
}

} // namespace loom
