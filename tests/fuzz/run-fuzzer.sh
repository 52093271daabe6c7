#!/usr/bin/env bash
# Builds the text-front-end fuzzer with clang-19 (libFuzzer, ASan, UBSan) and runs it for a bounded
# time on its corpus: the examples, the golden tests and tests/fuzz/corpus.
#   run-fuzzer.sh BUILD_DIR SECONDS [extra libFuzzer arguments...]
# Prints "[  SKIPPED ]" and exits 0 when clang++-19 or its fuzzer runtime is missing.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out=$1 seconds=$2
shift 2
clang=$(command -v clang++-19 || true)
if [ -z "$clang" ]; then
  echo "[  SKIPPED ] clang++-19 not found (Debian: clang-19 libclang-rt-19-dev)"
  exit 0
fi
mkdir -p "$out"
fuzzer="$out/text_fuzzer"
sources=("$root"/tests/fuzz/text_fuzzer.cpp "$root"/frontend/text/*.cpp
  "$root"/frontend/PhiloxIR.cpp "$root"/ir/*.cpp "$root"/support/*.cpp)
# Rebuild only when a source or header is newer than the binary.
if [ ! -x "$fuzzer" ] || [ -n "$(find "$root"/frontend "$root"/ir "$root"/support "$root"/tests/fuzz \
  -newer "$fuzzer" \( -name '*.cpp' -o -name '*.h' \) -print -quit)" ]; then
  echo "building $fuzzer"
  # One object per source, compiled in parallel through ccache when it is there (paths made
  # relative to the tree, so another clone reuses them), then linked.
  flags=(-std=c++20 -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
    -I"$root")
  launcher=()
  command -v ccache >/dev/null && launcher=(env CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true ccache)
  mkdir -p "$out/objects"
  objects=()
  for source in "${sources[@]}"; do
    relative=${source#"$root"/}
    objects+=("$out/objects/${relative//\//_}.o")
    "${launcher[@]}" "$clang" "${flags[@]}" -c "$source" -o "${objects[-1]}" &
    while (($(jobs -rp | wc -l) >= $(nproc))); do wait -n; done
  done
  for job in $(jobs -p); do wait "$job"; done
  "$clang" -fsanitize=fuzzer,address,undefined "${objects[@]}" -o "$fuzzer.tmp"
  mv "$fuzzer.tmp" "$fuzzer"
fi
corpus="$out/corpus"
mkdir -p "$corpus"
cp "$root"/examples/dsl/*.loom "$root"/tests/golden/*.loom "$corpus"/ 2>/dev/null || true
[ -d "$root/tests/fuzz/corpus" ] && cp "$root"/tests/fuzz/corpus/* "$corpus"/ 2>/dev/null || true
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
"$fuzzer" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -print_final_stats=1 "$@" 2>&1 | grep -vE '^#[0-9]+.*(NEW|REDUCE|pulse)' | tail -40
