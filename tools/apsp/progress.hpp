// The progress bar of `apsp solve` and `apsp verify`, and a sink wrapper that
// moves it while rows are written.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "apsp/sink.hpp"

namespace apsp::cli {

// A bar on stderr ("solving [####    ]  42%"), redrawn when the label or the
// whole percentage changes; draws nothing unless stderr is a terminal.
// draw() may be called from any thread (a busy bar skips the redraw).
class ProgressBar {
 public:
  ProgressBar();
  ~ProgressBar();  // erases the bar
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void draw(const char* label, double fraction);
  bool enabled() const { return enabled_; }

 private:
  bool enabled_;
  std::mutex mutex_;
  std::string label_;
  int percent_ = -1;
};

// Forwards everything to `inner` and counts the rows put, drawing "writing"
// with the fraction of all rows (of every plane) once writing_started() was
// called; before that (rows streamed while the solver still computes) the
// bar shows the solver's own progress.
class ProgressSink : public Sink {
 public:
  ProgressSink(Sink& inner, ProgressBar& bar) : inner_(inner), bar_(bar) {}

  void begin(const SinkLayout& layout) override;
  void put(const RowBlock& block) override;
  void commit() override { inner_.commit(); }
  void discard() noexcept override { inner_.discard(); }
  void* row_address(Plane plane, std::int64_t row) override { return inner_.row_address(plane, row); }
  void prepare() override { inner_.prepare(); }
  bool keeps_partial() const override { return inner_.keeps_partial(); }
  SinkResume resumed() const override { return inner_.resumed(); }
  RoundCheckpoints* round_checkpoints() override { return inner_.round_checkpoints(); }

  void writing_started() { writing_ = true; }

 private:
  Sink& inner_;
  ProgressBar& bar_;
  std::int64_t total_rows_ = 0;
  std::atomic<std::int64_t> rows_{0};
  std::atomic<bool> writing_{false};
};

}  // namespace apsp::cli
