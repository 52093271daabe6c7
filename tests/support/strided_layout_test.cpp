// strided::lattices_meet against brute force: random views of up to 3 dimensions (any stride
// sign, steps, offsets, element sizes of 1 to 16 bytes) inside one small buffer; whenever the
// lattice test says two views cannot share a byte, enumerating their bytes must agree, and it
// must say so for the interleaved views it is for.
#include "support/StridedLayout.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

namespace loom::strided {
namespace {

struct View {
  std::vector<int64_t> shape, strides; // strides in elements
  int64_t first = 0;                   // byte address of element [0, ..., 0]
  int64_t bytes = 4;                   // element size
};

std::set<int64_t> bytes_of(const View &v) {
  std::set<int64_t> out;
  std::vector<int64_t> index(v.shape.size(), 0);
  for (int64_t e : v.shape)
    if (e == 0)
      return out;
  while (true) {
    int64_t address = v.first;
    for (size_t d = 0; d < index.size(); ++d)
      address += index[d] * v.strides[d] * v.bytes;
    for (int64_t b = 0; b < v.bytes; ++b)
      out.insert(address + b);
    size_t d = index.size();
    while (d > 0 && ++index[d - 1] == v.shape[d - 1])
      index[--d] = 0;
    if (d == 0)
      return out;
  }
}

bool meet(const View &a, const View &b) {
  return lattices_meet(uint64_t(a.first), byte_lattice(a.shape, a.strides, a.bytes), a.bytes,
                       uint64_t(b.first), byte_lattice(b.shape, b.strides, b.bytes), b.bytes);
}

TEST(StridedLayout, LatticesThatDoNotMeetShareNoByte) {
  std::mt19937_64 rng(71);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const int64_t sizes[] = {1, 2, 4, 8, 16};
  int separated = 0, sharing = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    View v[2];
    for (View &w : v) {
      const int rank = int(pick(1, 3));
      w.bytes = sizes[pick(0, 4)];
      w.first = pick(-64, 64);
      for (int d = 0; d < rank; ++d) {
        w.shape.push_back(pick(0, 5));
        w.strides.push_back(pick(-12, 12));
      }
    }
    std::set<int64_t> a = bytes_of(v[0]), b = bytes_of(v[1]);
    bool share = false;
    for (int64_t x : a)
      share = share || b.count(x);
    sharing += share;
    if (!meet(v[0], v[1])) {
      ++separated;
      ASSERT_FALSE(share) << "trial " << trial << ": the lattices were said not to meet";
    }
    EXPECT_EQ(meet(v[0], v[1]), meet(v[1], v[0])) << "trial " << trial;
  }
  EXPECT_GT(separated, 1000); // the test is not vacuous: many pairs are told apart
  EXPECT_GT(sharing, 1000);
}

TEST(StridedLayout, InterleavedViewsAreApart) {
  // Even and odd f32 elements of a vector.
  EXPECT_FALSE(meet({{50}, {2}, 0, 4}, {{50}, {2}, 4, 4}));
  // Two columns of a 37 x 5 f64 matrix; a column and a row meet.
  EXPECT_FALSE(meet({{37}, {5}, 3 * 8, 8}, {{37}, {5}, 4 * 8, 8}));
  EXPECT_TRUE(meet({{37}, {5}, 3 * 8, 8}, {{5}, {1}, 0, 8}));
  // Real parts of a c64 vector as f32 (stride 2) and the whole c64 vector: they meet.
  EXPECT_TRUE(meet({{64}, {2}, 0, 4}, {{64}, {1}, 0, 8}));
  // Imaginary parts against real parts, one reversed.
  EXPECT_FALSE(meet({{64}, {-2}, 4 + 126 * 4, 4}, {{64}, {2}, 0, 4}));
  // Single elements: exact.
  EXPECT_FALSE(meet({{1}, {7}, 8, 8}, {{1}, {3}, 16, 4}));
  EXPECT_TRUE(meet({{1}, {7}, 8, 8}, {{1}, {3}, 12, 4}));
  // A gcd overflowing 64 bits in bytes claims nothing.
  EXPECT_EQ(byte_lattice(std::vector<int64_t>{2}, std::vector<int64_t>{int64_t(1) << 62}, 8), 1);
}

} // namespace
} // namespace loom::strided
