// The batched single-source GPU solver ("sssp" and its ladder): the graph
// resident on the device as CSR (and its transpose for predecessors), row
// chunks computed by kernels/sparse/sssp.cu, certified and streamed to the
// sink. The device holds the graph plus one chunk of rows, never the whole
// matrix unless it fits. Host-only declarations.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "apsp/graph.hpp"
#include "apsp/sink.hpp"
#include "apsp/solver.hpp"
#include "core/progress.hpp"
#include "cuda/instance.hpp"
#include "cuda/memory.hpp"
#include "cuda/sparse_rows.hpp"
#include "cuda/sparse_variant.hpp"

namespace apsp::cuda {

// The near-far bucket width for a graph: kNearFarDeltaScale times its mean
// (reweighted) edge weight, at least 1. A placeholder until measured
// (docs/perf.md, "Sparse graphs"); the benchmark sweeps the scale.
inline constexpr double kNearFarDeltaScale = 4.0;
dist_t near_far_delta(const std::vector<Edge>& edges, double scale = kNearFarDeltaScale);

// A reweighted graph (every weight >= 0) on the device with the scratch of
// the resident blocks. run() computes rows of the (reweighted) distance
// matrix into device memory.
class SparseInstance {
 public:
  SparseInstance(const std::vector<Edge>& reweighted_edges, std::int64_t n, weight_t max_weight, SparseVariant variant,
                 bool predecessors, dist_t delta, cudaStream_t stream);

  // Rows first .. first + count - 1 into dist (count x ld) and pred (or
  // nullptr), queued on the stream. Throws UsageError for a bad range.
  void run(std::int64_t first, std::int64_t count, dist_t* dist, vertex_t* pred, std::int64_t ld);
  // True when a row computed since construction left the int32 range
  // (range_rule.hpp). Synchronizes the stream.
  bool range_escaped();

  bool shared_row() const { return launch_.shared_row; }
  int blocks() const { return launch_.blocks; }
  dist_t delta() const { return launch_.delta; }
  SparseVariant variant() const { return launch_.variant; }

 private:
  cudaStream_t stream_;
  DeviceBuffer<std::int64_t> out_rows_, in_rows_;
  DeviceBuffer<vertex_t> out_cols_, in_cols_;
  DeviceBuffer<weight_t> out_weights_, in_weights_;
  DeviceBuffer<vertex_t> queues_;
  DeviceBuffer<unsigned> bitmaps_;
  DeviceBuffer<unsigned long long> next_source_;
  DeviceBuffer<int> range_escaped_;
  SparseRowsLaunch launch_;
};

// Solves the normalized graph with `variant` and streams every row into the
// sink (begun; its commit is the caller's). Negative weights go through
// Johnson potentials (reweight on the host, undone on the device during the
// download); a negative cycle throws NegativeCycleError, distances beyond
// int32 throw as the dense path does. Fills the stages, precision, verified
// and, for streamed results, the note.
void solve_sparse(const Graph& normalized, const SolveOptions& opts, SparseVariant variant, Sink& sink,
                  SolveSummary& out, ProgressSpan progress, cudaStream_t stream);

}  // namespace apsp::cuda
