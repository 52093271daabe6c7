#!/usr/bin/env bash
# Everything for the GPU machine in one command, for a machine with two or more GPUs: the GPU
# test suite and then the benchmarks on GPU 0, while the differential tester runs on the other
# GPUs (all backends, DIFF_JOBS jobs per GPU, for DIFF_SECONDS) from an installed tree (.gpu/).
# Logs go to $OUT (else ./gpu-logs): tests.log, sanitizers.log, bench.log, differential-N.log,
# memcheck-all.log.
#   SUITE_SECONDS=300 BENCH_PART_SECONDS=150 DIFF_SECONDS=420 DIFF_JOBS=12 DIFF_SEED=30000000
#   DIFF_TIERED=quick (the differential tester's GPU runs then compare the quick code of tiered
#   compiles, LOOM_TIERED=quick)
set -uo pipefail
cd "$(dirname "$0")/.."
tree=${1:-.gpu}
export OUT=${OUT:-gpu-logs}
mkdir -p "$OUT"
gpus=$(nvidia-smi --list-gpus | wc -l)
started=$SECONDS

# With three or more GPUs, GPU 1 runs the differential tester and the rest compute-sanitizer's
# memcheck over every test binary (scripts/gpu_memcheck_all.sh, MEMCHECK_SECONDS per binary);
# MEMCHECK_ALL=1 gives every GPU past the first to memcheck instead.
diff_gpus=$gpus memcheck_gpus=
if [[ ${MEMCHECK_ALL:-0} == 1 ]] && ((gpus > 1)); then
  diff_gpus=1
  memcheck_gpus=$(seq -s ' ' 1 $((gpus - 1)))
elif ((gpus > 2)); then
  diff_gpus=2
  memcheck_gpus=$(seq -s ' ' 2 $((gpus - 1)))
fi
if [[ -n $memcheck_gpus ]]; then
  bash scripts/gpu_memcheck_all.sh "$tree" "$memcheck_gpus" "${MEMCHECK_SECONDS:-150}" \
    >"$OUT/memcheck-all.log" 2>&1 &
fi
if ((gpus > 1)); then
  for ((g = 1; g < diff_gpus; ++g)); do
    # GPUs 2, 4, ... compare the 64-bit index code (the programs' small arrays run the 32-bit).
    bits=32
    ((g % 2 == 0)) && bits=64
    LOOM_TIERED=${DIFF_TIERED:-0} LOOM_INDEX_BITS=$bits CUDA_VISIBLE_DEVICES=$g \
      "$tree"/bench/loom_differential --programs 1000000 \
      --seed "$((${DIFF_SEED:-30000000} + (g - 1) * 1000000))" --jobs "${DIFF_JOBS:-12}" \
      --seconds "${DIFF_SECONDS:-420}" --out "$(mktemp -d)" >"$OUT/differential-$g.log" 2>&1 &
  done
fi

CUDA_VISIBLE_DEVICES=0 SKIP_BENCH=1 timeout "${SUITE_SECONDS:-300}" bash scripts/gpu_check.sh "$tree"
echo "test suite done after $((SECONDS - started)) s"
CUDA_VISIBLE_DEVICES=0 BENCH_CPU=0 PART_TIMEOUT="${BENCH_PART_SECONDS:-150}" LOOM_INSTALL="$tree" \
  bash bench/run_gpu.sh >/dev/null 2>&1
echo "benchmarks done after $((SECONDS - started)) s"
sed -n '/^figure /,$p' "$OUT/bench.log"
grep -E '4-argument call' "$OUT/bench.log"
wait
tail -qn1 "$OUT"/differential-*.log 2>/dev/null
[[ -f $OUT/memcheck-all.log ]] && cat "$OUT/memcheck-all.log"
grep -h -A3 'mismatch:' "$OUT"/differential-*.log 2>/dev/null | head -40
echo "all done after $((SECONDS - started)) s"
