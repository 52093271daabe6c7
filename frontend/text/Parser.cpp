#include "frontend/text/Parser.h"

#include <set>
#include <string>
#include <vector>

namespace loom::text {

namespace {

using namespace ast;

// Thrown at the first syntax error of a statement; the statement loop catches it and resyncs.
struct SyntaxError {};

// Python words that loom does not have, with what to do instead.
const char *unsupported_word(const std::string &name) {
  static const std::set<std::string> other = {"import", "from",  "class", "global", "nonlocal",
                                              "lambda", "with",  "try",   "except", "raise",
                                              "del",    "yield", "async", "await",  "finally"};
  if (name == "break" || name == "continue")
    return "is not supported; loops run to their end (use a while loop with a condition)";
  if (other.count(name))
    return "is not part of the loom language";
  return nullptr;
}

class Parser {
public:
  Parser(const std::vector<Token> &tokens, Diagnostics &diagnostics)
      : toks_(tokens), diag_(diagnostics) {}

  Module module() {
    Module m;
    while (!at(TokenKind::End) && !diag_.full()) {
      if (accept(TokenKind::Newline))
        continue;
      try {
        m.functions.push_back(function());
      } catch (const SyntaxError &) {
        skip_to_next_function();
      }
    }
    return m;
  }

private:
  // ---- tokens ---------------------------------------------------------------------------
  const Token &cur() const { return toks_[pos_]; }
  const Token &next() const { return toks_[pos_ + 1 < toks_.size() ? pos_ + 1 : pos_]; }
  bool at(TokenKind k) const { return cur().kind == k; }
  const Token &take() {
    const Token &t = toks_[pos_];
    if (pos_ + 1 < toks_.size())
      ++pos_;
    return t;
  }
  bool accept(TokenKind k) {
    if (!at(k))
      return false;
    take();
    return true;
  }
  [[noreturn]] void fail(SourceLocation at, std::string message) {
    diag_.error(at, std::move(message));
    throw SyntaxError{};
  }
  // `what` names what was expected, `where` says after what: "expected ':' after ...".
  const Token &expect(TokenKind k, const std::string &where) {
    if (!at(k))
      fail(cur().loc, std::string("expected ") + token_kind_name(k) + " " + where + ", got " +
                          describe(cur()));
    return take();
  }
  const Token &expect_name(const std::string &what) {
    if (!at(TokenKind::Name))
      fail(cur().loc, "expected " + what + ", got " + describe(cur()));
    return take();
  }

  void skip_to_next_function() {
    while (!at(TokenKind::End) &&
           !((at(TokenKind::KwDef) || at(TokenKind::At)) && cur().loc.col == 1))
      take();
  }
  // After an error inside a statement: skip the rest of its line and any block it opened.
  void skip_statement() {
    while (!at(TokenKind::Newline) && !at(TokenKind::End) && !at(TokenKind::Dedent) &&
           !at(TokenKind::Indent))
      take();
    accept(TokenKind::Newline);
    if (!at(TokenKind::Indent))
      return;
    int depth = 0;
    do {
      if (at(TokenKind::Indent))
        ++depth;
      else if (at(TokenKind::Dedent))
        --depth;
      take();
    } while (depth > 0 && !at(TokenKind::End));
  }

  // ---- functions ------------------------------------------------------------------------
  Function function() {
    Function f;
    while (at(TokenKind::At)) {
      take();
      const Token &name = expect_name("a decorator name after '@'");
      if (name.text != "kernel")
        fail(name.loc, "unknown decorator '@" + name.text + "'; the only decorator is @kernel");
      if (f.is_kernel)
        fail(name.loc, "@kernel is given twice");
      f.is_kernel = true;
      if (accept(TokenKind::LParen) && !accept(TokenKind::RParen)) {
        do {
          Option o;
          const Token &key = expect_name("an option name (as in fastmath=True)");
          o.loc = key.loc, o.key = key.text;
          expect(TokenKind::Assign, "after option '" + key.text + "'");
          o.value = expr();
          f.options.push_back(std::move(o));
        } while (accept(TokenKind::Comma) && !at(TokenKind::RParen));
        expect(TokenKind::RParen, "after the options of @kernel");
      }
      expect(TokenKind::Newline, "after the decorator");
    }
    if (!at(TokenKind::KwDef))
      fail(cur().loc, at(TokenKind::Indent)
                          ? "unexpected indent"
                          : "expected 'def' (a function definition), got " + describe(cur()) +
                                "; statements belong inside a function");
    f.loc = take().loc;
    const Token &name = expect_name("the function name after 'def'");
    f.name = name.text, f.name_loc = name.loc;
    expect(TokenKind::LParen, "after the function name");
    if (!at(TokenKind::RParen)) {
      do {
        if (at(TokenKind::RParen))
          break;
        Param p;
        const Token &pn = expect_name("a parameter name");
        p.loc = pn.loc, p.name = pn.text;
        if (accept(TokenKind::Colon))
          p.type = type_expr("a type after '" + p.name + ":'");
        f.params.push_back(std::move(p));
      } while (accept(TokenKind::Comma));
    }
    expect(TokenKind::RParen, "after the parameters");
    if (accept(TokenKind::Arrow))
      f.returns = type_expr("a return type after '->'");
    expect(TokenKind::Colon, "after the parameter list");
    f.body = block("'def " + f.name + "'", f.loc);
    return f;
  }

  TypeExpr type_expr(const std::string &what) {
    TypeExpr t;
    const Token &name = expect_name(what);
    t.loc = name.loc, t.scalar = name.text;
    if (!accept(TokenKind::LBracket))
      return t;
    t.is_array = true;
    do {
      Dim d;
      d.loc = cur().loc;
      if (at(TokenKind::Name))
        d.symbol = take().text;
      else if (at(TokenKind::Int))
        d.extent = take().int_value;
      else
        fail(cur().loc, "expected a shape symbol or an integer extent in the array type, got " +
                            describe(cur()));
      t.dims.push_back(d);
    } while (accept(TokenKind::Comma));
    expect(TokenKind::RBracket, "after the array's dimensions");
    return t;
  }

  // ---- statements -----------------------------------------------------------------------
  // The body after a header's ':' -- an indented block, or one simple statement on the same line.
  Block block(const std::string &owner, SourceLocation owner_loc) {
    Nesting guard(*this, block_nesting_, cur().loc, "block");
    Block b;
    if (!at(TokenKind::Newline)) {
      b.push_back(simple_statement());
      return b;
    }
    take();
    if (!at(TokenKind::Indent))
      fail(cur().loc, "expected an indented block after " + owner + " on line " +
                          std::to_string(owner_loc.line));
    take();
    while (!at(TokenKind::Dedent) && !at(TokenKind::End) && !diag_.full()) {
      try {
        b.push_back(statement());
      } catch (const SyntaxError &) {
        skip_statement();
      }
    }
    accept(TokenKind::Dedent);
    return b;
  }

  StmtPtr statement() {
    switch (cur().kind) {
    case TokenKind::KwIf:
      return if_statement();
    case TokenKind::KwFor:
      return for_statement();
    case TokenKind::KwWhile: {
      auto s = make_stmt(StmtKind::While);
      take();
      s->value = expr();
      expect(TokenKind::Colon, "after the 'while' condition");
      s->body = block("'while'", s->loc);
      return s;
    }
    case TokenKind::KwElif:
    case TokenKind::KwElse:
      fail(cur().loc, "'" + cur().text + "' does not follow an 'if' block at the same indentation");
    case TokenKind::KwDef:
      fail(cur().loc, "functions cannot be defined inside functions; define '" + next().text +
                          "' at the top level");
    case TokenKind::At:
      fail(cur().loc, "decorators belong before a top-level 'def'");
    case TokenKind::Indent:
      fail(cur().loc, "unexpected indent");
    default:
      return simple_statement();
    }
  }

  StmtPtr make_stmt(StmtKind k) {
    auto s = std::make_unique<Stmt>();
    s->kind = k;
    s->loc = cur().loc;
    return s;
  }

  StmtPtr if_statement() {
    auto s = make_stmt(StmtKind::If);
    std::string word = take().text; // if or elif
    s->value = expr();
    expect(TokenKind::Colon, "after the '" + word + "' condition");
    s->body = block("'" + word + "'", s->loc);
    if (at(TokenKind::KwElif)) {
      s->else_body.push_back(if_statement());
      s->else_body.back()->is_elif = true;
    } else if (at(TokenKind::KwElse)) {
      SourceLocation else_loc = take().loc;
      expect(TokenKind::Colon, "after 'else'");
      s->else_body = block("'else'", else_loc);
    }
    return s;
  }

  StmtPtr for_statement() {
    auto s = make_stmt(StmtKind::For);
    take();
    do {
      const Token &v = expect_name("a loop variable name after 'for'");
      s->loop_vars.push_back({v.loc, v.text});
    } while (accept(TokenKind::Comma));
    expect(TokenKind::KwIn, "after the loop variables");
    s->value = expr();
    expect(TokenKind::Colon, "after the 'for' header");
    s->body = block("'for'", s->loc);
    return s;
  }

  StmtPtr simple_statement() {
    StmtPtr s;
    if (at(TokenKind::KwPass)) {
      s = make_stmt(StmtKind::Pass);
      take();
    } else if (at(TokenKind::KwReturn)) {
      s = make_stmt(StmtKind::Return);
      take();
      if (!at(TokenKind::Newline) && !at(TokenKind::End))
        s->value = expr();
    } else if (at(TokenKind::Name) && cur().text == "assert") {
      s = make_stmt(StmtKind::Assert);
      take();
      if (at(TokenKind::Newline) || at(TokenKind::End))
        fail(cur().loc, "expected a condition after 'assert', as in assert i < n, \"message\"");
      s->value = expr();
      s->cond_text = diag_.text(s->value->begin, cur().loc);
      s->cond_text = s->cond_text.substr(0, s->cond_text.find('#')); // no comment
      while (!s->cond_text.empty() && s->cond_text.back() == ' ')
        s->cond_text.pop_back();
      if (accept(TokenKind::Comma))
        s->message = expr();
    } else {
      if (at(TokenKind::Name))
        if (const char *why = unsupported_word(cur().text))
          fail(cur().loc, "'" + cur().text + "' " + why);
      s = assignment_or_expression();
    }
    if (!at(TokenKind::Newline) && !at(TokenKind::End))
      fail(cur().loc, "expected end of line after the statement, got " + describe(cur()));
    take();
    return s;
  }

  static std::optional<BinaryOp> compound_op(TokenKind k) {
    static const std::pair<TokenKind, BinaryOp> ops[] = {
        {TokenKind::PlusAssign, BinaryOp::Add},    {TokenKind::MinusAssign, BinaryOp::Sub},
        {TokenKind::StarAssign, BinaryOp::Mul},    {TokenKind::SlashAssign, BinaryOp::Div},
        {TokenKind::PercentAssign, BinaryOp::Mod}, {TokenKind::AmpAssign, BinaryOp::BitAnd},
        {TokenKind::PipeAssign, BinaryOp::BitOr},  {TokenKind::CaretAssign, BinaryOp::BitXor},
        {TokenKind::ShlAssign, BinaryOp::Shl},     {TokenKind::ShrAssign, BinaryOp::Shr}};
    for (auto [kind, op] : ops)
      if (kind == k)
        return op;
    return std::nullopt;
  }

  StmtPtr assignment_or_expression() {
    auto s = make_stmt(StmtKind::Assign);
    ExprPtr lhs = expr();
    if (at(TokenKind::Comma)) {
      // `x, y = grid(2)`: names only (the checker allows it for grid() and gridsize()).
      if (lhs->kind != ExprKind::Name)
        fail(cur().loc, "multiple assignment is not supported; assign one name per line");
      auto names = make_expr(ExprKind::Tuple, lhs->begin, lhs->begin);
      names->operands.push_back(std::move(lhs));
      while (accept(TokenKind::Comma)) {
        const Token &n = expect_name("a name after ',' (multiple assignment takes names only)");
        auto name = make_expr(ExprKind::Name, n.loc, n.loc);
        name->name = n.text;
        names->operands.push_back(std::move(name));
      }
      if (!at(TokenKind::Assign))
        fail(cur().loc,
             "expected '=' after the names of a multiple assignment, got " + describe(cur()));
      s->op_loc = take().loc;
      s->target = std::move(names);
      s->value = expr();
      if (at(TokenKind::Assign))
        fail(cur().loc, "chained assignment is not supported; assign one name per line");
      return s;
    }
    if (at(TokenKind::Colon)) {
      if (lhs->kind != ExprKind::Name)
        fail(cur().loc, "only a name can have a type annotation");
      take();
      s->annotation = type_expr("a type after '" + lhs->name + ":'");
      if (!at(TokenKind::Assign))
        fail(cur().loc,
             "expected '=' and an initial value after the type annotation, got " + describe(cur()));
    }
    std::optional<BinaryOp> compound = compound_op(cur().kind);
    if (!at(TokenKind::Assign) && !compound) {
      if (at(TokenKind::SlashSlash) || at(TokenKind::StarStar))
        unsupported_operator(cur());
      s->kind = StmtKind::ExprStmt;
      s->value = std::move(lhs);
      return s;
    }
    if (lhs->kind != ExprKind::Name && lhs->kind != ExprKind::Subscript)
      fail(lhs->begin, "cannot assign to this expression; the left side of '" + cur().text +
                           "' must be a name or an array element");
    s->op_loc = cur().loc;
    s->compound = compound;
    take();
    s->target = std::move(lhs);
    s->value = expr();
    if (at(TokenKind::Assign))
      fail(cur().loc, "chained assignment is not supported; assign one name per line");
    return s;
  }

  [[noreturn]] void unsupported_operator(const Token &t) {
    if (t.kind == TokenKind::StarStar)
      fail(t.loc, "'" + t.text + "' is not supported; use pow(a, b)");
    fail(t.loc, "'" + t.text +
                    "' is not supported; '/' on integers divides truncating toward "
                    "zero, as in C (see docs/language.md)");
  }

  // ---- expressions ----------------------------------------------------------------------
  ExprPtr make_expr(ExprKind k, SourceLocation loc, SourceLocation begin) {
    auto e = std::make_unique<Expr>();
    e->kind = k, e->loc = loc, e->begin = begin;
    return e;
  }
  ExprPtr binary(BinaryOp op, SourceLocation loc, ExprPtr a, ExprPtr b) {
    auto e = make_expr(ExprKind::Binary, loc, a->begin);
    e->binary_op = op;
    e->operands.push_back(std::move(a));
    e->operands.push_back(std::move(b));
    return e;
  }

  ExprPtr expr() {
    Nesting guard(*this, expression_nesting_, cur().loc, "expression");
    ExprPtr e = or_expr();
    if (!at(TokenKind::KwIf))
      return e;
    SourceLocation loc = take().loc;
    ExprPtr cond = or_expr();
    expect(TokenKind::KwElse, "after the condition of a conditional expression ('a if c else b')");
    ExprPtr other = expr();
    auto c = make_expr(ExprKind::Conditional, loc, e->begin);
    c->operands.push_back(std::move(e));
    c->operands.push_back(std::move(cond));
    c->operands.push_back(std::move(other));
    return c;
  }

  ExprPtr or_expr() {
    ExprPtr e = and_expr();
    while (at(TokenKind::KwOr)) {
      SourceLocation loc = take().loc;
      e = binary(BinaryOp::Or, loc, std::move(e), and_expr());
    }
    return e;
  }
  ExprPtr and_expr() {
    ExprPtr e = not_expr();
    while (at(TokenKind::KwAnd)) {
      SourceLocation loc = take().loc;
      e = binary(BinaryOp::And, loc, std::move(e), not_expr());
    }
    return e;
  }
  ExprPtr not_expr() {
    if (!at(TokenKind::KwNot))
      return comparison();
    Nesting guard(*this, expression_nesting_, cur().loc, "expression");
    SourceLocation loc = take().loc;
    auto e = make_expr(ExprKind::Unary, loc, loc);
    e->unary_op = UnaryOp::Not;
    e->operands.push_back(not_expr());
    return e;
  }

  static std::optional<BinaryOp> comparison_op(TokenKind k) {
    static const std::pair<TokenKind, BinaryOp> ops[] = {
        {TokenKind::Lt, BinaryOp::Lt}, {TokenKind::Le, BinaryOp::Le},
        {TokenKind::Gt, BinaryOp::Gt}, {TokenKind::Ge, BinaryOp::Ge},
        {TokenKind::Eq, BinaryOp::Eq}, {TokenKind::Ne, BinaryOp::Ne}};
    for (auto [kind, op] : ops)
      if (kind == k)
        return op;
    return std::nullopt;
  }
  ExprPtr comparison() {
    ExprPtr e = binary_level(0);
    std::optional<BinaryOp> op = comparison_op(cur().kind);
    if (!op)
      return e;
    SourceLocation loc = take().loc;
    e = binary(*op, loc, std::move(e), binary_level(0));
    if (comparison_op(cur().kind))
      fail(cur().loc, "comparisons cannot be chained; write 'a < b and b < c'");
    return e;
  }

  // Binary operator levels from loosest to tightest: | ^ & shifts sums terms.
  static std::optional<BinaryOp> level_op(int level, TokenKind k) {
    static const std::vector<std::vector<std::pair<TokenKind, BinaryOp>>> levels = {
        {{TokenKind::Pipe, BinaryOp::BitOr}},
        {{TokenKind::Caret, BinaryOp::BitXor}},
        {{TokenKind::Amp, BinaryOp::BitAnd}},
        {{TokenKind::Shl, BinaryOp::Shl}, {TokenKind::Shr, BinaryOp::Shr}},
        {{TokenKind::Plus, BinaryOp::Add}, {TokenKind::Minus, BinaryOp::Sub}},
        {{TokenKind::Star, BinaryOp::Mul},
         {TokenKind::Slash, BinaryOp::Div},
         {TokenKind::Percent, BinaryOp::Mod}},
    };
    for (auto [kind, op] : levels[level])
      if (kind == k)
        return op;
    return std::nullopt;
  }
  ExprPtr binary_level(int level) {
    if (level == 6)
      return unary();
    ExprPtr e = binary_level(level + 1);
    while (true) {
      if (level == 5 && (at(TokenKind::SlashSlash) || at(TokenKind::StarStar)))
        unsupported_operator(cur());
      std::optional<BinaryOp> op = level_op(level, cur().kind);
      if (!op)
        return e;
      SourceLocation loc = take().loc;
      e = binary(*op, loc, std::move(e), binary_level(level + 1));
    }
  }

  ExprPtr unary() {
    std::optional<UnaryOp> op;
    if (at(TokenKind::Minus))
      op = UnaryOp::Neg;
    else if (at(TokenKind::Plus))
      op = UnaryOp::Plus;
    else if (at(TokenKind::Tilde))
      op = UnaryOp::BitNot;
    if (!op)
      return postfix();
    Nesting guard(*this, expression_nesting_, cur().loc, "expression");
    SourceLocation loc = take().loc;
    auto e = make_expr(ExprKind::Unary, loc, loc);
    e->unary_op = *op;
    e->operands.push_back(unary());
    return e;
  }

  ExprPtr postfix() {
    ExprPtr e = atom();
    while (true) {
      if (at(TokenKind::LParen)) {
        SourceLocation loc = take().loc;
        std::string callee = dotted_name(*e);
        std::string root = callee.substr(0, callee.find('.'));
        // name.method(...): a generator's draw, g.uniform(), or random.philox(...); the checker
        // reports a call of anything else (x.size()) at the parenthesis.
        const bool method = e->kind == ExprKind::Attribute &&
                            e->operands[0]->kind == ExprKind::Name &&
                            !function_modules().count(root);
        if (e->kind == ExprKind::Attribute && e->operands[0]->kind == ExprKind::Call &&
            e->operands[0]->name == "random.philox")
          fail(loc, "a generator is drawn from by its name: assign it to one first, as in g = "
                    "random.philox(seed, i), then call g." +
                        e->name + "()");
        if (callee.empty() ||
            (e->kind != ExprKind::Name && !function_modules().count(root) && !method))
          fail(loc, "only functions can be called; this expression is not a function name");
        auto call = make_expr(ExprKind::Call, method ? loc : e->begin, e->begin);
        call->name = callee;
        while (!at(TokenKind::RParen)) {
          if (at(TokenKind::Name) && next().kind == TokenKind::Assign)
            fail(cur().loc, "keyword arguments are not supported; pass arguments by position");
          call->operands.push_back(expr());
          if (!accept(TokenKind::Comma))
            break;
        }
        expect(TokenKind::RParen, "after the arguments of " + callee + "()");
        e = std::move(call);
      } else if (at(TokenKind::LBracket)) {
        SourceLocation loc = take().loc;
        auto sub = make_expr(ExprKind::Subscript, loc, e->begin);
        sub->operands.push_back(std::move(e));
        do {
          if (at(TokenKind::Colon))
            fail(cur().loc, "slices are not supported; index with one integer per dimension");
          sub->operands.push_back(expr());
          if (at(TokenKind::Colon))
            fail(cur().loc, "slices are not supported; index with one integer per dimension");
        } while (accept(TokenKind::Comma));
        expect(TokenKind::RBracket, "after the indices");
        e = std::move(sub);
      } else if (at(TokenKind::Dot)) {
        take();
        const Token &name = expect_name("an attribute name after '.'");
        auto attr = make_expr(ExprKind::Attribute, name.loc, e->begin);
        attr->name = name.text;
        attr->operands.push_back(std::move(e));
        e = std::move(attr);
      } else {
        return e;
      }
    }
  }

  // The modules whose functions are called by a dotted name: math.sqrt, cmath.exp, and Numba's
  // spellings of
  // the SIMT level (cuda.grid, cuda.shared.array, shared.array, atomic.add), and local.array.
  static const std::set<std::string> &function_modules() {
    static const std::set<std::string> m = {"math", "cmath", "cuda", "shared", "local", "atomic"};
    return m;
  }
  // "a.b.c" for names joined by '.', else empty (a loop: the chain can be long).
  static std::string dotted_name(const Expr &e) {
    std::vector<const std::string *> parts; // innermost last
    const Expr *part = &e;
    for (; part->kind == ExprKind::Attribute; part = part->operands[0].get())
      parts.push_back(&part->name);
    if (part->kind != ExprKind::Name)
      return "";
    std::string name = part->name;
    for (auto it = parts.rbegin(); it != parts.rend(); ++it)
      name += "." + **it;
    return name;
  }

  ExprPtr atom() {
    const Token &t = cur();
    switch (t.kind) {
    case TokenKind::Name: {
      take();
      auto e = make_expr(ExprKind::Name, t.loc, t.loc);
      e->name = t.text;
      return e;
    }
    case TokenKind::Int: {
      take();
      auto e = make_expr(ExprKind::Int, t.loc, t.loc);
      e->int_value = t.int_value;
      return e;
    }
    case TokenKind::Float:
    case TokenKind::Imag: {
      take();
      auto e =
          make_expr(t.kind == TokenKind::Imag ? ExprKind::Imag : ExprKind::Float, t.loc, t.loc);
      e->float_value = t.float_value;
      return e;
    }
    case TokenKind::String: {
      take();
      auto e = make_expr(ExprKind::String, t.loc, t.loc);
      e->name = t.text;
      return e;
    }
    case TokenKind::KwTrue:
    case TokenKind::KwFalse: {
      take();
      auto e = make_expr(ExprKind::Bool, t.loc, t.loc);
      e->bool_value = t.kind == TokenKind::KwTrue;
      return e;
    }
    case TokenKind::LParen: {
      take();
      ExprPtr e = expr();
      if (!at(TokenKind::Comma)) {
        expect(TokenKind::RParen, "to close the parenthesis");
        return e;
      }
      // A tuple, as in shared.array((16, 16), f32) or atomic.add(A, (i, j), v); (i,) has one.
      auto tuple = make_expr(ExprKind::Tuple, t.loc, t.loc);
      tuple->operands.push_back(std::move(e));
      while (accept(TokenKind::Comma) && !at(TokenKind::RParen))
        tuple->operands.push_back(expr());
      expect(TokenKind::RParen, "to close the tuple");
      return tuple;
    }
    default:
      fail(t.loc, "expected an expression, got " + describe(t));
    }
  }

  // Bounds the parser's recursion: deeper input is an error, not a stack overflow.
  static constexpr int max_nesting = 200;
  struct Nesting {
    int &depth;
    Nesting(Parser &p, int &counter, SourceLocation at, const char *what) : depth(counter) {
      if (depth >= max_nesting)
        p.fail(at, std::string(what) + " nested too deeply (more than " +
                       std::to_string(max_nesting) + " levels)");
      ++depth;
    }
    ~Nesting() { --depth; }
  };

  const std::vector<Token> &toks_;
  Diagnostics &diag_;
  size_t pos_ = 0;
  int expression_nesting_ = 0, block_nesting_ = 0;
};

} // namespace

ast::Module parse(const std::vector<Token> &tokens, Diagnostics &diagnostics) {
  return Parser(tokens, diagnostics).module();
}

} // namespace loom::text
