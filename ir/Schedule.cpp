#include "ir/Schedule.h"

#include "ir/IR.h"

namespace loom::ir {

const char *mapping_name(Mapping mapping) {
  switch (mapping) {
  case Mapping::Parallel:
    return "the default mapping";
  case Mapping::BlockPerIteration:
    return "block_per_iteration";
  case Mapping::Tile:
    return "the tile schedule";
  case Mapping::Simt:
    return "the SIMT level";
  }
  return "?";
}

std::string remap_problem(Mapping from, Mapping to) {
  if (from == to || from == Mapping::Parallel || (to == Mapping::Parallel && from != Mapping::Simt))
    return "";
  const std::string wanted =
      to == Mapping::Parallel ? std::string("the default mapping") : mapping_name(to);
  return wanted + " does not combine with " + mapping_name(from);
}

Schedule with_block_per_iteration(Schedule schedule, int threads) {
  schedule.mapping = threads != 0 ? Mapping::BlockPerIteration : Mapping::Parallel;
  schedule.threads = threads;
  schedule.tile = {};
  return schedule;
}

Schedule with_tile(Schedule schedule, const TileSchedule &tile) {
  const bool none = tile.rows == 0 && tile.cols == 0;
  schedule.mapping = none ? Mapping::Parallel : Mapping::Tile;
  schedule.threads = 0;
  schedule.tile = none ? TileSchedule() : tile;
  return schedule;
}

std::string tile_problem(const TileSchedule &tile) {
  if (tile.rows == 0 && tile.cols == 0)
    return "";
  auto text = [&] {
    return "tile " + std::to_string(tile.rows) + " x " + std::to_string(tile.cols) +
           ", per thread " + std::to_string(tile.thread_rows) + " x " +
           std::to_string(tile.thread_cols) + ", depth " + std::to_string(tile.depth);
  };
  if (tile.rows < 1 || tile.cols < 1 || tile.thread_rows < 1 || tile.thread_cols < 1 ||
      tile.rows % tile.thread_rows != 0 || tile.cols % tile.thread_cols != 0)
    return text() + ": rows and columns must be positive multiples of the thread's rows and "
                    "columns";
  const int64_t threads = int64_t(tile.rows / tile.thread_rows) * (tile.cols / tile.thread_cols);
  if (threads > 1024)
    return text() + ": " + std::to_string(threads) + " threads per block, more than 1024";
  if (int64_t(tile.thread_rows) * tile.thread_cols > 256)
    return text() + ": more than 256 iterations per thread";
  if (tile.depth < 0 || tile.depth > 64)
    return text() + ": the depth must be 0 (no staging) to 64";
  if (tile.min_blocks < 0 || tile.min_blocks > 32)
    return text() + ": min_blocks must be 0 (ptxas decides) to 32";
  if (tile.min_blocks > 0 && 65536 / (threads * tile.min_blocks) < 24)
    return text() + ": " + std::to_string(tile.min_blocks) + " blocks of " +
           std::to_string(threads) + " threads per SM leave fewer than 24 registers a thread";
  return "";
}

std::string schedule_problem(const Schedule &schedule, const Kernel &kernel) {
  const std::string of = "kernel '" + kernel.name + "': ";
  const int threads = schedule.threads;
  if (schedule.mapping == Mapping::BlockPerIteration &&
      (threads < 32 || threads > 1024 || threads % 32 != 0))
    return of +
           "block_per_iteration takes a multiple of 32 threads from 32 to 1024 (or 0 for the "
           "default mapping), not " +
           std::to_string(threads);
  if (schedule.mapping != Mapping::BlockPerIteration && threads != 0)
    return of + "a block_per_iteration of " + std::to_string(threads) + " threads under " +
           mapping_name(schedule.mapping);
  if (schedule.autotune && schedule.mapping != Mapping::Parallel &&
      schedule.mapping != Mapping::Tile)
    return of + "autotune chooses a tile schedule, which does not combine with " +
           mapping_name(schedule.mapping);
  if (schedule.mapping == Mapping::Tile) {
    if (std::string problem = tile_problem(schedule.tile); !problem.empty())
      return of + "schedule " + problem;
    if (schedule.tile.rows == 0)
      return of + "the tile schedule without tiles";
  } else if (schedule.tile != TileSchedule()) {
    return of + "tiles under " + std::string(mapping_name(schedule.mapping));
  }
  return loop_schedule_problem(schedule.loops, kernel);
}

} // namespace loom::ir
