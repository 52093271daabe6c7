#!/usr/bin/env python3
"""Numba, the peer loom's CPU backend is measured against: the kernels of loom_cpu_bench written
as a Numba user would, @njit(parallel=True) with prange, on the same sizes and the same kind of
inputs, timed the same way (one untimed call, then medians of several). Prints the same
`RESULT name value unit` lines as loom's benchmarks; `bench/run_cpu.sh` puts both in one table.

    python3 bench/numba_bench.py [--only=saxpy|sum|matmul|scheduled_matmul|stencil|softmax]
                                          (needs numba: Debian's python3-numba, or pip)

Each kernel is compiled by its first call, which is also the one checked, and timed after it.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np
from numba import config, njit, prange, threading_layer


@njit(parallel=True, fastmath=False)
def saxpy(a, x, y):
    for i in prange(x.shape[0]):
        y[i] = a * x[i] + y[i]


@njit(parallel=True, fastmath=False)
def total(x):
    s = np.float32(0.0)
    for i in prange(x.shape[0]):
        s += x[i]
    return s


@njit(parallel=True, fastmath=False)
def matmul(A, B, C):
    n, k = A.shape
    m = B.shape[1]
    for i in prange(n):
        for j in range(m):
            acc = np.float32(0.0)
            for l in range(k):
                acc += A[i, l] * B[l, j]
            C[i, j] = acc


def has_avx512():
    try:
        with open("/proc/cpuinfo") as f:
            return " avx512f" in f.read()
    except OSError:
        return False


# The register block of loom's tile schedule on this host, as loom_cpu_bench chooses it: 8 x 32
# outputs with AVX-512, 4 x 32 without.
BLOCK_ROWS = 8 if has_avx512() else 4


@njit(parallel=True, fastmath=False)
def matmul_tiled(A, B, C, rows):
    # The blocking loom's tile schedule {64, 128, rows, 32} runs on the CPU and g++'s peer uses:
    # 64 x 128 tiles among the threads, rows x 32 outputs accumulated together (n a multiple of
    # 128).
    n = A.shape[0]
    tiles_j = n // 128
    for tile in prange((n // 64) * tiles_j):
        i0 = tile // tiles_j * 64
        j0 = tile % tiles_j * 128
        for bi in range(i0, i0 + 64, rows):
            for bj in range(j0, j0 + 128, 32):
                acc = np.zeros((rows, 32), np.float32)
                for k in range(n):
                    for r in range(rows):
                        a = A[bi + r, k]
                        for c in range(32):
                            acc[r, c] += a * B[k, bj + c]
                for r in range(rows):
                    for c in range(32):
                        C[bi + r, bj + c] = acc[r, c]


@njit(parallel=True, fastmath=False)
def stencil(u, v):
    n, m = u.shape
    for i in prange(n - 2):
        for j in range(m - 2):
            v[i + 1, j + 1] = np.float32(0.2) * (u[i + 1, j + 1] + u[i, j + 1] + u[i + 2, j + 1]
                                                 + u[i + 1, j] + u[i + 1, j + 2])


@njit(parallel=True, fastmath=False)
def softmax(x, y):
    n, m = x.shape
    for i in prange(n):
        top = x[i, 0]
        for j in range(m):
            top = max(top, x[i, j])
        s = np.float32(0.0)
        for j in range(m):
            e = np.exp(x[i, j] - top)
            y[i, j] = e
            s += e
        for j in range(m):
            y[i, j] = y[i, j] / s


def result(name, value, unit):
    print(f"RESULT {name} {value:.6g} {unit}", flush=True)


def timed(call, budget_ms=5000):
    start = time.perf_counter()
    call()  # compiled on the first call: not timed
    first = (time.perf_counter() - start) * 1e3
    samples = []
    runs = min(15, max(5, int(budget_ms / max(first, 1e-3))))
    for _ in range(runs):
        start = time.perf_counter()
        call()
        samples.append((time.perf_counter() - start) * 1e3)
    return statistics.median(samples), min(samples)


def check(what, error, tolerance):
    ok = error <= tolerance
    print(f"CHECK {'PASS' if ok else 'FAIL'} {what} (max relative error {error:.3g}, "
          f"tolerance {tolerance:.1g})", flush=True)
    return ok


def saxpy_bench(rng):
    n = 1 << 26
    x = rng.uniform(-1, 1, n).astype(np.float32)
    y = rng.uniform(-1, 1, n).astype(np.float32)
    y0 = y.copy()
    saxpy(np.float32(1.5), x, y)
    ok = check("saxpy 2^26 (numba)", float(np.max(np.abs(y - (1.5 * x.astype(np.float64) + y0))
                                                  / (1 + np.abs(y)))), 1e-6)
    ms, _ = timed(lambda: saxpy(np.float32(1.5), x, y))
    result("numba_saxpy_ms", ms, "ms")
    result("numba_saxpy_gbps", 12.0 * n / (ms * 1e6), "GB/s")
    return ok


def sum_bench(rng):
    n = 1 << 27
    x = rng.uniform(-1, 1, n).astype(np.float32)
    s = total(x)
    exact = float(np.sum(x.astype(np.float64)))
    bound = n * 2.0 ** -24 * float(np.sum(np.abs(x.astype(np.float64))))
    ok = check("sum 2^27 (numba)", abs(s - exact) / bound, 1.0)
    ms, _ = timed(lambda: total(x))
    result("numba_sum_ms", ms, "ms")
    result("numba_sum_gbps", 4.0 * n / (ms * 1e6), "GB/s")
    return ok


def matmul_error(A, B, C):
    ref = A.astype(np.float64) @ B.astype(np.float64)
    mag = np.abs(A.astype(np.float64)) @ np.abs(B.astype(np.float64))
    return float(np.max(np.abs(C - ref) / (1e-6 * mag + 1e-7)))


def matmul_bench(rng):
    ok = True
    for n in (512, 1024):
        A = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        B = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        C = np.zeros((n, n), np.float32)
        matmul(A, B, C)
        ok &= check(f"matmul {n}^2 (numba)", matmul_error(A, B, C), 1.0)
        ms, _ = timed(lambda: matmul(A, B, C))
        result(f"numba_matmul{n}_ms", ms, "ms")
        result(f"numba_matmul{n}_gflops", 2.0 * n ** 3 / (ms * 1e6), "GFLOP/s")
    return ok


def scheduled_matmul_bench(rng):
    n = 1024
    A = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    B = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    C = np.zeros((n, n), np.float32)
    matmul_tiled(A, B, C, BLOCK_ROWS)
    ok = check(f"scheduled matmul {n}^2 (numba)", matmul_error(A, B, C), 1.0)
    ms, _ = timed(lambda: matmul_tiled(A, B, C, BLOCK_ROWS))
    result(f"numba_matmul_tiled{n}_ms", ms, "ms")
    result(f"numba_matmul_tiled{n}_gflops", 2.0 * n ** 3 / (ms * 1e6), "GFLOP/s")
    return ok


def stencil_bench(rng):
    n = 4096
    u = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    v = np.zeros_like(u)
    stencil(u, v)
    ud = u.astype(np.float64)
    ref = 0.2 * (ud[1:-1, 1:-1] + ud[:-2, 1:-1] + ud[2:, 1:-1] + ud[1:-1, :-2] + ud[1:-1, 2:])
    ok = check("stencil 4096^2 (numba)",
               float(np.max(np.abs(v[1:-1, 1:-1] - ref) / (1 + np.abs(ref)))), 1e-6)
    ms, _ = timed(lambda: stencil(u, v))
    result("numba_stencil4096_ms", ms, "ms")
    result("numba_stencil4096_gbps", 8.0 * (n - 2) ** 2 / (ms * 1e6), "GB/s")
    return ok


def softmax_bench(rng):
    n = 4096
    x = (8 * rng.uniform(-1, 1, (n, n))).astype(np.float32)
    y = np.zeros_like(x)
    softmax(x, y)
    xd = x.astype(np.float64)
    e = np.exp(xd - xd.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    ok = check("softmax 4096 x 4096 (numba)", float(np.max(np.abs(y - ref) / ref)), 1e-4)
    ms, _ = timed(lambda: softmax(x, y))
    result("numba_softmax4096_ms", ms, "ms")
    result("numba_softmax4096_gbps", 8.0 * n * n / (ms * 1e6), "GB/s")
    return ok


# The sections of loom_cpu_bench, by the same names (its --only= values), in its order.
SECTIONS = {"saxpy": saxpy_bench, "sum": sum_bench, "matmul": matmul_bench,
            "scheduled_matmul": scheduled_matmul_bench, "stencil": stencil_bench,
            "softmax": softmax_bench}


def main():
    parser = argparse.ArgumentParser(description="Numba on the kernels of loom_cpu_bench.")
    parser.add_argument("--only", choices=SECTIONS, help="run this kernel's section alone")
    only = parser.parse_args().only
    rng = np.random.default_rng(int.from_bytes(os.urandom(8), "little"))
    print(f"numba {__import__('numba').__version__} on {config.NUMBA_NUM_THREADS} threads "
          f"(threading layer chosen at the first parallel call)", flush=True)
    ok = True
    for name, section in SECTIONS.items():
        if only is None or only == name:
            ok &= section(rng)
    # Numba takes oneTBB when libtbb.so.12 loads, else OpenMP, else its own workqueue.
    print(f"numba threading layer: {threading_layer()}", flush=True)
    print("numba_bench: " + ("all checks passed" if ok else "SOME CHECK FAILED"), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
