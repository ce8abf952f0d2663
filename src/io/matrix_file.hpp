// Private to io and the sinks: one plane of an n x n matrix written to one
// file in a matrix format. The file sink (src/sink) holds one per plane;
// io::write_matrix uses one for a matrix already in memory.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "apsp/io.hpp"
#include "apsp/sink.hpp"

namespace apsp {
class Communicator;
}

namespace apsp::io::detail {

class OutputFile;
class ReplacedFile;

class MatrixFileWriter {
 public:
  // `format` automatic = from the path's extension. In the text formats,
  // cells equal to shown_as_inf print "INF" (kInf for distances, nothing for
  // predecessors). `what` names the matrix in messages ("distance matrix").
  // Throws UsageError for a format that holds no matrices.
  MatrixFileWriter(std::string path, io::Format format, std::optional<std::int32_t> shown_as_inf, std::string what);
  ~MatrixFileWriter();

  // Checks the format's limits for an n x n matrix of `element` (text: at
  // most 4096 vertices; .bin: int32 only; bin-f32 / bin-f64: that element
  // only) and the disk space it needs, then opens the temporary file and
  // writes the .npy header. Throws UsageError or ResourceError naming the
  // sizes before anything is created.
  //
  // With `comm` (collective, every rank with the same path and format): one
  // file written by every rank of it. Rank 0 checks, creates the temporary
  // file and writes the header; the others open it by name (the ranks must
  // share the file system); each rank then puts only its own rows, and
  // commit() (collective) agrees that every rank's writes succeeded before
  // rank 0 renames the file over the target. Binary formats only (text rows
  // are written in order by one process). Errors are agreed on every rank.
  void begin(std::int64_t n, Element element, Communicator* comm = nullptr) { begin(n, n, element, comm); }
  // The same for a rows x columns part of the result (some sources, some
  // targets); the text limit applies to the columns.
  void begin(std::int64_t rows, std::int64_t columns, Element element, Communicator* comm = nullptr);
  // As begin() in one process, into a partial file kept for a resumed run
  // (OutputFile::kept): binary formats only (UsageError for text, whose rows
  // are appended in order). Fresh (`reopen` false), the file is sized to
  // the whole matrix at once. Reopened, its rows stay; returns false, and
  // starts it fresh, when its length is not the matrix's (another matrix,
  // or a damaged file).
  bool begin_kept(std::int64_t n, Element element, bool reopen);
  // The same with `comm` (collective, every rank with the same path, format
  // and `reopen`): rank 0 opens (and locks) the partial file as above, the
  // others join it by its name (a shared file system); commit() is then
  // collective as begin()'s with a communicator. Returns rank 0's verdict on
  // every rank. Errors are agreed on every rank.
  bool begin_kept(std::int64_t n, Element element, bool reopen, Communicator* comm);
  // The digest (core::Fingerprint) of rows as put() would store them: `rows`
  // rows of columns elements, row r at data + r * stride elements.
  std::uint64_t digest_of(std::int64_t rows, std::int64_t stride, const void* data) const;
  // The digest of rows [first_row, first_row + rows) as the file holds them
  // now (binary formats); nullopt when they cannot be read.
  std::optional<std::uint64_t> stored_digest(std::int64_t first_row, std::int64_t rows) const;
  // What begin() checks of the format's limits (throwing the same errors),
  // and the bytes the file will take: the least for text formats. No I/O.
  std::uint64_t bytes_needed(std::int64_t rows, std::int64_t columns, Element element) const;
  // The words begin()'s disk check names the file with ("the 100 x 100
  // distance matrix in d.bin"; text: "... (at least)").
  std::string described(std::int64_t rows, std::int64_t columns) const;
  // Rows [first_row, first_row + rows), row r at data + r * stride elements.
  // Thread-safe; blocks may come in any order. Binary formats write them at
  // their offset; text formats format them here (blocks of more than a few
  // rows over several threads) and write them in row order.
  void put(std::int64_t first_row, std::int64_t rows, std::int64_t stride, const void* data);
  // Every row must have been put (the caller's ledger checks that). With
  // `replaced`, the file the commit replaces is kept for the caller to
  // restore or drop (io::detail::ReplacedFile; with a communicator, rank
  // 0's, the others' stay empty).
  void commit(io::detail::ReplacedFile* replaced = nullptr);
  void discard() noexcept;

  std::uint64_t bytes_written() const { return bytes_written_.load(); }
  const std::string& path() const { return path_; }
  io::Format format() const { return format_; }

 private:
  bool text() const;
  // A rank other than 0 of a shared file: the writer's shape, and the file
  // rank 0 made (OutputFile::join(path, shared_name)).
  void join(std::int64_t rows, std::int64_t columns, Element element, const std::string& path,
            const std::string& shared_name);
  void put_binary(std::int64_t first_row, std::int64_t rows, std::int64_t stride, const void* data);
  void put_text(std::int64_t first_row, std::int64_t rows, std::int64_t stride, const void* data);
  // Appends formatted rows once every row before them is written.
  void write_in_order(std::int64_t first_row, std::int64_t rows, std::string text);

  std::string path_;
  Communicator* comm_ = nullptr;  // several ranks write the one file
  io::Format format_;
  std::optional<std::int32_t> shown_as_inf_;
  std::string what_;
  std::int64_t rows_ = 0;
  std::int64_t columns_ = 0;  // values per row
  Element element_ = Element::int32;
  std::size_t element_bytes_ = 4;
  std::uint64_t header_bytes_ = 0;
  std::unique_ptr<io::detail::OutputFile> file_;
  std::atomic<std::uint64_t> bytes_written_{0};

  // Text: formatted blocks waiting for the rows before them.
  struct Pending {
    std::int64_t rows;
    std::string text;
  };
  std::mutex order_mutex_;
  std::int64_t next_row_ = 0;
  std::uint64_t append_at_ = 0;
  std::map<std::int64_t, Pending> pending_;
};

}  // namespace apsp::io::detail
