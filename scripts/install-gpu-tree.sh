#!/usr/bin/env bash
# Installs a build (default build/, configured with LLVM linked statically) into the tree that is
# carried to the GPU machine (default .gpu/): what `cmake --install` installs for users, and the
# gpu-tree component (tests/, bench/, examples/, libexec/loom-tests/), stripped, in the layout
# scripts/gpu_check.sh and bench/run_gpu.sh run. Then packs it as .gpu.tar.gz beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
tree=${2:-.gpu}
rm -rf "$tree"
cmake --install "$build" --prefix "$PWD/$tree" --strip >/dev/null
cmake --install "$build" --prefix "$PWD/$tree" --strip --component gpu-tree >/dev/null
tar czf "$tree.tar.gz" "$tree"
echo "$tree: $(du -sh "$tree" | cut -f1), $tree.tar.gz: $(du -h "$tree.tar.gz" | cut -f1)"
