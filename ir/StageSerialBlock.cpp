// GPU: a serial task that map_serial_block put on one block (ir/SerialBlock.cpp) keeps the box
// of an array that it writes and reads back in shared memory, when every access of the array in
// the task lies in that one box of at most 1,024 elements: the block's threads copy the box in at
// the top of the loop over blocks, before a barrier, and then read it from shared memory, each
// store written to it and through to the array. lud's diagonal 16 x 16 block has the form. The
// box is found as ir/StagedBox.h finds it; the barriers the block's loops already have order the
// shared array as they ordered the array (the interpreter's block race check confirms it).
// Results are unchanged, bit for bit.
#include "ir/Passes.h"
#include "ir/StagedBox.h"

#include <algorithm>
#include <string>
#include <vector>

namespace loom::ir {

namespace {

using namespace staging;

// The most elements a serial block's box may hold in shared memory: lud's 16 x 16 block, and
// more (4 KiB of f32).
constexpr int64_t most_block_elements = 1024;

} // namespace

Task stage_serial_block(const Task &serial, const Task &block, const std::vector<Param> &params,
                        std::vector<Shared> &shared) {
  if (serial.kind != TaskKind::Serial || block.threads == 0)
    return block;
  std::vector<int> arrays;
  struct Stores : Visitor {
    std::vector<int> arrays;
    void visit_node(const Store *s) override {
      if (std::find(arrays.begin(), arrays.end(), s->array) == arrays.end())
        arrays.push_back(s->array);
      Visitor::visit_node(s);
    }
  } stores;
  stores.visit(serial.body);
  Task out = block;
  std::vector<Stmt> copy_in;
  int64_t shared_bytes = 0;
  shared_offsets(shared, &shared_bytes);
  Expand none;
  for (int array : stores.arrays) {
    const Param &p = params[static_cast<size_t>(array)];
    if (!stageable(p.type))
      continue;
    // Every access of the array in the task, in one box over the task's loops.
    Accesses acc;
    acc.array = array;
    acc.expand = &none;
    for (const Param &q : params)
      if (q.var)
        acc.fixed.insert(q.var.get());
    acc.visit(serial.body);
    if (!acc.ok)
      continue;
    const Access *first = nullptr;
    for (const Access &a : acc.found)
      if (a.store && !first)
        first = &a;
    Box box;
    if (!first || !make_base(acc, *first, box))
      continue;
    bool all = true;
    for (const Access &a : acc.found) {
      std::vector<int64_t> lo, hi;
      all = all && in_box(acc, box, a, lo, hi);
      if (all)
        widen(box, lo, hi);
    }
    const int64_t bytes = box.size() * int64_t(byte_size(p.type));
    if (!all || !reads_back(acc, std::vector<bool>(acc.found.size(), true)) ||
        box.size() > most_block_elements || shared_bytes + bytes + 16 > max_shared_bytes)
      continue;
    // The block's code: its accesses of the array read and write the shared array, each slot
    // from its indices' offsets, which the lowering left in the loops' variables.
    Shared staged =
        make_shared_array(p.name + "_block" + std::to_string(shared.size()), p.type, {box.size()});
    bool ok = true;
    UseStaged rewrite;
    rewrite.array = array;
    rewrite.staged = staged;
    rewrite.slot = [&](const void *, const std::vector<Expr> &indices) -> std::optional<Expr> {
      std::vector<Linear> index;
      for (size_t d = 0; d < indices.size(); ++d) {
        index.push_back(linear(indices[d]));
        for (const auto &[atom, k] : box.offset(index.back(), d).terms)
          ok = ok && (k == 0 || atom.as<VarRef>());
      }
      return box.slot(index);
    };
    Stmt body = rewrite.mutate(out.body);
    if (!ok)
      continue;
    shared.push_back(staged);
    shared_bytes += bytes + 16;
    out.body = body;
    // The copy-in, split among the block's threads.
    Var r = make_var(staged->name + "_slot", ScalarType::I64);
    Expr nonempty;
    std::vector<Expr> at = box.indices_of(var_ref(r), array, nonempty);
    copy_in.push_back(IfThenElse::make(
        nonempty,
        For::make(r, reg_i64(Reg::ThreadIdx, 0), i64(box.size()), reg_i64(Reg::BlockDim, 0),
                  SharedStore::make(staged, {var_ref(r)}, Load::make(p.type, array, at)))));
    out.staged.push_back("array " + p.name + ": the " + std::to_string(box.size()) + " elements " +
                         box.to_text(params) +
                         " that the block reads and writes are kept in shared memory (" +
                         staged->name +
                         "), copied in by its threads, the stores still written "
                         "through");
  }
  if (copy_in.empty())
    return block;
  // At the top of the loop over blocks: the launch's other blocks, if any, run nothing.
  copy_in.push_back(Barrier::make());
  std::vector<Stmt> top = statements_of(out.body);
  for (Stmt &s : top)
    if (auto *loop = s.as<For>();
        loop && loop->begin.as<Cast>() && loop->begin.as<Cast>()->a.as<SpecialReg>() &&
        loop->begin.as<Cast>()->a.as<SpecialReg>()->reg == Reg::BlockIdx) {
      copy_in.push_back(loop->body);
      s = For::make(loop->var, loop->begin, loop->end, loop->step, Block::make(std::move(copy_in)));
      out.body = Block::make(std::move(top));
      return out;
    }
  return block;
}

} // namespace loom::ir
