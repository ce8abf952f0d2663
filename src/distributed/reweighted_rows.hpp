// Private to src/distributed: the host side of the GPU engine's output, in a .cpp
// so that it runs on the rank's OpenMP threads (predecessors included). Integer values are
// Johnson-reweighted int32 distances d' with kInf for unreachable; the real
// distance is d' - h[i] + h[j] (h empty: no reweighting). float32 values are
// the distances themselves (+inf unreachable).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apsp/graph.hpp"
#include "distributed/grid.hpp"
#include "distributed/output.hpp"

namespace apsp::dist {

// count values of a downloaded part (S = int16 or int32, `infinity` its
// unreachable value and everything above it) into int32 with kInf, on this
// rank's OpenMP threads: the copy out of the pinned staging buffer.
template <class S>
void widen_part(const S* from, std::size_t count, S infinity, std::int32_t* to);

// Rows [first, first + rows) of a gathered tile row as n-wide int32 rows,
// checked on the way: returns the first problem found (empty when none), a
// finite value in [kInf - max_weight, kInf) (the one-GPU certificate cannot
// prove it exact) or a real distance outside the int32 output. Every value
// of the result is converted exactly once on some rank, so the check covers
// the whole matrix.
std::string reweighted_parts_to_rows(const TileRowParts<std::int32_t>& parts, const ProcessGrid& grid, std::int64_t b,
                                     std::int64_t n, std::int64_t first, std::int64_t rows,
                                     const std::vector<std::int64_t>& h, weight_t max_weight, dist_t* dist);

// Rows [first, first + rows) of a gathered float32 or float64 (T) tile row
// as n-wide rows: the values as computed (+inf unreachable), the diagonal 0
// (rounding may leave it a little below; negative_diagonal refused anything
// beyond the tolerance), on this rank's OpenMP threads.
template <class T>
void real_parts_to_rows(const TileRowParts<T>& parts, const ProcessGrid& grid, std::int64_t b, std::int64_t n,
                        std::int64_t first, std::int64_t rows, T* dist);

// pred rows [first, first + rows) (n-wide) from their real distances (dist,
// n-wide): row x is the breadth-first tree over the tight out-edges of
// `out_edges` (the normalized graph's CSR) from source first + x
// (core::tight_predecessor_row; `slack`: real weights' tolerance), on this
// rank's OpenMP threads. W = int32, float or double.
template <class W>
void tight_edge_predecessor_rows(const BasicCsr<W>& out_edges, std::int64_t n, std::int64_t first, std::int64_t rows,
                                 const W* dist, vertex_t* pred, double slack = 0);

}  // namespace apsp::dist
