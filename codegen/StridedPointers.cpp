// Array accesses that step through memory by a fixed stride in an innermost loop (B[k, j] in the
// loop over k moves by B's row length each iteration) get a pointer of their own: it starts at
// the access's element for the loop's first iteration and advances by the stride at the end of
// every iteration, instead of the address being computed again from the indices (k * rows + j,
// widened and scaled: two more integer instructions per access in the naive matmul's k loop).
// That pointer chain is what nvcc's code has; with it the naive matmul ran faster on the H200
// (bench/RESULTS.md, "eleventh run: where the naive matmul lost its time"). Which loops get it
// is the target's choice (strides_pointers).
#include "codegen/CodegenLLVM.h"
#include "ir/Printer.h"

#include <map>
#include <optional>
#include <set>

namespace loom::codegen {

namespace {

// The variables a loop body declares or assigns, and the loop's own counter: an index that
// reads one of them does not keep its value from one iteration to the next.
struct Written : ir::Visitor {
  std::set<const ir::Variable *> vars;
  void visit_node(const ir::Declare *op) override {
    vars.insert(op->var.get());
    Visitor::visit_node(op);
  }
  void visit_node(const ir::Assign *op) override {
    vars.insert(op->var.get());
    Visitor::visit_node(op);
  }
  void visit_node(const ir::For *op) override {
    vars.insert(op->var.get());
    Visitor::visit_node(op);
  }
};

// Whether `e` has one value in every iteration and may be evaluated before the loop, even when
// the loop then runs no iteration: integer arithmetic without division (which could trap) on
// constants, extents, thread geometry and variables the loop leaves alone.
bool invariant(const ir::Expr &e, const std::set<const ir::Variable *> &written) {
  if (e.as<ir::IntConst>() || e.as<ir::ArrayExtent>() || e.as<ir::SpecialReg>())
    return true;
  if (auto *v = e.as<ir::VarRef>())
    return !written.count(v->var.get());
  if (auto *c = e.as<ir::Cast>())
    return ir::is_int(c->type) && ir::is_int(c->a.type()) && invariant(c->a, written);
  if (auto *b = e.as<ir::Binary>())
    return (b->op == ir::BinaryOp::Add || b->op == ir::BinaryOp::Sub ||
            b->op == ir::BinaryOp::Mul || b->op == ir::BinaryOp::Min ||
            b->op == ir::BinaryOp::Max) &&
           ir::is_int(b->type) && invariant(b->a, written) && invariant(b->b, written);
  return false;
}

// k itself, or k + c: the constant c (0 for k); nothing for any other index.
std::optional<int64_t> counter_offset(const ir::Expr &e, const ir::Variable *counter) {
  if (auto *v = e.as<ir::VarRef>(); v && v->var.get() == counter)
    return 0;
  if (auto *b = e.as<ir::Binary>(); b && b->op == ir::BinaryOp::Add)
    if (auto *v = b->a.as<ir::VarRef>(); v && v->var.get() == counter)
      if (auto *c = b->b.as<ir::IntConst>())
        return c->value;
  return std::nullopt;
}

// Every array load and store of a loop body, in order.
struct Accesses : ir::Visitor {
  struct Access {
    const void *node;
    int array;
    const std::vector<ir::Expr> *indices;
  };
  std::vector<Access> found;
  void visit_node(const ir::Load *op) override {
    found.push_back({op, op->array, &op->indices});
    Visitor::visit_node(op);
  }
  void visit_node(const ir::Store *op) override {
    found.push_back({op, op->array, &op->indices});
    Visitor::visit_node(op);
  }
};

} // namespace

void CodegenLLVM::begin_strided_pointers(const ir::For &loop) {
  strided_.clear();
  strided_access_.clear();
  auto *step = loop.step.as<ir::IntConst>();
  if (bounds_record_ || !step || !strides_pointers(loop))
    return;
  Written written;
  written.visit(loop.body);
  written.vars.insert(loop.var.get());
  Accesses accesses;
  accesses.visit(loop.body);

  std::map<std::string, size_t> by_access; // one pointer per distinct access
  for (const Accesses::Access &a : accesses.found) {
    const std::vector<ir::Expr> &indices = *a.indices;
    const int last = static_cast<int>(indices.size()) - 1;
    // The dimension stepping with the counter; the last steps by one element, which LLVM already
    // addresses by constant offsets from one base.
    int dim = -1;
    int64_t offset = 0;
    bool others_invariant = true;
    for (int d = 0; d <= last; ++d) {
      std::optional<int64_t> c = counter_offset(indices[d], loop.var.get());
      if (c && dim < 0 && d < last) {
        dim = d;
        offset = *c;
      } else if (!invariant(indices[d], written.vars)) {
        others_invariant = false;
      }
    }
    if (dim < 0 || !others_invariant)
      continue;
    std::string key = std::to_string(a.array);
    for (const ir::Expr &index : indices)
      key += "|" + ir::to_string(index, kernel->params);
    auto [it, fresh] = by_access.emplace(key, strided_.size());
    if (fresh) {
      // The element of the first iteration, and the stride: step * the extents after `dim`
      std::vector<ir::Expr> first = indices;
      first[dim] = offset == 0 ? loop.begin
                               : ir::Binary::make(ir::BinaryOp::Add, loop.begin,
                                                  ir::IntConst::make(ir::ScalarType::I64, offset));
      llvm::Value *start = element_address(a.array, first);
      // (A strided view's: step * its stride of `dim`.)
      llvm::Value *stride = builder.getInt64(step->value);
      if (kernel->params[a.array].strided)
        stride = builder.CreateMul(stride, array_stride(a.array, dim), "", false, true);
      for (int d = dim + 1; !kernel->params[a.array].strided && d <= last; ++d)
        stride = builder.CreateMul(stride, array_extent(a.array, d), "", false, true);
      // With 32-bit index arithmetic the stride, like every offset, fits 32 bits.
      if (index32)
        stride = builder.CreateTrunc(stride, builder.getInt32Ty());
      llvm::AllocaInst *slot = alloca_builder_.CreateAlloca(start->getType(), nullptr,
                                                            kernel->params[a.array].name + ".ptr");
      builder.CreateStore(start, slot);
      strided_.push_back({slot, stride, memory_type(kernel->params[a.array].type)});
    }
    strided_access_[a.node] = it->second;
  }
}

llvm::Value *CodegenLLVM::strided_address(const void *access) {
  auto it = strided_access_.find(access);
  if (it == strided_access_.end())
    return nullptr;
  const StridedPointer &p = strided_[it->second];
  return builder.CreateLoad(p.slot->getAllocatedType(), p.slot);
}

void CodegenLLVM::advance_strided_pointers() {
  for (const StridedPointer &p : strided_) {
    llvm::Value *current = builder.CreateLoad(p.slot->getAllocatedType(), p.slot);
    builder.CreateStore(builder.CreateGEP(p.element, current, p.stride), p.slot);
  }
}

void CodegenLLVM::end_strided_pointers() {
  strided_.clear();
  strided_access_.clear();
}

} // namespace loom::codegen
