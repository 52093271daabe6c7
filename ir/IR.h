// loom's IR: immutable, typed expression and statement nodes behind shared handles.
//
// Nodes are created with their static make() (which checks types) and never change; passes build
// new trees and return the old node when nothing changed, so `same_as` is a cheap identity test.
#pragma once

#include "ir/Schedule.h"
#include "ir/Type.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace loom::ir {

// ---- variables and parameters -------------------------------------------------------------

// A named scalar storage location: a local variable, a loop index or a scalar parameter.
// Identity is the object's address; names need not be unique (the printer disambiguates).
struct Variable {
  std::string name;
  ScalarType type;
};
using Var = std::shared_ptr<const Variable>;
Var make_var(std::string name, ScalarType type);

// The largest rank of an array parameter.
constexpr int kMaxRank = 8;

enum class ParamKind : uint8_t { Scalar, Array };

// What a parameter of a lowered kernel holds of a complex parameter of its kernel, which
// expand_complex replaced by parts (ir/ExpandComplex.cpp):
//   Real   a scalar: the real part of the complex scalar argument of the same index;
//   Imag   a scalar appended after the kernel's parameters: the imaginary part of argument `of`;
//   Parts  an array of the parts' type with one more dimension, of extent 2, innermost: the
//          complex array argument of the same index (the call passes its extents, then 2).
enum class ComplexPart : uint8_t { None, Real, Imag, Parts };

// A kernel parameter. Arrays are dense, row-major, with `rank` extents known at call time.
struct Param {
  std::string name;
  ParamKind kind;
  ScalarType type; // element type for arrays
  int rank = 0;    // 0 for scalars, 1..8 for arrays (kMaxRank; 9 for the parts of a complex one)
  Var var;         // scalars: the variable that names the value in the body
  ComplexPart part = ComplexPart::None;
  int of = -1; // ComplexPart::Imag: the index of the complex parameter
  // Arrays: read and written through strides given with each call (in elements, any sign), as a
  // non-contiguous view needs, instead of the row-major layout of the extents. A Kernel called
  // with such a view compiles a copy of itself with the flag set (loom/Kernel.cpp).
  bool strided = false;
};

// A statically sized array in a thread block's shared memory (SIMT kernels only): each block has
// its own instance, visible to all its threads and uninitialised when the block starts. Identity
// is the object's address, as for variables. Elements are bool, i32, i64, f32 or f64.
//
// The same node with `space` Thread is a local array (Numba's cuda.local.array): each parallel
// iteration (each SIMT thread) has its own instance, uninitialised when the iteration starts,
// which no other iteration sees. A kernel lists its local arrays (Kernel::locals); the front ends
// declare one inside a parallel loop's body (or anywhere in a SIMT kernel) and use it only in the
// iterations of that loop. Elements are bool, any integer, f32 or f64. SharedLoad and SharedStore
// read and write both kinds; atomics and the schedules that share an iteration among threads
// (tile, block_per_iteration) take shared arrays only.
//
// A dynamic shared array (`dynamic`, CUDA's extern __shared__ T a[], Numba's
// cuda.shared.array(0, T)) is 1-D with its extent given at launch: the launch's dynamic shared
// bytes divided by the element size (SharedExtent reads it; `extents` holds {0}). A kernel has at
// most one (CUDA aliases all its dynamic arrays at the start of one region; loom keeps one, so
// that no two arrays of different types alias), which lies after the static arrays.
enum class MemorySpace : uint8_t { Block, Thread };
struct SharedArray {
  std::string name;
  ScalarType type;
  std::vector<int64_t> extents; // 1 to 3, each positive, outermost first; {0} when dynamic
  MemorySpace space = MemorySpace::Block;
  bool dynamic = false; // the extent is given at launch (shared arrays only)
  // The alignment of its start in bytes, 16 or more (GPU: the tensor cores' swizzled tiles of
  // ir/TileWgmma.cpp need 1024; the CPU and the interpreter lay out at 16).
  int64_t align = 16;
  int64_t size() const; // elements in all (0 for a dynamic array: its size is the launch's)
  bool local() const { return space == MemorySpace::Thread; }
};
using Shared = std::shared_ptr<const SharedArray>;
// A static shared array of any type but complex: f16 and bf16 elements read as f32 and a store
// rounds to the type, as an array parameter's do (the operands of a SIMT kernel's ir::Mma).
Shared make_shared_array(std::string name, ScalarType type, std::vector<int64_t> extents);
// A shared array of f16, bf16 or f32 elements that a lowering pass stages an operand in (the
// tensor-core tiles of ir/TileMma.cpp).
Shared make_staging_array(std::string name, ScalarType type, std::vector<int64_t> extents);
// A dynamic shared array (SharedArray::dynamic) of `type` (bool, an integer, f32 or f64).
Shared make_dynamic_shared_array(std::string name, ScalarType type);
// A dynamic shared array of f16, bf16 or f32 (TF32) elements, 1024-byte aligned, that a lowering
// pass stages operands in (the warpgroup tiles of ir/TileWgmma.cpp; its task's launch sizes it).
Shared make_dynamic_staging_array(std::string name, ScalarType type);
// A local array (SharedArray::space Thread) of at most max_local_bytes.
Shared make_local_array(std::string name, ScalarType type, std::vector<int64_t> extents);
// Where each of a kernel's shared arrays starts in its block's shared memory (the static ones in
// order, each 16-byte aligned, then the dynamic one, 16-byte aligned; the CPU runtime lays a
// block's buffer out so), and the bytes of the static ones.
std::vector<int64_t> shared_offsets(const std::vector<Shared> &shared, int64_t *total_bytes);
// The most static shared memory a CUDA block may declare (48 KiB); more is a CompileError.
inline constexpr int64_t max_shared_bytes = 48 * 1024;
// The most bytes one local array may take: it lives on each CPU worker's stack and in each GPU
// thread's local memory (whose per-thread limit is 512 KiB, and whose total the driver reserves
// for every resident thread).
inline constexpr int64_t max_local_bytes = 64 * 1024;

// ---- expressions --------------------------------------------------------------------------

#define LOOM_EXPR_NODES(X)                                                                         \
  X(IntConst)                                                                                      \
  X(FloatConst)                                                                                    \
  X(BoolConst)                                                                                     \
  X(VarRef)                                                                                        \
  X(ArrayExtent)                                                                                   \
  X(Load)                                                                                          \
  X(Unary)                                                                                         \
  X(Binary)                                                                                        \
  X(Select)                                                                                        \
  X(Cast)                                                                                          \
  X(Call)                                                                                          \
  X(SpecialReg)                                                                                    \
  X(SharedLoad)                                                                                    \
  X(SharedExtent)                                                                                  \
  X(WarpOp)

enum class ExprKind : uint8_t {
#define LOOM_X(name) name,
  LOOM_EXPR_NODES(LOOM_X)
#undef LOOM_X
};

struct ExprNode {
  ExprKind kind;
  ScalarType type;
  ExprNode(ExprKind k, ScalarType t) : kind(k), type(t) {}
  virtual ~ExprNode() = default;
};

// A value handle to an immutable node (as Halide's IntrusivePtr): copies share the node, which
// lives while a handle holds it; `same_as` is identity, `as<T>()` the node when it is a T.
template <class Node> class Handle {
public:
  Handle() = default;
  Handle(std::shared_ptr<const Node> n) : node_(std::move(n)) {}
  const Node *get() const { return node_.get(); }
  const Node *operator->() const { return node_.get(); }
  bool defined() const { return node_ != nullptr; }
  bool same_as(const Handle &o) const { return node_ == o.node_; }
  decltype(Node::kind) kind() const { return node_->kind; }
  template <class T> const T *as() const {
    return node_ && node_->kind == T::static_kind ? static_cast<const T *>(node_.get()) : nullptr;
  }

private:
  std::shared_ptr<const Node> node_;
};

// An expression: a handle that also gives the node's type.
class Expr : public Handle<ExprNode> {
public:
  using Handle::Handle;
  ScalarType type() const { return get()->type; }
};

// RoundF16 and RoundBF16 take an f32 or f64 and give the f16 (bf16) nearest to it, ties to even,
// as an f32: expand_half (ir/ExpandHalf.cpp) writes them where a 16-bit float value is made, so
// that no target sees a 16-bit float value, only the f32 that holds it. RoundTF32 gives the
// nearest TF32 value (10 significand bits, f32's exponent), ties away from zero (support/
// Float16.h's round_to_tf32): what the tensor cores read of an f32 under TF32 (ir::Mma).
enum class UnaryOp : uint8_t { Neg, Not, BitNot, RoundF16, RoundBF16, RoundTF32 };
inline bool is_rounding(UnaryOp op) {
  return op == UnaryOp::RoundF16 || op == UnaryOp::RoundBF16 || op == UnaryOp::RoundTF32;
}
enum class BinaryOp : uint8_t {
  Add,
  Sub,
  Mul,
  Div,
  Mod, // Div/Mod: ints truncate toward zero; x/0 == 0 and x%0 == x (defined)
  Min,
  Max,
  BitAnd,
  BitOr,
  BitXor,
  Shl,
  Shr, // shift amounts are taken modulo the bit width; Shr is arithmetic
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne, // result bool
  And,
  Or // bool operands, both evaluated
};
// The math library (ir/MathFunctions.h describes each: its name, arguments, result and accuracy).
enum class MathFn : uint8_t {
  Sqrt,
  Exp,
  Log,
  Sin,
  Cos,
  Tanh,
  Pow,
  Abs,
  Floor,
  Fma,
  Acos,
  Acosh,
  Asin,
  Asinh,
  Atan,
  Atan2,
  Atanh,
  Cbrt,
  Ceil,
  Copysign,
  Cosh,
  Erf,
  Erfc,
  Exp2,
  Expm1,
  Gamma,
  Hypot,
  IsFinite,
  IsInf,
  IsNan,
  Ldexp,
  Lgamma,
  Log10,
  Log1p,
  Log2,
  Remainder,
  Round,
  Rsqrt,
  Sign,
  Sinh,
  Tan,
  Trunc,
  Real, // the parts of a complex number, and the number of two parts (ir/ExpandComplex.cpp)
  Imag,
  Conj,
  Complex
};
constexpr int kMathFnCount = static_cast<int>(MathFn::Complex) + 1;
// The functions of real numbers, which come first (the parts' functions follow).
constexpr int kRealMathFnCount = static_cast<int>(MathFn::Real);
// GPU thread geometry; x/y/z selected by SpecialReg::dim. Values are i32.
enum class Reg : uint8_t { ThreadIdx, BlockIdx, BlockDim, GridDim };

const char *op_name(UnaryOp op);
const char *op_name(BinaryOp op);
const char *fn_name(MathFn fn);
int fn_arity(MathFn fn);
bool is_comparison(BinaryOp op);

struct IntConst : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::IntConst;
  int64_t value;
  IntConst(ScalarType t, int64_t v) : ExprNode(static_kind, t), value(v) {}
  static Expr make(ScalarType t, int64_t v);
};
struct FloatConst : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::FloatConst;
  double value;
  FloatConst(ScalarType t, double v) : ExprNode(static_kind, t), value(v) {}
  static Expr make(ScalarType t, double v);
};
struct BoolConst : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::BoolConst;
  bool value;
  explicit BoolConst(bool v) : ExprNode(static_kind, ScalarType::Bool), value(v) {}
  static Expr make(bool v);
};
struct VarRef : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::VarRef;
  Var var;
  explicit VarRef(Var v) : ExprNode(static_kind, v->type), var(std::move(v)) {}
  static Expr make(Var v);
};
// The extent of dimension `dim` of array parameter `array` (an index into Kernel::params); i64.
struct ArrayExtent : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::ArrayExtent;
  int array, dim;
  ArrayExtent(int a, int d) : ExprNode(static_kind, ScalarType::I64), array(a), dim(d) {}
  static Expr make(int array, int dim);
};
// array[indices...]; indices are i64, one per dimension (the verifier checks the rank).
struct Load : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::Load;
  int array;
  std::vector<Expr> indices;
  Load(ScalarType t, int a, std::vector<Expr> idx)
      : ExprNode(static_kind, t), array(a), indices(std::move(idx)) {}
  static Expr make(ScalarType elem, int array, std::vector<Expr> indices);
};
struct Unary : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::Unary;
  UnaryOp op;
  Expr a;
  Unary(UnaryOp o, Expr x)
      : ExprNode(static_kind, is_rounding(o) ? ScalarType::F32 : x.type()), op(o), a(std::move(x)) {
  }
  static Expr make(UnaryOp op, Expr a);
};
struct Binary : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::Binary;
  BinaryOp op;
  Expr a, b;
  Binary(ScalarType t, BinaryOp o, Expr x, Expr y)
      : ExprNode(static_kind, t), op(o), a(std::move(x)), b(std::move(y)) {}
  // Operands must have the same type (front ends insert explicit casts).
  static Expr make(BinaryOp op, Expr a, Expr b);
};
struct Select : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::Select;
  Expr cond, a, b;
  Select(Expr c, Expr x, Expr y)
      : ExprNode(static_kind, x.type()), cond(std::move(c)), a(std::move(x)), b(std::move(y)) {}
  static Expr make(Expr cond, Expr a, Expr b);
};
struct Cast : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::Cast;
  Expr a;
  Cast(ScalarType t, Expr x) : ExprNode(static_kind, t), a(std::move(x)) {}
  // Returns `a` itself when it already has type `t`.
  static Expr make(ScalarType t, Expr a);
};
// A math function. Its arguments have one type, the type it is computed in (ldexp's exponent is
// an i32); the result has that type too, except isfinite/isinf/isnan, which give a bool, and
// abs, real and imag of a complex number and complex(re, im) (ir/MathFunctions.h).
struct Call : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::Call;
  MathFn fn;
  std::vector<Expr> args;
  Call(ScalarType t, MathFn f, std::vector<Expr> as)
      : ExprNode(static_kind, t), fn(f), args(std::move(as)) {}
  static Expr make(MathFn fn, std::vector<Expr> args);
};
struct SpecialReg : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::SpecialReg;
  Reg reg;
  int dim; // 0 = x, 1 = y, 2 = z
  SpecialReg(Reg r, int d) : ExprNode(static_kind, ScalarType::I32), reg(r), dim(d) {}
  static Expr make(Reg reg, int dim);
};

// shared[indices...]; indices are i64, one per dimension.
struct SharedLoad : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::SharedLoad;
  Shared array;
  std::vector<Expr> indices;
  // An f16 or bf16 element reads as the f32 it is, as an array parameter's (Load).
  SharedLoad(Shared a, std::vector<Expr> idx)
      : ExprNode(static_kind, value_type(a->type)), array(std::move(a)), indices(std::move(idx)) {}
  static Expr make(Shared array, std::vector<Expr> indices);
};
// The extent of a dynamic shared array (SharedArray::dynamic): the launch's dynamic shared bytes
// divided by the element size; i64. (A static array's extents are constants, which the front
// ends write as literals.)
struct SharedExtent : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::SharedExtent;
  Shared array;
  explicit SharedExtent(Shared a) : ExprNode(static_kind, ScalarType::I64), array(std::move(a)) {}
  static Expr make(Shared array);
};

// A warp collective (SIMT kernels), over the 32 threads of the calling thread's warp (threads
// 32w .. 32w+31 of the block, numbered x fastest), all of which must take part:
// (as PTX's shfl.sync, the operand's low 5 bits count: d = operand & 31):
//   ShflIdx  value of lane d                         ShflXor   value of lane lane ^ d
//   ShflUp   value of lane lane - d, or own value when that is below 0
//   ShflDown value of lane lane + d, or own value when that is past 31
//   Any/All  whether `value` (bool) is true in any/every lane; Ballot: i32 whose bit l is lane l's
// Shuffles take i32, i64, f32 or f64 and return the same type; operand is i32. A lane that does
// not take part (returned, or past the block's last thread) gives an unspecified value on the GPU
// and the reading lane's own value on the CPU.
enum class WarpOpKind : uint8_t { ShflIdx, ShflUp, ShflDown, ShflXor, Any, All, Ballot };
const char *op_name(WarpOpKind op);
struct WarpOp : ExprNode {
  static constexpr ExprKind static_kind = ExprKind::WarpOp;
  WarpOpKind op;
  Expr value, operand; // operand: shuffles only
  WarpOp(ScalarType t, WarpOpKind o, Expr v, Expr x)
      : ExprNode(static_kind, t), op(o), value(std::move(v)), operand(std::move(x)) {}
  static Expr make(WarpOpKind op, Expr value, Expr operand = Expr());
};

// ---- statements ---------------------------------------------------------------------------

#define LOOM_STMT_NODES(X)                                                                         \
  X(Block)                                                                                         \
  X(Declare)                                                                                       \
  X(Assign)                                                                                        \
  X(Store)                                                                                         \
  X(Reduce)                                                                                        \
  X(IfThenElse)                                                                                    \
  X(For)                                                                                           \
  X(While)                                                                                         \
  X(ParallelFor)                                                                                   \
  X(SharedStore)                                                                                   \
  X(Barrier)                                                                                       \
  X(Atomic)                                                                                        \
  X(Print)                                                                                         \
  X(Assert)                                                                                        \
  X(Mma)                                                                                           \
  X(Assume)                                                                                        \
  X(AsyncCopy)                                                                                     \
  X(AsyncWait)                                                                                     \
  X(WarpgroupMma)                                                                                  \
  X(Mbarrier)

enum class StmtKind : uint8_t {
#define LOOM_X(name) name,
  LOOM_STMT_NODES(LOOM_X)
#undef LOOM_X
};

struct StmtNode {
  StmtKind kind;
  explicit StmtNode(StmtKind k) : kind(k) {}
  virtual ~StmtNode() = default;
};

class Stmt : public Handle<StmtNode> {
public:
  using Handle::Handle;
};

struct Block : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::Block;
  std::vector<Stmt> stmts;
  explicit Block(std::vector<Stmt> s) : StmtNode(static_kind), stmts(std::move(s)) {}
  static Stmt make(std::vector<Stmt> stmts);
};
// Introduces a mutable local, in scope until the end of the enclosing block.
struct Declare : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::Declare;
  Var var;
  Expr init;
  Declare(Var v, Expr e) : StmtNode(static_kind), var(std::move(v)), init(std::move(e)) {}
  static Stmt make(Var var, Expr init);
};
struct Assign : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::Assign;
  Var var;
  Expr value;
  Assign(Var v, Expr e) : StmtNode(static_kind), var(std::move(v)), value(std::move(e)) {}
  static Stmt make(Var var, Expr value);
};
struct Store : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::Store;
  int array;
  std::vector<Expr> indices;
  Expr value;
  Store(int a, std::vector<Expr> i, Expr v)
      : StmtNode(static_kind), array(a), indices(std::move(i)), value(std::move(v)) {}
  static Stmt make(int array, std::vector<Expr> indices, Expr value);
};
// array[indices] = array[indices] op value, as one indivisible update: inside a parallel loop
// the updates of different iterations to one element combine in an unspecified order (for floats
// the result can depend on that order; see docs/semantics.md for what loom guarantees).
enum class ReduceOp : uint8_t { Add, Mul, Min, Max };
const char *op_name(ReduceOp op);
BinaryOp binary_op_of(ReduceOp op);
// The reduction that combines with `op`: Add, Mul, Min and Max have one, other operations none.
std::optional<ReduceOp> reduce_op_of(BinaryOp op);
struct Reduce : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::Reduce;
  ReduceOp op;
  int array;
  std::vector<Expr> indices;
  Expr value;
  Reduce(ReduceOp o, int a, std::vector<Expr> i, Expr v)
      : StmtNode(static_kind), op(o), array(a), indices(std::move(i)), value(std::move(v)) {}
  static Stmt make(ReduceOp op, int array, std::vector<Expr> indices, Expr value);
};

// Whether two expressions have the same structure and leaves (the same variables, constants,
// arrays and operations); a cheap same_as check comes first.
bool equal(const Expr &a, const Expr &b);
// The same for two lists (index lists, call arguments): equal lengths, each pair equal.
bool equal_all(const std::vector<Expr> &a, const std::vector<Expr> &b);

// What both front ends emit for `array[indices] = value`: a Reduce when value updates that very
// element with +, -, *, min or max (`x[i] = x[i] + v`, `x[i] += v`, `x[i] -= v` as `+= -v`,
// `x[i] = min(x[i], v)`), so that the update is a reduction inside a parallel loop (as in
// Numba's prange); else a Store.
Stmt store_or_reduce(int array, std::vector<Expr> indices, Expr value);

struct IfThenElse : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::IfThenElse;
  Expr cond;
  Stmt then_case, else_case; // else_case may be undefined
  IfThenElse(Expr c, Stmt t, Stmt e)
      : StmtNode(static_kind), cond(std::move(c)), then_case(std::move(t)),
        else_case(std::move(e)) {}
  static Stmt make(Expr cond, Stmt then_case, Stmt else_case = Stmt());
};
// for (var = begin; var < end; var += step) body   -- sequential; i64 bounds; step > 0.
struct For : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::For;
  Var var;
  Expr begin, end, step;
  Stmt body;
  For(Var v, Expr b, Expr e, Expr s, Stmt body_)
      : StmtNode(static_kind), var(std::move(v)), begin(std::move(b)), end(std::move(e)),
        step(std::move(s)), body(std::move(body_)) {}
  static Stmt make(Var var, Expr begin, Expr end, Expr step, Stmt body);
};
struct While : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::While;
  Expr cond;
  Stmt body;
  While(Expr c, Stmt b) : StmtNode(static_kind), cond(std::move(c)), body(std::move(b)) {}
  static Stmt make(Expr cond, Stmt body);
};
// Every point of the index space [0, extents[0]) x ... runs the body once, in any order and in
// parallel. vars[k] ranges over extents[k]; the last dimension is the innermost (fastest varying).
struct ParallelFor : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::ParallelFor;
  std::vector<Var> vars;
  std::vector<Expr> extents;
  Stmt body;
  ParallelFor(std::vector<Var> v, std::vector<Expr> e, Stmt b)
      : StmtNode(static_kind), vars(std::move(v)), extents(std::move(e)), body(std::move(b)) {}
  static Stmt make(std::vector<Var> vars, std::vector<Expr> extents, Stmt body);
};

// shared[indices...] = value (SIMT kernels).
struct SharedStore : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::SharedStore;
  Shared array;
  std::vector<Expr> indices;
  Expr value;
  SharedStore(Shared a, std::vector<Expr> i, Expr v)
      : StmtNode(static_kind), array(std::move(a)), indices(std::move(i)), value(std::move(v)) {}
  static Stmt make(Shared array, std::vector<Expr> indices, Expr value);
};

// CUDA's __syncthreads (SIMT kernels): waits until every thread of the block that has not
// returned reaches a barrier; memory written before it is visible to the block after it. Every
// thread must reach the same barriers in the same order (not one inside a branch only some take).
struct Barrier : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::Barrier;
  Barrier() : StmtNode(static_kind) {}
  static Stmt make();
};

// An atomic read-modify-write of one element of an array parameter or of a shared array (SIMT
// kernels): Add, Min and Max combine `value` into it, Exchange replaces it, CompareExchange
// replaces it with `value` only when it equals `compare` (bitwise for floats). `result`, when
// set, is a declared local of the element's type that receives the element's old value.
// Elements are i32, i64, f32 or f64.
enum class AtomicOp : uint8_t { Add, Min, Max, Exchange, CompareExchange };
const char *op_name(AtomicOp op);
struct Atomic : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::Atomic;
  AtomicOp op;
  int array;     // the array parameter, or -1 when `shared` is set
  Shared shared; // the shared array, or null
  std::vector<Expr> indices;
  Expr value, compare; // compare: CompareExchange only
  Var result;          // may be null
  Atomic(AtomicOp o, int a, Shared s, std::vector<Expr> i, Expr v, Expr c, Var r)
      : StmtNode(static_kind), op(o), array(a), shared(std::move(s)), indices(std::move(i)),
        value(std::move(v)), compare(std::move(c)), result(std::move(r)) {}
  // On array parameter `array` (`shared` null) or on `shared` (`array` -1); `element` is the
  // array's element type.
  static Stmt make(AtomicOp op, int array, Shared shared, ScalarType element,
                   std::vector<Expr> indices, Expr value, Expr compare = Expr(),
                   Var result = nullptr);
};

// A warp's matrix multiply-accumulate on the tensor cores (PTX's mma.sync.aligned.m16n8k16.row.col
// with f32 accumulators, sm_80 and later): D = C + A * B^T for a 16 x 16 block A of shared array
// `a` and an 8 x 16 block B of shared array `b`, both of `input`: f16 or bf16, or f32 read as TF32
// (each element rounded to TF32 first, UnaryOp::RoundTF32; two m16n8k8.tf32 products on the GPU,
// whose operands are loaded element by element where k is not their last dimension). A[m][kk] is
// a[a_origin..., row0 + m, k0 + kk] when `a_k_last` (the block's rows along the next-to-last
// dimension, k along the last), else a[a_origin..., k0 + kk, row0 + m]; B[n][kk] likewise from b
// with `b_k_last` (`*_origin` holds every index, its last two the block's first element in the
// array's own order; those two multiples of 8, rows 16-byte aligned). D[m][n] = C[m][n] + sum
// over kk < 16 of A[m][kk] * B[n][kk], m < 16, n < 8 (the products of two 16-bit floats, or of two
// TF32 values, are exact in f32). C and D are spread over the warp's 32
// lanes as PTX lays them out: lane l holds in acc[r] (f32 locals, read and assigned) the element
// (l / 4 + 8 * (r / 2), 2 * (l % 4) + r % 2). Every lane of the warp takes part, with the same
// origins; the products are exact and their sum rounds to f32 in an order the hardware chooses
// (docs/semantics.md). The CPU and the interpreter compute each lane's elements from shared
// memory in kk order.
struct Mma : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::Mma;
  ScalarType input;
  Shared a, b;
  std::vector<Expr> a_origin, b_origin;
  bool a_k_last, b_k_last;
  std::array<Var, 4> acc;
  Mma(ScalarType in, Shared a_, std::vector<Expr> ao, bool ak, Shared b_, std::vector<Expr> bo,
      bool bk, std::array<Var, 4> c)
      : StmtNode(static_kind), input(in), a(std::move(a_)), b(std::move(b_)),
        a_origin(std::move(ao)), b_origin(std::move(bo)), a_k_last(ak), b_k_last(bk),
        acc(std::move(c)) {}
  static Stmt make(Shared a, std::vector<Expr> a_origin, bool a_k_last, Shared b,
                   std::vector<Expr> b_origin, bool b_k_last, std::array<Var, 4> acc);
};

// A fact lowering passes promise for the code after it (LLVM's llvm.assume): `cond` holds
// whenever control reaches here, and code generation may rely on it (the tensor-core tile's
// 16-byte loads where its operands' rows are multiples of 8 elements). Only a pass that tested
// `cond` on the path makes one; the interpreter checks it.
struct Assume : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::Assume;
  Expr cond;
  explicit Assume(Expr c) : StmtNode(static_kind), cond(std::move(c)) {}
  static Stmt make(Expr cond);
};

// A copy of `bytes` (16, 8 or 4), `count` neighbouring elements along the last dimension, from
// array parameter `array` at [src...] into shared array `dst` at [dst_index...] (their elements
// of one type), which may complete asynchronously (CUDA's cp.async, sm_80 and later): the copy is
// complete, for the thread that made it, at its next AsyncWait, and a barrier after that makes
// it visible to the block. Both addresses are aligned to `bytes` and every element copied is in
// bounds: the pass that makes one guarantees it (ir/TileMma.cpp tests it on the path). With
// `valid` (an i64, 0 to count), only the first `valid` elements are read and the rest of the
// destination's become zeros (cp.async's src-size); with `valid` 0 nothing is read. The CPU and
// the interpreter copy at once.
struct AsyncCopy : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::AsyncCopy;
  Shared dst;
  std::vector<Expr> dst_index;
  int array;
  std::vector<Expr> src_index;
  int count;
  Expr valid;
  AsyncCopy(Shared d, std::vector<Expr> di, int a, std::vector<Expr> si, int c, Expr v)
      : StmtNode(static_kind), dst(std::move(d)), dst_index(std::move(di)), array(a),
        src_index(std::move(si)), count(c), valid(std::move(v)) {}
  // `element` is the array's element type (the shared array's too).
  static Stmt make(Shared dst, std::vector<Expr> dst_index, int array, ScalarType element,
                   std::vector<Expr> src_index, int bytes = 16, Expr valid = Expr());
};
// Waits until the thread's asynchronous copies are complete (cp.async.wait_all). With `pending`
// >= 0, the copies the thread made since its last AsyncWait form a group (cp.async.commit_group),
// and it waits until at most `pending` of its groups are incomplete, the newest ones
// (cp.async.wait_group): a pipeline of several chunks in flight. With `async_proxy`, the
// thread's writes to shared memory so far are then made visible to the tensor cores' reads
// (fence.proxy.async.shared::cta: WarpgroupMma reads shared memory through the async proxy).
// With `pending` fence_only (and `async_proxy`), nothing is waited for: only the fence, for
// shared memory a thread wrote itself while copies of its own are still in flight.
// The CPU and the interpreter copy at once: nothing to wait for.
struct AsyncWait : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::AsyncWait;
  static constexpr int fence_only = -2;
  int pending = -1;
  bool async_proxy = false;
  AsyncWait(int p, bool proxy) : StmtNode(static_kind), pending(p), async_proxy(proxy) {}
  static Stmt make(int pending = -1, bool async_proxy = false);
};

// One chunk of a warpgroup's matrix products on Hopper's tensor cores (PTX's
// wgmma.mma_async.sync.aligned.m64nNk16.f32 with f16 or bf16 inputs, sm_90a; with f32, read as
// TF32, m64nNk8.f32.tf32, both operands k-major): the 128 threads of
// the warpgroup (four consecutive warps, the first a multiple of 4) run it together, each
// product D = D + A * B of a 64 x k_steps*16 block A and a k_steps*16 x n block B (TF32:
// k_steps*8), both read by
// the tensor cores straight from shared array `smem` (no registers), in the 128-byte swizzled
// layouts PTX's matrix descriptors describe (ir/TileWgmma.cpp lays them out):
//   k-major (A[i, k], B[j, k]): rows of 128 bytes along k (64 16-bit elements, 32 f32), 8 rows
//     to a 1024-byte atom, the 16-byte group g of row r at g ^ (r % 8); `sbo` the bytes from one
//     8 rows to the next. The tensor cores read an f32 as TF32 by its top 19 bits: the pass that
//     stages one rounds it first;
//   m- or n-major (A[k, i], B[k, j]): rows of 64 elements along m or n, one per k, 8 k to an
//     atom; `lbo` the bytes from one 64 elements of m or n to the next, `sbo` from 8 k to the
//     next 8.
// Each product's block starts `*_offset` elements into `smem` (an atom's first element), and
// each next 16 of k `k_step_bytes` further. The accumulators are f32 locals, read and assigned:
// thread t of the warpgroup holds in acc[e] the element (16 (t / 32) + (t % 32) / 4 + 8 (e % 4 /
// 2), 8 (e / 4) + 2 (t % 4) + e % 2) of the 64 x n block, as wgmma's D fragment lays them out.
// The products of two 16-bit floats are exact; their sum rounds to f32 in an order the hardware
// chooses (docs/semantics.md). The statement issues the chunk (wgmma.fence, the products,
// wgmma.commit_group), then waits until at most `pending` (0 or 1) of the warpgroup's chunks are
// still running (wgmma.wait_group): with 1, this chunk runs on while the threads go on, and the
// previous one is done (its stage of shared memory free again). With k_steps 0 it issues nothing
// and only waits (the products' accumulators are then those still being written). The
// accumulators of a running chunk must not be read or written by other statements. GPU only:
// the pass that makes one does so for sm_90 (code generation then targets sm_90a).
struct WarpgroupMma : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::WarpgroupMma;
  struct Layout {
    bool k_major;
    int64_t lbo, sbo, k_step_bytes;
  };
  struct Product {
    Expr a_offset, b_offset; // i64, elements of smem
    std::vector<Var> acc;    // n / 2
  };
  ScalarType input;
  Shared smem;
  int64_t n;
  int k_steps;
  Layout a, b;
  std::vector<Product> products;
  int pending;
  WarpgroupMma(ScalarType in, Shared s, int64_t n_, int k, Layout a_, Layout b_,
               std::vector<Product> p, int pend)
      : StmtNode(static_kind), input(in), smem(std::move(s)), n(n_), k_steps(k), a(a_), b(b_),
        products(std::move(p)), pending(pend) {}
  static Stmt make(Shared smem, int64_t n, int k_steps, Layout a, Layout b,
                   std::vector<Product> products, int pending = 0);
};

// An operation on a memory barrier (PTX's mbarrier, sm_80 and later): the 8 bytes at element
// `index` (i64) of shared array `barriers`, an i64 array or the dynamic shared array (whose
// element `index` then starts 8-byte aligned), which count arrivals in phases. A phase completes
// when as many threads have arrived as the count it was initialised with; the next phase then
// begins, with the same count. Threads of a block that play different roles (a warpgroup copying
// operands, others multiplying them: ir/TileWgmma.cpp) hand stages of shared memory to each
// other through them without a barrier of the whole block.
//   Init:   one thread sets the barrier up for `value` (an i64, 1 or more) arrivals a phase; a
//           barrier of the block must follow before any other thread uses it.
//   Arrive: the thread arrives (mbarrier.arrive, release: its writes to shared memory before it,
//           and what it saw, are visible to a thread whose Wait sees the phase complete).
//   ArriveOnCopies: the thread arrives once its asynchronous copies so far (AsyncCopy) are
//           complete, without waiting for them (cp.async.mbarrier.arrive.noinc): their bytes are
//           then visible to the waiting threads, and to the tensor cores' reads (WarpgroupMma).
//   Wait:   the thread waits until the phase of parity `value` (an i64, 0 or 1) is complete
//           (mbarrier.try_wait.parity, acquire). A barrier just initialised is in phase 0, and
//           the phase before it, of parity 1, counts as complete.
// GPU only: the pass that makes one does so for sm_90.
struct Mbarrier : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::Mbarrier;
  enum class Op : uint8_t { Init, Arrive, ArriveOnCopies, Wait };
  Op op;
  Shared barriers;
  Expr index, value; // value: Init's count, Wait's parity; none for the arrivals
  Mbarrier(Op o, Shared b, Expr i, Expr v)
      : StmtNode(static_kind), op(o), barriers(std::move(b)), index(std::move(i)),
        value(std::move(v)) {}
  static Stmt make(Op op, Shared barriers, Expr index, Expr value = Expr());
};

// The element of the 16 x 8 accumulator block that lane `lane`'s acc[r] holds (Mma).
inline int mma_row(int lane, int r) {
  return lane / 4 + 8 * (r / 2);
}
inline int mma_col(int lane, int r) {
  return 2 * (lane % 4) + r % 2;
}

// Python's print(a, b, ...): one line of the items' text, separated by spaces, to the process's
// stdout; one thread's line is never interleaved with another's (ir/PrintFormat.h says how each
// type prints). An item is literal text, or a value of any scalar type; a complex value, once
// expand_complex has run, is its real part in `value` and its imaginary part in `imag`.
struct PrintItem {
  std::string text; // when `value` is not defined
  Expr value;
  Expr imag; // a complex value's imaginary part, after expand_complex
};
struct Print : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::Print;
  std::vector<PrintItem> items;
  explicit Print(std::vector<PrintItem> i) : StmtNode(static_kind), items(std::move(i)) {}
  static Stmt make(std::vector<PrintItem> items);
};

// Python's `assert cond, "message"` (C++: loom::check): when `cond` (bool) is false, the call
// records the failure (the first one: its site and `indices`' values; and how many failed) and
// throws loom::KernelAssertionError when its tasks have run. `site` indexes Kernel::assert_sites.
// lower_asserts (ir/LowerAsserts.cpp) makes a failed assertion end its parallel iteration, and
// fills `indices`: the enclosing parallel loops' variables, outermost first, or a SIMT thread's
// block and thread index (the front ends leave them empty).
struct Assert : StmtNode {
  static constexpr StmtKind static_kind = StmtKind::Assert;
  Expr cond;
  int site;
  std::vector<Expr> indices;
  Assert(Expr c, int s, std::vector<Expr> i)
      : StmtNode(static_kind), cond(std::move(c)), site(s), indices(std::move(i)) {}
  static Stmt make(Expr cond, int site, std::vector<Expr> indices = {});
};
// The most indices a failure records (the bounds record's slots).
inline constexpr size_t max_assert_indices = 7;

// ---- kernels ------------------------------------------------------------------------------

// Where an assertion is and what it says: the message (the text DSL's default is the
// condition's source text), the file and line of the text DSL or of the C++ call, and the names
// of its Assert's indices (lower_asserts fills them).
struct AssertSite {
  std::string message;
  std::string file;
  int line = 0;
  std::vector<std::string> index_names = {};
};

// Array extents that must agree at call time: the text DSL's shape symbols (`A: f32[N, K]`) and
// literal extents (`x: f32[3]`). The embedded DSL declares none.
struct ShapeSymbol {
  std::string name;                      // "K"; for a literal extent, its digits ("3")
  std::vector<std::pair<int, int>> dims; // (parameter index, dimension), all of the same extent
  std::optional<int64_t> extent;         // a literal extent: every dimension must equal it
};

// The same, resolved to the loop variables themselves, which lowering keeps (LoweredKernel).
using LoopHints = std::map<Var, LoopSchedule>;

// A kernel as a front end produces it.
// A condition a call's arguments must meet, checked before anything runs (loom/CheckArguments.cpp),
// over scalar parameters and array extents only; `message` is the ArgumentError's when it is
// false (the front ends add one for a parallel range whose step is a parameter: it must not be 0).
struct CallCheck {
  Expr holds; // bool
  std::string message;
};

struct Kernel {
  std::string name;
  std::vector<Param> params;
  Stmt body;
  bool fast_math = false;    // @kernel(fastmath=True): GPU code may approximate
  bool bounds_check = false; // @kernel(bounds_check=True), LOOM_BOUNDS_CHECK=1
  // @kernel(tf32=True), Kernel::allow_tf32(): the tensor-core tile may read f32 arrays as TF32
  // (10 significand bits); off by default, as PyTorch's matmul.
  bool tf32 = false;
  std::vector<ShapeSymbol> shape_symbols; // checked against the arguments of every call
  // How its loops run (ir/Schedule.h). Under Mapping::Simt, `body` is what each thread of an
  // explicitly shaped launch runs, and `shared` lists its shared arrays.
  Schedule schedule = {};
  std::vector<Shared> shared = {};
  std::vector<Shared> locals = {};         // its local arrays, in the order declared
  std::vector<CallCheck> call_checks = {}; // checked at every call (ir::CallCheck)
  // Its assertions' sites (ir::Assert::site), and whether they are checked: @kernel(asserts=
  // False), Kernel::asserts(false) and LOOM_ASSERTS=0 compile them out, conditions and all.
  std::vector<AssertSite> assert_sites = {};
  bool asserts = true;
  bool simt() const { return schedule.simt(); }
};

// After lowering, a kernel is a sequence of tasks run one after another (one GPU launch each).
// A parallel task's body covers the iteration chunk it is given:
//   GPU: its grid-stride loops read SpecialReg; `domain` gives the extents to size the grid
//        (innermost first is NOT implied: domain[k] is the extent of dimension k, outermost first);
//   CPU: the outermost parallel dimension runs from `chunk_begin` to `chunk_end`, two i64
//        variables the caller binds; the runtime splits domain[0] among threads.
// A SIMT task is a SIMT kernel's body: every thread of the launch the call gives runs it once
// (GPU: as a CUDA kernel; CPU: each block on one OS thread, its threads on fibers).
enum class TaskKind : uint8_t { Serial, Parallel, Simt };
// A reduction into one array element that every iteration of a parallel task combines into
// (lower_reductions makes them): each worker (GPU thread, CPU chunk) accumulates into its own
// `accumulator`, a local declared at the top of the task body with the operation's identity;
// after the body the workers' accumulators are combined in a fixed order (GPU: a tree per block,
// then the blocks in order; CPU: the chunks in order) and the total combined into
// array[indices] (indices over scalar parameters and array shapes only). A fixed launch shape
// or thread count therefore gives the same bits every run.
struct TaskReduction {
  ReduceOp op;
  Var accumulator;
  int array;
  std::vector<Expr> indices;
};
struct Task {
  std::string name; // symbol name of the task's entry point
  TaskKind kind;
  std::vector<Expr> domain;   // parallel tasks: the index-space extents (over params only)
  Var chunk_begin, chunk_end; // CPU parallel tasks only
  Stmt body;
  std::vector<TaskReduction> reductions; // parallel tasks: combined after the body
  int64_t run = 1; // GPU parallel tasks: consecutive iterations a thread takes at a time
  // GPU parallel tasks under the block_per_iteration schedule: the block's threads (each
  // iteration runs on one block; ir/BlockPerIteration.cpp); 0 otherwise.
  int threads = 0;
  TileSchedule tile = {}; // GPU parallel tasks under the tile schedule: the schedule
  // GPU tasks under the tile schedule: how the tensor cores run the tile (ir/TileMma.cpp), or
  // "not used: " and why; empty otherwise.
  std::string tensor_cores = {};
  // GPU tasks whose shared memory is a dynamic array the lowering sized (the warpgroup tiles of
  // ir/TileWgmma.cpp): the bytes each block's launch gives it; 0 otherwise.
  int64_t dynamic_shared_bytes = 0;
  // GPU tasks whose code needs the architecture-specific target of their SM (sm_90a: wgmma);
  // code generation then targets it for the whole kernel.
  bool arch_specific = false;
  // GPU tasks whose blocks each loop over the domain (a tile every gridDim.x) and carry work from
  // one of their iterations to the next (the producer warpgroup of ir/TileWgmma.cpp copies the
  // next tile's chunks while the others finish the last one): the launch gives them one wave of
  // blocks, as many as fit on the GPU at once, unless a launch policy says otherwise.
  bool persistent = false;
  // GPU parallel tasks lowered for a launch that covers the domain: one iteration per thread,
  // each dimension's index guarded by an `if` instead of stepped by a grid-stride loop
  // (ir/MapParallelLoops.cpp); the launch must then give every iteration its own thread.
  bool covering = false;
  // CPU parallel tasks: the lanes each worker's float sums and products accumulate in
  // (ir/CpuLanes.cpp); 1 without.
  int lanes = 1;
  // Parallel tasks: how each array's updates (Reduce statements) run and why, one line per
  // array, in words (lower_reductions; explain() shows them).
  std::vector<std::string> updates = {};
  // CPU tasks of a 2-D parallel loop under the default mapping: the register blocks loom chose
  // for it and why, or why none (ir/AutoSchedule.cpp; explain() shows it); empty otherwise.
  std::string auto_schedule = {};
  // GPU serial tasks: whether they run on one block whose threads split the loops with
  // independent iterations (ir/SerialBlock.cpp), which loops, or why one thread runs them
  // (explain() shows it); empty otherwise.
  std::string serial_block = {};
  // GPU parallel tasks: the elements each iteration writes and reads back in a sequential loop
  // that live in a local array for it (ir/StagePrivate.cpp), one line per array, in words.
  std::vector<std::string> staged = {};
  // GPU parallel tasks made of consecutive ones that run in one launch (ir/FuseTasks.cpp): the
  // names of the tasks fused, in order ("lud_task1, lud_task2"); empty otherwise.
  std::string fused = {};
  // GPU tasks of a kernel with task loops, for sm_90 and later: the kernel starts by waiting for
  // the grids launched before it to finish (PTX griddepcontrol.wait) and then lets the next launch
  // begin (griddepcontrol.launch_dependents), so that the runtime may launch it as a programmatic
  // dependent of the launch before (CUDA's programmatic dependent launch): its blocks are
  // scheduled, and its parameters read, while the previous grid finishes.
  bool waits_for_grid = false;
  // GPU tasks that ir/StepsPerLaunch.cpp made of a task loop's step: what the task does, in
  // words (several steps of the loop a launch, or the copy of the row the steps start from);
  // empty otherwise.
  std::string steps_per_launch = {};
  // GPU parallel tasks: the loads a walk along z keeps in registers (ir/CarryLoads.cpp), one line
  // per walk, in words; empty otherwise.
  std::vector<std::string> carried = {};
  // GPU parallel tasks that ir/StageBlockReads.cpp gave a block for each iteration of the outer
  // dimensions: one line per loop whose reads the block's threads share, in words; empty
  // otherwise.
  std::vector<std::string> block_reads = {};
};
// A sequential loop of the kernel around parallel loops (`for t in range(T):` enclosing them, at
// the top level or inside such loops only): tasks [first, last) run in order once for each value
// of `var`, from `begin` while below `end`, by `step` (evaluated on the host, over scalar
// parameters, array shapes and enclosing loops' variables), each task complete before the next
// starts, as a host loop of calls would run them. The tasks read `var` as LoweredKernel::params
// [param], a scalar i64 parameter the call binds. Loops nest by their task ranges; a kernel's list
// holds them outermost first, in the order they start.
struct TaskLoop {
  Var var;
  Expr begin, end, step;
  size_t first = 0, last = 0;
  int param = -1;
};
// What split_into_tasks makes of a kernel: its tasks and the loops around them.
struct TaskProgram {
  std::vector<Task> tasks;
  std::vector<TaskLoop> loops;
};

// An array parameter that the lowering added for its own use (ir/StepsPerLaunch.cpp): the call
// allocates it in the target's memory, with these extents (over the kernel's parameters, as a
// task's domain), and passes it as the parameter `param`; its contents are unspecified when a
// call begins. The kernel object keeps it between calls.
struct ScratchArray {
  int param = -1;
  std::vector<Expr> extents;
};

enum class Target : uint8_t { CPU, GPU };
const char *target_name(Target t);

struct LoweredKernel {
  std::string name;
  // Kernel::params, then one i64 scalar per task loop (TaskLoop::param), which the call binds,
  // then the scratch arrays' (`scratch`), which the call allocates.
  std::vector<Param> params;
  Target target;
  std::vector<Task> tasks;
  std::vector<TaskLoop> task_loops = {};  // the sequential loops around the tasks, if any
  std::vector<ScratchArray> scratch = {}; // the arrays the lowering added, if any
  bool fast_math = false;                 // Kernel::fast_math
  // Kernel::bounds_check: every array access checks its indices against the extents; a task then
  // takes a bounds record after its other parameters (support/Abi.h).
  bool bounds_check = false;
  bool simt = false;               // Kernel::simt: one task, of kind Simt
  std::vector<Shared> shared = {}; // Kernel::shared
  std::vector<Shared> locals = {}; // Kernel::locals
  // Whether a task prints (ir::Print): a call then waits for its tasks and flushes stdout before
  // it returns, even an asynchronous one.
  bool prints = false;
  // The sites of the assertions its tasks check (Kernel::assert_sites; empty when they were
  // compiled out or there are none). A task then takes the record (support/Abi.h), and a call
  // waits for its tasks to read it.
  std::vector<AssertSite> assert_sites = {};
  // Whether its tasks take the bounds record (support/Abi.h): bounds checks or assertions.
  bool takes_record() const { return bounds_check || !assert_sites.empty(); }
  // Kernel::loops as code generation applies them to the loops of the tasks, by loop variable;
  // on the GPU without the parallel loops' vectorize, which became runs (Task::run).
  LoopHints loops = {};
};

} // namespace loom::ir
