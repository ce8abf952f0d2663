#include "progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace apsp::cli {
namespace {
constexpr int kWidth = 40;
}

ProgressBar::ProgressBar() : enabled_(isatty(STDERR_FILENO) != 0) {}

ProgressBar::~ProgressBar() {
  if (percent_ >= 0) std::fprintf(stderr, "\r%*s\r", kWidth + 24, "");
}

void ProgressBar::draw(const char* label, double fraction) {
  if (!enabled_) return;
  std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return;
  const int percent = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 100);
  if (percent == percent_ && label_ == label) return;
  percent_ = percent;
  label_ = label;
  const int filled = percent * kWidth / 100;
  std::fprintf(stderr, "\r%-9s [%.*s%*s] %3d%%", label, filled, "########################################",
               kWidth - filled, "", percent);
  std::fflush(stderr);
}

void ProgressSink::begin(const SinkLayout& layout) {
  total_rows_ = layout.n * (layout.predecessors ? 2 : 1);
  rows_ = 0;
  inner_.begin(layout);
}

void ProgressSink::put(const RowBlock& block) {
  inner_.put(block);
  const std::int64_t done = rows_ += block.rows;
  if (writing_ && total_rows_ > 0) bar_.draw("writing", static_cast<double>(done) / static_cast<double>(total_rows_));
}

}  // namespace apsp::cli
