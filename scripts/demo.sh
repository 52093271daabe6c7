#!/usr/bin/env bash
# Builds loom and runs the demo: saxpy and the naive 1024x1024 matmul, on the GPU when one is
# usable, else on the CPU (each program says which, and why).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
./build/examples/saxpy
./build/examples/matmul
