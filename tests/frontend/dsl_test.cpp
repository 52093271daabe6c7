// Tracing the embedded C++ DSL: types, promotion, control flow and misuse.
#include "frontend/DSL.h"
#include "ir/Printer.h"
#include "support/Error.h"

#include <gtest/gtest.h>

#include <type_traits>

using namespace loom;

namespace {

template <class X, class T> constexpr bool has_type = std::is_same_v<X, Value<T>>;

TEST(Promotion, FollowsCppBetweenDslValues) {
  trace("p",
        [](I32 a, I64 b, F32 f, F64 d, Bool c) {
          static_assert(has_type<decltype(a + b), int64_t>);
          static_assert(has_type<decltype(a + f), float>);
          static_assert(has_type<decltype(f + d), double>);
          static_assert(has_type<decltype(c + c), int32_t>);
          static_assert(has_type<decltype(a < f), bool>);
          static_assert(has_type<decltype(a << b), int32_t>); // shifts take the left operand's type
          static_assert(has_type<decltype(c & c), bool>);
          static_assert(has_type<decltype(-c), int32_t>);
          static_assert(has_type<decltype(sqrt(a)), double>); // math on integers is done in f64
          static_assert(has_type<decltype(abs(a)), int32_t>);
          static_assert(has_type<decltype(select(c, c, c)), bool>); // nothing computed on the bools
          static_assert(has_type<decltype(fma(d, d, f)), double>);  // typed as d * d + f
          static_assert(has_type<decltype(fma(2.0, 3.0, f)), float>); // a literal product is weak
          // The promotion is an explicit cast in the IR.
          EXPECT_EQ(ir::to_string((a + f).expr()), "f32(a) + f");
        },
        {"a", "b", "f", "d", "c"});
}

TEST(Promotion, LiteralsAreWeaklyTyped) {
  trace("l",
        [](F32 f, I32 i, I64 n) {
          static_assert(has_type<decltype(f * 2.0), float>); // stays f32, unlike C++
          static_assert(has_type<decltype(2 * f), float>);
          static_assert(has_type<decltype(n + 1), int64_t>);
          static_assert(has_type<decltype(i + int64_t(1)), int32_t>);
          static_assert(has_type<decltype(i * 0.5), double>); // an integer with a floating literal
          static_assert(has_type<decltype(i * 0.5f), float>);
          EXPECT_EQ(ir::to_string((f * 2.0).expr()), "f * 2.0f");
        },
        {"f", "i", "n"});
}

TEST(Trace, ParametersInOrderWithTheirKinds) {
  ir::Kernel k = trace("k", [](Array3<double> a, I64 n, Array<bool> m) {}, {"a", "n", "m"});
  ASSERT_EQ(k.params.size(), 3u);
  EXPECT_EQ(k.params[0].kind, ir::ParamKind::Array);
  EXPECT_EQ(k.params[0].rank, 3);
  EXPECT_EQ(k.params[0].type, ir::ScalarType::F64);
  EXPECT_EQ(k.params[1].kind, ir::ParamKind::Scalar);
  EXPECT_EQ(k.params[1].type, ir::ScalarType::I64);
  EXPECT_EQ(k.params[2].type, ir::ScalarType::Bool);
  EXPECT_THROW(trace("k", [](I64 n) {}, {"a", "b"}), DslError);
}

TEST(Trace, ControlFlowBecomesIR) {
  ir::Kernel k =
      trace("cf",
            [](Array<int32_t> out, I32 limit) {
              parallel_for(out.size(), [&](Index i) {
                Var<int32_t> it("it", 0);
                while_(it < limit, [&] { it += 1; });
                if_(it == limit, [&] { out[i] = 1; }).elif_(it > 2, [&] { out[i] = 2; }).else_([&] {
                  out[i] = 3;
                });
                for_range(2, 10, 3, [&](Index k) { out[i] += cast<int32_t>(k); });
              });
            },
            {"out", "limit"});
  EXPECT_EQ(ir::to_string(k), "kernel cf(out: i32[?], limit: i32) {\n"
                              "  parallel for i in (out.shape[0]) {\n"
                              "    var it: i32 = 0i32\n"
                              "    while it < limit {\n"
                              "      it = it + 1i32\n"
                              "    }\n"
                              "    if it == limit {\n"
                              "      out[i] = 1i32\n"
                              "    } else {\n"
                              "      if it > 2i32 {\n"
                              "        out[i] = 2i32\n"
                              "      } else {\n"
                              "        out[i] = 3i32\n"
                              "      }\n"
                              "    }\n"
                              "    for k in 2 .. 10 step 3 {\n"
                              "      out[i] += i32(k)\n"
                              "    }\n"
                              "  }\n"
                              "}\n");
}

TEST(Trace, HelperFunctionsAreInlined) {
  auto sq = [](F32 x) { return x * x; };
  ir::Kernel k = trace(
      "h",
      [&](Array<float> x) { parallel_for(x.size(), [&](Index i) { x[i] = sq(x[i]) + sq(2.0f); }); },
      {"x"});
  EXPECT_NE(ir::to_string(k).find("x[i] = x[i] * x[i] + 2.0f * 2.0f"), std::string::npos)
      << ir::to_string(k);
}

TEST(Trace, MultiDimensionalParallelLoopsAndShapes) {
  ir::Kernel k =
      trace("s",
            [](Array3<float> a) {
              parallel_for({a.dim(0), a.dim(1), a.dim(2)},
                           [&](Index i, Index j, Index l) { a(i, j, l) = cast<float>(a.size()); });
            },
            {"a"});
  EXPECT_NE(ir::to_string(k).find("parallel for i, j, k in (a.shape[0], a.shape[1], a.shape[2])"),
            std::string::npos);
  EXPECT_NE(ir::to_string(k).find("a.shape[0] * a.shape[1] * a.shape[2]"), std::string::npos);
}

TEST(Misuse, DslOutsideAKernelIsATypedError) {
  EXPECT_THROW(Var<float>(1.0f), DslError);
  EXPECT_THROW(for_range(3, [](Index) {}), DslError);
}

TEST(Misuse, WrongParallelArityAndBadDimension) {
  EXPECT_THROW(trace("a",
                     [](Array<float> x) {
                       parallel_for({x.dim(0), x.dim(0)}, [&](Index i) {});
                     }),
               DslError);
  EXPECT_THROW(trace("b", [](Array<float> x) { x.dim(1); }), DslError);
}

TEST(Misuse, ElseMustFollowItsIf) {
  EXPECT_THROW(trace("c",
                     [](Array<float> x) {
                       parallel_for(x.size(), [&](Index i) {
                         auto chain = if_(x[i] > 0.0f, [&] { x[i] = 0.0f; });
                         x[i] = 2.0f;
                         chain.else_([&] { x[i] = 1.0f; });
                       });
                     }),
               DslError);
}

} // namespace
