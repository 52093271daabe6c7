// The tracing context: while a kernel's C++ body runs, DSL operations append IR statements here.
#pragma once

#include "ir/IR.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loom::frontend {

class Tracer {
public:
  // The tracer of the kernel being traced on this thread; throws DslError if there is none.
  static Tracer &current();
  static bool active();

  explicit Tracer(std::string kernel_name);
  ~Tracer();
  Tracer(const Tracer &) = delete;
  Tracer &operator=(const Tracer &) = delete;

  void add_param(ir::Param p) { params_.push_back(std::move(p)); }
  // Conditions on the arguments checked at each call (ir::CallCheck).
  std::vector<ir::CallCheck> &call_checks() { return call_checks_; }
  const std::vector<ir::Param> &params() const { return params_; }

  void emit(ir::Stmt s);
  // Statements emitted between open_block() and close_block() form one block; `parallel_body`:
  // the body of a parallel loop.
  void open_block(bool parallel_body = false);
  ir::Stmt close_block();
  // Where the block being filled stands, so that a DSL object made in one block (a loom::Philox)
  // can tell whether a later use is inside it: every block gets a number of its own (unique in
  // the process), and parallel loop bodies are counted as they open.
  uint64_t block_id() const { return scopes_.back().id; }
  // Whether block `id` is the block being filled or one around it.
  bool block_open(uint64_t id) const;
  int parallel_bodies() const { return parallel_bodies_; }
  bool in_parallel_body() const;
  // The block being filled and its last statement's position (for if_().else_()).
  std::vector<ir::Stmt> &current_block() { return blocks_.back(); }

  ir::Var fresh_var(const char *prefix, ir::ScalarType type);

  // A SIMT kernel (loom::simt_kernel) and the shared arrays its body declares.
  void set_simt() { simt_ = true; }
  bool simt() const { return simt_; }
  void add_shared(ir::Shared a) { shared_.push_back(std::move(a)); }
  size_t shared_count() const { return shared_.size(); }
  const std::vector<ir::Shared> &shared() const { return shared_; }
  // The local arrays the body declares (loom::local_array).
  void add_local(ir::Shared a) { locals_.push_back(std::move(a)); }
  size_t local_count() const { return locals_.size(); }

  // The parallel loop whose body is being traced: a number of its own for each parallel_for,
  // 0 outside them. A local array belongs to the one it is declared in.
  // It also holds the loop's indices, as its body sees them, for assertions to report.
  class ParallelScope {
  public:
    ParallelScope(Tracer &t, const std::vector<ir::Var> &vars, std::vector<ir::Expr> indices)
        : t_(t) {
      t_.parallel_scopes_.push_back(++t_.scope_count_);
      for (size_t k = 0; k < vars.size(); ++k)
        t_.parallel_indices_.push_back({vars[k]->name, indices[k]});
      count_ = vars.size();
    }
    ~ParallelScope() {
      t_.parallel_scopes_.pop_back();
      t_.parallel_indices_.resize(t_.parallel_indices_.size() - count_);
    }
    ParallelScope(const ParallelScope &) = delete;
    ParallelScope &operator=(const ParallelScope &) = delete;

  private:
    Tracer &t_;
    size_t count_;
  };
  // The indices of the parallel loops around the statement being traced, outermost first.
  const std::vector<std::pair<std::string, ir::Expr>> &parallel_indices() const {
    return parallel_indices_;
  }
  // An assertion's site (ir::AssertSite), its number in the kernel's list.
  int add_assert_site(ir::AssertSite site) {
    assert_sites_.push_back(std::move(site));
    return static_cast<int>(assert_sites_.size()) - 1;
  }
  int parallel_scope() const { return parallel_scopes_.empty() ? 0 : parallel_scopes_.back(); }
  ir::Kernel finish();

private:
  std::string name_;
  std::vector<ir::Param> params_;
  std::vector<ir::CallCheck> call_checks_;
  std::vector<std::vector<ir::Stmt>> blocks_;
  struct Scope {
    uint64_t id;
    bool parallel_body;
  };
  std::vector<Scope> scopes_; // one per block of blocks_
  int parallel_bodies_ = 0;
  bool simt_ = false;
  std::vector<ir::Shared> shared_;
  std::vector<ir::Shared> locals_;
  std::vector<int> parallel_scopes_;
  std::vector<std::pair<std::string, ir::Expr>> parallel_indices_;
  std::vector<ir::AssertSite> assert_sites_;
  int scope_count_ = 0;
  Tracer *outer_;
};

} // namespace loom::frontend
