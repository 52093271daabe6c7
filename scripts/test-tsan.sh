#!/usr/bin/env bash
# CI stage: builds libloom, the eight-thread test (tests/e2e/threads_test.cpp) and the tiered-
# compile test (tests/runtime/TieredCompileTest.cpp) with ThreadSanitizer into build-tsan/, runs
# them, and fails on any report (halt_on_error).
#
# The CPU target runs parallel loops through OpenMP. GCC's libgomp is not instrumented and wakes
# its threads through futexes TSan cannot see, so every parallel region would be reported as a
# race (a pool thread reading a variable of the caller's stack, which the caller reuses after the
# region). The test therefore runs on LLVM's OpenMP runtime, libomp, which implements libgomp's
# entry points (GOMP_parallel, omp_get_thread_num, ...) and is preloaded in its place, with
# Archer, libomp's tool that tells TSan about each region's start, barriers and end. Only libomp's
# own calls of intercepted functions are suppressed (scripts/tsan.supp); Archer's advice to set
# ignore_noninstrumented_modules=1 instead, which it prints, would also ignore those of libLLVM and
# libstdc++. LLVM itself is not instrumented: its memory accesses are not checked, its locks are.
# About 1.5 minutes on the 2-core development machine from an empty build-tsan/ (the test: 15 s).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

# libomp and Archer: Debian 12's LLVM OpenMP runtime.
omp_package=libomp-14-dev
omp_dir=/usr/lib/llvm-14/lib
if ! dpkg-query -W -f='${Status}' "$omp_package" 2>/dev/null | grep -q "install ok installed"; then
  echo "loom test-tsan: installing $omp_package"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "$omp_package"
fi
for f in libomp.so.5 libarcher.so; do
  [ -f "$omp_dir/$f" ] || { echo "loom test-tsan: $omp_dir/$f is missing" >&2; exit 1; }
done

sanitize="-fsanitize=thread -fno-omit-frame-pointer"
cmake -S . -B build-tsan -G Ninja -DLOOM_STATIC_LLVM=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="$sanitize" -DCMAKE_C_FLAGS="$sanitize" \
  -DCMAKE_EXE_LINKER_FLAGS="$sanitize" -DCMAKE_SHARED_LINKER_FLAGS="$sanitize" >/dev/null
# libloom and two tests only: the whole suite under TSan would take far longer on 2 cores.
ninja -C build-tsan e2e_threads_test runtime_tiered_compile_test runtime_devices_test

# run_under_tsan NAME BINARY [openmp]: runs BINARY under TSan with Archer, failing on any report
# (and, with "openmp", when Archer did not start: the test runs OpenMP regions).
run_under_tsan() {
  local name=$1 binary=$2 openmp=${3:-} log=build-tsan/$1.log status=0
  LD_PRELOAD="$omp_dir/libomp.so.5" OMP_TOOL_LIBRARIES="$omp_dir/libarcher.so" \
    ARCHER_OPTIONS="verbose=1" \
    TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/tsan.supp" \
    "$binary" 2>&1 | tee "$log" || status=$?
  if [ "$openmp" = openmp ] && ! grep -q "Archer detected OpenMP application with TSan" "$log"; then
    echo "loom test-tsan: FAILED: Archer did not start in $name: TSan did not know OpenMP's ordering" >&2
    exit 1
  fi
  if grep -q "WARNING: ThreadSanitizer" "$log"; then
    echo "loom test-tsan: FAILED: ThreadSanitizer reported a problem in $name (see $log)" >&2
    exit 1
  fi
  if [ "$status" -ne 0 ]; then
    echo "loom test-tsan: FAILED: $name exited with status $status (see $log)" >&2
    exit "$status"
  fi
}

run_under_tsan threads_test build-tsan/tests/e2e/e2e_threads_test openmp
# Tiered compiles: background compiles beside calls, against the fake driver.
run_under_tsan tiered_compile_test build-tsan/tests/runtime/runtime_tiered_compile_test
# Threads driving two devices at once, against the fake driver.
run_under_tsan devices_test build-tsan/tests/runtime/runtime_devices_test
echo "loom test-tsan: the eight-thread test, the tiered-compile test and the devices test passed" \
  "under ThreadSanitizer with no report"
