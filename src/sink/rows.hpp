// Private to the sinks: checking row blocks against a layout, and the ledger
// that proves every row of every announced plane arrived exactly once.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "apsp/sink.hpp"
#include "core/first_error.hpp"

namespace apsp::sink {

const char* to_string(Plane plane);

// The element type of `plane` under `layout`: the distance element, or int32
// for predecessors.
Element element_of(const SinkLayout& layout, Plane plane);

// Throws UsageError unless `block` fits `layout`: an announced plane, its
// element type, rows inside [0, n), a stride of at least n and data present.
void check_block(const SinkLayout& layout, const RowBlock& block);

// Which rows of each plane have arrived (a bit per row). Thread-safe.
class RowLedger {
 public:
  explicit RowLedger(const SinkLayout& layout);

  // check_block, then marks the rows; throws UsageError for a row that has
  // already arrived.
  void record(const RowBlock& block);
  // Throws Error naming the first row of an announced plane that never arrived.
  void require_complete() const;
  // Rows of `plane` recorded so far.
  std::int64_t rows(Plane plane) const { return count_[plane == Plane::distances ? 0 : 1].load(); }
  // 1 for each row of `plane` that arrived, 0 for the others (row_count()
  // values): what ranks sum to prove each row arrived on exactly one.
  std::vector<std::int32_t> arrivals(Plane plane) const;

 private:
  SinkLayout layout_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> arrived_[2];  // a bit per row, by Plane
  std::atomic<std::int64_t> count_[2] = {{0}, {0}};
};

// Rows per block for a producer that stages rows in a buffer of its own
// before put(): about 1 MiB of `row_bytes`-byte rows, at most 64 rows, and
// small enough that `threads` threads get about four blocks each.
std::int64_t staging_rows(std::int64_t n, std::size_t row_bytes, int threads);

// Calls put(first_row, rows) for blocks of about 1 MiB of `row_bytes`-byte
// rows covering [0, n), from several threads (outside a parallel region);
// the first exception stops the others and is rethrown.
template <class Put>
void put_in_blocks(std::int64_t n, std::size_t row_bytes, Put put) {
  if (n <= 0) return;
  const std::int64_t block = staging_rows(n, row_bytes, omp_get_max_threads());
  const std::int64_t blocks = (n + block - 1) / block;
  FirstError errors;
#pragma omp parallel for schedule(dynamic) if (blocks > 1 && !omp_in_parallel())
  for (std::int64_t b = 0; b < blocks; ++b) {
    if (errors.stopped()) continue;
    errors.run([&] { put(b * block, std::min(block, n - b * block)); });
  }
  errors.rethrow();
}

}  // namespace apsp::sink
