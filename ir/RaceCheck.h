// The interpreter's race checker (internal to ir/Interpreter*.cpp). A kernel's parallel loops
// must be race-free: their iterations may run in any order, or at once, so one that writes an
// element another reads or writes gives different results on different targets. The interpreter
// runs a loop's iterations one after another (row-major) and reports each access here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loom::ir::interpreter {

// Two iterations of one parallel loop run that access an element, one of them writing it.
struct Race {
  int64_t iteration;
  int64_t other; // -1: one of several other iterations that read the element
};

class RaceChecker {
public:
  // Records that `iteration` of parallel loop run `loop` accessed element `k` of array parameter
  // `array` (of `elements` elements); the race it makes with an earlier access of the same run,
  // if any. Entries of earlier runs do not count.
  std::optional<Race> access(int array, int64_t elements, int64_t k, bool write, uint64_t loop,
                             int64_t iteration);

private:
  // Per array element: which iteration wrote and read it in the loop run `loop`.
  struct Access {
    uint64_t loop = 0; // the parallel loop run this entry is about; older entries are stale
    int64_t writer = -1, reader = -1;
    bool many_readers = false;
  };
  std::vector<std::vector<Access>> accesses_; // per array parameter and element
};

// "kernel 'k': data race on element 3 of 'x': parallel iterations 2 and 1 (row-major) both
// access it and one writes it".
std::string race_message(const std::string &kernel, const std::string &array, int64_t element,
                         const Race &race);

} // namespace loom::ir::interpreter
