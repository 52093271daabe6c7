// The syntax tree of the text DSL, as the parser builds it. Nothing here is checked yet: names,
// types, ranks and shapes are the checker's business.
#pragma once

#include "frontend/text/Diagnostics.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loom::text::ast {

enum class ExprKind : uint8_t {
  Int,         // int_value
  Float,       // float_value
  Imag,        // float_value times the imaginary unit: 2.5j
  Bool,        // bool_value
  Name,        // name
  Unary,       // unary_op operands[0]
  Binary,      // operands[0] binary_op operands[1]
  Conditional, // operands[0] if operands[1] else operands[2]
  Call,        // name(operands...); name is "f" or dotted: "math.f", "cuda.grid", "atomic.add"
  Subscript,   // operands[0][operands[1], ...]
  Attribute,   // operands[0].name
  Tuple,       // (operands[0], operands[1], ...): a shape or an index; also `x, y = ...`'s target
  String,      // name: a string literal's text, escapes decoded (print's arguments only)
};

enum class UnaryOp : uint8_t { Neg, Plus, Not, BitNot };
enum class BinaryOp : uint8_t {
  Add,
  Sub,
  Mul,
  Div,
  Mod,
  BitAnd,
  BitOr,
  BitXor,
  Shl,
  Shr,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  And,
  Or
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  ExprKind kind;
  SourceLocation loc; // of the operator for unary/binary expressions, else of the first token
  std::string name;
  int64_t int_value = 0;
  double float_value = 0;
  bool bool_value = false;
  UnaryOp unary_op = UnaryOp::Neg;
  BinaryOp binary_op = BinaryOp::Add;
  std::vector<ExprPtr> operands;
  SourceLocation begin; // of the expression's first token (for messages about the whole)
};

// `f32`, or `f32[N, 3]`.
struct Dim {
  SourceLocation loc;
  std::string symbol; // a shape symbol, or empty for a literal extent
  int64_t extent = 0;
};
struct TypeExpr {
  SourceLocation loc;
  std::string scalar; // as written; the checker knows the valid names
  bool is_array = false;
  std::vector<Dim> dims;
};

enum class StmtKind : uint8_t { Assign, ExprStmt, If, For, While, Return, Pass, Assert };

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

struct LoopVar {
  SourceLocation loc;
  std::string name;
};

struct Stmt {
  StmtKind kind;
  SourceLocation loc; // of the statement's first token
  // Assign: target (op)= value, with an optional annotation (`acc: f32 = 0.0`). The target is a
  // name, an element, or a Tuple of names (`x, y = grid(2)`).
  ExprPtr target;
  std::optional<BinaryOp> compound; // `+=` is Add, ...
  SourceLocation op_loc;            // of `=` / `+=`
  std::optional<TypeExpr> annotation;
  // Assign: the value; ExprStmt: the expression; If/While: the condition; For: the iterable
  // (a call of range or parallel); Return: the value or null; Assert: the condition.
  ExprPtr value;
  ExprPtr message;                // Assert: the message (a string), or null
  std::string cond_text;          // Assert: the condition's source text, when on one line
  std::vector<LoopVar> loop_vars; // For
  Block body;                     // If (then), For, While
  Block else_body;                // If
  bool is_elif = false; // an If that an `elif` made (it is the only else_body of its parent)
};

struct Param {
  SourceLocation loc;
  std::string name;
  std::optional<TypeExpr> type;
};

struct Option {
  SourceLocation loc;
  std::string key;
  ExprPtr value;
};

struct Function {
  SourceLocation loc; // of `def`
  SourceLocation name_loc;
  std::string name;
  bool is_kernel = false; // decorated with @kernel
  std::vector<Option> options;
  std::vector<Param> params;
  std::optional<TypeExpr> returns;
  Block body;
};

struct Module {
  std::vector<Function> functions;
};

} // namespace loom::text::ast
