#!/usr/bin/env bash
# compute-sanitizer memcheck (--leak-check full) over every test binary of an installed tree,
# spread over the GPUs given, each binary within a time limit: one line per binary with its exit
# status and error summary (logs: $OUT/memcheck/NAME.log).
#   scripts/gpu_memcheck_all.sh TREE "2 3" [SECONDS_PER_BINARY]
# Left out: the differential tester (its GPU runs are long; the suite's batch runs elsewhere),
# the 8 and 12 GiB arrays of the large-array test, and the context-poisoning test, which makes
# an illegal access on purpose.
set -uo pipefail
tree=$1
read -r -a gpus <<<"$2"
limit=${3:-150}
out=${OUT:-gpu-logs}/memcheck
mkdir -p "$out"
skip='^(differential_test|e2e_large_arrays_test|runtime_poisoned_context_test)$'

filter_for() {
  case $1 in
  e2e_simt_test) echo 'Simt.*:-*Bounds*:*Divergent*' ;; # they fault or deadlock on purpose
  *) echo '*' ;;
  esac
}

check() { # GPU binaries...
  local gpu=$1
  shift
  for t in "$@"; do
    local name log rc summary
    name=$(basename "$t")
    log="$out/$name.log"
    CUDA_VISIBLE_DEVICES=$gpu timeout "$limit" compute-sanitizer --tool memcheck \
      --leak-check full "$t" --gtest_filter="$(filter_for "$name")" --gtest_color=no >"$log" 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY" "$log" | tail -1)
    echo "$name: exit $rc; ${summary:-no summary (time limit?)}"
  done
}

binaries=()
for t in "$tree"/tests/*; do
  [[ $(basename "$t") =~ $skip ]] || binaries+=("$t")
done
for ((w = 0; w < ${#gpus[@]}; ++w)); do
  share=()
  for ((i = w; i < ${#binaries[@]}; i += ${#gpus[@]})); do
    share+=("${binaries[i]}")
  done
  check "${gpus[w]}" "${share[@]}" >"$out/summary-$w.txt" &
done
wait
cat "$out"/summary-*.txt
