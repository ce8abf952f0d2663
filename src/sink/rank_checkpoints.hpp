// Private to the file sink: the round checkpoints of the distributed dense
// solver (FileSink with a communicator and keep_partial). Every rank saves
// its own share (its tiles) at the same round, in files of its own beside
// the output, ".NAME.apsp-checkpoint-R-of-P.S" (R: the rank, P: the ranks,
// S: 0 or 1): each save goes to the slot not holding the rank's newest
// checkpoint, as FileRoundCheckpoints writes one (the header last, a
// checksum, a rename), so a rank killed during a save keeps its two
// previous ones. A resume restores the newest round that every rank holds
// valid: a share missing or damaged on one rank falls back to the previous
// common round, or to none (the rounds start afresh, with a note).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "apsp/comm.hpp"
#include "apsp/sink.hpp"
#include "sink/round_checkpoint.hpp"

namespace apsp::sink {

class RankRoundCheckpoints : public RoundCheckpoints {
 public:
  // `base`: kept_file_name(output, "checkpoint"); `key`: SinkLayout::
  // solve_key; `interval_seconds` (0: never) as FileRoundCheckpoints;
  // without `resume` this rank's old checkpoints go (and rank 0's removes
  // those of another rank count).
  RankRoundCheckpoints(Communicator& comm, std::string base, std::uint64_t key, double interval_seconds, bool resume);

  // Collective. Fills state.planes from the newest round every rank holds
  // valid and returns it, or returns 0 (then the planes may hold anything).
  // UsageError (option "resume", agreed) when only checkpoints of another
  // rank count are found.
  std::int64_t restore(const RoundState& state) override;
  // Collective: saves when due().
  void round_done(const RoundState& state) override {
    if (due()) save(state);
  }
  std::string note() const override { return note_; }
  // Collective: whether a save is due after the coming round, by rank 0's
  // clock (every rank gets its answer).
  bool due();
  // Every rank at the same round: saves this rank's share.
  void save(const RoundState& state);
  // Whether the last restore() read some checkpoint of this rank into the
  // planes (after a 0 the solver must then initialize them again).
  bool planes_touched() const { return touched_; }
  // This rank's checkpoints go: the output is complete.
  void remove() noexcept;

 private:
  std::string slot_path(int slot) const;

  Communicator& comm_;
  std::string base_;
  double interval_;
  std::unique_ptr<FileRoundCheckpoints> slots_[2];
  int newest_ = 1;  // the slot of this rank's newest checkpoint
  std::chrono::steady_clock::time_point last_;
  std::string note_;
  bool resume_;
  bool touched_ = false;
};

}  // namespace apsp::sink
