#include "frontend/Tracer.h"

#include "support/Error.h"

namespace loom::frontend {

namespace {
thread_local Tracer *active_tracer = nullptr;
}

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
  blocks_.emplace_back();
  active_tracer = this;
}

Tracer::~Tracer() {
  active_tracer = outer_;
}

void Tracer::emit(ir::Stmt s) {
  blocks_.back().push_back(std::move(s));
}

void Tracer::open_block() {
  blocks_.emplace_back();
}

ir::Stmt Tracer::close_block() {
  std::vector<ir::Stmt> stmts = std::move(blocks_.back());
  blocks_.pop_back();
  return ir::Block::make(std::move(stmts));
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
  return k;
}

} // namespace loom::frontend
