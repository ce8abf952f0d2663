#include "cuda/device_matrix.hpp"

#include "cuda/check.hpp"
#include "cuda/kernels/common/matrix_build.cuh"
#include "cuda/launch.hpp"

namespace apsp::cuda {

void launch_init_matrix(dist_t* dist, vertex_t* pred, std::int64_t n_pad, cudaStream_t stream) {
  constexpr int kThreads = 256;
  kernels::init_matrix<<<grid_for(n_pad * n_pad, kThreads), kThreads, 0, stream>>>(dist, pred, n_pad);
  APSP_CUDA_CHECK_LAUNCH("init_matrix");
}

void launch_scatter_edges(dist_t* dist, vertex_t* pred, std::int64_t n_pad, const Edge* edges, std::int64_t count,
                          cudaStream_t stream) {
  if (count == 0) return;
  constexpr int kThreads = 256;
  kernels::scatter_edges<<<grid_for(count, kThreads), kThreads, 0, stream>>>(dist, pred, n_pad, edges, count);
  APSP_CUDA_CHECK_LAUNCH("scatter_edges");
}

}  // namespace apsp::cuda
