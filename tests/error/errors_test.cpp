// Each user error is a typed exception whose message says what was expected and what was given.
#include "support/TestUtil.h"

#include <cstdlib>

using namespace loom;

namespace {

template <class E, class F> std::string message_of(F &&f) {
  try {
    f();
  } catch (const E &e) {
    return e.what();
  } catch (const std::exception &e) {
    return std::string("wrong exception type: ") + e.what();
  }
  return "no exception";
}

#define EXPECT_ERROR(Type, expr, text)                                                             \
  do {                                                                                             \
    std::string m = message_of<Type>([&] { expr; });                                               \
    EXPECT_NE(m.find(text), std::string::npos) << "message: " << m;                                \
  } while (0)

Kernel saxpy() {
  return kernel("saxpy",
                [](F32 a, Array<float> x, Array<float> y) {
                  parallel_for(x.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
                },
                {"a", "x", "y"});
}

class Errors : public ::testing::Test {
protected:
  void SetUp() override { setenv("LOOM_TARGET", "cpu", 1); }
  void TearDown() override { unsetenv("LOOM_TARGET"); }
};

TEST_F(Errors, WrongArgumentCount) {
  std::vector<float> x(4), y(4);
  EXPECT_ERROR(
      ArgumentError, saxpy()(x, y),
      "kernel saxpy(a: f32, x: f32[?], y: f32[?]) takes 3 arguments but was called with 2");
}

TEST_F(Errors, ArrayWhereScalarExpected) {
  std::vector<float> x(4), y(4);
  EXPECT_ERROR(ArgumentError, saxpy()(x, x, y),
               "argument 1 ('a') of kernel 'saxpy' must be a scalar f32; got a host array of f32 "
               "with shape [4]");
}

TEST_F(Errors, WrongElementType) {
  std::vector<double> x(4);
  std::vector<float> y(4);
  EXPECT_ERROR(ArgumentError, saxpy()(1.0f, x, y),
               "argument 2 ('x') of kernel 'saxpy' must be an array of f32 with rank 1; got a host "
               "array of f64 with shape [4]");
}

TEST_F(Errors, ScalarWhereArrayExpected) {
  std::vector<float> y(4);
  EXPECT_ERROR(ArgumentError, saxpy()(1.0f, 2.0f, y),
               "must be an array of f32 with rank 1; got a scalar f32");
}

TEST_F(Errors, WrongRankSuggestsView) {
  auto k =
      kernel("t", [](Array2<float> a) { parallel_for(a.dim(0), [&](Index i) { a(i, 0) = 1.0f; }); },
             {"a"});
  std::vector<float> a(16);
  EXPECT_ERROR(ArgumentError, k(a),
               "must be an array of f32 with rank 2; got a host array of f32 with shape [16] (pass "
               "a std::vector as a 2-D array with loom::view(v, {extents...}))");
  EXPECT_ERROR(ArgumentError, k(view(a, {2, 2, 4})),
               "with rank 2; got a host array of f32 with shape [2, 2, 4]");
}

TEST_F(Errors, ConstArrayThatTheKernelWrites) {
  std::vector<float> x(4);
  const std::vector<float> y(4);
  EXPECT_ERROR(ArgumentError, saxpy()(1.0f, x, y),
               "argument 3 ('y') of kernel 'saxpy' is a const array, but the kernel writes 'y'");
}

TEST_F(Errors, OverlappingArrays) {
  std::vector<float> x(4);
  EXPECT_ERROR(ArgumentError, saxpy()(1.0f, x, x),
               "arguments 'y' and 'x' of kernel 'saxpy' overlap, and the kernel writes 'y'");
}

TEST_F(Errors, NegativeExtent) {
  std::vector<float> x(4), y(4);
  EXPECT_ERROR(ArgumentError, saxpy()(1.0f, view(x.data(), {-4}), y),
               "has a negative extent in shape [-4]");
  EXPECT_ERROR(ArgumentError, saxpy()(1.0f, view(x, {-4}), y),
               "loom::view: shape [-4] does not hold the vector's 4 elements (an extent is "
               "negative)");
}

TEST_F(Errors, ViewOfAVectorWithTheWrongElementCount) {
  std::vector<float> x(12);
  EXPECT_ERROR(ArgumentError, view(x, {5, 3}),
               "loom::view: shape [5, 3] does not hold the vector's 12 elements: it holds 15");
  EXPECT_ERROR(ArgumentError, view(x, {int64_t(1) << 40, int64_t(1) << 40}),
               "loom::view: shape [1099511627776, 1099511627776] does not hold the vector's 12 "
               "elements (its element count overflows)");
}

TEST_F(Errors, UnknownTarget) {
  setenv("LOOM_TARGET", "tpu", 1);
  std::vector<float> x(4), y(4);
  EXPECT_ERROR(TargetError, saxpy()(1.0f, x, y),
               "LOOM_TARGET='tpu' is not a target; expected auto, gpu or cpu");
}

TEST_F(Errors, GpuRequestedWithoutGpu) {
  std::string why;
  if (runtime::GpuContext::usable(&why))
    GTEST_SKIP() << "a GPU is usable here; this test needs a machine without one";
  setenv("LOOM_TARGET", "gpu", 1);
  std::vector<float> x(4), y(4);
  EXPECT_ERROR(TargetError, saxpy()(1.0f, x, y), "LOOM_TARGET=gpu but no GPU is usable: " + why);
  EXPECT_ERROR(TargetError, saxpy().on(ir::Target::GPU), "no GPU is usable");
}

TEST_F(Errors, AutoFallsBackToCpuAndSaysWhy) {
  std::string why;
  if (runtime::GpuContext::usable(&why))
    GTEST_SKIP() << "a GPU is usable here";
  setenv("LOOM_TARGET", "auto", 1);
  Kernel k = saxpy();
  std::vector<float> x(4, 1.0f), y(4, 1.0f);
  k(2.0f, x, y);
  EXPECT_EQ(y[3], 3.0f);
  EXPECT_NE(k.explain().find("target: CPU"), std::string::npos);
  EXPECT_NE(k.explain().find("because no usable GPU: " + why), std::string::npos) << k.explain();
}

TEST_F(Errors, IllFormedKernelsAreRejectedWhenCompiled) {
  auto k = kernel("nested", [](Array<float> x) {
    parallel_for(x.size(), [&](Index i) { parallel_for(x.size(), [&](Index j) { x[j] = 0.0f; }); });
  });
  std::vector<float> x(4);
  EXPECT_ERROR(VerifyError, k(x),
               "a parallel loop inside another parallel loop; use for_range for the inner loop");
}

TEST_F(Errors, DslOutsideKernel) {
  EXPECT_ERROR(DslError, Var<float>(1.0f), "outside a kernel body");
}

TEST_F(Errors, ErrorsLeaveTheKernelUsable) {
  Kernel k = saxpy();
  std::vector<float> x(8, 1.0f), y(8, 1.0f), wrong(3);
  EXPECT_THROW(k(1.0f, x), ArgumentError);
  EXPECT_THROW(k(1.0f, wrong, wrong), ArgumentError);
  k(3.0f, x, y);
  EXPECT_EQ(y[7], 4.0f);
}

} // namespace
