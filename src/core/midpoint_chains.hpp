// Predecessors from a Floyd-Warshall midpoint matrix, on the host: what the
// GPU's predecessor mode records (kernels/dense/tagged_predecessors.cuh) and
// out-of-core fw streams back to host memory (src/cuda/out_of_core_solver.cpp).
#pragma once

#include <cstdint>

namespace apsp::core {

// mid and dist are order x order (row-major, leading dimension order >= n);
// only their n x n block is read. mid[i][j] is the last pivot k that
// improved d[i][j] (0 <= k < n), or -1 when the entry is the edge i -> j's
// own; dist[i][j] is a distance or `infinity`. Rewrites mid's n x n block as
// predecessors in place: -1 where i == j or dist[i][j] >= infinity, else the
// row r that ends the chain i -> mid[i][j] -> mid[..][j] -> ... (the first
// whose midpoint is -1, so the edge r -> j ends the path): the result of the
// in-core solver's pointer jumping (jump_links, links_to_pred). The chains
// of one column never leave it: each OpenMP thread takes strips of 16
// columns (one 64-byte line of each row) and follows each chain once.
// Throws Error naming a row and column when a midpoint is no vertex or the
// midpoints of a column form a cycle (rounds that went wrong).
void midpoints_to_predecessors(std::int32_t* mid, const std::int32_t* dist, std::int64_t n, std::int64_t order,
                               std::int32_t infinity);

}  // namespace apsp::core
