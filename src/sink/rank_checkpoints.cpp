#include "sink/rank_checkpoints.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "apsp/error.hpp"

namespace apsp::sink {
namespace {

namespace fs = std::filesystem;

// The rank counts (other than `ranks`) of the checkpoints beside `base`
// (".NAME.apsp-checkpoint-R-of-P.S"), and their paths.
std::vector<std::pair<int, std::string>> other_counts(const std::string& base, int ranks) {
  const fs::path path(base);
  const std::string prefix = path.filename().string() + "-";
  std::vector<std::pair<int, std::string>> found;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(path.parent_path(), error)) {
    const std::string name = entry.path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::size_t of = name.find("-of-", prefix.size());
    if (of == std::string::npos) continue;
    const int count = std::atoi(name.c_str() + of + 4);
    if (count > 0 && count != ranks) found.emplace_back(count, entry.path().string());
  }
  return found;
}

}  // namespace

RankRoundCheckpoints::RankRoundCheckpoints(Communicator& comm, std::string base, std::uint64_t key,
                                           double interval_seconds, bool resume)
    : comm_(comm),
      base_(std::move(base)),
      interval_(interval_seconds),
      last_(std::chrono::steady_clock::now()),
      resume_(resume) {
  for (int s = 0; s < 2; ++s)
    slots_[s] = std::make_unique<FileRoundCheckpoints>(slot_path(s), key, interval_seconds, resume);
  if (!resume && comm_.rank() == 0)
    for (const auto& [count, path] : other_counts(base_, comm_.size())) std::remove(path.c_str());
}

std::string RankRoundCheckpoints::slot_path(int slot) const {
  return base_ + "-" + std::to_string(comm_.rank()) + "-of-" + std::to_string(comm_.size()) + "." +
         std::to_string(slot);
}

std::int64_t RankRoundCheckpoints::restore(const RoundState& state) {
  // Each slot read in turn into the planes (the last valid one stays there).
  std::int64_t held[2] = {0, 0};
  std::error_code error;
  touched_ = resume_ && (fs::exists(slot_path(0), error) || fs::exists(slot_path(1), error));
  for (int s = 0; s < 2; ++s) held[s] = slots_[s]->restore(state);
  const auto ranks = static_cast<std::size_t>(comm_.size());
  std::vector<std::int64_t> all(2 * ranks, 0);
  const auto at = 2 * static_cast<std::size_t>(comm_.rank());
  all[at] = held[0];
  all[at + 1] = held[1];
  comm_.all_reduce(all.data(), all.data(), all.size(), ReduceOp::sum);
  const auto holds = [&](std::size_t rank, std::int64_t round) {
    return all[2 * rank] == round || all[2 * rank + 1] == round;
  };
  std::int64_t common = 0, newest = 0;
  for (const std::int64_t round : all) newest = std::max(newest, round);
  for (const std::int64_t round : {all[0], all[1]}) {
    if (round <= common) continue;
    bool everywhere = true;
    for (std::size_t r = 0; r < ranks && everywhere; ++r) everywhere = holds(r, round);
    if (everywhere) common = round;
  }
  if (newest == 0) {
    agree(comm_, [&] {
      if (comm_.rank() != 0) return;
      const auto others = other_counts(base_, comm_.size());
      if (!others.empty())
        throw UsageError("cannot resume the rounds from " + others.front().second + ": it was written by " +
                             std::to_string(others.front().first) + " ranks and this run has " +
                             std::to_string(comm_.size()) + " (the ranks' shares of the matrix differ); run on " +
                             std::to_string(others.front().first) + " ranks, or without --resume to start afresh",
                         "resume");
    });
  }
  if (common == 0) {
    newest_ = 1;
    note_ = newest == 0 ? slots_[0]->note() : "no round checkpoint is valid on every rank: the rounds started afresh";
    return 0;
  }
  newest_ = held[1] == common ? 1 : 0;
  if (held[1] != common && slots_[0]->restore(state) != common)
    throw ResourceError("the round checkpoint " + slot_path(0) + " changed while it was read");
  note_ = "resumed the rounds after round " + std::to_string(common) + " of " + std::to_string(state.rounds) +
          " from every rank's checkpoint" +
          (common < newest ? " (round " + std::to_string(newest) + "'s was not complete on every rank)" : "");
  last_ = std::chrono::steady_clock::now();
  return common;
}

bool RankRoundCheckpoints::due() {
  std::int64_t go = 0;
  if (comm_.rank() == 0)
    go = interval_ > 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - last_).count() >= interval_;
  comm_.broadcast(&go, 1, 0);
  return go != 0;
}

void RankRoundCheckpoints::save(const RoundState& state) {
  const int slot = 1 - newest_;
  slots_[slot]->save_now(state);
  newest_ = slot;
  last_ = std::chrono::steady_clock::now();
}

void RankRoundCheckpoints::remove() noexcept {
  for (auto& slot : slots_) slot->remove();
}

}  // namespace apsp::sink
