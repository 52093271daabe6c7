// Reading other programs' environment variables (HOME, XDG_CACHE_HOME, CUDA_HOME, CUDA_PATH).
// loom's own, the LOOM_* variables, are read through support/Settings.h alone.
#pragma once

#include <optional>
#include <string>

namespace loom {

// The value of environment variable `name`, if set and non-empty.
std::optional<std::string> env(const char *name);

} // namespace loom
