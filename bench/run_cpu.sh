#!/usr/bin/env bash
# loom's CPU benchmark and its two peers in one run, on an idle machine: the same loops compiled
# by g++ -O3 -march=native -fopenmp (inside loom_cpu_bench) and written for Numba
# (bench/numba_bench.py, @njit(parallel=True)), then one table of ratios (> 1: loom faster).
#   bash bench/run_cpu.sh [BUILD_DIR]     (default build/; installs numba with pip if missing)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -c 'import numba' 2>/dev/null || python3 -m pip install --quiet numba ||
  echo "numba is not installable here: its column stays empty"
"$build"/bench/loom_cpu_bench | tee "$work/loom.out"
python3 bench/numba_bench.py | tee "$work/numba.out"

value() { awk -v n="$2" '$1 == "RESULT" && $2 == n { print $3 }' "$work/$1.out"; }
printf "\n%-26s | %10s | %10s | %10s | %8s | %8s\n" kernel "loom ms" "g++ ms" "numba ms" \
  "vs g++" "vs numba"
for k in saxpy sum sum_fast matmul512 matmul1024 matmul_tiled1024 matmul_tiled_fast1024 \
  stencil4096 softmax4096; do
  l=$(value loom "loom_cpu_${k}_ms") g=$(value loom "gpp_${k}_ms")
  nb=$(value numba "numba_${k}_ms")
  [[ $k == sum_fast ]] && nb=$(value numba numba_sum_ms)
  [[ $k == matmul_tiled_fast1024 ]] && nb=$(value numba numba_matmul_tiled1024_ms)
  awk -v k="$k" -v l="$l" -v g="$g" -v n="$nb" 'BEGIN {
    printf "%-26s | %10s | %10s | %10s | %8s | %8s\n", k, l, g, (n == "" ? "-" : n),
      (l + 0 > 0 && g + 0 > 0 ? sprintf("%.2f", g / l) : "-"),
      (l + 0 > 0 && n + 0 > 0 ? sprintf("%.2f", n / l) : "-") }'
done
