#!/usr/bin/env bash
# CI stage: builds loom and its tests with AddressSanitizer, UndefinedBehaviorSanitizer and
# LeakSanitizer into build-asan/, runs the test suite, and fails on any report (a sanitizer report
# aborts the test process, so its test fails).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

sanitize="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
cmake -S . -B build-asan -G Ninja -DLOOM_STATIC_LLVM=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="$sanitize" -DCMAKE_C_FLAGS="$sanitize" \
  -DCMAKE_EXE_LINKER_FLAGS="$sanitize" -DCMAKE_SHARED_LINKER_FLAGS="$sanitize" >/dev/null
ninja -C build-asan

suppressions="$PWD/scripts/lsan.supp"
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=1:detect_stack_use_after_return=1:strict_init_order=1:check_initialization_order=1"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$suppressions:print_suppressions=0"
# The sanitizers check memory safety along every path; fewer random programs cover those paths.
export LOOM_DIFF_PROGRAMS="${LOOM_DIFF_PROGRAMS:-400}"
# The LLVM verifier after every optimization pass, not only after the pipeline.
export LOOM_VERIFY_EACH_PASS=1
# The text front end's fuzzer is built with ASan and UBSan by its own script and ran in the first
# stage (scripts/test.sh): running it again here would repeat the same run. examples/mpi_heat's
# tests (example.mpi_heat*) run under mpiexec, and Open MPI's own allocations that it keeps until
# exit are reported by LeakSanitizer as thousands of leaks (libopen-pal, libmpi), which would fail
# the test for no fault of loom's; they ran in the first stage.
ctest --test-dir build-asan --output-on-failure -j "$(nproc)" -E '^(fuzz[.]|example[.]mpi_heat)'
