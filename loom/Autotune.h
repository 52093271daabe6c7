// Autotuning (Kernel::autotune, @kernel(tile="auto")): the tile schedule with its values chosen by
// trials, once per shape class and device, kept in memory and in the disk cache so that a later
// process makes no trials. Internal to loom (included by loom/*.cpp only).
#pragma once

#include "ir/IR.h"
#include "loom/Arguments.hpp"

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace loom {

struct KernelState;

// One candidate tile and how it did: its best time over a few calls, or why it could not run.
struct TuneTrial {
  ir::TileSchedule tile;
  double ms = 0;     // the fastest call of the trial (0 where it failed)
  std::string error; // the CompileError that ruled it out, else empty
};

// What autotuning chose for one shape class on one target.
struct Tuning {
  std::string shape_class; // e.g. "A 1024x1024, B 1024x1024, C 1024x1024 on NVIDIA H200 sm_90"
  ir::TileSchedule best;
  std::vector<TuneTrial> trials; // in the order tried (empty: taken from the disk cache)
  bool from_disk = false;
  double tuning_ms = 0; // what the trials or the disk lookup took
};

// The candidates: a bounded set of tiles for the target and the kernel's element types, those a
// hand would try first (bench/'s best schedules among them). `sm`: the GPU's (0 on the CPU);
// `vector_bits`: the CPU's vector registers.
std::vector<ir::TileSchedule> tile_candidates(const ir::Kernel &kernel, ir::Target target, int sm,
                                              int vector_bits);

// Before a call of an autotuned kernel (state's mutex held): the tuning of the call's shape class
// (from memory, the disk cache, or trials), applied to the kernel's schedule. `run` calls the
// kernel once on the arguments it is given, synchronously; trials run on copies of the call's
// arrays (device copies on the GPU), so the call's own arrays are not touched. `target_name`
// names the machine in the shape class ("NVIDIA H200 sm_90", "CPU znver5").
void autotune(KernelState &state, std::span<const Argument> args, ir::Target target, int sm,
              int device, const std::string &target_name,
              const std::function<void(std::span<const Argument>)> &run);

// explain()'s lines for a tuning: the chosen tile, where it came from, each trial.
std::string tuning_text(const Tuning &tuning);

} // namespace loom
