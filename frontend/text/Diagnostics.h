// Located errors of the text DSL: every lexical, syntax, name, type, rank and shape error is a
// Diagnostic; one SourceError carries all of them, formatted as compilers do.
#pragma once

#include "support/Error.h"

#include <string>
#include <vector>

namespace loom {

// A position in the source: 1-based line and column.
struct SourceLocation {
  int line = 1, col = 1;
};

struct Diagnostic {
  std::string file;
  int line = 1, col = 1;
  std::string message;
};

// Thrown by the text front end. what() is every diagnostic as
//   file:line:col: error: message
//   <the source line>
//   <spaces>^
class SourceError : public DslError {
public:
  SourceError(std::vector<Diagnostic> diagnostics, const std::string &source);
  const std::vector<Diagnostic> &diagnostics() const { return diagnostics_; }

private:
  std::vector<Diagnostic> diagnostics_;
};

// One diagnostic with its source line and caret, ending in a newline.
std::string format_diagnostic(const Diagnostic &d, const std::string &source);

namespace text {

// Collects the diagnostics of one compilation, in the order they were found.
class Diagnostics {
public:
  // Stops a compilation that has found this many errors (later ones are mostly consequences).
  static constexpr size_t max_errors = 20;

  Diagnostics(std::string file, const std::string &source)
      : file_(std::move(file)), source_(source) {}

  void error(SourceLocation at, std::string message);
  bool empty() const { return list_.empty(); }
  bool full() const { return list_.size() >= max_errors; }
  size_t size() const { return list_.size(); }
  // Throws SourceError if any error was reported.
  void throw_if_any() const;
  const std::string &file() const { return file_; }
  // The source text from `begin` up to `end` on one line (trailing blanks dropped); empty when
  // they are on different lines.
  std::string text(SourceLocation begin, SourceLocation end) const;

private:
  std::string file_;
  const std::string &source_;
  std::vector<Diagnostic> list_;
};

} // namespace text
} // namespace loom
