#include "io/matrix_file.hpp"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/error.hpp"
#include "core/fingerprint.hpp"
#include "core/resources.hpp"
#include "io/files.hpp"
#include "io/formats.hpp"

namespace apsp::io::detail {
namespace {

// Text rows formatted as one piece; a larger block is split into pieces
// formatted in parallel.
constexpr std::int64_t kTextPieceRows = 16;

const char* npy_descr(Element e) {
  switch (e) {
    case Element::int32: return "<i4";
    case Element::float32: return "<f4";
    case Element::float64: return "<f8";
    case Element::int16: return "<i2";
  }
  return "?";
}

}  // namespace

MatrixFileWriter::MatrixFileWriter(std::string path, io::Format format, std::optional<std::int32_t> shown_as_inf,
                                   std::string what)
    : path_(std::move(path)),
      format_(format == io::Format::automatic ? io::format_from_path(path_) : format),
      shown_as_inf_(shown_as_inf),
      what_(std::move(what)) {
  if (format_ == io::Format::dimacs || format_ == io::Format::matrix_market || format_ == io::Format::coordinate)
    io::detail::not_a_matrix_format(format_, path_);
}

MatrixFileWriter::~MatrixFileWriter() = default;

bool MatrixFileWriter::text() const { return format_ == io::Format::edge_list || format_ == io::Format::text_matrix; }

void MatrixFileWriter::begin(std::int64_t rows, std::int64_t columns, Element element, Communicator* comm) {
  // One rank shares with nobody: its temporary stays unnamed, so that even a
  // killed run leaves nothing (a shared one needs a name the others open).
  if (comm != nullptr && comm->size() == 1) comm = nullptr;
  comm_ = comm;
  if (comm_ != nullptr) {
    if (text())
      throw UsageError("cannot write " + path_ +
                       " from several ranks: the text formats are written in row order by "
                       "one process; use .bin or .npy");
    // Rank 0 alone creates the file; the others join it by the name it shares.
    std::string shared;
    agree(*comm_, [&] {
      if (comm_->rank() == 0) {
        begin(rows, columns, element, nullptr);
        shared = file_->share();
      }
    });
    comm_ = comm;
    std::int64_t length = static_cast<std::int64_t>(shared.size());
    comm_->broadcast(&length, 1, 0);
    std::vector<std::uint8_t> name(shared.begin(), shared.end());
    name.resize(static_cast<std::size_t>(length));
    comm_->broadcast(name.data(), name.size(), 0);
    agree(*comm_, [&] {
      if (comm_->rank() != 0) join(rows, columns, element, path_, std::string(name.begin(), name.end()));
    });
    return;
  }
  const std::uint64_t needed = bytes_needed(rows, columns, element);
  resources::require_disk_space(path_, needed, described(rows, columns));
  rows_ = rows;
  columns_ = columns;
  element_ = element;
  element_bytes_ = element_bytes(element);
  const std::string header = format_ == io::Format::npy ? io::detail::npy_header(rows, columns, npy_descr(element))
                                                        : "";
  file_ = std::make_unique<io::detail::OutputFile>(path_);
  header_bytes_ = header.size();
  if (!header.empty()) file_->write_at(0, header.data(), header.size());
  bytes_written_ = header.size();
  next_row_ = 0;
  append_at_ = 0;
  pending_.clear();
}

bool MatrixFileWriter::begin_kept(std::int64_t n, Element element, bool reopen) {
  if (text())
    throw UsageError("cannot keep the partial rows of " + path_ +
                         " for a resumed run: text rows are written in order; use .bin or .npy",
                     "checkpoint");
  const std::uint64_t needed = bytes_needed(n, n, element);
  resources::require_disk_space(path_, needed, described(n, n));
  rows_ = n;
  columns_ = n;
  element_ = element;
  element_bytes_ = element_bytes(element);
  file_ = io::detail::OutputFile::kept(path_, reopen);
  const bool kept = reopen && file_->size() == needed;
  if (!kept) {
    file_->resize(0);
    file_->resize(needed);
  }
  const std::string header = format_ == io::Format::npy ? io::detail::npy_header(n, n, npy_descr(element)) : "";
  header_bytes_ = header.size();
  if (!header.empty()) file_->write_at(0, header.data(), header.size());
  bytes_written_ = header.size();
  return kept;
}

void MatrixFileWriter::join(std::int64_t rows, std::int64_t columns, Element element, const std::string& path,
                            const std::string& shared_name) {
  rows_ = rows;
  columns_ = columns;
  element_ = element;
  element_bytes_ = element_bytes(element);
  header_bytes_ = format_ == io::Format::npy ? io::detail::npy_header(rows, columns, npy_descr(element)).size() : 0;
  file_ = io::detail::OutputFile::join(path, shared_name);
  bytes_written_ = 0;
}

bool MatrixFileWriter::begin_kept(std::int64_t n, Element element, bool reopen, Communicator* comm) {
  if (comm == nullptr || comm->size() == 1) return begin_kept(n, element, reopen);
  std::int64_t kept = 0;
  agree(*comm, [&] {
    if (comm->rank() == 0) kept = begin_kept(n, element, reopen) ? 1 : 0;
  });
  comm->broadcast(&kept, 1, 0);
  agree(*comm, [&] {
    // The partial file by its own name: closing it renames nothing, and
    // discarding it removes nothing (rank 0 owns it).
    if (comm->rank() != 0) join(n, n, element, io::detail::kept_file_name(path_, "partial"), "");
  });
  comm_ = comm;
  return kept != 0;
}

std::uint64_t MatrixFileWriter::digest_of(std::int64_t rows, std::int64_t stride, const void* data) const {
  const auto row_bytes = static_cast<std::size_t>(columns_) * element_bytes_;
  const auto* bytes = static_cast<const unsigned char*>(data);
  core::Fingerprint digest;
  for (std::int64_t r = 0; r < rows; ++r)
    digest.bytes(bytes + static_cast<std::size_t>(r * stride) * element_bytes_, row_bytes);
  return digest.digest();
}

std::optional<std::uint64_t> MatrixFileWriter::stored_digest(std::int64_t first_row, std::int64_t rows) const {
  if (!file_ || text()) return std::nullopt;
  const auto row_bytes = static_cast<std::uint64_t>(columns_) * element_bytes_;
  std::vector<unsigned char> chunk(static_cast<std::size_t>(std::max<std::uint64_t>(row_bytes, 1)));
  core::Fingerprint digest;
  for (std::int64_t r = first_row; r < first_row + rows; ++r) {
    if (!file_->read_at(header_bytes_ + static_cast<std::uint64_t>(r) * row_bytes, chunk.data(), row_bytes))
      return std::nullopt;
    digest.bytes(chunk.data(), row_bytes);
  }
  return digest.digest();
}

std::uint64_t MatrixFileWriter::bytes_needed(std::int64_t rows, std::int64_t columns, Element element) const {
  const auto cells = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(columns);
  const bool raw_real = format_ == io::Format::bin_f32 || format_ == io::Format::bin_f64;
  if (format_ == io::Format::nthu_bin && element == Element::int16)
    throw UsageError("cannot write the int16 " + what_ + " to " + path_ +
                     ": the NTHU .bin format holds int32 values; write .npy or text");
  if (format_ == io::Format::nthu_bin && element != Element::int32)
    throw UsageError(std::string("cannot write the ") + apsp::to_string(element) + " " + what_ + " to " + path_ +
                     ": the NTHU .bin format holds int32 values; name the format " +
                     (element == Element::float32 ? "bin-f32" : "bin-f64") + " for raw " + apsp::to_string(element) +
                     ", or write .npy or text");
  if (raw_real && element != (format_ == io::Format::bin_f32 ? Element::float32 : Element::float64))
    throw UsageError(std::string("cannot write the ") + apsp::to_string(element) + " " + what_ + " to " + path_ +
                     " as " + io::to_string(format_) + ", which holds " +
                     (format_ == io::Format::bin_f32 ? "float32" : "float64") + " values");
  if (text()) {
    io::detail::refuse_large_text(path_, columns);
    return 2 * cells;  // at least one digit and a separator per value
  }
  const std::uint64_t header =
      format_ == io::Format::npy ? io::detail::npy_header(rows, columns, npy_descr(element)).size() : 0;
  return header + cells * element_bytes(element);
}

std::string MatrixFileWriter::described(std::int64_t rows, std::int64_t columns) const {
  const std::string sized = "the " + std::to_string(rows) + " x " + std::to_string(columns) + " " + what_ + " in " +
                            path_;
  return text() ? sized + " (at least)" : sized;
}

void MatrixFileWriter::put(std::int64_t first_row, std::int64_t rows, std::int64_t stride, const void* data) {
  if (!file_) throw UsageError("cannot write rows to " + path_ + ": the file was not begun or is already finished");
  if (rows <= 0) return;
  if (text())
    put_text(first_row, rows, stride, data);
  else
    put_binary(first_row, rows, stride, data);
}

void MatrixFileWriter::put_binary(std::int64_t first_row, std::int64_t rows, std::int64_t stride, const void* data) {
  const auto row_bytes = static_cast<std::uint64_t>(columns_) * element_bytes_;
  const auto* bytes = static_cast<const unsigned char*>(data);
  const std::uint64_t offset = header_bytes_ + static_cast<std::uint64_t>(first_row) * row_bytes;
  if (stride == columns_) {
    file_->write_at(offset, bytes, static_cast<std::size_t>(rows * row_bytes));
  } else {
    for (std::int64_t r = 0; r < rows; ++r)
      file_->write_at(offset + static_cast<std::uint64_t>(r) * row_bytes, bytes + r * stride * element_bytes_,
                      static_cast<std::size_t>(row_bytes));
  }
  bytes_written_ += static_cast<std::uint64_t>(rows) * row_bytes;
}

void MatrixFileWriter::put_text(std::int64_t first_row, std::int64_t rows, std::int64_t stride, const void* data) {
  // Row r of the block in the writer's element type.
  const auto* bytes = static_cast<const unsigned char*>(data);
  const auto append_rows = [&](std::string& text, std::int64_t first, std::int64_t count) {
    const unsigned char* at = bytes + static_cast<std::size_t>(first * stride) * element_bytes_;
    switch (element_) {
      case Element::int32:
        return io::detail::append_text_rows(text, reinterpret_cast<const std::int32_t*>(at), count, columns_, stride,
                                            shown_as_inf_);
      case Element::float32:
        return io::detail::append_text_rows(text, reinterpret_cast<const float*>(at), count, columns_, stride);
      case Element::float64:
        return io::detail::append_text_rows(text, reinterpret_cast<const double*>(at), count, columns_, stride);
      case Element::int16: {
        // Widened to int32 (kOutputInf16 to kInf), written as int32 rows are.
        const auto* cells = reinterpret_cast<const std::int16_t*>(at);
        std::vector<std::int32_t> wide(static_cast<std::size_t>(count * columns_));
        for (std::int64_t r = 0; r < count; ++r)
          for (std::int64_t c = 0; c < columns_; ++c) {
            const std::int16_t v = cells[r * stride + c];
            wide[static_cast<std::size_t>(r * columns_ + c)] = v == kOutputInf16 ? kInf : v;
          }
        return io::detail::append_text_rows(text, wide.data(), count, columns_, columns_, shown_as_inf_);
      }
    }
  };
  const std::int64_t pieces = (rows + kTextPieceRows - 1) / kTextPieceRows;
  std::vector<std::string> texts(static_cast<std::size_t>(pieces));
  // Inside a parallel region (a producer's worker thread) the blocks of the
  // other threads are what runs in parallel.
#pragma omp parallel for schedule(dynamic) if (pieces > 1 && !omp_in_parallel())
  for (std::int64_t piece = 0; piece < pieces; ++piece) {
    const std::int64_t first = piece * kTextPieceRows, count = std::min(kTextPieceRows, rows - first);
    std::string& text = texts[static_cast<std::size_t>(piece)];
    text.reserve(static_cast<std::size_t>(count * columns_ * 4));
    append_rows(text, first, count);
  }
  for (std::int64_t piece = 0; piece < pieces; ++piece) {
    const std::int64_t first = piece * kTextPieceRows;
    write_in_order(first_row + first, std::min(kTextPieceRows, rows - first),
                   std::move(texts[static_cast<std::size_t>(piece)]));
  }
}

void MatrixFileWriter::write_in_order(std::int64_t first_row, std::int64_t rows, std::string text) {
  std::lock_guard<std::mutex> lock(order_mutex_);
  pending_.emplace(first_row, Pending{rows, std::move(text)});
  // One writer at a time appends whatever is next; the others only format.
  for (auto next = pending_.begin(); next != pending_.end() && next->first == next_row_; next = pending_.begin()) {
    file_->write_at(append_at_, next->second.text.data(), next->second.text.size());
    append_at_ += next->second.text.size();
    bytes_written_ += next->second.text.size();
    next_row_ += next->second.rows;
    pending_.erase(next);
  }
}

void MatrixFileWriter::commit(io::detail::ReplacedFile* replaced) {
  if (comm_ != nullptr) {
    // Every rank's rows on disk first; then rank 0 names the file.
    agree(*comm_, [&] {
      if (!file_) throw UsageError("cannot finish " + path_ + ": the file was not begun or is already finished");
      file_->finish_writes();
    });
    agree(*comm_, [&] {
      if (comm_->rank() == 0) file_->close(replaced);
    });
    if (comm_->rank() != 0) file_->close();  // a joined file: nothing left but forgetting the name
    file_.reset();
    return;
  }
  if (!file_) throw UsageError("cannot finish " + path_ + ": the file was not begun or is already finished");
  if (text() && (next_row_ != rows_ || !pending_.empty()))
    throw Error("cannot finish " + path_ + ": rows from " + std::to_string(next_row_) + " on were never written");
  file_->close(replaced);
  file_.reset();
}

void MatrixFileWriter::discard() noexcept {
  if (file_) file_->discard();
  file_.reset();
}

}  // namespace apsp::io::detail
