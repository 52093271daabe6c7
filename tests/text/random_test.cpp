// Random numbers in the text DSL: `g = random.philox(seed, stream[, block])` and its draws.
// Random123's known answers through the text front end on the interpreter and every target, every
// draw against the plain C++ reference (support/PhiloxReference.h) and against the C++ DSL's
// loom::Philox, generators in helpers, task loops, SIMT and serial kernels; and each bad use of
// a generator with its exact diagnostic. Exactness as in tests/e2e/philox_test.cpp: everything
// bit for bit but the normals, which are bit for bit between the interpreter and the CPU and
// within 1e-5 (f32) and 1e-13 (f64), relative, elsewhere.
#include "support/PhiloxReference.h"
#include "support/TestUtil.h"

#include "frontend/text/Compile.h"
#include "ir/Interpreter.h"

#include <cstring>

using namespace loom;
using loomtest::PhiloxStream;

namespace {

template <class T> std::vector<T> vector_of(const ir::Buffer &b) {
  std::vector<T> v(b.size());
  std::memcpy(v.data(), b.bytes.data(), v.size() * sizeof(T));
  return v;
}
ir::InterpreterArg scalar_u64(uint64_t v) {
  return ir::InterpreterArg::of_scalar(ir::int_value(ir::ScalarType::U64, int64_t(v)));
}
template <class T> bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
template <class T> bool close(T a, T b, double relative) {
  return std::abs(double(a) - double(b)) <= relative * std::abs(double(a));
}

const char *source = R"(
@kernel
def kat(seed: u64, stream: u64, block: u64, straight: u32[4], looped: u32[m]):
    g = random.philox(seed, stream, block)
    straight[0] = g.next_u32()
    straight[1] = g.next_u32()
    straight[2] = g.next_u32()
    straight[3] = g.next_u32()
    h = random.philox(seed, stream, block)
    for k in range(m):
        looped[k] = h.next_u32()

@kernel
def draws(seed: u64, w: u32[n, m], uf: f32[n, m], ud: f64[n, m], nf: f32[n, m],
          nd: f64[n, m], r32: i32[n, m], r64: i64[n, m]):
    for i in parallel(n):
        g = random.philox(seed, i)
        for k in range(m):
            w[i, k] = g.next_u32()
            uf[i, k] = g.uniform_f32()
            ud[i, k] = g.uniform()
            nf[i, k] = g.normal_f32()
            nd[i, k] = g.normal()
            r32[i, k] = g.randint(-7, 1000)
            r64[i, k] = g.randint(-3000000000, i * 5000000000)

# A generator in a helper: its locals are fresh at each call.
def noise(seed: u64, i: i64, skip: i32) -> f32:
    g = random.philox(seed, i)
    for k in range(skip):
        g.next_u32()
    return g.uniform_f32()

@kernel
def helpers(seed: u64, y: f32[n], z: f32[n]):
    for i in parallel(n):
        y[i] = noise(seed, i, 0)
        z[i] = noise(seed, i, 3)

# A task loop: step t draws block t of each stream.
@kernel
def steps(seed: u64, y: u32[n, T]):
    for t in range(T):
        for i in parallel(n):
            g = random.philox(seed, i, t)
            y[i, t] = g.next_u32()

@kernel(simt=True)
def simt(seed: u64, y: f64[n]):
    i = grid(1)
    if i < n:
        g = random.philox(seed, i)
        y[i] = g.uniform()
)";

class TextRandom : public loomtest::TargetTest {
protected:
  Module m = loom::compile(source, "random.loom");
  Kernel &get(const char *name) { return prepare(m[name]); }
};

TEST_P(TextRandom, Random123KnownAnswers) {
  Kernel &k = get("kat");
  const std::vector<ir::Kernel> kernels = text::parse_kernels(source);
  for (const loomtest::PhiloxKnownAnswer &kat : loomtest::kKnownAnswers) {
    const uint64_t seed = loomtest::kat_seed(kat), stream = loomtest::kat_stream(kat),
                   block = loomtest::kat_block(kat);
    std::vector<uint32_t> straight(4), looped(8);
    k(seed, stream, block, straight, looped);
    std::vector<ir::InterpreterArg> args = {
        scalar_u64(seed), scalar_u64(stream), scalar_u64(block),
        ir::InterpreterArg::of_array(ir::Buffer(ir::ScalarType::U32, {4})),
        ir::InterpreterArg::of_array(ir::Buffer(ir::ScalarType::U32, {8}))};
    ir::interpret(kernels[0], args);
    PhiloxStream ref(seed, stream, block);
    for (int w = 0; w < 8; ++w) {
      const uint32_t want = ref.next_u32();
      if (w < 4) {
        EXPECT_EQ(straight[w], kat.output[w]) << "word " << w;
        EXPECT_EQ(vector_of<uint32_t>(args[3].array)[w], kat.output[w]) << "word " << w;
      }
      EXPECT_EQ(looped[w], want) << "word " << w;
      EXPECT_EQ(vector_of<uint32_t>(args[4].array)[w], want) << "word " << w;
    }
  }
}

// The text kernel, the C++ DSL's kernel of the same draws, and the reference.
TEST_P(TextRandom, DrawsMatchTheCppDslAndTheReference) {
  Kernel &text_kernel = get("draws");
  Kernel cpp_kernel = kernel("draws_cpp", [](U64 seed, Array2<uint32_t> w, Array2<float> uf,
                                             Array2<double> ud, Array2<float> nf, Array2<double> nd,
                                             Array2<int32_t> r32, Array2<int64_t> r64) {
    parallel_for(w.dim(0), [&](Index i) {
      Philox g(seed, i);
      for_range(w.dim(1), [&](Index k) {
        w(i, k) = g.next_u32();
        uf(i, k) = g.uniform_f32();
        ud(i, k) = g.uniform();
        nf(i, k) = g.normal_f32();
        nd(i, k) = g.normal();
        r32(i, k) = g.randint(-7, 1000);
        r64(i, k) = g.randint(int64_t(-3000000000), i * int64_t(5000000000));
      });
    });
  });
  prepare(cpp_kernel);
  const int64_t n = 19, m = 13;
  const uint64_t seed = 0xfeedfacecafebeefull;
  struct Out {
    std::vector<uint32_t> w = std::vector<uint32_t>(n * m);
    std::vector<float> uf = std::vector<float>(n * m), nf = std::vector<float>(n * m);
    std::vector<double> ud = std::vector<double>(n * m), nd = std::vector<double>(n * m);
    std::vector<int32_t> r32 = std::vector<int32_t>(n * m);
    std::vector<int64_t> r64 = std::vector<int64_t>(n * m);
  } t, c;
  auto run = [&](Kernel &k, Out &o) {
    auto v = [&](auto &x) { return view(x, {n, m}); };
    k(seed, v(o.w), v(o.uf), v(o.ud), v(o.nf), v(o.nd), v(o.r32), v(o.r64));
  };
  run(text_kernel, t);
  run(cpp_kernel, c);
  for (int64_t i = 0; i < n; ++i) {
    PhiloxStream ref(seed, uint64_t(i));
    for (int64_t k = 0; k < m; ++k) {
      const int64_t e = i * m + k;
      ASSERT_EQ(t.w[e], c.w[e]);
      ASSERT_EQ(t.w[e], ref.next_u32()) << i << "," << k;
      ASSERT_TRUE(same_bits(t.uf[e], c.uf[e]));
      ASSERT_TRUE(same_bits(t.uf[e], ref.uniform_f32())) << i << "," << k;
      ASSERT_TRUE(same_bits(t.ud[e], c.ud[e]));
      ASSERT_TRUE(same_bits(t.ud[e], ref.uniform())) << i << "," << k;
      ASSERT_TRUE(same_bits(t.nf[e], c.nf[e])); // the same code on one target
      ASSERT_TRUE(close(ref.normal_f32(), t.nf[e], 1e-5)) << i << "," << k;
      ASSERT_TRUE(same_bits(t.nd[e], c.nd[e]));
      ASSERT_TRUE(close(ref.normal(), t.nd[e], 1e-13)) << i << "," << k;
      ASSERT_EQ(t.r32[e], c.r32[e]);
      ASSERT_EQ(t.r32[e], ref.randint<int32_t>(-7, 1000)) << i << "," << k;
      ASSERT_EQ(t.r64[e], c.r64[e]);
      ASSERT_EQ(t.r64[e], ref.randint<int64_t>(-3000000000, i * 5000000000)) << i << "," << k;
    }
  }
}

TEST_P(TextRandom, HelpersTaskLoopsAndSimt) {
  const int64_t n = 150;
  const uint64_t seed = 31337;
  std::vector<float> y(n), z(n);
  get("helpers")(seed, y, z);
  for (int64_t i = 0; i < n; ++i) {
    PhiloxStream a(seed, uint64_t(i)), b(seed, uint64_t(i));
    b.next_u32(), b.next_u32(), b.next_u32(); // a draw as a statement skips a word
    ASSERT_TRUE(same_bits(y[i], a.uniform_f32())) << i;
    ASSERT_TRUE(same_bits(z[i], b.uniform_f32())) << i;
  }
  const int64_t T = 5;
  std::vector<uint32_t> steps(n * T);
  get("steps")(seed, view(steps, {n, T}));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t t = 0; t < T; ++t)
      ASSERT_EQ(steps[i * T + t], PhiloxStream(seed, uint64_t(i), uint64_t(t)).next_u32())
          << i << "," << t;
  std::vector<double> u(n, -1);
  get("simt").shape(2u, 128u)(seed, u);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_TRUE(same_bits(u[i], PhiloxStream(seed, uint64_t(i)).uniform())) << i;
}

LOOM_INSTANTIATE_TARGETS(TextRandom);

// The front end writes a generator out as ordinary IR: its locals are named after it.
TEST(TextRandomIr, GeneratorIsLocalsNamedAfterIt) {
  Module m = loom::compile(source);
  const std::string ir = m["draws"].ir_text();
  for (const char *local : {"g_key0", "g_key1", "g_ctr0", "g_ctr3", "g_out0", "g_pos"})
    EXPECT_NE(ir.find(local), std::string::npos) << local << " in\n" << ir;
}

// ---- bad programs -------------------------------------------------------------------------------

struct BadProgram {
  const char *name;
  const char *source;
  const char *diagnostic; // "line:col: error: message"
};

#define LOOP                                                                                       \
  "@kernel\ndef k(x: f32[n], m: i32, s: u64, f: f32, b: bool):\n    for i in parallel(n):\n"
#define GEN LOOP "        g = random.philox(s, i)\n"
#define METHODS                                                                                    \
  "g.uniform(), g.uniform_f32(), g.normal(), g.normal_f32(), g.next_u32() or g.randint(lo, hi)"

const BadProgram bad_programs[] = {
    // ---- random.philox ----
    {"SeedFloat", LOOP "        g = random.philox(f, i)\n",
     "4:27: error: the seed of random.philox() must be an integer, got f32"},
    {"SeedBool", LOOP "        g = random.philox(b, i)\n",
     "4:27: error: the seed of random.philox() must be an integer, got bool"},
    {"SeedArray", LOOP "        g = random.philox(x, i)\n",
     "4:27: error: the seed of random.philox() must be an integer, got array 'x'"},
    {"StreamFloatLiteral", LOOP "        g = random.philox(s, 0.5)\n",
     "4:30: error: the stream of random.philox() must be an integer, got f64"},
    {"BlockComplex", LOOP "        g = random.philox(s, i, 1j)\n",
     "4:33: error: the first block of random.philox() must be an integer, got c128"},
    {"OneArgument", LOOP "        g = random.philox(s)\n",
     "4:13: error: random.philox() takes 2 or 3 arguments (seed, stream[, first block]), got 1"},
    {"FourArguments", LOOP "        g = random.philox(s, i, 0, 1)\n",
     "4:13: error: random.philox() takes 2 or 3 arguments (seed, stream[, first block]), got 4"},
    {"PhiloxAsValue", LOOP "        t = random.philox(s, i) + 1\n",
     "4:13: error: random.philox() makes a generator, not a number; assign it to a name of its "
     "own, as in g = random.philox(seed, i), and draw from that: " METHODS},
    {"DrawFromACall", LOOP "        x[i] = random.philox(s, i).uniform()\n",
     "4:43: error: a generator is drawn from by its name: assign it to one first, as in g = "
     "random.philox(seed, i), then call g.uniform()"},
    {"UnknownRandomFunction", LOOP "        t = random.uniform()\n",
     "4:13: error: unknown function 'random.uniform'; loom's random module has philox(seed, "
     "stream[, first block]), as in g = random.philox(seed, i)"},
    {"Annotated", LOOP "        g: u64 = random.philox(s, i)\n",
     "4:12: error: a generator takes no type annotation; write g = random.philox(seed, stream)"},
    {"Compound", LOOP "        g += random.philox(s, i)\n",
     "4:11: error: random.philox() makes a generator; assign it to a new name with '='"},
    {"Redefined", GEN "        g = random.philox(s, i)\n",
     "5:9: error: 'g' is already defined on line 4; random.philox() makes a new generator, which "
     "needs a new name"},
    // ---- draws ----
    {"UnknownMethod", GEN "        x[i] = g.uniform_f16()\n",
     "5:16: error: generator 'g' has no method 'uniform_f16'; its methods are " METHODS},
    {"MethodArity", GEN "        x[i] = g.uniform(1)\n",
     "5:16: error: g.uniform() takes no arguments, got 1"},
    {"RandintArity", GEN "        x[i] = g.randint(3)\n",
     "5:16: error: g.randint() takes 2 arguments (lo, hi), got 1"},
    {"RandintFloat", GEN "        x[i] = g.randint(0, f)\n",
     "5:29: error: the bounds of g.randint() must be integers, got f32"},
    {"RandintBool", GEN "        x[i] = g.randint(b, 3)\n",
     "5:26: error: the bounds of g.randint() must be integers, got bool"},
    {"GeneratorAsValue", GEN "        x[i] = g\n",
     "5:16: error: 'g' is a random generator, not a number; draw from it with g.uniform(), "
     "g.next_u32(), g.randint(lo, hi) ..."},
    {"GeneratorAsHelperArgument",
     "def h(v: f32) -> f32:\n    return v\n" GEN "        x[i] = h(g)\n",
     "7:18: error: 'g' is a random generator, not a number; draw from it with g.uniform(), "
     "g.next_u32(), g.randint(lo, hi) ..."},
    {"GeneratorAssigned", GEN "        g = 3\n",
     "5:9: error: cannot assign to generator 'g'; draw from it (g.uniform(), ...), or make another "
     "one with a new name"},
    {"GeneratorAttribute", GEN "        t = g.seed\n",
     "5:15: error: 'g' is a random generator, whose methods are called, as in g.uniform(); it has "
     "no attribute 'seed'"},
    {"DrawInWhileCondition", GEN "        while g.uniform() < 0.5:\n            x[i] += 1.0\n",
     "5:15: error: this condition draws from a random generator, which would happen only once, "
     "before the loop; draw into a variable before the loop and again at the end of its body"},
    {"MethodOfAnArray", LOOP "        t = x.size()\n",
     "4:19: error: only functions can be called; this expression is not a function name"},
    {"MethodOfAnUnknownName", LOOP "        t = np.sqrt(f)\n", "4:13: error: unknown name 'np'"},
    // ---- where a generator is used ----
    {"MadeOutsideAParallelLoop",
     "@kernel\ndef k(x: f32[n], s: u64):\n    g = random.philox(s, 0)\n    for i in "
     "parallel(n):\n        x[i] = g.uniform_f32()\n",
     "5:16: error: generator 'g' (line 3) was made outside this parallel loop, so every iteration "
     "would draw the same numbers; make it inside the loop, a stream per iteration, as in g = "
     "random.philox(seed, i)"},
    {"DrawnAfterAParallelLoop",
     "@kernel\ndef k(x: f32[n], s: u64):\n    g = random.philox(s, 0)\n    x[0] = "
     "g.uniform_f32()\n    for i in parallel(n):\n        x[i] = 1.0\n    x[1] = g.uniform_f32()\n",
     "7:12: error: generator 'g' (line 3) was made before a parallel loop and is drawn from after "
     "it; each part of a kernel between parallel loops runs as its own launch, so make the "
     "generator after that loop"},
    {"UsedAfterItsBlock",
     LOOP
     "        if m > 0:\n            g = random.philox(s, i)\n        x[i] = g.uniform_f32()\n",
     "6:16: error: unknown name 'g': the variable declared on line 5 is local to its block; "
     "declare it before that block to use it here"},
    {"UsedInAHelper", "def h() -> f32:\n    return g.uniform_f32()\n" GEN "        x[i] = h()\n",
     "2:12: error: unknown name 'g'"},
};

class BadRandomPrograms : public ::testing::TestWithParam<BadProgram> {};

TEST_P(BadRandomPrograms, FailWithTheirExactDiagnostic) {
  const BadProgram &p = GetParam();
  try {
    text::parse_kernels(p.source, "t.loom");
    FAIL() << "no error for:\n" << p.source;
  } catch (const SourceError &e) {
    ASSERT_FALSE(e.diagnostics().empty());
    const Diagnostic &d = e.diagnostics()[0];
    std::string first =
        std::to_string(d.line) + ":" + std::to_string(d.col) + ": error: " + d.message;
    EXPECT_EQ(first, p.diagnostic) << "all diagnostics:\n" << e.what();
    EXPECT_EQ(e.diagnostics().size(), 1u) << "all diagnostics:\n" << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(, BadRandomPrograms, ::testing::ValuesIn(bad_programs),
                         [](const ::testing::TestParamInfo<BadProgram> &info) {
                           return std::string(info.param.name);
                         });

} // namespace
