#include "frontend/Tracer.h"

#include "support/Error.h"

#include <algorithm>
#include <atomic>

namespace loom::frontend {

namespace {
thread_local Tracer *active_tracer = nullptr;
std::atomic<uint64_t> next_block_id{1};
} // namespace

Tracer &Tracer::current() {
  if (!active_tracer)
    throw DslError("a loom DSL operation was used outside a kernel body; DSL values and control "
                   "flow (parallel_for, for_range, if_, ...) exist only while loom::kernel traces "
                   "the kernel's lambda");
  return *active_tracer;
}

bool Tracer::active() {
  return active_tracer != nullptr;
}

Tracer::Tracer(std::string kernel_name) : name_(std::move(kernel_name)), outer_(active_tracer) {
  open_block();
  active_tracer = this;
}

Tracer::~Tracer() {
  active_tracer = outer_;
}

void Tracer::emit(ir::Stmt s) {
  blocks_.back().push_back(std::move(s));
}

void Tracer::open_block(bool parallel_body) {
  blocks_.emplace_back();
  scopes_.push_back({next_block_id.fetch_add(1, std::memory_order_relaxed), parallel_body});
  parallel_bodies_ += parallel_body;
}

ir::Stmt Tracer::close_block() {
  std::vector<ir::Stmt> stmts = std::move(blocks_.back());
  blocks_.pop_back();
  scopes_.pop_back();
  return ir::Block::make(std::move(stmts));
}

bool Tracer::block_open(uint64_t id) const {
  return std::any_of(scopes_.begin(), scopes_.end(), [&](const Scope &s) { return s.id == id; });
}

bool Tracer::in_parallel_body() const {
  return std::any_of(scopes_.begin(), scopes_.end(),
                     [](const Scope &s) { return s.parallel_body; });
}

ir::Var Tracer::fresh_var(const char *prefix, ir::ScalarType type) {
  return ir::make_var(prefix, type); // the printer tells same-named variables apart
}

ir::Kernel Tracer::finish() {
  if (blocks_.size() != 1)
    throw DslError("kernel '" + name_ + "': a block was left open while tracing");
  ir::Kernel k;
  k.name = name_;
  k.params = params_;
  k.body = close_block();
  k.call_checks = call_checks_;
  if (simt_)
    k.schedule.mapping = ir::Mapping::Simt;
  k.shared = shared_;
  k.locals = locals_;
  k.assert_sites = assert_sites_;
  return k;
}

} // namespace loom::frontend
