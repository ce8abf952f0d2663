// Private to the sinks: checking row blocks against a layout, and the ledger
// that proves every row of every announced plane arrived exactly once.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "apsp/sink.hpp"

namespace apsp {
class Communicator;
}

namespace apsp::sink {

const char* to_string(Plane plane);

// The element type of `plane` under `layout`: the distance element, or int32
// for predecessors.
Element element_of(const SinkLayout& layout, Plane plane);

// Throws UsageError unless `block` fits `layout`: an announced plane, its
// element type, rows inside [0, row_count()), a stride of at least
// column_count() and data present.
void check_block(const SinkLayout& layout, const RowBlock& block);

// Which rows of each plane have arrived (a bit per row). Thread-safe.
class RowLedger {
 public:
  explicit RowLedger(const SinkLayout& layout);

  // check_block, then marks the rows; throws UsageError for a row that has
  // already arrived.
  void record(const RowBlock& block);
  // Marks rows [first_row, first_row + rows) of `plane` as arrived without
  // data (rows a resumed output already holds); the same repeat check.
  void mark(Plane plane, std::int64_t first_row, std::int64_t rows);
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

// Collective: each rank's ledger refused its own repeats; summed over the
// ranks of `comm`, every row of every announced plane must have arrived
// exactly once (a count of n rows would hide a row delivered by two ranks
// and another by none). An agreed Error naming the first row that did not.
void require_each_row_once(Communicator& comm, const RowLedger& ledger, const SinkLayout& layout);

// Test hook: true makes FileSink::commit fail after it renamed the
// predecessors and before it renames the distances, as a failed rename would.
void fail_between_renames_for_testing(bool fail);
bool failing_between_renames();

}  // namespace apsp::sink
