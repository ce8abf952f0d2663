// The one row-streaming driver of the GPU's row solvers ("sssp" and its
// ladder, "supernodal"): Johnson reweighting, a source of rows computed into
// device memory in chunks of what the device holds, the int32 range
// certificate, --verify (the device certificate when the whole result stays
// on the device, on the host as streamed rows pass), predecessors (rows that
// may loop are checked and repaired on the host), progress, and the download
// into the sink. A solver plugs in as a RowSource. Host-only declarations.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/graph.hpp"
#include "apsp/sink.hpp"
#include "apsp/solver.hpp"
#include "core/cuda_memory.hpp"
#include "core/progress.hpp"

namespace apsp::cuda {

// Computes rows of the distance matrix of a reweighted graph into device memory.
template <class D>
class RowSource {
 public:
  virtual ~RowSource() = default;
  // Rows of sources first .. first + count - 1 (original ids) into dist
  // (count x ld, row r for source first + r) and pred (the same shape, or
  // nullptr), queued on the solver's stream. int32: the reweighted distances
  // (the download undoes the potentials), kInf for unreachable; real D: the
  // graph's own distances, +inf for unreachable. Throws UsageError for a bad range.
  virtual void run(std::int64_t first, std::int64_t count, D* dist, vertex_t* pred, std::int64_t ld) = 0;
  // The fewest rows a launch should ask for (progress launches start there).
  virtual std::int64_t min_launch_rows() const = 0;
  // int32: true when a row computed since construction left the int32 range
  // (range_rule.hpp). Always false for real D. Synchronizes the stream.
  virtual bool range_escaped() = 0;
  // Lanes: a source's scratch and stream. Lane 0 is run()'s; a source that
  // can open lane 1 (scratch of its own, launches on `stream`) lets the row
  // split's pipeline run a chunk's launch beside the one before it, so its
  // blocks fill the SMs that the other launch's tail leaves idle. False when
  // the source has no second lane or the device does not hold its scratch
  // beside `keep_free` bytes; then every launch stays on lane 0.
  virtual bool open_second_lane(cudaStream_t /*stream*/, std::size_t /*keep_free*/) { return false; }
  // run() on `lane` (0, or 1 once open_second_lane returned true), queued on
  // that lane's stream.
  virtual void run_on(int lane, std::int64_t first, std::int64_t count, D* dist, vertex_t* pred, std::int64_t ld) {
    if (lane != 0) throw UsageError("RowSource::run_on: lane " + std::to_string(lane) + " was never opened");
    run(first, count, dist, pred, ld);
  }
  // range_escaped(), synchronizing only `lane`'s stream (the other lane's
  // launch keeps running). A flag raised by a launch still running may show
  // or not; the check after that launch sees it.
  virtual bool range_escaped_on(int lane) {
    if (lane != 0) throw UsageError("RowSource::range_escaped_on: lane " + std::to_string(lane) + " was never opened");
    return range_escaped();
  }
  // int32: true when every row so far was computed in int16 and certified
  // (the supernodal solver's int16 working rows); the summary's precision.
  virtual bool rows_in_int16() const { return false; }
};

// The device a row solve runs on, started at its first use: the CUDA
// context made ready (start_device, the solve's stage "device start": the
// wait for a context that the CLI's helper thread may still be creating)
// and the solve's stream made. A row source does its host work first (the
// supernodal ordering and symbolic analysis, the sparse CSR) and asks for
// the stream when its device work begins, so that the host work runs while
// the context is created (docs/perf.md, "A part's fixed costs").
class LazyDevice {
 public:
  LazyDevice(const SolveOptions& opts, StageTimes& times) : opts_(opts), times_(times) {}
  LazyDevice(const LazyDevice&) = delete;
  LazyDevice& operator=(const LazyDevice&) = delete;
  // The solve's stream; the first call starts the device.
  cudaStream_t stream();

 private:
  const SolveOptions& opts_;
  StageTimes& times_;
  std::unique_ptr<Stream> stream_;
};

// What a row source is built from: the graph's edges reweighted to
// non-negative weights (every weight >= 0, never -0.0), their largest
// weight, and for real D the Johnson potentials the source must undo
// (empty when none was negative; int32 leaves them to the download).
template <class D>
struct RowInput {
  const BasicGraph<D>& graph;  // the normalized graph as given
  const std::vector<BasicEdge<D>>& reweighted;
  D max_weight;
  const std::vector<double>& potentials;
  bool predecessors;
  LazyDevice& device;  // ask for its stream once the host work is done
  StageTimes& times;   // where a source records its own set-up stages
};

template <class D>
using RowSourceFactory = std::function<std::unique_ptr<RowSource<D>>(const RowInput<D>&)>;

// Solves the normalized graph with the rows `make` computes and streams
// every row into the sink (begun; its commit is the caller's). A negative
// cycle throws NegativeCycleError as the other paths of the weight type do;
// int32 distances beyond int32 throw as the dense path does. Fills the
// stages, precision (int32) and verified. The device (opts.device) starts
// after the host's share of the work: the reweighting here, then the
// source's own (LazyDevice).
template <class D>
void solve_rows(const BasicGraph<D>& normalized, const SolveOptions& opts, const RowSourceFactory<D>& make, Sink& sink,
                SolveSummary& out, ProgressSpan progress);

}  // namespace apsp::cuda
