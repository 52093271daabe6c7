#!/usr/bin/env bash
# Builds loom and runs the whole test suite through CTest. GPU tests skip, saying why, when no
# GPU is usable.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
# loom as another project uses it: installed, as a .deb, through FetchContent (tests/package).
bash tests/package/check.sh build
