// The CUDA runtime's copy between two GPUs (cudaMemcpyPeer, with peer access enabled where the
// devices allow it), 1 GiB, median of 5: the peer for loom's DeviceArray::copy_from in
// loom_multi_gpu_bench. With one GPU, a copy within it (cudaMemcpy device to device).
//
//   nvcc -O3 -o peer_copy_reference bench/peer_copy_reference.cu && ./peer_copy_reference
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#define CHECK(call)                                                                                \
  do {                                                                                             \
    cudaError_t e = (call);                                                                        \
    if (e != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e));                       \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

int main() {
  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  const int from = 0, to = count > 1 ? 1 : 0;
  const size_t bytes = size_t(1) << 30;
  void *a = nullptr, *b = nullptr;
  CHECK(cudaSetDevice(from));
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaSetDevice(to));
  CHECK(cudaMalloc(&b, bytes));
  int can = 0;
  if (from != to) {
    CHECK(cudaDeviceCanAccessPeer(&can, to, from));
    if (can)
      CHECK(cudaDeviceEnablePeerAccess(from, 0));
  }
  std::vector<double> ms;
  for (int r = 0; r < 6; ++r) {
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
    if (from != to)
      CHECK(cudaMemcpyPeer(b, to, a, from, bytes));
    else
      CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, start, stop));
    if (r > 0) // the first is a warm-up
      ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  const double median = ms[ms.size() / 2];
  std::printf("cudaMemcpy%s 1 GiB, GPU %d to GPU %d%s: %.2f ms, %.1f GB/s\n",
              from != to ? "Peer" : " (device to device)", from, to,
              from != to ? (can ? " (peer access enabled)" : " (no peer access)") : "", median,
              double(bytes) / (median * 1e-3) / 1e9);
  return 0;
}
