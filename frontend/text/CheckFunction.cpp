// The checker's handling of whole functions: signatures, parameters, shape symbols, kernels and
// the stand-alone check of helpers; and the scopes and IR blocks the statements fill.
#include "frontend/text/Checker.h"

#include "ir/MathFunctions.h"

#include "ir/Verifier.h"
#include "support/Error.h"

#include <algorithm>
#include <set>

namespace loom::text {

namespace {

const std::map<std::string, ir::ScalarType> &scalar_types() {
  static const std::map<std::string, ir::ScalarType> t = {
      {"bool", ir::ScalarType::Bool}, {"i8", ir::ScalarType::I8},   {"i16", ir::ScalarType::I16},
      {"i32", ir::ScalarType::I32},   {"i64", ir::ScalarType::I64}, {"u8", ir::ScalarType::U8},
      {"u16", ir::ScalarType::U16},   {"u32", ir::ScalarType::U32}, {"u64", ir::ScalarType::U64},
      {"f32", ir::ScalarType::F32},   {"f64", ir::ScalarType::F64}, {"f16", ir::ScalarType::F16},
      {"bf16", ir::ScalarType::BF16}, {"c64", ir::ScalarType::C64}, {"c128", ir::ScalarType::C128}};
  return t;
}

// Type names of other languages, and loom's name for them.
const char *loom_type_for(const std::string &name) {
  static const std::map<std::string, const char *> other = {
      {"float32", "f32"},   {"float", "f32 or f64"}, {"float64", "f64"},  {"double", "f64"},
      {"int32", "i32"},     {"int", "i32 or i64"},   {"int64", "i64"},    {"boolean", "bool"},
      {"bool_", "bool"},    {"long", "i64"},         {"float16", "f16"},  {"half", "f16"},
      {"bfloat16", "bf16"}, {"int8", "i8"},          {"int16", "i16"},    {"uint8", "u8"},
      {"uint16", "u16"},    {"uint32", "u32"},       {"uint64", "u64"},   {"uint", "u32 or u64"},
      {"byte", "u8"},       {"char", "i8 or u8"},    {"short", "i16"},    {"unsigned", "u32"},
      {"complex64", "c64"}, {"complex128", "c128"},  {"complex", "c128"}, {"cfloat", "c64"},
      {"cdouble", "c128"},  {"complex_", "c128"}};
  auto it = other.find(name);
  return it == other.end() ? nullptr : it->second;
}

const std::set<std::string> &builtin_functions() {
  static const std::set<std::string> b = [] {
    std::set<std::string> b = {"range", "parallel", "len", "bool", "i8", "i16", "i32", "i64", "u8",
                               "u16", "u32", "u64", "f16", "bf16", "f32", "f64", "c64", "c128",
                               "fabs", "fmod", "degrees", "radians", "min", "max", "math", "cmath",
                               // the SIMT level
                               "cuda", "shared", "local", "atomic", "syncthreads", "grid",
                               "gridsize", "shfl_sync", "shfl_up_sync", "shfl_down_sync",
                               "shfl_xor_sync", "any_sync", "all_sync", "ballot_sync", "threadIdx",
                               "blockIdx", "blockDim", "gridDim", "laneid", "warpsize"};
    for (int k = 0; k < ir::kMathFnCount; ++k)
      b.insert(ir::fn_name(static_cast<ir::MathFn>(k)));
    return b;
  }();
  return b;
}

// The (loop, n) pairs of an unroll or vectorize option: (k, 4), or several: ((k, 4), (j, 2));
// empty when the value is neither. A loop may be named by a string too: ("k.1", 4) for the second
// loop over k (the IR's name for it, which is no identifier).
std::vector<const ast::Expr *> loop_pairs(const ast::Expr &v) {
  auto pair = [](const ast::Expr &e) {
    return e.kind == ast::ExprKind::Tuple && e.operands.size() == 2 &&
           (e.operands[0]->kind == ast::ExprKind::Name ||
            e.operands[0]->kind == ast::ExprKind::String);
  };
  if (pair(v))
    return {&v};
  std::vector<const ast::Expr *> pairs;
  for (size_t k = 0; v.kind == ast::ExprKind::Tuple && k < v.operands.size(); ++k)
    if (pair(*v.operands[k]))
      pairs.push_back(v.operands[k].get());
    else
      return {};
  return pairs;
}

} // namespace

Checker::Checker(const ast::Module &module, Diagnostics &diagnostics)
    : module_(module), diag_(diagnostics) {}

std::vector<ir::Kernel> Checker::run() {
  collect_functions();
  for (const ast::Function &f : module_.functions)
    signatures_[&f] = signature(f);
  for (const ast::Function &f : module_.functions)
    if (!f.is_kernel && functions_.count(f.name) && functions_[f.name] == &f)
      check_helper(f);
  std::vector<ir::Kernel> kernels;
  for (const ast::Function &f : module_.functions)
    if (f.is_kernel && functions_.count(f.name) && functions_[f.name] == &f && !diag_.full())
      if (std::optional<ir::Kernel> k = kernel(f))
        kernels.push_back(std::move(*k));
  return kernels;
}

void Checker::collect_functions() {
  for (const ast::Function &f : module_.functions) {
    if (builtin_functions().count(f.name)) {
      diag_.error(f.name_loc, "'" + f.name + "' is a built-in name; choose another function name");
      continue;
    }
    auto [it, fresh] = functions_.emplace(f.name, &f);
    if (!fresh)
      diag_.error(f.name_loc, "function '" + f.name + "' is already defined on line " +
                                  std::to_string(it->second->name_loc.line));
  }
}

std::optional<CheckedType> Checker::checked_type(const ast::TypeExpr &t, const std::string &what) {
  auto it = scalar_types().find(t.scalar);
  if (it == scalar_types().end()) {
    std::string message = "unknown type '" + t.scalar + "'";
    if (const char *loom = loom_type_for(t.scalar))
      message += std::string(" (loom writes ") + loom + ")";
    diag_.error(t.loc, message + "; the types are bool, i8, i16, i32, i64, u8, u16, u32, u64, "
                                 "f16, bf16, f32, f64, c64 and c128");
    return std::nullopt;
  }
  CheckedType c;
  c.scalar = it->second;
  c.is_array = t.is_array;
  c.dims = t.dims;
  if (t.is_array && t.dims.size() > static_cast<size_t>(ir::kMaxRank)) {
    diag_.error(t.loc, "arrays have 1 to " + std::to_string(ir::kMaxRank) + " dimensions; " + what +
                           " has " + std::to_string(t.dims.size()));
    return std::nullopt;
  }
  return c;
}

Signature Checker::signature(const ast::Function &f) {
  Signature sig;
  std::set<std::string> seen;
  for (const ast::Param &p : f.params) {
    CheckedType type;
    if (!seen.insert(p.name).second) {
      diag_.error(p.loc, "duplicate parameter '" + p.name + "'");
      sig.ok = false;
    }
    if (!p.type) {
      diag_.error(p.loc, "parameter '" + p.name + "' needs a type, as in '" + p.name +
                             ": f32' or '" + p.name + ": f32[n]'");
      sig.ok = false;
    } else if (std::optional<CheckedType> t = checked_type(*p.type, "'" + p.name + "'")) {
      type = *t;
    } else {
      sig.ok = false;
    }
    sig.params.push_back(type);
  }
  if (f.returns) {
    std::optional<CheckedType> t = checked_type(*f.returns, "the return type");
    if (f.is_kernel) {
      diag_.error(f.returns->loc, "a kernel returns nothing (it writes arrays); remove '-> " +
                                      f.returns->scalar + "'");
      sig.ok = false;
    } else if (t && t->is_array) {
      diag_.error(f.returns->loc, "a helper function returns a scalar, not an array");
      sig.ok = false;
    } else if (t) {
      sig.returns = t->scalar;
    } else {
      sig.ok = false;
    }
  }
  return sig;
}

// Parameters of the kernel being built (or of a helper checked on its own), in a fresh frame.
void Checker::bind_parameters(const ast::Function &f, const Signature &sig) {
  std::set<std::string> names;
  for (const ast::Param &p : f.params)
    names.insert(p.name);
  for (size_t k = 0; k < f.params.size(); ++k) {
    const ast::Param &p = f.params[k];
    const CheckedType &t = sig.params[k];
    Symbol s;
    s.loc = p.loc;
    if (!t.is_array) {
      ir::Var v = ir::make_var(p.name, t.scalar);
      kernel_.params.push_back({p.name, ir::ParamKind::Scalar, t.scalar, 0, v});
      s.kind = Symbol::Kind::Scalar;
      s.value = Value::of(ir::VarRef::make(v));
      declare(p.name, s);
      continue;
    }
    int index = static_cast<int>(kernel_.params.size());
    kernel_.params.push_back(
        {p.name, ir::ParamKind::Array, t.scalar, static_cast<int>(t.dims.size()), nullptr});
    s.kind = Symbol::Kind::Array;
    s.array = index;
    declare(p.name, s);
    for (size_t d = 0; d < t.dims.size(); ++d) {
      const ast::Dim &dim = t.dims[d];
      if (!dim.symbol.empty() && names.count(dim.symbol))
        diag_.error(dim.loc, "shape symbol '" + dim.symbol + "' has the name of a parameter");
      else
        bind_shape(dim.symbol.empty() ? std::to_string(dim.extent) : dim.symbol, dim.loc, index,
                   static_cast<int>(d), f.is_kernel ? "" : f.name);
    }
  }
}

// One dimension (array, dim) declared with a shape symbol or a literal extent (`name` is then
// its digits). A kernel's symbols are all recorded; a helper's only when they constrain.
void Checker::bind_shape(const std::string &name, SourceLocation loc, int array, int dim,
                         const std::string &helper) {
  Frame &frame = frames_.back();
  bool literal = name[0] >= '0' && name[0] <= '9';
  auto [it, first] = frame.shapes.emplace(name, Frame::Shape{array, dim, -1});
  Frame::Shape &shape = it->second;
  if (first && !literal) {
    Symbol s;
    s.kind = Symbol::Kind::Shape;
    s.loc = loc;
    s.value = Value::of(ir::ArrayExtent::make(array, dim));
    declare(name, s);
  }
  if (first && !helper.empty() && !literal)
    return; // one dimension of a helper's symbol constrains nothing
  if (shape.entry < 0) {
    ir::ShapeSymbol sym;
    sym.name = helper.empty() ? name : name + " (in helper '" + helper + "')";
    if (literal)
      sym.extent = std::stoll(name);
    if (!first)
      sym.dims.push_back({shape.array, shape.dim});
    shape.entry = static_cast<int>(kernel_.shape_symbols.size());
    kernel_.shape_symbols.push_back(sym);
  }
  kernel_.shape_symbols[shape.entry].dims.push_back({array, dim});
}

void Checker::options(const ast::Function &f, ir::Kernel &k) {
  std::set<std::string> seen;
  const size_t errors = diag_.size();
  // The mapping's options, made into the kernel's one mapping at the end.
  int threads = 0;
  ir::TileSchedule tile;
  bool simt = false, autotune = false;
  // An integer option from lo to hi, a multiple of `multiple`; else `takes` says what it takes.
  auto integer = [&](const ast::Option &o, int64_t lo, int64_t hi, int64_t multiple, int &into,
                     const char *takes) {
    const int64_t v = o.value->kind == ast::ExprKind::Int ? o.value->int_value : -1;
    if (v < lo || v > hi || v % multiple != 0)
      diag_.error(o.value->begin, "option '" + o.key + "' takes " + takes);
    else
      into = static_cast<int>(v);
  };
  for (const ast::Option &o : f.options) {
    if (!seen.insert(o.key).second) {
      diag_.error(o.loc, "option '" + o.key + "' is given twice");
    } else if (o.key == "block_per_iteration") {
      integer(o, 32, 1024, 32, threads,
              "a multiple of 32 from 32 to 1024 (the threads of the block each iteration runs on)");
    } else if (o.key == "tile" && o.value->kind == ast::ExprKind::String) {
      // tile="auto": the tile's values chosen by trials (Kernel::autotune).
      if (o.value->name != "auto")
        diag_.error(o.value->begin, "option 'tile' takes two integers, as in tile=(128, 128), "
                                    "or \"auto\" (the tile chosen by trials)");
      else
        autotune = true;
    } else if (o.key == "tile" || o.key == "thread_tile") {
      // A tuple of two positive integers.
      const ast::Expr &v = *o.value;
      bool pair = v.kind == ast::ExprKind::Tuple && v.operands.size() == 2;
      for (size_t d = 0; pair && d < 2; ++d)
        pair = v.operands[d]->kind == ast::ExprKind::Int && v.operands[d]->int_value >= 1 &&
               v.operands[d]->int_value <= 1024;
      if (!pair) {
        diag_.error(v.begin, "option '" + o.key + "' takes two integers from 1 to 1024, as in " +
                                 o.key + (o.key == "tile" ? "=(128, 128)" : "=(8, 8)"));
      } else {
        const int r = static_cast<int>(v.operands[0]->int_value);
        const int c = static_cast<int>(v.operands[1]->int_value);
        if (o.key == "tile")
          tile.rows = r, tile.cols = c;
        else
          tile.thread_rows = r, tile.thread_cols = c;
      }
    } else if (o.key == "unroll" || o.key == "vectorize") {
      const bool unroll = o.key == "unroll";
      std::vector<const ast::Expr *> pairs = loop_pairs(*o.value);
      if (pairs.empty())
        diag_.error(o.value->begin, "option '" + o.key + "' takes a loop variable and " +
                                        (unroll ? "a factor, as in unroll=(k, 4)"
                                                : "a width, as in vectorize=(i, 8)") +
                                        ", or several pairs: " + o.key +
                                        "=((k, 4), (j, 2)); a second loop over k is \"k.1\"");
      for (const ast::Expr *p : pairs) {
        const std::string &loop = p->operands[0]->name;
        const ast::Expr &n = *p->operands[1];
        const int64_t v = n.kind == ast::ExprKind::Int ? n.int_value : -1;
        ir::LoopSchedule &schedule = k.schedule.loops[loop];
        int &into = unroll ? schedule.unroll : schedule.vectorize;
        if (into != 0)
          diag_.error(p->begin, "loop '" + loop + "' is given twice in option '" + o.key + "'");
        else if (unroll && (v < 1 || v > 64))
          diag_.error(n.begin, "option 'unroll' takes a factor from 1 to 64 for loop '" + loop +
                                   "' (1: not unrolled)");
        else if (!unroll && (v < 1 || v > 16 || (v & (v - 1)) != 0))
          diag_.error(n.begin, "option 'vectorize' takes a width of 1, 2, 4, 8 or 16 for loop '" +
                                   loop + "'");
        else
          into = static_cast<int>(v);
      }
    } else if (o.key == "blocks_per_sm") {
      integer(o, 1, 32, 1, tile.min_blocks,
              "the blocks of the tile schedule each SM should hold at once, from 1 to 32");
    } else if (o.key == "schedule") {
      // None: the default mapping and nothing of loom's choosing; "auto": loom may choose.
      const ast::Expr &v = *o.value;
      if (v.kind == ast::ExprKind::Name && v.name == "None")
        k.schedule.automatic = false;
      else if (v.kind == ast::ExprKind::String && v.name == "auto")
        k.schedule.automatic = true;
      else
        diag_.error(v.begin, "option 'schedule' takes None (the default mapping, with no "
                             "schedule of loom's choosing) or \"auto\" (loom may choose one)");
    } else if (o.key == "stage") {
      integer(o, 1, 64, 1, tile.depth,
              "the steps of the inner loop staged in shared memory at a time, from 1 to 64");
    } else if (o.key != "fastmath" && o.key != "bounds_check" && o.key != "simt" &&
               o.key != "asserts" && o.key != "tf32" && o.key != "tensor_cores") {
      diag_.error(o.loc, "unknown option '" + o.key +
                             "' of @kernel; the options are fastmath, bounds_check, asserts, "
                             "simt, block_per_iteration, tile, thread_tile, stage, "
                             "blocks_per_sm, tensor_cores, tf32, schedule, unroll and "
                             "vectorize");
    } else if (o.value->kind != ast::ExprKind::Bool) {
      diag_.error(o.value->begin, "option '" + o.key + "' takes True or False");
    } else if (o.key == "tensor_cores") {
      tile.tensor_cores = o.value->bool_value ? ir::TensorCores::Required : ir::TensorCores::Off;
    } else if (o.key == "tf32") {
      k.tf32 = o.value->bool_value;
    } else {
      (o.key == "fastmath"  ? k.fast_math
       : o.key == "simt"    ? simt
       : o.key == "asserts" ? k.asserts
                            : k.bounds_check) = o.value->bool_value;
    }
  }
  const bool tiled = seen.count("tile") != 0 && !autotune;
  if (autotune && (seen.count("thread_tile") || seen.count("stage") ||
                   seen.count("blocks_per_sm") || seen.count("tensor_cores"))) {
    diag_.error(f.loc, "under tile=\"auto\" trials choose the tile's values: give "
                       "'thread_tile', 'stage', 'blocks_per_sm' and 'tensor_cores' only with a "
                       "tile of your own, as in tile=(128, 128)");
  } else if (autotune && (simt || threads > 0)) {
    diag_.error(f.loc, std::string("tile=\"auto\" does not combine with ") +
                           (simt ? "simt=True" : "block_per_iteration"));
  } else if (autotune) {
    k.schedule.autotune = true;
  } else if (!tiled &&
             (seen.count("thread_tile") || seen.count("stage") || seen.count("blocks_per_sm") ||
              seen.count("tensor_cores") || seen.count("tf32"))) {
    diag_.error(f.loc, "options 'thread_tile', 'stage', 'blocks_per_sm', 'tensor_cores' and 'tf32' "
                       "belong to the tile schedule: give 'tile' too, as in @kernel(tile=(128, "
                       "128), thread_tile=(8, 8), stage=8)");
  } else if (tiled && tile.rows > 0 && diag_.size() == errors) {
    const ir::Mapping other = simt      ? ir::Mapping::Simt
                              : threads ? ir::Mapping::BlockPerIteration
                                        : ir::Mapping::Parallel;
    if (std::string problem = ir::tile_problem(tile); !problem.empty())
      diag_.error(f.loc, "schedule " + problem);
    else if (!ir::remap_problem(other, ir::Mapping::Tile).empty())
      diag_.error(f.loc, std::string("the tile schedule does not combine with ") +
                             (simt ? "simt=True" : "block_per_iteration"));
    else
      k.schedule = ir::with_tile(k.schedule, tile);
  }
  if (simt && threads > 0 && diag_.size() == errors)
    diag_.error(f.loc, "block_per_iteration does not combine with simt=True");
  else if (simt)
    k.schedule.mapping = ir::Mapping::Simt;
  else if (threads > 0 && !tiled)
    k.schedule = ir::with_block_per_iteration(k.schedule, threads);
}

std::optional<ir::Kernel> Checker::kernel(const ast::Function &f) {
  size_t errors = diag_.size();
  kernel_ = KernelState();
  inlined_calls_ = 0;
  frames_.assign(1, Frame(&f));
  blocks_.clear();
  returned_.clear();
  enclosing_ = nullptr;
  not_for_ = nullptr;
  open_scope();
  const Signature &sig = signatures_[&f];
  bind_parameters(f, sig);
  ir::Kernel k;
  k.name = f.name;
  options(f, k);
  kernel_.simt = k.simt();
  k.body = block(f.body, nullptr);
  close_scope();
  frames_.clear();
  k.params = kernel_.params;
  k.shape_symbols = kernel_.shape_symbols;
  k.shared = kernel_.shared;
  k.locals = kernel_.locals;
  k.call_checks = kernel_.call_checks;
  k.assert_sites = kernel_.assert_sites;
  // The loops the unroll and vectorize options name exist only now that the body is built.
  for (const ast::Option &o : f.options)
    for (const ast::Expr *p : o.key == "unroll" || o.key == "vectorize"
                                  ? loop_pairs(*o.value)
                                  : std::vector<const ast::Expr *>()) {
      ir::LoopSchedule one;
      (o.key == "unroll" ? one.unroll : one.vectorize) = 1;
      if (std::string problem = ir::loop_schedule_problem({{p->operands[0]->name, one}}, k);
          !problem.empty())
        diag_.error(p->operands[0]->begin, problem);
    }
  if (diag_.size() != errors || !sig.ok)
    return std::nullopt;
  try {
    ir::verify(k);
  } catch (const VerifyError &e) {
    diag_.error(f.loc, std::string("internal error: the IR built for this kernel is invalid (") +
                           e.what() + "); please report it");
    return std::nullopt;
  }
  return k;
}

// A helper is checked once on its own (with its parameters as those of a kernel), so that its
// errors are reported once, even if no kernel calls it; a call of a helper with errors then
// fails quietly.
void Checker::check_helper(const ast::Function &f) {
  if (helper_state_[&f] != HelperState::Unchecked)
    return;
  size_t errors = diag_.size();
  kernel_ = KernelState();
  inlined_calls_ = 0;
  frames_.assign(1, Frame(&f));
  blocks_.clear();
  enclosing_ = nullptr;
  not_for_ = nullptr;
  open_scope();
  open_block();
  bind_parameters(f, signatures_[&f]);
  helper_body(f);
  close_block();
  close_scope();
  frames_.clear();
  if (diag_.size() != errors || !signatures_[&f].ok)
    helper_state_[&f] = HelperState::Bad;
  else if (helper_state_[&f] == HelperState::Unchecked)
    helper_state_[&f] = HelperState::Ok;
}

// The statements of a helper, into the current block; returns the value it returns, if any.
std::optional<Value> Checker::helper_body(const ast::Function &f) {
  returned_.emplace_back();
  for (size_t k = 0; k < f.body.size() && !diag_.full(); ++k) {
    try {
      statement(*f.body[k], k + 1 == f.body.size());
    } catch (const CheckFailed &) {
    }
  }
  const Signature &sig = signatures_[&f];
  bool ends_in_return = !f.body.empty() && f.body.back()->kind == ast::StmtKind::Return;
  if (sig.returns && !ends_in_return)
    diag_.error(f.name_loc, "helper '" + f.name +
                                "' must end with 'return <value>'; it is "
                                "declared to return " +
                                ir::type_name(*sig.returns));
  std::optional<Value> result = returned_.back();
  returned_.pop_back();
  return result;
}

// ---- scopes and blocks --------------------------------------------------------------------

const Symbol *Checker::lookup(const std::string &name) const {
  const Frame &frame = frames_.back();
  for (auto it = frame.scopes.rbegin(); it != frame.scopes.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end())
      return &found->second;
  }
  return nullptr;
}

void Checker::declare(const std::string &name, Symbol s) {
  Frame &frame = frames_.back();
  frame.closed.erase(name);
  frame.scopes.back().emplace(name, std::move(s));
}

void Checker::open_scope() {
  frames_.back().scopes.emplace_back();
}

void Checker::close_scope() {
  Frame &frame = frames_.back();
  for (const auto &[name, s] : frame.scopes.back())
    if (s.kind == Symbol::Kind::Local || s.kind == Symbol::Kind::Generator)
      frame.closed.emplace(name, s.loc);
  frame.scopes.pop_back();
}

void Checker::open_block() {
  blocks_.emplace_back();
}

ir::Stmt Checker::close_block() {
  std::vector<ir::Stmt> stmts = std::move(blocks_.back());
  blocks_.pop_back();
  return ir::Block::make(std::move(stmts));
}

void Checker::emit(ir::Stmt s) {
  blocks_.back().push_back(std::move(s));
}

void Checker::error(SourceLocation at, const std::string &message) {
  diag_.error(at, message);
  throw CheckFailed{};
}

} // namespace loom::text
