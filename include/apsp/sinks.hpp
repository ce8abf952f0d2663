// The sinks the library provides (the interface is apsp/sink.hpp): a host
// matrix, files in the matrix formats, and nothing at all.
//
// Every sink checks each row block against the layout it was given (plane,
// element type, row range), and commit() checks that every row of every
// announced plane arrived exactly once: a producer bug fails loudly instead of
// leaving uninitialized rows behind.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/io.hpp"
#include "apsp/matrix.hpp"
#include "apsp/sink.hpp"

namespace apsp {

class Communicator;
namespace sink {
class RowLedger;
class RowJournal;
class FileRoundCheckpoints;
class RankRoundCheckpoints;
}  // namespace sink
namespace io::detail {
class MatrixFileWriter;
}  // namespace io::detail

// Keeps the result in host memory: one matrix per plane (n x n, or the
// layout's rows x columns for a part of it), allocated in
// begin() without zero-filling (after checking that it fits the memory
// available) and filled by whichever threads put the rows. Exposes
// row_address(), so producers compute straight into it and put() copies
// nothing. Distances of any Element (int32, float32, float64) are held in
// the matrix of that type (distances(), distances_f32(), distances_f64()).
class HostMatrixSink : public Sink {
 public:
  HostMatrixSink();
  ~HostMatrixSink() override;

  void begin(const SinkLayout& layout) override;
  void put(const RowBlock& block) override;
  void commit() override;
  void* row_address(Plane plane, std::int64_t row) override;
  // Commits the pages of every plane the layout announced.
  void prepare() override;

  // Takes whole planes filled elsewhere instead of their rows: each must hold
  // n*n values, and `pred` must be empty unless predecessors were announced.
  // Counts as a put() of every row of those planes.
  void adopt(HostVector<dist_t>&& dist, HostVector<vertex_t>&& pred);

  std::int64_t n() const { return layout_.n; }
  // The matrices, n*n row-major (pred empty without predecessors). Complete
  // after commit(); moving them out leaves the sink empty.
  HostVector<dist_t>& distances() { return dist_; }
  HostVector<float>& distances_f32() { return dist_f32_; }   // layouts with Element::float32
  HostVector<double>& distances_f64() { return dist_f64_; }  // layouts with Element::float64
  HostVector<vertex_t>& predecessors() { return pred_; }

 private:
  SinkLayout layout_;
  HostVector<dist_t> dist_;
  HostVector<float> dist_f32_;
  HostVector<double> dist_f64_;
  HostVector<vertex_t> pred_;
  std::unique_ptr<sink::RowLedger> ledger_;
  std::uint64_t reserved_bytes_ = 0;  // counted by the memory check until released
};

// Drops the rows (a summary-only solve), after checking them like any sink.
// A rank of a distributed solve gets only the rows it delivers: with
// Rows::some, commit() does not require every row.
class NullSink : public Sink {
 public:
  enum class Rows { every, some };
  explicit NullSink(Rows expected = Rows::every);
  ~NullSink() override;

  void begin(const SinkLayout& layout) override;
  void put(const RowBlock& block) override;
  void commit() override;

 private:
  SinkLayout layout_;
  Rows expected_;
  std::unique_ptr<sink::RowLedger> ledger_;
};

// Where a FileSink writes one plane: a path ("" = drop that plane) and its
// format (automatic = from the extension). .bin: raw row-major values; .npy:
// the array with its header; .txt / .mat: text rows, "INF" for kInf
// distances (up to 4096 vertices).
struct MatrixFileTarget {
  std::string path;
  io::Format format = io::Format::automatic;
};

// Writes the distances and the predecessors to files. begin() checks the
// format's limits and the free space of the disk (both before any work) and
// creates unnamed temporary files beside the targets; put() writes the rows
// at their offsets with pwrite (.bin, .npy; straight from the caller's
// memory) or formats them on the calling thread and writes them in row order
// (text; blocks from several threads format in parallel); commit() renames the
// temporaries over the targets. A failed solve (discard(), or destruction
// without commit()) leaves no file behind and an existing file untouched.
//
// With a communicator (a distributed solve): every rank of `comm` makes one
// with the same targets and gets only the rows it delivers. The ranks write
// one file per plane, which must lie on a file system they share: rank 0
// creates the temporary file and writes the header, every rank pwrites its
// rows at their offsets, and commit() (collective) checks that the ranks'
// rows add up to the whole matrix and that every rank's writes succeeded
// before rank 0 renames the file over the target. .bin and .npy only (text
// rows are written in order by one process). begin() and commit() are
// collective; their errors are agreed on every rank (apsp/distributed.hpp).
class FileSink : public Sink {
 public:
  explicit FileSink(MatrixFileTarget distances, MatrixFileTarget predecessors = {});
  FileSink(Communicator& comm, MatrixFileTarget distances, MatrixFileTarget predecessors = {});
  ~FileSink() override;

  void begin(const SinkLayout& layout) override;
  void put(const RowBlock& block) override;
  void commit() override;
  void discard() noexcept override;

  // Bytes written so far (text: after formatting), for rates.
  std::uint64_t bytes_written() const;

  // Makes the output resumable; call before begin(). The rows go to hidden
  // partial files beside the targets (".NAME.apsp-partial") that outlive a
  // failed or killed run, and a journal (".NAME.apsp-journal", beside the
  // distances, or the predecessors without them) records each row block
  // with the digest of its bytes. With `resume`, begin() continues the
  // partial files an interrupted run of the same solve (SinkLayout::
  // solve_key, n, formats) left, and resumed() names the rows they hold;
  // a journal of another solve is a UsageError (option "resume"); a
  // missing or damaged one starts afresh with a note. Without `resume`,
  // begin() starts afresh. commit() renames the partial files over the
  // targets, then removes the journal. Binary formats (.bin, .npy) only.
  // With a communicator (collective, as begin()): the ranks share the
  // partial files; rank 0 keeps the journal and each other rank R journals
  // its own rows beside it (".NAME.apsp-journal-R"), which rank 0 merges on
  // a resume; every rank learns the kept rows (resumed()).
  //
  // A dense solver (fw-blocked on the CPU) also saves its working matrices
  // at a round boundary once `checkpoint_every` seconds (0: never) have
  // passed since it began or last saved (round_checkpoints(), in
  // ".NAME.apsp-checkpoint" beside the journal), and with `resume`
  // continues from the last valid one. With a communicator, each rank saves
  // its own share at the same round (sink/rank_checkpoints.hpp), and a
  // resume continues from the newest round every rank holds valid.
  void keep_partial(bool resume, double checkpoint_every = kDefaultCheckpointSeconds);
  static constexpr double kDefaultCheckpointSeconds = 300;
  bool keeps_partial() const override { return keep_; }
  SinkResume resumed() const override { return resumed_; }
  RoundCheckpoints* round_checkpoints() override;

 private:
  void begin_kept();
  void rename_outputs();
  MatrixFileTarget targets_[2];
  Communicator* comm_ = nullptr;
  SinkLayout layout_;
  std::unique_ptr<io::detail::MatrixFileWriter> writers_[2];  // by Plane; null = plane dropped
  std::unique_ptr<sink::RowLedger> ledger_;
  bool keep_ = false, resume_ = false;
  double checkpoint_every_ = 0;
  std::unique_ptr<sink::RowJournal> journal_;
  std::unique_ptr<sink::FileRoundCheckpoints> rounds_;
  std::unique_ptr<sink::RankRoundCheckpoints> rank_rounds_;  // several ranks: each its share
  SinkResume resumed_;
};

// What a SparseSink keeps of each row. Unreachable pairs are never kept.
struct SparseKeep {
  // Keep distances <= cutoff (scipy's `limit`); unset = no cutoff.
  std::optional<double> cutoff;
  // > 0: keep the `nearest` smallest distances of each row (after the
  // cutoff), ties to the lower column; a row's own source counts as a
  // target at distance 0 where it is one. 0 = no such limit.
  std::int64_t nearest = 0;
};

// A part of the distance matrix in compressed sparse rows: row r's kept
// entries are column[k], distance(k) for k in row_start[r] .. row_start[r+1]
// - 1, columns increasing. Columns index the result's columns (vertices, or
// positions in SolveOptions::targets); rows the result's rows. The
// distances keep the solve's type: int32 and float32 in 4 bytes (8 a pair
// with the column), float64 in 8; integer distances that all fit int16
// (-32768..32767, as a cutoff below 32768 keeps them without negative
// weights) in 2 (6 a pair; element int16).
struct SparseDistances {
  std::int64_t rows = 0;
  std::int64_t columns = 0;
  std::vector<std::int64_t> row_start;  // rows + 1 offsets
  std::vector<vertex_t> column;
  Element element = Element::int32;  // which of the vectors below holds the distances
  std::vector<std::int16_t> int16_distance;
  std::vector<std::int32_t> int32_distance;
  std::vector<float> float32_distance;
  std::vector<double> float64_distance;

  std::size_t size() const { return column.size(); }
  double distance(std::size_t k) const {
    return element == Element::float64   ? float64_distance[k]
           : element == Element::float32 ? static_cast<double>(float32_distance[k])
           : element == Element::int16   ? static_cast<double>(int16_distance[k])
                                         : static_cast<double>(int32_distance[k]);
  }
  // Every distance as a double (exact: int32 and float32 widen exactly).
  std::vector<double> distances() const;
};

// Keeps the distances SparseKeep asks for, as they arrive, in memory
// proportional to what is kept, never rows x columns: each put() prunes its
// rows into a block of exactly the kept entries (8 bytes a pair, 6 where
// integer distances fit int16, 12 for float64 distances, and 8 a row),
// and commit() moves the blocks into the CSR in row order, freeing each as
// it goes, so the peak stays near one copy. Any distance element; no
// predecessors plane (begin() refuses one: UsageError, option
// "predecessors"). Thread-safe; result() is complete after commit().
//
// With a communicator (a distributed solve, as FileSink's): every rank of
// `comm` makes one and puts the rows it computed; begin() and commit() are
// collective. commit() checks that the ranks' rows together arrived exactly
// once (an agreed Error otherwise) and gathers every rank's kept entries on
// rank 0, whose result() is then the one a single process would hold (the
// same rows, columns, distances and element); the other ranks' result() is
// empty (0 rows). Rank 0 holds every kept pair, as one process does.
class SparseSink : public Sink {
 public:
  explicit SparseSink(SparseKeep keep);
  SparseSink(Communicator& comm, SparseKeep keep);
  ~SparseSink() override;

  void begin(const SinkLayout& layout) override;
  void put(const RowBlock& block) override;
  void commit() override;

  SparseDistances& result() { return result_; }

  struct Kept;  // one kept entry of a row, while a block is pruned

 private:
  struct Block;  // the kept entries of one put()'s rows
  // Collective (comm_): the other ranks' blocks into rank 0's blocks_.
  void gather_blocks();
  Communicator* comm_ = nullptr;
  SparseKeep keep_;
  SinkLayout layout_;
  std::unique_ptr<sink::RowLedger> ledger_;
  std::mutex mutex_;
  std::vector<Block> blocks_;
  bool wide_ = false;  // an integer block held a distance outside int16
  SparseDistances result_;
};

// Passes rows to `inner` with the distances converted to `to` (unset: as
// they come), and learns on the way the narrowest type that holds every
// distance exactly. float64 and float32 take any distances (float32 from
// float64 rounds to nearest: lossy); int32 takes only integers below kInf in
// magnitude (unreachable becomes kInf), int16 (files only) integers below
// kOutputInf16 (unreachable becomes kOutputInf16); any other distance is a
// UsageError (option "output-type") naming it and its row and column: the
// solve then fails and `inner` discards. Predecessors pass unchanged.
// Thread-safe as any sink.
class ConvertingSink : public Sink {
 public:
  ConvertingSink(Sink& inner, std::optional<Element> to);

  void begin(const SinkLayout& layout) override;
  void put(const RowBlock& block) override;
  void commit() override { inner_.commit(); }
  void discard() noexcept override { inner_.discard(); }
  // A resumable `inner` (FileSink::keep_partial) stays resumable through the
  // conversion: its kept rows are in the output's type already.
  bool keeps_partial() const override { return inner_.keeps_partial(); }
  SinkResume resumed() const override { return inner_.resumed(); }
  RoundCheckpoints* round_checkpoints() override { return inner_.round_checkpoints(); }

  // After the last put(): the narrowest of int16, int32, float32 and float64 that
  // holds every finite distance that arrived exactly; unset where `inner`
  // kept rows of a killed run (Sink::resumed), whose values never arrive here.
  std::optional<Element> narrowest_exact() const;
  // Whether the conversion may round (float32 from float64 or int32): exact
  // only where narrowest_exact() is int32 or float32.
  bool lossy() const { return lossy_; }

 private:
  Sink& inner_;
  std::optional<Element> to_;
  SinkLayout layout_;
  bool lossy_ = false;
  bool kept_ = false;  // `inner` kept rows of a killed run
  std::atomic<bool> all_int16_{true};
  std::atomic<bool> all_int32_{true};
  std::atomic<bool> all_float32_{true};
};

// Puts every row of an n x n int32 matrix held in host memory (row-major,
// stride n) into `sink`, which has begun with a layout of order n, as blocks
// of about 1 MiB from several threads (for text files, formatting runs in
// parallel). Writes a SolveResult into a FileSink, for example.
void put_matrix(Sink& sink, Plane plane, const std::int32_t* data, std::int64_t n);
// The same for float32 / float64 distances (Element::float32 / float64).
void put_matrix(Sink& sink, Plane plane, const float* data, std::int64_t n);
void put_matrix(Sink& sink, Plane plane, const double* data, std::int64_t n);

}  // namespace apsp
