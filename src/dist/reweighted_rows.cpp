#include "dist/reweighted_rows.hpp"

#include <string>

#include "apsp/error.hpp"
#include "core/tight_edges.hpp"

namespace apsp::dist {

void check_reweighted_part(const std::int32_t* part, const ProcessGrid& grid, std::int64_t b, std::int64_t n,
                           std::int64_t first, std::int64_t rows, weight_t max_weight,
                           const std::vector<std::int64_t>& h) {
  const std::int64_t width = grid.local_cols() * b;
  std::string problem;
#pragma omp parallel for schedule(static)
  for (std::int64_t x = 0; x < rows; ++x) {
    const std::int64_t i = first + x;
    for (std::int64_t c = 0; c < width; ++c) {
      const std::int64_t j = grid.global_col(c / b) * b + c % b;
      const std::int32_t v = part[x * width + c];
      if (j >= n || v >= kInf) continue;
      std::string found;
      // With non-negative weights a true distance >= kInf would leave a
      // prefix of its path in [kInf - max_weight, kInf): none there proves
      // every finite entry exact and every kInf entry unreachable.
      if (v >= kInf - max_weight) {
        found = "a shortest-path distance may reach " + std::to_string(v) +
                ", beyond the GPU's int32 range; use --backend cpu";
      } else if (!h.empty()) {
        const std::int64_t d = std::int64_t{v} - h[static_cast<std::size_t>(i)] + h[static_cast<std::size_t>(j)];
        if (d >= kInf || d <= -kInf)
          found = "distance " + std::to_string(i) + "->" + std::to_string(j) + " = " + std::to_string(d) +
                  " does not fit the int32 output";
      }
      if (found.empty()) continue;
#pragma omp critical(apsp_dist_reweighted_range)
      if (problem.empty()) problem = found;
    }
  }
  if (!problem.empty()) throw OverflowError(problem);
}

void reweighted_parts_to_rows(const TileRowParts<std::int32_t>& parts, const ProcessGrid& grid, std::int64_t b,
                              std::int64_t n, std::int64_t first, std::int64_t rows,
                              const std::vector<std::int64_t>& h, dist_t* dist) {
  const int pc = grid.cols;
#pragma omp parallel for schedule(static)
  for (std::int64_t x = 0; x < rows; ++x) {
    const std::int64_t i = first + x;
    for (std::int64_t J = 0; J < grid.tiles; ++J) {
      const std::vector<std::int32_t>& part = parts.d[static_cast<std::size_t>(J % pc)];
      const std::int64_t width = static_cast<std::int64_t>(part.size()) / b;
      const std::int64_t at = x * width + (J / pc) * b;
      for (std::int64_t y = 0; y < b && J * b + y < n; ++y) {
        const std::int64_t j = J * b + y;
        const std::int32_t v = part[static_cast<std::size_t>(at + y)];
        dist[x * n + j] = v >= kInf   ? kInf
                          : h.empty() ? v
                                      : static_cast<dist_t>(std::int64_t{v} - h[static_cast<std::size_t>(i)] +
                                                            h[static_cast<std::size_t>(j)]);
      }
    }
  }
}

void tight_edge_predecessor_rows(const Csr& out_edges, std::int64_t n, std::int64_t first, std::int64_t rows,
                                 const dist_t* dist, vertex_t* pred) {
#pragma omp parallel
  {
    core::TightEdgeSearch search(n);
#pragma omp for schedule(dynamic, 4)
    for (std::int64_t x = 0; x < rows; ++x)
      core::tight_predecessor_row(out_edges, dist + x * n, static_cast<vertex_t>(first + x), pred + x * n, search);
  }
}

}  // namespace apsp::dist
