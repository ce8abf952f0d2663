#include "cuda/real_rows.hpp"

#include <algorithm>

#include "core/cuda_check.hpp"
#include "cuda/kernels/dense/real_rows.cuh"
#include "cuda/launch.hpp"
#include "core/cuda_memory.hpp"

namespace apsp::cuda {

template <class D>
void real_predecessors(const D* dist, vertex_t* pred, std::int64_t n, std::int64_t ld, const BasicCsr<D>& in_edges,
                       cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t m = in_edges.col.size();
  require_device_memory(in_edges.row_start.size() * sizeof(std::int64_t) + m * (sizeof(vertex_t) + sizeof(D)),
                        "the in-edge lists for predecessors");
  DeviceBuffer<std::int64_t> rows(in_edges.row_start.size());
  DeviceBuffer<vertex_t> cols(std::max<std::size_t>(1, m));
  DeviceBuffer<D> weights(std::max<std::size_t>(1, m));
  APSP_CUDA_CHECK(cudaMemcpyAsync(rows.get(), in_edges.row_start.data(),
                                  in_edges.row_start.size() * sizeof(std::int64_t), cudaMemcpyHostToDevice, stream));
  if (m > 0) {
    APSP_CUDA_CHECK(
        cudaMemcpyAsync(cols.get(), in_edges.col.data(), m * sizeof(vertex_t), cudaMemcpyHostToDevice, stream));
    APSP_CUDA_CHECK(
        cudaMemcpyAsync(weights.get(), in_edges.weight.data(), m * sizeof(D), cudaMemcpyHostToDevice, stream));
  }
  constexpr int kThreads = 256;
  kernels::real_predecessors<D><<<grid_for(n * n, kThreads), kThreads, 0, stream>>>(dist, pred, n, ld, rows.get(),
                                                                                    cols.get(), weights.get(), n, 0);
  APSP_CUDA_CHECK_LAUNCH("real_predecessors");
  // The edge lists are freed on return: the pass must be done.
  APSP_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template void real_predecessors<float>(const float*, vertex_t*, std::int64_t, std::int64_t, const BasicCsr<float>&,
                                       cudaStream_t);
template void real_predecessors<double>(const double*, vertex_t*, std::int64_t, std::int64_t, const BasicCsr<double>&,
                                        cudaStream_t);

}  // namespace apsp::cuda
