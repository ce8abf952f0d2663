#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/error.hpp"
#include "apsp/sinks.hpp"
#include "core/fingerprint.hpp"
#include "core/resources.hpp"
#include "core/row_blocks.hpp"
#include "io/files.hpp"
#include "io/matrix_file.hpp"
#include "sink/rank_checkpoints.hpp"
#include "sink/round_checkpoint.hpp"
#include "sink/row_journal.hpp"
#include "sink/rows.hpp"

namespace apsp {
namespace {

int index_of(Plane plane) { return plane == Plane::distances ? 0 : 1; }

}  // namespace

FileSink::FileSink(MatrixFileTarget distances, MatrixFileTarget predecessors)
    : targets_{std::move(distances), std::move(predecessors)} {
  // Fail at once on a path whose extension names no format, or a graph format.
  for (int p = 0; p < 2; ++p)
    if (!targets_[p].path.empty())
      io::detail::MatrixFileWriter(targets_[p].path, targets_[p].format, std::nullopt, "matrix");
  // One file for both planes would keep only the one renamed last.
  if (!targets_[0].path.empty() && !targets_[1].path.empty() &&
      io::detail::same_output_file(targets_[0].path, targets_[1].path))
    throw UsageError("the distances (" + targets_[0].path + ") and the predecessors (" + targets_[1].path +
                         ") name one file: each needs its own",
                     "predecessors");
}

FileSink::FileSink(Communicator& comm, MatrixFileTarget distances, MatrixFileTarget predecessors)
    : FileSink(std::move(distances), std::move(predecessors)) {
  comm_ = &comm;
}

FileSink::~FileSink() { discard(); }

void FileSink::begin(const SinkLayout& layout) {
  if (!targets_[1].path.empty() && !layout.predecessors)
    throw UsageError("a predecessors file (" + targets_[1].path + ") was given but the solve computes no predecessors",
                     "predecessors");
  discard();
  layout_ = layout;
  ledger_ = std::make_unique<sink::RowLedger>(layout);
  const char* what[2] = {"distance matrix", "predecessor matrix"};
  const auto element = [&](int p) { return sink::element_of(layout, p == 0 ? Plane::distances : Plane::predecessors); };
  for (int p = 0; p < 2; ++p) {
    if (targets_[p].path.empty()) continue;
    // Distances print kInf as INF in text; predecessors print every value.
    writers_[p] = std::make_unique<io::detail::MatrixFileWriter>(
        targets_[p].path, targets_[p].format, p == 0 ? std::optional<std::int32_t>(kInf) : std::nullopt, what[p]);
  }
  // Both files on one file system must fit it together, before either is
  // created (each writer's begin() checks only its own).
  const auto check_disk = [&] {
    std::vector<resources::DiskNeed> needs;
    for (int p = 0; p < 2; ++p)
      if (writers_[p])
        needs.push_back({targets_[p].path,
                         writers_[p]->bytes_needed(layout.row_count(), layout.column_count(), element(p)),
                         writers_[p]->described(layout.row_count(), layout.column_count())});
    resources::require_disk_space(needs);
  };
  if (comm_ == nullptr)
    check_disk();
  else
    agree(*comm_, [&] {
      if (comm_->rank() == 0) check_disk();  // rank 0 creates the files
    });
  if (keep_) return begin_kept();
  for (int p = 0; p < 2; ++p)
    if (writers_[p]) writers_[p]->begin(layout.row_count(), layout.column_count(), element(p), comm_);
}

void FileSink::keep_partial(bool resume, double checkpoint_every) {
  if (!(checkpoint_every >= 0))
    throw UsageError("the checkpoint interval must be 0 (none) or a positive number of seconds", "checkpoint-every");
  keep_ = true;
  resume_ = resume;
  checkpoint_every_ = checkpoint_every;
}

RoundCheckpoints* FileSink::round_checkpoints() {
  return rounds_ ? static_cast<RoundCheckpoints*>(rounds_.get()) : rank_rounds_.get();
}

namespace {

// The journals of ranks other than 0 (".NAME.apsp-journal-R") beside
// `journal_path` (".NAME.apsp-journal"), whichever ranks left them.
std::vector<std::string> rank_journals(const std::string& journal_path) {
  namespace fs = std::filesystem;
  const fs::path main(journal_path);
  const std::string prefix = main.filename().string() + "-";
  std::vector<std::string> found;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(main.parent_path(), error)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
        name.find_first_not_of("0123456789", prefix.size()) == std::string::npos)
      found.push_back(entry.path().string());
  }
  return found;
}

}  // namespace

void FileSink::begin_kept() {
  if (layout_.row_count() != layout_.n || layout_.column_count() != layout_.n)
    throw UsageError("partial rows are kept for the whole n x n matrix only, not a part of " +
                         std::to_string(layout_.row_count()) + " x " + std::to_string(layout_.column_count()),
                     "checkpoint");
  // Several ranks: rank 0 reads and checks what a killed run left, keeps
  // the journal ".NAME.apsp-journal" and tells the others which rows are
  // kept; each other rank R journals its own rows in ".NAME.apsp-journal-R"
  // (one writer per file, on any shared file system), which rank 0 merges
  // into its own on a resume.
  Communicator* const ranks = comm_ != nullptr && comm_->size() > 1 ? comm_ : nullptr;
  const bool root = ranks == nullptr || ranks->rank() == 0;
  const auto on_root = [&](const auto& work) {
    if (ranks == nullptr) return work();
    agree(*ranks, [&] {
      if (root) work();
    });
  };
  const std::string& primary = targets_[0].path.empty() ? targets_[1].path : targets_[0].path;
  const std::string journal_path = io::detail::kept_file_name(primary, "journal");
  core::Fingerprint shape;
  shape.value(static_cast<int>(layout_.distance_element)).value(layout_.predecessors);
  for (const MatrixFileTarget& target : targets_)
    shape.text(
        target.path.empty()
            ? ""
            : io::to_string(io::detail::MatrixFileWriter(target.path, target.format, std::nullopt, "matrix").format()));
  const sink::JournalHeader header{layout_.solve_key, layout_.n, layout_.row_count(), shape.digest()};
  sink::JournalContents found;
  std::string note;
  std::int64_t resuming = 0;
  on_root([&] {
    if (resume_) {
      found = sink::read_journal(journal_path);
      if (found.state == sink::JournalContents::State::missing)
        note = "no interrupted run of " + primary + " to resume (no " + journal_path + "): started afresh";
      else if (found.state == sink::JournalContents::State::damaged)
        note = "the journal " + journal_path + " is damaged: started afresh";
      else if (!(found.header == header))
        throw UsageError("cannot resume " + primary + ": the interrupted run that left " + journal_path +
                             " solved another problem (its graph, algorithm, weights, precision, predecessors or "
                             "output format differ); run without --resume to start afresh",
                         "resume");
    }
    resuming = found.state == sink::JournalContents::State::ok && found.header == header;
    // The other ranks' records count with rank 0's: of this solve, they
    // vouch for rows as rank 0's do (their digests are checked below).
    for (const std::string& path : resuming != 0 ? rank_journals(journal_path) : std::vector<std::string>{}) {
      sink::JournalContents more = sink::read_journal(path);
      if (more.state != sink::JournalContents::State::ok || !(more.header == header)) continue;
      found.records.insert(found.records.end(), more.records.begin(), more.records.end());
      found.damaged_records += more.damaged_records;
    }
  });
  if (ranks != nullptr) ranks->broadcast(&resuming, 1, 0);
  const auto element = [&](int p) {
    return sink::element_of(layout_, p == 0 ? Plane::distances : Plane::predecessors);
  };
  for (int p = 0; p < 2; ++p)
    if (writers_[p]) writers_[p]->begin_kept(layout_.n, element(p), resuming != 0, ranks);
  // A record counts only when the partial file holds the bytes it vouches
  // for; a row counts when every written plane holds it.
  const auto rows = static_cast<std::size_t>(layout_.row_count());
  std::vector<std::uint8_t> present_flags(rows, 0);
  std::vector<sink::JournalRecord> kept;
  if (root) {
    std::vector<std::uint8_t> planes_holding(rows, 0);
    std::int64_t damaged = found.damaged_records;
    for (const sink::JournalRecord& record : found.records) {
      const auto& writer = writers_[index_of(record.plane)];
      if (resuming == 0 || !writer) continue;
      if (writer->stored_digest(record.first_row, record.rows) != record.digest) {
        ++damaged;
        continue;
      }
      kept.push_back(record);
      for (std::int64_t r = record.first_row; r < record.first_row + record.rows; ++r)
        planes_holding[static_cast<std::size_t>(r)] |= static_cast<std::uint8_t>(1u << index_of(record.plane));
    }
    const std::uint8_t every_plane = static_cast<std::uint8_t>((writers_[0] ? 1 : 0) | (writers_[1] ? 2 : 0));
    std::int64_t present = 0;
    for (std::size_t r = 0; r < rows; ++r)
      if (planes_holding[r] == every_plane) {
        present_flags[r] = 1;
        ++present;
        // The kept rows arrive nowhere: rank 0's ledger counts them, once.
        for (int p = 0; p < 2; ++p)
          if (p == 0 || layout_.predecessors)
            ledger_->mark(p == 0 ? Plane::distances : Plane::predecessors, static_cast<std::int64_t>(r), 1);
      }
    if (damaged > 0)
      note = std::to_string(damaged) + " record(s) of " + journal_path +
             " did not match the partial output: their rows were computed again";
    if (resuming != 0)
      note = "resumed " + primary + ": " + std::to_string(present) + " of " + std::to_string(rows) +
             " rows kept from the interrupted run" + (note.empty() ? "" : "; " + note);
  }
  if (ranks != nullptr) ranks->broadcast(present_flags.data(), present_flags.size(), 0);
  resumed_.present.assign(present_flags.begin(), present_flags.end());
  resumed_.note = note;
  // Rank 0's journal holds every kept record before the other ranks' go
  // (a kill between leaves records twice, which is harmless); then each
  // other rank starts its own.
  on_root([&] {
    journal_ = std::make_unique<sink::RowJournal>(journal_path, header, kept);
    for (const std::string& path : rank_journals(journal_path)) std::remove(path.c_str());
  });
  if (ranks != nullptr) {
    agree(*ranks, [&] {
      if (!root)
        journal_ = std::make_unique<sink::RowJournal>(journal_path + "-" + std::to_string(ranks->rank()), header,
                                                      std::vector<sink::JournalRecord>{});
    });
    rank_rounds_ = std::make_unique<sink::RankRoundCheckpoints>(
        *ranks, io::detail::kept_file_name(primary, "checkpoint"), layout_.solve_key, checkpoint_every_, resuming != 0);
    return;
  }
  // The rounds resume only where the rows do: a journal of this solve.
  rounds_ = std::make_unique<sink::FileRoundCheckpoints>(io::detail::kept_file_name(primary, "checkpoint"),
                                                         layout_.solve_key, checkpoint_every_, resuming != 0);
}

void FileSink::put(const RowBlock& block) {
  if (!ledger_) throw UsageError("a row block arrived before begin()");
  ledger_->record(block);
  if (auto& writer = writers_[index_of(block.plane)]) {
    writer->put(block.first_row, block.rows, block.row_stride, block.data);
    if (journal_ && block.rows > 0)
      journal_->append(
          {block.plane, block.first_row, block.rows, writer->digest_of(block.rows, block.row_stride, block.data)});
  }
}

void FileSink::commit() {
  if (!ledger_) throw UsageError("commit() before begin()");
  if (comm_ == nullptr) {
    ledger_->require_complete();
  } else {
    sink::require_each_row_once(*comm_, *ledger_, layout_);
  }
  if (journal_) sink::kill_point_for_testing("rename");
  rename_outputs();
  if (journal_) {
    // The outputs are in place: the journal and checkpoint describe nothing any more.
    sink::kill_point_for_testing("renamed");
    if (rounds_) rounds_->remove();
    rounds_.reset();
    if (rank_rounds_) rank_rounds_->remove();
    rank_rounds_.reset();
    journal_->remove();
    journal_.reset();
  }
}

void FileSink::rename_outputs() {
  if (!writers_[0] || !writers_[1]) {
    for (auto& writer : writers_)
      if (writer) writer->commit();
    return;
  }
  // Both or neither: the predecessors are renamed first, keeping the file
  // they replace; if the distances then fail, that file comes back (or the
  // new one goes, where there was none).
  io::detail::ReplacedFile previous;
  writers_[1]->commit(&previous);
  try {
    if (sink::failing_between_renames())
      throw ResourceError("cannot rename " + targets_[0].path + ": injected failure");
    writers_[0]->commit();
  } catch (const std::exception& e) {
    const bool restored = previous.restore();
    if (restored || comm_ != nullptr) throw;  // the ranks' error stays the agreed one
    throw ResourceError(std::string(e.what()) + "; " + targets_[1].path + " holds the new predecessors and " +
                        targets_[0].path + " the old distances (the old predecessors could not be put back)");
  }
  previous.drop();
}

void FileSink::discard() noexcept {
  journal_.reset();  // a kept output's journal and checkpoint stay for a resumed run
  rounds_.reset();
  rank_rounds_.reset();
  for (auto& writer : writers_) {
    if (writer) writer->discard();
    writer.reset();
  }
}

std::uint64_t FileSink::bytes_written() const {
  std::uint64_t bytes = 0;
  for (const auto& writer : writers_)
    if (writer) bytes += writer->bytes_written();
  return bytes;
}

namespace {

template <class T>
void put_matrix_of(Sink& sink, Plane plane, Element element, const T* data, std::int64_t n) {
  put_in_blocks(n, static_cast<std::size_t>(n) * sizeof(T), [&](std::int64_t first, std::int64_t rows) {
    sink.put(RowBlock{plane, element, first, rows, n, data + first * n});
  });
}

}  // namespace

void put_matrix(Sink& sink, Plane plane, const std::int32_t* data, std::int64_t n) {
  put_matrix_of(sink, plane, Element::int32, data, n);
}
void put_matrix(Sink& sink, Plane plane, const float* data, std::int64_t n) {
  put_matrix_of(sink, plane, Element::float32, data, n);
}
void put_matrix(Sink& sink, Plane plane, const double* data, std::int64_t n) {
  put_matrix_of(sink, plane, Element::float64, data, n);
}

}  // namespace apsp
