#include "distributed/checks/row_collector.hpp"

#include <cstring>

namespace apsp::test {

void RowCollector::begin(const SinkLayout& l) {
  layout = l;
  ++begins;
}

void RowCollector::put(const RowBlock& block) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (begins != 1 && problem.empty()) problem = "put before begin";
  if ((block.element != Element::int32 || block.row_stride < layout.n || block.first_row < 0 ||
       block.first_row + block.rows > layout.n) &&
      problem.empty())
    problem = "bad block: rows " + std::to_string(block.first_row) + " + " + std::to_string(block.rows) + ", stride " +
              std::to_string(block.row_stride);
  auto& plane = block.plane == Plane::distances ? distances : predecessors;
  const auto* data = static_cast<const std::int32_t*>(block.data);
  for (std::int64_t r = 0; r < block.rows; ++r) {
    std::vector<std::int32_t> row(static_cast<std::size_t>(layout.n));
    if (layout.n > 0) std::memcpy(row.data(), data + r * block.row_stride, row.size() * sizeof(std::int32_t));
    if (!plane.emplace(block.first_row + r, std::move(row)).second && problem.empty())
      problem = "row " + std::to_string(block.first_row + r) + " given twice";
  }
}

}  // namespace apsp::test
