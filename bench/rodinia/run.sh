#!/usr/bin/env bash
# The Rodinia table: every driver at Rodinia's sizes, ROUNDS times, then one markdown row per
# kernel with the best loom time and the best peer time over the rounds (a machine with other
# load on it slows a run, never speeds it up) and PASS only if every round passed.
#   bash bench/rodinia/run.sh cpu [BIN_DIR]   loom on the CPU against the OpenMP peers beside
#                                             the drivers (default BIN_DIR: build/bench/rodinia)
#   bash bench/rodinia/run.sh gpu [BIN_DIR]   on the GPU machine: builds the CUDA peers with
#                                             build_cuda.sh (and kmeans's OpenMP reference, which
#                                             has no CUDA peer, with gcc), loom on the GPU
# Environment: ROUNDS=2, KERNELS (default: every loom_rodinia_* in BIN_DIR), THREADS (the CPU's
# threads, default all), LD_LIBRARY_PATH as libloom needs it.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mode=${1:-}
[[ $mode == cpu || $mode == gpu ]] || { echo "usage: $0 cpu|gpu [BIN_DIR]" >&2; exit 2; }
bin=$(cd "${2:-$here/../../build/bench/rodinia}" && pwd) || exit 1
rounds=${ROUNDS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

kernels=${KERNELS:-$(cd "$bin" && ls loom_rodinia_* | sed 's/^loom_rodinia_//' | tr '\n' ' ')}
options=(--target="$mode")
[[ -n ${THREADS:-} ]] && options+=(--threads="$THREADS")

if [[ $mode == gpu ]]; then
  peers=$work/peers
  bash "$here/build_cuda.sh" "$peers" || status=1
  # kmeans: Rodinia's CUDA version does not build with CUDA 12 or later (ADAPTATIONS.md); loom
  # on the GPU is checked against the OpenMP version, built here for this machine's CPU.
  omp=$here/third_party/rodinia/openmp/kmeans/kmeans_openmp
  ${CC:-gcc} -O3 -ffp-contract=off -fopenmp -w -o "$peers/kmeans.openmp" "$omp/kmeans.c" \
    "$omp/cluster.c" "$omp/kmeans_clustering.c" -lm || status=1
fi

for ((round = 1; round <= rounds; round++)); do
  for kernel in $kernels; do
    echo "=== round $round of $rounds: $kernel"
    peer=()
    if [[ $mode == gpu && -x $peers/$kernel ]]; then
      peer=(--peer="$peers/$kernel")
    elif [[ $mode == gpu ]]; then
      peer=(--peer="$peers/$kernel.openmp" --peer-kind=openmp)
    fi
    "$bin/loom_rodinia_$kernel" "${options[@]}" "${peer[@]}" 2>&1 | tee "$work/out" |
      grep -v '^\(ROW\|RESULT\)'
    [[ ${PIPESTATUS[0]} == 0 ]] || status=1
    grep '^ROW' "$work/out" >>"$work/rows"
  done
done

echo
echo "| kernel | size | loom ms | peer ms | peer/loom | check |"
echo "|---|---|---:|---:|---:|---|"
[[ -f $work/rows ]] && awk -F'\t' '
  !($2 in size) { order[++n] = $2; size[$2] = $3; peer[$2] = $6; loom[$2] = $5; best[$2] = $7
                  check[$2] = $8; next }
  { if ($5 < loom[$2]) loom[$2] = $5
    if ($7 < best[$2]) best[$2] = $7
    if ($8 != "PASS") check[$2] = $8 }
  END { for (i = 1; i <= n; ++i) { k = order[i]
          printf "| %s | %s | %.3f | %.3f (%s) | %.2fx | %s |\n", k, size[k], loom[k], best[k],
                 peer[k], best[k] / loom[k], check[k] } }' "$work/rows"
exit $status
