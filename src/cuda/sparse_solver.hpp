// The batched single-source GPU solver ("sssp" and its ladder) for int32,
// float32 and float64 weights: the graph resident on the device as CSR (and
// its transpose for predecessors), row chunks computed by
// kernels/sparse/sssp.cuh, certified (int32) and streamed to the sink. The device holds the graph plus one chunk of rows, never the whole
// matrix unless it fits. Host-only declarations.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/sink.hpp"
#include "apsp/solver.hpp"
#include "core/progress.hpp"
#include "cuda/instance.hpp"
#include "core/cuda_memory.hpp"
#include "cuda/row_solver.hpp"
#include "cuda/sparse_input.hpp"
#include "cuda/sparse_rows.hpp"
#include "cuda/sparse_variant.hpp"

namespace apsp::cuda {

// The host half of a BasicSparseInstance: the reweighted graph's CSR and,
// with predecessors, its transpose (host work that needs no device).
template <class D>
struct SparseHostGraph {
  SparseHostGraph(const std::vector<BasicEdge<D>>& reweighted_edges, std::int64_t n, bool predecessors);
  std::int64_t n;
  bool predecessors;
  BasicCsr<D> out;
  BasicCsr<D> in;  // empty without predecessors
};

// A reweighted graph (every weight >= 0, never -0.0) on the device with the
// scratch of the resident blocks, distances of type D (int32, float, double).
// run() computes rows of the distance matrix into device memory: for int32
// the reweighted distances (the download undoes the potentials); for real
// types the graph's own, the kernel undoing `potentials`.
template <class D>
class BasicSparseInstance : public RowSource<D> {
 public:
  // `potentials`: real D only, empty or one per vertex (RealReweighted);
  // int32 takes none (UsageError).
  BasicSparseInstance(const std::vector<BasicEdge<D>>& reweighted_edges, std::int64_t n, D max_weight,
                      SparseVariant variant, bool predecessors, D delta, cudaStream_t stream,
                      const std::vector<double>& potentials = {});
  // The same from a host half built beforehand (the CSR before the device starts).
  BasicSparseInstance(SparseHostGraph<D> host, D max_weight, SparseVariant variant, D delta, cudaStream_t stream,
                      const std::vector<double>& potentials = {});

  // Rows first .. first + count - 1 into dist (count x ld) and pred (or
  // nullptr), queued on the stream. Throws UsageError for a bad range.
  void run(std::int64_t first, std::int64_t count, D* dist, vertex_t* pred, std::int64_t ld) override;
  // int32: true when a row computed since construction left the int32
  // range (range_rule.hpp). Always false for real types. Synchronizes the stream.
  bool range_escaped() override;
  // One row per resident block.
  std::int64_t min_launch_rows() const override { return launch_.blocks; }
  // Lane 1: queues, bitmaps and a source counter of its own for as many
  // blocks as lane 0 (the range flag is shared: it only ever rises).
  bool open_second_lane(cudaStream_t stream, std::size_t keep_free) override;
  void run_on(int lane, std::int64_t first, std::int64_t count, D* dist, vertex_t* pred, std::int64_t ld) override;
  bool range_escaped_on(int lane) override;

  bool shared_row() const { return launch_.shared_row; }
  int blocks() const { return launch_.blocks; }
  D delta() const { return launch_.delta; }
  SparseVariant variant() const { return launch_.variant; }

 private:
  // run() on the given scratch and stream.
  void launch_on(std::int64_t first, std::int64_t count, D* dist, vertex_t* pred, std::int64_t ld, vertex_t* queues,
                 unsigned* bitmaps, unsigned long long* next_source, cudaStream_t stream);

  cudaStream_t stream_;
  DeviceBuffer<std::int64_t> out_rows_, in_rows_;
  DeviceBuffer<vertex_t> out_cols_, in_cols_;
  DeviceBuffer<D> out_weights_, in_weights_;
  DeviceBuffer<vertex_t> queues_;
  DeviceBuffer<unsigned> bitmaps_;
  DeviceBuffer<unsigned long long> next_source_;
  DeviceBuffer<int> range_escaped_;
  DeviceBuffer<double> potentials_;
  BasicSparseRowsLaunch<D> launch_;
  // Lane 1 (open_second_lane): its stream (null until opened) and scratch.
  cudaStream_t second_stream_ = nullptr;
  DeviceBuffer<vertex_t> second_queues_;
  DeviceBuffer<unsigned> second_bitmaps_;
  DeviceBuffer<unsigned long long> second_next_source_;
};
using SparseInstance = BasicSparseInstance<dist_t>;

// Solves the normalized graph with `variant` and streams every row into the
// sink (begun; its commit is the caller's), in chunks of what the device
// memory holds. Negative weights go through Johnson potentials (reweight on
// the host, undone on the device: by the download for int32, by the kernel
// for real weights); a negative cycle throws NegativeCycleError as the
// other paths of the weight type do. int32: distances beyond int32 throw as
// the dense path does; real types have no range certificate (floats do not
// wrap). Fills the stages, precision (int32), verified and, for streamed
// results, the note.
void solve_sparse(const Graph& normalized, const SolveOptions& opts, SparseVariant variant, Sink& sink,
                  SolveSummary& out, ProgressSpan progress);
void solve_sparse(const GraphF32& normalized, const SolveOptions& opts, SparseVariant variant, Sink& sink,
                  SolveSummary& out, ProgressSpan progress);
void solve_sparse(const GraphF64& normalized, const SolveOptions& opts, SparseVariant variant, Sink& sink,
                  SolveSummary& out, ProgressSpan progress);

}  // namespace apsp::cuda
