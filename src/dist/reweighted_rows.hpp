// Private to src/dist: the host side of the GPU engine's output, in a .cpp
// so that it runs on the rank's OpenMP threads (predecessors included). Values are Johnson-reweighted
// int32 distances d' with kInf for unreachable; the real distance is
// d' - h[i] + h[j] (h empty: no reweighting).
#pragma once

#include <cstdint>
#include <vector>

#include "apsp/graph.hpp"
#include "dist/grid.hpp"
#include "dist/output.hpp"

namespace apsp::dist {

// Rows [first, first + rows) of this rank's part of a tile row (b x C*b,
// row-major): throws OverflowError when a finite value lies in
// [kInf - max_weight, kInf) (the one-GPU certificate cannot prove it) or its
// real distance does not fit the int32 output.
void check_reweighted_part(const std::int32_t* part, const ProcessGrid& grid, std::int64_t b, std::int64_t n,
                           std::int64_t first, std::int64_t rows, weight_t max_weight,
                           const std::vector<std::int64_t>& h);

// Rows [first, first + rows) of a gathered tile row as n-wide int32 rows.
void reweighted_parts_to_rows(const TileRowParts<std::int32_t>& parts, const ProcessGrid& grid, std::int64_t b,
                              std::int64_t n, std::int64_t first, std::int64_t rows,
                              const std::vector<std::int64_t>& h, dist_t* dist);

// pred rows [first, first + rows) (n-wide) from their real distances (dist,
// n-wide): row x is the breadth-first tree over the tight out-edges of
// `out_edges` (the normalized graph's CSR) from source first + x
// (core::tight_predecessor_row), on this rank's OpenMP threads.
void tight_edge_predecessor_rows(const Csr& out_edges, std::int64_t n, std::int64_t first, std::int64_t rows,
                                 const dist_t* dist, vertex_t* pred);

}  // namespace apsp::dist
