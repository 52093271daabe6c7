#include "differential/Reproducer.h"

#include "ir/Printer.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

namespace loom::difftest {

using namespace loom::ir;

namespace {

const char *type_code(ScalarType t) {
  static const char *names[] = {"ScalarType::Bool", "ScalarType::I32", "ScalarType::I64",
                                "ScalarType::F32",  "ScalarType::F64", "ScalarType::F16",
                                "ScalarType::BF16", "ScalarType::I8",  "ScalarType::I16",
                                "ScalarType::U8",   "ScalarType::U16", "ScalarType::U32",
                                "ScalarType::U64",  "ScalarType::C64", "ScalarType::C128"};
  static_assert(sizeof(names) / sizeof(names[0]) == ir::kScalarTypeCount, "one per type");
  return names[static_cast<int>(t)];
}

std::string int_literal(int64_t v) {
  if (v == std::numeric_limits<int64_t>::min())
    return "INT64_MIN";
  return std::to_string(v);
}

std::string float_literal(double v) {
  if (std::isnan(v))
    return std::signbit(v) ? "-NAN" : "NAN";
  if (std::isinf(v))
    return v > 0 ? "INFINITY" : "-INFINITY";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v); // exact
  return buf;
}

const char *unary_code(UnaryOp op) {
  static const char *names[] = {"UnaryOp::Neg",      "UnaryOp::Not",       "UnaryOp::BitNot",
                                "UnaryOp::RoundF16", "UnaryOp::RoundBF16", "UnaryOp::RoundTF32"};
  return names[static_cast<int>(op)];
}

const char *binary_code(BinaryOp op) {
  static const char *names[] = {
      "BinaryOp::Add", "BinaryOp::Sub", "BinaryOp::Mul",    "BinaryOp::Div",   "BinaryOp::Mod",
      "BinaryOp::Min", "BinaryOp::Max", "BinaryOp::BitAnd", "BinaryOp::BitOr", "BinaryOp::BitXor",
      "BinaryOp::Shl", "BinaryOp::Shr", "BinaryOp::Lt",     "BinaryOp::Le",    "BinaryOp::Gt",
      "BinaryOp::Ge",  "BinaryOp::Eq",  "BinaryOp::Ne",     "BinaryOp::And",   "BinaryOp::Or"};
  return names[static_cast<int>(op)];
}

const char *fn_code(MathFn fn) {
  static const char *names[] = {
      "MathFn::Sqrt",  "MathFn::Exp",    "MathFn::Log",   "MathFn::Sin",
      "MathFn::Cos",   "MathFn::Tanh",   "MathFn::Pow",   "MathFn::Abs",
      "MathFn::Floor", "MathFn::Fma",    "MathFn::Acos",  "MathFn::Acosh",
      "MathFn::Asin",  "MathFn::Asinh",  "MathFn::Atan",  "MathFn::Atan2",
      "MathFn::Atanh", "MathFn::Cbrt",   "MathFn::Ceil",  "MathFn::Copysign",
      "MathFn::Cosh",  "MathFn::Erf",    "MathFn::Erfc",  "MathFn::Exp2",
      "MathFn::Expm1", "MathFn::Gamma",  "MathFn::Hypot", "MathFn::IsFinite",
      "MathFn::IsInf", "MathFn::IsNan",  "MathFn::Ldexp", "MathFn::Lgamma",
      "MathFn::Log10", "MathFn::Log1p",  "MathFn::Log2",  "MathFn::Remainder",
      "MathFn::Round", "MathFn::Rsqrt",  "MathFn::Sign",  "MathFn::Sinh",
      "MathFn::Tan",   "MathFn::Trunc",  "MathFn::Real",  "MathFn::Imag",
      "MathFn::Conj",  "MathFn::Complex"};
  static_assert(sizeof(names) / sizeof(names[0]) == kMathFnCount, "one name per MathFn");
  return names[static_cast<int>(fn)];
}

class Emitter {
public:
  explicit Emitter(const std::vector<Param> &params) {
    for (size_t k = 0; k < params.size(); ++k)
      if (params[k].var)
        names_[params[k].var.get()] = "p.kernel.params[" + std::to_string(k) + "].var";
  }

  // Local variables, declared before the body that uses them.
  std::string declarations() const { return decls_.str(); }

  std::string var(const Var &v) {
    auto it = names_.find(v.get());
    if (it != names_.end())
      return it->second;
    std::string name = "v" + std::to_string(names_.size());
    names_[v.get()] = name;
    decls_ << "  Var " << name << " = make_var(\"" << v->name << "\", " << type_code(v->type)
           << ");\n";
    return name;
  }

  // A local or shared array, declared with the variables; its name in the kernel's list.
  std::string local(const Shared &a) {
    auto it = locals_.find(a.get());
    if (it != locals_.end())
      return it->second;
    std::string name = (a->local() ? "l" : "sh") + std::to_string(locals_.size());
    locals_[a.get()] = name;
    if (a->dynamic) {
      decls_ << "  Shared " << name << " = dynamic_shared(\"" << a->name << "\", "
             << type_code(a->type) << ");\n";
    } else {
      decls_ << "  Shared " << name << " = " << (a->local() ? "local" : "shared") << "(\""
             << a->name << "\", " << type_code(a->type) << ", {";
      for (size_t d = 0; d < a->extents.size(); ++d)
        decls_ << (d ? ", " : "") << a->extents[d];
      decls_ << "});\n";
    }
    (a->local() ? order_ : shared_order_).push_back(name);
    return name;
  }
  // "{sh0}": the kernel's shared arrays, in the order first used.
  std::string shared() const {
    std::string s = "{";
    for (size_t k = 0; k < shared_order_.size(); ++k)
      s += (k ? ", " : "") + shared_order_[k];
    return s + "}";
  }
  // "{l0, l1}": the kernel's local arrays, in the order first used.
  std::string locals() const {
    std::string s = "{";
    for (size_t k = 0; k < order_.size(); ++k)
      s += (k ? ", " : "") + order_[k];
    return s + "}";
  }

  std::string list(const std::vector<Expr> &es) {
    std::string s = "{";
    for (size_t k = 0; k < es.size(); ++k)
      s += (k ? ", " : "") + expr(es[k]);
    return s + "}";
  }

  std::string expr(const Expr &e) {
    switch (e.kind()) {
    case ExprKind::IntConst:
      return "ic(" + std::string(type_code(e.type())) + ", " +
             int_literal(e.as<IntConst>()->value) + ")";
    case ExprKind::FloatConst:
      return "fc(" + std::string(type_code(e.type())) + ", " +
             float_literal(e.as<FloatConst>()->value) + ")";
    case ExprKind::BoolConst:
      return e.as<BoolConst>()->value ? "bc(true)" : "bc(false)";
    case ExprKind::VarRef:
      return "var(" + var(e.as<VarRef>()->var) + ")";
    case ExprKind::ArrayExtent: {
      auto *n = e.as<ArrayExtent>();
      return "extent(" + std::to_string(n->array) + ", " + std::to_string(n->dim) + ")";
    }
    case ExprKind::Load: {
      auto *n = e.as<Load>();
      return "load(" + std::string(type_code(n->type)) + ", " + std::to_string(n->array) + ", " +
             list(n->indices) + ")";
    }
    case ExprKind::Unary: {
      auto *n = e.as<Unary>();
      return "un(" + std::string(unary_code(n->op)) + ", " + expr(n->a) + ")";
    }
    case ExprKind::Binary: {
      auto *n = e.as<Binary>();
      return "bin(" + std::string(binary_code(n->op)) + ", " + expr(n->a) + ", " + expr(n->b) + ")";
    }
    case ExprKind::Select: {
      auto *n = e.as<Select>();
      return "sel(" + expr(n->cond) + ", " + expr(n->a) + ", " + expr(n->b) + ")";
    }
    case ExprKind::Cast: {
      auto *n = e.as<Cast>();
      return "cast(" + std::string(type_code(n->type)) + ", " + expr(n->a) + ")";
    }
    case ExprKind::Call: {
      auto *n = e.as<Call>();
      return "call(" + std::string(fn_code(n->fn)) + ", " + list(n->args) + ")";
    }
    case ExprKind::SharedLoad: {
      auto *n = e.as<SharedLoad>();
      return "lload(" + local(n->array) + ", " + list(n->indices) + ")";
    }
    case ExprKind::SpecialReg: {
      auto *n = e.as<SpecialReg>();
      static const char *regs[] = {"Reg::ThreadIdx", "Reg::BlockIdx", "Reg::BlockDim",
                                   "Reg::GridDim"};
      return "SpecialReg::make(" + std::string(regs[static_cast<int>(n->reg)]) + ", " +
             std::to_string(n->dim) + ")";
    }
    case ExprKind::SharedExtent:
    case ExprKind::WarpOp:
      break; // the generator's SIMT kernels have none
    }
    return "/* unsupported expression */ Expr()";
  }

  std::string stmt(const Stmt &s, int indent) {
    std::string pad(indent * 2, ' ');
    if (!s.defined())
      return "Stmt()";
    switch (s.kind()) {
    case StmtKind::Block: {
      std::string out = "block({";
      const auto &stmts = s.as<Block>()->stmts;
      for (size_t k = 0; k < stmts.size(); ++k)
        out += "\n" + pad + "  " + stmt(stmts[k], indent + 1) + (k + 1 < stmts.size() ? "," : "");
      return out + "})";
    }
    case StmtKind::Declare: {
      auto *n = s.as<Declare>();
      return "decl(" + var(n->var) + ", " + expr(n->init) + ")";
    }
    case StmtKind::Assign: {
      auto *n = s.as<Assign>();
      return "assign(" + var(n->var) + ", " + expr(n->value) + ")";
    }
    case StmtKind::Store: {
      auto *n = s.as<Store>();
      return "store(" + std::to_string(n->array) + ", " + list(n->indices) + ", " + expr(n->value) +
             ")";
    }
    case StmtKind::Reduce: {
      auto *n = s.as<Reduce>();
      static const char *ops[] = {"ReduceOp::Add", "ReduceOp::Mul", "ReduceOp::Min",
                                  "ReduceOp::Max"};
      return std::string("reduce(") + ops[static_cast<int>(n->op)] + ", " +
             std::to_string(n->array) + ", " + list(n->indices) + ", " + expr(n->value) + ")";
    }
    case StmtKind::IfThenElse: {
      auto *n = s.as<IfThenElse>();
      std::string out = "if_(" + expr(n->cond) + ", " + stmt(n->then_case, indent);
      if (n->else_case.defined())
        out += ", " + stmt(n->else_case, indent);
      return out + ")";
    }
    case StmtKind::For: {
      auto *n = s.as<For>();
      return "for_(" + var(n->var) + ", " + expr(n->begin) + ", " + expr(n->end) + ", " +
             expr(n->step) + ", " + stmt(n->body, indent) + ")";
    }
    case StmtKind::While: {
      auto *n = s.as<While>();
      return "while_(" + expr(n->cond) + ", " + stmt(n->body, indent) + ")";
    }
    case StmtKind::ParallelFor: {
      auto *n = s.as<ParallelFor>();
      std::string vars = "{";
      for (size_t k = 0; k < n->vars.size(); ++k)
        vars += (k ? ", " : "") + var(n->vars[k]);
      return "pfor(" + vars + "}, " + list(n->extents) + ", " + stmt(n->body, indent) + ")";
    }
    case StmtKind::SharedStore: {
      auto *n = s.as<SharedStore>();
      return "lstore(" + local(n->array) + ", " + list(n->indices) + ", " + expr(n->value) + ")";
    }
    case StmtKind::Print: {
      std::string items = "{";
      for (const PrintItem &item : s.as<Print>()->items) {
        items += items.size() > 1 ? ", " : "";
        if (!item.value.defined()) {
          std::string quoted = "\"";
          for (char c : item.text)
            quoted += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
          items += "text(" + quoted + "\")";
        } else {
          items += "value(" + expr(item.value) + ")";
        }
      }
      return "print(" + items + "})";
    }
    case StmtKind::Assert: {
      auto *n = s.as<Assert>();
      return "assert_(" + expr(n->cond) + ", " + std::to_string(n->site) + ")";
    }
    case StmtKind::Barrier:
      return "Barrier::make()";
    case StmtKind::Mma: {
      auto *n = s.as<Mma>();
      std::string acc = "{";
      for (size_t r = 0; r < n->acc.size(); ++r)
        acc += (r ? ", " : "") + var(n->acc[r]);
      return "Mma::make(" + local(n->a) + ", " + list(n->a_origin) + ", " +
             (n->a_k_last ? "true" : "false") + ", " + local(n->b) + ", " + list(n->b_origin) +
             ", " + (n->b_k_last ? "true" : "false") + ", " + acc + "})";
    }
    case StmtKind::Assume:
    case StmtKind::AsyncCopy:
    case StmtKind::AsyncWait:
    case StmtKind::WarpgroupMma:
    case StmtKind::Mbarrier:
      break; // lowering passes make these, not the generator
    case StmtKind::Atomic:
      break; // the generator's SIMT kernels have none
    }
    return "Stmt()";
  }

private:
  std::map<const Variable *, std::string> names_;
  std::map<const SharedArray *, std::string> locals_;
  std::vector<std::string> order_, shared_order_;
  std::ostringstream decls_;
};

// A complex number as the braced std::complex<double> of its parts, each with every bit.
std::string complex_literal(ScalarValue v) {
  return "{" + float_literal(v.f) + ", " + float_literal(v.im) + "}";
}

std::string argument_cpp(const Param &p, const InterpreterArg &a) {
  if (p.kind == ParamKind::Scalar && is_complex(p.type))
    return "cscalar(" + std::string(type_code(p.type)) + ", " + float_literal(a.scalar.f) + ", " +
           float_literal(a.scalar.im) + ")";
  if (p.kind == ParamKind::Scalar)
    return is_float(p.type)
               ? "fscalar(" + std::string(type_code(p.type)) + ", " + float_literal(a.scalar.f) +
                     ")"
               : "iscalar(" + std::string(type_code(p.type)) + ", " + int_literal(a.scalar.i) + ")";
  const Buffer &b = a.array;
  std::string shape = "{";
  for (size_t d = 0; d < b.shape.size(); ++d)
    shape += (d ? ", " : "") + std::to_string(b.shape[d]);
  shape += "}";
  std::string values = "{";
  for (int64_t k = 0; k < b.size(); ++k) {
    ScalarValue v = b.get(k);
    values += (k ? ", " : "") + (is_complex(p.type) ? complex_literal(v)
                                 : is_float(p.type) ? float_literal(v.f)
                                                    : int_literal(v.i));
  }
  values += "}";
  const char *helper = is_complex(p.type) ? "cbuffer(" : is_float(p.type) ? "fbuffer(" : "ibuffer(";
  return helper + std::string(type_code(p.type)) + ", " + shape + ", " + values + ")";
}

std::string view_cpp(const ViewLayout &v) {
  if (!v.strided())
    return "as_dense()";
  std::string s = "as_view({";
  for (size_t d = 0; d < v.strides.size(); ++d)
    s += (d ? ", " : "") + std::to_string(v.strides[d]);
  return s + "}, " + std::to_string(v.offset) + ", " + std::to_string(v.buffer) +
         (v.device ? "" : ", false") + ")";
}

} // namespace

std::string views_text(const Program &program) {
  std::string s;
  for (size_t p = 0; p < program.views.size(); ++p) {
    const ViewLayout &v = program.views[p];
    if (!v.strided())
      continue;
    s += "view " + program.kernel.params[p].name + ": strides [";
    for (size_t d = 0; d < v.strides.size(); ++d)
      s += (d ? ", " : "") + std::to_string(v.strides[d]);
    s += "] from element " + std::to_string(v.offset) + " of a buffer of " +
         std::to_string(v.buffer) + (v.device ? "" : " (a host view on the GPU too)") + "\n";
  }
  return s;
}

std::string reproducer_cpp(const Program &program, const std::string &name,
                           const std::string &comment) {
  const ir::Kernel &k = program.kernel;
  Emitter emit(k.params);
  std::string body = emit.stmt(k.body, 1);

  std::ostringstream os;
  std::istringstream lines(comment);
  for (std::string line; std::getline(lines, line);)
    os << "// " << line << "\n";
  os << "TEST(DifferentialRegression, " << name << ") {\n";
  os << "  Program p;\n";
  os << "  p.seed = " << program.seed << "u;\n";
  os << "  p.kernel.name = \"" << k.name << "\";\n";
  os << "  p.kernel.params = {";
  for (size_t i = 0; i < k.params.size(); ++i) {
    const Param &prm = k.params[i];
    os << (i ? ", " : "")
       << (prm.kind == ParamKind::Array
               ? "array(\"" + prm.name + "\", " + type_code(prm.type) + ", " +
                     std::to_string(prm.rank) + ")"
               : "scalar(\"" + prm.name + "\", " + type_code(prm.type) + ")");
  }
  os << "};\n";
  os << emit.declarations();
  os << "  p.kernel.body = " << body << ";\n";
  if (!k.locals.empty())
    os << "  p.kernel.locals = " << emit.locals() << ";\n";
  if (k.simt()) {
    os << "  p.kernel.schedule.mapping = Mapping::Simt;\n";
    os << "  p.kernel.shared = " << emit.shared() << ";\n";
    os << "  p.simt_grid = " << program.simt_grid << ";\n";
    os << "  p.simt_block = " << program.simt_block << ";\n";
    os << "  p.dynamic_shared_bytes = " << program.dynamic_shared_bytes << ";\n";
  }
  if (!k.assert_sites.empty())
    os << "  p.kernel.assert_sites = sites(" << k.assert_sites.size() << ");\n";
  os << "  p.args = {";
  for (size_t i = 0; i < k.params.size(); ++i)
    os << (i ? ",\n            " : "") << argument_cpp(k.params[i], program.args[i]);
  os << "};\n";
  if (!program.views.empty()) {
    os << "  p.views = {";
    for (size_t i = 0; i < program.views.size(); ++i)
      os << (i ? ",\n             " : "") << view_cpp(program.views[i]);
    os << "};\n";
  }
  os << "  expect_backends_agree(p);\n";
  os << "}\n";
  return os.str();
}

std::string shrink_and_report(const Program &program, const Failure &failure,
                              const CheckOptions &options, const std::string &dir) {
  ShrinkResult small = shrink(program, failure, options);
  std::ostringstream os;
  os << "seed " << program.seed << ": " << failure.check << " " << failure.kind << ": "
     << failure.detail << "\n";
  os << "shrunk from " << program_size(program) << " to " << program_size(small.program)
     << " IR nodes (" << small.tried << " candidates run, " << small.kept
     << " kept); it fails as:\n"
     << small.failure.check << " " << small.failure.kind << ": " << small.failure.detail << "\n\n"
     << ir::to_string(small.program.kernel) << "\n"
     << views_text(small.program) << "\n";
  std::string name = "Seed" + std::to_string(program.seed);
  std::string cpp =
      reproducer_cpp(small.program, name,
                     "seed " + std::to_string(program.seed) + ", shrunk: " + small.failure.check +
                         " " + small.failure.kind + ":\n" + small.failure.detail);
  os << cpp;
  if (!dir.empty()) {
    std::string path = dir + "/" + program.kernel.name + ".cpp";
    std::ofstream(path) << cpp;
    os << "(written to " << path << ")\n";
  }
  return os.str();
}

} // namespace loom::difftest
