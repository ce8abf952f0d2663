// Timing a solve's stages back to back (apsp::StageTimes).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "apsp/solver.hpp"

namespace apsp {

// lap(name) appends the time since the previous lap (or since construction
// or restart()) to `times` as one stage.
class StageClock {
 public:
  explicit StageClock(StageTimes& times) : times_(times), last_(std::chrono::steady_clock::now()) {}
  void lap(std::string name, std::uint64_t bytes = 0) {
    const auto now = std::chrono::steady_clock::now();
    times_.add(std::move(name), std::chrono::duration<double>(now - last_).count(), bytes);
    last_ = now;
  }
  // Starts the next stage now: the time since the last lap was recorded by
  // someone else (a backend with a clock of its own).
  void restart() { last_ = std::chrono::steady_clock::now(); }

 private:
  StageTimes& times_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace apsp
