#include "cuda/certificate.hpp"

#include <algorithm>
#include <climits>
#include <string>

#include "apsp/error.hpp"

#include "core/cuda_check.hpp"
#include "cuda/kernels/certificate/predecessor_tree.cuh"
#include "cuda/kernels/certificate/range.cuh"
#include "cuda/launch.hpp"

namespace apsp::cuda {

RangeCertificate::RangeCertificate(const std::vector<Edge>& edges, std::int64_t n, weight_t max_weight,
                                   cudaStream_t stream)
    : edges_(edges), n_(n), max_weight_(max_weight), stream_(stream) {}

template <class T>
int RangeCertificate::largest(const RangeView<T>& view) {
  DeviceBuffer<int> result(1);
  const int start = INT_MIN;
  APSP_CUDA_CHECK(cudaMemcpyAsync(result.get(), &start, sizeof(int), cudaMemcpyHostToDevice, stream_));
  constexpr int kThreads = 256;
  if (view.n > 0) {
    kernels::largest_finite<T><<<grid_for(view.n * view.n, kThreads), kThreads, 0, stream_>>>(view, result.get());
    APSP_CUDA_CHECK_LAUNCH("largest_finite");
  }
  int host = INT_MIN;
  APSP_CUDA_CHECK(cudaMemcpyAsync(&host, result.get(), sizeof(int), cudaMemcpyDeviceToHost, stream_));
  APSP_CUDA_CHECK(cudaStreamSynchronize(stream_));
  return host;
}

const DeviceCsr& RangeCertificate::device_edges() {
  if (uploaded_) return csr_;
  // Out-edge offsets of the (src, dst)-sorted list; weights are not needed.
  std::vector<std::int64_t> row_start(static_cast<std::size_t>(n_) + 1, 0);
  std::vector<vertex_t> col(edges_.size());
  for (std::size_t e = 0; e < edges_.size(); ++e) {
    ++row_start[static_cast<std::size_t>(edges_[e].src) + 1];
    col[e] = edges_[e].dst;
  }
  for (std::size_t v = 0; v < static_cast<std::size_t>(n_); ++v) row_start[v + 1] += row_start[v];
  require_device_memory(row_start.size() * sizeof(std::int64_t) + col.size() * sizeof(vertex_t),
                        "the range certificate's edge list");
  rows_ = DeviceBuffer<std::int64_t>(row_start.size());
  cols_ = DeviceBuffer<vertex_t>(std::max<std::size_t>(1, col.size()));
  APSP_CUDA_CHECK(cudaMemcpyAsync(rows_.get(), row_start.data(), row_start.size() * sizeof(std::int64_t),
                                  cudaMemcpyHostToDevice, stream_));
  if (!col.empty())
    APSP_CUDA_CHECK(
        cudaMemcpyAsync(cols_.get(), col.data(), col.size() * sizeof(vertex_t), cudaMemcpyHostToDevice, stream_));
  // The host vectors are freed on return: the copies must be done.
  APSP_CUDA_CHECK(cudaStreamSynchronize(stream_));
  csr_ = DeviceCsr{rows_.get(), cols_.get(), nullptr, n_, static_cast<std::int64_t>(col.size())};
  uploaded_ = true;
  return csr_;
}

template <class T>
bool RangeCertificate::check(const RangeView<T>& view) {
  if (range_holds_below(largest(view), view.infinity, max_weight_)) return true;
  DeviceBuffer<int> escaped(1);
  APSP_CUDA_CHECK(cudaMemsetAsync(escaped.get(), 0, sizeof(int), stream_));
  constexpr int kThreads = 256;
  kernels::find_range_escape<T>
      <<<grid_for(view.n * view.n, kThreads), kThreads, 0, stream_>>>(view, device_edges(), max_weight_, escaped.get());
  APSP_CUDA_CHECK_LAUNCH("find_range_escape");
  int host = 0;
  APSP_CUDA_CHECK(cudaMemcpyAsync(&host, escaped.get(), sizeof(int), cudaMemcpyDeviceToHost, stream_));
  APSP_CUDA_CHECK(cudaStreamSynchronize(stream_));
  return host == 0;
}

bool RangeCertificate::holds(const RangeView<std::int32_t>& view) { return check(view); }
bool RangeCertificate::holds(const RangeView<std::int16_t>& view) { return check(view); }
int RangeCertificate::largest_finite(const RangeView<std::int32_t>& view) { return largest(view); }
int RangeCertificate::largest_finite(const RangeView<std::int16_t>& view) { return largest(view); }

void throw_range_refusal(bool reweighted) {
  const std::string what = "a shortest-path distance" +
                           std::string(reweighted ? " of the Johnson-reweighted graph" : "") + " reaches " +
                           std::to_string(kInf) + " or more";
  if (!reweighted) throw OverflowError(what + ", beyond the int32 output range");
  throw ArithmeticRangeError(what + ", beyond the GPU's int32 arithmetic (the CPU backend computes in int64)");
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
