// Reading loom's environment variables in one place.
#pragma once

#include <optional>
#include <string>

namespace loom {

// The value of environment variable `name`, if set and non-empty.
std::optional<std::string> env(const char *name);

} // namespace loom
