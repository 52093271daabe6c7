#include "support/PrintLine.h"

#include <cstdio>
#include <mutex>

namespace loom::support {

namespace {
std::mutex &line_mutex() {
  static std::mutex m;
  return m;
}
PrintSink &sink() {
  static PrintSink s;
  return s;
}
} // namespace

void print_line(std::string_view line) {
  std::lock_guard<std::mutex> lock(line_mutex());
  if (sink())
    sink()(line);
  else
    std::fwrite(line.data(), 1, line.size(), stdout);
}

void flush_printed() {
  std::lock_guard<std::mutex> lock(line_mutex());
  std::fflush(stdout);
}

PrintSink set_print_sink(PrintSink s) {
  std::lock_guard<std::mutex> lock(line_mutex());
  PrintSink old = std::move(sink());
  sink() = std::move(s);
  return old;
}

} // namespace loom::support
