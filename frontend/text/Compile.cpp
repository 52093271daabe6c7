#include "frontend/text/Compile.h"

#include "frontend/text/Checker.h"
#include "frontend/text/Lexer.h"
#include "frontend/text/Parser.h"

namespace loom::text {

std::vector<ir::Kernel> parse_kernels(const std::string &source, const std::string &filename) {
  Diagnostics diagnostics(filename, source);
  std::vector<Token> tokens = lex(source, diagnostics);
  diagnostics.throw_if_any(); // a broken token stream would only add confusing syntax errors
  ast::Module module = parse(tokens, diagnostics);
  diagnostics.throw_if_any();
  std::vector<ir::Kernel> kernels = Checker(module, diagnostics).run();
  diagnostics.throw_if_any();
  return kernels;
}

} // namespace loom::text
