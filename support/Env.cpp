#include "support/Env.h"

#include <cstdlib>

namespace loom {

std::optional<std::string> env(const char *name) {
  const char *v = std::getenv(name);
  if (!v || !*v)
    return std::nullopt;
  return std::string(v);
}

} // namespace loom
