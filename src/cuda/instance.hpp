// One APSP instance resident on the device: the reweighted graph, the padded
// matrix (and predecessors, CSR) built from it, ready for a GpuAlgorithm.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "apsp/graph.hpp"
#include "cuda/algorithm.hpp"
#include "cuda/certificate.hpp"
#include "core/cuda_memory.hpp"

namespace apsp::cuda {

// Edges with Johnson-reweighted, non-negative weights, plus the potentials
// (empty when every weight is already non-negative).
struct Reweighted {
  std::vector<Edge> edges;
  std::vector<std::int64_t> potential;
  weight_t max_weight = 0;
};

// Throws NegativeCycleError, or ArithmeticRangeError if a reweighted weight
// reaches kInf (the GPU's int32 range; the CPU computes in int64).
Reweighted reweight(const Graph& normalized);

// A cheap guess at the largest finite distance over the (src, dst)-sorted
// non-negative edges (backend.cpp): the hint that decides whether automatic
// precision attempts int16. The result is certified either way.
std::int64_t estimate_largest_distance(const std::vector<Edge>& sorted_edges, std::int64_t n, weight_t max_weight);

class DeviceInstance {
 public:
  // Checks free device memory, then uploads and builds everything `algo`
  // needs. With keep_pristine, a copy of the initial matrix allows restore().
  DeviceInstance(const Graph& normalized, const GpuAlgorithm& algo, bool predecessors, cudaStream_t stream,
                 bool keep_pristine = false);

  // The problem over this instance's buffers, with its range certificate
  // (block, precision, progress left default).
  GpuProblem problem();
  RangeCertificate& certificate() { return certificate_; }
  const Reweighted& reweighted() const { return reweighted_; }
  // Puts the initial matrix (and predecessors) back; needs keep_pristine.
  void restore();

 private:
  Reweighted reweighted_;
  std::int64_t n_ = 0;
  std::int64_t n_pad_ = 0;
  cudaStream_t stream_ = nullptr;
  DeviceBuffer<dist_t> dist_;
  DeviceBuffer<vertex_t> pred_;
  DeviceBuffer<dist_t> pristine_dist_;
  DeviceBuffer<vertex_t> pristine_pred_;
  DeviceBuffer<std::int64_t> csr_rows_;
  DeviceBuffer<vertex_t> csr_cols_;
  DeviceBuffer<weight_t> csr_weights_;
  DeviceCsr csr_;
  RangeCertificate certificate_;
};

}  // namespace apsp::cuda
