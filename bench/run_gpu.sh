#!/usr/bin/env bash
# loom's benchmarks on the GPU machine, run from the repository root with the install tree in
# .gpu/ (LOOM_INSTALL overrides): builds the CUDA C peers (bench/reference.cu, cuBLAS's SGEMM
# in bench/cublas_reference.cu and cuRAND's Philox in bench/curand_reference.cu) with nvcc, runs
# them, then loom's GPU benchmark twice (start-up figures with the driver's JIT cache disabled,
# then everything), the PTX compiler library's timings beside its linkers'
# (bench/ptx_compiler_reference.cpp, where the library is found), its launch-shape sweep, cache
# benchmark and Philox benchmark (bench/philox_bench.cpp), and the CPU benchmark, and ends with
# one table of loom against its peers.
# Every part runs even when another fails; what failed is listed at the end (and the exit status is
# then 1). Output goes to stdout and, when $OUT is set, also to $OUT/bench.log.
#
#   bash bench/run_gpu.sh    environment: LOOM_INSTALL=.gpu, NVCC=nvcc, BENCH_CPU=1 (0 skips the
#                            CPU benchmark), PART_TIMEOUT=300 (seconds per part),
#                            NVPTXCOMPILER_HOME (include/nvPTXCompiler.h and
#                            lib/libnvptxcompiler_static.a, when the CUDA installation lacks them)
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
install=${LOOM_INSTALL:-.gpu}
part_timeout=${PART_TIMEOUT:-300}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=/dev/null
if [[ -n "${OUT:-}" ]]; then
  mkdir -p "$OUT" && log="$OUT/bench.log" && : >"$log" || log=/dev/null
fi
failed=()

# The installed binaries carry an rpath to ../lib; this covers a tree installed without it.
export LD_LIBRARY_PATH="$install/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

say() { echo "$*" | tee -a "$log"; }

# part NAME COMMAND...: runs COMMAND with a time limit, its output shown, logged and kept in
# $work/NAME.out (where the table finds its RESULT lines). stdbuf keeps the programs' stdout
# line-buffered through the pipe, so a crash or a timeout loses no finished line.
part() {
  local name=$1
  shift
  say "=== $name: $*"
  local started=$SECONDS
  timeout "$part_timeout" stdbuf -oL -eL "$@" 2>&1 | tee "$work/$name.out" | tee -a "$log"
  local rc=${PIPESTATUS[0]}
  say "=== $name: exit status $rc after $((SECONDS - started)) s"
  if ((rc != 0)); then
    case $rc in
    124) failed+=("$name (timed out after $part_timeout s)") ;;
    132) failed+=("$name (illegal instruction: rebuild with another LOOM_BENCH_CPU_ARCH)") ;;
    *) failed+=("$name (exit status $rc)") ;;
    esac
  elif grep -q '^no usable GPU' "$work/$name.out"; then
    failed+=("$name (no usable GPU)")
  fi
  return "$rc"
}

part gpu nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if part nvcc_build "$nvcc" -O3 -arch=sm_90 -o "$work/reference" bench/reference.cu; then
  part reference "$work/reference"
else
  failed+=("reference (not run: it did not build)")
fi
# cuBLAS's SGEMM, a program of its own so that a cuBLAS problem costs only its row; the runpath
# finds libcublas beside the nvcc that linked it, wherever the loader's path does not.
cuda_lib=$(dirname "$(readlink -f "$nvcc")")/../lib64
if part cublas_build "$nvcc" -O3 -arch=sm_90 -o "$work/cublas_reference" \
  bench/cublas_reference.cu -lcublas -Xlinker -rpath -Xlinker "$cuda_lib"; then
  part cublas "$work/cublas_reference"
else
  failed+=("cublas (not run: it did not build)")
fi

# cuRAND's Philox uniforms, the peer of loom_philox_bench (loom::Philox).
if part curand_build "$nvcc" -O3 -arch=sm_90 -o "$work/curand_reference" bench/curand_reference.cu \
  -lcurand -Xlinker -rpath -Xlinker "$cuda_lib"; then
  part curand "$work/curand_reference"
else
  failed+=("curand (not run: it did not build)")
fi

# PTX to machine code through the CUDA PTX compiler library (nvPTXCompiler), beside the driver's
# linker and nvJitLink that loom_gpu_bench --only=linkers measures. It ships only as a static
# archive, so loom cannot load it at run time; bench/ptx_compiler_reference.cpp times it on the
# PTX of saxpy and the naive matmul that the installed dsl-to-ptx writes for this GPU. The header
# and archive are looked for in NVPTXCOMPILER_HOME (e.g. an unpacked nvidia-nvptxcompiler wheel),
# the CUDA installation of nvcc, and a pip-installed wheel; where they are missing this part says
# so and is left out, not failed.
ptx_compiler_reference() {
  local root dir include="" lib="" candidates=()
  for root in "${NVPTXCOMPILER_HOME:-}" "$cuda_root" \
    "$(python3 -c 'import nvidia; print(list(nvidia.__path__)[0] + "/cu13")' 2>/dev/null)"; do
    [[ -n $root ]] && candidates+=("$root")
  done
  for root in "${candidates[@]}"; do
    [[ -f $root/include/nvPTXCompiler.h ]] || continue
    for dir in lib64 lib; do
      if [[ -f $root/$dir/libnvptxcompiler_static.a ]]; then
        include=$root/include lib=$root/$dir
        break 2
      fi
    done
  done
  if [[ -z $lib ]]; then
    say "=== ptx_compiler: not measured: nvPTXCompiler.h with libnvptxcompiler_static.a not found" \
      "in: ${candidates[*]} (set NVPTXCOMPILER_HOME to a directory holding include/ and lib/)"
    return 0
  fi
  local dsl_to_ptx=$install/bin/dsl-to-ptx kernel
  if [[ ! -x $dsl_to_ptx ]]; then
    failed+=("ptx_compiler (not run: $dsl_to_ptx is missing)")
    return 0
  fi
  for kernel in saxpy matmul; do
    # 32-bit indices: the code a call with arrays of up to 2^30 elements runs, as measured by
    # loom_gpu_bench's linker section.
    part "ptx_${kernel}" "$dsl_to_ptx" "examples/dsl/$kernel.loom" --emit=ptx --index-bits=32 \
      -o "$work/$kernel.ptx" || return 0
  done
  local sm cxx
  sm=$(awk '$1 == ".target" { print $2; exit }' "$work/saxpy.ptx")
  cxx=$(command -v g++ || command -v c++ || echo "$nvcc")
  part ptx_compiler_build "$cxx" -O2 -std=c++20 -I"$include" -o "$work/ptx_compiler_reference" \
    bench/ptx_compiler_reference.cpp -L"$lib" -lnvptxcompiler_static -lpthread &&
    part ptx_compiler "$work/ptx_compiler_reference" "$sm" "$work/saxpy.ptx" "$work/matmul.ptx"
}
cuda_root=$(readlink -f "$(dirname "$(readlink -f "$nvcc")")/..")

# CuPy's complex64 product, the peer of loom_gpu_bench's complex section.
part cupy_complex python3 bench/cupy_complex.py

gpu_bench=$install/bench/loom_gpu_bench
cpu_bench=$install/bench/loom_cpu_bench
if [[ -x $gpu_bench ]]; then
  # After the reference, so the driver's libraries are in the page cache, as for any second
  # program on a machine; with its JIT cache off, so the PTX is compiled for real.
  part loom_first_call env CUDA_CACHE_DISABLE=1 "$gpu_bench" --first-call-only
  part loom_gpu "$gpu_bench"
  # The same kernels with 64-bit index arithmetic, against the 32-bit code loom picks for them.
  part loom_gpu_index64 env LOOM_INDEX_BITS=64 "$gpu_bench" --only=matmul,stencil
  # The quick code of tiered compiles (LOOM_TIERED=quick: no optimized code), against the
  # optimized code of loom_gpu.
  part loom_gpu_quick env LOOM_TIERED=quick "$gpu_bench" --only=saxpy,sum,matmul,stencil,softmax
  # PTX to machine code: the driver's linker, nvJitLink and the driver's JIT, the JIT uncached.
  part loom_linkers env CUDA_CACHE_DISABLE=1 "$gpu_bench" --only=linkers
  ptx_compiler_reference
  [[ -x $install/bench/loom_launch_sweep ]] && part launch_sweep "$install/bench/loom_launch_sweep"
  # Uniform random numbers, loom's Philox against cuRAND's (the curand part above).
  if [[ -x $install/bench/loom_philox_bench ]]; then
    part loom_philox "$install/bench/loom_philox_bench"
  else
    failed+=("loom_philox_bench (missing: $install/bench/loom_philox_bench)")
  fi
  # loom's compile caches (cold, disk, in-memory first calls) on the GPU and the CPU.
  [[ -x $install/bench/loom_cache_bench ]] && part loom_cache "$install/bench/loom_cache_bench"
else
  failed+=("loom_gpu_bench (missing: $gpu_bench)")
fi
if [[ ${BENCH_CPU:-1} != 0 ]]; then
  if [[ -x $cpu_bench ]]; then
    part loom_cpu "$cpu_bench"
  else
    failed+=("loom_cpu_bench (missing: $cpu_bench)")
  fi
fi

# value PART NAME: the value of `RESULT NAME value unit` in that part's output, or nothing.
value() {
  [[ -f $work/$1.out ]] || return 0
  awk -v name="$2" '$1 == "RESULT" && $2 == name { v = $3 } END { if (v != "") print v }' \
    "$work/$1.out"
}

# row KIND FIGURE LOOM_PART LOOM_NAME [PEER_PART PEER_NAME]: one line of the table. KIND is rate
# (higher is better) or time; either way the speed column is loom's speed over the peer's, so > 1
# means loom is faster.
row() {
  local kind=$1 figure=$2 loom peer=""
  loom=$(value "$3" "$4")
  [[ $# -ge 6 ]] && peer=$(value "$5" "$6")
  awk -v k="$kind" -v f="$figure" -v l="$loom" -v p="$peer" 'BEGIN {
    speed = "-"
    if (l != "" && p != "" && l + 0 != 0 && p + 0 != 0)
      speed = sprintf("%.3f", k == "time" ? p / l : l / p)
    printf "%-46s | %12s | %12s | %6s\n", f, (l == "" ? "-" : l), (p == "" ? "-" : p), speed
  }'
}

table() {
  printf "%-46s | %12s | %12s | %6s\n" "figure" "loom" "peer" "speed"
  printf -- "-----------------------------------------------|--------------|--------------|-------\n"
  row rate "saxpy 2^28 GB/s vs nvcc (best grid)" loom_gpu loom_saxpy_gbps reference nvcc_saxpy_gbps
  row rate "saxpy 2^28 GB/s vs D2D cudaMemcpy" loom_gpu loom_saxpy_gbps reference d2d_copy_gbps
  row rate "saxpy 2^28 GB/s, runs of 4 by hand vs nvcc" loom_gpu loom_saxpy_runs4_gbps \
    reference nvcc_saxpy_gbps
  row rate "grey u8 RGB 4096^2 GB/s vs nvcc" loom_gpu loom_grey4096_gbps reference nvcc_grey4096_gbps
  row rate "matmul 4096: A a transposed view vs dense A" loom_gpu \
    loom_matmul4096_transposed_view_tflops loom_gpu loom_matmul4096_dense_tflops
  row rate "complex c64 product 2^26 GB/s vs CuPy" loom_gpu loom_complex_product_gbps \
    cupy_complex cupy_complex_product_gbps
  row time "stencil 1000 steps 512^2 ms: 1 call vs raw launches" loom_gpu \
    loom_stepped_stencil_one_call_ms reference nvcc_stepped_stencil_launches_ms
  row time "stencil 1000 steps 512^2 ms: 1 call vs CUDA graph" loom_gpu \
    loom_stepped_stencil_one_call_ms reference nvcc_stepped_stencil_graph_ms
  row time "stencil 1000 steps 512^2 ms: 1 call vs 1000 calls" loom_gpu \
    loom_stepped_stencil_one_call_ms loom_gpu loom_stepped_stencil_calls_ms
  row rate "saxpy 2^28 f16 GB/s vs nvcc __half saxpy" loom_gpu loom_saxpy_f16_gbps \
    reference nvcc_saxpy_f16_gbps
  row rate "sum 2^30 GB/s vs CUB DeviceReduce::Sum" loom_gpu loom_sum_gbps reference cub_sum_gbps
  row time "doitgen 140x150x160 ms, local scratch vs nvcc" loom_gpu loom_doitgen_ms reference \
    nvcc_doitgen_ms
  row time "Philox uniform f32 2^28 ms vs cuRAND" loom_philox loom_philox_uniform_ms \
    curand curand_philox_uniform_ms
  row time "Philox 2^28, one number per stream vs cuRAND" loom_philox \
    loom_philox_uniform_one_ms curand curand_philox_uniform_ms
  row rate "matmul 1024 TFLOP/s vs nvcc (best block)" loom_gpu loom_matmul1024_tflops \
    reference nvcc_matmul1024_tflops
  row rate "matmul 4096 TFLOP/s vs nvcc (best block)" loom_gpu loom_matmul4096_tflops \
    reference nvcc_matmul4096_tflops
  row rate "nvcc matmul 4096 TFLOP/s: 64-bit vs 32-bit idx" reference nvcc_matmul4096_i64_tflops \
    reference nvcc_matmul4096_32x8_tflops
  row rate "nvcc matmul 4096: 64-bit grid-stride vs 32-bit" reference \
    nvcc_matmul4096_i64_stride_tflops reference nvcc_matmul4096_32x8_tflops
  row rate "matmul 1024 TFLOP/s: 32-bit vs 64-bit indices" loom_gpu loom_matmul1024_tflops \
    loom_gpu_index64 loom_matmul1024_tflops
  row rate "matmul 4096 TFLOP/s: 32-bit vs 64-bit indices" loom_gpu loom_matmul4096_tflops \
    loom_gpu_index64 loom_matmul4096_tflops
  row rate "stencil 8192^2 GB/s: 32-bit vs 64-bit indices" loom_gpu loom_stencil8192_gbps \
    loom_gpu_index64 loom_stencil8192_gbps
  row rate "naive matmul 4096 TFLOP/s vs cuBLAS SGEMM *" loom_gpu loom_matmul4096_tflops \
    cublas cublas_sgemm4096_tflops
  row rate "stencil 8192^2 GB/s vs nvcc (best block)" loom_gpu loom_stencil8192_gbps \
    reference nvcc_stencil8192_gbps
  row time "softmax 8192^2 ms vs nvcc (block per row)" loom_gpu loom_softmax8192_ms \
    reference nvcc_softmax8192_ms
  row time "softmax 8192^2 ms, block_per_iteration vs nvcc" loom_gpu \
    loom_softmax_sched8192_ms reference nvcc_softmax8192_ms
  row time "softmax 8192^2 ms, same algorithm, scheduled vs nvcc" loom_gpu \
    loom_softmax_sched_recompute8192_ms reference nvcc_softmax8192_ms
  row time "softmax 8192^2 ms, loom SIMT vs nvcc (both block/row)" loom_gpu \
    loom_softmax_simt8192_ms reference nvcc_softmax8192_ms
  row rate "tiled matmul 4096 TFLOP/s, loom SIMT vs nvcc" loom_gpu loom_tiled_matmul4096_tflops \
    reference nvcc_tiled_matmul4096_tflops
  row rate "tiled matmul 4096 TFLOP/s, loom SIMT vs cuBLAS" loom_gpu \
    loom_tiled_matmul4096_tflops cublas cublas_sgemm4096_tflops
  row rate "register-tiled SGEMM 4096, loom SIMT vs cuBLAS" loom_gpu \
    loom_sgemm_simt4096_tflops cublas cublas_sgemm4096_tflops
  row rate "scheduled matmul 4096 (tile, best) vs cuBLAS" loom_gpu \
    loom_scheduled_matmul4096_tflops cublas cublas_sgemm4096_tflops
  row rate "scheduled matmul 4096 (tile 128/8x8/d8/b2) vs cuBLAS" loom_gpu \
    loom_tile_128x128_8x8_d8_b2_4096_tflops cublas cublas_sgemm4096_tflops
  row time "4-arg call us vs raw cuLaunchKernel+sync" loom_gpu loom_call_4args_us \
    loom_gpu raw_launch_sync_us
  row rate "1 GiB to the device GB/s vs plain cuMemcpyHtoD" loom_gpu loom_h2d_gbps loom_gpu raw_h2d_gbps
  row rate "1 GiB to the host GB/s vs plain cuMemcpyDtoH" loom_gpu loom_d2h_gbps loom_gpu raw_d2h_gbps
  row time "saxpy 2^28 ms/call, host wall vs nvcc events" loom_gpu loom_saxpy_host_ms \
    reference nvcc_saxpy_ms
  row time "saxpy 2^28 ms, auto shape vs best swept" launch_sweep sweep_saxpy_2e28_auto_ms \
    launch_sweep sweep_saxpy_2e28_best_ms
  row time "sum 2^30 ms, auto shape vs best swept" launch_sweep sweep_sum_2e30_auto_ms \
    launch_sweep sweep_sum_2e30_best_ms
  row time "matmul 1024 ms, auto shape vs best swept" launch_sweep sweep_matmul1024_auto_ms \
    launch_sweep sweep_matmul1024_best_ms
  row time "matmul 4096 ms, auto shape vs best swept" launch_sweep sweep_matmul4096_auto_ms \
    launch_sweep sweep_matmul4096_best_ms
  row time "stencil 8192^2 ms, auto shape vs best swept" launch_sweep sweep_stencil8192_auto_ms \
    launch_sweep sweep_stencil8192_best_ms
  row time "softmax 8192^2 ms, auto shape vs best swept" launch_sweep sweep_softmax8192_auto_ms \
    launch_sweep sweep_softmax8192_best_ms
  row time "cuInit + context ms (JIT cache off)" loom_first_call loom_context_ms
  row time "first kernel call ms (JIT cache off)" loom_first_call loom_first_call_ms
  row time "same, with the context ms (JIT cache off)" loom_first_call \
    loom_first_call_with_context_ms
  row time "new kernel first call ms (JIT cache off)" loom_first_call loom_new_kernel_first_call_ms
  row time "new kernel first call ms (JIT cache as found)" loom_gpu loom_new_kernel_first_call_ms
  row time "new tiered kernel first call ms (JIT cache off)" loom_first_call \
    loom_new_tiered_kernel_first_call_ms loom_first_call loom_new_kernel_first_call_ms
  row time "same, optimized code in use after ms" loom_first_call \
    loom_new_tiered_kernel_optimized_after_ms
  row rate "quick code: saxpy 2^28 GB/s vs optimized" loom_gpu_quick loom_saxpy_gbps \
    loom_gpu loom_saxpy_gbps
  row rate "quick code: sum 2^30 GB/s vs optimized" loom_gpu_quick loom_sum_gbps loom_gpu loom_sum_gbps
  row rate "quick code: matmul 1024 TFLOP/s vs optimized" loom_gpu_quick loom_matmul1024_tflops \
    loom_gpu loom_matmul1024_tflops
  row rate "quick code: matmul 4096 TFLOP/s vs optimized" loom_gpu_quick loom_matmul4096_tflops \
    loom_gpu loom_matmul4096_tflops
  row rate "quick code: stencil 8192^2 GB/s vs optimized" loom_gpu_quick loom_stencil8192_gbps \
    loom_gpu loom_stencil8192_gbps
  row time "quick code: softmax 8192^2 ms vs optimized" loom_gpu_quick loom_softmax8192_ms \
    loom_gpu loom_softmax8192_ms
  row time "warm call, saxpy 2^20, host wall ms" loom_gpu loom_saxpy_2e20_warm_call_ms
  row time "PTX generation ms, saxpy" loom_gpu loom_ptx_saxpy_ms
  row time "PTX generation ms, matmul" loom_gpu loom_ptx_matmul_ms
  row time "PTX generation ms, saxpy quick code vs optimized" loom_gpu loom_ptx_saxpy_quick_ms \
    loom_gpu loom_ptx_saxpy_ms
  row time "PTX generation ms, matmul quick code vs optimized" loom_gpu loom_ptx_matmul_quick_ms \
    loom_gpu loom_ptx_matmul_ms
  row time "tracing ms (C++ DSL to IR), saxpy" loom_gpu loom_ptx_saxpy_trace_ms
  row time "tracing ms (C++ DSL to IR), matmul" loom_gpu loom_ptx_matmul_trace_ms
  row time "PTX to cubin ms, saxpy: nvJitLink vs cuLink*" loom_linkers loom_link_saxpy_nvjitlink_ms \
    loom_linkers loom_link_saxpy_driver_ms
  row time "PTX to cubin ms, matmul: nvJitLink vs cuLink*" loom_linkers \
    loom_link_matmul_nvjitlink_ms loom_linkers loom_link_matmul_driver_ms
  row time "PTX to cubin ms, saxpy: nvPTXCompiler vs cuLink*" ptx_compiler \
    nvptxcompiler_saxpy_ms loom_linkers loom_link_saxpy_driver_ms
  row time "PTX to cubin ms, matmul: nvPTXCompiler vs cuLink*" ptx_compiler \
    nvptxcompiler_matmul_ms loom_linkers loom_link_matmul_driver_ms
  row time "saxpy ms: cuLink*+load vs JIT at load (no cache)" loom_linkers \
    loom_link_saxpy_driver_and_load_ms loom_linkers loom_link_saxpy_jit_load_ms
  row time "matmul ms: cuLink*+load vs JIT at load (no cache)" loom_linkers \
    loom_link_matmul_driver_and_load_ms loom_linkers loom_link_matmul_jit_load_ms
  row time "matmul cubin load ms (cuModuleLoadData)" loom_linkers loom_link_matmul_cubin_load_ms
  row time "new matmul first call ms, caches cold" loom_cache cache_gpu_matmul_cold_first_call_ms
  row time "same, cubin from loom's disk cache" loom_cache cache_gpu_matmul_disk_first_call_ms
  row time "same, code in loom's memory cache" loom_cache cache_gpu_matmul_memory_first_call_ms
  row time "code lookup of a compiled kernel, ns" loom_cache cache_gpu_hot_lookup_ns
  row rate "CPU saxpy 2^26 GB/s vs g++ -O3" loom_cpu loom_cpu_saxpy_gbps loom_cpu gpp_saxpy_gbps
  row rate "CPU sum 2^27 GB/s vs g++ -O3 -fopenmp reduction" loom_cpu loom_cpu_sum_gbps loom_cpu gpp_sum_gbps
  row rate "CPU sum 2^27 GB/s, loom fastmath, vs the same g++" loom_cpu loom_cpu_sum_fast_gbps \
    loom_cpu gpp_sum_fast_gbps
  row rate "CPU matmul 512 GFLOP/s vs g++ -O3" loom_cpu loom_cpu_matmul512_gflops \
    loom_cpu gpp_matmul512_gflops
  row rate "CPU matmul 1024 GFLOP/s vs g++ -O3" loom_cpu loom_cpu_matmul1024_gflops \
    loom_cpu gpp_matmul1024_gflops
  row time "CPU compile ms, saxpy" loom_cpu loom_cpu_compile_saxpy_ms
  row time "CPU compile ms, matmul" loom_cpu loom_cpu_compile_matmul_ms
  row time "CPU new matmul first call ms, disk cache" loom_cache cache_cpu_matmul_disk_first_call_ms
  echo "speed: loom's speed over the peer's (> 1: loom faster); JIT cache: the driver's, on disk"
  echo "* cuBLAS SGEMM (FP32, no TF32) is the peer of the scheduled matmul (the tile schedule);"
  echo "  the naive matmul's row against it is for scale"
}

checks_failed=$(cat "$work"/*.out 2>/dev/null | grep -E '^(CHECK FAIL|FAILED)' || true)
{
  echo
  table
  echo
  if [[ -n $checks_failed ]]; then
    echo "failed checks:"
    echo "$checks_failed"
  fi
  if ((${#failed[@]})); then
    echo "failed parts:"
    printf '  %s\n' "${failed[@]}"
  else
    echo "all parts ran"
  fi
} | tee -a "$log"
[[ -z $checks_failed && ${#failed[@]} -eq 0 ]]
