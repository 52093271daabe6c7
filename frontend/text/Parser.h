// The parser of the text DSL: tokens to a syntax tree (grammar in docs/language.md).
#pragma once

#include "frontend/text/Ast.h"
#include "frontend/text/Diagnostics.h"
#include "frontend/text/Token.h"

#include <vector>

namespace loom::text {

// Parses a whole source file. Syntax errors go to `diagnostics`; after one, the parser skips to
// the next statement (or function) and goes on, so that a run reports several.
ast::Module parse(const std::vector<Token> &tokens, Diagnostics &diagnostics);

} // namespace loom::text
