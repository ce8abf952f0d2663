#include "cuda/instance.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "apsp/error.hpp"
#include "apsp/potentials.hpp"
#include "core/cuda_check.hpp"
#include "cuda/device_matrix.hpp"
#include "cuda/out_of_core_solver.hpp"
#include "core/ceil_div.hpp"

namespace apsp::cuda {

Reweighted reweight(const Graph& g) {
  Reweighted r;
  const WeightStats stats = weight_stats(g);
  if (!stats.has_negative()) {
    r.edges = g.edges;
    r.max_weight = stats.max_w;
    return r;
  }
  r.potential = johnson_potentials(to_csr(g));
  r.edges.reserve(g.edges.size());
  for (const Edge& e : g.edges) {
    const std::int64_t w = std::int64_t{e.w} + r.potential[e.src] - r.potential[e.dst];
    if (w >= kInf)
      throw ArithmeticRangeError("edge " + std::to_string(e.src) + "->" + std::to_string(e.dst) +
                                 ": its Johnson-reweighted weight " + std::to_string(w) +
                                 " does not fit the GPU's int32 arithmetic (the CPU backend computes in int64)");
    r.edges.push_back(Edge{e.src, e.dst, static_cast<weight_t>(w)});
    r.max_weight = std::max<weight_t>(r.max_weight, static_cast<weight_t>(w));
  }
  return r;
}

DeviceInstance::DeviceInstance(const Graph& g, const GpuAlgorithm& algo, bool predecessors, cudaStream_t stream,
                               bool keep_pristine)
    : reweighted_(reweight(g)),
      n_(g.n),
      n_pad_(round_up(g.n, algo.pad_multiple)),
      stream_(stream),
      certificate_(reweighted_.edges, g.n, reweighted_.max_weight, stream) {
  const std::size_t cells = static_cast<std::size_t>(n_pad_) * static_cast<std::size_t>(n_pad_);
  const std::size_t csr_bytes = algo.needs_csr ? (static_cast<std::size_t>(n_) + 1) * 8 + reweighted_.edges.size() * 8
                                               : 0;
  const std::size_t copies = (keep_pristine ? 2 : 1);
  require_device_memory(dense_instance_bytes(n_pad_, predecessors, csr_bytes) +
                            (copies - 1) * cells * sizeof(dist_t) * (predecessors ? 2 : 1),
                        "a " + std::to_string(n_) + "-vertex distance matrix" +
                            (predecessors ? " with predecessors" : ""));
  dist_ = DeviceBuffer<dist_t>(cells);
  pred_ = DeviceBuffer<vertex_t>(predecessors ? cells : 0);
  launch_init_matrix(dist_.get(), pred_.get(), n_pad_, stream);
  upload_edges(reweighted_.edges, dist_.get(), pred_.get(), n_pad_, stream);
  if (algo.needs_csr) {
    Graph reweighted_graph;
    reweighted_graph.n = n_;
    reweighted_graph.edges = reweighted_.edges;
    const Csr csr = to_csr(reweighted_graph);
    csr_rows_ = DeviceBuffer<std::int64_t>(csr.row_start.size());
    csr_cols_ = DeviceBuffer<vertex_t>(std::max<std::size_t>(1, csr.col.size()));
    csr_weights_ = DeviceBuffer<weight_t>(std::max<std::size_t>(1, csr.weight.size()));
    APSP_CUDA_CHECK(cudaMemcpyAsync(csr_rows_.get(), csr.row_start.data(), csr.row_start.size() * 8,
                                    cudaMemcpyHostToDevice, stream));
    if (!csr.col.empty()) {
      APSP_CUDA_CHECK(
          cudaMemcpyAsync(csr_cols_.get(), csr.col.data(), csr.col.size() * 4, cudaMemcpyHostToDevice, stream));
      APSP_CUDA_CHECK(cudaMemcpyAsync(csr_weights_.get(), csr.weight.data(), csr.weight.size() * 4,
                                      cudaMemcpyHostToDevice, stream));
    }
    csr_ =
        DeviceCsr{csr_rows_.get(), csr_cols_.get(), csr_weights_.get(), n_, static_cast<std::int64_t>(csr.col.size())};
  }
  if (keep_pristine) {
    pristine_dist_ = DeviceBuffer<dist_t>(cells);
    APSP_CUDA_CHECK(
        cudaMemcpyAsync(pristine_dist_.get(), dist_.get(), cells * sizeof(dist_t), cudaMemcpyDeviceToDevice, stream));
    if (predecessors) {
      pristine_pred_ = DeviceBuffer<vertex_t>(cells);
      APSP_CUDA_CHECK(cudaMemcpyAsync(pristine_pred_.get(), pred_.get(), cells * sizeof(vertex_t),
                                      cudaMemcpyDeviceToDevice, stream));
    }
  }
  APSP_CUDA_CHECK(cudaStreamSynchronize(stream));
}

GpuProblem DeviceInstance::problem() {
  GpuProblem p;
  p.dist = dist_.get();
  p.pred = pred_.get();
  p.n = n_;
  p.n_pad = n_pad_;
  p.csr = csr_;
  p.max_weight = reweighted_.max_weight;
  p.stream = stream_;
  p.edges = &reweighted_.edges;
  p.certificate = &certificate_;
  return p;
}

void DeviceInstance::restore() {
  if (!pristine_dist_.get()) throw UsageError("DeviceInstance::restore needs keep_pristine");
  APSP_CUDA_CHECK(cudaMemcpyAsync(dist_.get(), pristine_dist_.get(), dist_.bytes(), cudaMemcpyDeviceToDevice, stream_));
  if (pred_.get() && pristine_pred_.get())
    APSP_CUDA_CHECK(
        cudaMemcpyAsync(pred_.get(), pristine_pred_.get(), pred_.bytes(), cudaMemcpyDeviceToDevice, stream_));
}

}  // namespace apsp::cuda
