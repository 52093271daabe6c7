#include "codegen/IndexRange.h"

#include "codegen/Codegen.h"

#include <algorithm>
#include <limits>

namespace loom::codegen {

namespace {

using ir::ExprKind;

constexpr int64_t limit = int64_t(1) << 62; // beyond this, a bound is "unknown"

std::optional<IndexRange> checked(__int128 lo, __int128 hi) {
  if (lo < -limit || hi > limit)
    return std::nullopt;
  return IndexRange{static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
}

std::optional<IndexRange> special_reg_range(const ir::SpecialReg &r) {
  switch (r.reg) {
  case ir::Reg::ThreadIdx:
    return IndexRange{0, 1023};
  case ir::Reg::BlockDim:
    return IndexRange{1, 1024};
  case ir::Reg::BlockIdx:
    return IndexRange{0, index32_max_blocks - 1};
  case ir::Reg::GridDim:
    return IndexRange{1, index32_max_blocks};
  }
  return std::nullopt;
}

std::optional<IndexRange> binary_range(const ir::Binary &b, const IndexRanges &known) {
  auto x = index_range(b.a, known), y = index_range(b.b, known);
  if (!x || !y)
    return std::nullopt;
  switch (b.op) {
  case ir::BinaryOp::Add:
    return checked(__int128(x->lo) + y->lo, __int128(x->hi) + y->hi);
  case ir::BinaryOp::Sub:
    return checked(__int128(x->lo) - y->hi, __int128(x->hi) - y->lo);
  case ir::BinaryOp::Mul: {
    __int128 c[] = {__int128(x->lo) * y->lo, __int128(x->lo) * y->hi, __int128(x->hi) * y->lo,
                    __int128(x->hi) * y->hi};
    return checked(*std::min_element(c, c + 4), *std::max_element(c, c + 4));
  }
  case ir::BinaryOp::Div: // truncation is monotonic in the dividend for a positive divisor
    if (y->lo < 1)
      return std::nullopt;
    return IndexRange{std::min(x->lo / y->lo, x->lo / y->hi),
                      std::max(x->hi / y->lo, x->hi / y->hi)};
  case ir::BinaryOp::Min:
    return IndexRange{std::min(x->lo, y->lo), std::min(x->hi, y->hi)};
  case ir::BinaryOp::Max:
    return IndexRange{std::max(x->lo, y->lo), std::max(x->hi, y->hi)};
  default:
    return std::nullopt;
  }
}

// Whether every value of r is a value of type t (else the operation wrapped, or may have).
bool fits(ir::ScalarType t, const IndexRange &r) {
  const int bits = ir::bit_width(t);
  if (ir::is_unsigned(t))
    return r.lo >= 0 && (bits >= 63 || r.hi < (int64_t(1) << bits));
  if (bits >= 64)
    return true;
  const int64_t half = int64_t(1) << (bits - 1);
  return r.lo >= -half && r.hi < half;
}

std::optional<IndexRange> unchecked_range(const ir::Expr &e, const IndexRanges &known);

} // namespace

std::optional<IndexRange> index_range(const ir::Expr &e, const IndexRanges &known) {
  if (!ir::is_int(e.type()))
    return std::nullopt;
  std::optional<IndexRange> r = unchecked_range(e, known);
  if (r && !fits(e.type(), *r))
    return std::nullopt;
  return r;
}

namespace {

std::optional<IndexRange> unchecked_range(const ir::Expr &e, const IndexRanges &known) {
  switch (e.kind()) {
  case ExprKind::IntConst: {
    int64_t v = e.as<ir::IntConst>()->value;
    return checked(v, v);
  }
  case ExprKind::ArrayExtent:
    return IndexRange{0, index32_max_elements};
  case ExprKind::SpecialReg:
    return special_reg_range(*e.as<ir::SpecialReg>());
  case ExprKind::SharedExtent: // the launch's dynamic shared bytes are a u32 (%dynamic_smem_size)
    return IndexRange{0, std::numeric_limits<int32_t>::max()};
  case ExprKind::VarRef: {
    auto it = known.find(e.as<ir::VarRef>()->var.get());
    if (it == known.end())
      return std::nullopt;
    return it->second;
  }
  case ExprKind::Cast: // between integer types: a value that fits both is unchanged (index_range
                       // checks the second)
    return index_range(e.as<ir::Cast>()->a, known);
  case ExprKind::Binary:
    return binary_range(*e.as<ir::Binary>(), known);
  default:
    return std::nullopt;
  }
}

} // namespace

std::optional<IndexRange> counter_range_32(const ir::For &loop, const IndexRanges &known) {
  constexpr int64_t min32 = std::numeric_limits<int32_t>::min();
  constexpr int64_t max32 = std::numeric_limits<int32_t>::max();
  if (loop.var->type != ir::ScalarType::I64)
    return std::nullopt;
  auto begin = index_range(loop.begin, known), end = index_range(loop.end, known),
       step = index_range(loop.step, known);
  if (!begin || !end || !step || step->lo < 1)
    return std::nullopt;
  // The counter runs from begin while below end; the last step adds at most step->hi to a value
  // at most end->hi - 1.
  if (begin->lo < min32 || begin->hi > max32 || end->lo < min32 || end->hi > max32 ||
      end->hi - 1 + step->hi > max32)
    return std::nullopt;
  return IndexRange{begin->lo, std::max(begin->lo, end->hi - 1)};
}

} // namespace loom::codegen
