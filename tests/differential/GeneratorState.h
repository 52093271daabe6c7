// The random program generator's state and its parts (differential/Generator.h is the interface):
// the program's structure in Generator.cpp, its indices and expressions in GeneratorExpr.cpp.
// Internal to the generator.
#pragma once

#include "differential/Generator.h"
#include "differential/Values.h"

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace loom::difftest::gen {

using namespace loom::ir;

constexpr ScalarType kTypes[] = {ScalarType::Bool, ScalarType::I32, ScalarType::I64,
                                 ScalarType::F32, ScalarType::F64};
// The narrow and unsigned integers, less often.
constexpr ScalarType kOtherInts[] = {ScalarType::I8,  ScalarType::I16, ScalarType::U8,
                                     ScalarType::U16, ScalarType::U32, ScalarType::U64};

struct ArrayInfo {
  int param;
  ScalarType type;
  std::vector<int64_t> shape;
  bool output; // may be written; inputs never are
};

// A variable in scope. Loop indices have a known range [lo, hi] and are never assigned.
struct VarInfo {
  Var var;
  bool assignable;
  bool ranged = false;
  int64_t lo = 0, hi = 0;
  bool constant_bounds = false; // a loop variable whose loop's bounds are constants
};

// Inside a top-level parallel loop: the arrays it owns, and for each the index of the current
// iteration in the dimensions bound to parallel indices (undefined: a free dimension).
struct Parallel {
  std::map<int, std::vector<Expr>> own;
  // Arrays this loop only reduces into, each with one operation (two operations on one element
  // would make the result depend on the order), and never reads.
  std::map<int, ReduceOp> reduce_into;
  bool reduced(int array) const { return reduce_into.count(array) > 0; }
  // Local arrays the loop's body declares at its start, every element written before the rest
  // of the body runs (so no read sees an uninitialised element).
  std::vector<Shared> locals;
};

struct Context {
  const Parallel *parallel = nullptr;
  bool inputs_only = false; // the initial value of a variable later parallel loops read
  bool domain = false;      // a parallel loop's extent: scalar parameters and shapes only
  int nesting = 0;
  int64_t trips = 1; // product of the enclosing loops' trip counts
};

inline Expr i64c(int64_t v) {
  return IntConst::make(ScalarType::I64, v);
}
inline Expr bin(BinaryOp op, Expr a, Expr b) {
  return Binary::make(op, std::move(a), std::move(b));
}

class Generator {
public:
  Generator(uint64_t seed, const GeneratorOptions &options)
      : rng_(seed), values_(seed ^ 0x9e3779b97f4a7c15ull), options_(options) {}

  Program run(uint64_t seed);

private:
  // ---- randomness ---------------------------------------------------------------------------

  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(std::max(n, 1))); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  template <class T> const T &one_of(const std::vector<T> &v) { return v[pick(v.size())]; }
  // Any type; complex ones only in a program with complex numbers (the others draw nothing more,
  // so they stay what their seeds gave before complex numbers were generated).
  ScalarType any_type() {
    if (complex_ && chance(0.12))
      return complex_type();
    if (half_ && chance(0.2)) // likewise for the 16-bit floats
      return half_type();
    return chance(0.3) ? kOtherInts[pick(6)] : kTypes[pick(5)];
  }
  ScalarType complex_type() { return chance(0.5) ? ScalarType::C64 : ScalarType::C128; }
  ScalarType half_type() { return chance(0.5) ? ScalarType::F16 : ScalarType::BF16; }
  // An array's element type: now and then f16 or bf16, which hold f32 values (value_type).
  ScalarType array_type();

  // ---- parameters and arguments -------------------------------------------------------------
  std::vector<int64_t> random_shape(int rank);
  void make_params();
  InterpreterArg argument(int param);
  const ArrayInfo &array_info(int param) const;

  // ---- top level ----------------------------------------------------------------------------

  // `count` sections at the top level or in a task loop `depth` deep: parallel loops, serial
  // groups, immutable variables, and now and then a task loop around more sections.
  void sections(std::vector<Stmt> &out, int count, int depth);

  // for t in range(b, e, s) around sections (a task loop, run on the host between launches): a
  // few trips, its end over scalar parameters and shapes; t reaches the sections as an immutable
  // value, and what they declare stays inside.
  Stmt task_loop(int depth);

  // An immutable top-level variable that later parallel loops may read.
  Stmt shared_local();
  void serial_group(std::vector<Stmt> &top);
  Stmt parallel_loop();
  // for i, j in parallel(...): acc = e; for k in range(...): acc = acc op A[i, k] * B[k, j];
  // C[i, j] = acc (only in programs with matmul_): the form the CPU runs in register blocks of
  // its own choosing (ir/AutoSchedule.cpp). Null when the program has no 2-D output and 2-D
  // inputs to make it of.
  Stmt matmul_loop();
  // for t in range(b, e, s): for i in parallel(columns): a[(t + s) % m, i] = f(a[t % m, i - 1 ..
  // i + d] clamped, inputs, i) (only in programs with stencil_): each step's row from the row the
  // step before wrote, the form the GPU runs several steps a launch; undefined where no array fits.
  Stmt stencil_loop();
  // for o, x in parallel(m, C): acc = e; for k in range(b, b + T): acc = acc op X[o + k, d] ...;
  // A[o, x] = acc, with C a constant of 64 to 100 (only in programs with shared_reads_): loads
  // that every x of one o makes, the form whose reads a GPU block shares in shared memory.
  Stmt shared_reads_loop();
  bool serial_rows(std::vector<Stmt> &top);
  void row_recurrence(const ArrayInfo &a, const std::vector<int> &bound,
                      const std::vector<Expr> &own, const Context &ctx, std::vector<Stmt> &body);
  // A local array of the parallel loop `par` (only in programs with local_): its declaration
  // joins the kernel's, and loops that write every element join `body`.
  void local_array(Parallel &par, const Context &ctx, std::vector<Stmt> &body);
  // t[...] = value into one of the loop's local arrays, or a read of one of type t (null when
  // the loop has none of that type).
  Stmt local_store(const Context &ctx);
  Expr local_load(ScalarType t, const Context &ctx);

  // ---- statements ---------------------------------------------------------------------------
  Stmt block(Context ctx);
  // Appends one statement (or a few that belong together) to `out`.
  void statement(const Context &ctx, std::vector<Stmt> &out);
  Stmt declare(const Context &ctx);
  Stmt assign(const Context &ctx);
  Stmt store(const Context &ctx);
  // array[indices] op= value. In a parallel loop: into an array the loop only reduces into, at
  // one element for all iterations (constant indices) or at data-dependent ones; elsewhere into
  // any output array.
  Stmt reduce(const Context &ctx);

  // for v in begin .. end step s, with a trip count of at most 8.
  Stmt for_loop(Context ctx);

  // var c = 0; while (c < K && cond) { body; c = c + 1 }
  void while_loop(Context ctx, std::vector<Stmt> &out);

  // var acc = init; for k in 0 .. extent { acc = acc OP f(array[.. k ..]) }
  bool reduction(const Context &ctx, std::vector<Stmt> &out);

  // ---- indices ------------------------------------------------------------------------------
  std::vector<Expr> indices(int array, const Context &ctx);
  // An index into dimension d of `array` that is in bounds by construction.
  Expr index(int array, int d, const Context &ctx);
  // An index in [0, extent) by construction; `x` is the extent as an expression.
  Expr index_within(int64_t extent, Expr x, const Context &ctx);
  static Expr modulo(Expr e, Expr x);
  Expr i64_expr(const Context &ctx, int depth);

  // ---- expressions --------------------------------------------------------------------------
  Expr expr(ScalarType t, int depth, const Context &ctx);
  Expr bool_expr(int depth, const Context &ctx);

  // A math function of float type t; usually with its argument kept where the result is a finite
  // number.
  Expr math(ScalarType t, int depth, const Context &ctx);

  // ---- complex numbers (only in programs with complex_) --------------------------------------

  // An expression of complex type t: arithmetic with a complex or a real operand (cast to t),
  // complex(re, im), math functions.
  Expr complex_expr(ScalarType t, int depth, const Context &ctx);
  // A complex math function of type t; usually with its argument kept where the result is finite.
  Expr complex_math(ScalarType t, int depth, const Context &ctx);
  // A float of type t from a complex number: its real or imaginary part or its abs.
  Expr complex_part(ScalarType t, int depth, const Context &ctx);
  // The operand of a complex operation of type t: mostly complex, now and then a real one cast.
  Expr complex_operand(ScalarType t, int depth, const Context &ctx);

  // ---- random numbers (only in programs with philox_) -------------------------------------------

  // A Philox generator made from expressions of the scope, and 1 to 6 draws from it, each into a
  // local added to the scope.
  void philox_draws(const Context &ctx, std::vector<Stmt> &out);
  // print("p<n>", values...): a label and one to three integer or bool values.
  Stmt print_statement(const Context &ctx);
  Stmt assert_statement(const Context &ctx);
  // The body of a SIMT program, and its launch.
  void simt_kernel(Program &p);
  void simt_mma_kernel(Program &p);

  // ---- 16-bit floats (values of them only in programs with half_) -----------------------------

  // e (of a real type) clamped to a range where an f16 holds it, so that most conversions into
  // one are of moderate values rather than infinities: [-2000, 2000], within e's type.
  Expr moderate(Expr e);

  // ldexp's exponent: an i32, mostly within a range where the result stays finite.
  Expr exponent(int depth, const Context &ctx);
  Expr leaf(ScalarType t, const Context &ctx);

  std::mt19937_64 rng_;
  ValueSource values_;
  GeneratorOptions options_;
  bool complex_ = false;          // whether this program has complex numbers
  bool half_ = false;             // whether this program has f16 and bf16 values (not only arrays)
  bool local_ = false;            // whether this program's parallel loops may have local arrays
  bool row_ = false;              // whether this program's parallel loops may walk rows
  bool shared_reads_ = false;     // whether this program ends with a shared_reads_loop
  bool stencil_ = false;          // whether this program ends with a stencil_loop
  bool matmul_ = false;           // whether this program ends with a loop of the matmul form
  std::vector<Shared> locals_;    // the kernel's local arrays
  bool philox_ = false;           // whether this program has Philox generators
  bool print_ = false;            // whether this program prints
  int prints_ = 0;                // print statements made so far (their labels)
  bool assert_ = false;           // whether this program asserts
  std::vector<AssertSite> sites_; // its assertions' sites
  std::vector<Param> params_;
  std::vector<ArrayInfo> arrays_;
  std::vector<VarInfo> shared_; // scalar parameters and immutable top-level variables
  std::vector<VarInfo> scope_;
  int next_var_ = 0;
  int index_nesting_ = 0; // indices() calls in progress
};

} // namespace loom::difftest::gen
