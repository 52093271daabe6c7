// Kernel::on(DeviceSet): a call split among devices gives the single-device call's results (bit
// for bit: every element is computed by the same operations; reductions are checked on exact
// integer or min/max data), on logical devices of the CPU (in CI), on two logical devices of one
// GPU and on all_gpus() (skipped, saying why, without a GPU). Kernels a split cannot take are a
// CompileError saying why; explain() shows the parts and each array's rows.
#include "support/TestUtil.h"

#include <cstdint>
#include <string>

using namespace loom;
using loomtest::random_vector;

namespace {

enum class Where { Cpu3, Cpu1, OneGpuTwice, AllGpus };

std::string where_name(const ::testing::TestParamInfo<Where> &info) {
  switch (info.param) {
  case Where::Cpu3:
    return "cpu3";
  case Where::Cpu1:
    return "cpu1";
  case Where::OneGpuTwice:
    return "gpu0x2";
  case Where::AllGpus:
    return "all_gpus";
  }
  return "?";
}

class Split : public ::testing::TestWithParam<Where> {
protected:
  void SetUp() override {
    if (GetParam() == Where::Cpu3 || GetParam() == Where::Cpu1)
      return;
    std::string why;
    if (!runtime::GpuContext::usable(&why))
      GTEST_SKIP() << "no usable GPU: " << why;
  }
  DeviceSet devices() const {
    switch (GetParam()) {
    case Where::Cpu3:
      return DeviceSet::cpu(3);
    case Where::Cpu1:
      return DeviceSet::cpu(1);
    case Where::OneGpuTwice:
      return DeviceSet({Device(0), Device(0)});
    case Where::AllGpus:
      return all_gpus();
    }
    return DeviceSet::cpu(1);
  }
  // The single-device call's target: the GPU for the GPU sets.
  Target single() const {
    return GetParam() == Where::Cpu3 || GetParam() == Where::Cpu1 ? Target::CPU : Target::GPU;
  }
};

Kernel make_saxpy() {
  return kernel("split_saxpy",
                [](F32 a, Array<float> x, Array<float> y) {
                  parallel_for(x.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
                },
                {"a", "x", "y"});
}

Kernel make_heat() {
  return kernel(
      "split_heat",
      [](F64 alpha, Array2<double> u, Array2<double> v) {
        parallel_for({range(1, u.dim(0) - 1), range(1, u.dim(1) - 1)}, [&](Index i, Index j) {
          v(i, j) = u(i, j) + alpha * (((u(i - 1, j) + u(i + 1, j)) + (u(i, j - 1) + u(i, j + 1))) -
                                       4.0 * u(i, j));
        });
      },
      {"alpha", "u", "v"});
}

TEST_P(Split, SaxpyEqualsTheSingleDeviceCall) {
  const size_t n = 100003;
  auto x = random_vector<float>(n, -3.0, 3.0, 1), y = random_vector<float>(n, -3.0, 3.0, 2);
  std::vector<float> want = y;
  make_saxpy().on(single())(1.75f, x, want);
  Kernel k = make_saxpy().on(devices());
  k(1.75f, x, y);
  EXPECT_EQ(want, y);
  k(1.75f, x, y); // a second call reuses the parts (and their device buffers)
  make_saxpy().on(single())(1.75f, x, want);
  EXPECT_EQ(want, y);
}

TEST_P(Split, StencilWithHalosEqualsTheSingleDeviceCall) {
  const int64_t rows = 301, cols = 77; // rows no part count divides
  auto u = random_vector<double>(rows * cols, 0.0, 1.0, 3);
  auto v0 = random_vector<double>(rows * cols, -1.0, 1.0, 4); // the border must stay as it was
  std::vector<double> want = v0, got = v0;
  make_heat().on(single())(0.2, view(u, {rows, cols}), view(want, {rows, cols}));
  Kernel k = make_heat().on(devices());
  k(0.2, view(u, {rows, cols}), view(got, {rows, cols}));
  EXPECT_EQ(want, got);
  const std::string why = k.explain();
  EXPECT_NE(std::string::npos, why.find("split: over ")) << why;
  EXPECT_NE(std::string::npos, why.find("'u': rows in per part:")) << why;
  if (GetParam() == Where::Cpu3) {
    // 299 iterations in parts [0, 100), [100, 199), [199, 299) of the loop's variable, which
    // reads rows 1 + i - 1 to 1 + i + 1 of u and writes row 1 + i of v.
    EXPECT_NE(std::string::npos,
              why.find("'u': rows in per part: [0, 102), [100, 201), [199, 301)"))
        << why;
    EXPECT_NE(std::string::npos, why.find("out: [1, 101), [101, 200), [200, 300)")) << why;
  }
}

TEST_P(Split, MatmulBroadcastsTheArrayItReadsByColumns) {
  const int64_t n = 67, m = 45, p = 52;
  auto a = random_vector<float>(n * m, -1.0, 1.0, 5), b = random_vector<float>(m * p, -1.0, 1.0, 6);
  std::vector<float> want(n * p), got(n * p, 9.0f);
  auto make = [] {
    return kernel("split_matmul", [](Array2<float> A, Array2<float> B, Array2<float> C) {
      parallel_for({A.dim(0), B.dim(1)}, [&](Index i, Index j) {
        Var<float> acc = 0.0f;
        for_range(A.dim(1), [&](Index k) { acc += A(i, k) * B(k, j); });
        C(i, j) = acc;
      });
    });
  };
  make().on(single())(view(a, {n, m}), view(b, {m, p}), view(want, {n, p}));
  Kernel k = make().on(devices());
  k(view(a, {n, m}), view(b, {m, p}), view(got, {n, p}));
  EXPECT_EQ(want, got);
  if (GetParam() == Where::Cpu3) {
    EXPECT_NE(std::string::npos, k.explain().find("every row to every part")) << k.explain();
  }
}

TEST_P(Split, ReductionsCombineInPartOrder) {
  const size_t n = 50021;
  auto x = random_vector<int64_t>(n, -1000, 1000, 7);
  auto f = random_vector<float>(n, -50.0, 50.0, 8);
  auto make = [] {
    return kernel("split_reductions", [](Array<int64_t> x, Array<float> f, Array<int64_t> sum,
                                         Array<int64_t> histogram, Array<float> low) {
      parallel_for(x.size(), [&](Index i) {
        sum[0] += x[i];
        histogram[(x[i] + 1000) % 16] += 1;
        low[0] = min(low[0], f[i]);
      });
    });
  };
  // low[0] = min(low[0], f[i]) is a min reduction (a store of the min of the element itself).
  std::vector<int64_t> sum_want{5}, hist_want(16, 1), sum_got{5}, hist_got(16, 1);
  std::vector<float> low_want{10.0f}, low_got{10.0f};
  make().on(single())(x, f, sum_want, hist_want, low_want);
  Kernel k = make().on(devices());
  k(x, f, sum_got, hist_got, low_got);
  EXPECT_EQ(sum_want, sum_got);
  EXPECT_EQ(hist_want, hist_got);
  EXPECT_EQ(low_want, low_got);
  int64_t total = 5;
  for (int64_t v : x)
    total += v;
  EXPECT_EQ(total, sum_got[0]);
}

TEST_P(Split, KernelsASplitCannotTakeAreCompileErrorsSayingWhy) {
  std::vector<float> x(100, 1.0f), y(100, 0.0f);
  std::vector<int32_t> index(100, 3);
  auto expect_refused = [&](Kernel k, auto &&call, const std::string &words) {
    try {
      call(k);
      ADD_FAILURE() << "no CompileError for " << k.name();
    } catch (const CompileError &e) {
      EXPECT_NE(std::string::npos, std::string(e.what()).find(words)) << e.what();
    }
  };
  expect_refused(
      kernel("split_first_row",
             [](Array<float> x, Array<float> y) {
               parallel_for(x.size(), [&](Index i) { y[0] = x[i]; });
             },
             {"x", "y"})
          .on(devices()),
      [&](Kernel &k) { k(x, y); },
      "stores into 'y' at fixed rows 0 to 0, which every part would write");
  expect_refused(
      kernel("split_scatter",
             [](Array<float> x, Array<int32_t> index, Array<float> y) {
               parallel_for(x.size(), [&](Index i) { y[index[i]] = x[i]; });
             },
             {"x", "index", "y"})
          .on(devices()),
      [&](Kernel &k) { k(x, index, y); }, "which cannot be bounded per part");
  expect_refused(
      kernel("split_two_loops",
             [](Array<float> x, Array<float> y) {
               parallel_for(x.size(), [&](Index i) { y[i] = x[i]; });
               parallel_for(x.size(), [&](Index i) { x[i] = y[i]; });
             })
          .on(devices()),
      [&](Kernel &k) { k(x, y); }, "is not one parallel loop");
  expect_refused(
      kernel("split_reduce_and_read",
             [](Array<float> x, Array<float> y) {
               parallel_for(x.size(), [&](Index i) { y[0] += x[i] * y[0]; });
             })
          .on(devices()),
      [&](Kernel &k) { k(x, y); }, "also reads or stores it");
  EXPECT_EQ(std::vector<float>(100, 0.0f), y) << "a refused call changed an array";
}

TEST_P(Split, OnTargetEndsTheSplit) {
  const size_t n = 1000;
  auto x = random_vector<float>(n, -1.0, 1.0, 9), y = random_vector<float>(n, -1.0, 1.0, 10);
  std::vector<float> want = y;
  make_saxpy().on(single())(2.0f, x, want);
  Kernel k = make_saxpy().on(devices()).on(single());
  k(2.0f, x, y);
  EXPECT_EQ(want, y);
  EXPECT_EQ(std::string::npos, k.explain().find("split:")) << k.explain();
}

INSTANTIATE_TEST_SUITE_P(, Split,
                         ::testing::Values(Where::Cpu3, Where::Cpu1, Where::OneGpuTwice,
                                           Where::AllGpus),
                         where_name);

TEST(SplitDevices, AllGpusWithoutAGpuIsATargetError) {
  std::string why;
  if (runtime::GpuContext::usable(&why))
    GTEST_SKIP() << "this machine has a usable GPU";
  try {
    all_gpus();
    FAIL() << "no TargetError";
  } catch (const TargetError &e) {
    EXPECT_NE(std::string::npos, std::string(e.what()).find("all_gpus(): no usable GPU"))
        << e.what();
  }
  EXPECT_THROW(DeviceSet::cpu(0), ArgumentError);
  EXPECT_THROW(DeviceSet::cpu(65), ArgumentError);
  EXPECT_THROW(DeviceSet(std::vector<Device>{}), ArgumentError);
}

} // namespace
