// Complex numbers in the IR: their expansion into parts (ir/ExpandComplex.cpp), run by the
// interpreter before and after lowering for either target, against std::complex<double>.
#include "ir/Interpreter.h"
#include "ir/Lower.h"
#include "ir/Passes.h"
#include "ir/Verifier.h"
#include "support/Error.h"

#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <random>

using namespace loom;
using namespace loom::ir;

namespace {

constexpr auto C64 = ScalarType::C64;
constexpr auto C128 = ScalarType::C128;
constexpr auto I64 = ScalarType::I64;

Expr i64(int64_t v) {
  return IntConst::make(I64, v);
}

// out[i] = f(z[i], w[i], s) over a parallel loop, for arrays of type t and a scalar s of type t.
Kernel elementwise(ScalarType t, const std::function<Expr(Expr, Expr, Expr)> &f) {
  Kernel k;
  k.name = "complex_elementwise";
  Var s = make_var("s", t);
  k.params = {{"z", ParamKind::Array, t, 1, nullptr},
              {"w", ParamKind::Array, t, 1, nullptr},
              {"out", ParamKind::Array, t, 1, nullptr},
              {"s", ParamKind::Scalar, t, 0, s}};
  Var i = make_var("i", I64);
  Expr z = Load::make(t, 0, {VarRef::make(i)}), w = Load::make(t, 1, {VarRef::make(i)});
  Stmt body = Store::make(2, {VarRef::make(i)}, f(z, w, VarRef::make(s)));
  k.body = ParallelFor::make({i}, {ArrayExtent::make(0, 0)}, body);
  return k;
}

template <class F> Buffer buffer_of(ScalarType t, const std::vector<std::complex<F>> &v) {
  Buffer b(t, {static_cast<int64_t>(v.size())});
  std::memcpy(b.data(), v.data(), v.size() * sizeof(v[0]));
  return b;
}

template <class F> std::complex<F> element(const Buffer &b, size_t k) {
  std::complex<F> c;
  std::memcpy(&c, b.bytes.data() + k * sizeof(c), sizeof(c));
  return c;
}

struct Case {
  const char *name;
  std::function<Expr(Expr, Expr, Expr)> ir;
  std::function<std::complex<double>(std::complex<double>, std::complex<double>,
                                     std::complex<double>)>
      reference;
  // For c64, relative to the reference's magnitude (plus that much absolutely); c128 takes 1e-8
  // of it. The inputs are those the kernel sees (rounded to c64 for c64).
  double tolerance;
};

std::vector<Case> cases() {
  auto bin = [](BinaryOp op) {
    return [op](Expr a, Expr b, Expr) { return Binary::make(op, a, b); };
  };
  auto fn = [](MathFn f) { return [f](Expr a, Expr, Expr) { return Call::make(f, {a}); }; };
  using C = std::complex<double>;
  return {
      {"add", bin(BinaryOp::Add), [](C a, C b, C) { return a + b; }, 1e-6},
      {"sub", bin(BinaryOp::Sub), [](C a, C b, C) { return a - b; }, 1e-6},
      {"mul", bin(BinaryOp::Mul), [](C a, C b, C) { return a * b; }, 1e-6},
      {"div", bin(BinaryOp::Div), [](C a, C b, C) { return a / b; }, 1e-6},
      {"scalar", [](Expr a, Expr, Expr s) { return Binary::make(BinaryOp::Mul, a, s); },
       [](C a, C, C s) { return a * s; }, 1e-6},
      {"neg", [](Expr a, Expr, Expr) { return Unary::make(UnaryOp::Neg, a); },
       [](C a, C, C) { return -a; }, 0},
      {"conj", fn(MathFn::Conj), [](C a, C, C) { return std::conj(a); }, 0},
      {"exp", fn(MathFn::Exp), [](C a, C, C) { return std::exp(a); }, 1e-5},
      {"log", fn(MathFn::Log), [](C a, C, C) { return std::log(a); }, 1e-5},
      {"sqrt", fn(MathFn::Sqrt), [](C a, C, C) { return std::sqrt(a); }, 1e-5},
      {"sin", fn(MathFn::Sin), [](C a, C, C) { return std::sin(a); }, 1e-5},
      {"cos", fn(MathFn::Cos), [](C a, C, C) { return std::cos(a); }, 1e-5},
      {"tanh", fn(MathFn::Tanh), [](C a, C, C) { return std::tanh(a); }, 1e-5},
      {"pow",
       [](Expr a, Expr b, Expr) {
         return Call::make(MathFn::Pow, {a, b});
       },
       [](C a, C b, C) { return std::pow(a, b); }, 1e-4},
      {"abs as real part",
       [](Expr a, Expr, Expr) {
         Expr m = Call::make(MathFn::Abs, {a});
         return Call::make(MathFn::Complex, {m, Call::make(MathFn::Imag, {a})});
       },
       [](C a, C, C) { return C(std::abs(a), a.imag()); }, 1e-6},
      {"select on ==",
       [](Expr a, Expr b, Expr) { return Select::make(Binary::make(BinaryOp::Eq, a, a), b, a); },
       [](C, C b, C) { return b; }, 0},
  };
}

// Every case on c64 and c128, from the kernel as built and from its CPU and GPU lowerings.
TEST(Complex, EveryOperationMatchesStdComplex) {
  std::mt19937 rng(20261202);
  std::uniform_real_distribution<double> d(-3, 3);
  const size_t n = 97;
  for (ScalarType t : {C64, C128}) {
    std::vector<std::complex<double>> z(n), w(n);
    for (size_t k = 0; k < n; ++k)
      z[k] = {d(rng), d(rng)}, w[k] = {d(rng), d(rng)};
    const std::complex<double> s(0.75, -1.25);
    for (const Case &c : cases()) {
      SCOPED_TRACE(std::string(c.name) + " on " + type_name(t));
      Kernel k = elementwise(t, c.ir);
      verify(k);
      for (int variant = 0; variant < 3; ++variant) {
        std::vector<InterpreterArg> args;
        if (t == C64) {
          std::vector<std::complex<float>> zf(z.begin(), z.end()), wf(w.begin(), w.end());
          args.push_back(InterpreterArg::of_array(buffer_of(t, zf)));
          args.push_back(InterpreterArg::of_array(buffer_of(t, wf)));
          args.push_back(InterpreterArg::of_array(Buffer(t, {static_cast<int64_t>(n)})));
        } else {
          args.push_back(InterpreterArg::of_array(buffer_of(t, z)));
          args.push_back(InterpreterArg::of_array(buffer_of(t, w)));
          args.push_back(InterpreterArg::of_array(Buffer(t, {static_cast<int64_t>(n)})));
        }
        ScalarValue sv;
        sv.f = s.real(), sv.im = s.imag();
        args.push_back(InterpreterArg::of_scalar(sv));
        if (variant == 0)
          interpret(k, args);
        else
          interpret(lower(k, variant == 1 ? Target::CPU : Target::GPU), args);
        ASSERT_EQ(args.size(), 4u); // the run's own arguments are gone again
        ASSERT_EQ(args[2].array.type, t);
        for (size_t j = 0; j < n; ++j) {
          std::complex<double> got = t == C64
                                         ? std::complex<double>(element<float>(args[2].array, j))
                                         : element<double>(args[2].array, j);
          auto input = [&](int a) { // as the kernel sees it
            return t == C64 ? std::complex<double>(element<float>(args[a].array, j))
                            : element<double>(args[a].array, j);
          };
          std::complex<double> want = c.reference(input(0), input(1), s);
          double tol = c.tolerance * (t == C64 ? 1 : 1e-8) * (1 + std::abs(want));
          ASSERT_NEAR(got.real(), want.real(), tol) << "element " << j << " variant " << variant;
          ASSERT_NEAR(got.imag(), want.imag(), tol) << "element " << j << " variant " << variant;
        }
      }
    }
  }
}

TEST(Complex, ExpansionMakesPartsOfParameters) {
  Kernel k =
      elementwise(C64, [](Expr a, Expr b, Expr) { return Binary::make(BinaryOp::Add, a, b); });
  Kernel e = expand_complex(k);
  ASSERT_EQ(e.params.size(), 5u);
  EXPECT_EQ(e.params[0].type, ScalarType::F32);
  EXPECT_EQ(e.params[0].rank, 2);
  EXPECT_EQ(e.params[0].part, ComplexPart::Parts);
  EXPECT_EQ(e.params[3].part, ComplexPart::Real);
  EXPECT_EQ(e.params[4].part, ComplexPart::Imag);
  EXPECT_EQ(e.params[4].of, 3);
  verify(e);
  // A kernel without complex numbers is returned as it is.
  Kernel r = k;
  r.params = {{"x", ParamKind::Array, ScalarType::F32, 1, nullptr}};
  Var i = make_var("i", I64);
  r.body =
      ParallelFor::make({i}, {ArrayExtent::make(0, 0)},
                        Store::make(0, {VarRef::make(i)}, FloatConst::make(ScalarType::F32, 1)));
  EXPECT_TRUE(expand_complex(r).body.same_as(r.body));
}

TEST(Complex, AComplexProductIntoASharedElementIsRefused) {
  Kernel k;
  k.name = "shared_product";
  k.params = {{"z", ParamKind::Array, C64, 1, nullptr}, {"p", ParamKind::Array, C64, 1, nullptr}};
  Var i = make_var("i", I64);
  k.body = ParallelFor::make(
      {i}, {ArrayExtent::make(0, 0)},
      Reduce::make(ReduceOp::Mul, 1, {i64(0)}, Load::make(C64, 0, {VarRef::make(i)})));
  try {
    expand_complex(k);
    FAIL() << "expected a VerifyError";
  } catch (const VerifyError &e) {
    EXPECT_NE(std::string(e.what()).find("'p' is multiplied into"), std::string::npos) << e.what();
  }
}

TEST(Complex, TypeRulesRefuseWhatComplexNumbersLack) {
  Expr z = FloatConst::make(ScalarType::F32, 1);
  Expr c = Call::make(MathFn::Complex, {z, z});
  EXPECT_EQ(c.type(), C64);
  EXPECT_EQ(Call::make(MathFn::Abs, {c}).type(), ScalarType::F32);
  EXPECT_EQ(promote(C64, ScalarType::F64), C128);
  EXPECT_EQ(promote(C64, ScalarType::I64), C64);
  EXPECT_THROW(Binary::make(BinaryOp::Lt, c, c), VerifyError);
  EXPECT_THROW(Binary::make(BinaryOp::BitAnd, c, c), VerifyError);
  EXPECT_THROW(Call::make(MathFn::Atan2, {c, c}), VerifyError);
  EXPECT_THROW(Call::make(MathFn::Floor, {c}), VerifyError);
  EXPECT_THROW(Reduce::make(ReduceOp::Max, 0, {i64(0)}, c), VerifyError);
}

} // namespace
