// The loom kernels the benchmarks time: the same code as examples/saxpy.cpp and
// examples/matmul.cpp, so the figures are those of what a user writes. Each call traces a new
// Kernel object; the name is part of the kernel, so a new name gets the first-call and
// compile-time figures a kernel the in-memory cache has not seen (and those benchmarks turn the
// disk cache off).
#pragma once

#include <loom/loom.hpp>

#include <limits>
#include <string>
#include <vector>

namespace bench {

// y = a*x + y
inline loom::Kernel make_saxpy(const std::string &name) {
  return loom::kernel(name,
                      [](loom::F32 a, loom::Array<float> x, loom::Array<float> y) {
                        loom::parallel_for(x.size(),
                                           [&](loom::Index i) { y[i] = a * x[i] + y[i]; });
                      },
                      {"a", "x", "y"});
}

// saxpy with one assertion per element (x finite), for what a checked assertion costs.
inline loom::Kernel make_saxpy_checked(const std::string &name) {
  return loom::kernel(name,
                      [](loom::F32 a, loom::Array<float> x, loom::Array<float> y) {
                        loom::parallel_for(x.size(), [&](loom::Index i) {
                          loom::check(loom::abs(x[i]) <= 3.0e38f, "x is finite");
                          y[i] = a * x[i] + y[i];
                        });
                      },
                      {"a", "x", "y"});
}

// y = a*x + y on f16 arrays: f32 arithmetic, each y rounded to f16 (half the bytes of saxpy).
inline loom::Kernel make_saxpy_f16(const std::string &name) {
  return loom::kernel(name,
                      [](loom::F32 a, loom::Array<loom::f16> x, loom::Array<loom::f16> y) {
                        loom::parallel_for(x.size(),
                                           [&](loom::Index i) { y[i] = a * x[i] + y[i]; });
                      },
                      {"a", "x", "y"});
}

// saxpy written as runs of 4 consecutive elements per parallel iteration (n a multiple of 4): on
// the GPU, 16-byte loads and stores. It measures whether runs per thread, which the GPU's 1-D
// reductions take by themselves, would also pay for loops without a reduction.
inline loom::Kernel make_saxpy_runs_of_4(const std::string &name) {
  return loom::kernel(name,
                      [](loom::F32 a, loom::Array<float> x, loom::Array<float> y) {
                        loom::parallel_for(x.size() / 4, [&](loom::Index j) {
                          loom::for_range(4, [&](loom::Index k) {
                            y[4 * j + k] = a * x[4 * j + k] + y[4 * j + k];
                          });
                        });
                      },
                      {"a", "x", "y"});
}

// total[0] += x[i]: a reduction into one element (per-block partials, then the blocks in order).
inline loom::Kernel make_sum(const std::string &name) {
  return loom::kernel(name,
                      [](loom::Array<float> x, loom::Array<float> total) {
                        loom::parallel_for(x.size(), [&](loom::Index i) { total[0] += x[i]; });
                      },
                      {"x", "total"});
}

// The naive matmul: one parallel iteration per element of C, an inner loop over k.
template <class T = float> loom::Kernel make_matmul(const std::string &name) {
  return loom::kernel(name,
                      [](loom::Array2<T> A, loom::Array2<T> B, loom::Array2<T> C) {
                        loom::parallel_for({C.dim(0), C.dim(1)}, [&](loom::Index i, loom::Index j) {
                          loom::Var<T> acc("acc", T(0));
                          loom::for_range(A.dim(1),
                                          [&](loom::Index k) { acc += A(i, k) * B(k, j); });
                          C(i, j) = acc;
                        });
                      },
                      {"A", "B", "C"});
}

// The 5-point stencil over the interior of an n x m grid (the border is left alone).
inline loom::Kernel make_stencil(const std::string &name) {
  return loom::kernel(
      name,
      [](loom::Array2<float> u, loom::Array2<float> v) {
        loom::parallel_for({u.dim(0) - 2, u.dim(1) - 2}, [&](loom::Index i, loom::Index j) {
          v(i + 1, j + 1) = 0.2f * (u(i + 1, j + 1) + u(i, j + 1) + u(i + 2, j + 1) + u(i + 1, j) +
                                    u(i + 1, j + 2));
        });
      },
      {"u", "v"});
}

// `pairs` pairs of stencil steps in one call, u -> v then v -> u (a task loop: the host runs the
// loop, the launches queue without a synchronization between them).
inline loom::Kernel make_stepped_stencil(const std::string &name) {
  return loom::kernel(
      name,
      [](loom::I64 pairs, loom::Array2<float> u, loom::Array2<float> v) {
        loom::for_range(pairs, [&](loom::Index) {
          loom::parallel_for({u.dim(0) - 2, u.dim(1) - 2}, [&](loom::Index i, loom::Index j) {
            v(i + 1, j + 1) = 0.2f * (u(i + 1, j + 1) + u(i, j + 1) + u(i + 2, j + 1) +
                                      u(i + 1, j) + u(i + 1, j + 2));
          });
          loom::parallel_for({u.dim(0) - 2, u.dim(1) - 2}, [&](loom::Index i, loom::Index j) {
            u(i + 1, j + 1) = 0.2f * (v(i + 1, j + 1) + v(i, j + 1) + v(i + 2, j + 1) +
                                      v(i + 1, j) + v(i + 1, j + 2));
          });
        });
      },
      {"pairs", "u", "v"});
}

// An 8-bit RGB image (h x w x 3, u8) to f32 grey: Rec. 709 luma, then a gamma curve (pow).
inline loom::Kernel make_grey(const std::string &name) {
  return loom::kernel(
      name,
      [](loom::Array3<uint8_t> rgb, loom::F32 gamma, loom::Array2<float> grey) {
        loom::parallel_for({grey.dim(0), grey.dim(1)}, [&](loom::Index y, loom::Index x) {
          loom::Value<float> luma =
              0.2126f * rgb(y, x, 0) + 0.7152f * rgb(y, x, 1) + 0.0722f * rgb(y, x, 2);
          grey(y, x) = loom::pow(luma * (1.0f / 255.0f), gamma);
        });
      },
      {"rgb", "gamma", "grey"});
}

// Softmax of each row: its maximum, the exponentials of the differences and their sum, then
// each exponential over the sum (three passes over the row, one parallel iteration per row).
// The maximum is a compare and select, as std::max in the C++ peer and max() in Numba's: loom's
// max() is fmax, which also skips NaNs and costs x86 a blend more in the loop-carried chain.
inline loom::Kernel make_softmax(const std::string &name) {
  return loom::kernel(
      name,
      [](loom::Array2<float> x, loom::Array2<float> y) {
        loom::parallel_for(x.dim(0), [&](loom::Index i) {
          loom::Var<float> top("top", x(i, 0));
          loom::for_range(x.dim(1),
                          [&](loom::Index j) { top = loom::select(x(i, j) > top, x(i, j), top); });
          loom::Var<float> total("total", 0.0f);
          loom::for_range(x.dim(1), [&](loom::Index j) {
            loom::Var<float> e("e", loom::exp(x(i, j) - top));
            y(i, j) = e;
            total += e;
          });
          loom::for_range(x.dim(1), [&](loom::Index j) { y(i, j) = y(i, j) / total; });
        });
      },
      {"x", "y"});
}

// The same softmax computed as the CUDA C peer computes it: the row's maximum, the sum of the
// exponentials, then each output as its exponential (computed again) over the sum. It reads the
// row three times and writes it once, where make_softmax writes it twice and reads it back:
// on a GPU, memory traffic costs more than a second exp.
inline loom::Kernel make_softmax_recompute(const std::string &name) {
  return loom::kernel(
      name,
      [](loom::Array2<float> x, loom::Array2<float> y) {
        loom::parallel_for(x.dim(0), [&](loom::Index i) {
          loom::Var<float> top("top", x(i, 0));
          loom::for_range(x.dim(1),
                          [&](loom::Index j) { top = loom::select(x(i, j) > top, x(i, j), top); });
          loom::Var<float> total("total", 0.0f);
          loom::for_range(x.dim(1), [&](loom::Index j) { total += loom::exp(x(i, j) - top); });
          loom::for_range(x.dim(1),
                          [&](loom::Index j) { y(i, j) = loom::exp(x(i, j) - top) / total; });
        });
      },
      {"x", "y"});
}

// The softmax written at the SIMT level, as the CUDA C peer is: one block per row, three
// block-strided passes, each maximum and sum combined by warp shuffles and one shared-memory
// exchange between the warps (block_dim().x a multiple of 32). Launch: shape(rows, threads).
inline loom::Kernel make_softmax_simt(const std::string &name) {
  using namespace loom;
  return simt_kernel(
      name,
      [](Array2<float> x, Array2<float> y) {
        auto per_warp = shared_array<float>(32);
        Index row = Index(block_idx().x), m = x.dim(1);
        I32 t = thread_idx().x, lane = t & 31, warps = block_dim().x / 32;
        Index first = Index(t), stride = Index(block_dim().x);
        // `v` combined over the block, in every thread (CUDA C's block_reduce).
        auto block_reduce = [&](Var<float> &v, bool maximum, float identity) {
          auto combine = [&](F32 other) {
            v = maximum ? F32(select(other > v, other, v)) : F32(v + other);
          };
          for (int offset = 16; offset > 0; offset /= 2)
            combine(shfl_xor_sync(v, offset));
          if_(lane == 0, [&] { per_warp[t / 32] = v; });
          barrier();
          v = select(lane < warps, per_warp[lane], identity);
          for (int offset = 16; offset > 0; offset /= 2)
            combine(shfl_xor_sync(v, offset));
          barrier(); // every warp has read per_warp before the next reduction writes it
        };
        Var<float> top("top", -std::numeric_limits<float>::infinity());
        for_range(first, m, stride,
                  [&](Index j) { top = select(x(row, j) > top, x(row, j), top); });
        block_reduce(top, true, -std::numeric_limits<float>::infinity());
        Var<float> total("total", 0.0f);
        for_range(first, m, stride, [&](Index j) { total += exp(x(row, j) - top); });
        block_reduce(total, false, 0.0f);
        for_range(first, m, stride, [&](Index j) { y(row, j) = exp(x(row, j) - top) / total; });
      },
      {"x", "y"});
}

// CUDA's programming-guide matmul at the SIMT level: 16 x 16 tiles of A and B staged in shared
// memory, one thread per element of C (n a multiple of 16). Launch: shape({n/16, n/16}, {16, 16}).
inline loom::Kernel make_tiled_matmul(const std::string &name) {
  using namespace loom;
  return simt_kernel(name,
                     [](Array2<float> A, Array2<float> B, Array2<float> C) {
                       auto As = shared_array<float>(16, 16);
                       auto Bs = shared_array<float>(16, 16);
                       I32 tx = thread_idx().x, ty = thread_idx().y;
                       Index row = Index(block_idx().y) * 16 + Index(ty);
                       Index col = Index(block_idx().x) * 16 + Index(tx);
                       Var<float> acc("acc", 0.0f);
                       for_range(0, A.dim(1) / 16, [&](Index tile) {
                         As(ty, tx) = A(row, tile * 16 + Index(tx));
                         Bs(ty, tx) = B(tile * 16 + Index(ty), col);
                         barrier();
                         for (int e = 0; e < 16; ++e)
                           acc += As(ty, e) * Bs(e, tx);
                         barrier();
                       });
                       C(row, col) = acc;
                     },
                     {"A", "B", "C"});
}

// A register-tiled SGEMM at the SIMT level, the way hand-written CUDA C SGEMMs start: each block
// computes a 128 x 128 tile of C with 256 threads, each thread an 8 x 8 sub-tile held in 64
// registers; per step of 8 along k the block stages a 128 x 8 tile of A (transposed) and an
// 8 x 128 tile of B in shared memory. n must be a multiple of 128.
// Launch: shape({n / 128, n / 128}, 256).
// PolyBench's doitgen with a local array as each iteration's scratch row (at most 160 long):
// A[r, q, :] = A[r, q, :] * C4, in the text DSL.
inline loom::Kernel make_doitgen() {
  loom::Module m = loom::compile(R"(
@kernel
def doitgen(A: f64[R, Q, P], C4: f64[P, P]):
    for r, q in parallel(R, Q):
        sum = local.array(160, f64)
        for p in range(P):
            acc = 0.0
            for s in range(P):
                acc += A[r, q, s] * C4[s, p]
            sum[p] = acc
        for p in range(P):
            A[r, q, p] = sum[p]
)");
  return m["doitgen"];
}

// PolyBench's syrk (C = alpha * A * A^T + beta * C on the lower triangle, f64), the two ways a
// Numba user writes it: the rows in parallel, each updating its triangle row in PolyBench's i, k, j
// order (`updates`), or one iteration per element of the square, the k sum into a local
// (`sums`).
inline loom::Kernel make_syrk(const std::string &form) {
  loom::Module m = loom::compile(R"(
@kernel
def updates(C: f64[n, n], A: f64[n, m], alpha: f64, beta: f64):
    for i in parallel(n):
        for j in range(i + 1):
            C[i, j] *= beta
        for k in range(m):
            for j in range(i + 1):
                C[i, j] += alpha * A[i, k] * A[j, k]

@kernel
def sums(C: f64[n, n], A: f64[n, m], alpha: f64, beta: f64):
    for i, j in parallel(n, n):
        if j <= i:
            s = 0.0
            for k in range(m):
                s += alpha * A[i, k] * A[j, k]
            C[i, j] = C[i, j] * beta + s
)");
  return m[form];
}

inline loom::Kernel make_sgemm_simt(const std::string &name) {
  using namespace loom;
  return simt_kernel(name,
                     [](Array2<float> A, Array2<float> B, Array2<float> C) {
                       constexpr int bm = 128, bn = 128, bk = 8, tm = 8, tn = 8, threads = 256;
                       auto As = shared_array<float>(bk, bm); // As(k, row): A's tile transposed
                       auto Bs = shared_array<float>(bk, bn);
                       I32 t = thread_idx().x;
                       I32 thread_row = t / (bn / tn), thread_col = t % (bn / tn);
                       Index row0 = Index(block_idx().y) * bm, col0 = Index(block_idx().x) * bn;
                       std::vector<Var<float>> acc;
                       acc.reserve(tm * tn); // a Var copied would declare a new variable
                       for (int e = 0; e < tm * tn; ++e)
                         acc.emplace_back("acc", 0.0f);
                       for_range(0, A.dim(1) / bk, [&](Index kt) {
                         for (int l = 0; l < bm * bk / threads; ++l) {
                           I32 a = t + l * threads; // A's tile: row a / 8, column a % 8
                           As(a % bk, a / bk) = A(row0 + Index(a / bk), kt * bk + Index(a % bk));
                           I32 b = t + l * threads; // B's tile: row b / 128, column b % 128
                           Bs(b / bn, b % bn) = B(kt * bk + Index(b / bn), col0 + Index(b % bn));
                         }
                         barrier();
                         for (int k = 0; k < bk; ++k) {
                           std::vector<F32> m, n;
                           for (int i = 0; i < tm; ++i)
                             m.push_back(As(k, thread_row * tm + i));
                           for (int j = 0; j < tn; ++j)
                             n.push_back(Bs(k, thread_col * tn + j));
                           // Each register of A and B read once into a local, then 64
                           // multiply-adds.
                           std::vector<Var<float>> mv, nv;
                           mv.reserve(tm);
                           nv.reserve(tn);
                           for (int i = 0; i < tm; ++i)
                             mv.emplace_back("a", m[i]);
                           for (int j = 0; j < tn; ++j)
                             nv.emplace_back("b", n[j]);
                           for (int i = 0; i < tm; ++i)
                             for (int j = 0; j < tn; ++j)
                               acc[i * tn + j] += mv[i] * nv[j];
                         }
                         barrier();
                       });
                       for (int i = 0; i < tm; ++i)
                         for (int j = 0; j < tn; ++j)
                           C(row0 + Index(thread_row * tm + i), col0 + Index(thread_col * tn + j)) =
                               acc[i * tn + j];
                     },
                     {"A", "B", "C"});
}

} // namespace bench
