// Private to the file sink: the round checkpoints of a dense solver writing
// into a resumable output (FileSink::keep_partial), in one hidden file beside
// it (".NAME.apsp-checkpoint").
//
// Layout: a header of 14 little-endian u64 words (magic, version, solve key,
// round, rounds, the digest of RoundState::layout, the plane count, up to 4
// plane lengths, the digest of the planes' bytes, a reserved word, the
// digest of the 13 before), then the planes' bytes. A save writes
// ".NAME.apsp-checkpoint.new", fsyncs it, renames it over the checkpoint and
// fsyncs the directory: the previous checkpoint stays valid until the new
// one is durable, and a kill during the save leaves the previous one.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "apsp/sink.hpp"

namespace apsp::sink {

class FileRoundCheckpoints : public RoundCheckpoints {
 public:
  // `path`: the checkpoint file; `key`: SinkLayout::solve_key; saves at a
  // round boundary once `interval_seconds` (> 0; 0: never) have passed since
  // the solve began or the last save; `resume`: restore() reads `path`
  // (otherwise it starts afresh and removes an old checkpoint).
  FileRoundCheckpoints(std::string path, std::uint64_t key, double interval_seconds, bool resume);

  std::int64_t restore(const RoundState& state) override;
  void round_done(const RoundState& state) override;
  bool due(std::int64_t round, std::int64_t rounds) const override;
  bool holds(const RoundState& state) const override;
  std::string note() const override { return note_; }
  // The output is complete: the checkpoint describes nothing any more.
  void remove() noexcept;
  std::int64_t saves() const { return saves_; }
  // Saves `state` now, whatever the interval (a caller that decides when:
  // RankRoundCheckpoints).
  void save_now(const RoundState& state) { save(state); }

 private:
  void save(const RoundState& state);

  std::string path_;
  std::uint64_t key_;
  double interval_;
  bool resume_;
  std::chrono::steady_clock::time_point last_;
  std::string note_;
  std::int64_t saves_ = 0;
};

}  // namespace apsp::sink
