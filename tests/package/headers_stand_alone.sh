#!/usr/bin/env bash
# Each installed public header compiles on its own with the staged install tree as the only
# include path (no loom source, no LLVM): the list of tracing headers cmake/StageHeaders.cmake
# installs is complete, and no public header relies on another being included first.
# Usage: headers_stand_alone.sh STAGED_INCLUDE_DIR CXX
set -euo pipefail
include=$1
cxx=${2:-c++}
for header in "$include"/loom/*.hpp; do
  printf '#include <loom/%s>\nint main() {}\n' "$(basename "$header")" |
    "$cxx" -std=c++20 -fsyntax-only -I"$include" -x c++ - ||
    { echo "headers: loom/$(basename "$header") does not compile alone against $include" >&2; exit 1; }
done
echo "headers: $(ls "$include"/loom/*.hpp | wc -l) public headers compile alone against $include"
