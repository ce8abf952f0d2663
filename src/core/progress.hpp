// Progress of one solve as SolveOptions::progress sees it. The contract, for
// every algorithm on both backends: the fractions shown are non-decreasing
// and the last one is exactly 1.0. A solve may abandon an attempt and rerun
// the work another way (a narrower width whose certificate fails, a GPU that
// cannot hold the distances); the stages of a solve therefore report into
// spans of the bar, and the meter shows a fraction only if it moves forward.
#pragma once

#include <algorithm>
#include <functional>
#include <utility>

namespace apsp {

class ProgressSpan;

// Owns the caller's callback and the fraction shown so far.
class ProgressMeter {
 public:
  explicit ProgressMeter(std::function<void(double)> callback) : callback_(std::move(callback)) {}
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

  // False when nobody listens: stages then skip reporting (and any wait for it).
  bool active() const { return static_cast<bool>(callback_); }
  double shown() const { return shown_; }
  // Shows `fraction` (of the whole solve) unless it is not past what is shown.
  void show(double fraction) {
    if (!callback_) return;
    fraction = std::clamp(fraction, 0.0, 1.0);
    if (fraction <= shown_) return;
    shown_ = fraction;
    callback_(fraction);
  }
  // The solve is done: 1.0, unless it is shown already.
  void finish() { show(1.0); }
  inline ProgressSpan whole();

 private:
  std::function<void(double)> callback_;
  double shown_ = 0;
};

// The part [from, to] of the bar that one stage of a solve covers. A default
// span, or one over a meter nobody listens to, is false and reports nowhere.
// Copyable; it refers to a meter that outlives it.
class ProgressSpan {
 public:
  ProgressSpan() = default;
  ProgressSpan(ProgressMeter* meter, double from, double to) : meter_(meter), from_(from), to_(to) {}

  explicit operator bool() const { return meter_ != nullptr && meter_->active(); }
  // `fraction` (0..1) of this stage is done.
  void report(double fraction) const {
    if (meter_) meter_->show(from_ + (to_ - from_) * fraction);
  }
  // The sub-stage covering fractions [begin, end] of this span.
  ProgressSpan part(double begin, double end) const {
    return ProgressSpan(meter_, from_ + (to_ - from_) * begin, from_ + (to_ - from_) * end);
  }
  // What remains of this span past the fraction shown: where a rerun reports
  // after an abandoned attempt, so the bar never goes back.
  ProgressSpan rest() const {
    return meter_ ? ProgressSpan(meter_, std::clamp(meter_->shown(), from_, to_), to_) : ProgressSpan();
  }

 private:
  ProgressMeter* meter_ = nullptr;
  double from_ = 0;
  double to_ = 1;
};

ProgressSpan ProgressMeter::whole() { return ProgressSpan(this, 0.0, 1.0); }

}  // namespace apsp
