#!/usr/bin/env bash
# Compares LLVM option settings on the GPU: runs gpu_bench's kernel sections once per
# LOOM_LLVM_ARGS value given (an empty string is LLVM's defaults, as loom sets them) and prints
# one row per setting. Everything runs in one process per setting, on the same GPU, with
# loom's cache off, so each row compiles its own code.
#   bash bench/compare_llvm_args.sh [TREE] '' '-disable-lsr' '-unroll-runtime=false'
# TREE is an installed tree (default .gpu/, else LOOM_INSTALL); logs go to $OUT (else ./gpu-logs).
set -uo pipefail
cd "$(dirname "$0")/.."
tree=${LOOM_INSTALL:-.gpu}
if [ $# -gt 0 ] && [ -d "$1" ]; then
  tree=$1
  shift
fi
out=${OUT:-gpu-logs}
mkdir -p "$out"
[ $# -gt 0 ] || set -- ''
printf '| LOOM_LLVM_ARGS | saxpy GB/s | sum GB/s | matmul 1024 TFLOP/s | matmul 4096 TFLOP/s | PTX saxpy ms | PTX matmul ms |\n'
printf '|---|---|---|---|---|---|---|\n'
n=0
for args in "$@"; do
  n=$((n + 1))
  log="$out/llvm-args-$n.log"
  LOOM_CACHE=off LOOM_LLVM_ARGS="$args" "$tree"/bench/loom_gpu_bench --only=saxpy,sum,matmul,ptx \
    >"$log" 2>&1
  value() { awk -v k="$1" '$1 == "RESULT" && $2 == k {print $3}' "$log" | tail -1; }
  printf '| `%s` | %s | %s | %s | %s | %s | %s |\n' "${args:-(none)}" "$(value loom_saxpy_gbps)" \
    "$(value loom_sum_gbps)" "$(value loom_matmul1024_tflops)" "$(value loom_matmul4096_tflops)" \
    "$(value loom_ptx_saxpy_ms)" "$(value loom_ptx_matmul_ms)"
  grep -q 'all checks passed' "$log" || echo "  (setting $n: a check failed, see $log)"
done
