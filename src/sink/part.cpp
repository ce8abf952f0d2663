#include "sink/part.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "apsp/error.hpp"
#include "sink/rows.hpp"

namespace apsp::sink {
namespace {

// Copies the values at `columns` (all of them when empty) of one row of
// `bytes`-sized elements.
void gather_row(const unsigned char* row, std::size_t bytes, const std::vector<vertex_t>& columns, std::int64_t width,
                unsigned char* out) {
  if (columns.empty()) {
    std::memcpy(out, row, static_cast<std::size_t>(width) * bytes);
    return;
  }
  if (bytes == 4) {
    const auto* in = reinterpret_cast<const std::uint32_t*>(row);
    auto* to = reinterpret_cast<std::uint32_t*>(out);
    for (std::size_t c = 0; c < columns.size(); ++c) to[c] = in[columns[c]];
  } else {
    const auto* in = reinterpret_cast<const std::uint64_t*>(row);
    auto* to = reinterpret_cast<std::uint64_t*>(out);
    for (std::size_t c = 0; c < columns.size(); ++c) to[c] = in[columns[c]];
  }
}

}  // namespace

PartSink::PartSink(Sink& inner, std::vector<std::int64_t> rows_from, std::vector<vertex_t> columns,
                   std::vector<vertex_t> vertex_names)
    : inner_(inner),
      rows_from_(std::move(rows_from)),
      columns_(std::move(columns)),
      vertex_names_(std::move(vertex_names)) {}

void PartSink::begin(const SinkLayout& layout) {
  // Kept rows are rows of the whole matrix, and the solve key the producer
  // would give names its own rows and columns, not the part's.
  if (inner_.keeps_partial())
    throw UsageError("partial rows are kept for the whole n x n matrix only, not a part of chosen sources or targets",
                     "checkpoint");
  inner_.begin(begin_producer(layout));
}

SinkLayout PartSink::begin_producer(const SinkLayout& layout) {
  producer_ = layout;
  const std::int64_t producer_rows = layout.row_count();
  for (std::size_t i = 0; i < rows_from_.size(); ++i)
    if (rows_from_[i] < 0 || rows_from_[i] >= producer_rows)
      throw UsageError("output row " + std::to_string(i) + " copies row " + std::to_string(rows_from_[i]) +
                       " of a result of " + std::to_string(producer_rows) + " rows");
  for (std::size_t c = 0; c < columns_.size(); ++c)
    if (columns_[c] < 0 || columns_[c] >= layout.column_count())
      throw UsageError("target " + std::to_string(columns_[c]) + " (entry " + std::to_string(c) +
                           ") is outside the graph's vertices 0.." + std::to_string(layout.n - 1),
                       "targets");
  first_output_.clear();
  output_rows_.clear();
  if (!rows_from_.empty()) {
    // Counting sort of the output rows by the producer row they copy.
    first_output_.assign(static_cast<std::size_t>(producer_rows) + 1, 0);
    for (const std::int64_t p : rows_from_) ++first_output_[static_cast<std::size_t>(p) + 1];
    for (std::size_t p = 0; p < static_cast<std::size_t>(producer_rows); ++p) first_output_[p + 1] += first_output_[p];
    output_rows_.resize(rows_from_.size());
    std::vector<std::int64_t> next(first_output_.begin(), first_output_.end() - 1);
    for (std::size_t o = 0; o < rows_from_.size(); ++o)
      output_rows_[static_cast<std::size_t>(next[static_cast<std::size_t>(rows_from_[o])]++)] =
          static_cast<std::int64_t>(o);
  }
  SinkLayout part = layout;
  part.rows = rows_from_.empty() ? layout.rows : static_cast<std::int64_t>(rows_from_.size());
  part.columns = columns_.empty() ? layout.columns : static_cast<std::int64_t>(columns_.size());
  return part;
}

void PartSink::put(const RowBlock& block) {
  check_block(producer_, block);
  if (block.rows == 0) return;
  const std::size_t bytes = element_bytes(block.element);
  const std::int64_t width = columns_.empty() ? producer_.column_count() : static_cast<std::int64_t>(columns_.size());
  const auto* in = static_cast<const unsigned char*>(block.data);
  const auto row_in = [&](std::int64_t r) { return in + static_cast<std::size_t>(r * block.row_stride) * bytes; };
  const bool rename = block.plane == Plane::predecessors && !vertex_names_.empty();
  // Predecessors of a renumbered graph get the caller's vertex names back.
  const auto renamed = [&](unsigned char* row) {
    if (!rename) return;
    auto* pred = reinterpret_cast<vertex_t*>(row);
    for (std::int64_t c = 0; c < width; ++c)
      if (pred[c] >= 0) pred[c] = vertex_names_[static_cast<std::size_t>(pred[c])];
  };
  if (rows_from_.empty()) {
    if (columns_.empty() && !rename) return inner_.put(block);
    std::vector<unsigned char> staged(static_cast<std::size_t>(block.rows * width) * bytes);
    for (std::int64_t r = 0; r < block.rows; ++r) {
      unsigned char* row = staged.data() + static_cast<std::size_t>(r * width) * bytes;
      gather_row(row_in(r), bytes, columns_, width, row);
      renamed(row);
    }
    inner_.put(RowBlock{block.plane, block.element, block.first_row, block.rows, width, staged.data()});
    return;
  }
  // Each producer row goes to every output row that copies it (sources may repeat).
  std::vector<unsigned char> staged(static_cast<std::size_t>(width) * bytes);
  for (std::int64_t r = 0; r < block.rows; ++r) {
    const auto p = static_cast<std::size_t>(block.first_row + r);
    const std::int64_t first = first_output_[p], last = first_output_[p + 1];
    if (first == last) continue;
    gather_row(row_in(r), bytes, columns_, width, staged.data());
    renamed(staged.data());
    for (std::int64_t o = first; o < last; ++o)
      inner_.put(
          RowBlock{block.plane, block.element, output_rows_[static_cast<std::size_t>(o)], 1, width, staged.data()});
  }
}

void PartSink::commit() { inner_.commit(); }

void PartSink::discard() noexcept { inner_.discard(); }

}  // namespace apsp::sink
