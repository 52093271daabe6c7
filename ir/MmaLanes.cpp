// A warp's tensor-core product (ir::Mma) as what each of its lanes computes: the CPU's SIMT
// fibers and any target without tensor cores run these statements. Lane l's acc[r] holds element
// (mma_row(l, r), mma_col(l, r)) of the 16 x 8 block, and adds its 16 products to it in k order,
// each rounded to f32 (the products of two 16-bit floats, or of two f32s rounded to TF32, are
// exact in f32).
#include "ir/Build.h"
#include "ir/Passes.h"

namespace loom::ir {

Stmt mma_by_lane(const Mma &n) {
  // The thread's index in its block, x fastest (as warps are numbered), and its lane.
  Expr linear = add(reg_i64(Reg::ThreadIdx, 0),
                    mul(reg_i64(Reg::BlockDim, 0),
                        add(reg_i64(Reg::ThreadIdx, 1),
                            mul(reg_i64(Reg::BlockDim, 1), reg_i64(Reg::ThreadIdx, 2)))));
  std::vector<Stmt> out;
  Var lane = make_var("lane", ScalarType::I64);
  out.push_back(Declare::make(lane, mod(linear, i64(32))));
  Expr group = div(var_ref(lane), i64(4)), pair = mul(mod(var_ref(lane), i64(4)), i64(2));
  // Element (row, kk) of the block at `origin`.
  auto element = [&n](const Shared &array, std::vector<Expr> origin, bool k_last, const Expr &row,
                      int kk) {
    const size_t d = origin.size();
    origin[d - 2] = add(origin[d - 2], k_last ? row : i64(kk));
    origin[d - 1] = add(origin[d - 1], k_last ? i64(kk) : row);
    Expr value = SharedLoad::make(array, std::move(origin));
    return n.input == ScalarType::F32 ? Unary::make(UnaryOp::RoundTF32, value) : value;
  };
  for (int r = 0; r < 4; ++r) {
    Expr row = add(group, i64(8 * (r / 2))), col = add(pair, i64(r % 2));
    Expr sum = var_ref(n.acc[r]);
    for (int kk = 0; kk < 16; ++kk)
      sum = add(sum, mul(element(n.a, n.a_origin, n.a_k_last, row, kk),
                         element(n.b, n.b_origin, n.b_k_last, col, kk)));
    out.push_back(Assign::make(n.acc[r], sum));
  }
  return Block::make(std::move(out));
}

} // namespace loom::ir
