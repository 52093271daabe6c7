#include "ir/RaceCheck.h"

namespace loom::ir::interpreter {

std::optional<Race> RaceChecker::access(int array, int64_t elements, int64_t k, bool write,
                                        uint64_t loop, int64_t iteration) {
  if (accesses_.size() <= static_cast<size_t>(array))
    accesses_.resize(static_cast<size_t>(array) + 1);
  std::vector<Access> &table = accesses_[array];
  if (table.empty())
    table.resize(static_cast<size_t>(elements));
  Access &a = table[k];
  if (a.loop != loop)
    a = Access{loop};
  if (a.writer >= 0 && a.writer != iteration)
    return Race{iteration, a.writer};
  if (write && a.reader >= 0 && (a.reader != iteration || a.many_readers))
    return Race{iteration, a.reader != iteration ? a.reader : -1};
  if (write)
    a.writer = iteration;
  else if (a.reader < 0)
    a.reader = iteration;
  else if (a.reader != iteration)
    a.many_readers = true;
  return std::nullopt;
}

std::string race_message(const std::string &kernel, const std::string &array, int64_t element,
                         const Race &race) {
  return "kernel '" + kernel + "': data race on element " + std::to_string(element) + " of '" +
         array + "': parallel iterations " + std::to_string(race.iteration) +
         (race.other >= 0 ? " and " + std::to_string(race.other) : " and another") +
         " (row-major) both access it and one writes it";
}

} // namespace loom::ir::interpreter
