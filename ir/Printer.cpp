#include "ir/Printer.h"

#include "ir/Mutator.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace loom::ir {

namespace {

// Names in canonical text: every byte outside [A-Za-z0-9_] is escaped, so that no name can
// imitate the text's punctuation.
std::string escaped(const std::string &name) {
  std::string out;
  for (unsigned char c : name) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_'; // not isalnum, which depends on the locale
    if (plain) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

class Printer {
public:
  // `canonical`: the exact text compile caches key on (canonical_text); otherwise the readable one.
  explicit Printer(const std::vector<Param> &params, bool canonical = false)
      : params_(params), canonical_(canonical) {
    for (const Param &p : params)
      if (p.var)
        name_of(p.var);
  }

  std::string expr(const Expr &e) {
    std::ostringstream os;
    print(os, e, 0);
    return os.str();
  }

  void stmt(std::ostream &os, const Stmt &s, int indent) {
    if (!s.defined())
      return;
    std::string pad(indent * 2, ' ');
    switch (s.kind()) {
    case StmtKind::Block:
      for (const Stmt &c : s.as<Block>()->stmts)
        stmt(os, c, indent);
      return;
    case StmtKind::Declare: {
      auto *n = s.as<Declare>();
      os << pad << "var " << name_of(n->var) << ": " << type_name(n->var->type) << " = "
         << expr(n->init) << "\n";
      return;
    }
    case StmtKind::Assign: {
      auto *n = s.as<Assign>();
      os << pad << name_of(n->var) << " = " << expr(n->value) << "\n";
      return;
    }
    case StmtKind::Store: {
      auto *n = s.as<Store>();
      os << pad << array_name(n->array) << "[" << list(n->indices) << "] = " << expr(n->value)
         << "\n";
      return;
    }
    case StmtKind::Reduce: {
      auto *n = s.as<Reduce>();
      os << pad << array_name(n->array) << "[" << list(n->indices) << "] " << op_name(n->op) << " "
         << expr(n->value) << "\n";
      return;
    }
    case StmtKind::IfThenElse: {
      auto *n = s.as<IfThenElse>();
      os << pad << "if " << expr(n->cond) << " {\n";
      stmt(os, n->then_case, indent + 1);
      if (n->else_case.defined()) {
        os << pad << "} else {\n";
        stmt(os, n->else_case, indent + 1);
      }
      os << pad << "}\n";
      return;
    }
    case StmtKind::For: {
      auto *n = s.as<For>();
      os << pad << "for " << name_of(n->var) << " in " << expr(n->begin) << " .. " << expr(n->end);
      auto *step = n->step.as<IntConst>();
      if (!step || step->value != 1)
        os << " step " << expr(n->step);
      os << schedule_text(n->var, false) << " {\n";
      stmt(os, n->body, indent + 1);
      os << pad << "}\n";
      return;
    }
    case StmtKind::While: {
      auto *n = s.as<While>();
      os << pad << "while " << expr(n->cond) << " {\n";
      stmt(os, n->body, indent + 1);
      os << pad << "}\n";
      return;
    }
    case StmtKind::SharedStore: {
      auto *n = s.as<SharedStore>();
      os << pad << shared_name(n->array) << "[" << list(n->indices) << "] = " << expr(n->value)
         << "\n";
      return;
    }
    case StmtKind::Barrier:
      os << pad << "barrier\n";
      return;
    case StmtKind::AsyncCopy: {
      auto *n = s.as<AsyncCopy>();
      os << pad << "async_copy " << shared_name(n->dst) << "[" << list(n->dst_index) << "] <- "
         << array_name(n->array) << "[" << list(n->src_index) << "], " << n->count << " elements"
         << (n->valid.defined() ? ", the first " + expr(n->valid) + " read, zeros after" : "")
         << "\n";
      return;
    }
    case StmtKind::AsyncWait: {
      auto *n = s.as<AsyncWait>();
      if (n->pending == AsyncWait::fence_only) {
        os << pad << "async proxy fence\n";
        return;
      }
      os << pad << "async_wait";
      if (n->pending >= 0)
        os << " (commit; at most " << n->pending << " groups pending)";
      os << (n->async_proxy ? " + async proxy fence\n" : "\n");
      return;
    }
    case StmtKind::WarpgroupMma: {
      auto *n = s.as<WarpgroupMma>();
      auto layout = [](const WarpgroupMma::Layout &l) {
        return std::string(l.k_major ? "k-major" : "mn-major") + " lbo " + std::to_string(l.lbo) +
               " sbo " + std::to_string(l.sbo);
      };
      if (n->k_steps == 0) {
        os << pad << "wgmma.wait 0 (" << name_of(n->products.front().acc.front()) << " ..)\n";
        return;
      }
      const bool tf32 = n->input == ScalarType::F32;
      os << pad << "wgmma.m64n" << n->n << (tf32 ? "k8.tf32" : "k16.")
         << (tf32 ? "" : type_name(n->input)) << " x " << n->k_steps << " steps of k, A "
         << layout(n->a) << ", B " << layout(n->b) << ", then at most " << n->pending
         << " pending:\n";
      for (const WarpgroupMma::Product &p : n->products)
        os << pad << "  " << name_of(p.acc.front()) << " .. " << name_of(p.acc.back())
           << " += " << shared_name(n->smem) << "[" << expr(p.a_offset) << "] * "
           << shared_name(n->smem) << "[" << expr(p.b_offset) << "]\n";
      return;
    }
    case StmtKind::Mbarrier: {
      auto *n = s.as<Mbarrier>();
      const std::string at = shared_name(n->barriers) + "[" + expr(n->index) + "]";
      if (n->op == Mbarrier::Op::Init)
        os << pad << "mbarrier.init " << at << ", " << expr(n->value) << " arrivals a phase\n";
      else if (n->op == Mbarrier::Op::Arrive)
        os << pad << "mbarrier.arrive " << at << "\n";
      else if (n->op == Mbarrier::Op::ArriveOnCopies)
        os << pad << "mbarrier.arrive " << at << " once the thread's async copies are complete\n";
      else
        os << pad << "mbarrier.wait " << at << ", phase parity " << expr(n->value) << "\n";
      return;
    }
    case StmtKind::Assume:
      os << pad << "assume " << expr(s.as<Assume>()->cond) << "\n";
      return;
    case StmtKind::Mma: {
      auto *n = s.as<Mma>();
      os << pad << "mma.m16n8k16." << (n->input == ScalarType::F32 ? "tf32" : type_name(n->input))
         << " ";
      for (size_t r = 0; r < n->acc.size(); ++r)
        os << (r ? ", " : "") << name_of(n->acc[r]);
      // Each operand's block as [rows, k], or [k, rows] (k-major) with a ' after it.
      os << " += " << shared_name(n->a) << "[" << list(n->a_origin) << "]"
         << (n->a_k_last ? "" : "'") << " * " << shared_name(n->b) << "[" << list(n->b_origin)
         << "]" << (n->b_k_last ? "" : "'") << "^T\n";
      return;
    }
    case StmtKind::Print: {
      auto *n = s.as<Print>();
      os << pad << "print(";
      for (size_t k = 0; k < n->items.size(); ++k) {
        const PrintItem &item = n->items[k];
        os << (k ? ", " : "");
        if (!item.value.defined())
          os << quoted(item.text);
        else if (item.imag.defined())
          os << "complex(" << expr(item.value) << ", " << expr(item.imag) << ")";
        else
          os << expr(item.value);
      }
      os << ")\n";
      return;
    }
    case StmtKind::Assert: {
      auto *n = s.as<Assert>();
      os << pad << "assert " << expr(n->cond) << ", site " << n->site;
      if (!n->indices.empty())
        os << " at [" << list(n->indices) << "]";
      os << "\n";
      return;
    }
    case StmtKind::Atomic: {
      auto *n = s.as<Atomic>();
      os << pad;
      if (n->result)
        os << name_of(n->result) << " = ";
      os << op_name(n->op) << "(" << (n->shared ? shared_name(n->shared) : array_name(n->array))
         << "[" << list(n->indices) << "], ";
      if (n->compare.defined())
        os << expr(n->compare) << ", ";
      os << expr(n->value) << ")\n";
      return;
    }
    case StmtKind::ParallelFor: {
      auto *n = s.as<ParallelFor>();
      os << pad << "parallel for ";
      for (size_t k = 0; k < n->vars.size(); ++k)
        os << (k ? ", " : "") << name_of(n->vars[k]);
      os << " in (" << list(n->extents) << ")";
      for (const Var &v : n->vars)
        os << schedule_text(v, true);
      os << " {\n";
      stmt(os, n->body, indent + 1);
      os << pad << "}\n";
      return;
    }
    }
  }

  std::string params_text() {
    std::string out;
    for (size_t k = 0; k < params_.size(); ++k) {
      const Param &p = params_[k];
      out += (k ? ", " : "") + name_text(p.name) + ": " + type_name(p.type);
      if (p.kind == ParamKind::Array) {
        out += "[";
        for (int d = 0; d < p.rank; ++d)
          out += std::string(d ? ", " : "") + "?";
        out += p.strided ? "] strided" : "]";
      }
    }
    return out;
  }

  std::string name_of(const Var &v) {
    auto it = names_.find(v.get());
    if (it != names_.end())
      return it->second;
    std::string unique;
    if (canonical_) {
      // Numbered in order of appearance: user names may repeat or look like "x.1".
      unique = escaped(v->name) + "%" + std::to_string(names_.size());
      variables_ += "  " + unique + ": " + type_name(v->type) + "\n";
    } else {
      std::string name = v->name.empty() ? "t" : v->name;
      int &count = used_[name];
      unique = count == 0 ? name : name + "." + std::to_string(count);
      ++count;
    }
    names_.emplace(v.get(), unique);
    return unique;
  }

  // Text as a string literal: in double quotes, with \\, \" and control characters escaped.
  static std::string quoted(const std::string &text) {
    std::string out = "\"";
    for (char c : text) {
      if (c == '"' || c == '\\')
        out += std::string("\\") + c;
      else if (c == '\n')
        out += "\\n";
      else if (c == '\t')
        out += "\\t";
      else if (static_cast<unsigned char>(c) < 0x20) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
        out += hex;
      } else
        out += c;
    }
    return out + "\"";
  }

  // A shared array's name: its own, disambiguated, or in canonical text "$n" in order of
  // appearance (its declaration joins the variables).
  std::string shared_name(const Shared &a) {
    auto it = shared_names_.find(a.get());
    if (it != shared_names_.end())
      return it->second;
    std::string unique;
    if (canonical_) {
      unique = "$" + std::to_string(shared_names_.size());
      variables_ += "  " + unique + ": " + shared_type(*a) + "\n";
    } else {
      int &count = used_[a->name];
      unique = count == 0 ? a->name : a->name + "." + std::to_string(count);
      ++count;
    }
    shared_names_.emplace(a.get(), unique);
    return unique;
  }
  static std::string shared_type(const SharedArray &a) {
    std::string out = std::string(a.local() ? "local " : "shared ") + type_name(a.type) + "[";
    if (a.dynamic) // its extent is the launch's
      return out + "dynamic]";
    for (size_t d = 0; d < a.extents.size(); ++d)
      out += (d ? ", " : "") + std::to_string(a.extents[d]);
    return out + "]";
  }
  // "  shared tile: f32[16, 16]" for each shared array, in the kernel's order.
  void declare_shared(std::ostream &os, const std::vector<Shared> &shared) {
    for (const Shared &a : shared)
      os << "  " << shared_name(a) << ": " << shared_type(*a) << "\n";
  }

  // The loop schedules the loops print with: a kernel's by printed name, a lowered kernel's by
  // variable.
  void set_loops(const LoopSchedules &loops) { loops_by_name_ = &loops; }
  void set_loops(const LoopHints &loops) { loops_by_var_ = &loops; }
  // " unroll 4 vectorize 8" for a loop over `v` that has a schedule (prefixed by the variable's
  // name with `named`), else empty.
  std::string schedule_text(const Var &v, bool named) {
    const LoopSchedule *schedule = nullptr;
    if (loops_by_name_)
      if (auto it = loops_by_name_->find(name_of(v)); it != loops_by_name_->end())
        schedule = &it->second;
    if (loops_by_var_)
      if (auto it = loops_by_var_->find(v); it != loops_by_var_->end())
        schedule = &it->second;
    std::string out;
    if (schedule && schedule->unroll > 0)
      out += " unroll " + (named ? name_of(v) + " " : "") + std::to_string(schedule->unroll);
    if (schedule && schedule->vectorize > 0)
      out += " vectorize " + (named ? name_of(v) + " " : "") + std::to_string(schedule->vectorize);
    return out;
  }

  std::string name_text(const std::string &name) const { return canonical_ ? escaped(name) : name; }
  // Canonical text: every variable with its type, in order of appearance (loop indices and
  // chunk bounds show their type nowhere else).
  const std::string &variables() const { return variables_; }

  // Also for the task footer of to_string(LoweredKernel).
  std::string array_name(int k) {
    if (canonical_)
      return "#" + std::to_string(k); // parameter names may repeat
    if (k >= 0 && k < static_cast<int>(params_.size()))
      return params_[k].name;
    return "#" + std::to_string(k);
  }

  std::string list(const std::vector<Expr> &es) {
    std::string out;
    for (size_t k = 0; k < es.size(); ++k)
      out += (k ? ", " : "") + expr(es[k]);
    return out;
  }

private:
  static int precedence(BinaryOp op) {
    switch (op) {
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Mod:
      return 10;
    case BinaryOp::Add:
    case BinaryOp::Sub:
      return 9;
    case BinaryOp::Shl:
    case BinaryOp::Shr:
      return 8;
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
      return 7;
    case BinaryOp::Eq:
    case BinaryOp::Ne:
      return 6;
    case BinaryOp::BitAnd:
      return 5;
    case BinaryOp::BitXor:
      return 4;
    case BinaryOp::BitOr:
      return 3;
    case BinaryOp::And:
      return 2;
    case BinaryOp::Or:
      return 1;
    default:
      return 11; // min/max print as calls
    }
  }

  // Prints with the fewest parentheses that keep C-like precedence unambiguous.
  void print(std::ostream &os, const Expr &e, int outer) {
    switch (e.kind()) {
    case ExprKind::IntConst: {
      auto *n = e.as<IntConst>();
      if (is_unsigned(n->type))
        os << static_cast<uint64_t>(n->value);
      else
        os << n->value;
      if (n->type != ScalarType::I64)
        os << type_name(n->type);
      return;
    }
    case ExprKind::FloatConst: {
      auto *n = e.as<FloatConst>();
      char buf[64];
      // %.9g reads well but rounds f64 constants; the hexadecimal form is exact.
      std::snprintf(buf, sizeof buf, canonical_ ? "%a" : "%.9g", n->value);
      std::string s = buf;
      if (std::isfinite(n->value) && s.find_first_of(".en") == std::string::npos)
        s += ".0";
      os << s;
      if (n->type == ScalarType::F32)
        os << "f";
      return;
    }
    case ExprKind::BoolConst:
      os << (e.as<BoolConst>()->value ? "true" : "false");
      return;
    case ExprKind::VarRef:
      os << name_of(e.as<VarRef>()->var);
      return;
    case ExprKind::ArrayExtent: {
      auto *n = e.as<ArrayExtent>();
      os << array_name(n->array) << ".shape[" << n->dim << "]";
      return;
    }
    case ExprKind::Load: {
      auto *n = e.as<Load>();
      os << array_name(n->array) << "[" << list(n->indices) << "]";
      return;
    }
    case ExprKind::Unary: {
      auto *n = e.as<Unary>();
      if (is_rounding(n->op)) {
        os << op_name(n->op) << "(" << expr(n->a) << ")";
        return;
      }
      os << op_name(n->op);
      print(os, n->a, 12);
      return;
    }
    case ExprKind::Binary: {
      auto *n = e.as<Binary>();
      if (n->op == BinaryOp::Min || n->op == BinaryOp::Max) {
        os << op_name(n->op) << "(" << expr(n->a) << ", " << expr(n->b) << ")";
        return;
      }
      int p = precedence(n->op);
      if (p < outer)
        os << "(";
      print(os, n->a, p);
      os << " " << op_name(n->op) << " ";
      print(os, n->b, p + 1);
      if (p < outer)
        os << ")";
      return;
    }
    case ExprKind::Select: {
      auto *n = e.as<Select>();
      os << "select(" << expr(n->cond) << ", " << expr(n->a) << ", " << expr(n->b) << ")";
      return;
    }
    case ExprKind::Cast: {
      auto *n = e.as<Cast>();
      os << type_name(n->type) << "(" << expr(n->a) << ")";
      return;
    }
    case ExprKind::Call: {
      auto *n = e.as<Call>();
      os << fn_name(n->fn) << "(" << list(n->args) << ")";
      return;
    }
    case ExprKind::SpecialReg: {
      auto *n = e.as<SpecialReg>();
      static const char *regs[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
      os << regs[static_cast<int>(n->reg)] << "."
         << "xyz"[n->dim];
      return;
    }
    case ExprKind::SharedLoad: {
      auto *n = e.as<SharedLoad>();
      os << shared_name(n->array) << "[" << list(n->indices) << "]";
      return;
    }
    case ExprKind::SharedExtent:
      os << shared_name(e.as<SharedExtent>()->array) << ".shape[0]";
      return;
    case ExprKind::WarpOp: {
      auto *n = e.as<WarpOp>();
      os << op_name(n->op) << "(" << expr(n->value);
      if (n->operand.defined())
        os << ", " << expr(n->operand);
      os << ")";
      return;
    }
    }
  }

  const std::vector<Param> &params_;
  bool canonical_;
  const LoopSchedules *loops_by_name_ = nullptr;
  const LoopHints *loops_by_var_ = nullptr;
  std::map<const Variable *, std::string> names_;
  std::map<const SharedArray *, std::string> shared_names_;
  std::map<std::string, int> used_;
  std::string variables_;
};

} // namespace

std::string to_string(const Kernel &kernel) {
  Printer p(kernel.params);
  p.set_loops(kernel.schedule.loops);
  std::ostringstream os;
  os << (kernel.simt() ? "simt kernel " : "kernel ") << kernel.name << "(" << p.params_text()
     << ") {\n";
  p.declare_shared(os, kernel.shared);
  p.declare_shared(os, kernel.locals);
  p.stmt(os, kernel.body, 1);
  os << "}\n";
  return os.str();
}

std::vector<LoopVariable> loop_variables(const Kernel &kernel) {
  // Printing names every variable as to_string(kernel) does.
  Printer p(kernel.params);
  std::ostringstream os;
  p.stmt(os, kernel.body, 1);
  struct Loops : Visitor {
    std::vector<std::pair<Var, bool>> vars;
    void visit_node(const For *n) override {
      vars.push_back({n->var, false});
      Visitor::visit_node(n);
    }
    void visit_node(const ParallelFor *n) override {
      for (const Var &v : n->vars)
        vars.push_back({v, true});
      Visitor::visit_node(n);
    }
  } loops;
  loops.visit(kernel.body);
  std::vector<LoopVariable> out;
  for (const auto &[var, parallel] : loops.vars)
    out.push_back({p.name_of(var), var, parallel});
  return out;
}

namespace {

std::string lowered_text(const LoweredKernel &kernel, bool canonical) {
  Printer p(kernel.params, canonical);
  p.set_loops(kernel.loops);
  std::ostringstream os;
  os << "kernel " << p.name_text(kernel.name) << "(" << p.params_text() << ") for "
     << target_name(kernel.target) << (kernel.bounds_check ? ", bounds-checked" : "") << ":\n";
  for (const ScratchArray &a : kernel.scratch)
    os << "scratch " << p.array_name(a.param) << "[" << p.list(a.extents) << "]\n";
  // The block's layout depends on every shared array, in declaration order: canonical text (a
  // cache key) names them all first.
  if (canonical)
    for (const Shared &a : kernel.shared)
      p.shared_name(a);
  for (size_t index = 0; index < kernel.tasks.size(); ++index) {
    const Task &t = kernel.tasks[index];
    for (const TaskLoop &l : kernel.task_loops)
      if (l.first == index)
        os << "loop " << p.name_of(l.var) << " in range(" << p.expr(l.begin) << ", "
           << p.expr(l.end) << ", " << p.expr(l.step) << ") {\n";
    os << "task " << p.name_text(t.name);
    if (t.kind == TaskKind::Serial) {
      os << " serial";
    } else if (t.kind == TaskKind::Simt) {
      os << " simt";
    } else {
      os << " parallel over (";
      for (size_t k = 0; k < t.domain.size(); ++k)
        os << (k ? ", " : "") << p.expr(t.domain[k]);
      os << ")";
      if (t.chunk_begin)
        os << " chunk [" << p.name_of(t.chunk_begin) << ", " << p.name_of(t.chunk_end) << ")";
      if (t.tile.rows > 0)
        os << " tiles of " << t.tile.rows << "x" << t.tile.cols << ", " << t.tile.thread_rows << "x"
           << t.tile.thread_cols << " per thread, depth " << t.tile.depth
           << (t.tile.min_blocks > 0 ? ", " + std::to_string(t.tile.min_blocks) + " blocks per SM"
                                     : std::string());
      else if (t.threads > 0 && !t.steps_per_launch.empty())
        os << " blocks of " << t.threads << " threads, each through the launch's steps";
      else if (t.threads > 0 && !t.block_reads.empty())
        os << " blocks of " << t.threads
           << " threads, one for each iteration of the outer "
              "dimensions";
      else if (t.threads > 0 && !t.serial_block.empty())
        os << " serial, on one block of " << t.threads << " threads";
      else if (t.threads > 0)
        os << " block of " << t.threads << " threads per iteration";
    }
    os << " {\n";
    if (!canonical) {
      p.declare_shared(os, kernel.shared);
      p.declare_shared(os, kernel.locals);
    }
    p.stmt(os, t.body, 1);
    for (const TaskReduction &r : t.reductions)
      os << "  combine " << p.name_of(r.accumulator)
         << " of every worker: " << p.array_name(r.array) << "[" << p.list(r.indices) << "] "
         << op_name(r.op) << " total\n";
    os << "}\n";
    for (auto l = kernel.task_loops.rbegin(); l != kernel.task_loops.rend(); ++l)
      if (l->last == index + 1) // innermost first
        os << "} loop " << p.name_of(l->var) << "\n";
  }
  if (canonical)
    os << "variables:\n" << p.variables();
  return os.str();
}

} // namespace

std::string to_string(const LoweredKernel &kernel) {
  return lowered_text(kernel, false);
}

std::string canonical_text(const LoweredKernel &kernel) {
  return lowered_text(kernel, true);
}

std::string to_string(const Expr &e, const std::vector<Param> &params) {
  return Printer(params).expr(e);
}

std::string to_string(const Stmt &s, const std::vector<Param> &params) {
  Printer p(params);
  std::ostringstream os;
  p.stmt(os, s, 0);
  return os.str();
}

// The shape symbol or literal extent declared for dimension `dim` of parameter `p`, or "?".
static std::string dim_name(const Kernel &k, int p, int dim) {
  for (const ShapeSymbol &s : k.shape_symbols)
    for (auto [q, d] : s.dims)
      if (q == p && d == dim)
        return s.name;
  return "?";
}

std::string signature(const Kernel &k) {
  std::string s = k.name + "(";
  for (size_t p = 0; p < k.params.size(); ++p) {
    s += (p ? ", " : "") + k.params[p].name + ": " + type_name(k.params[p].type);
    for (int d = 0; d < k.params[p].rank; ++d)
      s += (d ? ", " : "[") + dim_name(k, static_cast<int>(p), d);
    if (k.params[p].rank > 0)
      s += "]";
  }
  return s + ")";
}

} // namespace loom::ir
