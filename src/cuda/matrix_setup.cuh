// Host launchers for building and inspecting the device matrix.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "apsp/graph.hpp"

namespace apsp::cuda {

void launch_init_matrix(dist_t* dist, vertex_t* pred, std::int64_t n_pad, cudaStream_t stream);
void launch_scatter_edges(dist_t* dist, vertex_t* pred, std::int64_t n_pad, const Edge* edges, std::int64_t count,
                          cudaStream_t stream);
// Largest entry below kInf in the top-left n x n block (INT_MIN if none). Synchronizes the stream.
int max_finite_entry(const dist_t* dist, std::int64_t n, std::int64_t n_pad, cudaStream_t stream);
// The same with another infinity, for int32 and int16 matrices.
int max_finite_entry(const std::int32_t* dist, std::int64_t n, std::int64_t n_pad, int infinity, cudaStream_t stream);
int max_finite_entry(const std::int16_t* dist, std::int64_t n, std::int64_t n_pad, int infinity, cudaStream_t stream);

// Sources whose predecessor row is not a tree rooted at the source (a chain
// that loops, which ties on zero-weight cycles can cause in blocked
// algorithms). Synchronizes the stream.
std::vector<std::int64_t> rows_with_broken_predecessors(const vertex_t* pred, std::int64_t n, std::int64_t n_pad,
                                                         cudaStream_t stream);

// A grid size for grid-stride loops over `work` items.
int grid_for(std::int64_t work, int threads);

}  // namespace apsp::cuda
