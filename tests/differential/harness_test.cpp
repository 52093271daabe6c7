// The differential harness and its shrinker, on planted faults: a fault in a lowering stage or in
// a view's layout must be caught as a mismatch and shrunk to a small reproducer; complex parts
// are compared each within its own bound.
#include "differential/Build.h"
#include "differential/Harness.h"
#include "differential/Reproducer.h"
#include "ir/Mutator.h"
#include "ir/Passes.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "support/StridedLayout.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <set>
#include <string>

namespace loom::difftest {
namespace {

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

// Drops every print statement's last item: the printed lines differ from the reference's, which
// the harness compares as sorted lists.
class DropLastPrintItem : public ir::Mutator {
protected:
  ir::Stmt mutate_node(const ir::Print *n, const ir::Stmt &) override {
    std::vector<ir::PrintItem> items = n->items;
    if (items.size() > 1)
      items.pop_back();
    return ir::Print::make(std::move(items));
  }
};

TEST(Harness, CatchesAPlantedPrintBug) {
  PlantedFault fault;
  fault.programs.print_fraction = 1;
  fault.options = [](const Program &) {
    CheckOptions options;
    options.cpu_jit = false;
    options.only = {"lowered:cpu"};
    options.fault = [](const ir::Stmt &s) { return DropLastPrintItem().mutate(s); };
    return std::optional(options);
  };
  fault.expected = "print({text(";
  fault.caught_one = [](const Failure &f) {
    EXPECT_NE(f.detail.find("printed"), std::string::npos) << f.detail;
  };
  EXPECT_GE(count_caught(fault), 3) << "the planted print bug went unnoticed";
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

TEST(Harness, CatchesAPlantedViewLayoutBug) {
  PlantedFault fault;
  fault.programs.view_fraction = 1;
  fault.programs.view_array_fraction = 1;
  fault.programs.simt_fraction = 0; // SIMT programs take no views
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
