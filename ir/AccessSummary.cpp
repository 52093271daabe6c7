#include "ir/AccessSummary.h"

#include "ir/Build.h"
#include "ir/Mutator.h"

namespace loom::ir {

namespace {

class Accesses : public Visitor {
public:
  explicit Accesses(std::vector<ArrayAccess> &out) : out_(out) {}

protected:
  void visit_node(const Load *n) override {
    out_[n->array].read = true;
    Visitor::visit_node(n);
  }
  void visit_node(const Store *n) override {
    out_[n->array].written = true;
    Visitor::visit_node(n);
  }
  void visit_node(const Reduce *n) override { // reads the element it combines into
    out_[n->array].read = out_[n->array].written = true;
    Visitor::visit_node(n);
  }
  void visit_node(const Atomic *n) override { // reads the element (the old value), writes it
    if (!n->shared)
      out_[n->array].read = out_[n->array].written = true;
    Visitor::visit_node(n);
  }

private:
  std::vector<ArrayAccess> &out_;
};

// Whether `extent` is known to equal dimension `dim` of array `array`: it is that extent, or a
// shape symbol (checked at every call) binds both.
bool same_extent(const Expr &extent, int array, int dim, const Kernel &kernel) {
  auto *e = extent.as<ArrayExtent>();
  if (!e)
    return false;
  if (e->array == array && e->dim == dim)
    return true;
  for (const ShapeSymbol &s : kernel.shape_symbols) {
    bool has_extent = false, has_target = false;
    for (auto [p, d] : s.dims) {
      has_extent |= p == e->array && d == e->dim;
      has_target |= p == array && d == dim;
    }
    if (has_extent && has_target)
      return true;
  }
  return false;
}

// `loop` stores array[vars...] unconditionally at its top level, and its extents are the
// array's own extents, so every element is written.
int fully_stored_array(const ParallelFor *loop, const Kernel &kernel) {
  const std::vector<Param> &params = kernel.params;
  std::vector<Stmt> body = statements_of(loop->body);
  for (const Stmt &s : body) {
    auto *st = s.as<Store>();
    if (!st || st->indices.size() != loop->vars.size())
      continue;
    bool whole = true;
    for (size_t k = 0; k < loop->vars.size() && whole; ++k)
      whole = is_var(st->indices[k], loop->vars[k].get()) &&
              same_extent(loop->extents[k], st->array, static_cast<int>(k), kernel);
    if (whole && params[st->array].rank == static_cast<int>(loop->vars.size()))
      return st->array;
  }
  return -1;
}

} // namespace

std::vector<ArrayAccess> summarize_accesses(const Kernel &kernel) {
  std::vector<ArrayAccess> out(kernel.params.size());
  Accesses(out).visit(kernel.body);

  // Fully overwritten: the first top-level statement touching the array is such a loop, and the
  // loop itself does not read the array.
  std::vector<bool> touched(kernel.params.size(), false);
  std::vector<Stmt> top = statements_of(kernel.body);
  for (const Stmt &s : top) {
    std::vector<ArrayAccess> here(kernel.params.size());
    Accesses(here).visit(s);
    if (auto *loop = s.as<ParallelFor>()) {
      int a = fully_stored_array(loop, kernel);
      if (a >= 0 && !touched[a] && !here[a].read)
        out[a].fully_overwritten = true;
    }
    for (size_t k = 0; k < here.size(); ++k)
      touched[k] = touched[k] || here[k].read || here[k].written;
  }
  return out;
}

} // namespace loom::ir
