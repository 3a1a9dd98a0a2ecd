#pragma once
// Fixed-rate physics in a viewer whose frames come at any rate: FixedStepClock turns real
// seconds into the number of fixed steps due (at most kMaxSteps per frame, so that a slow machine
// slows the simulation down rather than stalling the display), and StepMeter keeps the HUD's
// figures (step time, Newton iterations, steps per second).
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <ctime>

namespace wobble::viewer {

struct PhysicsStats {
  double step_ms = 0;           // the last physics step's solve (wall)
  double step_cpu_ms = 0;       // the same in CPU time of the process (what one core spends, whatever the load)
  int iterations = 0;           // Newton iterations of the last implicit step
  double steps_per_second = 0;  // physics steps run per second of real time, lately
  std::size_t contacts = 0;
  long steps = 0;  // since the last reset
};

class FixedStepClock {
 public:
  static constexpr int kMaxSteps = 4;
  // Steps of `step` seconds due after `seconds` more of real time.
  int due(double seconds, double step) {
    accumulated_ = std::min(accumulated_ + seconds, kMaxSteps * step);
    int steps = 0;
    while (accumulated_ >= step * (1 - 1e-9)) {  // a frame of exactly one step must not round to none
      accumulated_ -= step;
      ++steps;
    }
    return steps;
  }
  void reset() { accumulated_ = 0; }

 private:
  double accumulated_ = 0;
};

// CPU seconds of the whole process so far.
inline double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

class StepMeter {
 public:
  using Clock = std::chrono::steady_clock;
  // Call before a step; record() after it.
  void start() {
    start_ = Clock::now();
    start_cpu_ = process_cpu_seconds();
  }
  void record(int iterations, std::size_t contacts) {
    const auto now = Clock::now();
    stats_.step_ms = std::chrono::duration<double, std::milli>(now - start_).count();
    stats_.step_cpu_ms = 1000.0 * (process_cpu_seconds() - start_cpu_);
    stats_.iterations = iterations;
    stats_.contacts = contacts;
    ++stats_.steps;
    ++window_steps_;
    const double window = std::chrono::duration<double>(now - window_start_).count();
    if (window >= 1.0) {
      stats_.steps_per_second = static_cast<double>(window_steps_) / window;
      window_steps_ = 0;
      window_start_ = now;
    }
  }
  void reset() { *this = StepMeter(); }
  const PhysicsStats& stats() const { return stats_; }

 private:
  PhysicsStats stats_;
  Clock::time_point start_ = Clock::now(), window_start_ = Clock::now();
  double start_cpu_ = 0;
  long window_steps_ = 0;
};

}  // namespace wobble::viewer
