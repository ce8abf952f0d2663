#include "distributed/reweighted_rows.hpp"

#include <algorithm>
#include <string>

#include "core/tight_edges.hpp"

namespace apsp::dist {

template <class S>
void widen_part(const S* from, std::size_t count, S infinity, std::int32_t* to) {
  const auto n = static_cast<std::int64_t>(count);
#pragma omp parallel for schedule(static)
  for (std::int64_t x = 0; x < n; ++x) to[x] = from[x] >= infinity ? kInf : std::int32_t{from[x]};
}

template void widen_part<std::int16_t>(const std::int16_t*, std::size_t, std::int16_t, std::int32_t*);
template void widen_part<std::int32_t>(const std::int32_t*, std::size_t, std::int32_t, std::int32_t*);

namespace {

// The problem with value v of row i, column j (v < kInf), or empty. With
// non-negative weights a true distance >= kInf would leave a prefix of its
// path in [kInf - max_weight, kInf): none there proves every finite entry
// exact and every kInf entry unreachable.
std::string range_problem(std::int32_t v, std::int64_t i, std::int64_t j, const std::vector<std::int64_t>& h,
                          weight_t max_weight) {
  if (std::int64_t{v} >= std::int64_t{kInf} - max_weight)
    return "a shortest-path distance may reach " + std::to_string(v) +
           ", beyond the GPU's int32 range; use --backend cpu";
  if (h.empty()) return {};
  const std::int64_t d = std::int64_t{v} - h[static_cast<std::size_t>(i)] + h[static_cast<std::size_t>(j)];
  if (d >= kInf || d <= -kInf)
    return "distance " + std::to_string(i) + "->" + std::to_string(j) + " = " + std::to_string(d) +
           " does not fit the int32 output";
  return {};
}

}  // namespace

std::string reweighted_parts_to_rows(const TileRowParts<std::int32_t>& parts, const ProcessGrid& grid, std::int64_t b,
                                     std::int64_t n, std::int64_t first, std::int64_t rows,
                                     const std::vector<std::int64_t>& h, weight_t max_weight, dist_t* dist) {
  const int pc = grid.cols;
  const std::int64_t limit = std::int64_t{kInf} - max_weight;  // finite values at or above it are not certified
  std::string problem;
#pragma omp parallel for schedule(static)
  for (std::int64_t x = 0; x < rows; ++x) {
    const std::int64_t i = first + x;
    const std::int64_t hi = h.empty() ? 0 : h[static_cast<std::size_t>(i)];
    // Row x of tile column J: in part J mod pc, at its (J / pc)-th tile.
    const auto tile_of = [&](std::int64_t J) {
      const std::size_t c = static_cast<std::size_t>(J % pc);
      return parts.values(c) + x * (static_cast<std::int64_t>(parts.d[c].size()) / b) + (J / pc) * b;
    };
    int bad = 0;
    // Branch-free inner loops over one tile's columns, so that they vectorize.
    for (std::int64_t J = 0; J * b < n; ++J) {
      const std::int32_t* from = tile_of(J);
      const std::int64_t j0 = J * b, count = std::min(b, n - j0);
      dist_t* to = dist + x * n + j0;
      if (h.empty()) {
        for (std::int64_t y = 0; y < count; ++y) {
          const std::int32_t v = from[y];
          bad |= (v < kInf) & (std::int64_t{v} >= limit);
          to[y] = v >= kInf ? kInf : v;
        }
      } else {
        const std::int64_t* hj = h.data() + j0;
        for (std::int64_t y = 0; y < count; ++y) {
          const std::int32_t v = from[y];
          const std::int64_t d = std::int64_t{v} - hi + hj[y];
          bad |= (v < kInf) & ((std::int64_t{v} >= limit) | (d >= kInf) | (d <= -kInf));
          to[y] = v >= kInf ? kInf : static_cast<dist_t>(d);
        }
      }
    }
    if (!bad) continue;
    // Rare: find the first offending column of the row for the message.
    std::string found;
    for (std::int64_t J = 0; J * b < n && found.empty(); ++J) {
      const std::int32_t* from = tile_of(J);
      for (std::int64_t y = 0; y < std::min(b, n - J * b) && found.empty(); ++y)
        if (from[y] < kInf) found = range_problem(from[y], i, J * b + y, h, max_weight);
    }
#pragma omp critical(apsp_dist_reweighted_range)
    if (problem.empty()) problem = found;
  }
  return problem;
}

template <class T>
void real_parts_to_rows(const TileRowParts<T>& parts, const ProcessGrid& grid, std::int64_t b, std::int64_t n,
                        std::int64_t first, std::int64_t rows, T* dist) {
  const int pc = grid.cols;
#pragma omp parallel for schedule(static)
  for (std::int64_t x = 0; x < rows; ++x) {
    // Row x of tile column J: in part J mod pc, at its (J / pc)-th tile.
    for (std::int64_t J = 0; J * b < n; ++J) {
      const std::size_t c = static_cast<std::size_t>(J % pc);
      const T* from = parts.values(c) + x * (static_cast<std::int64_t>(parts.d[c].size()) / b) + (J / pc) * b;
      const std::int64_t j0 = J * b, count = std::min(b, n - j0);
      std::copy(from, from + count, dist + x * n + j0);
    }
    dist[x * n + first + x] = 0;
  }
}

template <class W>
void tight_edge_predecessor_rows(const BasicCsr<W>& out_edges, std::int64_t n, std::int64_t first, std::int64_t rows,
                                 const W* dist, vertex_t* pred, double slack) {
#pragma omp parallel
  {
    core::TightEdgeSearch search(n);
#pragma omp for schedule(dynamic, 4)
    for (std::int64_t x = 0; x < rows; ++x)
      core::tight_predecessor_row(out_edges, dist + x * n, static_cast<vertex_t>(first + x), pred + x * n, search,
                                  slack);
  }
}

template void tight_edge_predecessor_rows<weight_t>(const Csr&, std::int64_t, std::int64_t, std::int64_t,
                                                    const weight_t*, vertex_t*, double);
template void real_parts_to_rows<float>(const TileRowParts<float>&, const ProcessGrid&, std::int64_t, std::int64_t,
                                        std::int64_t, std::int64_t, float*);
template void real_parts_to_rows<double>(const TileRowParts<double>&, const ProcessGrid&, std::int64_t, std::int64_t,
                                         std::int64_t, std::int64_t, double*);
template void tight_edge_predecessor_rows<double>(const CsrF64&, std::int64_t, std::int64_t, std::int64_t,
                                                  const double*, vertex_t*, double);
template void tight_edge_predecessor_rows<float>(const CsrF32&, std::int64_t, std::int64_t, std::int64_t, const float*,
                                                 vertex_t*, double);

}  // namespace apsp::dist
