"""CuPy's elementwise complex64 product of 2^26 elements, the peer of loom_gpu_bench's complex
section: c = a * b with cp.multiply(a, b, out=c), timed with CUDA events after a warm-up, the
median of 30 calls. Prints `RESULT cupy_complex_product_gbps <value> GB/s` (two arrays read, one
written) as loom's benchmarks do, so bench/run_gpu.sh can table the two side by side."""
import statistics
import sys

try:
    import cupy as cp
except ImportError as e:  # the table then shows no peer for the row
    print(f"cupy_complex: CuPy is not importable: {e}")
    sys.exit(1)

n = 1 << 26
rng = cp.random.default_rng(20261202)
a = (rng.uniform(-1, 1, n, dtype=cp.float32) + 1j * rng.uniform(-1, 1, n, dtype=cp.float32)).astype(
    cp.complex64)
b = (rng.uniform(-1, 1, n, dtype=cp.float32) + 1j * rng.uniform(-1, 1, n, dtype=cp.float32)).astype(
    cp.complex64)
c = cp.empty_like(a)
cp.multiply(a, b, out=c)
want = a[::997].astype(cp.complex128) * b[::997].astype(cp.complex128)
error = float(cp.max(cp.abs(c[::997] - want) / (cp.abs(want) + 1)))
print(f"  check complex product 2^26 c64 (CuPy): error {error:.3g} (tolerance 1e-6)")
if not error <= 1e-6:
    sys.exit(1)
for _ in range(3):
    cp.multiply(a, b, out=c)
start, stop = cp.cuda.Event(), cp.cuda.Event()
times = []
for _ in range(30):
    start.record()
    cp.multiply(a, b, out=c)
    stop.record()
    stop.synchronize()
    times.append(cp.cuda.get_elapsed_time(start, stop))
ms = statistics.median(times)
print(f"  complex product 2^26 c64 (CuPy {cp.__version__}): median {ms:.3f} ms")
print(f"RESULT cupy_complex_product_ms {ms:.4f} ms")
print(f"RESULT cupy_complex_product_gbps {3 * 8 * n / (ms * 1e6):.1f} GB/s")
