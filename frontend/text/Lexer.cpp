#include "frontend/text/Lexer.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

namespace loom::text {

const char *token_kind_name(TokenKind kind) {
  static const char *names[] = {
#define LOOM_X(name, text) text,
      LOOM_TOKEN_KINDS(LOOM_X)
#undef LOOM_X
  };
  return names[static_cast<int>(kind)];
}

std::string describe(const Token &t) {
  switch (t.kind) {
  case TokenKind::End:
  case TokenKind::Newline:
  case TokenKind::Indent:
  case TokenKind::Dedent:
    return token_kind_name(t.kind);
  case TokenKind::Name:
    return "name '" + t.text + "'";
  case TokenKind::Int:
  case TokenKind::Float:
  case TokenKind::Imag:
    return "number '" + t.text + "'";
  default:
    return "'" + t.text + "'";
  }
}

namespace {

bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_ident_char(char c) {
  return is_ident_start(c) || is_digit(c);
}
bool is_hex_digit(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

const std::map<std::string, TokenKind> &keywords() {
  static const std::map<std::string, TokenKind> k = {
      {"def", TokenKind::KwDef},     {"for", TokenKind::KwFor},       {"in", TokenKind::KwIn},
      {"if", TokenKind::KwIf},       {"elif", TokenKind::KwElif},     {"else", TokenKind::KwElse},
      {"while", TokenKind::KwWhile}, {"return", TokenKind::KwReturn}, {"pass", TokenKind::KwPass},
      {"and", TokenKind::KwAnd},     {"or", TokenKind::KwOr},         {"not", TokenKind::KwNot},
      {"True", TokenKind::KwTrue},   {"False", TokenKind::KwFalse}};
  return k;
}

// Operators, longest first so that the first match is the longest.
const std::pair<const char *, TokenKind> operators[] = {
    {"<<=", TokenKind::ShlAssign},  {">>=", TokenKind::ShrAssign},
    {"//=", TokenKind::SlashSlash}, {"**=", TokenKind::StarStar},
    {"->", TokenKind::Arrow},       {"+=", TokenKind::PlusAssign},
    {"-=", TokenKind::MinusAssign}, {"*=", TokenKind::StarAssign},
    {"/=", TokenKind::SlashAssign}, {"%=", TokenKind::PercentAssign},
    {"&=", TokenKind::AmpAssign},   {"|=", TokenKind::PipeAssign},
    {"^=", TokenKind::CaretAssign}, {"<<", TokenKind::Shl},
    {">>", TokenKind::Shr},         {"<=", TokenKind::Le},
    {">=", TokenKind::Ge},          {"==", TokenKind::Eq},
    {"!=", TokenKind::Ne},          {"//", TokenKind::SlashSlash},
    {"**", TokenKind::StarStar},    {"(", TokenKind::LParen},
    {")", TokenKind::RParen},       {"[", TokenKind::LBracket},
    {"]", TokenKind::RBracket},     {",", TokenKind::Comma},
    {":", TokenKind::Colon},        {".", TokenKind::Dot},
    {"@", TokenKind::At},           {"=", TokenKind::Assign},
    {"+", TokenKind::Plus},         {"-", TokenKind::Minus},
    {"*", TokenKind::Star},         {"/", TokenKind::Slash},
    {"%", TokenKind::Percent},      {"&", TokenKind::Amp},
    {"|", TokenKind::Pipe},         {"^", TokenKind::Caret},
    {"~", TokenKind::Tilde},        {"<", TokenKind::Lt},
    {">", TokenKind::Gt},
};

// Characters that are not part of the language, with what to write instead.
const std::pair<std::string, const char *> bad_sequences[] = {
    {"&&", "'&&' is not an operator; use 'and'"},
    {"||", "'||' is not an operator; use 'or'"},
    {"!", "'!' is not an operator; use 'not' (or '!=' to compare)"},
    {";", "';' is not allowed; write one statement per line"},
    {"\\", "line continuation with '\\' is not supported; break long lines inside parentheses"},
    {"{", "'{' is not part of the loom language; blocks are marked by indentation"},
    {"}", "'}' is not part of the loom language; blocks are marked by indentation"},
};

class Lexer {
public:
  Lexer(const std::string &source, Diagnostics &diagnostics) : src_(source), diag_(diagnostics) {}

  std::vector<Token> run() {
    indents_.push_back(1);
    while (!diag_.full()) {
      if (at_line_start_ && brackets_.empty() && !indentation())
        continue;
      at_line_start_ = false;
      while (peek() == ' ' || peek() == '\t' || peek() == '\r' || peek() == '\f')
        advance();
      if (at_end())
        break;
      char c = peek();
      if (c == '#') {
        while (!at_end() && peek() != '\n')
          advance();
      } else if (c == '\n') {
        if (brackets_.empty() && line_has_token_)
          push(TokenKind::Newline, here(), "");
        advance();
        line_has_token_ = false;
        at_line_start_ = true;
      } else if (is_ident_start(c)) {
        identifier();
      } else if (is_digit(c) || (c == '.' && is_digit(peek(1)))) {
        number();
      } else if (c == '"' || c == '\'') {
        string_literal();
      } else {
        punctuation();
      }
    }
    SourceLocation end = here();
    if (!brackets_.empty()) {
      const Token &open = brackets_.back();
      diag_.error(open.loc, "'" + open.text + "' was never closed");
    }
    if (line_has_token_)
      push(TokenKind::Newline, end, "");
    for (size_t k = 1; k < indents_.size(); ++k)
      push(TokenKind::Dedent, end, "");
    push(TokenKind::End, end, "");
    return std::move(tokens_);
  }

private:
  bool at_end() const { return pos_ >= src_.size(); }
  char peek(size_t ahead = 0) const {
    return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0';
  }
  bool starts_with(const std::string &s) const { return src_.compare(pos_, s.size(), s) == 0; }
  void advance() {
    if (src_[pos_++] == '\n')
      ++line_, col_ = 1;
    else
      ++col_;
  }
  SourceLocation here() const { return {line_, col_}; }

  Token &push(TokenKind kind, SourceLocation at, std::string text) {
    tokens_.push_back(Token{kind, at, std::move(text)});
    if (kind != TokenKind::Newline && kind != TokenKind::Indent && kind != TokenKind::Dedent)
      line_has_token_ = true;
    return tokens_.back();
  }

  // At the start of a line: measures its indentation and emits INDENT/DEDENT. Returns false
  // when the line holds no token (blank or comment only), which changes no indentation.
  bool indentation() {
    int width = 0;
    bool tab_reported = false;
    while (peek() == ' ' || peek() == '\t' || peek() == '\f') {
      if (peek() == '\t' && !tab_reported) {
        diag_.error(here(), "tab in indentation; indent with spaces only");
        tab_reported = true;
      }
      ++width;
      advance();
    }
    if (peek() == '\r' && peek(1) == '\n')
      advance();
    if (at_end() || peek() == '\n' || peek() == '#') {
      while (!at_end() && peek() != '\n')
        advance();
      if (!at_end())
        advance();
      if (!at_end())
        return false; // the next line starts a line again
      at_line_start_ = false;
      return true;
    }
    at_line_start_ = false;
    if (tab_reported)
      return true; // the line's level is unknown; keep the current one
    int column = width + 1;
    SourceLocation at = here();
    if (column > indents_.back()) {
      indents_.push_back(column);
      push(TokenKind::Indent, at, "");
    } else {
      while (column < indents_.back()) {
        indents_.pop_back();
        push(TokenKind::Dedent, at, "");
      }
      if (column != indents_.back()) {
        diag_.error(at, "this line's indentation (" + std::to_string(width) +
                            (width == 1 ? " space" : " spaces") +
                            ") does not match any enclosing block");
        indents_.push_back(column);
      }
    }
    at_line_start_ = false;
    return true;
  }

  void identifier() {
    SourceLocation at = here();
    size_t begin = pos_;
    while (is_ident_char(peek()))
      advance();
    std::string text = src_.substr(begin, pos_ - begin);
    auto kw = keywords().find(text);
    push(kw == keywords().end() ? TokenKind::Name : kw->second, at, text);
  }

  // "text" or 'text' on one line, with the escapes \\ \" \' \n \t; the token's text is the
  // decoded string.
  void string_literal() {
    SourceLocation at = here();
    const char quote = peek();
    advance();
    std::string text;
    while (!at_end() && peek() != '\n' && peek() != quote) {
      char c = peek();
      advance();
      if (c != '\\') {
        text += c;
        continue;
      }
      char e = at_end() ? '\n' : peek();
      switch (e) {
      case '\\':
      case '"':
      case '\'':
        text += e;
        break;
      case 'n':
        text += '\n';
        break;
      case 't':
        text += '\t';
        break;
      default:
        diag_.error(here(), std::string("unknown escape '\\") + e +
                                "' in a string; the escapes are \\\\, \\\", \\', \\n and \\t");
      }
      if (e != '\n')
        advance();
    }
    if (peek() != quote) {
      diag_.error(at, "this string is not closed on its line");
      return;
    }
    advance();
    push(TokenKind::String, at, text);
  }

  void number() {
    SourceLocation at = here();
    size_t begin = pos_;
    bool is_float = false;
    int base = 10;
    auto digits = [&](bool (*ok)(char)) {
      while (ok(peek()) || (peek() == '_' && ok(peek(1))))
        advance();
    };
    if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X') && is_hex_digit(peek(2))) {
      advance(), advance(), base = 16;
      digits(is_hex_digit);
    } else if (peek() == '0' && (peek(1) == 'b' || peek(1) == 'B') &&
               (peek(2) == '0' || peek(2) == '1')) {
      advance(), advance(), base = 2;
      digits([](char c) { return c == '0' || c == '1'; });
    } else {
      digits(is_digit);
      if (peek() == '.' && !is_ident_start(peek(1))) {
        is_float = true;
        advance();
        digits(is_digit);
      }
      if ((peek() == 'e' || peek() == 'E') &&
          (is_digit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && is_digit(peek(2))))) {
        is_float = true;
        advance();
        if (peek() == '+' || peek() == '-')
          advance();
        digits(is_digit);
      }
    }
    size_t end = pos_;
    while (is_ident_char(peek()) || (peek() == '.' && is_digit(peek(1))))
      advance();
    std::string text = src_.substr(begin, pos_ - begin);
    bool imaginary = base == 10 && pos_ == end + 1 && (src_[end] == 'j' || src_[end] == 'J');
    if (pos_ != end && !imaginary) {
      std::string suffix = src_.substr(end, pos_ - end);
      if (is_float && (suffix == "f" || suffix == "F"))
        diag_.error(at, "invalid number '" + text +
                            "': number literals take no suffix; write f32(" +
                            src_.substr(begin, end - begin) + ") for an f32 constant");
      else
        diag_.error(at, "invalid number '" + text + "'");
      return;
    }
    std::string clean;
    for (char c : text.substr(0, end - begin))
      if (c != '_')
        clean += c;
    // 2j, 1.5e3j: Python's imaginary literals, a complex number with a zero real part.
    Token &t = push(imaginary  ? TokenKind::Imag
                    : is_float ? TokenKind::Float
                               : TokenKind::Int,
                    at, text);
    if (is_float || imaginary) {
      errno = 0;
      t.float_value = std::strtod(clean.c_str(), nullptr);
      if (errno == ERANGE && std::isinf(t.float_value))
        diag_.error(at, "number '" + text + "' is too large for f64");
      return;
    }
    if (base == 10 && clean.size() > 1 && clean[0] == '0' &&
        clean.find_first_not_of('0') != std::string::npos)
      diag_.error(at, "integer '" + text +
                          "' has a leading zero; write it without (octal literals do not exist)");
    const char *first = clean.c_str() + (base == 10 ? 0 : 2);
    uint64_t value = 0;
    bool overflow = false;
    for (const char *p = first; *p; ++p) {
      int d = is_digit(*p) ? *p - '0' : (*p | 0x20) - 'a' + 10;
      if (value > (std::numeric_limits<uint64_t>::max() - d) / base)
        overflow = true;
      value = value * base + d;
    }
    if (overflow || value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      diag_.error(at, "integer '" + text + "' is too large; the largest is 9223372036854775807");
    t.int_value = static_cast<int64_t>(value);
  }

  void punctuation() {
    SourceLocation at = here();
    for (const auto &[text, kind] : operators) {
      std::string s = text;
      if (!starts_with(s) || (s == "&" && starts_with("&&")) || (s == "|" && starts_with("||")))
        continue;
      for (size_t k = 0; k < s.size(); ++k)
        advance();
      Token &t = push(kind, at, s);
      bracket(t);
      return;
    }
    for (const auto &[text, message] : bad_sequences) {
      if (!starts_with(text))
        continue;
      diag_.error(at, message);
      char quote = text[0];
      for (size_t k = 0; k < text.size(); ++k)
        advance();
      if (quote == '"' || quote == '\'') { // skip the string, up to its end or the line's
        while (!at_end() && peek() != '\n' && peek() != quote)
          advance();
        if (peek() == quote)
          advance();
      }
      return;
    }
    // A character outside the language; a UTF-8 sequence counts as one.
    size_t begin = pos_;
    advance();
    while ((peek() & 0xC0) == 0x80)
      advance();
    diag_.error(at, "unexpected character '" + src_.substr(begin, pos_ - begin) + "'");
  }

  void bracket(const Token &t) {
    if (t.kind == TokenKind::LParen || t.kind == TokenKind::LBracket) {
      brackets_.push_back(t);
      return;
    }
    if (t.kind != TokenKind::RParen && t.kind != TokenKind::RBracket)
      return;
    if (brackets_.empty()) {
      diag_.error(t.loc, "unmatched '" + t.text + "'");
      return;
    }
    const Token &open = brackets_.back();
    bool match = (open.kind == TokenKind::LParen) == (t.kind == TokenKind::RParen);
    if (!match)
      diag_.error(t.loc, "closing '" + t.text + "' does not match '" + open.text + "' on line " +
                             std::to_string(open.loc.line));
    brackets_.pop_back();
  }

  const std::string &src_;
  Diagnostics &diag_;
  size_t pos_ = 0;
  int line_ = 1, col_ = 1;
  bool at_line_start_ = true, line_has_token_ = false;
  std::vector<int> indents_; // columns of the enclosing blocks' first statements
  std::vector<Token> brackets_;
  std::vector<Token> tokens_;
};

} // namespace

std::vector<Token> lex(const std::string &source, Diagnostics &diagnostics) {
  return Lexer(source, diagnostics).run();
}

} // namespace loom::text
