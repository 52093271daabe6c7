// Which build of loom is running, for compile caches: code cached by one build must not be
// loaded by another whose code generation may differ, even when both say version 0.1.0.
#pragma once

#include <string>

namespace loom {

// The GNU build ID of the binary that holds loom (libloom.so, or the executable when linked in),
// as hex: the linker hashes the binary's contents, so a rebuild with any change gets a new one
// and a copy of the same build keeps it. Without a build ID note (a linker run with
// --build-id=none), the binary's path, size and modification time stand in. Computed once.
const std::string &loom_build_id();

} // namespace loom
