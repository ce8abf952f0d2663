#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "apsp/comm.hpp"
#include "apsp/error.hpp"
#include "apsp/sinks.hpp"
#include "sink/rows.hpp"

#ifdef __GLIBC__  // defined by the C library's headers above
#include <malloc.h>
#endif

namespace apsp {

struct SparseSink::Kept {
  double distance;
  vertex_t column;
};

struct SparseSink::Block {
  std::int64_t first_row = 0;
  std::vector<std::int64_t> counts;  // kept entries of each row
  SparseDistances kept;              // column and the distances of the sink's element only
};

namespace {

// Bytes of blocks freed between two release_free_heap() calls in commit().
constexpr std::size_t kTrimBytes = std::size_t{8} << 20;

// Returns the heap's free pages to the system (glibc; elsewhere a no-op).
void release_free_heap() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

// Calls f with the vector of `s` that holds its element's distances.
template <class F>
void stored_values(SparseDistances& s, F&& f) {
  switch (s.element) {
    case Element::float32: f(s.float32_distance); break;
    case Element::float64: f(s.float64_distance); break;
    case Element::int32: f(s.int32_distance); break;
    case Element::int16: f(s.int16_distance); break;
  }
}

// Whether every kept distance is an int16 (integer distances only).
bool fit_int16(const std::vector<SparseSink::Kept>& kept) {
  return std::all_of(kept.begin(), kept.end(), [](const SparseSink::Kept& k) {
    return k.distance >= std::numeric_limits<std::int16_t>::min() &&
           k.distance <= std::numeric_limits<std::int16_t>::max();
  });
}

// The kept entries of one row of `columns` values of T, unreachable being
// `unreachable`, into `out` (cleared first), ordered by column.
template <class T>
void keep_row(const T* row, std::int64_t columns, T unreachable, const SparseKeep& keep,
              std::vector<SparseSink::Kept>& out) {
  out.clear();
  const double cutoff = keep.cutoff.value_or(INFINITY);
  for (std::int64_t c = 0; c < columns; ++c) {
    if (row[c] == unreachable) continue;
    const auto d = static_cast<double>(row[c]);
    if (d <= cutoff) out.push_back({d, static_cast<vertex_t>(c)});
  }
  if (keep.nearest > 0 && static_cast<std::int64_t>(out.size()) > keep.nearest) {
    const auto nearer = [](const SparseSink::Kept& a, const SparseSink::Kept& b) {
      return a.distance < b.distance || (a.distance == b.distance && a.column < b.column);
    };
    std::nth_element(out.begin(), out.begin() + keep.nearest, out.end(), nearer);
    out.resize(static_cast<std::size_t>(keep.nearest));
    std::sort(out.begin(), out.end(),
              [](const SparseSink::Kept& a, const SparseSink::Kept& b) { return a.column < b.column; });
  }
}

}  // namespace

SparseSink::SparseSink(SparseKeep keep) : keep_(keep) {
  if (keep_.cutoff && std::isnan(*keep_.cutoff)) throw UsageError("the cutoff is not a number", "cutoff");
  if (keep_.nearest < 0)
    throw UsageError("the count of nearest targets is negative: " + std::to_string(keep_.nearest), "nearest");
}

SparseSink::SparseSink(Communicator& comm, SparseKeep keep) : SparseSink(keep) { comm_ = &comm; }

SparseSink::~SparseSink() = default;

void SparseSink::begin(const SinkLayout& layout) {
  if (layout.predecessors)
    throw UsageError("a sparse result (a cutoff or the nearest targets) holds distances only, not predecessors",
                     "predecessors");
  layout_ = layout;
  ledger_ = std::make_unique<sink::RowLedger>(layout);
  blocks_.clear();
  wide_ = false;
  result_ = SparseDistances{};
  result_.element = layout.distance_element == Element::int16 ? Element::int32 : layout.distance_element;
}

void SparseSink::put(const RowBlock& block) {
  if (!ledger_) throw UsageError("a row block arrived before begin()");
  ledger_->record(block);
  if (block.rows == 0) return;
  const std::int64_t columns = layout_.column_count();
  std::vector<Kept> row_kept, kept;
  Block pruned;
  pruned.first_row = block.first_row;
  pruned.counts.resize(static_cast<std::size_t>(block.rows));
  for (std::int64_t r = 0; r < block.rows; ++r) {
    const std::size_t at = static_cast<std::size_t>(r * block.row_stride);
    switch (block.element) {
      case Element::int32:
        keep_row(static_cast<const std::int32_t*>(block.data) + at, columns, kInf, keep_, row_kept);
        break;
      case Element::float32:
        keep_row(static_cast<const float*>(block.data) + at, columns, INFINITY, keep_, row_kept);
        break;
      case Element::float64:
        keep_row(static_cast<const double*>(block.data) + at, columns, static_cast<double>(INFINITY), keep_, row_kept);
        break;
      case Element::int16:
        keep_row(static_cast<const std::int16_t*>(block.data) + at, columns, kOutputInf16, keep_, row_kept);
        break;
    }
    pruned.counts[static_cast<std::size_t>(r)] = static_cast<std::int64_t>(row_kept.size());
    kept.insert(kept.end(), row_kept.begin(), row_kept.end());
  }
  // Exactly the kept entries: no growth slack outlives the put. Integer
  // distances that fit int16 take 2 bytes (a cutoff below 32768 keeps only
  // such, unless negative weights reach below -32768).
  const bool integers = result_.element == Element::int32;
  const bool narrow = integers && fit_int16(kept);
  pruned.kept.element = narrow ? Element::int16 : result_.element;
  pruned.kept.column.resize(kept.size());
  for (std::size_t k = 0; k < kept.size(); ++k) pruned.kept.column[k] = kept[k].column;
  const auto store = [&](auto& values) {
    using V = typename std::decay_t<decltype(values)>::value_type;
    values.resize(kept.size());
    for (std::size_t k = 0; k < kept.size(); ++k) values[k] = static_cast<V>(kept[k].distance);
  };
  stored_values(pruned.kept, store);
  std::lock_guard<std::mutex> lock(mutex_);
  if (integers && !narrow) wide_ = true;
  blocks_.push_back(std::move(pruned));
}

void SparseSink::commit() {
  if (!ledger_) throw UsageError("commit() before begin()");
  if (comm_ == nullptr) {
    ledger_->require_complete();
  } else {
    sink::require_each_row_once(*comm_, *ledger_, layout_);
    // Integer distances are int16 when every rank's were.
    wide_ = comm_->all_reduce(std::int32_t{wide_ ? 1 : 0}, ReduceOp::max) != 0;
    gather_blocks();
    if (comm_->rank() != 0) {
      blocks_.clear();
      ledger_.reset();
      result_ = SparseDistances{};
      result_.element = layout_.distance_element == Element::int16 ? Element::int32 : layout_.distance_element;
      return;
    }
  }
  // The ledger proved every row arrived once: the blocks tile the rows.
  std::sort(blocks_.begin(), blocks_.end(), [](const Block& a, const Block& b) { return a.first_row < b.first_row; });
  result_.rows = layout_.row_count();
  result_.columns = layout_.column_count();
  // Integer distances are int16 when every block's were.
  if (result_.element == Element::int32 && !wide_) result_.element = Element::int16;
  result_.row_start.assign(static_cast<std::size_t>(result_.rows) + 1, 0);
  std::size_t total = 0;
  for (const Block& b : blocks_) total += b.kept.size();
  // Reserved, not touched: pages are committed as the blocks are copied and freed.
  result_.column.reserve(total);
  stored_values(result_, [&](auto& values) { values.reserve(total); });
  std::size_t freed = 0;
  for (Block& b : blocks_) {
    for (std::size_t r = 0; r < b.counts.size(); ++r) {
      const auto row = static_cast<std::size_t>(b.first_row) + r;
      result_.row_start[row + 1] = result_.row_start[row] + b.counts[r];
    }
    result_.column.insert(result_.column.end(), b.kept.column.begin(), b.kept.column.end());
    // The block's element's vector into the result's (int16 blocks widen
    // into an int32 result).
    stored_values(result_, [&](auto& to) {
      stored_values(b.kept, [&](const auto& from) { to.insert(to.end(), from.begin(), from.end()); });
    });
    freed += b.kept.column.capacity() * sizeof(vertex_t) + b.kept.int16_distance.capacity() * 2 +
             b.kept.int32_distance.capacity() * 4 + b.kept.float32_distance.capacity() * 4 +
             b.kept.float64_distance.capacity() * 8;
    b = Block{};
    // The blocks came from the heap, which keeps freed pages resident:
    // handed back as they go, the peak stays near one copy, not two.
    if (freed >= kTrimBytes) {
      release_free_heap();
      freed = 0;
    }
  }
  blocks_.clear();
  ledger_.reset();
}

void SparseSink::gather_blocks() {
  const int rank = comm_->rank();
  // Each rank's blocks in four arrays: per block first row, rows, kept
  // entries and element; every row's count; the columns; the distances' bytes.
  std::vector<std::int64_t> meta, counts;
  std::vector<vertex_t> columns;
  std::vector<std::uint8_t> bytes;
  const auto sizes_of = [&] {
    return std::vector<std::int64_t>{static_cast<std::int64_t>(meta.size()), static_cast<std::int64_t>(counts.size()),
                                     static_cast<std::int64_t>(columns.size()),
                                     static_cast<std::int64_t>(bytes.size())};
  };
  if (rank != 0) {
    for (Block& b : blocks_) {
      meta.insert(meta.end(), {b.first_row, static_cast<std::int64_t>(b.counts.size()),
                               static_cast<std::int64_t>(b.kept.size()), static_cast<std::int64_t>(b.kept.element)});
      counts.insert(counts.end(), b.counts.begin(), b.counts.end());
      columns.insert(columns.end(), b.kept.column.begin(), b.kept.column.end());
      stored_values(b.kept, [&](const auto& values) {
        const auto* from = reinterpret_cast<const std::uint8_t*>(values.data());
        bytes.insert(bytes.end(), from, from + values.size() * sizeof(values[0]));
      });
      b = Block{};
    }
    blocks_.clear();
  }
  // Rank 0 receives from each other rank in turn; a rank sends only to it.
  for (int from = 1; from < comm_->size(); ++from) {
    if (rank != 0 && rank != from) continue;
    std::vector<std::int64_t> sizes = sizes_of();
    if (rank == from) {
      comm_->send(sizes.data(), sizes.size(), 0);
      if (!meta.empty()) comm_->send(meta.data(), meta.size(), 0);
      if (!counts.empty()) comm_->send(counts.data(), counts.size(), 0);
      if (!columns.empty()) comm_->send(columns.data(), columns.size(), 0);
      if (!bytes.empty()) comm_->send(bytes.data(), bytes.size(), 0);
      continue;
    }
    comm_->receive(sizes.data(), sizes.size(), from);
    meta.resize(static_cast<std::size_t>(sizes[0]));
    counts.resize(static_cast<std::size_t>(sizes[1]));
    columns.resize(static_cast<std::size_t>(sizes[2]));
    bytes.resize(static_cast<std::size_t>(sizes[3]));
    if (!meta.empty()) comm_->receive(meta.data(), meta.size(), from);
    if (!counts.empty()) comm_->receive(counts.data(), counts.size(), from);
    if (!columns.empty()) comm_->receive(columns.data(), columns.size(), from);
    if (!bytes.empty()) comm_->receive(bytes.data(), bytes.size(), from);
    std::size_t count_at = 0, column_at = 0, byte_at = 0;
    for (std::size_t m = 0; m + 3 < meta.size(); m += 4) {
      Block b;
      b.first_row = meta[m];
      const auto rows = static_cast<std::size_t>(meta[m + 1]);
      const auto kept = static_cast<std::size_t>(meta[m + 2]);
      b.kept.element = static_cast<Element>(meta[m + 3]);
      b.counts.assign(counts.begin() + static_cast<std::ptrdiff_t>(count_at),
                      counts.begin() + static_cast<std::ptrdiff_t>(count_at + rows));
      count_at += rows;
      b.kept.column.assign(columns.begin() + static_cast<std::ptrdiff_t>(column_at),
                           columns.begin() + static_cast<std::ptrdiff_t>(column_at + kept));
      column_at += kept;
      stored_values(b.kept, [&](auto& values) {
        values.resize(kept);
        const std::size_t size = kept * sizeof(values[0]);
        if (size > 0) std::memcpy(values.data(), bytes.data() + byte_at, size);
        byte_at += size;
      });
      blocks_.push_back(std::move(b));
    }
  }
}

std::vector<double> SparseDistances::distances() const {
  std::vector<double> out(size());
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = distance(k);
  return out;
}

}  // namespace apsp
