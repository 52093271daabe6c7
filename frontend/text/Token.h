// Tokens of the text DSL, as the lexer hands them to the parser.
#pragma once

#include "frontend/text/Diagnostics.h"

#include <cstdint>
#include <string>

namespace loom::text {

#define LOOM_TOKEN_KINDS(X)                                                                        \
  X(End, "end of input")                                                                           \
  X(Newline, "end of line")                                                                        \
  X(Indent, "indent")                                                                              \
  X(Dedent, "dedent")                                                                              \
  X(Name, "name")                                                                                  \
  X(Int, "integer")                                                                                \
  X(Float, "number")                                                                               \
  X(Imag, "imaginary number")                                                                      \
  X(String, "string")                                                                              \
  X(KwDef, "'def'")                                                                                \
  X(KwFor, "'for'")                                                                                \
  X(KwIn, "'in'")                                                                                  \
  X(KwIf, "'if'")                                                                                  \
  X(KwElif, "'elif'")                                                                              \
  X(KwElse, "'else'")                                                                              \
  X(KwWhile, "'while'")                                                                            \
  X(KwReturn, "'return'")                                                                          \
  X(KwPass, "'pass'")                                                                              \
  X(KwAnd, "'and'")                                                                                \
  X(KwOr, "'or'")                                                                                  \
  X(KwNot, "'not'")                                                                                \
  X(KwTrue, "'True'")                                                                              \
  X(KwFalse, "'False'")                                                                            \
  X(LParen, "'('")                                                                                 \
  X(RParen, "')'")                                                                                 \
  X(LBracket, "'['")                                                                               \
  X(RBracket, "']'")                                                                               \
  X(Comma, "','")                                                                                  \
  X(Colon, "':'")                                                                                  \
  X(Dot, "'.'")                                                                                    \
  X(Arrow, "'->'")                                                                                 \
  X(At, "'@'")                                                                                     \
  X(Assign, "'='")                                                                                 \
  X(PlusAssign, "'+='")                                                                            \
  X(MinusAssign, "'-='")                                                                           \
  X(StarAssign, "'*='")                                                                            \
  X(SlashAssign, "'/='")                                                                           \
  X(PercentAssign, "'%='")                                                                         \
  X(AmpAssign, "'&='")                                                                             \
  X(PipeAssign, "'|='")                                                                            \
  X(CaretAssign, "'^='")                                                                           \
  X(ShlAssign, "'<<='")                                                                            \
  X(ShrAssign, "'>>='")                                                                            \
  X(Plus, "'+'")                                                                                   \
  X(Minus, "'-'")                                                                                  \
  X(Star, "'*'")                                                                                   \
  X(Slash, "'/'")                                                                                  \
  X(Percent, "'%'")                                                                                \
  X(Amp, "'&'")                                                                                    \
  X(Pipe, "'|'")                                                                                   \
  X(Caret, "'^'")                                                                                  \
  X(Tilde, "'~'")                                                                                  \
  X(Shl, "'<<'")                                                                                   \
  X(Shr, "'>>'")                                                                                   \
  X(Lt, "'<'")                                                                                     \
  X(Le, "'<='")                                                                                    \
  X(Gt, "'>'")                                                                                     \
  X(Ge, "'>='")                                                                                    \
  X(Eq, "'=='")                                                                                    \
  X(Ne, "'!='")                                                                                    \
  X(SlashSlash, "'//'")                                                                            \
  X(StarStar, "'**'")

enum class TokenKind : uint8_t {
#define LOOM_X(name, text) name,
  LOOM_TOKEN_KINDS(LOOM_X)
#undef LOOM_X
};

// How a token kind is named in messages ("'('", "end of line").
const char *token_kind_name(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::End;
  SourceLocation loc;
  std::string text;       // as written
  int64_t int_value = 0;  // Int
  double float_value = 0; // Float, and Imag's imaginary part (2.5 for 2.5j)
};

// How a token is named in messages: its text in quotes, or its kind.
std::string describe(const Token &t);

} // namespace loom::text
