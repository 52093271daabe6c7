// Where print(...) writes on the host (the CPU runtime and the interpreter): whole lines to the
// process's stdout, one at a time, so that no two threads' lines interleave. A call that printed
// flushes stdout before it returns (flush_printed).
#pragma once

#include <functional>
#include <string_view>

namespace loom::support {

void print_line(std::string_view line);
void flush_printed();

// Tests (the differential tester) take the lines instead: `sink`, while set, receives each line
// (with its newline) in place of stdout. Returns the previous sink.
using PrintSink = std::function<void(std::string_view)>;
PrintSink set_print_sink(PrintSink sink);

} // namespace loom::support
