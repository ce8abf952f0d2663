#include "cuda/sparse_solver.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "apsp/error.hpp"
#include "core/tight_edges.hpp"
#include "core/verify_row.hpp"
#include "cuda/certificate.hpp"
#include "cuda/check.hpp"
#include "cuda/device_rows.hpp"
#include "cuda/dispatch.hpp"
#include "cuda/download.hpp"
#include "cuda/gpu_verify.hpp"
#include "cuda/testing.hpp"

namespace apsp::cuda {
namespace {

// Device memory kept free beside the graph and the result rows: the
// download's device staging (it shrinks its blocks to what is free, down to
// one row) and the runtime's own needs.
constexpr std::size_t kDeviceReserveBytes = std::size_t{512} << 20;
// With a progress listener, a chunk of rows is computed in about this many
// launches, so the bar moves while the device works.
constexpr std::int64_t kLaunchesPerChunkWithProgress = 16;

template <class T>
DeviceBuffer<T> upload(const std::vector<T>& host, cudaStream_t stream) {
  DeviceBuffer<T> device(std::max<std::size_t>(1, host.size()));
  if (!host.empty())
    APSP_CUDA_CHECK(cudaMemcpyAsync(device.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream));
  return device;
}

// A device matrix whose rows first .. first + rows - 1 are the rows of
// `chunk` (leading dimension n): the download and the certificate address
// row i at data + i * ld. Only rows of the chunk are ever read through it.
template <class T>
DeviceRows chunk_rows(const T* chunk, std::int64_t first, std::int64_t n) {
  const auto shifted = reinterpret_cast<std::uintptr_t>(chunk) - static_cast<std::uintptr_t>(first * n) * sizeof(T);
  return DeviceRows::of_int32(reinterpret_cast<const std::int32_t*>(shifted), n, n);
}

}  // namespace

dist_t near_far_delta(const std::vector<Edge>& edges, double scale) {
  if (edges.empty()) return 1;
  double sum = 0;
  for (const Edge& e : edges) sum += e.w;
  const double delta = std::ceil(scale * sum / static_cast<double>(edges.size()));
  return static_cast<dist_t>(std::clamp(delta, 1.0, static_cast<double>(kInf)));
}

SparseInstance::SparseInstance(const std::vector<Edge>& reweighted_edges, std::int64_t n, weight_t max_weight,
                               SparseVariant variant, bool predecessors, dist_t delta, cudaStream_t stream)
    : stream_(stream) {
  Graph reweighted;
  reweighted.n = n;
  reweighted.edges = reweighted_edges;
  const Csr out = to_csr(reweighted);
  const Csr in = predecessors ? transpose(out) : Csr{};
  const std::size_t csr_bytes = (static_cast<std::size_t>(n) + 1) * sizeof(std::int64_t) +
                                out.col.size() * (sizeof(vertex_t) + sizeof(weight_t));
  launch_.variant = variant;
  launch_.shared_row = !testing::hooks.sparse_global_row && sparse_shared_row_fits(n);
  launch_.delta = std::max<dist_t>(1, delta);
  launch_.max_weight = max_weight;
  const std::size_t scratch = sparse_scratch_bytes(n, launch_.shared_row);
  require_device_memory(csr_bytes * (predecessors ? 2 : 1) + scratch,
                        "the " + std::to_string(n) + "-vertex graph and one SSSP block's scratch");
  // As many blocks as stay resident, no more than there are sources, and no
  // more than half the free memory holds scratch for.
  std::size_t free_bytes = 0, total_bytes = 0;
  APSP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const auto affordable = static_cast<std::int64_t>((free_bytes - csr_bytes * (predecessors ? 2 : 1)) / 2 / scratch);
  const std::int64_t cap = testing::hooks.sparse_max_blocks > 0 ? testing::hooks.sparse_max_blocks.load() : n;
  launch_.blocks = static_cast<int>(std::max<std::int64_t>(
      1, std::min<std::int64_t>({sparse_resident_blocks(variant, launch_.shared_row, n), n, affordable, cap})));

  out_rows_ = upload(out.row_start, stream);
  out_cols_ = upload(out.col, stream);
  out_weights_ = upload(out.weight, stream);
  launch_.out = DeviceCsr{out_rows_.get(), out_cols_.get(), out_weights_.get(), n, static_cast<std::int64_t>(out.col.size())};
  if (predecessors) {
    in_rows_ = upload(in.row_start, stream);
    in_cols_ = upload(in.col, stream);
    in_weights_ = upload(in.weight, stream);
    launch_.in = DeviceCsr{in_rows_.get(), in_cols_.get(), in_weights_.get(), n, static_cast<std::int64_t>(in.col.size())};
  }
  queues_ = DeviceBuffer<vertex_t>(static_cast<std::size_t>(launch_.blocks) * 4 * static_cast<std::size_t>(n));
  if (!launch_.shared_row)
    bitmaps_ = DeviceBuffer<unsigned>(static_cast<std::size_t>(launch_.blocks) * 2 *
                                      static_cast<std::size_t>(sparse_bitmap_words(n)));
  next_source_ = DeviceBuffer<unsigned long long>(1);
  range_escaped_ = DeviceBuffer<int>(1);
  APSP_CUDA_CHECK(cudaMemsetAsync(range_escaped_.get(), 0, sizeof(int), stream));
  launch_.queues = queues_.get();
  launch_.bitmaps = bitmaps_.get();
  launch_.next_source = next_source_.get();
  launch_.range_escaped = range_escaped_.get();
  // The host CSR goes out of scope: its copies must be done.
  APSP_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void SparseInstance::run(std::int64_t first, std::int64_t count, dist_t* dist, vertex_t* pred, std::int64_t ld) {
  const std::int64_t n = launch_.out.n;
  if (first < 0 || count < 0 || first + count > n || ld < n || (count > 0 && dist == nullptr))
    throw UsageError("SparseInstance::run: rows " + std::to_string(first) + "+" + std::to_string(count) +
                     " of a " + std::to_string(n) + "-vertex graph into rows of " + std::to_string(ld));
  if (pred != nullptr && launch_.in.row_start == nullptr)
    throw UsageError("SparseInstance::run: predecessors asked of an instance built without them", "predecessors");
  SparseRowsLaunch a = launch_;
  a.first_source = first;
  a.sources = count;
  a.dist = dist;
  a.pred = pred;
  a.ld = ld;
  launch_sparse_rows(a, stream_);
}

bool SparseInstance::range_escaped() {
  int host = 0;
  APSP_CUDA_CHECK(cudaMemcpyAsync(&host, range_escaped_.get(), sizeof(int), cudaMemcpyDeviceToHost, stream_));
  APSP_CUDA_CHECK(cudaStreamSynchronize(stream_));
  return host != 0;
}

void solve_sparse(const Graph& g, const SolveOptions& opts, SparseVariant variant, Sink& sink, SolveSummary& out,
                  ProgressSpan progress, cudaStream_t stream) {
  const std::int64_t n = g.n;
  out.precision = Precision::int32;
  auto stage_start = std::chrono::steady_clock::now();
  const Reweighted rw = reweight(g);
  SparseInstance instance(rw.edges, n, rw.max_weight, variant, opts.predecessors, near_far_delta(rw.edges), stream);
  out.times.add("host-to-device", seconds_since(stage_start));

  // The device certificate (kept only when the whole result stays on the
  // device) takes its memory before the rows are budgeted.
  std::unique_ptr<DeviceVerifier> verifier;
  if (opts.verify) verifier = std::make_unique<DeviceVerifier>(g, rw.edges, stream);
  const DevicePotentials potentials(rw.potential, stream);

  // Rows per chunk: what the device memory left holds (or the testing budget).
  const std::size_t row_bytes = static_cast<std::size_t>(n) * sizeof(dist_t) * (opts.predecessors ? 2 : 1);
  std::size_t free_bytes = 0, total_bytes = 0;
  APSP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::int64_t budget = testing::hooks.sparse_row_budget > 0
                                  ? testing::hooks.sparse_row_budget.load()
                                  : static_cast<std::int64_t>(free_bytes > kDeviceReserveBytes ? free_bytes - kDeviceReserveBytes : 0);
  const std::int64_t chunk = std::clamp<std::int64_t>(budget / static_cast<std::int64_t>(row_bytes), 1, n);
  const bool streamed = chunk < n;
  const std::size_t chunk_cells = static_cast<std::size_t>(chunk) * static_cast<std::size_t>(n);
  require_device_memory(row_bytes * static_cast<std::size_t>(chunk),
                        std::to_string(chunk) + " result rows of " + std::to_string(n) + " vertices");
  DeviceBuffer<dist_t> dist(chunk_cells);
  DeviceBuffer<vertex_t> pred(opts.predecessors ? chunk_cells : 0);
  if (streamed) verifier.reset();  // streamed rows are checked on the host as they pass

  // Predecessors read off tight edges form trees unless a zero-weight cycle
  // offers ties; then each row is checked and, where it loops, rebuilt on
  // the host as a tight-edge tree (core/tight_edges.hpp).
  Csr graph_csr;
  bool zero_weight_cycle = false;
  if (opts.predecessors) {
    graph_csr = to_csr(g);
    zero_weight_components(graph_csr, zero_weight_cycle);
  }

  double compute_s = 0, certificate_s = 0, verify_s = 0, download_s = 0, pred_download_s = 0;
  std::int64_t chunk_first = 0;  // the chunk now in `dist`
  auto deliver = [&](std::int64_t first, std::int64_t count) {
    auto start = std::chrono::steady_clock::now();
    DownloadOptions rows;
    rows.first_row = first;
    rows.rows = count;
    DownloadOptions dist_rows = rows;
    if (opts.verify && streamed) {
      // The O(n * m) certificate of each streamed row, on the host as the
      // rows pass (the device holds no whole matrix to check).
      dist_rows.patch = [&](std::int64_t row0, std::int64_t block_rows, std::int32_t* data, std::int64_t stride) {
        std::int64_t failing = block_rows;
#pragma omp parallel for schedule(dynamic, 1) reduction(min : failing)
        for (std::int64_t r = 0; r < block_rows; ++r)
          if (!first_violation_in_row(g, data + r * stride, row0 + r).empty()) failing = std::min(failing, r);
        if (failing < block_rows) throw VerifyError(first_violation_in_row(g, data + failing * stride, row0 + failing));
      };
    }
    download_to_sink(chunk_rows(dist.get(), chunk_first, n), Plane::distances, potentials, sink, dist_rows, stream);
    const double dist_s = seconds_since(start);
    download_s += dist_s;

    if (!opts.predecessors) return;
    start = std::chrono::steady_clock::now();
    DownloadOptions pred_rows = rows;
    if (zero_weight_cycle) {
      pred_rows.patch = [&](std::int64_t row0, std::int64_t block_rows, std::int32_t* data, std::int64_t stride) {
        core::PredecessorRepair repair(n);
        std::vector<dist_t> row(static_cast<std::size_t>(n));
        const std::vector<std::int64_t>& h = rw.potential;
        for (std::int64_t r = 0; r < block_rows; ++r) {
          const std::int64_t source = row0 + r;
          // A plain copy: the download in progress holds the staging pool.
          APSP_CUDA_CHECK(cudaMemcpy(row.data(), dist.get() + (source - chunk_first) * n,
                                     static_cast<std::size_t>(n) * sizeof(dist_t), cudaMemcpyDeviceToHost));
          // The distances' download already proved every entry fits int32.
          if (!h.empty())
            for (std::int64_t j = 0; j < n; ++j)
              if (row[j] != kInf) row[j] = static_cast<dist_t>(std::int64_t{row[j]} - h[source] + h[j]);
          if (repair.row(graph_csr, row.data(), static_cast<vertex_t>(source), data + r * stride))
            ++testing::hooks.repaired_rows;
        }
      };
    }
    download_to_sink(chunk_rows(pred.get(), chunk_first, n), Plane::predecessors, DevicePotentials{}, sink, pred_rows,
                     stream);
    pred_download_s += seconds_since(start);
  };

  const std::int64_t launch_rows =
      progress ? std::max<std::int64_t>(instance.blocks(), (chunk + kLaunchesPerChunkWithProgress - 1) / kLaunchesPerChunkWithProgress)
               : chunk;
  // Computing is this share of the bar when the rows stay on the device until the end.
  const double compute_share = streamed ? 1.0 : 0.8;
  Event begin, end;
  for (chunk_first = 0; chunk_first < n; chunk_first += chunk) {
    const std::int64_t rows = std::min(chunk, n - chunk_first);
    for (std::int64_t done = 0; done < rows; done += launch_rows) {
      const std::int64_t count = std::min(launch_rows, rows - done);
      begin.record(stream);
      instance.run(chunk_first + done, count, dist.get() + done * n, opts.predecessors ? pred.get() + done * n : nullptr, n);
      end.record(stream);
      compute_s += elapsed_ms(begin, end) / 1000.0;
      if (!streamed) progress.report(compute_share * static_cast<double>(chunk_first + done + count) / static_cast<double>(n));
    }
    stage_start = std::chrono::steady_clock::now();
    if (instance.range_escaped()) throw_range_refusal(!rw.potential.empty());
    certificate_s += seconds_since(stage_start);
    if (streamed) {
      deliver(chunk_first, rows);
      ++testing::hooks.sparse_chunks;
      progress.report(static_cast<double>(chunk_first + rows) / static_cast<double>(n));
    }
  }
  out.times.add("compute", compute_s);
  out.times.add("range certificate", certificate_s);
  if (!streamed) {
    chunk_first = 0;
    if (verifier) {
      stage_start = std::chrono::steady_clock::now();
      const VerifyReport report = verifier->verify(DeviceRows::of_int32(dist.get(), n, n), potentials, stream);
      if (!report.ok) throw VerifyError(report.first_violation);
      verify_s = seconds_since(stage_start);
      out.times.add("verify (device)", verify_s);
    }
    deliver(0, n);
    ++testing::hooks.sparse_chunks;
  }
  out.verified = opts.verify;
  const std::uint64_t plane_bytes = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n) * sizeof(dist_t);
  out.times.add(streamed && opts.verify ? "device-to-host (+ verify on host)" : "device-to-host", download_s, plane_bytes);
  if (opts.predecessors) out.times.add("predecessors device-to-host", pred_download_s, plane_bytes);
  progress.report(1.0);
}

}  // namespace apsp::cuda
