// What the embedded DSL refuses at compile time (loom::Philox, loom::local_array, loom::print,
// loom::check, loom::dynamic_shared_array, loom::mma_sync), one case per value of CASE (0 compiles): each is
// compiled by dsl_compile_errors.sh, which checks the compiler's message.
#include <loom/loom.hpp>

using namespace loom;

void trace() {
  kernel("k", [](U64 seed, Array<float> x, Array<uint64_t> a) {
    parallel_for(x.size(), [&](Index i) {
#if CASE == 0 // every argument kind that is allowed
      Philox g(seed, i);
      Philox h(seed, i, 5);
      Philox l(a[i], 7u, int8_t(3));
      x[i] = g.uniform_f32() + g.normal_f32() + h.uniform() + h.normal() + l.next_u32() +
             l.randint(0, i) + g.randint(-3, 4);
      auto t = local_array<float>(4, 2);
      auto u = local_array<uint8_t>(3);
      t(0, 1) = x[i];
      u[2] = 7;
      print("t =", t(0, 1), u[2], i, 2.5, true);
      check(x[i] > 0.0f, "positive");
      check(i < x.size() && x[i] != 1.0f);
      check(true);
#elif CASE == 1
      Philox g(x[i], i);
#elif CASE == 2
      Philox g(true, i);
#elif CASE == 3
      Philox g(a, i);
#elif CASE == 4
      Philox g(seed, 0.5);
#elif CASE == 5
      Philox g(seed, i, 1.5f);
#elif CASE == 6
      Philox g(seed);
#elif CASE == 7
      Philox g(seed, i, 0, 1);
#elif CASE == 8
      Philox g(seed, i);
      x[i] = g.uniform_f16();
#elif CASE == 9
      Philox g(seed, i);
      x[i] = g.randint(0, x[i]);
#elif CASE == 10
      Philox g(seed, i);
      x[i] = g.uniform(1);
#elif CASE == 11
      Philox g(seed, i);
      Philox h = g;
#elif CASE == 12
      Philox g(seed, i);
      x[i] = g.randint(0);
#elif CASE == 13
      auto t = local_array<std::complex<float>>(4);
#elif CASE == 14
      auto t = local_array<loom::f16>(4);
#elif CASE == 15
      print("x =", x);
#elif CASE == 16
      auto t = local_array<float>(2.5);
#elif CASE == 17
      check(x[i], "x is nonzero");
#elif CASE == 18
      check(x);
#elif CASE == 19
      check(1);
#elif CASE == 20
      auto t = dynamic_shared_array<std::complex<double>>();
#elif CASE == 21
      auto t = dynamic_shared_array<loom::bf16>();
#elif CASE == 22
      auto s = shared_array<float>(16, 16);
      auto acc = local_array<float>(4);
      mma_sync(acc, s, 0, 0, s, 0, 0);
#endif
    });
  });
}
