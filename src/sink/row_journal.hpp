// Private to the file sink: the journal of a resumable output
// (FileSink::keep_partial). Beside the kept partial files it lists which row
// blocks they hold, each with the digest of its bytes, so that a resumed
// solve computes only the rest and never trusts a row the disk lost.
//
// Layout (little-endian u64 words): a header of 7 words (magic, version,
// solve key, n, rows, shape, the digest of the 6 before), then records of 5
// words (plane, first row, rows, the digest of the rows' bytes, the digest of
// the 4 before). Records are appended with one write(2) each: a record
// outlives a killed process once written. There is no fsync in the hot path:
// a record whose rows did not reach the disk (a power cut) fails its digest
// on resume, and those rows are computed again.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "apsp/sink.hpp"

namespace apsp::sink {

// What a resumed solve must match: the solve (SinkLayout::solve_key), the
// matrix's order and rows, and the shape of the output (elements, formats,
// planes) as a digest.
struct JournalHeader {
  std::uint64_t key = 0;
  std::int64_t n = 0;
  std::int64_t rows = 0;
  std::uint64_t shape = 0;
  bool operator==(const JournalHeader& o) const {
    return key == o.key && n == o.n && rows == o.rows && shape == o.shape;
  }
};

struct JournalRecord {
  Plane plane = Plane::distances;
  std::int64_t first_row = 0;
  std::int64_t rows = 0;
  std::uint64_t digest = 0;  // of the rows' bytes, as MatrixFileWriter::digest_of
};

// A journal as read back: missing (no file), damaged (a header too short or
// failing its digest: nothing in it can be trusted), or ok with the records
// that passed their digests; damaged_records counts the others (a torn last
// record included).
struct JournalContents {
  enum class State { missing, damaged, ok };
  State state = State::missing;
  JournalHeader header;
  std::vector<JournalRecord> records;
  std::int64_t damaged_records = 0;
};
JournalContents read_journal(const std::string& path);

class RowJournal {
 public:
  // Writes a journal at `path` holding `header` and `records` (to a new file
  // renamed over `path`, so a kill leaves the old journal or the new one)
  // and opens it for append(). ResourceError on failure.
  RowJournal(std::string path, const JournalHeader& header, const std::vector<JournalRecord>& records);
  ~RowJournal();
  RowJournal(const RowJournal&) = delete;
  RowJournal& operator=(const RowJournal&) = delete;

  // Thread-safe. ResourceError when the write fails.
  void append(const JournalRecord& record);
  // Closes and unlinks the journal: the output it described is complete.
  void remove() noexcept;

 private:
  std::string path_;
  int fd_ = -1;
  std::mutex mutex_;
};

// Test hook for kill-and-resume tests: with APSP_TEST_KILL_AT=POINT:COUNT in
// the environment, the COUNT-th pass through `point` SIGKILLs the process.
// Points: "journal" (a record written), "rename" (before a resumable
// output's final renames), "renamed" (after them, before the journal goes),
// "checkpoint-write" (half-way through writing a round checkpoint),
// "checkpoint" (a round checkpoint saved).
void kill_point_for_testing(const char* point);

}  // namespace apsp::sink
