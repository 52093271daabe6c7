// The bounds behind 32-bit loop counters (codegen/IndexRange.h) and the PTX they give.
#include "CodegenTestUtil.h"

#include "codegen/IndexRange.h"

#include <gtest/gtest.h>

#include <limits>

namespace loom::codegen::test {
namespace {

Expr i64(int64_t v) {
  return IntConst::make(ScalarType::I64, v);
}
Expr gpu_first() { // blockIdx.x * blockDim.x + threadIdx.x, widened
  return Cast::make(ScalarType::I64, bin(BinaryOp::Add,
                                         bin(BinaryOp::Mul, SpecialReg::make(Reg::BlockIdx, 0),
                                             SpecialReg::make(Reg::BlockDim, 0)),
                                         SpecialReg::make(Reg::ThreadIdx, 0)));
}
Expr gpu_stride() {
  return Cast::make(ScalarType::I64, bin(BinaryOp::Mul, SpecialReg::make(Reg::GridDim, 0),
                                         SpecialReg::make(Reg::BlockDim, 0)));
}
std::optional<IndexRange> counter(Expr begin, Expr end, Expr step, const IndexRanges &known = {}) {
  Var v = make_var("k", ScalarType::I64);
  Stmt loop = For::make(v, begin, end, step, Block::make({}));
  return counter_range_32(*loop.as<For>(), known);
}

TEST(codegen_index_range, ExtentsConstantsAndThreadGeometry) {
  auto r = index_range(bin(BinaryOp::Sub, ArrayExtent::make(0, 1), i64(1)), {});
  ASSERT_TRUE(r);
  EXPECT_EQ(-1, r->lo);
  EXPECT_EQ(index32_max_elements - 1, r->hi);
  r = index_range(gpu_first(), {});
  ASSERT_TRUE(r);
  EXPECT_EQ(0, r->lo);
  EXPECT_EQ((index32_max_blocks - 1) * 1024 + 1023, r->hi);
  r = index_range(bin(BinaryOp::Div, ArrayExtent::make(0, 0), i64(4)), {});
  ASSERT_TRUE(r);
  EXPECT_EQ(index32_max_elements / 4, r->hi);
  // A scalar parameter, a division by a variable amount and a float are unbounded.
  Param n = scalar_param("n", ScalarType::I64);
  EXPECT_FALSE(index_range(var(n.var), {}));
  EXPECT_FALSE(index_range(bin(BinaryOp::Div, i64(7), ArrayExtent::make(0, 0)), {}));
  EXPECT_FALSE(index_range(FloatConst::make(ScalarType::F32, 1.0), {}));
  // A product past 2^62 is unknown, not wrapped.
  EXPECT_FALSE(index_range(bin(BinaryOp::Mul, i64(int64_t{1} << 40), i64(int64_t{1} << 30)), {}));
}

TEST(codegen_index_range, CountersThatFitThirtyTwoBits) {
  // The GPU's grid-stride loop over an extent, and a loop over an extent inside it.
  auto grid = counter(gpu_first(), ArrayExtent::make(0, 0), gpu_stride());
  ASSERT_TRUE(grid);
  EXPECT_EQ(index32_max_elements - 1, grid->hi);
  EXPECT_TRUE(counter(i64(0), ArrayExtent::make(1, 1), i64(1)));
  Var outer = make_var("i", ScalarType::I64);
  EXPECT_TRUE(counter(var(outer), ArrayExtent::make(0, 0), i64(1), {{outer.get(), *grid}}));
  // An end that may be past 2^31 - 1, or a last step that could overflow, keeps 64 bits.
  const int64_t max32 = std::numeric_limits<int32_t>::max();
  EXPECT_FALSE(counter(i64(0), i64(max32 + int64_t{1}), i64(1)));
  EXPECT_TRUE(counter(i64(0), i64(max32), i64(1)));
  EXPECT_FALSE(counter(i64(0), i64(max32), i64(2)));
  EXPECT_FALSE(counter(i64(0), bin(BinaryOp::Mul, ArrayExtent::make(0, 0), i64(4)), i64(1)));
  // A counter bounded by a scalar parameter, or with a step that may be zero or negative.
  Param n = scalar_param("n", ScalarType::I64);
  EXPECT_FALSE(counter(i64(0), var(n.var), i64(1)));
  EXPECT_FALSE(counter(i64(0), ArrayExtent::make(0, 0), i64(0)));
  EXPECT_FALSE(counter(ArrayExtent::make(0, 0), i64(0), i64(-1)));
  Var unknown = make_var("u", ScalarType::I64);
  EXPECT_FALSE(counter(var(unknown), ArrayExtent::make(0, 0), i64(1)));
}

} // namespace
} // namespace loom::codegen::test
