// cuBLAS's SGEMM of 4096^2 f32 matrices in full FP32: the peer of a scheduled (tiled) loom
// matmul. loom has no schedules yet, so run_gpu.sh sets it beside loom's naive matmul for now.
// A program of its own, linked against cuBLAS (run_gpu.sh: nvcc -O3 -arch=sm_90 ... -lcublas),
// so that a machine whose cuBLAS is missing or broken still runs the other peers (reference.cu).
#include "CudaSupport.cuh"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

// Every cuBLAS call is checked too.
#define CUBLAS_CHECK(call)                                                                         \
  do {                                                                                             \
    cublasStatus_t status_ = (call);                                                               \
    if (status_ != CUBLAS_STATUS_SUCCESS) {                                                        \
      std::printf("FAILED %s at %s:%d: %s\n", #call, __FILE__, __LINE__,                           \
                  cublasGetStatusString(status_));                                                 \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

namespace {

using bench::name_of;

// C = A*B for row-major n x n matrices. cuBLAS is column-major, where a row-major matrix reads as
// its transpose: it computes C^T = B^T A^T, which is row-major C.
bool sgemm(int n, uint64_t seed) {
  const size_t count = size_t(n) * n, bytes = count * sizeof(float);
  std::vector<float> A = bench::random_vector(count, seed);
  std::vector<float> B = bench::random_vector(count, seed ^ 0x5bd1e995);
  float *dA = bench::device_copy(A), *dB = bench::device_copy(B), *dC = nullptr;
  CUDA_CHECK(cudaMalloc(&dC, bytes));

  cublasHandle_t handle;
  CUBLAS_CHECK(cublasCreate(&handle));
  int version = 0;
  CUBLAS_CHECK(cublasGetVersion(handle, &version));
  // FP32 products and sums: the default mode gives SGEMM no TF32 tensor cores (those need
  // CUBLAS_TF32_TENSOR_OP_MATH). Set explicitly, so that a changed default cannot move the figure.
  // The check would catch TF32 besides: its 10-bit inputs leave errors of 5e-6 of the bound (rms,
  // simulated), over the 1e-5 tolerance for about 6% of the elements; FP32's stay near 4e-8.
  CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
  const float alpha = 1.0f, beta = 0.0f;
  auto gemm = [&] {
    CUBLAS_CHECK(
        cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, dB, n, dA, n, &beta, dC, n));
  };

  CUDA_CHECK(cudaMemset(dC, 0xFF, bytes)); // NaN: an element left out fails
  gemm();
  std::vector<float> C = bench::host_copy(dC, count);
  std::string what = name_of("SGEMM %lld^2 (cuBLAS %lld, FP32)", n, version);
  bool ok = bench::check(
      what.c_str(),
      bench::matmul_error(A.data(), B.data(), C.data(), n, bench::matmul_check_rows, seed),
      bench::matmul_tolerance);
  // The warm-up also takes cuBLAS's first-call costs (kernel loading, heuristics) out.
  std::vector<double> ms = bench::time_launches(gemm, 3, bench::timed_runs);
  bench::print_times(what, ms);
  double m = bench::median(ms);
  bench::result(name_of("cublas_sgemm%lld_ms", n).c_str(), m, "ms");
  bench::result(name_of("cublas_sgemm%lld_tflops", n).c_str(), 2.0 * n * n * double(n) / (m * 1e9),
                "TFLOP/s");

  CUBLAS_CHECK(cublasDestroy(handle));
  CUDA_CHECK(cudaFree(dA));
  CUDA_CHECK(cudaFree(dB));
  CUDA_CHECK(cudaFree(dC));
  return ok;
}

// C = A*B over f16 or bf16 inputs with f32 outputs and f32 accumulation (cublasGemmEx,
// CUBLAS_COMPUTE_32F, tensor cores): the peer of loom's tile schedule on the tensor cores
// (loom_gpu_bench --only=tensor_cores). The inputs are random floats rounded to the type; the
// check is against those rounded values, in double.
// TF32 (H = float, CUBLAS_COMPUTE_32F_FAST_TF32): the peer of loom's allow_tf32(); the inputs
// are rounded to TF32 here (10 significand bits, ties away from zero), so that the check holds
// whichever rounding cuBLAS applies to them.
float tf32_of(float x) {
  if (x == 0 || !std::isfinite(x))
    return x;
  const double unit = std::ldexp(1.0, std::ilogb(x) - 10);
  return float(std::round(double(x) / unit) * unit);
}

template <class H>
bool gemm_ex(const char *type, cudaDataType_t data_type, int m, int n, int k, uint64_t seed,
             cublasComputeType_t compute = CUBLAS_COMPUTE_32F) {
  const size_t a_count = size_t(m) * k, b_count = size_t(k) * n, c_count = size_t(m) * n;
  std::vector<float> Af = bench::random_vector(a_count, seed);
  std::vector<float> Bf = bench::random_vector(b_count, seed ^ 0x5bd1e995);
  std::vector<H> A(a_count), B(b_count);
  auto round = [](float &x, H &h) {
    if constexpr (std::is_same_v<H, float>)
      x = tf32_of(x);
    h = H(x), x = float(h);
  };
  for (size_t e = 0; e < a_count; ++e)
    round(Af[e], A[e]);
  for (size_t e = 0; e < b_count; ++e)
    round(Bf[e], B[e]);
  H *dA = nullptr, *dB = nullptr;
  float *dC = nullptr;
  CUDA_CHECK(cudaMalloc(&dA, a_count * sizeof(H)));
  CUDA_CHECK(cudaMalloc(&dB, b_count * sizeof(H)));
  CUDA_CHECK(cudaMalloc(&dC, c_count * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(dA, A.data(), a_count * sizeof(H), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dB, B.data(), b_count * sizeof(H), cudaMemcpyHostToDevice));
  cublasHandle_t handle;
  CUBLAS_CHECK(cublasCreate(&handle));
  const float alpha = 1.0f, beta = 0.0f;
  // Row-major C[m, n] = A[m, k] B[k, n] as cuBLAS's column-major C^T = B^T A^T.
  auto gemm = [&] {
    CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, dB, data_type, n,
                              dA, data_type, k, &beta, dC, CUDA_R_32F, n, compute,
                              CUBLAS_GEMM_DEFAULT));
  };
  CUDA_CHECK(cudaMemset(dC, 0xFF, c_count * sizeof(float)));
  gemm();
  std::vector<float> C = bench::host_copy(dC, c_count);
  const std::string shape =
      m == n && n == k ? std::to_string(n) + "^2"
                       : std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  std::string what = "cublasGemmEx " + shape + " (" + type + " inputs, f32 accumulation)";
  bool ok = bench::check(
      what.c_str(), bench::matmul_error(Af.data(), Bf.data(), C.data(), m, n, k, 16, seed), 1e-5);
  std::vector<double> ms = bench::time_launches(gemm, 3, bench::timed_runs);
  bench::print_times(what, ms);
  double med = bench::median(ms);
  const std::string prefix =
      std::string("cublas_gemm_") + type +
      (m == n && n == k ? std::to_string(n)
                        : std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
  bench::result((prefix + "_ms").c_str(), med, "ms");
  bench::result((prefix + "_tflops").c_str(), 2.0 * m * double(n) * k / (med * 1e9), "TFLOP/s");
  CUBLAS_CHECK(cublasDestroy(handle));
  CUDA_CHECK(cudaFree(dA));
  CUDA_CHECK(cudaFree(dB));
  CUDA_CHECK(cudaFree(dC));
  return ok;
}

} // namespace

// cublas_reference [--only=sgemm|f16|bf16|tf32]: every figure, or that type's 4096^2 product
// alone (for a profiler: ncu -c 1 takes its first, checked call).
int main(int argc, char **argv) {
  const std::string only = argc > 1 && std::string(argv[1]).rfind("--only=", 0) == 0
                               ? std::string(argv[1]).substr(7)
                               : std::string();
  if (argc > 1 &&
      (only.empty() || (only != "sgemm" && only != "f16" && only != "bf16" && only != "tf32"))) {
    std::printf("usage: cublas_reference [--only=sgemm|f16|bf16|tf32]\n");
    return 2;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("no usable GPU for the cuBLAS reference\n");
    return 0;
  }
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  uint64_t seed = bench::fresh_seed();
  std::printf("cuBLAS reference on %s (sm_%d%d, %d SMs), seed %llu\n", prop.name, prop.major,
              prop.minor, prop.multiProcessorCount, (unsigned long long)seed);
  // With --only, the sizes past 4096 and the odd shapes are left out too.
  auto wanted = [&](const char *type) { return only.empty() || only == type; };
  bool ok = true;
  if (wanted("sgemm"))
    ok &= sgemm(4096, seed + 30);
  for (int n : {4096, 8192}) {
    if (n != 4096 && !only.empty())
      continue;
    if (wanted("f16"))
      ok &= gemm_ex<__half>("f16", CUDA_R_16F, n, n, n, seed + 31 + n);
    if (wanted("bf16"))
      ok &= gemm_ex<__nv_bfloat16>("bf16", CUDA_R_16BF, n, n, n, seed + 32 + n);
    if (wanted("tf32"))
      ok &=
          gemm_ex<float>("tf32", CUDA_R_32F, n, n, n, seed + 33 + n, CUBLAS_COMPUTE_32F_FAST_TF32);
  }
  // The shapes that are not multiples of a tile (loom_gpu_bench's efficiency figures): cuBLAS's
  // own efficiency there, its TFLOP/s over its 4096^2 figure.
  for (auto [m, n, k] :
       {std::array<int, 3>{4095, 4095, 4095}, {4097, 4097, 4097}, {1000, 3000, 700}})
    if (only.empty())
      ok &= gemm_ex<__half>("f16", CUDA_R_16F, m, n, k, seed + 34 + m);
  std::printf("cuBLAS reference: %s\n", ok ? "all checks passed" : "SOME CHECK FAILED");
  return ok ? 0 : 1;
}
