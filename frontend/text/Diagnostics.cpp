#include "frontend/text/Diagnostics.h"

#include <algorithm>

namespace loom {

namespace {

std::string source_line(const std::string &source, int line) {
  size_t begin = 0;
  for (int l = 1; l < line; ++l) {
    size_t nl = source.find('\n', begin);
    if (nl == std::string::npos)
      return "";
    begin = nl + 1;
  }
  size_t end = source.find('\n', begin);
  std::string text =
      source.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  if (!text.empty() && text.back() == '\r')
    text.pop_back();
  return text;
}

std::string format_all(const std::vector<Diagnostic> &diagnostics, const std::string &source) {
  std::string out;
  for (const Diagnostic &d : diagnostics)
    out += format_diagnostic(d, source);
  return out;
}

} // namespace

std::string format_diagnostic(const Diagnostic &d, const std::string &source) {
  std::string line = source_line(source, d.line);
  // The caret line copies the tabs of the source line so that the caret stays aligned.
  std::string caret;
  for (int c = 1; c < d.col; ++c)
    caret += (c - 1 < static_cast<int>(line.size()) && line[c - 1] == '\t') ? '\t' : ' ';
  return d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.col) +
         ": error: " + d.message + "\n" + line + "\n" + caret + "^\n";
}

SourceError::SourceError(std::vector<Diagnostic> diagnostics, const std::string &source)
    : DslError(format_all(diagnostics, source)), diagnostics_(std::move(diagnostics)) {}

namespace text {

void Diagnostics::error(SourceLocation at, std::string message) {
  if (full())
    return;
  for (const Diagnostic &d : list_) // a helper inlined twice reports its errors once
    if (d.line == at.line && d.col == at.col && d.message == message)
      return;
  list_.push_back({file_, at.line, at.col, std::move(message)});
}

void Diagnostics::throw_if_any() const {
  if (list_.empty())
    return;
  // In source order, as a reader goes through them (the checker finds some out of order).
  std::vector<Diagnostic> sorted = list_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Diagnostic &a, const Diagnostic &b) {
    return a.line != b.line ? a.line < b.line : a.col < b.col;
  });
  throw SourceError(sorted, source_);
}

std::string Diagnostics::text(SourceLocation begin, SourceLocation end) const {
  if (begin.line != end.line || end.col <= begin.col)
    return "";
  size_t start = 0;
  for (int line = 1; line < begin.line; ++line) {
    start = source_.find('\n', start);
    if (start == std::string::npos)
      return "";
    ++start;
  }
  std::string t = source_.substr(start + begin.col - 1, end.col - begin.col);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t'))
    t.pop_back();
  return t;
}

} // namespace text
} // namespace loom
