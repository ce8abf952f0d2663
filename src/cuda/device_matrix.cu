#include "cuda/device_matrix.hpp"

#include <algorithm>
#include <cstring>

#include "core/cuda_check.hpp"
#include "cuda/kernels/common/matrix_build.cuh"
#include "cuda/launch.hpp"
#include "core/cuda_memory.hpp"

namespace apsp::cuda {

template <class D>
void launch_init_matrix(D* dist, vertex_t* pred, std::int64_t n_pad, cudaStream_t stream) {
  constexpr int kThreads = 256;
  kernels::init_matrix<D><<<grid_for(n_pad * n_pad, kThreads), kThreads, 0, stream>>>(dist, pred, n_pad);
  APSP_CUDA_CHECK_LAUNCH("init_matrix");
}

template <class D>
void launch_scatter_edges(D* dist, vertex_t* pred, std::int64_t n_pad, const BasicEdge<D>* edges, std::int64_t count,
                          cudaStream_t stream) {
  if (count == 0) return;
  constexpr int kThreads = 256;
  kernels::scatter_edges<D><<<grid_for(count, kThreads), kThreads, 0, stream>>>(dist, pred, n_pad, edges, count);
  APSP_CUDA_CHECK_LAUNCH("scatter_edges");
}

template <class D>
void upload_edges(const std::vector<BasicEdge<D>>& edges, D* dist, vertex_t* pred, std::int64_t n_pad,
                  cudaStream_t stream) {
  using EdgeD = BasicEdge<D>;
  // 1 Mi edges (12 or 16 MiB) per chunk: page-locked staging is slow to allocate.
  const std::size_t chunk = std::min<std::size_t>(edges.size(), std::size_t{1} << 20);
  if (chunk == 0) return;
  PinnedBuffer<EdgeD> staging[2] = {PinnedBuffer<EdgeD>(chunk), PinnedBuffer<EdgeD>(chunk)};
  DeviceBuffer<EdgeD> device[2] = {DeviceBuffer<EdgeD>(chunk), DeviceBuffer<EdgeD>(chunk)};
  Event staged[2];
  bool in_flight[2] = {false, false};
  for (std::size_t begin = 0, part = 0; begin < edges.size(); begin += chunk, part ^= 1) {
    const std::size_t count = std::min(chunk, edges.size() - begin);
    if (in_flight[part]) APSP_CUDA_CHECK(cudaEventSynchronize(staged[part].get()));
    std::memcpy(staging[part].get(), edges.data() + begin, count * sizeof(EdgeD));
    APSP_CUDA_CHECK(cudaMemcpyAsync(device[part].get(), staging[part].get(), count * sizeof(EdgeD),
                                    cudaMemcpyHostToDevice, stream));
    launch_scatter_edges(dist, pred, n_pad, device[part].get(), static_cast<std::int64_t>(count), stream);
    staged[part].record(stream);
    in_flight[part] = true;
  }
  APSP_CUDA_CHECK(cudaStreamSynchronize(stream));
}

#define APSP_INSTANTIATE_MATRIX_BUILD(D)                                                                               \
  template void launch_init_matrix<D>(D*, vertex_t*, std::int64_t, cudaStream_t);                                      \
  template void launch_scatter_edges<D>(D*, vertex_t*, std::int64_t, const BasicEdge<D>*, std::int64_t, cudaStream_t); \
  template void upload_edges<D>(const std::vector<BasicEdge<D>>&, D*, vertex_t*, std::int64_t, cudaStream_t);
APSP_INSTANTIATE_MATRIX_BUILD(dist_t)
APSP_INSTANTIATE_MATRIX_BUILD(float)
APSP_INSTANTIATE_MATRIX_BUILD(double)
#undef APSP_INSTANTIATE_MATRIX_BUILD

}  // namespace apsp::cuda
