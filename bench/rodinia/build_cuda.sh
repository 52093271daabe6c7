#!/usr/bin/env bash
# Builds Rodinia's CUDA versions of the ported kernels (third_party/rodinia/cuda) into OUT_DIR,
# one program per kernel named after it (OUT_DIR/hotspot, ...), for the GPU machine's nvcc.
#   bash bench/rodinia/build_cuda.sh OUT_DIR     environment: NVCC=nvcc, CUDA_ARCH=sm_90
# Flags: nvcc -O3 -arch=$CUDA_ARCH (nvcc contracts a * b + c into fma by default, as loom's GPU
# code may). Where the toolkit no longer declares cudaThreadSynchronize (Rodinia's nn, srad,
# backprop and gaussian call it), it is defined as cudaDeviceSynchronize, its replacement, on the
# command line; the sources stay as vendored (third_party/rodinia/ADAPTATIONS.md).
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 OUT_DIR" >&2; exit 2; }
out=$(mkdir -p "$1" && cd "$1" && pwd)
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/third_party/rodinia/cuda" && pwd)
sdk=$(cd "$(dirname "${BASH_SOURCE[0]}")/cuda_sdk" && pwd)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
flags=(-O3 "-arch=${CUDA_ARCH:-sm_90}" -w)

probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '#include <cuda_runtime.h>\nint main() { return (int)cudaThreadSynchronize(); }\n' \
  >"$probe/probe.cu"
if ! "$nvcc" "${flags[@]}" -o "$probe/probe" "$probe/probe.cu" 2>/dev/null; then
  flags+=(-DcudaThreadSynchronize=cudaDeviceSynchronize)
fi

# build NAME COMMAND...: runs COMMAND and shows its output if it fails; a failure is reported, not
# fatal, so that the other kernels still build.
failed=()
build() {
  local name=$1
  shift
  if "$@" >"$probe/$name.log" 2>&1; then
    echo "built $out/$name"
  else
    sed "s/^/$name: /" "$probe/$name.log" >&2
    failed+=("$name")
  fi
}

build hotspot "$nvcc" "${flags[@]}" -o "$out/hotspot" "$src/hotspot/hotspot.cu"
build pathfinder "$nvcc" "${flags[@]}" -o "$out/pathfinder" "$src/pathfinder/pathfinder.cu"
build nn "$nvcc" "${flags[@]}" -o "$out/nn" "$src/nn/nn_cuda.cu"
build srad "$nvcc" "${flags[@]}" -o "$out/srad" "$src/srad/srad_v2/srad.cu"
build hotspot3D "$nvcc" "${flags[@]}" -o "$out/hotspot3D" "$src/hotspot3D/3D.cu"
build gaussian "$nvcc" "${flags[@]}" -o "$out/gaussian" "$src/gaussian/gaussian.cu"
# cfd: it includes the CUDA samples' helper_cuda.h and helper_timer.h, which its makefile takes
# from the SDK and the toolkit does not ship; cuda_sdk/ has stand-ins for what it uses.
build cfd "$nvcc" "${flags[@]}" -I"$sdk" -o "$out/cfd" "$src/cfd/euler3d.cu"
objects="$probe/objects"
mkdir -p "$objects"
# lud: common.c by nvcc too, as Rodinia's makefile does (without its -use_fast_math: loom's
# code, which it is compared with, does not approximate either).
build lud "$nvcc" "${flags[@]}" -I"$src/lud/common" -o "$out/lud" "$src/lud/cuda/lud.cu" \
  "$src/lud/cuda/lud_kernel.cu" -x cu "$src/lud/common/common.c"
# lavaMD: its C files by the host compiler, its CUDA files by nvcc, as Rodinia's makefile does.
lava="$src/lavaMD"
build lavaMD bash -c "set -e
  for f in main util/num/num util/timer/timer; do
    ${CC:-gcc} -O3 -w -c '$lava/'\$f.c -o '$objects/lava_'\$(basename \$f).o
  done
  '$nvcc' ${flags[*]} -c '$lava/kernel/kernel_gpu_cuda_wrapper.cu' -o '$objects/lava_wrapper.o'
  '$nvcc' ${flags[*]} -c '$lava/util/device/device.cu' -o '$objects/lava_device.o'
  '$nvcc' ${flags[*]} -o '$out/lavaMD' '$objects'/lava_*.o -lm"
# backprop: its C files by the host compiler, as Rodinia's makefile does, linked by nvcc.
build backprop bash -c "set -e
  for f in backprop facetrain imagenet; do
    ${CC:-gcc} -O3 -w -c '$src/backprop/'\$f.c -o '$objects/bp_'\$f.o
  done
  '$nvcc' ${flags[*]} -c '$src/backprop/backprop_cuda.cu' -o '$objects/bp_cuda.o'
  '$nvcc' ${flags[*]} -o '$out/backprop' '$objects'/bp_*.o -lm"

if ((${#failed[@]})); then
  echo "build_cuda.sh: FAILED to build: ${failed[*]}" >&2
  exit 1
fi
