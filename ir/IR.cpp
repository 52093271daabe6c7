#include "ir/IR.h"

#include "ir/MathFunctions.h"

#include "support/Error.h"
#include "support/Float16.h"

#include <cstring>
#include <optional>

namespace loom::ir {

namespace {
[[noreturn]] void ill_typed(const std::string &what) {
  throw VerifyError("ill-typed IR: " + what);
}
} // namespace

const char *type_name(ScalarType t) {
  switch (t) {
  case ScalarType::Bool:
    return "bool";
  case ScalarType::I8:
    return "i8";
  case ScalarType::I16:
    return "i16";
  case ScalarType::I32:
    return "i32";
  case ScalarType::I64:
    return "i64";
  case ScalarType::U8:
    return "u8";
  case ScalarType::U16:
    return "u16";
  case ScalarType::U32:
    return "u32";
  case ScalarType::U64:
    return "u64";
  case ScalarType::F32:
    return "f32";
  case ScalarType::F64:
    return "f64";
  case ScalarType::F16:
    return "f16";
  case ScalarType::BF16:
    return "bf16";
  case ScalarType::C64:
    return "c64";
  case ScalarType::C128:
    return "c128";
  }
  return "?";
}

ScalarType int_type(int bits, bool is_signed) {
  switch (bits) {
  case 8:
    return is_signed ? ScalarType::I8 : ScalarType::U8;
  case 16:
    return is_signed ? ScalarType::I16 : ScalarType::U16;
  case 32:
    return is_signed ? ScalarType::I32 : ScalarType::U32;
  default:
    return is_signed ? ScalarType::I64 : ScalarType::U64;
  }
}

ScalarType promote(ScalarType a, ScalarType b) {
  if (is_complex(a) || is_complex(b))
    return complex_of(promote(part_type(a), part_type(b)));
  if (is_float(a) || is_float(b)) {
    if (a == ScalarType::F64 || b == ScalarType::F64)
      return ScalarType::F64;
    const bool ha = is_half_float(a), hb = is_half_float(b);
    if (ha && hb)
      return a == b ? a : ScalarType::F32;
    if (ha && !is_float(b))
      return a;
    if (hb && !is_float(a))
      return b;
    return ScalarType::F32;
  }
  a = promote_integer(a);
  b = promote_integer(b);
  if (a == b)
    return a;
  const int wa = bit_width(a), wb = bit_width(b);
  if (is_unsigned(a) == is_unsigned(b))
    return wa >= wb ? a : b;
  ScalarType u = is_unsigned(a) ? a : b, s = is_unsigned(a) ? b : a;
  if (bit_width(u) >= bit_width(s))
    return u; // u32 + i32, u64 + i32, u64 + i64: unsigned
  return s;   // u32 + i64: i64 holds every u32
}

const char *target_name(Target t) {
  return t == Target::GPU ? "gpu" : "cpu";
}

const char *op_name(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg:
    return "-";
  case UnaryOp::Not:
    return "!";
  case UnaryOp::BitNot:
    return "~";
  case UnaryOp::RoundF16:
    return "round_f16";
  case UnaryOp::RoundBF16:
    return "round_bf16";
  case UnaryOp::RoundTF32:
    return "round_tf32";
  }
  return "?";
}

const char *op_name(BinaryOp op) {
  static const char *names[] = {"+",  "-",  "*", "/",  "%", "min", "max", "&",  "|",  "^",
                                "<<", ">>", "<", "<=", ">", ">=",  "==",  "!=", "&&", "||"};
  return names[static_cast<int>(op)];
}

const char *fn_name(MathFn fn) {
  return math_info(fn).name;
}

int fn_arity(MathFn fn) {
  return math_info(fn).arity;
}

bool is_comparison(BinaryOp op) {
  return op >= BinaryOp::Lt && op <= BinaryOp::Ne;
}

Var make_var(std::string name, ScalarType type) {
  return std::make_shared<const Variable>(Variable{std::move(name), type});
}

Expr IntConst::make(ScalarType t, int64_t v) {
  if (!is_int(t))
    ill_typed(std::string("integer constant of type ") + type_name(t));
  v = wrap_int(t, static_cast<uint64_t>(v));
  return Expr(std::make_shared<const IntConst>(t, v));
}

Expr FloatConst::make(ScalarType t, double v) {
  if (!is_float(t))
    ill_typed(std::string("float constant of type ") + type_name(t));
  if (t == ScalarType::F32)
    v = static_cast<float>(v);
  else if (t == ScalarType::F16)
    v = round_to_f16(v);
  else if (t == ScalarType::BF16)
    v = round_to_bf16(v);
  return Expr(std::make_shared<const FloatConst>(t, v));
}

Expr BoolConst::make(bool v) {
  return Expr(std::make_shared<const BoolConst>(v));
}

Expr VarRef::make(Var v) {
  return Expr(std::make_shared<const VarRef>(std::move(v)));
}

Expr ArrayExtent::make(int array, int dim) {
  return Expr(std::make_shared<const ArrayExtent>(array, dim));
}

Expr Load::make(ScalarType elem, int array, std::vector<Expr> indices) {
  for (const Expr &i : indices)
    if (i.type() != ScalarType::I64)
      ill_typed("array index must be i64");
  return Expr(std::make_shared<const Load>(value_type(elem), array, std::move(indices)));
}

Expr Unary::make(UnaryOp op, Expr a) {
  ScalarType t = a.type();
  if (op == UnaryOp::Not && t != ScalarType::Bool)
    ill_typed("logical not of a non-bool");
  if (op == UnaryOp::BitNot && !is_int(t))
    ill_typed("bitwise not of a non-integer");
  if (op == UnaryOp::Neg && t == ScalarType::Bool)
    ill_typed("negation of a bool");
  if (is_rounding(op) && t != ScalarType::F32 && t != ScalarType::F64)
    ill_typed(std::string(op_name(op)) + " of a " + type_name(t) + " (it rounds an f32 or f64)");
  return Expr(std::make_shared<const Unary>(op, std::move(a)));
}

Expr Binary::make(BinaryOp op, Expr a, Expr b) {
  if (a.type() != b.type())
    ill_typed(std::string("operands of '") + op_name(op) + "' have types " + type_name(a.type()) +
              " and " + type_name(b.type()));
  ScalarType t = a.type();
  ScalarType result = t;
  if (is_complex(t) && op != BinaryOp::Add && op != BinaryOp::Sub && op != BinaryOp::Mul &&
      op != BinaryOp::Div && op != BinaryOp::Eq && op != BinaryOp::Ne)
    ill_typed(std::string("'") + op_name(op) + "' on " + type_name(t) +
              " (complex numbers take + - * / == != only)");
  switch (op) {
  case BinaryOp::And:
  case BinaryOp::Or:
    if (t != ScalarType::Bool)
      ill_typed(std::string("'") + op_name(op) + "' needs bool operands");
    break;
  case BinaryOp::BitAnd:
  case BinaryOp::BitOr:
  case BinaryOp::BitXor:
    if (!is_int(t) && t != ScalarType::Bool)
      ill_typed(std::string("'") + op_name(op) + "' needs integer operands");
    break;
  case BinaryOp::Shl:
  case BinaryOp::Shr:
    if (!is_int(t))
      ill_typed(std::string("'") + op_name(op) + "' needs integer operands");
    break;
  case BinaryOp::Lt:
  case BinaryOp::Le:
  case BinaryOp::Gt:
  case BinaryOp::Ge:
  case BinaryOp::Eq:
  case BinaryOp::Ne:
    result = ScalarType::Bool;
    break;
  default:
    if (t == ScalarType::Bool)
      ill_typed(std::string("arithmetic '") + op_name(op) + "' on bool");
  }
  return Expr(std::make_shared<const Binary>(result, op, std::move(a), std::move(b)));
}

Expr Select::make(Expr cond, Expr a, Expr b) {
  if (cond.type() != ScalarType::Bool)
    ill_typed("select condition must be bool");
  if (a.type() != b.type())
    ill_typed("select arms have different types");
  return Expr(std::make_shared<const Select>(std::move(cond), std::move(a), std::move(b)));
}

Expr Cast::make(ScalarType t, Expr a) {
  if (a.type() == t)
    return a;
  return Expr(std::make_shared<const Cast>(t, std::move(a)));
}

Expr Call::make(MathFn fn, std::vector<Expr> args) {
  const MathFnInfo &info = math_info(fn);
  if (static_cast<int>(args.size()) != info.arity)
    ill_typed(std::string(info.name) + " takes " + std::to_string(info.arity) + " arguments");
  ScalarType t = args[0].type();
  for (size_t k = 1; k < args.size(); ++k) {
    ScalarType expected = info.args == MathArgs::FloatAndExp ? ScalarType::I32 : t;
    if (args[k].type() != expected)
      ill_typed(std::string("argument ") + std::to_string(k + 1) + " of " + info.name + " is " +
                type_name(args[k].type()) + ", expected " + type_name(expected));
  }
  if (!math_takes(fn, t))
    ill_typed(std::string(info.name) + " takes " + math_takes_what(fn) + ", not " + type_name(t));
  return Expr(std::make_shared<const Call>(math_result_type(fn, t), fn, std::move(args)));
}

Expr SpecialReg::make(Reg reg, int dim) {
  return Expr(std::make_shared<const SpecialReg>(reg, dim));
}

int64_t SharedArray::size() const {
  int64_t n = 1;
  for (int64_t e : extents)
    n *= e;
  return n;
}

namespace {
Shared make_array(std::string name, ScalarType type, std::vector<int64_t> extents,
                  MemorySpace space, bool halves = false) {
  const std::string what = space == MemorySpace::Thread ? "local array" : "shared array";
  if (extents.empty() || extents.size() > 3)
    ill_typed(what + " '" + name + "' needs 1 to 3 extents");
  int64_t size = 1;
  for (int64_t e : extents) {
    if (e <= 0 || e > (int64_t(1) << 20))
      ill_typed(what + " '" + name + "' has extent " + std::to_string(e) +
                " (each must be 1 to 2^20)");
    if (size > (int64_t(1) << 20) / e) // checked before it could overflow
      ill_typed(what + " '" + name + "' has more than 2^20 elements");
    size *= e;
  }
  if (space == MemorySpace::Thread) {
    if (is_half_float(type) || is_complex(type))
      ill_typed("local array '" + name + "' of " + type_name(type) +
                " (local arrays hold bool, integers, f32 or f64)");
    if (size * byte_size(type) > max_local_bytes)
      ill_typed("local array '" + name + "' takes " + std::to_string(size * byte_size(type)) +
                " bytes; a local array takes at most " + std::to_string(max_local_bytes));
  } else {
    if ((is_half_float(type) && !halves) || is_complex(type))
      ill_typed("shared array '" + name + "' of " + type_name(type) +
                " (shared arrays hold bool, integers, f16, bf16, f32 or f64)");
    if (size * byte_size(type) > (int64_t(1) << 20))
      ill_typed("shared array '" + name + "' takes " + std::to_string(size * byte_size(type)) +
                " bytes (a block's shared memory is far smaller)");
  }
  return std::make_shared<const SharedArray>(
      SharedArray{std::move(name), type, std::move(extents), space});
}
} // namespace

Shared make_shared_array(std::string name, ScalarType type, std::vector<int64_t> extents) {
  return make_array(std::move(name), type, std::move(extents), MemorySpace::Block, true);
}

Shared make_staging_array(std::string name, ScalarType type, std::vector<int64_t> extents) {
  if (!is_half_float(type) && type != ScalarType::F32)
    ill_typed("staging array '" + name + "' of " + type_name(type) + " (f16, bf16 or f32 only)");
  return make_array(std::move(name), type, std::move(extents), MemorySpace::Block, true);
}

Shared make_dynamic_shared_array(std::string name, ScalarType type) {
  if (is_half_float(type) || is_complex(type))
    ill_typed("shared array '" + name + "' of " + type_name(type) +
              " (shared arrays hold bool, integers, f32 or f64)");
  SharedArray a{std::move(name), type, {0}, MemorySpace::Block};
  a.dynamic = true;
  return std::make_shared<const SharedArray>(std::move(a));
}

Shared make_dynamic_staging_array(std::string name, ScalarType type) {
  if (!is_half_float(type) && type != ScalarType::F32)
    ill_typed("dynamic staging array '" + name + "' of " + type_name(type) +
              " (f16, bf16 or f32 only)");
  SharedArray a{std::move(name), type, {0}, MemorySpace::Block};
  a.dynamic = true;
  a.align = 1024;
  return std::make_shared<const SharedArray>(std::move(a));
}

Shared make_local_array(std::string name, ScalarType type, std::vector<int64_t> extents) {
  return make_array(std::move(name), type, std::move(extents), MemorySpace::Thread);
}

std::vector<int64_t> shared_offsets(const std::vector<Shared> &shared, int64_t *total_bytes) {
  std::vector<int64_t> offsets(shared.size(), 0);
  int64_t at = 0;
  for (size_t k = 0; k < shared.size(); ++k) {
    if (shared[k]->dynamic)
      continue;
    at = (at + 15) / 16 * 16;
    offsets[k] = at;
    at += shared[k]->size() * byte_size(shared[k]->type);
  }
  for (size_t k = 0; k < shared.size(); ++k) // after the static arrays, wherever declared
    if (shared[k]->dynamic)
      offsets[k] = (at + 15) / 16 * 16;
  if (total_bytes)
    *total_bytes = at;
  return offsets;
}

namespace {
void check_indices(const std::vector<Expr> &indices, size_t rank, const std::string &what) {
  if (indices.size() != rank)
    ill_typed(what + " of rank " + std::to_string(rank) + " indexed with " +
              std::to_string(indices.size()) + " indices");
  for (const Expr &i : indices)
    if (i.type() != ScalarType::I64)
      ill_typed("array index must be i64");
}
} // namespace

Expr SharedLoad::make(Shared array, std::vector<Expr> indices) {
  check_indices(indices, array->extents.size(),
                (array->local() ? "local array '" : "shared array '") + array->name + "'");
  return Expr(std::make_shared<const SharedLoad>(std::move(array), std::move(indices)));
}

Expr SharedExtent::make(Shared array) {
  if (!array || !array->dynamic)
    ill_typed("the extent of shared array '" + (array ? array->name : std::string("?")) +
              "', which is not dynamic (a static array's extents are constants)");
  return Expr(std::make_shared<const SharedExtent>(std::move(array)));
}

const char *op_name(WarpOpKind op) {
  static const char *names[] = {"shfl_idx", "shfl_up", "shfl_down", "shfl_xor",
                                "any",      "all",     "ballot"};
  return names[static_cast<int>(op)];
}

Expr WarpOp::make(WarpOpKind op, Expr value, Expr operand) {
  const bool vote = op == WarpOpKind::Any || op == WarpOpKind::All || op == WarpOpKind::Ballot;
  ScalarType t = value.type();
  if (vote) {
    if (t != ScalarType::Bool || operand.defined())
      ill_typed(std::string("warp vote '") + op_name(op) + "' takes one bool");
    t = op == WarpOpKind::Ballot ? ScalarType::I32 : ScalarType::Bool;
  } else {
    if (t == ScalarType::Bool || is_half_float(t) || is_complex(t) || bit_width(t) < 32)
      ill_typed(std::string("warp shuffle '") + op_name(op) + "' of a " + type_name(t) +
                " (shuffles move 32- and 64-bit values: i32, i64, u32, u64, f32 or f64)");
    if (!operand.defined() || operand.type() != ScalarType::I32)
      ill_typed(std::string("warp shuffle '") + op_name(op) + "' needs an i32 lane operand");
  }
  return Expr(std::make_shared<const WarpOp>(t, op, std::move(value), std::move(operand)));
}

Stmt Print::make(std::vector<PrintItem> items) {
  for (const PrintItem &item : items) {
    if (!item.value.defined() && item.imag.defined())
      ill_typed("a print item with an imaginary part and no real part");
    if (item.imag.defined() &&
        (item.imag.type() != item.value.type() || !is_float(item.value.type())))
      ill_typed("a printed complex number's parts must be floats of one type");
  }
  return Stmt(std::make_shared<const Print>(std::move(items)));
}

Stmt Assert::make(Expr cond, int site, std::vector<Expr> indices) {
  if (!cond.defined() || cond.type() != ScalarType::Bool)
    ill_typed("an assertion's condition must be a bool");
  if (site < 0)
    ill_typed("an assertion without a site");
  if (indices.size() > max_assert_indices)
    ill_typed("an assertion with more than " + std::to_string(max_assert_indices) + " indices");
  return Stmt(std::make_shared<const Assert>(std::move(cond), site, std::move(indices)));
}

Stmt SharedStore::make(Shared array, std::vector<Expr> indices, Expr value) {
  check_indices(indices, array->extents.size(),
                (array->local() ? "local array '" : "shared array '") + array->name + "'");
  if (value.type() != value_type(array->type))
    ill_typed("store of a " + std::string(type_name(value.type())) + " into " +
              (array->local() ? "local array '" : "shared array '") + array->name + "' of " +
              type_name(array->type));
  return Stmt(
      std::make_shared<const SharedStore>(std::move(array), std::move(indices), std::move(value)));
}

Stmt Mma::make(Shared a, std::vector<Expr> a_origin, bool a_k_last, Shared b,
               std::vector<Expr> b_origin, bool b_k_last, std::array<Var, 4> acc) {
  if (!a || !b || a->type != b->type || !(is_half_float(a->type) || a->type == ScalarType::F32) ||
      a->local() || b->local())
    ill_typed("mma of arrays other than two shared arrays of f16, of bf16 or of f32 (TF32)");
  if (a->extents.size() < 2 || b->extents.size() < 2)
    ill_typed("mma of a shared array of fewer than two dimensions");
  check_indices(a_origin, a->extents.size(), "shared array '" + a->name + "'");
  check_indices(b_origin, b->extents.size(), "shared array '" + b->name + "'");
  for (const Var &v : acc)
    if (!v || v->type != ScalarType::F32)
      ill_typed("mma accumulator that is not an f32 local");
  const ScalarType input = a->type;
  return Stmt(std::make_shared<const Mma>(input, std::move(a), std::move(a_origin), a_k_last,
                                          std::move(b), std::move(b_origin), b_k_last,
                                          std::move(acc)));
}

Stmt Assume::make(Expr cond) {
  if (cond.type() != ScalarType::Bool)
    ill_typed("assume of a " + std::string(type_name(cond.type())) + ", not a bool");
  return Stmt(std::make_shared<const Assume>(std::move(cond)));
}

Stmt AsyncCopy::make(Shared dst, std::vector<Expr> dst_index, int array, ScalarType element,
                     std::vector<Expr> src_index, int bytes, Expr valid) {
  if (bytes != 16 && bytes != 8 && bytes != 4)
    ill_typed("async copy of " + std::to_string(bytes) + " bytes (16, 8 or 4)");
  if (valid.defined() && valid.type() != ScalarType::I64)
    ill_typed("async copy whose valid count is not an i64");
  if (!dst || dst->local() || dst->type != element)
    ill_typed("async copy into something other than a shared array of the source's type");
  check_indices(dst_index, dst->extents.size(), "shared array '" + dst->name + "'");
  for (const Expr &i : src_index)
    if (i.type() != ScalarType::I64)
      ill_typed("async copy source index of type " + std::string(type_name(i.type())));
  const int count = static_cast<int>(bytes / byte_size(element));
  if (count < 1)
    ill_typed("async copy of " + std::to_string(bytes) + " bytes of " + type_name(element));
  return Stmt(std::make_shared<const AsyncCopy>(std::move(dst), std::move(dst_index), array,
                                                std::move(src_index), count, std::move(valid)));
}

Stmt AsyncWait::make(int pending, bool async_proxy) {
  if (pending < -1 && !(pending == AsyncWait::fence_only && async_proxy))
    ill_typed("async wait for a negative number of pending groups");
  return Stmt(std::make_shared<const AsyncWait>(pending, async_proxy));
}

Stmt Mbarrier::make(Op op, Shared barriers, Expr index, Expr value) {
  if (!barriers || barriers->local() || (!barriers->dynamic && barriers->type != ScalarType::I64))
    ill_typed("memory barrier outside a shared array of i64 or the dynamic shared array");
  if (!index.defined() || index.type() != ScalarType::I64)
    ill_typed("memory barrier index that is not an i64");
  const bool arrival = op == Op::Arrive || op == Op::ArriveOnCopies;
  if (arrival == value.defined())
    ill_typed(arrival ? "memory barrier arrival with a value"
                      : "memory barrier init or wait without its count or parity");
  if (value.defined() && value.type() != ScalarType::I64)
    ill_typed("memory barrier count or parity that is not an i64");
  return Stmt(std::make_shared<const Mbarrier>(op, std::move(barriers), std::move(index),
                                               std::move(value)));
}

Stmt WarpgroupMma::make(Shared smem, int64_t n, int k_steps, Layout a, Layout b,
                        std::vector<Product> products, int pending) {
  if (!smem || smem->local() || !(is_half_float(smem->type) || smem->type == ScalarType::F32))
    ill_typed("warpgroup mma over something other than a shared array of f16, of bf16 or of f32 "
              "(TF32)");
  if (smem->type == ScalarType::F32 && !(a.k_major && b.k_major))
    ill_typed("warpgroup mma of f32 (TF32) with an operand not staged along k");
  if (pending < 0 || pending > 1 || (k_steps == 0 && pending != 0))
    ill_typed("warpgroup mma leaving " + std::to_string(pending) + " chunks pending");
  if (n < 8 || n > 256 || n % 8 != 0 || k_steps < 0)
    ill_typed("warpgroup mma of n " + std::to_string(n) + " (a multiple of 8 up to 256) and " +
              std::to_string(k_steps) + " steps of k");
  if (products.empty())
    ill_typed("warpgroup mma without products");
  for (const Product &p : products) {
    if (p.a_offset.type() != ScalarType::I64 || p.b_offset.type() != ScalarType::I64)
      ill_typed("warpgroup mma offset that is not an i64");
    if (p.acc.size() != static_cast<size_t>(n / 2))
      ill_typed("warpgroup mma with " + std::to_string(p.acc.size()) + " accumulators, not " +
                std::to_string(n / 2));
    for (const Var &v : p.acc)
      if (!v || v->type != ScalarType::F32)
        ill_typed("warpgroup mma accumulator that is not an f32 local");
  }
  const ScalarType input = smem->type;
  return Stmt(std::make_shared<const WarpgroupMma>(input, std::move(smem), n, k_steps, a, b,
                                                   std::move(products), pending));
}

Stmt Barrier::make() {
  return Stmt(std::make_shared<const Barrier>());
}

const char *op_name(AtomicOp op) {
  static const char *names[] = {"atomic_add", "atomic_min", "atomic_max", "atomic_exchange",
                                "atomic_cas"};
  return names[static_cast<int>(op)];
}

Stmt Atomic::make(AtomicOp op, int array, Shared shared, ScalarType element,
                  std::vector<Expr> indices, Expr value, Expr compare, Var result) {
  if ((array < 0) == !shared)
    ill_typed(std::string(op_name(op)) + " needs either an array parameter or a shared array");
  if (shared) {
    if (shared->local())
      ill_typed(std::string(op_name(op)) + " on local array '" + shared->name +
                "': a local array is private to its iteration, atomics are for shared memory");
    element = shared->type;
    check_indices(indices, shared->extents.size(), "shared array '" + shared->name + "'");
  } else {
    for (const Expr &i : indices)
      if (i.type() != ScalarType::I64)
        ill_typed("array index must be i64");
  }
  if (element == ScalarType::Bool || is_half_float(element) || bit_width(element) < 32)
    ill_typed(std::string(op_name(op)) + " on " + type_name(element) +
              " elements (atomics take i32, i64, f32 or f64)");
  if (value.type() != element)
    ill_typed(std::string(op_name(op)) + " of a " + type_name(value.type()) + " into " +
              type_name(element) + " elements");
  if ((op == AtomicOp::CompareExchange) != compare.defined() ||
      (compare.defined() && compare.type() != element))
    ill_typed(std::string(op_name(op)) + ": only atomic_cas takes a compare value, of the " +
              "element type");
  if (result && result->type != element)
    ill_typed(std::string(op_name(op)) + " result '" + result->name + "' is not of type " +
              type_name(element));
  return Stmt(std::make_shared<const Atomic>(op, array, std::move(shared), std::move(indices),
                                             std::move(value), std::move(compare),
                                             std::move(result)));
}

Stmt Block::make(std::vector<Stmt> stmts) {
  return Stmt(std::make_shared<const Block>(std::move(stmts)));
}

Stmt Declare::make(Var var, Expr init) {
  if (var->type != init.type())
    ill_typed("declaration of '" + var->name + "' initialised with a different type");
  return Stmt(std::make_shared<const Declare>(std::move(var), std::move(init)));
}

Stmt Assign::make(Var var, Expr value) {
  if (var->type != value.type())
    ill_typed("assignment to '" + var->name + "' of a different type");
  return Stmt(std::make_shared<const Assign>(std::move(var), std::move(value)));
}

Stmt Store::make(int array, std::vector<Expr> indices, Expr value) {
  for (const Expr &i : indices)
    if (i.type() != ScalarType::I64)
      ill_typed("array index must be i64");
  return Stmt(std::make_shared<const Store>(array, std::move(indices), std::move(value)));
}

const char *op_name(ReduceOp op) {
  switch (op) {
  case ReduceOp::Add:
    return "+=";
  case ReduceOp::Mul:
    return "*=";
  case ReduceOp::Min:
    return "min=";
  case ReduceOp::Max:
    return "max=";
  }
  return "?=";
}

BinaryOp binary_op_of(ReduceOp op) {
  switch (op) {
  case ReduceOp::Add:
    return BinaryOp::Add;
  case ReduceOp::Mul:
    return BinaryOp::Mul;
  case ReduceOp::Min:
    return BinaryOp::Min;
  case ReduceOp::Max:
    return BinaryOp::Max;
  }
  return BinaryOp::Add;
}

std::optional<ReduceOp> reduce_op_of(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return ReduceOp::Add;
  case BinaryOp::Mul:
    return ReduceOp::Mul;
  case BinaryOp::Min:
    return ReduceOp::Min;
  case BinaryOp::Max:
    return ReduceOp::Max;
  default:
    return std::nullopt;
  }
}

Stmt Reduce::make(ReduceOp op, int array, std::vector<Expr> indices, Expr value) {
  for (const Expr &i : indices)
    if (i.type() != ScalarType::I64)
      ill_typed("array index must be i64");
  if (value.type() == ScalarType::Bool)
    ill_typed(std::string("reduction '") + op_name(op) + "' of a bool");
  if (is_complex(value.type()) && (op == ReduceOp::Min || op == ReduceOp::Max))
    ill_typed(std::string("reduction '") + op_name(op) + "' of a " + type_name(value.type()) +
              " (complex numbers are not ordered)");
  return Stmt(std::make_shared<const Reduce>(op, array, std::move(indices), std::move(value)));
}

bool equal_all(const std::vector<Expr> &a, const std::vector<Expr> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (!equal(a[k], b[k]))
      return false;
  return true;
}

namespace {} // namespace

bool equal(const Expr &a, const Expr &b) {
  if (a.same_as(b))
    return true;
  if (!a.defined() || !b.defined() || a.kind() != b.kind() || a.type() != b.type())
    return false;
  switch (a.kind()) {
  case ExprKind::IntConst:
    return a.as<IntConst>()->value == b.as<IntConst>()->value;
  case ExprKind::FloatConst: { // bitwise: -0.0 and 0.0 differ, NaN equals itself
    double x = a.as<FloatConst>()->value, y = b.as<FloatConst>()->value;
    return std::memcmp(&x, &y, sizeof x) == 0;
  }
  case ExprKind::BoolConst:
    return a.as<BoolConst>()->value == b.as<BoolConst>()->value;
  case ExprKind::VarRef:
    return a.as<VarRef>()->var == b.as<VarRef>()->var;
  case ExprKind::ArrayExtent:
    return a.as<ArrayExtent>()->array == b.as<ArrayExtent>()->array &&
           a.as<ArrayExtent>()->dim == b.as<ArrayExtent>()->dim;
  case ExprKind::Load:
    return a.as<Load>()->array == b.as<Load>()->array &&
           equal_all(a.as<Load>()->indices, b.as<Load>()->indices);
  case ExprKind::Unary:
    return a.as<Unary>()->op == b.as<Unary>()->op && equal(a.as<Unary>()->a, b.as<Unary>()->a);
  case ExprKind::Binary: {
    auto *x = a.as<Binary>(), *y = b.as<Binary>();
    return x->op == y->op && equal(x->a, y->a) && equal(x->b, y->b);
  }
  case ExprKind::Select: {
    auto *x = a.as<Select>(), *y = b.as<Select>();
    return equal(x->cond, y->cond) && equal(x->a, y->a) && equal(x->b, y->b);
  }
  case ExprKind::Cast:
    return equal(a.as<Cast>()->a, b.as<Cast>()->a);
  case ExprKind::Call:
    return a.as<Call>()->fn == b.as<Call>()->fn &&
           equal_all(a.as<Call>()->args, b.as<Call>()->args);
  case ExprKind::SpecialReg:
    return a.as<SpecialReg>()->reg == b.as<SpecialReg>()->reg &&
           a.as<SpecialReg>()->dim == b.as<SpecialReg>()->dim;
  case ExprKind::SharedLoad:
    return a.as<SharedLoad>()->array == b.as<SharedLoad>()->array &&
           equal_all(a.as<SharedLoad>()->indices, b.as<SharedLoad>()->indices);
  case ExprKind::SharedExtent:
    return a.as<SharedExtent>()->array == b.as<SharedExtent>()->array;
  case ExprKind::WarpOp: {
    auto *x = a.as<WarpOp>(), *y = b.as<WarpOp>();
    return x->op == y->op && equal(x->value, y->value) &&
           (x->operand.defined() ? equal(x->operand, y->operand) : !y->operand.defined());
  }
  }
  return false;
}

Stmt store_or_reduce(int array, std::vector<Expr> indices, Expr value) {
  if (auto *bin = value.as<Binary>()) {
    std::optional<ReduceOp> op = reduce_op_of(bin->op);
    auto *load = bin->a.as<Load>();
    const bool update = load && load->array == array && bin->type == load->type &&
                        bin->type != ScalarType::Bool && equal_all(load->indices, indices);
    if (op && update)
      return Reduce::make(*op, array, std::move(indices), bin->b);
    // x[i] -= v is x[i] += -v, exactly (a float's a - b is a + -b; integers wrap alike), so
    // that updates of one element from several iterations combine instead of racing.
    if (update && bin->op == BinaryOp::Sub)
      return Reduce::make(ReduceOp::Add, array, std::move(indices),
                          Unary::make(UnaryOp::Neg, bin->b));
  }
  return Store::make(array, std::move(indices), std::move(value));
}

Stmt IfThenElse::make(Expr cond, Stmt then_case, Stmt else_case) {
  if (cond.type() != ScalarType::Bool)
    ill_typed("if condition must be bool");
  return Stmt(std::make_shared<const IfThenElse>(std::move(cond), std::move(then_case),
                                                 std::move(else_case)));
}

Stmt For::make(Var var, Expr begin, Expr end, Expr step, Stmt body) {
  if (var->type != ScalarType::I64 || begin.type() != ScalarType::I64 ||
      end.type() != ScalarType::I64 || step.type() != ScalarType::I64)
    ill_typed("loop bounds and index must be i64");
  return Stmt(std::make_shared<const For>(std::move(var), std::move(begin), std::move(end),
                                          std::move(step), std::move(body)));
}

Stmt While::make(Expr cond, Stmt body) {
  if (cond.type() != ScalarType::Bool)
    ill_typed("while condition must be bool");
  return Stmt(std::make_shared<const While>(std::move(cond), std::move(body)));
}

Stmt ParallelFor::make(std::vector<Var> vars, std::vector<Expr> extents, Stmt body) {
  if (vars.empty() || vars.size() > 3 || vars.size() != extents.size())
    ill_typed("parallel loop needs 1 to 3 dimensions");
  for (size_t k = 0; k < vars.size(); ++k)
    if (vars[k]->type != ScalarType::I64 || extents[k].type() != ScalarType::I64)
      ill_typed("parallel loop indices and extents must be i64");
  return Stmt(
      std::make_shared<const ParallelFor>(std::move(vars), std::move(extents), std::move(body)));
}

} // namespace loom::ir
