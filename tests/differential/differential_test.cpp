// Differential testing in CI: a bounded batch of random programs, each run on the interpreter,
// through every lowering pass, on the CPU JIT and (where usable) on the GPU. A mismatch is shrunk
// and printed as a regression test to paste into regressions_test.cpp.
//
//   LOOM_DIFF_PROGRAMS=n   programs in the batch (default 2000, split over 4 shards)
//   LOOM_DIFF_SEED=s       the first seed (default 1); program k has seed s + k
//   LOOM_DIFF_OUT=dir      also write each reproducer to dir/diff_<seed>.cpp
#include "codegen/Codegen.h"
#include "differential/Build.h"
#include "differential/Harness.h"
#include "differential/Reproducer.h"
#include "ir/Lower.h"
#include "ir/Mutator.h"
#include "ir/Passes.h"
#include "ir/Printer.h"
#include "ir/Semantics.h"
#include "ir/Verifier.h"
#include "support/StridedLayout.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <string>

namespace loom::difftest {
namespace {

uint64_t env_number(const char *name, uint64_t fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

std::string env_text(const char *name) {
  const char *v = std::getenv(name);
  return v ? v : "";
}

constexpr int kShards = 4;

class DifferentialBatch : public ::testing::TestWithParam<int> {};

// A fault planted in one stage, to show that the harness catches and shrinks what it does.
struct PlantedFault {
  GeneratorOptions programs;
  // The check options of one program, with the fault in them; nullopt leaves the program out.
  std::function<std::optional<CheckOptions>(const Program &)> options;
  int wanted = 3;       // stop after this many caught
  uint64_t seeds = 60;  // of seeds 1 to this
  int largest = 0;      // the shrunk program's size at most (0: smaller than the program)
  std::string expected; // in the shrunk program's reproducer (one of several, split by '|')
  // Called with each caught program's first failure (to count the kinds of catch).
  std::function<void(const Failure &)> caught_one = [](const Failure &) {};
};

// Runs the programs of `fault`, expecting each failure a mismatch; the first caught is shrunk and
// must still fail, be small, and print a reproducer holding `expected`. Returns the count caught.
int count_caught(const PlantedFault &fault) {
  int caught = 0;
  for (uint64_t seed = 1; seed <= fault.seeds && caught < fault.wanted; ++seed) {
    Program p = generate_program(seed, fault.programs);
    std::optional<CheckOptions> options = fault.options(p);
    if (!options)
      continue;
    Verdict v = check_program(p, *options);
    EXPECT_TRUE(v.invalid.empty()) << v.invalid;
    if (!v.invalid.empty() || v.failures.empty())
      continue;
    ++caught;
    EXPECT_EQ(v.failures[0].kind, "mismatch") << v.failures[0].detail;
    fault.caught_one(v.failures[0]);
    if (caught > 1)
      continue;
    ShrinkResult small = shrink(p, v.failures[0], *options);
    EXPECT_FALSE(check_program(small.program, *options).failures.empty());
    if (fault.largest > 0)
      EXPECT_LE(program_size(small.program), fault.largest) << ir::to_string(small.program.kernel);
    else
      EXPECT_LT(program_size(small.program), program_size(p));
    const std::string cpp = reproducer_cpp(small.program, "Planted", "planted");
    bool found = false;
    for (size_t at = 0; at <= fault.expected.size();) {
      size_t bar = std::min(fault.expected.find('|', at), fault.expected.size());
      found = found || cpp.find(fault.expected.substr(at, bar - at)) != std::string::npos;
      at = bar + 1;
    }
    EXPECT_TRUE(found) << "no " << fault.expected << " in\n" << cpp;
  }
  return caught;
}

TEST_P(DifferentialBatch, BackendsAgreeOnRandomPrograms) {
  const uint64_t total = env_number("LOOM_DIFF_PROGRAMS", 2000);
  const uint64_t base = env_number("LOOM_DIFF_SEED", 1);
  const uint64_t shard = GetParam();
  const uint64_t first = base + total * shard / kShards,
                 last = base + total * (shard + 1) / kShards;

  CheckOptions options;
  options.gpu = gpu_usable();
  int mismatches = 0, gpu_compared = 0, gpu_inconclusive = 0, with_views = 0;
  std::printf("[  NOTE    ] seeds %llu to %llu%s\n", static_cast<unsigned long long>(first),
              static_cast<unsigned long long>(last - 1), options.gpu ? ", with the GPU" : "");
  for (uint64_t seed = first; seed < last; ++seed) {
    Program p = generate_program(seed);
    Verdict v = check_program(p, options);
    ASSERT_TRUE(v.invalid.empty())
        << "the generator made an invalid program (seed " << seed << "): " << v.invalid << "\n"
        << ir::to_string(p.kernel);
    gpu_compared += v.gpu_compared;
    gpu_inconclusive += !v.gpu_inconclusive.empty();
    with_views += !p.views.empty();
    if (!v.failures.empty()) {
      ++mismatches;
      ADD_FAILURE() << shrink_and_report(p, v.failures[0], options, env_text("LOOM_DIFF_OUT"));
    }
  }
  std::printf("[  NOTE    ] %llu programs (%d with strided views), %d mismatches",
              static_cast<unsigned long long>(last - first), with_views, mismatches);
  if (options.gpu)
    std::printf("; GPU compared on %d, inconclusive on %d", gpu_compared, gpu_inconclusive);
  std::printf("\n");
}

INSTANTIATE_TEST_SUITE_P(, DifferentialBatch, ::testing::Range(0, kShards));

// The quick code of tiered compiles (codegen::quick_pipeline) for generated programs, which need
// no GPU to compile: LLVM must neither reject nor abort on any of them (LLVM 19's textual
// `instcombine` aborts the process when it does not reach a fixpoint in one iteration, which
// only some programs hit); the GPU runs of LOOM_TIERED=quick compare their results.
TEST(QuickTier, GeneratedProgramsCompileToPtx) {
  const uint64_t base = env_number("LOOM_DIFF_SEED", 1);
  const uint64_t total = env_number("LOOM_DIFF_PROGRAMS", 2000) / 4;
  codegen::GpuTarget target;
  target.quick = true;
  for (uint64_t seed = base; seed < base + total; ++seed) {
    Program p = generate_program(seed);
    target.index32 = seed % 2 == 0;
    std::string ptx = codegen::emit_ptx(
        ir::lower(p.kernel, ir::Target::GPU, nullptr, {.covering_launch = seed % 3 != 0}), target);
    ASSERT_NE(ptx.find(".entry"), std::string::npos) << "seed " << seed << "\n" << ptx;
  }
}

// The optimized GPU code of generated programs, with the workarounds for the tool chain below
// loom applied (codegen/GpuWorkarounds.h), assembled by ptxas for sm_90 where it is installed:
// a workaround that writes invalid PTX is caught without a GPU.
TEST(Ptxas, GeneratedProgramsAssemble) {
  std::string ptxas;
  for (const char *candidate : {"/usr/local/cuda/bin/ptxas", "/usr/bin/ptxas"})
    if (ptxas.empty() && access(candidate, X_OK) == 0)
      ptxas = candidate;
  if (ptxas.empty())
    GTEST_SKIP() << "ptxas not found: the generated programs' PTX is not assembled";
  const uint64_t base = env_number("LOOM_DIFF_SEED", 1);
  const uint64_t total = env_number("LOOM_DIFF_PROGRAMS", 2000) / 40;
  codegen::GpuTarget target;
  target.sm = "sm_90";
  char path[] = "/tmp/loom_generated_ptx_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  for (uint64_t seed = base; seed < base + total; ++seed) {
    Program p = generate_program(seed);
    target.index32 = seed % 2 == 0;
    std::string ptx = codegen::emit_ptx(
        ir::lower(p.kernel, ir::Target::GPU, nullptr, {.covering_launch = seed % 3 != 0}), target);
    std::ofstream(path) << ptx;
    std::string log = std::string(path) + ".log";
    int rc =
        std::system((ptxas + " -arch=sm_90 " + path + " -o /dev/null >" + log + " 2>&1").c_str());
    std::ifstream in(log);
    std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::remove(log.c_str());
    ASSERT_EQ(rc, 0) << "seed " << seed << ": ptxas rejected the PTX:\n" << out;
  }
  std::remove(path);
}

// ---- the generator ---------------------------------------------------------------------------

TEST(Generator, SameSeedSameProgram) {
  for (uint64_t seed : {1u, 77u, 12345u}) {
    Program a = generate_program(seed), b = generate_program(seed);
    EXPECT_EQ(ir::to_string(a.kernel), ir::to_string(b.kernel));
    ASSERT_EQ(a.args.size(), b.args.size());
    for (size_t k = 0; k < a.args.size(); ++k)
      EXPECT_EQ(a.args[k].array.bytes, b.args[k].array.bytes);
  }
  EXPECT_NE(ir::to_string(generate_program(1).kernel), ir::to_string(generate_program(2).kernel));
}

// Which node kinds, operators and types 300 programs use: the generator must reach all of them.
class Coverage : public ir::Visitor {
public:
  std::set<std::string> seen;

protected:
  void visit_node(const ir::Unary *n) override {
    seen.insert(std::string("unary ") + ir::op_name(n->op) + " " + ir::type_name(n->type));
    Visitor::visit_node(n);
  }
  void visit_node(const ir::Binary *n) override {
    seen.insert(std::string("binary ") + ir::op_name(n->op) + " " + ir::type_name(n->a.type()));
    Visitor::visit_node(n);
  }
  void visit_node(const ir::Call *n) override {
    seen.insert(std::string("call ") + ir::fn_name(n->fn) + " " + ir::type_name(n->args[0].type()));
    Visitor::visit_node(n);
  }
  void visit_node(const ir::Cast *n) override {
    seen.insert(std::string("cast ") + ir::type_name(n->a.type()) + " " + ir::type_name(n->type));
    Visitor::visit_node(n);
  }
  void visit_node(const ir::Select *n) override {
    seen.insert("select");
    if (ir::is_half_float(n->type))
      seen.insert(std::string("select ") + ir::type_name(n->type));
    Visitor::visit_node(n);
  }
  void visit_node(const ir::Declare *n) override {
    seen.insert(std::string("declare ") + ir::type_name(n->var->type));
    Visitor::visit_node(n);
  }
  void visit_node(const ir::Assign *n) override {
    seen.insert(std::string("assign ") + ir::type_name(n->var->type));
    Visitor::visit_node(n);
  }
  void visit_node(const ir::For *n) override {
    seen.insert("for");
    // A sequential loop around a parallel loop (a task loop), and one around another.
    struct Holds : ir::Visitor {
      bool parallel = false, task_loop = false;
      void visit_node(const ir::ParallelFor *) override { parallel = true; }
      void visit_node(const ir::For *f) override {
        Holds inner;
        inner.visit(f->body);
        task_loop = task_loop || inner.parallel;
        parallel = parallel || inner.parallel;
      }
    } holds;
    holds.visit(n->body);
    if (holds.parallel && parallel_ == 0)
      seen.insert(holds.task_loop ? "task loop nested" : "task loop");
    Visitor::visit_node(n);
  }
  void visit_node(const ir::While *n) override {
    seen.insert("while");
    Visitor::visit_node(n);
  }
  void visit_node(const ir::IfThenElse *n) override {
    seen.insert(n->else_case.defined() ? "if else" : "if");
    Visitor::visit_node(n);
  }
  void visit_node(const ir::Store *n) override {
    seen.insert("store rank " + std::to_string(n->indices.size()));
    Visitor::visit_node(n);
  }
  void visit_node(const ir::Reduce *n) override {
    seen.insert(std::string("reduce ") + ir::op_name(n->op) + " " +
                ir::type_name(kernel->params[n->array].type) + (parallel_ ? " parallel" : ""));
    Visitor::visit_node(n);
  }
  void visit_node(const ir::ParallelFor *n) override;

public:
  const ir::Kernel *kernel = nullptr;

private:
  int parallel_ = 0;
};

void Coverage::visit_node(const ir::ParallelFor *n) {
  seen.insert("parallel " + std::to_string(n->vars.size()) + "d");
  ++parallel_;
  Visitor::visit_node(n);
  --parallel_;
}

TEST(Generator, ReachesEveryOperatorTypeAndStatement) {
  Coverage c;
  for (uint64_t seed = 1; seed <= 600; ++seed) {
    Program p = generate_program(seed);
    c.kernel = &p.kernel;
    c.visit(p.kernel.body);
  }
  using ir::ScalarType;
  const ScalarType ints[] = {ScalarType::I8, ScalarType::I16, ScalarType::I32, ScalarType::I64,
                             ScalarType::U8, ScalarType::U16, ScalarType::U32, ScalarType::U64};
  const ScalarType floats[] = {ScalarType::F32, ScalarType::F64};
  const ScalarType all[] = {ScalarType::Bool, ScalarType::I8,  ScalarType::I16, ScalarType::I32,
                            ScalarType::I64,  ScalarType::U8,  ScalarType::U16, ScalarType::U32,
                            ScalarType::U64,  ScalarType::F32, ScalarType::F64};
  std::vector<std::string> expected = {
      "select",       "for",         "while",           "if",           "if else",
      "parallel 1d",  "parallel 2d", "parallel 3d",     "store rank 1", "store rank 2",
      "store rank 3", "task loop",   "task loop nested"};
  for (ScalarType t : ints)
    for (int op = 0; op <= static_cast<int>(ir::BinaryOp::Ne); ++op)
      expected.push_back(std::string("binary ") + ir::op_name(static_cast<ir::BinaryOp>(op)) + " " +
                         ir::type_name(t));
  for (ScalarType t : floats) {
    for (int op = 0; op <= static_cast<int>(ir::BinaryOp::Max); ++op)
      expected.push_back(std::string("binary ") + ir::op_name(static_cast<ir::BinaryOp>(op)) + " " +
                         ir::type_name(t));
    for (int fn = 0; fn < ir::kRealMathFnCount; ++fn)
      expected.push_back(std::string("call ") + ir::fn_name(static_cast<ir::MathFn>(fn)) + " " +
                         ir::type_name(t));
  }
  for (ScalarType from : all)
    for (ScalarType to : all)
      if (from != to)
        expected.push_back(std::string("cast ") + ir::type_name(from) + " " + ir::type_name(to));
  for (const char *op : {"&&", "||", "&", "|", "^", "<", "=="})
    expected.push_back(std::string("binary ") + op + " bool");
  // 16-bit float values, in the programs that have them (HalfFloatsInSomePrograms checks more).
  for (const char *t : {"f16", "bf16"})
    for (const char *e :
         {"cast f32 ", "cast f64 ", "cast i64 ", "binary + ", "binary * ", "binary < ", "declare "})
      expected.push_back(std::string(e) + t);
  for (const char *e : {"cast f16 f32", "cast bf16 f64", "cast f16 i64"})
    expected.push_back(e);
  // Reductions: every operation on every numeric type, in parallel loops (each element kind)
  // and outside them; float products in parallel loops are rare (their order is too visible).
  for (ScalarType t : {ScalarType::I32, ScalarType::I64, ScalarType::F32, ScalarType::F64})
    for (const char *op : {"+=", "*=", "min=", "max="}) {
      expected.push_back(std::string("reduce ") + op + " " + ir::type_name(t));
      if (!(ir::is_float(t) && std::string(op) == "*="))
        expected.push_back(std::string("reduce ") + op + " " + ir::type_name(t) + " parallel");
    }
  for (const std::string &e : expected)
    EXPECT_TRUE(c.seen.count(e)) << "no generated program has: " << e;
}

// Complex numbers: in about complex_fraction of the programs (and then everywhere: arrays, scalars,
// locals, every operation they take), in none of the others.
TEST(Generator, ComplexNumbersInSomePrograms) {
  int with_complex = 0;
  const int n = 1000;
  for (uint64_t seed = 1; seed <= n; ++seed) {
    Program p = generate_program(seed);
    with_complex += std::any_of(p.kernel.params.begin(), p.kernel.params.end(),
                                [](const ir::Param &q) { return ir::is_complex(q.type); });
  }
  EXPECT_GE(with_complex, n * 0.10);
  EXPECT_LE(with_complex, n * 0.20);

  GeneratorOptions all;
  all.complex_fraction = 1;
  Coverage c;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    Program p = generate_program(seed, all);
    c.kernel = &p.kernel;
    c.visit(p.kernel.body);
  }
  std::vector<std::string> expected = {
      "cast c64 c128", "cast c128 c64", "cast f32 c64",  "cast f64 c128",    "cast c64 f32",
      "cast c128 f64", "cast i64 c64",  "cast c64 bool", "call complex f32", "call complex f64"};
  for (const char *t : {"c64", "c128"}) {
    for (const char *op : {"+", "-", "*", "/", "==", "!="})
      expected.push_back(std::string("binary ") + op + " " + t);
    for (const char *fn :
         {"sqrt", "exp", "log", "sin", "cos", "tanh", "pow", "abs", "real", "imag", "conj"})
      expected.push_back(std::string("call ") + fn + " " + t);
    expected.push_back(std::string("unary - ") + t);
    expected.push_back(std::string("reduce += ") + t);
    expected.push_back(std::string("reduce *= ") + t);
    expected.push_back(std::string("reduce += ") + t + " parallel");
  }
  for (const std::string &e : expected)
    EXPECT_TRUE(c.seen.count(e)) << "no generated program has: " << e;
}

// 16-bit float values (f16, bf16 scalars: parameters, locals, expressions): in about
// half_fraction of the programs, and then of every kind the IR takes (arithmetic, comparisons,
// negation, selects, math functions, casts from and to every type, complex numbers included).
TEST(Generator, HalfFloatValuesInSomePrograms) {
  // Whether a kernel has a 16-bit float value: expand_half then changes it.
  auto has_halves = [](const ir::Kernel &k) {
    ir::Kernel e = ir::expand_half(k);
    for (size_t p = 0; p < k.params.size(); ++p)
      if (e.params[p].type != k.params[p].type)
        return true;
    return !e.body.same_as(k.body);
  };
  GeneratorOptions none;
  none.half_fraction = 0;
  int with_halves = 0, changed = 0;
  const int n = 1000;
  for (uint64_t seed = 1; seed <= n; ++seed) {
    Program p = generate_program(seed), q = generate_program(seed, none);
    with_halves += has_halves(p.kernel);
    EXPECT_FALSE(has_halves(q.kernel)) << "seed " << seed;
    // The others are the programs the seeds gave before 16-bit float values were generated (but
    // for the few that drew them and drew no 16-bit float type after all).
    changed += ir::to_string(p.kernel) != ir::to_string(q.kernel);
  }
  EXPECT_GE(with_halves, n * 0.15);
  EXPECT_LE(changed, n * 0.25);
  std::printf("[  NOTE    ] %d of %d programs have 16-bit float values, %d changed by them\n",
              with_halves, n, changed);

  GeneratorOptions all;
  all.half_fraction = 1;
  all.complex_fraction = 0.5;
  Coverage c;
  std::set<std::string> params;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    Program p = generate_program(seed, all);
    c.kernel = &p.kernel;
    c.visit(p.kernel.body);
    for (size_t k = 0; k < p.kernel.params.size(); ++k)
      if (p.kernel.params[k].kind == ir::ParamKind::Scalar &&
          ir::is_half_float(p.kernel.params[k].type)) {
        params.insert(ir::type_name(p.kernel.params[k].type));
        // An argument holds a value of its type exactly.
        const double v = p.args[k].scalar.f;
        EXPECT_TRUE(ir::same_value(ir::ScalarType::F64, ir::ScalarValue{0, v, 0},
                                   ir::float_value(p.kernel.params[k].type, v)))
            << "seed " << seed << ": " << v;
      }
  }
  std::vector<std::string> expected = {"cast f16 bf16", "cast bf16 f16"};
  for (const char *t : {"f16", "bf16"}) {
    for (const char *op : {"+", "-", "*", "/", "%", "min", "max", "<", "<=", ">", ">=", "==", "!="})
      expected.push_back(std::string("binary ") + op + " " + t);
    for (const char *fn :
         {"sqrt", "exp", "log", "sin", "abs", "floor", "pow", "fma", "ldexp", "isnan", "isfinite"})
      expected.push_back(std::string("call ") + fn + " " + t);
    for (const char *other : {"bool", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32",
                              "f64", "c64", "c128"}) {
      expected.push_back(std::string("cast ") + other + " " + t);
      expected.push_back(std::string("cast ") + t + " " + other);
    }
    expected.push_back(std::string("unary - ") + t);
    expected.push_back(std::string("select ") + t);
    expected.push_back(std::string("declare ") + t);
    expected.push_back(std::string("assign ") + t);
    EXPECT_TRUE(params.count(t)) << "no generated program has a scalar parameter of " << t;
  }
  for (const std::string &e : expected)
    EXPECT_TRUE(c.seen.count(e)) << "no generated program has: " << e;
}

// Tracking uncertainty (for the GPU comparison) must not change what the reference computes:
// every other check compares with the tracked run.
TEST(Generator, TrackedAndPlainInterpreterRunsAgree) {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    Program p = generate_program(seed);
    std::vector<ir::InterpreterArg> plain = p.args, tracked = p.args;
    ir::interpret(p.kernel, plain);
    ir::InterpreterOptions options;
    options.track_uncertainty = true;
    ir::interpret(p.kernel, tracked, options);
    for (size_t k = 0; k < plain.size(); ++k)
      ASSERT_EQ(plain[k].array.bytes, tracked[k].array.bytes) << "seed " << seed;
  }
}

// ---- the harness and the shrinker, on a planted bug --------------------------------------------

// Turns every float * into + : a "miscompilation" the lowered:cpu check must catch. (Integer
// operators would do too, but they also compute the indices, which would go out of bounds.)
class MulBecomesAdd : public ir::Mutator {
protected:
  ir::Expr mutate_node(const ir::Binary *n, const ir::Expr &self) override {
    ir::Expr a = mutate(n->a), b = mutate(n->b);
    if (n->op == ir::BinaryOp::Mul && ir::is_float(n->type))
      return ir::Binary::make(ir::BinaryOp::Add, a, b);
    return a.same_as(n->a) && b.same_as(n->b) ? self : ir::Binary::make(n->op, a, b);
  }
};

TEST(Shrinker, ReducesAPlantedBugToAFewNodes) {
  CheckOptions options;
  options.cpu_jit = false;
  options.only = {"lowered:cpu"};
  options.fault = [](const ir::Stmt &s) { return MulBecomesAdd().mutate(s); };
  GeneratorOptions real; // complex numbers hide their products in expand_complex's formulas
  real.complex_fraction = 0;
  int caught = 0;
  for (uint64_t seed = 1; seed <= 40 && caught < 3; ++seed) {
    Program p = generate_program(seed, real);
    Verdict v = check_program(p, options);
    if (v.failures.empty())
      continue;
    ++caught;
    ShrinkResult small = shrink(p, v.failures[0], options);
    EXPECT_EQ(small.failure.check, "lowered:cpu");
    EXPECT_EQ(small.failure.kind, "mismatch");
    // Still failing, and small: a store of a product (or a reduction by one) is about all that
    // must remain, or a loop whose condition holds the product (the shrinker keeps a while loop
    // that a product's value decides whether it runs).
    Verdict again = check_program(small.program, options);
    EXPECT_FALSE(again.failures.empty());
    EXPECT_LE(program_size(small.program), 24) << ir::to_string(small.program.kernel);
    EXPECT_LT(program_size(small.program), program_size(p));
    std::string cpp = reproducer_cpp(small.program, "Planted", "planted");
    EXPECT_NE(cpp.find("TEST(DifferentialRegression, Planted)"), std::string::npos);
    EXPECT_TRUE(cpp.find("BinaryOp::Mul") != std::string::npos ||
                cpp.find("ReduceOp::Mul") != std::string::npos)
        << cpp;
  }
  EXPECT_GE(caught, 3) << "the planted bug went unnoticed";
}

// A planted 16-bit float bug, the rounding expand_half writes after each operation that makes an
// f16 or bf16 value left out (every such value then keeps the f32 it was computed as), must be
// caught by lowered:cpu and shrink to a small program that still has a 16-bit float value.
class DropHalfRounding : public ir::Mutator {
protected:
  ir::Expr mutate_node(const ir::Unary *n, const ir::Expr &self) override {
    ir::Expr a = mutate(n->a);
    if (ir::is_rounding(n->op))
      return a.type() == ir::ScalarType::F32 ? a : ir::Cast::make(ir::ScalarType::F32, a);
    return a.same_as(n->a) ? self : ir::Unary::make(n->op, a);
  }
};

TEST(Harness, CatchesAPlantedHalfRoundingBug) {
  PlantedFault fault;
  fault.programs.half_fraction = 1;
  fault.options = [](const Program &) {
    CheckOptions options;
    options.cpu_jit = false;
    options.only = {"lowered:cpu"};
    options.fault = [](const ir::Stmt &s) { return DropHalfRounding().mutate(s); };
    return std::optional(options);
  };
  fault.largest = 24;
  fault.expected = "ScalarType::F16|ScalarType::BF16";
  EXPECT_GE(count_caught(fault), 3) << "the planted 16-bit float bug went unnoticed";
}

// ---- complex numbers: compared part by part, each within its own bound ------------------------

// prod[i] = z[i] * w[i] and e[i] = exp(z[i]) * w[i] on c64, run by the reference with tracked
// bounds; `bounds` gets each element's (real part's, imaginary part's) bound.
struct ComplexRun {
  std::vector<ir::InterpreterArg> args;
  std::vector<std::vector<double>> bounds;
  ir::ScalarValue at(int array, int64_t k) const { return args[array].array.get(k); }
  const double *bound(int array, int64_t k) const { return &bounds[array][2 * k]; }
};

ComplexRun run_complex_products() {
  using namespace build;
  const ir::ScalarType c = ir::ScalarType::C64;
  ir::Kernel k;
  k.name = "complex_bounds";
  k.params = {array("z", c, 1), array("w", c, 1), array("prod", c, 1), array("e", c, 1)};
  Var i = make_var("i", ir::ScalarType::I64);
  Expr z = load(c, 0, {var(i)}), w = load(c, 1, {var(i)});
  k.body = pfor({i}, {extent(0, 0)},
                block({store(2, {var(i)}, bin(BinaryOp::Mul, z, w)),
                       store(3, {var(i)}, bin(BinaryOp::Mul, call(MathFn::Exp, {z}), w))}));
  ir::verify(k);
  ComplexRun r;
  // z[0] w[0]: ac = (1/3) 3 rounds to 1 and bd is 1, so the real part is 0, where a fused
  // a * c - bd is ac's rounding error: the bound must scale with |a||c|, not with the part.
  const float third = 1.0f / 3;
  r.args = {cbuffer(c, {2}, {{third, 1}, {0.5, -1.25}}), cbuffer(c, {2}, {{3, 1}, {2, 0.75}}),
            cbuffer(c, {2}, {}), cbuffer(c, {2}, {})};
  ir::InterpreterOptions options;
  options.track_uncertainty = true;
  ir::InterpreterResult result = ir::interpret(k, r.args, options);
  r.bounds = result.error_bounds;
  return r;
}

TEST(Harness, ComplexPartsHaveBoundsOfTheirOwn) {
  const ir::ScalarType c = ir::ScalarType::C64;
  ComplexRun r = run_complex_products();
  ASSERT_EQ(r.bounds[2].size(), 4u);

  // The fused product's real part, as a GPU may compute it: within the bound, though the
  // interpreter's part is 0.
  const float third = 1.0f / 3;
  const ir::ScalarValue prod = r.at(2, 0);
  ASSERT_EQ(prod.f, 0.0);
  const ir::ScalarValue fused{0, std::fmaf(third, 3.0f, -1.0f), prod.im};
  ASSERT_NE(fused.f, 0.0);
  EXPECT_EQ(outside_bound(c, prod, r.bound(2, 0), fused), "");
  EXPECT_EQ(outside_bound(c, prod, r.bound(2, 0), prod), "");

  // exp(z) w: libm's exp, cos and sin may differ by ulps, so both parts have bounds; a value
  // within them passes, one past them does not, and wrong formulas are far past them.
  const ir::ScalarValue e = r.at(3, 1);
  const double *b = r.bound(3, 1);
  ASSERT_GT(b[0], 0);
  ASSERT_GT(b[1], 0);
  ASSERT_LT(b[0], 1e-4 * std::fabs(e.f)); // a bound, not a tolerance of everything
  ASSERT_LT(b[1], 1e-4 * std::fabs(e.im));
  EXPECT_EQ(outside_bound(c, e, b, {0, e.f + b[0] / 2, e.im - b[1] / 2}), "");
  EXPECT_NE(outside_bound(c, e, b, {0, e.f + 3 * b[0], e.im}), "");
  EXPECT_NE(outside_bound(c, e, b, {0, e.f, e.im - 3 * b[1]}), "");
  EXPECT_NE(outside_bound(c, e, b, {0, e.im, e.f}), "");  // the parts swapped
  EXPECT_NE(outside_bound(c, e, b, {0, e.f, -e.im}), ""); // conj'd: the imaginary sign
  EXPECT_NE(outside_bound(c, e, b, {0, -e.f, e.im}), "");
  EXPECT_NE(outside_bound(c, e, b, {0, e.f, std::nan("")}), "");
  EXPECT_NE(outside_bound(c, {0, std::nan(""), e.im}, b, e), "");
  EXPECT_EQ(outside_bound(c, {0, std::nan(""), e.im}, b, {0, -std::nan(""), e.im}), "");
  // exp(z) w with the product's parts mixed wrongly, (ac + bd) + (ad - bc)i.
  const ir::ScalarValue z = r.at(0, 1), w = r.at(1, 1);
  const double ex = std::exp(z.f), a = ex * std::cos(z.im), bb = ex * std::sin(z.im);
  EXPECT_NE(outside_bound(c, e, b, {0, a * w.f + bb * w.im, a * w.im - bb * w.f}), "");
  EXPECT_EQ(outside_bound(c, e, b, {0, a * w.f - bb * w.im, a * w.im + bb * w.f}), "")
      << "the right formula in double precision is within the f32 bound";
}

// A planted complex bug, the imaginary parts of stored complex numbers negated (a conj too many),
// must be caught by lowered:cpu whether it compares bits or (a parallel loop reducing into a
// complex array reorders sums) within the bounds, and shrink to a small complex program.
class NegateImaginaryStores : public ir::Mutator {
public:
  explicit NegateImaginaryStores(std::set<int> complex) : complex_(std::move(complex)) {}

protected:
  ir::Stmt mutate_node(const ir::Store *n, const ir::Stmt &self) override {
    auto *part = n->indices.empty() ? nullptr : n->indices.back().as<ir::IntConst>();
    if (!complex_.count(n->array) || !part || part->value != 1)
      return self;
    return ir::Store::make(n->array, n->indices, ir::Unary::make(ir::UnaryOp::Neg, n->value));
  }

private:
  std::set<int> complex_;
};

TEST(Harness, CatchesAPlantedComplexBug) {
  PlantedFault fault;
  fault.programs.complex_fraction = 1;
  fault.options = [](const Program &p) {
    std::set<int> complex;
    for (size_t k = 0; k < p.kernel.params.size(); ++k)
      if (ir::is_complex(p.kernel.params[k].type) &&
          p.kernel.params[k].kind == ir::ParamKind::Array)
        complex.insert(static_cast<int>(k));
    CheckOptions options;
    options.cpu_jit = false;
    options.only = {"lowered:cpu"};
    options.fault = [complex](const ir::Stmt &s) {
      return NegateImaginaryStores(complex).mutate(s);
    };
    return std::optional(options);
  };
  fault.wanted = 4;
  fault.largest = 24;
  fault.expected = "cbuffer(ScalarType::C";
  int reordered = 0;
  fault.caught_one = [&](const Failure &f) {
    reordered += f.detail.find("imaginary part: allowed difference") != std::string::npos;
  };
  const int caught = count_caught(fault);
  EXPECT_GE(caught, 4) << "the planted complex bug went unnoticed";
  std::printf("[  NOTE    ] %d caught, %d of them compared within bounds\n", caught, reordered);
}

// ---- strided views ------------------------------------------------------------------------------

// In about view_fraction of the programs about half the arrays are views, of every kind the
// layouts take (transposed, stepped, reversed, broadcast, of every element type), each inside its
// buffer, with distinct elements where the kernel writes the array; the other programs have none,
// and the same kernels and arguments as without views.
TEST(Generator, StridedViewsInSomePrograms) {
  GeneratorOptions none;
  none.view_fraction = 0;
  int with_views = 0, views = 0, arrays = 0, transposed = 0, stepped = 0, reversed = 0,
      broadcast = 0;
  std::set<std::string> types;
  const int n = 1000;
  for (uint64_t seed = 1; seed <= n; ++seed) {
    Program p = generate_program(seed);
    ASSERT_EQ(invalid_views(p), "") << "seed " << seed;
    Program q = generate_program(seed, none);
    EXPECT_TRUE(q.views.empty());
    EXPECT_EQ(ir::to_string(p.kernel), ir::to_string(q.kernel));
    if (p.views.empty()) {
      for (size_t k = 0; k < p.args.size(); ++k)
        EXPECT_EQ(p.args[k].array.bytes, q.args[k].array.bytes) << "seed " << seed;
      continue;
    }
    ++with_views;
    const std::vector<bool> written = written_arrays(p.kernel);
    for (size_t k = 0; k < p.views.size(); ++k) {
      if (p.kernel.params[k].kind != ir::ParamKind::Array)
        continue;
      ++arrays;
      const ViewLayout &v = p.views[k];
      if (!v.strided())
        continue;
      ++views;
      const std::vector<int64_t> &shape = p.args[k].array.shape;
      EXPECT_TRUE(!written[k] || strided::elements_distinct(shape, v.strides)) << "seed " << seed;
      types.insert(ir::type_name(p.kernel.params[k].type));
      bool step = false, reverse = false, zero = false;
      for (size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] == 1)
          continue;
        zero |= v.strides[d] == 0;
        reverse |= v.strides[d] < 0;
        step |= d + 1 == shape.size() && std::abs(v.strides[d]) > 1;
        transposed += d + 1 < shape.size() && std::abs(v.strides[d]) < std::abs(v.strides.back());
      }
      stepped += step;
      reversed += reverse;
      broadcast += zero;
    }
  }
  EXPECT_GE(with_views, n * 0.25);
  EXPECT_LE(with_views, n * 0.35);
  EXPECT_GE(views, arrays * 0.4);
  EXPECT_LE(views, arrays * 0.6);
  EXPECT_GT(transposed, 20);
  EXPECT_GT(stepped, 50);
  EXPECT_GT(reversed, 50);
  EXPECT_GT(broadcast, 5);
  for (const char *t : {"bool", "i32", "f32", "f64", "f16", "bf16", "c64", "c128"})
    EXPECT_TRUE(types.count(t)) << "no view of " << t;
}

// A planted addressing bug: loom told each view starts one element further into its buffer than
// it does (where its buffer has an element to spare), so that every load and store goes to the
// next element. The CPU JIT's check must catch it, through wrong values or through a store
// outside the view (the padding losing its sentinel), and the shrunk reproducer keep the view.
TEST(Harness, CatchesAPlantedViewLayoutBug) {
  PlantedFault fault;
  fault.programs.view_fraction = 1;
  fault.programs.view_array_fraction = 1;
  int outside = 0, failing_anyway = 0;
  fault.options = [&](const Program &p) -> std::optional<CheckOptions> {
    EXPECT_FALSE(p.views.empty());
    CheckOptions options;
    options.passes = false;
    options.only = {"jit:cpu"};
    // Only programs that pass without the fault (the open bug of
    // DISABLED_CpuCall_ReductionIntoAStridedViewSeed1 fails some without it).
    if (!check_program(p, options).failures.empty()) {
      ++failing_anyway;
      return std::nullopt;
    }
    // The fault, restricted to views with an element to spare past their last one.
    std::vector<bool> shiftable(p.views.size(), false);
    for (size_t k = 0; k < p.views.size(); ++k) {
      if (!p.views[k].strided())
        continue;
      strided::Reach r;
      strided::reach(p.args[k].array.shape, p.views[k].strides, r);
      shiftable[k] = p.views[k].offset + r.highest + 1 < p.views[k].buffer;
    }
    options.view_fault = [shiftable](size_t param, ViewLayout &layout) {
      if (shiftable[param])
        layout.offset += 1;
    };
    return options;
  };
  fault.wanted = 4;
  fault.expected = "as_view({";
  fault.caught_one = [&](const Failure &f) {
    EXPECT_EQ(f.check, "jit:cpu");
    outside += f.detail.find("outside the view") != std::string::npos;
  };
  const int caught = count_caught(fault);
  EXPECT_GE(caught, 4) << "the planted layout bug went unnoticed";
  EXPECT_GE(outside, 1) << "no planted store outside a view was caught as one";
  std::printf(
      "[  NOTE    ] %d caught (%d outside the view); %d programs failed without the fault\n",
      caught, outside, failing_anyway);
}

} // namespace
} // namespace loom::difftest
