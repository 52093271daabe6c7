#!/usr/bin/env bash
# loom's CPU benchmark and its two peers, on an idle machine: the same loops compiled by g++ -O3
# -march=native -fopenmp (inside loom_cpu_bench, alternating calls with loom's in one process) and
# written for Numba (bench/numba_bench.py, @njit(parallel=True)), then one table of ratios (> 1:
# loom faster). loom and Numba run in separate processes, so they are timed in alternating
# rounds, kernel by kernel (loom's section and Numba's for the same kernel, each first in turn),
# and every figure of the table is the median over the rounds: a machine whose speed drifts moves
# both alike, and the per-round ratios show the spread. Last, OpenMP against oneTBB under loom's
# task split (loom_cpu_runtime_bench, docs/decisions.md), installing libtbb-dev when it is missing
# and this runs as root.
#   bash bench/run_cpu.sh [BUILD_DIR]   (default build/; ROUNDS=3; installs numba with pip if
#                                        missing; RUNTIME_BENCH=0 leaves out OpenMP vs oneTBB)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build=${1:-build}
rounds=${ROUNDS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

python3 -c 'import numba' 2>/dev/null || python3 -m pip install --quiet numba ||
  echo "numba is not installable here: its column stays empty"
have_numba=0
python3 -c 'import numba' 2>/dev/null && have_numba=1

# run NAME COMMAND...: shows COMMAND's output but its RESULT lines, and keeps those, tagged with
# the round, in $work/values ("ROUND NAME VALUE").
run() {
  local name=$1
  shift
  "$@" 2>&1 | tee "$work/$name.out" | grep --line-buffered -v '^RESULT '
  [[ ${PIPESTATUS[0]} == 0 ]] || status=1
  awk -v round="$round" '$1 == "RESULT" { print round, $2, $3 }' "$work/$name.out" >>"$work/values"
}

# loom_cpu_bench's sections, which numba_bench.py also takes as --only=.
sections="saxpy sum matmul scheduled_matmul stencil softmax"
for ((round = 1; round <= rounds; round++)); do
  for section in $sections; do
    echo "=== round $round of $rounds: $section"
    # Numba first in even rounds, so that neither program always runs right after the other.
    ((have_numba && round % 2 == 0)) &&
      run "numba.$round.$section" python3 bench/numba_bench.py --only="$section"
    run "loom.$round.$section" "$build"/bench/loom_cpu_bench --only="$section"
    ((have_numba && round % 2 == 1)) &&
      run "numba.$round.$section" python3 bench/numba_bench.py --only="$section"
  done
done
round=0 run compile "$build"/bench/loom_cpu_bench --only="compile time"
# What huge pages are worth: loom on std::vector's memory against loom::HostVector's, which the
# table's loom and g++ figures use (numpy gives Numba's arrays huge pages too).
round=0 run allocation "$build"/bench/loom_cpu_bench --only=allocation

# Medians over the rounds; the ratios are of the medians (the peer's time over loom's), followed
# by each round's ratio.
echo
awk -v rounds="$rounds" '
  function median(a, n,   i, j, t) {
    for (i = 2; i <= n; i++)
      for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n == 0 ? "" : (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2)
  }
  # The medians over rounds of the named figure; its per-round values go to per[].
  function over_rounds(name, per,   r, a, n) {
    n = 0
    for (r = 1; r <= rounds; r++) {
      per[r] = ((r, name) in value) ? value[r, name] : ""
      if (per[r] != "") a[++n] = per[r]
    }
    return median(a, n)
  }
  function ratio(peer, mine) { return peer + 0 > 0 && mine + 0 > 0 ? sprintf("%.2f", peer / mine) : "-" }
  function by_round(peer, mine,   r, text) {
    text = ""
    for (r = 1; r <= rounds; r++) text = text (r > 1 ? " " : "") ratio(peer[r], mine[r])
    return text
  }
  { value[$1, $2] = $3 }
  END {
    printf "%-22s | %9s | %9s | %9s | %6s | %8s | %-16s | %s\n", "kernel (median of " rounds ")",
      "loom ms", "g++ ms", "numba ms", "vs g++", "vs numba", "vs g++ by round", "vs numba by round"
    n = split("saxpy sum sum_lanes sum_fast matmul512 matmul1024 matmul_tiled1024 matmul_tiled_fast1024 " \
              "stencil4096 softmax4096", kernels, " ")
    for (k = 1; k <= n; k++) {
      kernel = kernels[k]
      peer = kernel == "sum_fast" || kernel == "sum_lanes" ? "sum" : kernel == "matmul_tiled_fast1024" ? "matmul_tiled1024" : kernel
      l = over_rounds("loom_cpu_" kernel "_ms", lr)
      g = over_rounds("gpp_" kernel "_ms", gr)
      nb = over_rounds("numba_" peer "_ms", nr)
      printf "%-22s | %9s | %9s | %9s | %6s | %8s | %-16s | %s\n", kernel,
        (l == "" ? "-" : sprintf("%.2f", l)), (g == "" ? "-" : sprintf("%.2f", g)),
        (nb == "" ? "-" : sprintf("%.2f", nb)), ratio(g, l), ratio(nb, l), by_round(gr, lr),
        by_round(nr, lr)
    }
  }' "$work/values"

# OpenMP against oneTBB: built where CMake finds oneTBB, so a missing libtbb-dev is installed here
# (as root) and the build directory reconfigured. Numba takes its TBB threading layer in later runs
# once libtbb is there (numba_bench.py prints the layer).
echo
[[ ${RUNTIME_BENCH:-1} == 0 ]] && exit $status # RUNTIME_BENCH=0: the table only
runtime_bench="$build/bench/loom_cpu_runtime_bench"
if [[ ! -x $runtime_bench ]]; then
  if ! dpkg-query -W -f='${Status}' libtbb-dev 2>/dev/null | grep -q "install ok installed"; then
    if [[ $(id -u) == 0 ]]; then
      apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q libtbb-dev
    else
      echo "libtbb-dev is missing and this is not root: install it to compare OpenMP with oneTBB"
    fi
  fi
  [[ -f $build/CMakeCache.txt ]] && cmake "$build" >/dev/null &&
    cmake --build "$build" --target loom_cpu_runtime_bench >/dev/null
fi
if [[ -x $runtime_bench ]]; then
  "$runtime_bench" || status=1
else
  echo "loom_cpu_runtime_bench is not built in $build: OpenMP against oneTBB not measured"
fi
exit $status
