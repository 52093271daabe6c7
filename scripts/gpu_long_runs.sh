#!/usr/bin/env bash
# The long reliability runs, on a machine with NVIDIA GPUs and many cores, from an installed tree
# (default .gpu/, which must hold bin/text_fuzzer, built by tests/fuzz/run-fuzzer.sh):
#   1. the text front end's fuzzer, FUZZ_SECONDS (default 120), FUZZ_JOBS forks (default: cores - 2);
#   2. the differential tester: one loom_differential per GPU (JOBS_PER_GPU jobs each, default
#      cores / GPUs - 1), disjoint seeds, DIFF_PROGRAMS in all (default 100000), for at most
#      DIFF_SECONDS (default 360), seeds from DIFF_SEED (default 10000000); CPU JIT and GPU against the interpreter, every program,
#      odd GPUs with 64-bit index arithmetic (LOOM_INDEX_BITS=64), even ones with 32-bit
#      (DIFF_FLAGS adds loom_differential options, e.g. --no-cpu);
#   3. compute-sanitizer memcheck (with leak check) and racecheck on every test binary, all at
#      once, each for at most SANITIZE_SECONDS (default 300); SANITIZE=0 skips them. The tests
#      that fault on purpose (an illegal address in a death test, a cubin the driver must refuse)
#      are left out, and the differential batch is 100 programs.
# The summary is printed; every log goes into $OUT/long-runs.tgz ($OUT else ./gpu-logs).
set -uo pipefail
cd "$(dirname "$0")/.."
tree=${1:-.gpu}
final=${OUT:-gpu-logs}
out=$(mktemp -d)
mkdir -p "$final"
cores=$(nproc)
gpus=$(nvidia-smi --list-gpus | wc -l)
echo "$cores cores, $gpus GPU(s): $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"

if [ "${FUZZ_SECONDS:-120}" -gt 0 ] && [ -x "$tree/bin/text_fuzzer" ]; then
  corpus=$(mktemp -d)
  cp examples/dsl/*.loom tests/golden/*.loom "$corpus"/
  cp tests/fuzz/corpus/* "$corpus"/ 2>/dev/null || true
  (cd "$(mktemp -d)" && ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$OLDPWD/$tree/bin/text_fuzzer" "$corpus" -fork="${FUZZ_JOBS:-$((cores - 2))}" -ignore_crashes=0 \
    -max_total_time="${FUZZ_SECONDS:-120}" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
    -print_final_stats=1) >"$out/fuzz.log" 2>&1
  echo "fuzzer: $(grep -E '^#[0-9]+: cov' "$out/fuzz.log" | tail -1)"
  echo "fuzzer: $(grep -cE 'ERROR: (AddressSanitizer|libFuzzer)|runtime error|deadly signal' \
    "$out/fuzz.log") crash reports, $(grep -c 'ERROR: libFuzzer: timeout' "$out/fuzz.log") timeouts"
fi

programs=${DIFF_PROGRAMS:-100000}
if [ "$programs" -gt 0 ]; then
  per_gpu=$(((programs + gpus - 1) / gpus))
  jobs=${JOBS_PER_GPU:-$((cores / gpus - 1))}
  for ((g = 0; g < gpus; ++g)); do
    # The programs' arrays are small, so calls run the 32-bit index code; odd GPUs run the
    # 64-bit code instead (LOOM_INDEX_BITS=64), so that both are compared with the interpreter.
    bits=32
    ((g % 2 == 1)) && bits=64
    echo "differential on GPU $g: ${bits}-bit index arithmetic" >"$out/differential-$g.log"
    LOOM_INDEX_BITS=$bits CUDA_VISIBLE_DEVICES=$g "$tree"/bench/loom_differential --programs "$per_gpu" \
      --seed "$((${DIFF_SEED:-10000000} + g * per_gpu))" --jobs "$jobs" --seconds "${DIFF_SECONDS:-360}" \
      --out "$out/shrunk-$g" ${DIFF_FLAGS:-} >>"$out/differential-$g.log" 2>&1 &
  done
  wait
  tail -qn1 "$out"/differential-*.log
  awk '/programs, .* mismatches/ {p += $1; m += $3} END {print "differential, all GPUs: " p " programs, " m " mismatches"}' \
    "$out"/differential-*.log
fi

if [ "${SANITIZE:-1}" = 1 ] && command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck; do
    extra=()
    [ $tool = memcheck ] && extra=(--leak-check full)
    for t in "$tree"/tests/*; do
      LOOM_DIFF_PROGRAMS=100 timeout "${SANITIZE_SECONDS:-300}" compute-sanitizer --tool $tool \
        "${extra[@]}" "$t" --gtest_color=no \
        --gtest_filter='-*IllegalAddress*:*CubinOfAnotherArchitectureIsRefusedAndReplaced*' \
        >"$out/$tool-$(basename "$t").log" 2>&1 &
    done
  done
  wait
  for tool in memcheck racecheck; do
    for t in "$tree"/tests/*; do
      f="$out/$tool-$(basename "$t").log"
      echo "$tool $(basename "$t"): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$f" | tail -1) $(grep -E '^\[  (PASSED|FAILED) ' "$f" | tr '\n' ' ')"
    done
  done
fi
tar czf "$final/long-runs.tgz" -C "$out" .
exit 0
