// The random program generator: the same program for a seed, every operator, type and
// statement reached, and complex numbers, 16-bit floats, Philox generators and strided views in
// their share of the programs.
#include "differential/Harness.h"
#include "ir/Lower.h"
#include "ir/Mutator.h"
#include "ir/Passes.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "support/StridedLayout.h"

#include <gtest/gtest.h>

#include <functional>

#include <cmath>
#include <cstdio>
#include <set>
#include <string>

namespace loom::difftest {
namespace {

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
  for (uint64_t seed = 1; seed <= 900; ++seed) {
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

// Local arrays: in about local_fraction of the programs, each written whole where its parallel
// iteration starts, then stored to and read at in-bounds indices; every such program interprets
// (no read of an unwritten element, no index out of range), and the backends agree on a share of
// them (the CPU JIT here; the differential runs compare the GPU too).
TEST(Generator, LocalArraysInSomePrograms) {
  int with_locals = 0;
  const int n = 1000;
  for (uint64_t seed = 1; seed <= n; ++seed)
    with_locals += !generate_program(seed).kernel.locals.empty();
  EXPECT_GE(with_locals, n * 0.12); // not every loop of those programs declares one
  EXPECT_LE(with_locals, n * 0.30);

  GeneratorOptions all;
  all.local_fraction = 1;
  struct Uses : ir::Visitor {
    int loads = 0, stores = 0;
    std::set<std::string> types;
    void visit_node(const ir::SharedLoad *n) override {
      loads += n->array->local();
      ir::Visitor::visit_node(n);
    }
    void visit_node(const ir::SharedStore *n) override {
      stores += n->array->local();
      types.insert(ir::type_name(n->array->type));
      ir::Visitor::visit_node(n);
    }
  } uses;
  std::set<size_t> ranks;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    Program p = generate_program(seed, all);
    for (const ir::Shared &a : p.kernel.locals)
      ranks.insert(a->extents.size());
    uses.visit(p.kernel.body);
    std::vector<ir::InterpreterArg> args = p.args;
    ir::InterpreterOptions counting = launch_options(p); // failed assertions: counted
    counting.throw_on_assert = false;
    EXPECT_NO_THROW(ir::interpret(p.kernel, args, counting)) << "seed " << seed;
    if (seed <= 40) {
      Verdict v = check_program(p, {});
      EXPECT_TRUE(v.invalid.empty()) << "seed " << seed << ": " << v.invalid;
      EXPECT_TRUE(v.failures.empty())
          << "seed " << seed << ": " << (v.failures.empty() ? "" : v.failures[0].detail);
    }
  }
  EXPECT_GT(uses.loads, 100);
  EXPECT_GT(uses.stores, 100);
  EXPECT_EQ(ranks, (std::set<size_t>{1, 2}));
  for (const char *t : {"bool", "i32", "i64", "f32", "f64", "u8", "i16", "u64"})
    EXPECT_TRUE(uses.types.count(t)) << "no generated program has a local array of " << t;
}

// Philox generators (frontend/PhiloxIR.h): in about philox_fraction of the programs, with draws
// of every kind (a generator's locals are named after it: g7_key0, g7_word, g7_normal, ...); the
// other programs are the ones their seeds gave before generators were generated.
TEST(Generator, PhiloxGeneratorsInSomePrograms) {
  auto has = [](const std::string &ir, const char *part) {
    return ir.find(part) != std::string::npos;
  };
  GeneratorOptions none;
  none.philox_fraction = 0;
  int with_generators = 0, changed = 0;
  const int n = 1000;
  for (uint64_t seed = 1; seed <= n; ++seed) {
    const std::string p = ir::to_string(generate_program(seed).kernel);
    const std::string q = ir::to_string(generate_program(seed, none).kernel);
    with_generators += has(p, "_key0");
    EXPECT_FALSE(has(q, "_key0")) << "seed " << seed;
    changed += p != q;
  }
  EXPECT_GE(with_generators, n * 0.10);
  EXPECT_LE(changed, n * 0.20);
  std::printf("[  NOTE    ] %d of %d programs have Philox generators, %d changed by them\n",
              with_generators, n, changed);

  GeneratorOptions all;
  all.philox_fraction = 1;
  int kinds[6] = {};
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    Program p = generate_program(seed, all);
    const std::string ir = ir::to_string(p.kernel);
    // Raw words, uniforms of both types, normals, randint on 32-bit and 64-bit ranges.
    kinds[0] += has(ir, "_word");
    kinds[1] += has(ir, ">> 8u32)");  // the top 24 bits of a word: an f32 uniform or normal
    kinds[2] += has(ir, ">> 11u32)"); // the low 21 of 53 bits: an f64 uniform or normal
    kinds[3] += has(ir, "_normal");
    kinds[4] += has(ir, "_range32");
    kinds[5] += has(ir, "_x"); // a 64-bit draw of a randint over more than 2^32 values
  }
  for (int k = 0; k < 6; ++k)
    EXPECT_GT(kinds[k], 10) << "draw kind " << k;
}

// Assertions: in about assert_fraction of the programs, some failing and some not; the backends
// agree on the count of failures (or on the arrays when none failed).
TEST(Generator, AssertionsInSomePrograms) {
  GeneratorOptions none;
  none.assert_fraction = 0;
  int with_asserts = 0, changed = 0;
  const int n = 1000;
  for (uint64_t seed = 1; seed <= n; ++seed) {
    const Program p = generate_program(seed);
    with_asserts += !p.kernel.assert_sites.empty();
    changed += ir::to_string(p.kernel) != ir::to_string(generate_program(seed, none).kernel);
  }
  EXPECT_GE(with_asserts, n * 0.08);
  EXPECT_LE(changed, n * 0.20);

  GeneratorOptions all;
  all.assert_fraction = 1;
  int failing = 0, passing = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    Program p = generate_program(seed, all);
    if (p.kernel.assert_sites.empty())
      continue;
    std::vector<ir::InterpreterArg> args = p.args;
    ir::InterpreterOptions io = launch_options(p);
    io.throw_on_assert = false;
    (ir::interpret(p.kernel, args, io).assert_failures > 0 ? failing : passing)++;
    if (seed <= 30) {
      Verdict v = check_program(p, {});
      EXPECT_TRUE(v.invalid.empty()) << "seed " << seed << ": " << v.invalid;
      EXPECT_TRUE(v.failures.empty())
          << "seed " << seed << ": "
          << (v.failures.empty() ? "" : v.failures[0].check + ": " + v.failures[0].detail);
    }
  }
  EXPECT_GT(failing, 5);
  EXPECT_GT(passing, 5);
  std::printf("[  NOTE    ] %d of %d programs have assertions; with them in all, %d failed and "
              "%d did not\n",
              with_asserts, n, failing, passing);
}

// SIMT kernels: in about simt_fraction of the programs, with static and dynamic shared arrays and
// launches of several blocks; the backends agree on them.
TEST(Generator, SimtKernelsInSomePrograms) {
  int simt = 0;
  const int n = 1000;
  for (uint64_t seed = 1; seed <= n; ++seed)
    simt += generate_program(seed).kernel.simt();
  EXPECT_GE(simt, n * 0.06);
  EXPECT_LE(simt, n * 0.14);

  GeneratorOptions all;
  all.simt_fraction = 1;
  all.mma_fraction = 0; // the shared-array kernels only (the next test has the others)
  int dynamic = 0, blocks = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    Program p = generate_program(seed, all);
    ASSERT_TRUE(p.kernel.simt());
    ASSERT_EQ(p.kernel.shared.size(), 1u);
    dynamic += p.kernel.shared[0]->dynamic;
    EXPECT_EQ(p.dynamic_shared_bytes > 0, p.kernel.shared[0]->dynamic);
    blocks += p.simt_grid > 1;
    Verdict v = check_program(p, {});
    EXPECT_TRUE(v.invalid.empty()) << "seed " << seed << ": " << v.invalid;
    EXPECT_TRUE(v.failures.empty())
        << "seed " << seed << ": "
        << (v.failures.empty() ? "" : v.failures[0].check + ": " + v.failures[0].detail);
  }
  EXPECT_GT(dynamic, 5);
  EXPECT_GT(blocks, 5);
}

// SIMT kernels on the tensor cores: about mma_fraction of the SIMT ones, each with one ir::Mma
// over f16 or bf16 shared arrays; the interpreter and the CPU (each lane's elements) agree within
// the bound the interpreter carries for the reordered sums, and the PTX assembles.
TEST(Generator, MmaKernelsInSomeSimtPrograms) {
  GeneratorOptions simt;
  simt.simt_fraction = 1;
  int mma = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed)
    mma += generate_program(seed, simt).kernel.shared.size() == 2;
  EXPECT_GE(mma, 400 * 0.2);
  EXPECT_LE(mma, 400 * 0.4);
  simt.mma_fraction = 1;
  int bf16 = 0, warps2 = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    Program p = generate_program(seed, simt);
    ASSERT_EQ(p.kernel.shared.size(), 2u);
    EXPECT_NE(ir::to_string(p.kernel).find("mma.m16n8k16"), std::string::npos);
    bf16 += p.kernel.shared[0]->type == ir::ScalarType::BF16;
    warps2 += p.simt_block == 64;
    Verdict v = check_program(p, {});
    EXPECT_TRUE(v.invalid.empty()) << "seed " << seed << ": " << v.invalid;
    EXPECT_TRUE(v.failures.empty())
        << "seed " << seed << ": "
        << (v.failures.empty() ? "" : v.failures[0].check + ": " + v.failures[0].detail);
  }
  EXPECT_GT(bf16, 5);
  EXPECT_GT(warps2, 5);
}

// Tracking uncertainty (for the GPU comparison) must not change what the reference computes:
// every other check compares with the tracked run.
TEST(Generator, TrackedAndPlainInterpreterRunsAgree) {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    Program p = generate_program(seed);
    std::vector<ir::InterpreterArg> plain = p.args, tracked = p.args;
    ir::InterpreterOptions options = launch_options(p); // failed assertions: counted
    options.throw_on_assert = false;
    ir::interpret(p.kernel, plain, options);
    options.track_uncertainty = true;
    ir::interpret(p.kernel, tracked, options);
    for (size_t k = 0; k < plain.size(); ++k)
      ASSERT_EQ(plain[k].array.bytes, tracked[k].array.bytes) << "seed " << seed;
  }
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

// Programs 1 to 60 drawn with a form always (`all`) and never (`none`): at least 10 take the form
// (`has` of the program), and those agree on every backend; at least 70% of the usual draws
// (the form drawn apart) are the programs their seeds gave without it.
void check_drawn_form(const GeneratorOptions &all, const GeneratorOptions &none,
                      const std::function<bool(const Program &)> &has) {
  int taken = 0, same = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    GeneratorOptions usual;
    const std::string with = ir::to_string(generate_program(seed, usual).kernel);
    const std::string without = ir::to_string(generate_program(seed, none).kernel);
    same += with == without;
    Program p = generate_program(seed, all);
    if (!has(p))
      continue;
    ++taken;
    Verdict v = check_program(p, {});
    EXPECT_TRUE(v.invalid.empty()) << "seed " << seed << ": " << v.invalid;
    EXPECT_TRUE(v.failures.empty())
        << "seed " << seed << ": "
        << (v.failures.empty() ? "" : v.failures[0].check + ": " + v.failures[0].detail);
  }
  EXPECT_GE(taken, 10);
  EXPECT_GE(same, 60 * 0.7);
}

// Some programs end with a loop of the matmul form, which the CPU lowering (128-bit vectors, as
// the harness lowers) runs in register blocks of its own choosing; those programs agree on every
// backend. Programs that did not draw one are those their seeds gave before.
TEST(Generator, MatmulLoopsInSomePrograms) {
  GeneratorOptions none, all;
  none.matmul_fraction = 0;
  all.matmul_fraction = 1;
  all.simt_fraction = 0;
  check_drawn_form(all, none, [](const Program &p) {
    ir::LoweredKernel l = ir::lower(p.kernel, ir::Target::CPU, nullptr,
                                    {.cpu_vector_bits = 128, .cpu_vector_registers = 16});
    bool tiled = false;
    for (const ir::Task &t : l.tasks)
      tiled = tiled || (t.tile.rows > 0 && !t.auto_schedule.empty());
    return tiled;
  });
}

// Some programs end with a 2-D loop whose iterations along a constant innermost dimension read the
// same elements in a loop, which the GPU's lowering stages in shared memory once a block
// (ir/StageBlockReads.cpp); the harness runs that lowering in the interpreter, races checked.
TEST(Generator, SharedReadsInSomePrograms) {
  GeneratorOptions none, all;
  none.shared_reads_fraction = 0;
  all.shared_reads_fraction = 1;
  all.simt_fraction = 0;
  check_drawn_form(all, none, [](const Program &p) {
    const ir::LoweredKernel l = ir::lower(p.kernel, ir::Target::GPU);
    bool staged = false;
    for (const ir::Task &t : l.tasks)
      staged = staged || !t.block_reads.empty();
    return staged;
  });
}

// Some programs end with a task loop around a 1-D stencil, which the GPU's lowering runs 16 steps
// a launch (ir/StepsPerLaunch.cpp); those programs agree on every backend (the harness runs the
// GPU's lowering in the interpreter, races checked). Programs that did not draw one are those
// their seeds gave before.
TEST(Generator, StencilLoopsInSomePrograms) {
  GeneratorOptions none, all;
  none.stencil_fraction = 0;
  all.stencil_fraction = 1;
  all.simt_fraction = 0;
  check_drawn_form(all, none, [](const Program &p) {
    const ir::LoweredKernel l = ir::lower(p.kernel, ir::Target::GPU);
    bool steps = false;
    for (const ir::Task &t : l.tasks)
      steps = steps || !t.steps_per_launch.empty();
    return steps;
  });
}

} // namespace
} // namespace loom::difftest
