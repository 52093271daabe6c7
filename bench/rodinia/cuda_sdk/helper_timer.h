// Stand-in for the CUDA samples' helper_timer.h (NVIDIA's CUDA SDK, common/inc), which Rodinia's
// CUDA cfd includes and its makefile finds in the SDK; the toolkit does not ship it. Written for
// loom's bench (not NVIDIA's code): the stopwatch calls euler3d.cu makes, with the samples'
// meaning (times in milliseconds; the average is the total over the completed start-stop
// sessions). The driver reads the RODINIA_KERNEL_MS line the vendored source prints, not these.
#pragma once

#include <chrono>

class StopWatchInterface {
public:
  void start() {
    begin_ = std::chrono::steady_clock::now();
    running_ = true;
  }
  void stop() {
    total_ms_ += elapsed_ms();
    running_ = false;
    ++sessions_;
  }
  float getAverageTime() const { return sessions_ > 0 ? float(total_ms_ / sessions_) : 0.0f; }
  float getTime() const { return float(total_ms_ + (running_ ? elapsed_ms() : 0.0)); }

private:
  double elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin_)
        .count();
  }
  std::chrono::steady_clock::time_point begin_;
  bool running_ = false;
  int sessions_ = 0;
  double total_ms_ = 0;
};

inline bool sdkCreateTimer(StopWatchInterface **timer) {
  *timer = new StopWatchInterface();
  return true;
}
inline bool sdkDeleteTimer(StopWatchInterface **timer) {
  delete *timer;
  *timer = nullptr;
  return true;
}
inline bool sdkStartTimer(StopWatchInterface **timer) {
  (*timer)->start();
  return true;
}
inline bool sdkStopTimer(StopWatchInterface **timer) {
  (*timer)->stop();
  return true;
}
inline float sdkGetTimerValue(StopWatchInterface **timer) {
  return (*timer)->getTime();
}
inline float sdkGetAverageTimerValue(StopWatchInterface **timer) {
  return (*timer)->getAverageTime();
}
