// Host dispatch of the CUDA backend for real-valued weights (float32 and
// float64): "sssp" and its ladder go to the sparse solver
// (cuda/sparse_solver.hpp); "fw" runs on the device-resident matrix
// (cuda/fw_real.hpp), then the negative-cycle check on the diagonal,
// predecessors read off the distances, the row certificate on the host when
// asked (verify), and the download into the sink. Unlike the int32
// dispatch (backend.cpp), fw needs no reweighting (IEEE +inf absorbs
// negative weights), and neither path has a range certificate (floats do not
// wrap). Contains no kernels.
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <string>
#include <type_traits>
#include <thread>
#include <vector>

#include "apsp/cuda.hpp"
#include "apsp/error.hpp"
#include "apsp/potentials.hpp"
#include "apsp/verify.hpp"
#include "core/algorithm_checks.hpp"
#include "core/ceil_div.hpp"
#include "core/progress.hpp"
#include "core/weights.hpp"
#include "cuda/certificate.hpp"
#include "core/cuda_check.hpp"
#include "cuda/device_matrix.hpp"
#include "cuda/dispatch.hpp"
#include "cuda/download.hpp"
#include "cuda/fw_real.hpp"
#include "core/cuda_memory.hpp"
#include "cuda/real_rows.hpp"
#include "cuda/sparse_solver.hpp"
#include "cuda/supernodal_solver.hpp"
#include "cuda/staging.hpp"
#include "cuda/verifying_sink.hpp"

namespace apsp::cuda {
namespace {

// Share of the progress bar the rounds cover; the rest is the checks and the download.
constexpr double kRoundsShare = 0.9;

template <class D>
void solve_real(const BasicGraph<D>& g, const SolveOptions& opts, Sink& sink, SolveSummary& out) {
  const GpuAlgorithm& algo = find_gpu_algorithm(opts.algorithm == "auto" ? "fw" : opts.algorithm);
  const std::string weights = to_string(weight_type_of<D>);
  const bool sparse = algo.sparse_variant >= 0;
  if (!algo.info.takes_real)
    throw UsageError(std::string(algo.info.name) + " takes int32 weights only; on the GPU, " +
                         names_where(gpu_algorithm_infos(), [](const AlgorithmInfo& a) { return a.takes_real; }) +
                         " solve " + weights + " graphs",
                     "algorithm");
  require_options_honoured(algo.info.name, Backend::cuda, opts, gpu_algorithm_infos());
  require_row_split_honoured(algo, opts);
  if (opts.precision == Precision::int16 || opts.precision == Precision::int64)
    throw UsageError(std::string(to_string(opts.precision)) + " is an integer mode; " + weights +
                         " weights compute in " + weights,
                     "precision");
  // The row solvers start the device themselves, after their host work (LazyDevice).
  const bool row_solver = algo.supernodal || sparse;
  if (!row_solver || g.n == 0) start_device(opts, out.times);
  out.algorithm = algo.info.name;
  out.backend = Backend::cuda;
  out.weights = weight_type_of<D>;
  const std::int64_t n = g.n;
  out.n = n;
  ProgressMeter meter(opts.progress);
  if (n == 0) {
    out.verified = opts.verify;
    meter.finish();
    return;
  }
  if (algo.supernodal) {
    // Rows streamed as the sparse path's are, from a factor of the graph.
    solve_supernodal(g, opts, sink, out, meter.whole());
    meter.finish();
    return;
  }
  if (sparse) {
    // The batched single-source path: the graph and a chunk of rows on the device.
    solve_sparse(g, opts, static_cast<SparseVariant>(algo.sparse_variant), sink, out, meter.whole());
    meter.finish();
    return;
  }
  const BasicWeightStats<D> stats = weight_stats(g);
  auto stage_start = std::chrono::steady_clock::now();
  if (stats.has_negative()) {
    // A negative cycle is an error before any heavy work: Bellman-Ford from
    // a virtual source (johnson_potentials throws NegativeCycleError).
    johnson_potentials(to_csr(g));
    out.times.add("negative-cycle check", seconds_since(stage_start));
    stage_start = std::chrono::steady_clock::now();
  }

  const std::int64_t n_pad = round_up(n, real_fw_pad<D>());
  const std::size_t cells = static_cast<std::size_t>(n_pad) * static_cast<std::size_t>(n_pad);
  require_device_memory(cells * (sizeof(D) + (opts.predecessors ? sizeof(vertex_t) : 0)) + (std::size_t{96} << 20),
                        "a " + std::to_string(n) + "-vertex " + weights + " distance matrix" +
                            (opts.predecessors ? " with predecessors" : ""));
  Stream stream;
  DeviceBuffer<D> dist(cells);
  DeviceBuffer<vertex_t> pred(opts.predecessors ? cells : 0);
  launch_init_matrix<D>(dist.get(), nullptr, n_pad, stream.get());
  upload_edges<D>(g.edges, dist.get(), nullptr, n_pad, stream.get());
  out.times.add("host-to-device", seconds_since(stage_start));

  // Staging and the sink's pages while the device computes.
  HostWarmup warmup(sink, static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n) *
                              (sizeof(D) + (opts.predecessors ? sizeof(vertex_t) : 0)));
  Event compute_begin, compute_end;
  compute_begin.record(stream.get());
  if constexpr (std::is_same_v<D, float>)
    fw_rounds_real(dist.get(), n_pad, stream.get(), meter.whole().part(0, kRoundsShare), RealFwVariant::production, -1,
                   nullptr, sink.round_checkpoints());
  else  // float64 keeps no round checkpoints yet: a resumed solve computes every round again
    fw_rounds_real(dist.get(), n_pad, stream.get(), meter.whole().part(0, kRoundsShare));
  compute_end.record(stream.get());
  out.times.add("compute", elapsed_ms(compute_begin, compute_end) / 1000.0);
  warmup.finish();

  // The diagonal: an entry below minus the rounding tolerance is a negative
  // cycle (one that rounding alone made negative, which the Bellman-Ford
  // above may not see); the others are 0 up to rounding and become 0.
  stage_start = std::chrono::steady_clock::now();
  const double tolerance = core::distance_tolerance<D>(n, static_cast<double>(stats.max_abs));
  std::vector<D> diagonal(static_cast<std::size_t>(n));
  APSP_CUDA_CHECK(cudaMemcpy2DAsync(diagonal.data(), sizeof(D), dist.get(), (n_pad + 1) * sizeof(D), sizeof(D),
                                    static_cast<std::size_t>(n), cudaMemcpyDeviceToHost, stream.get()));
  APSP_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  for (std::int64_t i = 0; i < n; ++i)
    if (diagonal[static_cast<std::size_t>(i)] < -tolerance || std::isnan(diagonal[static_cast<std::size_t>(i)]))
      throw NegativeCycleError(i);
  APSP_CUDA_CHECK(cudaMemset2DAsync(dist.get(), (n_pad + 1) * sizeof(D), 0, sizeof(D), static_cast<std::size_t>(n),
                                    stream.get()));  // all-zero bits: +0.0
  std::vector<std::int64_t> broken_rows;
  if (opts.predecessors) {
    real_predecessors<D>(dist.get(), pred.get(), n, n_pad, transpose(to_csr(g)), stream.get());
    broken_rows = rows_with_broken_predecessors(pred.get(), n, n_pad, stream.get());
  }
  out.times.add(opts.predecessors ? "diagonal and predecessors" : "diagonal", seconds_since(stage_start));

  stage_start = std::chrono::steady_clock::now();
  const std::uint64_t plane_bytes = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n) * sizeof(D);
  const DeviceRows rows = DeviceRows::of_real(dist.get(), n, n_pad);
  DownloadOptions download;
  const ProgressSpan rest = meter.whole().rest();
  download.progress = [&rest](double f) { rest.report(f); };
  if (opts.verify) {
    // The host checks each block on its way to the sink (the device
    // certificate is int32's); the stage includes the check.
    VerifyingSink<D> checked(sink, g);
    download_to_sink(rows, Plane::distances, DevicePotentials{}, checked, download, stream.get());
    out.verified = true;
    out.times.add("device-to-host + verify", seconds_since(stage_start), plane_bytes);
  } else {
    download_to_sink(rows, Plane::distances, DevicePotentials{}, sink, download, stream.get());
    out.times.add("device-to-host", seconds_since(stage_start), plane_bytes);
  }
  if (opts.predecessors) {
    stage_start = std::chrono::steady_clock::now();
    auto fetch_row = [&](std::int64_t i, D* row) {
      APSP_CUDA_CHECK(
          cudaMemcpy(row, dist.get() + i * n_pad, static_cast<std::size_t>(n) * sizeof(D), cudaMemcpyDeviceToHost));
    };
    download_predecessors<D, D>(pred.get(), n, n_pad, std::move(broken_rows), g, fetch_row, tolerance, sink,
                                stream.get());
    out.times.add("predecessors device-to-host", seconds_since(stage_start),
                  static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n) * sizeof(vertex_t));
  }
  meter.finish();
}

}  // namespace

void solve(const GraphF32& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out) {
  check_normalized(normalized);
  solve_real(normalized, opts, sink, out);
}
void solve(const GraphF64& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out) {
  check_normalized(normalized);
  solve_real(normalized, opts, sink, out);
}

}  // namespace apsp::cuda
