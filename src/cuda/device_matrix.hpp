// Host launchers that build the padded dense matrix on the device from an
// edge list (kernels/common/matrix_build.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "apsp/graph.hpp"

namespace apsp::cuda {

// dist = 0 on the diagonal, kInf elsewhere; pred = -1 (when not null). n_pad x n_pad.
void launch_init_matrix(dist_t* dist, vertex_t* pred, std::int64_t n_pad, cudaStream_t stream);
// dist[src][dst] = w and pred[src][dst] = src for each of `count` device-resident edges.
void launch_scatter_edges(dist_t* dist, vertex_t* pred, std::int64_t n_pad, const Edge* edges, std::int64_t count,
                          cudaStream_t stream);

}  // namespace apsp::cuda
