#include <climits>

#include "check.cuh"
#include "core/ceil_div.hpp"
#include "kernels/matrix_setup.cuh"
#include "matrix_setup.cuh"
#include "memory.cuh"

namespace apsp::cuda {

int grid_for(std::int64_t work, int threads) {
  const std::int64_t blocks = ceil_div(work, threads);
  return static_cast<int>(blocks < 1 ? 1 : blocks > 65536 ? 65536 : blocks);
}

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

namespace {

template <typename T>
int max_below(const T* dist, std::int64_t n, std::int64_t n_pad, int infinity, cudaStream_t stream) {
  DeviceBuffer<int> result(1);
  const int start = INT_MIN;
  APSP_CUDA_CHECK(cudaMemcpyAsync(result.get(), &start, sizeof(int), cudaMemcpyHostToDevice, stream));
  constexpr int kThreads = 256;
  if (n > 0) {
    kernels::max_finite<T><<<grid_for(n * n, kThreads), kThreads, 0, stream>>>(dist, n, n_pad, infinity, result.get());
    APSP_CUDA_CHECK_LAUNCH("max_finite");
  }
  int host = INT_MIN;
  APSP_CUDA_CHECK(cudaMemcpyAsync(&host, result.get(), sizeof(int), cudaMemcpyDeviceToHost, stream));
  APSP_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

}  // namespace

int max_finite_entry(const dist_t* dist, std::int64_t n, std::int64_t n_pad, cudaStream_t stream) {
  return max_below(dist, n, n_pad, kInf, stream);
}

int max_finite_entry(const std::int32_t* dist, std::int64_t n, std::int64_t n_pad, int infinity, cudaStream_t stream) {
  return max_below(dist, n, n_pad, infinity, stream);
}

int max_finite_entry(const std::int16_t* dist, std::int64_t n, std::int64_t n_pad, int infinity, cudaStream_t stream) {
  return max_below(dist, n, n_pad, infinity, stream);
}

std::vector<std::int64_t> rows_with_broken_predecessors(const vertex_t* pred, std::int64_t n, std::int64_t n_pad,
                                                         cudaStream_t stream) {
  if (n < 2) return {};
  const std::size_t cells = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  require_device_memory(cells * sizeof(vertex_t) + static_cast<std::size_t>(n), "the predecessor tree check");
  DeviceBuffer<vertex_t> anc(cells);
  DeviceBuffer<unsigned char> bad(static_cast<std::size_t>(n));
  constexpr int kThreads = 256;
  const int grid = grid_for(static_cast<std::int64_t>(cells), kThreads);
  APSP_CUDA_CHECK(cudaMemsetAsync(bad.get(), 0, static_cast<std::size_t>(n), stream));
  kernels::start_ancestors<<<grid, kThreads, 0, stream>>>(pred, n, n_pad, anc.get());
  APSP_CUDA_CHECK_LAUNCH("start_ancestors");
  // After p passes every chain of up to 2^p edges has reached its root.
  for (std::int64_t reach = 1; reach < n; reach *= 2) {
    kernels::jump_ancestors<<<grid, kThreads, 0, stream>>>(anc.get(), n);
    APSP_CUDA_CHECK_LAUNCH("jump_ancestors");
  }
  kernels::flag_broken_rows<<<grid, kThreads, 0, stream>>>(pred, anc.get(), n, n_pad, bad.get());
  APSP_CUDA_CHECK_LAUNCH("flag_broken_rows");
  std::vector<unsigned char> host(static_cast<std::size_t>(n));
  APSP_CUDA_CHECK(cudaMemcpyAsync(host.data(), bad.get(), host.size(), cudaMemcpyDeviceToHost, stream));
  APSP_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<std::int64_t> rows;
  for (std::int64_t i = 0; i < n; ++i)
    if (host[static_cast<std::size_t>(i)]) rows.push_back(i);
  return rows;
}

}  // namespace apsp::cuda
