// The checker of the text DSL: resolves names, types every expression with the embedded DSL's
// rules (Typing.h) and builds the IR of each @kernel function, inlining helper functions.
// Internal to frontend/text (Check*.cpp); the entry point is parse_kernels in Compile.h.
#pragma once

#include "frontend/PhiloxIR.h"
#include "frontend/text/Ast.h"
#include "frontend/text/Diagnostics.h"
#include "frontend/text/Typing.h"
#include "ir/IR.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loom::text {

// Thrown after an error has been reported; unwinds to the statement, which the checker skips.
struct CheckFailed {};

// A random number generator, `g = random.philox(seed, stream)` (CheckRandom.cpp): its locals,
// and the parallel loops checked before it was made (it is drawn from where that count holds).
struct Generator {
  frontend::PhiloxState state;
  int parallel_loops = 0;
};

struct Symbol {
  enum class Kind { Local, LoopIndex, Scalar, Array, Shape, Shared, Generator, Poison };
  Kind kind = Kind::Poison;
  SourceLocation loc; // where it was declared
  ir::Var var;        // Local, LoopIndex
  Value value;        // Scalar (a parameter), Shape (an array extent)
  int array = -1;     // Array: the kernel parameter it names
  ir::Shared shared;  // Shared: a shared array of a SIMT kernel, or a local array
  // Generator: a random number generator (CheckRandom.cpp).
  std::shared_ptr<const Generator> generator;

  static Symbol variable(Kind kind, SourceLocation loc, ir::Var var) {
    Symbol s;
    s.kind = kind, s.loc = loc, s.var = std::move(var);
    return s;
  }
};

// A parameter's or a return value's type.
struct CheckedType {
  bool is_array = false;
  ir::ScalarType scalar = ir::ScalarType::F32;
  std::vector<ast::Dim> dims;
};

// A function's checked signature; `ok` is false when a parameter or return type is wrong.
struct Signature {
  bool ok = true;
  std::vector<CheckedType> params;
  std::optional<ir::ScalarType> returns;
};

// The IR operator of a syntax-tree operator.
ir::BinaryOp to_ir(ast::BinaryOp op);

// The SIMT level's names (CheckSimt.cpp).
// A call's function name without Numba's "cuda." prefix (cuda.grid is grid).
std::string without_cuda(const std::string &callee);
// Whether a call (its name without "cuda.") is one of the SIMT level's: syncthreads, grid,
// gridsize, shared.array, atomic.*, the shuffles and votes; or any other cuda.* name.
bool is_simt_call(const std::string &callee);

class Checker {
public:
  Checker(const ast::Module &module, Diagnostics &diagnostics);
  // The IR of every @kernel function, in source order (complete only if no error was reported).
  std::vector<ir::Kernel> run();

private:
  // One function being checked: the kernel, or a helper inlined into it.
  struct Frame {
    explicit Frame(const ast::Function *f) : function(f) {}
    const ast::Function *function;
    std::vector<std::map<std::string, Symbol>> scopes;
    std::map<std::string, SourceLocation> closed; // locals of blocks that have ended (for hints)
    // Shape symbols and literal extents of the parameters: the first dimension declared with
    // each, and its entry in KernelState::shape_symbols (-1: none yet).
    struct Shape {
      int array, dim, entry;
    };
    std::map<std::string, Shape> shapes;
  };
  // The kernel being built.
  struct KernelState {
    std::vector<ir::Param> params;
    std::vector<ir::ShapeSymbol> shape_symbols;
    bool simt = false;              // @kernel(simt=True)
    std::vector<ir::Shared> shared; // a SIMT kernel's shared arrays, in declaration order
    std::vector<ir::Shared> locals; // its local arrays, in declaration order
    std::vector<ir::CallCheck> call_checks;
    std::vector<ir::AssertSite> assert_sites;
  };
  enum class HelperState { Unchecked, Ok, Bad };

  // ---- functions (CheckFunction.cpp) ----
  void collect_functions();
  Signature signature(const ast::Function &f);
  std::optional<CheckedType> checked_type(const ast::TypeExpr &t, const std::string &what);
  void bind_parameters(const ast::Function &f, const Signature &sig);
  void bind_shape(const std::string &name, SourceLocation loc, int array, int dim,
                  const std::string &helper);
  std::optional<ir::Kernel> kernel(const ast::Function &f);
  void check_helper(const ast::Function &f);
  std::optional<Value> helper_body(const ast::Function &f);
  void options(const ast::Function &f, ir::Kernel &k);

  // ---- statements (CheckStatement.cpp) ----
  ir::Stmt block(const ast::Block &b, const char *enclosing);
  void statement(const ast::Stmt &s, bool last);
  void assignment(const ast::Stmt &s);
  void store(const ast::Stmt &s);
  void if_statement(const ast::Stmt &s);
  void for_statement(const ast::Stmt &s);
  void parallel_loop(const ast::Stmt &s, const ast::Expr &call);
  void while_statement(const ast::Stmt &s);
  void return_statement(const ast::Stmt &s, bool last);
  ir::Expr loop_bound(const ast::Expr &e, const char *what);
  void check_extent(const ir::Expr &e, const ast::Expr &at);
  void bind_name(const ast::Expr &target, const Value &v);

  // ---- the SIMT level (CheckSimt.cpp) ----
  // Reports `what` (as written: "threadIdx.x", "syncthreads()") outside a SIMT kernel. A helper
  // checked on its own may use the SIMT level; the kernels it is inlined into must be SIMT ones.
  void require_simt(SourceLocation at, const std::string &what);
  void shared_declaration(const ast::Stmt &s, const std::string &function);
  void shared_store(const ast::Stmt &s, const Symbol &array);
  void tuple_assignment(const ast::Stmt &s);
  void barrier(const ast::Expr &call);
  void mma_statement(const ast::Expr &call);
  // print("text", value, ...): a Print statement of text and scalar values.
  void print_statement(const ast::Expr &call);
  void assert_statement(const ast::Stmt &s);
  // grid(n) and gridsize(n): the n axes (x first), as i64; `function` is "grid" or "gridsize".
  std::vector<ir::Expr> grid_axes(const ast::Expr &call, const std::string &function);
  std::optional<Value> simt_name(const ast::Expr &e);      // laneid, warpsize
  std::optional<Value> simt_attribute(const ast::Expr &e); // threadIdx.x, cuda.laneid, ...
  Value simt_call(const ast::Expr &e, const std::string &function);
  Value atomic(const ast::Expr &e, const std::string &function, ir::AtomicOp op);
  Value warp_operation(const ast::Expr &e, const std::string &function, ir::WarpOpKind op);
  const Symbol *shared_symbol(const ast::Expr &e) const; // a name of a shared array, or null

  // ---- random numbers (CheckRandom.cpp) ----
  // `g = random.philox(seed, stream[, block])`.
  void generator_declaration(const ast::Stmt &s);
  // A call of a dotted name that is not a module's function: a draw `g.uniform()`, or an error
  // (random.philox outside an assignment, a method of something else). None for math.sqrt,
  // cuda.grid and the other modules' functions.
  std::optional<Value> method_call(const ast::Expr &e);
  // Whether `e` is a call of a generator's method (a statement may draw and drop the value).
  bool is_draw(const ast::Expr &e) const;
  Value draw(const ast::Expr &e, const std::string &name, const Generator &g,
             const std::string &method);

  // ---- expressions (CheckExpression.cpp) ----
  Value expr(const ast::Expr &e);
  std::optional<Value> try_expr(const ast::Expr &e); // reports and returns nothing on error
  Value name(const ast::Expr &e);
  Value call(const ast::Expr &e);
  Value subscript(const ast::Expr &e);
  Value attribute(const ast::Expr &e);
  std::vector<ir::Expr> indices(const ast::Expr &e, int array);
  // The indices of `e` (a subscript) into `name`, an array or shared array of rank `rank`.
  std::vector<ir::Expr> indices(const ast::Expr &e, const std::string &name, int rank);
  ir::Expr index(const ast::Expr &e); // one integer index, as i64
  int array_argument(const ast::Expr &e, const std::string &what);
  // Inlines a helper at a call; returns its value (none for a helper without a return type).
  std::optional<Value> inline_helper(const ast::Function &f, const ast::Expr &call);

  // ---- scopes and IR ----
  const Symbol *lookup(const std::string &name) const;
  void declare(const std::string &name, Symbol s);
  void open_scope();
  void close_scope();
  void open_block();
  ir::Stmt close_block();
  void emit(ir::Stmt s);
  [[noreturn]] void error(SourceLocation at, const std::string &message);
  // convert_assigned(v, to), its TypeError reported at `at`.
  ir::Expr assigned(const Value &v, ir::ScalarType to, SourceLocation at);
  [[noreturn]] void unknown_name(const ast::Expr &e);
  std::string hint_for(const std::string &name) const;
  const ir::Param &array_param(int array) const { return kernel_.params[array]; }

  // Limits that keep hostile input from exhausting the stack or the memory.
  static constexpr int max_expression_depth = 500;
  static constexpr size_t max_expression_size = 100000;
  static constexpr int max_inlined_calls = 10000;
  bool too_large(const ir::Expr &e, int depth) const;

  const ast::Module &module_;
  Diagnostics &diag_;
  std::map<std::string, const ast::Function *> functions_;
  std::map<const ast::Function *, Signature> signatures_;
  std::map<const ast::Function *, HelperState> helper_state_;
  KernelState kernel_;
  std::vector<Frame> frames_;
  std::vector<std::vector<ir::Stmt>> blocks_;
  const char *enclosing_ = nullptr; // the construct around the statement; null at the top level
  // The innermost construct around the statement that is not a 'for' loop (null: the statement
  // is at the top level or in 'for' loops there only, where parallel loops may be).
  const char *not_for_ = nullptr;
  static constexpr const char *for_loop = "a 'for' loop";
  static constexpr const char *parallel_loop_name = "a parallel loop";
  int parallel_loops_ = 0;   // parallel loops checked so far
  int parallel_bodies_ = 0;  // parallel loop bodies around the statement (0 or 1)
  int in_parallel_loop_ = 0; // whether the statement is inside one (1) or not (0)
  // The indices of the parallel loops around the statement, outermost first, as their bodies see
  // them: what a failed assertion reports.
  std::vector<std::pair<std::string, ir::Expr>> parallel_indices_;
  int random_draws_ = 0;     // draws from generators emitted so far (while conditions)
  int expression_depth_ = 0; // of the expression being checked
  int inlined_calls_ = 0;    // into the function being checked
  int simt_effects_ = 0;     // atomics and warp operations emitted so far (while conditions)
  // The values that the helpers being checked return (innermost last), once their return is seen.
  std::vector<std::optional<Value>> returned_;
};

} // namespace loom::text
