#!/usr/bin/env bash
# Configures and builds loom into build/ (extra arguments go to cmake).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja "$@" >/dev/null
ninja -C build
