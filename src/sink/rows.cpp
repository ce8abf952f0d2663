#include "sink/rows.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "apsp/comm.hpp"
#include "apsp/error.hpp"

namespace apsp {

namespace sink {

const char* to_string(Plane plane) { return plane == Plane::distances ? "distances" : "predecessors"; }

void require_each_row_once(Communicator& comm, const RowLedger& ledger, const SinkLayout& layout) {
  for (const Plane plane : {Plane::distances, Plane::predecessors}) {
    if (plane == Plane::predecessors && !layout.predecessors) continue;
    const std::vector<std::int32_t> mine = ledger.arrivals(plane);
    std::vector<std::int32_t> all(mine.size(), 0);
    comm.all_reduce(mine.data(), all.data(), mine.size(), ReduceOp::sum);
    agree(comm, [&] {
      std::int64_t delivered = 0;
      for (const std::int32_t times : all) delivered += times;
      const auto wrong = std::find_if(all.begin(), all.end(), [](std::int32_t times) { return times != 1; });
      if (wrong != all.end())
        throw Error("the ranks delivered " + std::to_string(delivered) + " rows of the " + to_string(plane) +
                    " for a matrix of " + std::to_string(layout.n) + ": row " + std::to_string(wrong - all.begin()) +
                    " arrived " + std::to_string(*wrong) + " times");
    });
  }
}

Element element_of(const SinkLayout& layout, Plane plane) {
  return plane == Plane::distances ? layout.distance_element : Element::int32;
}

void check_block(const SinkLayout& layout, const RowBlock& b) {
  const std::string what = std::string("row block of the ") + to_string(b.plane);
  if (b.plane == Plane::predecessors && !layout.predecessors)
    throw UsageError(what + ": the sink was not told that predecessors come");
  if (b.element != element_of(layout, b.plane))
    throw UsageError(what + " holds " + apsp::to_string(b.element) + ", the sink expects " +
                     apsp::to_string(element_of(layout, b.plane)));
  if (b.first_row < 0 || b.rows < 0 || b.first_row > layout.row_count() - b.rows)
    throw UsageError(what + ": rows [" + std::to_string(b.first_row) + ", " + std::to_string(b.first_row + b.rows) +
                     ") are outside the " + std::to_string(layout.row_count()) + " rows");
  if (b.rows > 0 && (b.row_stride < layout.column_count() || b.data == nullptr))
    throw UsageError(what + ": stride " + std::to_string(b.row_stride) + " for rows of " +
                     std::to_string(layout.column_count()) + (b.data == nullptr ? " values and no data" : " values"));
}

RowLedger::RowLedger(const SinkLayout& layout) : layout_(layout) {
  const auto words = static_cast<std::size_t>(std::max<std::int64_t>(0, layout.row_count()) + 63) / 64;
  arrived_[0].reset(new std::atomic<std::uint64_t>[words]());
  if (layout.predecessors) arrived_[1].reset(new std::atomic<std::uint64_t>[words]());
}

void RowLedger::record(const RowBlock& block) {
  check_block(layout_, block);
  mark(block.plane, block.first_row, block.rows);
}

void RowLedger::mark(Plane plane, std::int64_t first_row, std::int64_t rows) {
  const int p = plane == Plane::distances ? 0 : 1;
  for (std::int64_t r = first_row; r < first_row + rows; ++r) {
    const std::uint64_t bit = std::uint64_t{1} << (r % 64);
    if (arrived_[p][r / 64].fetch_or(bit) & bit)
      throw UsageError("row " + std::to_string(r) + " of the " + to_string(plane) + " arrived twice");
  }
  count_[p] += rows;
}

void RowLedger::require_complete() const {
  for (const Plane plane : {Plane::distances, Plane::predecessors}) {
    const int p = plane == Plane::distances ? 0 : 1;
    const std::int64_t rows = layout_.row_count();
    if (!arrived_[p] || count_[p].load() == rows) continue;
    std::int64_t missing = 0;
    while (missing < rows && (arrived_[p][missing / 64].load() >> (missing % 64) & 1) != 0) ++missing;
    throw Error("the solver delivered " + std::to_string(count_[p].load()) + " of the " + std::to_string(rows) +
                " rows of the " + to_string(plane) + " (row " + std::to_string(missing) + " never arrived)");
  }
}

std::vector<std::int32_t> RowLedger::arrivals(Plane plane) const {
  const int p = plane == Plane::distances ? 0 : 1;
  std::vector<std::int32_t> arrived(static_cast<std::size_t>(std::max<std::int64_t>(0, layout_.row_count())), 0);
  if (!arrived_[p]) return arrived;
  for (std::size_t r = 0; r < arrived.size(); ++r)
    arrived[r] = static_cast<std::int32_t>(arrived_[p][r / 64].load() >> (r % 64) & 1);
  return arrived;
}

namespace {
std::atomic<bool> g_fail_between_renames{false};
}  // namespace

void fail_between_renames_for_testing(bool fail) { g_fail_between_renames = fail; }
bool failing_between_renames() { return g_fail_between_renames.load(); }

}  // namespace sink
}  // namespace apsp
