#!/usr/bin/env bash
# Runs the `RUN:` lines of one golden test file, lit-style: %s is the file, and the tools
# (dsl-to-ptx, FileCheck, llvm-as, opt, ptxas) are found in the directories given; %examples
# is examples/dsl and %t a temporary file name.
#   run-golden.sh FILE DSL_TO_PTX_DIR LLVM_BIN_DIR
set -uo pipefail
file=$1 tools=$2 llvm=$3
export PATH="$tools:$llvm:$PATH"
if grep -q 'REQUIRES: ptxas' "$file"; then
  if ! command -v ptxas >/dev/null && [ -x /usr/local/cuda/bin/ptxas ]; then
    export PATH="$PATH:/usr/local/cuda/bin"
  fi
  if ! command -v ptxas >/dev/null; then
    echo "[  SKIPPED ] ptxas not found"
    exit 0
  fi
fi
examples="$(cd "$(dirname "$0")/../../examples/dsl" && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
n=0
while IFS= read -r line; do
  cmd=${line#*RUN: }
  cmd=${cmd//%examples/$examples}
  cmd=${cmd//%s/$file}
  cmd=${cmd//%t/$tmp/out}
  n=$((n + 1))
  echo "RUN: $cmd"
  if ! bash -c "set -o pipefail; $cmd"; then
    echo "FAILED: $cmd"
    status=1
  fi
done < <(grep -E '(#|//) RUN: ' "$file")
[ "$n" -gt 0 ] || { echo "no RUN: line in $file"; exit 1; }
exit $status
