// The lexer of the text DSL: Python-like tokens, with INDENT/DEDENT for indentation and
// newlines inside brackets ignored.
#pragma once

#include "frontend/text/Diagnostics.h"
#include "frontend/text/Token.h"

#include <string>
#include <vector>

namespace loom::text {

// The tokens of `source`, ending with End. Lexical errors go to `diagnostics`; the lexer keeps
// going after one so that a run reports every lexical error.
std::vector<Token> lex(const std::string &source, Diagnostics &diagnostics);

} // namespace loom::text
