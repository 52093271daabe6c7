// The CUDA C peers of loom's GPU benchmark (gpu_bench.cpp), with the runtime API: saxpy 2^28
// grid-stride with an occupancy-derived grid, a device-to-device cudaMemcpy (the bandwidth
// ceiling), the naive matmul at 1024^2 and 4096^2 with 16x16 and 32x8 blocks, the 5-point stencil
// over 8192^2 with 2-D blocks and the row softmax of 8192 x 8192 with a block per row (cuBLAS's
// SGEMM is cublas_reference.cu). Built and run on the GPU machine by run_gpu.sh (nvcc -O3
// -arch=sm_90); prints the same `RESULT name value unit` lines and uses the same checks
// (BenchSupport.h); the runtime helpers are CudaSupport.cuh's.
#include "CudaSupport.cuh"

#include <cub/device/device_reduce.cuh>
#include <cuda_fp16.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using bench::device_copy;
using bench::name_of;
using bench::print_times;
using bench::time_launches;
using bench::timed_runs;

__global__ void saxpy(float a, const float *x, float *y, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    y[i] = a * x[i] + y[i];
}

// saxpy on __half arrays: f32 arithmetic, each y rounded to half (what loom's f16 saxpy does).
__global__ void saxpy_f16(float a, const __half *x, __half *y, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    y[i] = __float2half_rn(a * __half2float(x[i]) + __half2float(y[i]));
}

// PolyBench's doitgen with a local array (each thread's own scratch row in local memory): one
// thread per (r, q), q along x.
__global__ void doitgen_local(double *A, const double *C4, int R, int Q, int P) {
  const int q = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
  if (q >= Q || r >= R)
    return;
  double sum[160];
  double *row = A + (size_t(r) * Q + q) * P;
  for (int p = 0; p < P; ++p) {
    double acc = 0.0;
    for (int s = 0; s < P; ++s)
      acc += row[s] * C4[s * P + p];
    sum[p] = acc;
  }
  for (int p = 0; p < P; ++p)
    row[p] = sum[p];
}

// One thread per element of C, x along columns so a warp reads B and writes C coalesced.
__global__ void matmul(const float *A, const float *B, float *C, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) {
    float acc = 0.0f;
    for (int k = 0; k < n; ++k)
      acc += A[i * n + k] * B[k * n + j];
    C[i * n + j] = acc;
  }
}

// The same kernel with 64-bit index arithmetic, as loom's code has it: not a peer, a diagnosis of
// how much of the gap to nvcc's kernel the 64-bit arithmetic accounts for.
__global__ void matmul_i64(const float *A, const float *B, float *C, long long n) {
  long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) {
    float acc = 0.0f;
    for (long long k = 0; k < n; ++k)
      acc += A[i * n + k] * B[k * n + j];
    C[i * n + j] = acc;
  }
}

// loom's structure in CUDA C: 64-bit indices and grid-stride loops over both dimensions, launched
// with loom's automatic shape (32x8 blocks, grid capped at 4 waves of 8 blocks on every SM).
// Also a diagnosis, not a peer.
__global__ void matmul_i64_stride(const float *A, const float *B, float *C, long long n) {
  for (long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y; i < n;
       i += (long long)blockDim.y * gridDim.y)
    for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < n;
         j += (long long)blockDim.x * gridDim.x) {
      float acc = 0.0f;
      for (long long k = 0; k < n; ++k)
        acc += A[i * n + k] * B[k * n + j];
      C[i * n + j] = acc;
    }
}

// One thread per interior point of an n x m grid, x along columns so that a warp's loads and its
// store are coalesced. The sum in loom's order (centre, up, down, left, right).
__global__ void stencil(const float *__restrict__ u, float *__restrict__ v, int n, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int i = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (i < n - 1 && j < m - 1) {
    size_t k = size_t(i) * m + j;
    v[k] = 0.2f * (u[k] + u[k - m] + u[k + m] + u[k - 1] + u[k + 1]);
  }
}

struct Max {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct Sum {
  __device__ float operator()(float a, float b) const { return a + b; }
};

// `value` combined over the block, returned to every thread: a shuffle tree within each warp, the
// warps' results through shared memory, then a shuffle tree over those in every warp (so no
// second broadcast). blockDim.x is a multiple of 32; `identity` stands in for absent warps.
template <class Op> __device__ float block_reduce(float value, Op op, float identity) {
  __shared__ float per_warp[32];
  for (int offset = 16; offset > 0; offset /= 2)
    value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0)
    per_warp[warp] = value;
  __syncthreads();
  value = lane < blockDim.x / 32 ? per_warp[lane] : identity;
  for (int offset = 16; offset > 0; offset /= 2)
    value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
  __syncthreads(); // every warp has read per_warp before a later reduction overwrites it
  return value;
}

// CUDA's programming-guide matmul: 16 x 16 tiles of A and B in shared memory, one thread per
// element of C (n a multiple of 16); the peer of loom's SIMT-level tiled matmul.
__global__ void tiled_matmul(const float *A, const float *B, float *C, int n) {
  __shared__ float As[16][16], Bs[16][16];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float acc = 0.0f;
  for (int tile = 0; tile < n / 16; ++tile) {
    As[ty][tx] = A[size_t(row) * n + tile * 16 + tx];
    Bs[ty][tx] = B[size_t(tile * 16 + ty) * n + col];
    __syncthreads();
    for (int e = 0; e < 16; ++e)
      acc += As[ty][e] * Bs[e][tx];
    __syncthreads();
  }
  C[size_t(row) * n + col] = acc;
}

// Softmax of one row per block of an n x m matrix, in three block-strided passes over the row (a
// warp reads 32 consecutive floats): the maximum, the sum of expf(x - max), then
// expf(x - max) / sum, so y is written once. Passes 2 and 3 read the row again, mostly from L1 or
// L2: a row is 32 KiB.
__global__ void softmax(const float *__restrict__ x, float *__restrict__ y, int m) {
  const float *row = x + size_t(blockIdx.x) * m;
  float *out = y + size_t(blockIdx.x) * m;
  float top = -INFINITY;
  for (int j = threadIdx.x; j < m; j += blockDim.x)
    top = fmaxf(top, row[j]);
  top = block_reduce(top, Max(), -INFINITY);
  float total = 0.0f;
  for (int j = threadIdx.x; j < m; j += blockDim.x)
    total += expf(row[j] - top);
  total = block_reduce(total, Sum(), 0.0f);
  for (int j = threadIdx.x; j < m; j += blockDim.x)
    out[j] = expf(row[j] - top) / total;
}

// Saxpy with grids of 1, 2 and 4 waves (a wave: as many blocks as the SMs hold at once at the
// occupancy-chosen block size); the best is the peer. Then the D2D copy of as many bytes as saxpy
// reads: the device's achievable bandwidth.
bool saxpy_and_copy(uint64_t seed, int sm_count) {
  const size_t n = size_t(1) << 28;
  const float a = 0.5f + float(seed % 1024) / 512.0f;
  std::vector<float> x = bench::random_vector(n, seed), y0 = bench::random_vector(n, seed + 1);
  float *dx = device_copy(x), *dy = device_copy(y0);

  int min_grid = 0, block = 0;
  CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, saxpy, 0, 0));
  const size_t needed = (n + block - 1) / block;
  std::printf("  saxpy: occupancy block %d, one wave = %d blocks (%d SMs)\n", block, min_grid,
              sm_count);

  bool ok = true;
  double best_ms = 1e30;
  for (int waves : {1, 2, 4}) {
    int grid = int(std::min<size_t>(needed, size_t(min_grid) * waves));
    CUDA_CHECK(cudaMemcpy(dy, y0.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    saxpy<<<grid, block>>>(a, dx, dy, n);
    CUDA_CHECK(cudaGetLastError());
    std::vector<float> y(n);
    CUDA_CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    ok &= bench::check(name_of("saxpy 2^28 (nvcc, %lld waves)", waves).c_str(),
                       bench::saxpy_error(a, x.data(), y0.data(), y.data(), n),
                       bench::saxpy_tolerance);
    // Each launch adds a*x again: y grows linearly, no overflow, no denormals.
    std::vector<double> ms =
        time_launches([&] { saxpy<<<grid, block>>>(a, dx, dy, n); }, 3, timed_runs);
    print_times(name_of("saxpy 2^28, grid %lld x %lld (%lld waves)", grid, block, waves), ms);
    double m = bench::median(ms);
    bench::result(name_of("nvcc_saxpy_w%lld_gbps", waves).c_str(), 12.0 * n / (m * 1e6), "GB/s");
    best_ms = std::min(best_ms, m);
  }
  bench::result("nvcc_saxpy_ms", best_ms, "ms");
  bench::result("nvcc_saxpy_gbps", 12.0 * n / (best_ms * 1e6), "GB/s");

  // The f16 saxpy at the best of the same grids, inputs rounded to half on the device.
  {
    __half *hx = nullptr, *hy = nullptr;
    CUDA_CHECK(cudaMalloc(&hx, n * sizeof(__half)));
    CUDA_CHECK(cudaMalloc(&hy, n * sizeof(__half)));
    std::vector<__half> x16(n), y16(n);
    std::vector<float> xf(n), y0f(n), yf(n);
    for (size_t i = 0; i < n; ++i) {
      x16[i] = __float2half_rn(x[i]), y16[i] = __float2half_rn(y0[i]);
      xf[i] = __half2float(x16[i]), y0f[i] = __half2float(y16[i]);
    }
    CUDA_CHECK(cudaMemcpy(hx, x16.data(), n * sizeof(__half), cudaMemcpyHostToDevice));
    double best_f16 = 1e30;
    for (int waves : {1, 2, 4}) {
      int grid = int(std::min<size_t>(needed, size_t(min_grid) * waves));
      CUDA_CHECK(cudaMemcpy(hy, y16.data(), n * sizeof(__half), cudaMemcpyHostToDevice));
      saxpy_f16<<<grid, block>>>(a, hx, hy, n);
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaMemcpy(y16.data(), hy, n * sizeof(__half), cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < n; ++i)
        yf[i] = __half2float(y16[i]);
      ok &= bench::check(name_of("saxpy 2^28 f16 (nvcc, %lld waves)", waves).c_str(),
                         bench::saxpy_error(a, xf.data(), y0f.data(), yf.data(), n),
                         bench::saxpy_f16_tolerance);
      for (size_t i = 0; i < n; ++i)
        y16[i] = __float2half_rn(y0[i]);
      // y grows by a*x per launch: 33 launches stay far inside half's range.
      std::vector<double> ms =
          time_launches([&] { saxpy_f16<<<grid, block>>>(a, hx, hy, n); }, 3, timed_runs);
      print_times(name_of("saxpy 2^28 f16, %lld waves", waves), ms);
      best_f16 = std::min(best_f16, bench::median(ms));
    }
    bench::result("nvcc_saxpy_f16_ms", best_f16, "ms");
    bench::result("nvcc_saxpy_f16_gbps", 6.0 * n / (best_f16 * 1e6), "GB/s");
    CUDA_CHECK(cudaFree(hx));
    CUDA_CHECK(cudaFree(hy));
  }

  // Copy x into y's buffer: 1 GiB read plus 1 GiB written per copy.
  const size_t bytes = n * sizeof(float);
  CUDA_CHECK(cudaMemset(dy, 0xFF, bytes));
  CUDA_CHECK(cudaMemcpy(dy, dx, bytes, cudaMemcpyDeviceToDevice));
  std::vector<float> copied(n);
  CUDA_CHECK(cudaMemcpy(copied.data(), dy, bytes, cudaMemcpyDeviceToHost));
  ok &= bench::check("device-to-device copy 1 GiB",
                     std::memcmp(copied.data(), x.data(), bytes) == 0 ? 0.0 : 1.0, 0.0);
  std::vector<double> ms = time_launches(
      [&] { CUDA_CHECK(cudaMemcpy(dy, dx, bytes, cudaMemcpyDeviceToDevice)); }, 3, timed_runs);
  print_times("cudaMemcpy device-to-device 1 GiB", ms);
  bench::result("d2d_copy_ms", bench::median(ms), "ms");
  bench::result("d2d_copy_gbps", 2.0 * bytes / (bench::median(ms) * 1e6), "GB/s");

  CUDA_CHECK(cudaFree(dx));
  CUDA_CHECK(cudaFree(dy));
  return ok;
}

// CUB's DeviceReduce::Sum of 2^30 floats: the library users would call for a sum.
bool cub_sum(uint64_t seed) {
  const size_t n = size_t(1) << 30;
  std::vector<float> x = bench::random_vector(n, seed);
  float *dx = device_copy(x), *dsum = nullptr;
  CUDA_CHECK(cudaMalloc(&dsum, sizeof(float)));
  size_t temp_bytes = 0;
  void *temp = nullptr;
  CUDA_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, dx, dsum, n));
  CUDA_CHECK(cudaMalloc(&temp, temp_bytes));
  CUDA_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, dx, dsum, n));
  float got = 0;
  CUDA_CHECK(cudaMemcpy(&got, dsum, sizeof got, cudaMemcpyDeviceToHost));
  bool ok =
      bench::check("sum 2^30 (CUB)", bench::sum_error(x.data(), n, got), bench::sum_tolerance);
  std::vector<double> ms = time_launches(
      [&] { CUDA_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, dx, dsum, n)); }, 3, timed_runs);
  print_times("CUB DeviceReduce::Sum 2^30", ms);
  bench::result("cub_sum_ms", bench::median(ms), "ms");
  bench::result("cub_sum_gbps", 4.0 * n / (bench::median(ms) * 1e6), "GB/s");
  CUDA_CHECK(cudaFree(temp));
  CUDA_CHECK(cudaFree(dsum));
  CUDA_CHECK(cudaFree(dx));
  return ok;
}

bool matmul_sizes(int n, uint64_t seed) {
  std::vector<float> A = bench::random_vector(size_t(n) * n, seed);
  std::vector<float> B = bench::random_vector(size_t(n) * n, seed ^ 0x5bd1e995);
  float *dA = device_copy(A), *dB = device_copy(B), *dC = nullptr;
  const size_t bytes = size_t(n) * n * sizeof(float);
  CUDA_CHECK(cudaMalloc(&dC, bytes));
  std::vector<float> C(size_t(n) * n);

  bool ok = true;
  double best_ms = 1e30;
  const dim3 shapes[] = {dim3(16, 16), dim3(32, 8)};
  for (dim3 block : shapes) {
    dim3 grid((n + block.x - 1) / block.x, (n + block.y - 1) / block.y);
    // Poisoned with NaN (all-ones bits), so an element nothing writes fails the check.
    CUDA_CHECK(cudaMemset(dC, 0xFF, bytes));
    matmul<<<grid, block>>>(dA, dB, dC, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(C.data(), dC, bytes, cudaMemcpyDeviceToHost));
    std::string what = name_of("matmul %lld^2 (nvcc, %lldx%lld)", n, block.x, block.y);
    ok &= bench::check(
        what.c_str(),
        bench::matmul_error(A.data(), B.data(), C.data(), n, bench::matmul_check_rows, seed),
        bench::matmul_tolerance);
    std::vector<double> ms =
        time_launches([&] { matmul<<<grid, block>>>(dA, dB, dC, n); }, 2, timed_runs);
    print_times(what, ms);
    double m = bench::median(ms);
    bench::result(name_of("nvcc_matmul%lld_%lldx%lld_tflops", n, block.x, block.y).c_str(),
                  2.0 * n * n * double(n) / (m * 1e9), "TFLOP/s");
    best_ms = std::min(best_ms, m);
  }
  {
    const dim3 block(32, 8), grid((n + block.x - 1) / block.x, (n + block.y - 1) / block.y);
    CUDA_CHECK(cudaMemset(dC, 0xFF, bytes));
    matmul_i64<<<grid, block>>>(dA, dB, dC, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(C.data(), dC, bytes, cudaMemcpyDeviceToHost));
    std::string what =
        name_of("matmul %lld^2 (nvcc, 64-bit indices, %lldx%lld)", n, block.x, block.y);
    ok &= bench::check(
        what.c_str(),
        bench::matmul_error(A.data(), B.data(), C.data(), n, bench::matmul_check_rows, seed),
        bench::matmul_tolerance);
    std::vector<double> ms =
        time_launches([&] { matmul_i64<<<grid, block>>>(dA, dB, dC, n); }, 2, timed_runs);
    print_times(what, ms);
    bench::result(name_of("nvcc_matmul%lld_i64_tflops", n).c_str(),
                  2.0 * n * n * double(n) / (bench::median(ms) * 1e9), "TFLOP/s");
  }
  {
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const dim3 block(32, 8);
    const unsigned gx = (n + block.x - 1) / block.x;
    const unsigned gy =
        std::max(1u, std::min<unsigned>((n + block.y - 1) / block.y, 4u * 8u * unsigned(sms) / gx));
    const dim3 grid(gx, gy);
    CUDA_CHECK(cudaMemset(dC, 0xFF, bytes));
    matmul_i64_stride<<<grid, block>>>(dA, dB, dC, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(C.data(), dC, bytes, cudaMemcpyDeviceToHost));
    std::string what =
        name_of("matmul %lld^2 (nvcc, 64-bit, grid-stride, %lld blocks in y)", n, grid.y, 0);
    ok &= bench::check(
        what.c_str(),
        bench::matmul_error(A.data(), B.data(), C.data(), n, bench::matmul_check_rows, seed),
        bench::matmul_tolerance);
    std::vector<double> ms =
        time_launches([&] { matmul_i64_stride<<<grid, block>>>(dA, dB, dC, n); }, 2, timed_runs);
    print_times(what, ms);
    bench::result(name_of("nvcc_matmul%lld_i64_stride_tflops", n).c_str(),
                  2.0 * n * n * double(n) / (bench::median(ms) * 1e9), "TFLOP/s");
  }
  bench::result(name_of("nvcc_matmul%lld_ms", n).c_str(), best_ms, "ms");
  bench::result(name_of("nvcc_matmul%lld_tflops", n).c_str(),
                2.0 * n * n * double(n) / (best_ms * 1e9), "TFLOP/s");

  CUDA_CHECK(cudaFree(dA));
  CUDA_CHECK(cudaFree(dB));
  CUDA_CHECK(cudaFree(dC));
  return ok;
}

// The 5-point stencil over an n x n grid with 32x8, 64x4 and 32x16 blocks; the best is the peer.
bool stencil_shapes(int n, uint64_t seed) {
  const size_t count = size_t(n) * n, bytes = count * sizeof(float);
  std::vector<float> u = bench::random_vector(count, seed);
  float *du = device_copy(u), *dv = nullptr;
  CUDA_CHECK(cudaMalloc(&dv, bytes));

  bool ok = true;
  double best_ms = 1e30;
  const dim3 shapes[] = {dim3(32, 8), dim3(64, 4), dim3(32, 16)};
  for (dim3 block : shapes) {
    dim3 grid((n - 2 + block.x - 1) / block.x, (n - 2 + block.y - 1) / block.y);
    // NaN everywhere: an interior point left out fails, and the border must stay NaN.
    CUDA_CHECK(cudaMemset(dv, 0xFF, bytes));
    stencil<<<grid, block>>>(du, dv, n, n);
    CUDA_CHECK(cudaGetLastError());
    std::vector<float> v = bench::host_copy(dv, count);
    std::string what = name_of("stencil %lld^2 (nvcc, %lldx%lld)", n, block.x, block.y);
    ok &= bench::check(what.c_str(), bench::stencil_error(u.data(), v.data(), n, n),
                       bench::stencil_tolerance);
    std::vector<double> ms =
        time_launches([&] { stencil<<<grid, block>>>(du, dv, n, n); }, 3, timed_runs);
    print_times(what, ms);
    double m = bench::median(ms);
    bench::result(name_of("nvcc_stencil%lld_%lldx%lld_gbps", n, block.x, block.y).c_str(),
                  bench::stencil_bytes(n, n) / (m * 1e6), "GB/s");
    best_ms = std::min(best_ms, m);
  }
  bench::result(name_of("nvcc_stencil%lld_ms", n).c_str(), best_ms, "ms");
  bench::result(name_of("nvcc_stencil%lld_gbps", n).c_str(),
                bench::stencil_bytes(n, n) / (best_ms * 1e6), "GB/s");

  CUDA_CHECK(cudaFree(du));
  CUDA_CHECK(cudaFree(dv));
  return ok;
}

// An 8-bit RGB image to f32 grey with a gamma curve (loom's make_grey), one thread per pixel, the
// best of three 2-D block shapes.
__global__ void grey(const unsigned char *rgb, float gamma, float *out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    const unsigned char *p = rgb + (size_t(y) * w + x) * 3;
    float luma = 0.2126f * p[0] + 0.7152f * p[1] + 0.0722f * p[2];
    out[size_t(y) * w + x] = powf(luma * (1.0f / 255.0f), gamma);
  }
}

bool grey_shapes(int n, uint64_t seed) {
  const size_t pixels = size_t(n) * n;
  std::vector<uint8_t> rgb = bench::random_image(pixels, seed);
  unsigned char *drgb = nullptr;
  float *dout = nullptr;
  CUDA_CHECK(cudaMalloc(&drgb, rgb.size()));
  CUDA_CHECK(cudaMemcpy(drgb, rgb.data(), rgb.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMalloc(&dout, pixels * sizeof(float)));
  const float gamma = 2.2f;
  bool ok = true;
  double best_ms = 1e30;
  const dim3 shapes[] = {dim3(32, 8), dim3(64, 4), dim3(128, 2)};
  for (dim3 block : shapes) {
    dim3 g((n + block.x - 1) / block.x, (n + block.y - 1) / block.y);
    CUDA_CHECK(cudaMemset(dout, 0xFF, pixels * sizeof(float)));
    grey<<<g, block>>>(drgb, gamma, dout, n, n);
    CUDA_CHECK(cudaGetLastError());
    std::vector<float> out = bench::host_copy(dout, pixels);
    std::string what = name_of("grey %lld^2 u8 (nvcc, %lldx%lld)", n, block.x, block.y);
    ok &= bench::check(what.c_str(), bench::grey_error(rgb.data(), gamma, out.data(), pixels),
                       bench::grey_tolerance);
    std::vector<double> ms =
        time_launches([&] { grey<<<g, block>>>(drgb, gamma, dout, n, n); }, 3, timed_runs);
    print_times(what, ms);
    best_ms = std::min(best_ms, bench::median(ms));
  }
  bench::result(name_of("nvcc_grey%lld_ms", n).c_str(), best_ms, "ms");
  bench::result(name_of("nvcc_grey%lld_gbps", n).c_str(),
                bench::grey_bytes(pixels) / (best_ms * 1e6), "GB/s");
  CUDA_CHECK(cudaFree(drgb));
  CUDA_CHECK(cudaFree(dout));
  return ok;
}

// Row softmax of an n x n matrix, one block of 256, 512 or 1024 threads per row; the best is the
// peer.
bool softmax_rows(int n, uint64_t seed) {
  const size_t count = size_t(n) * n, bytes = count * sizeof(float);
  std::vector<float> x = bench::softmax_input(count, seed);
  float *dx = device_copy(x), *dy = nullptr;
  CUDA_CHECK(cudaMalloc(&dy, bytes));

  bool ok = true;
  double best_ms = 1e30;
  for (int block : {256, 512, 1024}) {
    CUDA_CHECK(cudaMemset(dy, 0xFF, bytes)); // NaN: an element left out fails
    softmax<<<n, block>>>(dx, dy, n);
    CUDA_CHECK(cudaGetLastError());
    std::vector<float> y = bench::host_copy(dy, count);
    std::string what = name_of("softmax %lld x %lld (nvcc, %lld threads a row)", n, n, block);
    ok &= bench::check(what.c_str(), bench::softmax_error(x.data(), y.data(), n, n),
                       bench::softmax_tolerance);
    std::vector<double> ms =
        time_launches([&] { softmax<<<n, block>>>(dx, dy, n); }, 3, timed_runs);
    print_times(what, ms);
    double m = bench::median(ms);
    bench::result(name_of("nvcc_softmax%lld_b%lld_ms", n, block).c_str(), m, "ms");
    best_ms = std::min(best_ms, m);
  }
  bench::result(name_of("nvcc_softmax%lld_ms", n).c_str(), best_ms, "ms");
  bench::result(name_of("nvcc_softmax%lld_gbps", n).c_str(),
                bench::softmax_bytes(n, n) / (best_ms * 1e6), "GB/s");

  CUDA_CHECK(cudaFree(dx));
  CUDA_CHECK(cudaFree(dy));
  return ok;
}

// doitgen 140 x 150 x 160 with a local scratch row, with 32 to 256 threads a block; the best is
// the peer's figure.
bool doitgen_run(uint64_t seed) {
  std::vector<double> A, C4;
  bench::doitgen_inputs(seed, A, C4);
  const int R = int(bench::doitgen_r), Q = int(bench::doitgen_q), P = int(bench::doitgen_p);
  double *dA = device_copy(A), *dC4 = device_copy(C4);
  bool ok = true;
  double best_ms = 1e30;
  for (int block : {32, 64, 128, 256}) {
    const dim3 grid((Q + block - 1) / block, R);
    CUDA_CHECK(cudaMemcpy(dA, A.data(), A.size() * sizeof(double), cudaMemcpyHostToDevice));
    doitgen_local<<<grid, block>>>(dA, dC4, R, Q, P);
    CUDA_CHECK(cudaGetLastError());
    std::vector<double> got(A.size());
    CUDA_CHECK(cudaMemcpy(got.data(), dA, got.size() * sizeof(double), cudaMemcpyDeviceToHost));
    std::string what = name_of("doitgen 140 x 150 x 160, local scratch (nvcc, %lld threads)", block);
    ok &= bench::check(what.c_str(), bench::doitgen_error(A, C4, got), 0.0);
    std::vector<double> ms =
        time_launches([&] { doitgen_local<<<grid, block>>>(dA, dC4, R, Q, P); }, 3, timed_runs);
    print_times(what, ms);
    best_ms = std::min(best_ms, bench::median(ms));
  }
  bench::result("nvcc_doitgen_ms", best_ms, "ms");
  bench::result("nvcc_doitgen_gflops", bench::doitgen_flops() / (best_ms * 1e6), "GFLOP/s");
  CUDA_CHECK(cudaFree(dA));
  CUDA_CHECK(cudaFree(dC4));
  return ok;
}

// The tiled matmul at n x n (a multiple of 16).
bool tiled_matmul_run(int n, uint64_t seed) {
  const size_t count = size_t(n) * n, bytes = count * sizeof(float);
  std::vector<float> A = bench::random_vector(count, seed);
  std::vector<float> B = bench::random_vector(count, seed ^ 0x5bd1e995);
  std::vector<float> C(count);
  float *dA = device_copy(A), *dB = device_copy(B), *dC = nullptr;
  CUDA_CHECK(cudaMalloc(&dC, bytes));
  CUDA_CHECK(cudaMemset(dC, 0xFF, bytes));
  const dim3 block(16, 16), grid(n / 16, n / 16);
  tiled_matmul<<<grid, block>>>(dA, dB, dC, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(C.data(), dC, bytes, cudaMemcpyDeviceToHost));
  std::string what = name_of("tiled matmul %lld^2 (nvcc)", n);
  bool ok = bench::check(
      what.c_str(),
      bench::matmul_error(A.data(), B.data(), C.data(), n, bench::matmul_check_rows, seed),
      bench::matmul_tolerance);
  std::vector<double> ms =
      time_launches([&] { tiled_matmul<<<grid, block>>>(dA, dB, dC, n); }, 2, timed_runs);
  print_times(what, ms);
  bench::result(name_of("nvcc_tiled_matmul%lld_tflops", n).c_str(),
                2.0 * n * n * double(n) / (bench::median(ms) * 1e9), "TFLOP/s");
  CUDA_CHECK(cudaFree(dA));
  CUDA_CHECK(cudaFree(dB));
  CUDA_CHECK(cudaFree(dC));
  return ok;
}

// 1,000 steps of the stencil on a 512^2 grid (bench/BenchSupport.h), 32x8 blocks: a host loop of
// raw launches on the default stream with one synchronization at the end, and the same steps as
// one CUDA graph (captured and instantiated once, outside the timing). Host wall time.
bool stepped_stencil(uint64_t seed) {
  const int64_t n = bench::stepped_stencil_grid;
  const int steps = bench::stepped_stencil_steps;
  const size_t bytes = size_t(n * n) * sizeof(float);
  std::vector<float> u = bench::random_vector(size_t(n * n), seed), v = u;
  std::vector<float> ru = u, rv = v;
  bench::stepped_stencil_reference(ru, rv, n, steps);
  float *du = nullptr, *dv = nullptr;
  CUDA_CHECK(cudaMalloc(&du, bytes));
  CUDA_CHECK(cudaMalloc(&dv, bytes));
  const dim3 block(32, 8);
  const dim3 grid(unsigned((n - 2 + 31) / 32), unsigned((n - 2 + 7) / 8));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  auto all_steps = [&] {
    for (int s = 0; s < steps / 2; ++s) {
      stencil<<<grid, block, 0, stream>>>(du, dv, int(n), int(n));
      stencil<<<grid, block, 0, stream>>>(dv, du, int(n), int(n));
    }
  };
  cudaGraph_t graph;
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  all_steps();
  CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  bool ok = true;
  std::vector<double> launches_ms, graph_ms;
  for (int run = 0; run < 1 + timed_runs; ++run) {
    for (bool use_graph : {false, true}) {
      CUDA_CHECK(cudaMemcpy(du, u.data(), bytes, cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemcpy(dv, v.data(), bytes, cudaMemcpyHostToDevice));
      double ms = bench::wall_ms([&] {
        if (use_graph)
          CUDA_CHECK(cudaGraphLaunch(exec, stream));
        else
          all_steps();
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaStreamSynchronize(stream));
      });
      if (run == 0) {
        std::vector<float> out(size_t(n * n));
        CUDA_CHECK(cudaMemcpy(out.data(), du, bytes, cudaMemcpyDeviceToHost));
        ok &= bench::check(use_graph ? "stepped stencil 1000 x 512^2 (nvcc, CUDA graph)"
                                     : "stepped stencil 1000 x 512^2 (nvcc, raw launches)",
                           bench::grid_difference(out.data(), ru.data(), ru.size()),
                           bench::stepped_stencil_tolerance);
      } else {
        (use_graph ? graph_ms : launches_ms).push_back(ms);
      }
    }
  }
  std::printf("  stepped stencil 1000 x 512^2: raw launches median %.3f ms, CUDA graph median "
              "%.3f ms (host wall time)\n",
              bench::median(launches_ms), bench::median(graph_ms));
  bench::result("nvcc_stepped_stencil_launches_ms", bench::median(launches_ms), "ms");
  bench::result("nvcc_stepped_stencil_graph_ms", bench::median(graph_ms), "ms");
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(du));
  CUDA_CHECK(cudaFree(dv));
  return ok;
}

} // namespace

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("no usable GPU for the CUDA C reference\n");
    return 0;
  }
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  uint64_t seed = bench::fresh_seed();
  std::printf("reference (nvcc) on %s (sm_%d%d, %d SMs), seed %llu\n", prop.name, prop.major,
              prop.minor, prop.multiProcessorCount, (unsigned long long)seed);

  bool ok = saxpy_and_copy(seed, prop.multiProcessorCount);
  ok &= cub_sum(seed + 40);
  ok &= matmul_sizes(1024, seed + 20);
  ok &= matmul_sizes(4096, seed + 30);
  ok &= stencil_shapes(8192, seed + 50);
  ok &= grey_shapes(4096, seed + 75);
  ok &= stepped_stencil(seed + 77);
  ok &= softmax_rows(8192, seed + 60);
  ok &= tiled_matmul_run(4096, seed + 70);
  ok &= doitgen_run(seed + 80);
  std::printf("reference: %s\n", ok ? "all checks passed" : "SOME CHECK FAILED");
  return ok ? 0 : 1;
}
