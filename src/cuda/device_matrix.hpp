// Host launchers that build the padded dense matrix on the device from an
// edge list (kernels/common/matrix_build.cuh), for D = int32 (kInf), float
// and double (+infinity).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "apsp/graph.hpp"

namespace apsp::cuda {

// dist = 0 on the diagonal, kUnreachable<D> elsewhere; pred = -1 (when not null). n_pad x n_pad.
template <class D>
void launch_init_matrix(D* dist, vertex_t* pred, std::int64_t n_pad, cudaStream_t stream);
// dist[src][dst] = w and pred[src][dst] = src for each of `count` device-resident edges.
template <class D>
void launch_scatter_edges(D* dist, vertex_t* pred, std::int64_t n_pad, const BasicEdge<D>* edges, std::int64_t count,
                          cudaStream_t stream);
// Copies normalized host edges to the device through two pinned staging
// buffers and scatters them into the matrix chunk by chunk; returns when done.
template <class D>
void upload_edges(const std::vector<BasicEdge<D>>& edges, D* dist, vertex_t* pred, std::int64_t n_pad,
                  cudaStream_t stream);

}  // namespace apsp::cuda
