// A kernel from each front end, outside loom's source tree: saxpy in the C++ DSL and a row sum in
// the text DSL, each checked against a reference computed in double on the host.
#include <loom/loom.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

const char *row_sums_source = R"(
@kernel
def row_sums(A: f32[N, M], s: f32[N]):
    for i in parallel(N):
        acc: f32 = 0.0
        for j in range(M):
            acc += A[i, j]
        s[i] = acc
)";

bool verdict(const char *what, double error, double tolerance) {
  const bool ok = error <= tolerance;
  std::printf("%s: %s (max relative error %.3g, tolerance %.1g)\n", what, ok ? "PASS" : "FAIL",
              error, tolerance);
  return ok;
}

} // namespace

int main() {
  loom::TargetChoice where = loom::choose_target();
  std::printf("loom %s (headers %s) on the %s: %s\n", loom::version(), LOOM_VERSION_STRING,
              where.target == loom::Target::GPU ? "GPU" : "CPU", where.reason.c_str());
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);

  auto saxpy = loom::kernel("saxpy", [](loom::F32 a, loom::Array<float> x, loom::Array<float> y) {
    loom::parallel_for(x.size(), [&](loom::Index i) { y[i] = a * x[i] + y[i]; });
  });
  const size_t n = 100003;
  std::vector<float> x(n), y(n);
  for (size_t i = 0; i < n; ++i)
    x[i] = dist(rng), y[i] = dist(rng);
  const std::vector<float> y0 = y;
  saxpy(1.5f, x, y);
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    const double ref = 1.5 * double(x[i]) + y0[i];
    worst = std::max(worst, std::abs(y[i] - ref) / std::max(1.0, std::abs(ref)));
  }
  bool ok = verdict("saxpy (C++ DSL)", worst, 1e-6);

  loom::Module m = loom::compile(row_sums_source);
  const int64_t rows = 257, cols = 1031;
  std::vector<float> A(rows * cols), s(rows);
  for (float &v : A)
    v = dist(rng);
  m["row_sums"](loom::view(A, {rows, cols}), s);
  worst = 0;
  for (int64_t i = 0; i < rows; ++i) {
    double ref = 0, magnitude = 0;
    for (int64_t j = 0; j < cols; ++j)
      ref += A[i * cols + j], magnitude += std::abs(A[i * cols + j]);
    worst = std::max(worst, std::abs(s[i] - ref) / std::max(1.0, magnitude));
  }
  ok = verdict("row_sums (text DSL)", worst, 1e-5) && ok;
  return ok ? 0 : 1;
}
