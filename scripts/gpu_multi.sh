#!/usr/bin/env bash
# The run on a machine with several GPUs (and the same on one, with logical devices): the whole GPU
# suite with every GPU visible (scripts/gpu_check.sh, which includes the two-device tests), the
# split over all GPUs against one (bench/multi_gpu_bench.cpp), the copy between two GPUs against
# cudaMemcpyPeer (bench/peer_copy_reference.cu, built here with nvcc), and the MPI example with
# one rank against one rank per GPU (LOOM_DEVICE=local-rank). Needs an MPI launcher on the PATH
# for the last part (docs/mpi.md: Open MPI from its PyPI wheel). Logs go to $OUT (else gpu-logs).
#
#   bash scripts/gpu_multi.sh [tree]     (tree: default .gpu, from scripts/install-gpu-tree.sh)
set -uo pipefail
cd "$(dirname "$0")/.."
tree=${1:-.gpu}
out=${OUT:-gpu-logs}
mkdir -p "$out"
# NVLink multicast stays off: a program using it can take the host's GPUs out of service.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total --format=csv,noheader | tee "$out/gpus.txt"
gpus=$(wc -l <"$out/gpus.txt")

SKIP_BENCH=1 bash scripts/gpu_check.sh "$tree" >"$out/check.txt" 2>&1
echo "gpu_check: $(grep 'FAILED BINARIES' "$out/tests.log")"

"$tree/bench/loom_multi_gpu_bench" 2>&1 | tee "$out/multi_gpu_bench.txt"
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if "$nvcc" -O3 -o /tmp/peer_copy_reference bench/peer_copy_reference.cu; then
  /tmp/peer_copy_reference 2>&1 | tee "$out/peer_copy_reference.txt"
fi

if command -v mpirun >/dev/null; then
  for ranks in 1 "$gpus"; do
    echo "=== mpi_heat, $ranks rank(s), LOOM_DEVICE=local-rank"
    LOOM_DEVICE=local-rank mpirun --allow-run-as-root --oversubscribe -np "$ranks" \
      -x LD_LIBRARY_PATH -x LOOM_DEVICE "$tree/examples/mpi_heat" 4097 4096 200 2>&1 |
      tee -a "$out/mpi_heat.txt"
  done
else
  echo "mpi_heat: not run (no mpirun on the PATH)"
fi
