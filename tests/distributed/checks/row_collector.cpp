#include "distributed/checks/row_collector.hpp"

#include <string>
#include <utility>

namespace apsp::test {

void RowCollector::begin(const SinkLayout& l) {
  layout = l;
  ++begins;
}

void RowCollector::put(const RowBlock& block) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (begins != 1 && problem.empty()) problem = "put before begin";
  const Element expected = block.plane == Plane::distances ? layout.distance_element : Element::int32;
  if ((block.element != expected || block.row_stride < layout.n || block.first_row < 0 ||
       block.first_row + block.rows > layout.n) &&
      problem.empty())
    problem = "bad block: rows " + std::to_string(block.first_row) + " + " + std::to_string(block.rows) + ", stride " +
              std::to_string(block.row_stride) + ", " + to_string(block.element);
  const auto n = static_cast<std::size_t>(layout.n);
  for (std::int64_t r = 0; r < block.rows; ++r) {
    bool added = false;
    if (block.element == Element::int32) {
      const auto* data = static_cast<const std::int32_t*>(block.data) + r * block.row_stride;
      auto& plane = block.plane == Plane::distances ? distances : predecessors;
      added = plane.emplace(block.first_row + r, std::vector<std::int32_t>(data, data + n)).second;
    } else if (block.element == Element::float32) {
      const auto* data = static_cast<const float*>(block.data) + r * block.row_stride;
      added = real_distances.emplace(block.first_row + r, std::vector<double>(data, data + n)).second;
    } else {
      const auto* data = static_cast<const double*>(block.data) + r * block.row_stride;
      added = real_distances.emplace(block.first_row + r, std::vector<double>(data, data + n)).second;
    }
    if (!added && problem.empty()) problem = "row " + std::to_string(block.first_row + r) + " given twice";
  }
}

}  // namespace apsp::test
