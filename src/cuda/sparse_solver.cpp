#include "cuda/sparse_solver.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/row_split.hpp"
#include "core/tight_edges.hpp"
#include "core/verify_row.hpp"
#include "core/weights.hpp"
#include "cuda/certificate.hpp"
#include "core/cuda_check.hpp"
#include "cuda/device_rows.hpp"
#include "cuda/dispatch.hpp"
#include "cuda/download.hpp"
#include "cuda/gather_columns.hpp"
#include "cuda/gpu_verify.hpp"
#include "cuda/row_solver.hpp"
#include "cuda/testing.hpp"
#include "cuda/verifying_sink.hpp"
#include "sink/part.hpp"

namespace apsp::cuda {
namespace {

// Device memory kept free beside the graph and the result rows: the
// download's device staging (it shrinks its blocks to what is free, down to
// one row) and the runtime's own needs.
constexpr std::size_t kDeviceReserveBytes = std::size_t{512} << 20;
// Device memory the whole rows of a chunk may take when their target
// columns are gathered on the device (SolveOptions::targets, t < n).
constexpr std::size_t kGatheredWorkingBytes = std::size_t{1} << 30;
// With a progress listener, rows are computed in launches of about this many
// seconds, sized from the rate of the launches before (the first is one row
// per resident block), so the bar moves and a listener can stop the solve
// while the device works, and a short solve is not cut into launches that
// each end in a partial wave and a wait: under the Python binding's Ctrl-C
// listener sssp-nearfar at n = 2048 (R-MAT) computed in 2.77 ms with 16
// launches a chunk and in 1.22 ms with launches sized this way (H100,
// docs/perf.md).
constexpr double kProgressLaunchSeconds = 0.05;

// A resumable output (Sink::keeps_partial) counts a row kept only once both
// of its planes are on disk. With predecessors, rows then reach the sink in
// slices of about this many bytes of both planes, distances then
// predecessors, so that a kill keeps every slice before it: the whole
// distance plane first would keep no row until the predecessors began.
// Other sinks take each plane in one download (no pipeline drain per slice).
constexpr std::size_t kResumableSliceBytes = std::size_t{128} << 20;

// The download's view of n x n device rows of each stored type.
DeviceRows rows_of(const std::int32_t* data, std::int64_t n) { return DeviceRows::of_int32(data, n, n); }
DeviceRows rows_of(const float* data, std::int64_t n) { return DeviceRows::of_real(data, n, n); }
DeviceRows rows_of(const double* data, std::int64_t n) { return DeviceRows::of_real(data, n, n); }

// A device matrix whose rows first .. first + rows - 1 are the rows of
// `chunk` (leading dimension n, or `width` for rows of gathered columns):
// the download and the certificate address row i at data + i * ld. Only
// rows of the chunk are ever read through it.
template <class T>
DeviceRows chunk_rows(const T* chunk, std::int64_t first, std::int64_t n, std::int64_t width = 0) {
  const std::int64_t ld = width > 0 ? width : n;
  const auto shifted = reinterpret_cast<std::uintptr_t>(chunk) - static_cast<std::uintptr_t>(first * ld) * sizeof(T);
  DeviceRows rows = rows_of(reinterpret_cast<const T*>(shifted), n);
  rows.ld = ld;
  rows.width = width;
  return rows;
}

// The weights the kernel runs on, reweighted when one is negative: int32
// through cuda::reweight (range-certified int64 potentials), float32 and
// float64 through reweight_real (double potentials).
Reweighted reweight_for_rows(const Graph& g) { return reweight(g); }
RealReweighted<float> reweight_for_rows(const GraphF32& g) { return reweight_real(g); }
RealReweighted<double> reweight_for_rows(const GraphF64& g) { return reweight_real(g); }

// Whether a tie may close a cycle, so that predecessor rows (tight in-edges,
// ties last: the kernel's rule) may loop and each row is checked on the
// host: a cycle of reweighted edges along which a tie is possible. int32: of
// zero weight (a tight edge of positive weight raises the distance). Real
// distances: of weight at most epsilon(D) * n * max_weight; above that,
// du + w rounds above du for every du up to the largest distance, about
// (n - 1) * max_weight (a tie needs w <= ulp(du) / 2 <= epsilon * du / 2),
// with a factor of 2 to spare. The reweighted edges are checked, not the
// graph's: a cycle of weights 1 and -1 reweights to two zero edges.
template <class D>
bool ties_may_close_a_cycle(const std::vector<BasicEdge<D>>& reweighted, std::int64_t n, D max_weight) {
  double tie_weight = 0;
  if constexpr (!std::is_integral<D>::value)
    tie_weight = static_cast<double>(std::numeric_limits<D>::epsilon()) * static_cast<double>(n) * max_weight;
  Graph ties;
  ties.n = n;
  ties.edges.reserve(reweighted.size());
  for (const BasicEdge<D>& e : reweighted) ties.edges.push_back(Edge{e.src, e.dst, e.w <= tie_weight ? 0 : 1});
  bool any_cycle = false;
  zero_weight_components(to_csr(ties), any_cycle);
  return any_cycle;
}

}  // namespace

template <class D>
void solve_rows(const BasicGraph<D>& g, const SolveOptions& opts, const RowSourceFactory<D>& make, Sink& sink,
                SolveSummary& out, ProgressSpan progress) {
  constexpr bool kInt32 = std::is_integral<D>::value;
  const std::int64_t n = g.n;
  // The rows computed: rows 0..wanted-1 (opts.sources, which must be that
  // prefix: the solve layer renumbers the graph so that chosen sources come
  // first), or every row.
  const std::int64_t wanted = opts.sources.empty() ? n : static_cast<std::int64_t>(opts.sources.size());
  for (std::int64_t r = 0; r < static_cast<std::int64_t>(opts.sources.size()); ++r)
    if (opts.sources[static_cast<std::size_t>(r)] != r)
      throw UsageError("the GPU's row solvers compute rows 0..k-1; source " +
                           std::to_string(opts.sources[static_cast<std::size_t>(r)]) + " at entry " +
                           std::to_string(r) + " is not that prefix (apsp::solve renumbers the graph to make it one)",
                       "sources");
  const bool every_row = wanted == n;
  if constexpr (kInt32) out.precision = Precision::int32;
  auto stage_start = std::chrono::steady_clock::now();
  const auto rw = reweight_for_rows(g);  // throws NegativeCycleError
  std::vector<double> kernel_potentials;
  if constexpr (!kInt32) kernel_potentials = rw.potential;
  // The source records its own set-up stages (the supernodal ordering and
  // factor); the rest of its construction is the upload.
  const double before_source = out.times.total();
  LazyDevice device(opts, out.times);
  const std::unique_ptr<RowSource<D>> source =
      make(RowInput<D>{g, rw.edges, rw.max_weight, kernel_potentials, opts.predecessors, device, out.times});
  RowSource<D>& instance = *source;
  const cudaStream_t stream = device.stream();
  out.times.add("host-to-device", std::max(0.0, seconds_since(stage_start) - (out.times.total() - before_source)));

  // int32: the device certificate (kept only when the whole result stays on
  // the device) takes its memory before the rows are budgeted, and the
  // download undoes the potentials. Real rows leave the kernel as the
  // graph's distances and are checked on the host as they pass.
  std::unique_ptr<DeviceVerifier> verifier;
  std::unique_ptr<VerifyingSink<D>> host_verifier;
  DevicePotentials potentials;
  if constexpr (kInt32) {
    if (opts.verify) verifier = std::make_unique<DeviceVerifier>(g, rw.edges, stream);
    potentials = DevicePotentials(rw.potential, stream);
  }

  // Predecessors read off tight edges form trees unless a cycle offers ties;
  // then each row is checked and, where it loops, rebuilt on the host as a
  // tight-edge tree (core/tight_edges.hpp), within the row's rounding
  // tolerance for real distances.
  BasicCsr<D> graph_csr;
  bool rows_may_loop = false;
  double max_abs_weight = 0;
  if (opts.predecessors) {
    graph_csr = to_csr(g);
    rows_may_loop = ties_may_close_a_cycle(rw.edges, n, rw.max_weight);
    max_abs_weight = core::max_abs_weight(graph_csr);
  }

  // Chosen target columns (opts.targets, vertices of the graph solved): each
  // chunk's rows are gathered to them on the device before the download, so
  // the link and the host see rows of `width` values. A row that the host
  // must see whole (checked there, its predecessors repaired, or int32
  // potentials undone by the download) is cut on the host by a PartSink.
  const std::vector<vertex_t>& columns = opts.targets;
  for (std::size_t c = 0; c < columns.size(); ++c)
    if (columns[c] < 0 || columns[c] >= n)
      throw UsageError("target " + std::to_string(columns[c]) + " (entry " + std::to_string(c) +
                           ") is outside the graph's vertices 0.." + std::to_string(n - 1),
                       "targets");
  bool whole_rows_on_host = opts.verify || rows_may_loop;
  if constexpr (kInt32) whole_rows_on_host = whole_rows_on_host || !rw.potential.empty();
  const bool device_gather = !columns.empty() && !whole_rows_on_host;
  const std::int64_t width = device_gather ? static_cast<std::int64_t>(columns.size()) : n;
  std::optional<sink::PartSink> host_cut;
  Sink* into = &sink;
  if (!columns.empty() && !device_gather) {
    host_cut.emplace(sink, std::vector<std::int64_t>{}, columns);
    const Element element = kInt32                          ? Element::int32
                            : std::is_same<D, float>::value ? Element::float32
                                                            : Element::float64;
    host_cut->begin_producer(SinkLayout{n, element, opts.predecessors, opts.sources.empty() ? -1 : wanted});
    into = &*host_cut;
  }
  if (!kInt32 && opts.verify) host_verifier = std::make_unique<VerifyingSink<D>>(*into, g);
  DeviceBuffer<vertex_t> device_columns = device_gather ? upload(columns, stream) : DeviceBuffer<vertex_t>();

  // Rows per chunk: what the device memory left holds (or the testing budget).
  const std::size_t cell_bytes = sizeof(D) + (opts.predecessors ? sizeof(vertex_t) : 0);
  const std::size_t row_bytes = static_cast<std::size_t>(n) * cell_bytes +
                                (device_gather ? static_cast<std::size_t>(width) * cell_bytes : 0);
  // The row split's chunks run on two lanes (the pipeline below) when the
  // source has a second one and the device holds its scratch beside two
  // launches' rows; its memory comes out of the rows' budget.
  RowSplit* const split = opts.row_split;
  std::optional<Stream> second_lane_stream;
  if (split != nullptr && !opts.row_split_serial) second_lane_stream.emplace();
  const bool two_lanes =
      second_lane_stream &&
      instance.open_second_lane(
          second_lane_stream->get(),
          kDeviceReserveBytes + 2 * row_bytes *
                                    static_cast<std::size_t>(std::min<std::int64_t>(std::max<std::int64_t>(wanted, 1),
                                                                                    instance.min_launch_rows())));
  std::size_t free_bytes = 0, total_bytes = 0;
  APSP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::int64_t budget =
      testing::hooks.sparse_row_budget > 0
          ? testing::hooks.sparse_row_budget.load()
          : static_cast<std::int64_t>(free_bytes > kDeviceReserveBytes ? free_bytes - kDeviceReserveBytes : 0);
  std::int64_t chunk =
      std::clamp<std::int64_t>(budget / static_cast<std::int64_t>(row_bytes), 1, std::max<std::int64_t>(wanted, 1));
  // Gathered to fewer columns, the whole rows are only a working set: chunks
  // of about kGatheredWorkingBytes (at least one launch's rows), so the
  // device holds s x n values of no more than that at once.
  if (device_gather && width < n)
    chunk = std::min(chunk, std::max(instance.min_launch_rows(),
                                     static_cast<std::int64_t>(kGatheredWorkingBytes / row_bytes)));
  // Rows shared with a row split (opts.row_split) are only some of the
  // result: they stream as they are drawn.
  const bool streamed = chunk < wanted || split != nullptr;
  // Deferred (a row split's chunks kept on the device until the rank's last
  // chunk or a full `dist`, then downloaded together; see flush below) unless
  // opts.row_split_per_chunk_download asks for the former way (an A/B).
  const bool deferred = split != nullptr && !opts.row_split_per_chunk_download;
  const std::size_t chunk_cells = static_cast<std::size_t>(chunk) * static_cast<std::size_t>(n);
  require_device_memory(row_bytes * static_cast<std::size_t>(chunk),
                        std::to_string(chunk) + " result rows of " + std::to_string(n) + " vertices");
  DeviceBuffer<D> dist(chunk_cells);
  DeviceBuffer<vertex_t> pred(opts.predecessors ? chunk_cells : 0);
  const std::size_t gathered_cells = device_gather ? static_cast<std::size_t>(chunk) * static_cast<std::size_t>(width)
                                                   : 0;
  DeviceBuffer<D> gathered_dist(gathered_cells);
  DeviceBuffer<vertex_t> gathered_pred(opts.predecessors ? gathered_cells : 0);
  // Streamed rows, and some rows only, are checked on the host as they pass
  // (the device certificate checks a whole matrix).
  const bool verify_on_host = streamed || !every_row;
  if (verify_on_host) verifier.reset();

  double compute_s = 0, certificate_s = 0, verify_s = 0, download_s = 0, pred_download_s = 0;
  std::int64_t chunk_first = 0;   // the chunk computed or delivered now
  std::int64_t chunk_offset = 0;  // the row of `dist` that holds row chunk_first
  // Staging and the sink's pages while the first chunk computes.
  HostWarmup warmup(*into, static_cast<std::uint64_t>(width) * cell_bytes * static_cast<std::uint64_t>(wanted));
  // The rows [first, first + count) of the chunk in `rows`, as the download
  // reads them: gathered to the target columns first where the device cuts them.
  // The stream whose work produced the rows delivered now (the row split's
  // pipeline computes on two lanes); the download waits for it.
  cudaStream_t delivery_stream = stream;
  auto rows_to_download = [&](auto* rows, auto* gathered, std::int64_t first, std::int64_t count) {
    rows += chunk_offset * n;
    if (!device_gather) return chunk_rows(rows, chunk_first, n);
    gather_columns(rows + (first - chunk_first) * n, n, count, device_columns.get(), width, gathered, delivery_stream);
    return chunk_rows(static_cast<const std::remove_pointer_t<decltype(gathered)>*>(gathered), first, n, width);
  };
  auto deliver_slice = [&](std::int64_t first, std::int64_t count) {
    auto start = std::chrono::steady_clock::now();
    DownloadOptions rows;
    rows.first_row = first;
    rows.rows = count;
    DownloadOptions dist_rows = rows;
    if constexpr (kInt32) {
      if (opts.verify && verify_on_host) {
        // The O(n * m) certificate of each streamed row, on the host as the
        // rows pass (the device holds no whole matrix to check).
        dist_rows.patch = [&](std::int64_t row0, std::int64_t block_rows, std::int32_t* data, std::int64_t stride) {
          std::int64_t failing = block_rows;
#pragma omp parallel for schedule(dynamic, 1) reduction(min : failing)
          for (std::int64_t r = 0; r < block_rows; ++r)
            if (!first_violation_in_row(g, data + r * stride, row0 + r).empty()) failing = std::min(failing, r);
          if (failing < block_rows)
            throw VerifyError(first_violation_in_row(g, data + failing * stride, row0 + failing));
        };
      }
      download_to_sink(rows_to_download(dist.get(), gathered_dist.get(), first, count), Plane::distances, potentials,
                       *into, dist_rows, delivery_stream);
    } else if (host_verifier) {
      download_to_sink(chunk_rows(dist.get() + chunk_offset * n, chunk_first, n), Plane::distances, potentials,
                       *host_verifier, dist_rows, delivery_stream);
    } else {
      download_to_sink(rows_to_download(dist.get(), gathered_dist.get(), first, count), Plane::distances, potentials,
                       *into, dist_rows, delivery_stream);
    }
    if (device_gather) ++testing::hooks.gathered_chunks;
    const double dist_s = seconds_since(start);
    download_s += dist_s;

    if (!opts.predecessors) return;
    start = std::chrono::steady_clock::now();
    DownloadOptions pred_rows = rows;
    if (rows_may_loop) {
      pred_rows.patch = [&](std::int64_t row0, std::int64_t block_rows, std::int32_t* data, std::int64_t stride) {
        core::PredecessorRepair repair(n);
        std::vector<D> row(static_cast<std::size_t>(n));
        for (std::int64_t r = 0; r < block_rows; ++r) {
          const std::int64_t source = row0 + r;
          // A plain copy: the download in progress holds the staging pool.
          APSP_CUDA_CHECK(cudaMemcpy(row.data(), dist.get() + (chunk_offset + source - chunk_first) * n,
                                     static_cast<std::size_t>(n) * sizeof(D), cudaMemcpyDeviceToHost));
          double slack = 0;
          if constexpr (kInt32) {
            // The distances' download already proved every entry fits int32.
            const std::vector<std::int64_t>& h = rw.potential;
            if (!h.empty())
              for (std::int64_t j = 0; j < n; ++j)
                if (row[j] != kInf) row[j] = static_cast<dist_t>(std::int64_t{row[j]} - h[source] + h[j]);
          } else {
            slack = core::row_tolerance(graph_csr, row.data(), max_abs_weight);
          }
          if (repair.row(graph_csr, row.data(), static_cast<vertex_t>(source), data + r * stride, slack))
            ++testing::hooks.repaired_rows;
        }
      };
    }
    download_to_sink(rows_to_download(pred.get(), gathered_pred.get(), first, count), Plane::predecessors,
                     DevicePotentials{}, *into, pred_rows, delivery_stream);
    pred_download_s += seconds_since(start);
  };
  const std::int64_t slice_rows =
      opts.predecessors && sink.keeps_partial()
          ? std::max<std::int64_t>(1, static_cast<std::int64_t>(kResumableSliceBytes / row_bytes))
          : std::max<std::int64_t>(wanted, 1);
  auto deliver = [&](std::int64_t first, std::int64_t count) {
    warmup.finish();
    for (std::int64_t at = first; at < first + count; at += slice_rows)
      deliver_slice(at, std::min(slice_rows, first + count - at));
  };

  // With a listener: at least one row per resident block a launch (the first
  // launch exactly that), then what the last launch's rate gives for
  // kProgressLaunchSeconds, at most the chunk.
  const std::int64_t fewest_rows = std::min<std::int64_t>(instance.min_launch_rows(), chunk);
  std::int64_t launch_rows = progress ? fewest_rows : chunk;
  // Computing is this share of the bar when the rows stay on the device until the end.
  const double compute_share = streamed ? 1.0 : 0.8;
  Event begin, end;
  // Rows [chunk_first, chunk_first + rows) into `dist`, certified, and
  // delivered when streamed; `done_fraction` is the bar's position after them.
  auto compute_chunk = [&](std::int64_t rows, double done_fraction) {
    for (std::int64_t done = 0, count = 0; done < rows; done += count) {
      count = std::min(launch_rows, rows - done);
      begin.record(stream);
      const std::int64_t at = (chunk_offset + done) * n;
      instance.run(chunk_first + done, count, dist.get() + at, opts.predecessors ? pred.get() + at : nullptr, n);
      end.record(stream);
      const double launch_s = elapsed_ms(begin, end) / 1000.0;
      compute_s += launch_s;
      if (progress && launch_s > 0)
        launch_rows = std::max(fewest_rows, static_cast<std::int64_t>(std::min(
                                                static_cast<double>(chunk),
                                                kProgressLaunchSeconds * static_cast<double>(count) / launch_s)));
      if (!streamed)
        progress.report(compute_share * static_cast<double>(chunk_first + done + count) / static_cast<double>(wanted));
    }
    if constexpr (kInt32) {
      stage_start = std::chrono::steady_clock::now();
      if (instance.range_escaped()) throw_range_refusal(!rw.potential.empty());
      certificate_s += seconds_since(stage_start);
    }
    if (streamed) {
      if (!deferred) deliver(chunk_first, rows);
      ++testing::hooks.sparse_chunks;
      progress.report(done_fraction);
    }
  };
  // The row split's computed chunks kept in `dist` (deferred): each one's
  // first row, rows and row of `dist`; flush() delivers them in that order
  // and empties `dist`.
  struct Kept {
    std::int64_t first = 0, rows = 0, offset = 0;
  };
  std::vector<Kept> kept;
  std::int64_t kept_rows = 0;
  auto flush = [&] {
    // deliver() reads the chunk in chunk_first / chunk_offset; the drawing
    // loop's position in chunk_first is restored after.
    const std::int64_t position = chunk_first;
    for (const Kept& k : kept) {
      chunk_first = k.first;
      chunk_offset = k.offset;
      deliver(k.first, k.rows);
    }
    if (!kept.empty()) ++testing::hooks.row_split_flushes;
    kept.clear();
    kept_rows = 0;
    chunk_offset = 0;
    chunk_first = position;
  };
  if (split == nullptr) {
    for (chunk_first = 0; chunk_first < wanted; chunk_first += chunk) {
      const std::int64_t rows = std::min(chunk, wanted - chunk_first);
      compute_chunk(rows, static_cast<double>(chunk_first + rows) / static_cast<double>(wanted));
    }
  } else if (two_lanes && (deferred || chunk >= 3)) {
    // The row split's pipeline. Pieces of the drawn chunks alternate between
    // the two lanes, and piece k + 1 is queued (its chunk drawn first when k
    // ends one) as soon as piece k - 1's launch is done, while k computes:
    // its blocks start on the SMs that k's slowest sources leave idle. The
    // host's range check and download of a piece overlap the next pieces'
    // compute: per chunk, pieces take thirds of `dist` in turn, and piece
    // k - 2 downloads (on its lane) while k - 1 and k compute, so a
    // download never holds back the next launch. Deferred: pieces are packed
    // in `dist` as in the serial way, and a full `dist` is flushed once the
    // pieces in flight are done. compute_s is the time the device had a
    // piece in flight: the union of the pieces' [queued, done] intervals on
    // the device's clock, so overlapping pieces are counted once and a
    // device idle between them (the host late) not at all.
    struct Piece {
      std::int64_t first = 0, rows = 0, offset = 0;
      int lane = 0;
      double handed_out = 0;
    };
    const cudaStream_t lane_stream[2] = {stream, second_lane_stream->get()};
    // Lane 1 starts after the set-up queued on lane 0 (potentials, target columns).
    Event origin, lane_begin[2], lane_end[2];
    origin.record(stream);
    APSP_CUDA_CHECK(cudaStreamWaitEvent(lane_stream[1], origin.get(), 0));
    // On the way out (an error included) lane 1 is idle before the rows' memory goes.
    struct LaneDrain {
      cudaStream_t lane;
      ~LaneDrain() { cudaStreamSynchronize(lane); }
    } drain_on_exit{lane_stream[1]};
    const std::int64_t third = chunk / 3;
    float covered_ms = 0;  // the device's clock up to which compute_s counts
    auto enqueue = [&](const Piece& p) {
      lane_begin[p.lane].record(lane_stream[p.lane]);
      const std::int64_t at = p.offset * n;
      instance.run_on(p.lane, p.first, p.rows, dist.get() + at, opts.predecessors ? pred.get() + at : nullptr, n);
      lane_end[p.lane].record(lane_stream[p.lane]);
      ++testing::hooks.row_split_pipelined_pieces;
    };
    // Waits for the piece's launch (its lane is free after), counts its
    // compute and checks its range.
    auto complete = [&](const Piece& p) {
      APSP_CUDA_CHECK(cudaEventSynchronize(lane_end[p.lane].get()));
      float begin_ms = 0, end_ms = 0;
      APSP_CUDA_CHECK(cudaEventElapsedTime(&begin_ms, origin.get(), lane_begin[p.lane].get()));
      APSP_CUDA_CHECK(cudaEventElapsedTime(&end_ms, origin.get(), lane_end[p.lane].get()));
      compute_s += std::max(0.0f, end_ms - std::max(begin_ms, covered_ms)) / 1000.0;
      covered_ms = std::max(covered_ms, end_ms);
      const double launch_s = (end_ms - begin_ms) / 1000.0;
      if (progress && launch_s > 0)
        launch_rows = std::max(fewest_rows, static_cast<std::int64_t>(std::min(
                                                static_cast<double>(chunk),
                                                kProgressLaunchSeconds * static_cast<double>(p.rows) / launch_s)));
      if constexpr (kInt32) {
        stage_start = std::chrono::steady_clock::now();
        if (instance.range_escaped_on(p.lane)) throw_range_refusal(!rw.potential.empty());
        certificate_s += seconds_since(stage_start);
      }
    };
    // A completed piece into the sink (per chunk; its third is free after)
    // or kept in `dist` (deferred).
    auto hand_over = [&](const Piece& p) {
      if (deferred) {
        kept.push_back(Kept{p.first, p.rows, p.offset});
        kept_rows += p.rows;
      } else {
        chunk_first = p.first;
        chunk_offset = p.offset;
        delivery_stream = lane_stream[p.lane];
        deliver(p.first, p.rows);
        delivery_stream = stream;
      }
      ++testing::hooks.sparse_chunks;
      progress.report(p.handed_out);
    };
    std::optional<Piece> running;   // queued; its launch not yet waited for
    std::optional<Piece> computed;  // completed; not yet handed over
    auto drain = [&] {
      if (computed) hand_over(*computed);
      computed.reset();
      if (running) {
        complete(*running);
        hand_over(*running);
      }
      running.reset();
    };
    std::int64_t next_free = 0;  // deferred: the first row of `dist` that no piece holds
    std::int64_t pieces = 0;
    for (RowSplit::Range drawn = split->next(); drawn.count > 0; drawn = split->next()) {
      const double handed_out = static_cast<double>(split->rows_before(drawn.chunk + 1)) /
                                static_cast<double>(std::max<std::int64_t>(1, split->rows()));
      const std::int64_t drawn_end = drawn.first + drawn.count;
      for (std::int64_t at = drawn.first; at < drawn_end;) {
        if (deferred && next_free == chunk) {
          drain();
          flush();
          next_free = 0;
        }
        // Piece k's lane was piece k - 2's (completed), its third piece k - 3's (handed over).
        const std::int64_t room = deferred ? chunk - next_free : third;
        const Piece piece{at, std::min({room, drawn_end - at, launch_rows}),
                          deferred ? next_free : (pieces % 3) * third, static_cast<int>(pieces % 2), handed_out};
        enqueue(piece);
        if (computed) hand_over(*computed);
        computed.reset();
        if (running) {
          complete(*running);
          computed = running;
        }
        running = piece;
        if (deferred) next_free += piece.rows;
        ++pieces;
        at += piece.rows;
      }
    }
    drain();
    flush();
  } else {
    // The row split's chunks, each in pieces of what the device holds; the
    // bar is the fraction of rows handed out to every consumer.
    for (RowSplit::Range drawn = split->next(); drawn.count > 0; drawn = split->next()) {
      const double handed_out = static_cast<double>(split->rows_before(drawn.chunk + 1)) /
                                static_cast<double>(std::max<std::int64_t>(1, split->rows()));
      const std::int64_t drawn_end = drawn.first + drawn.count;
      for (chunk_first = drawn.first; chunk_first < drawn_end;) {
        if (deferred && kept_rows == chunk) flush();
        // Deferred: as much of the drawn rows as `dist` still holds, after
        // the rows kept there; else from the start of `dist`.
        const std::int64_t rows = std::min(chunk - kept_rows, drawn_end - chunk_first);
        chunk_offset = kept_rows;
        compute_chunk(rows, handed_out);
        if (deferred) {
          kept.push_back(Kept{chunk_first, rows, kept_rows});
          kept_rows += rows;
        }
        chunk_first += rows;
      }
    }
    flush();
  }
  out.times.add("compute", compute_s);
  if constexpr (kInt32) out.times.add("range certificate", certificate_s);
  if (!streamed) {
    chunk_first = 0;
    if (verifier) {
      stage_start = std::chrono::steady_clock::now();
      const VerifyReport report = verifier->verify(rows_of(dist.get(), n), potentials, stream);
      if (!report.ok) throw VerifyError(report.first_violation);
      verify_s = seconds_since(stage_start);
      out.times.add("verify (device)", verify_s);
    }
    deliver(0, wanted);
    ++testing::hooks.sparse_chunks;
  }
  out.verified = opts.verify;
  if constexpr (kInt32)
    if (instance.rows_in_int16()) out.precision = Precision::int16;
  const std::uint64_t plane_bytes = static_cast<std::uint64_t>(wanted) * static_cast<std::uint64_t>(width) * sizeof(D);
  const bool verified_on_host = opts.verify && (verify_on_host || !kInt32);
  out.times.add(verified_on_host ? "device-to-host (+ verify on host)" : "device-to-host", download_s, plane_bytes);
  if (opts.predecessors)
    out.times.add("predecessors device-to-host", pred_download_s,
                  static_cast<std::uint64_t>(wanted) * static_cast<std::uint64_t>(width) * sizeof(vertex_t));
  progress.report(1.0);
}

template void solve_rows(const Graph&, const SolveOptions&, const RowSourceFactory<std::int32_t>&, Sink&, SolveSummary&,
                         ProgressSpan);
template void solve_rows(const GraphF32&, const SolveOptions&, const RowSourceFactory<float>&, Sink&, SolveSummary&,
                         ProgressSpan);
template void solve_rows(const GraphF64&, const SolveOptions&, const RowSourceFactory<double>&, Sink&, SolveSummary&,
                         ProgressSpan);

namespace {

// The factory of the batched single-source rows of `variant`.
template <class D>
RowSourceFactory<D> sparse_rows(SparseVariant variant) {
  return [variant](const RowInput<D>& in) -> std::unique_ptr<RowSource<D>> {
    // The CSR (and its transpose) and the near-far step on the host first,
    // while the context may still be in the making; then the device.
    SparseHostGraph<D> host(in.reweighted, in.graph.n, in.predecessors);
    const D delta = near_far_delta(in.reweighted);
    return std::make_unique<BasicSparseInstance<D>>(std::move(host), in.max_weight, variant, delta, in.device.stream(),
                                                    in.potentials);
  };
}

}  // namespace

template <class D>
SparseHostGraph<D>::SparseHostGraph(const std::vector<BasicEdge<D>>& reweighted_edges, std::int64_t n,
                                    bool predecessors)
    : n(n), predecessors(predecessors) {
  BasicGraph<D> reweighted;
  reweighted.n = n;
  reweighted.edges = reweighted_edges;
  out = to_csr(reweighted);
  if (predecessors) in = transpose(out);
}

template <class D>
BasicSparseInstance<D>::BasicSparseInstance(const std::vector<BasicEdge<D>>& reweighted_edges, std::int64_t n,
                                            D max_weight, SparseVariant variant, bool predecessors, D delta,
                                            cudaStream_t stream, const std::vector<double>& potentials)
    : BasicSparseInstance(SparseHostGraph<D>(reweighted_edges, n, predecessors), max_weight, variant, delta, stream,
                          potentials) {}

template <class D>
BasicSparseInstance<D>::BasicSparseInstance(SparseHostGraph<D> host, D max_weight, SparseVariant variant, D delta,
                                            cudaStream_t stream, const std::vector<double>& potentials)
    : stream_(stream) {
  constexpr bool kInt32 = std::is_integral<D>::value;
  const std::int64_t n = host.n;
  const bool predecessors = host.predecessors;
  if (!potentials.empty() && (kInt32 || static_cast<std::int64_t>(potentials.size()) != n))
    throw UsageError("SparseInstance: " + std::to_string(potentials.size()) + " potentials for a " + std::to_string(n) +
                     "-vertex " + to_string(weight_type_of<D>) + " graph (int32 rows leave them to the download)");
  const BasicCsr<D>& out = host.out;
  const BasicCsr<D>& in = host.in;
  const std::size_t csr_bytes = (static_cast<std::size_t>(n) + 1) * sizeof(std::int64_t) +
                                out.col.size() * (sizeof(vertex_t) + sizeof(D));
  launch_.variant = variant;
  launch_.shared_row = !testing::hooks.sparse_global_row && sparse_shared_row_fits<D>(n);
  if constexpr (kInt32)
    launch_.delta = std::max<D>(1, delta);
  else
    launch_.delta = delta > 0 ? delta : D{1};
  launch_.max_weight = max_weight;
  const std::size_t scratch = sparse_scratch_bytes(n, launch_.shared_row);
  const std::size_t potential_bytes = potentials.size() * sizeof(double);
  require_device_memory(csr_bytes * (predecessors ? 2 : 1) + potential_bytes + scratch,
                        "the " + std::to_string(n) + "-vertex graph and one SSSP block's scratch");
  // As many blocks as stay resident, no more than there are sources, and no
  // more than half the free memory holds scratch for.
  std::size_t free_bytes = 0, total_bytes = 0;
  APSP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const auto affordable =
      static_cast<std::int64_t>((free_bytes - csr_bytes * (predecessors ? 2 : 1) - potential_bytes) / 2 / scratch);
  const std::int64_t cap = testing::hooks.sparse_max_blocks > 0 ? testing::hooks.sparse_max_blocks.load() : n;
  launch_.blocks = static_cast<int>(std::max<std::int64_t>(
      1, std::min<std::int64_t>({sparse_resident_blocks<D>(variant, launch_.shared_row, n), n, affordable, cap})));

  out_rows_ = upload(out.row_start, stream);
  out_cols_ = upload(out.col, stream);
  out_weights_ = upload(out.weight, stream);
  launch_.out = BasicDeviceCsr<D>{out_rows_.get(), out_cols_.get(), out_weights_.get(), n,
                                  static_cast<std::int64_t>(out.col.size())};
  if (predecessors) {
    in_rows_ = upload(in.row_start, stream);
    in_cols_ = upload(in.col, stream);
    in_weights_ = upload(in.weight, stream);
    launch_.in = BasicDeviceCsr<D>{in_rows_.get(), in_cols_.get(), in_weights_.get(), n,
                                   static_cast<std::int64_t>(in.col.size())};
  }
  if (!potentials.empty()) {
    potentials_ = upload(potentials, stream);
    launch_.potentials = potentials_.get();
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

template <class D>
bool BasicSparseInstance<D>::open_second_lane(cudaStream_t stream, std::size_t keep_free) {
  if (second_stream_ != nullptr) return true;
  const auto n = static_cast<std::size_t>(launch_.out.n);
  const auto blocks = static_cast<std::size_t>(launch_.blocks);
  const std::size_t queue_cells = blocks * 4 * n;
  const std::size_t bitmap_words =
      launch_.shared_row ? 0 : blocks * 2 * static_cast<std::size_t>(sparse_bitmap_words(launch_.out.n));
  const std::size_t bytes = queue_cells * sizeof(vertex_t) + bitmap_words * sizeof(unsigned) +
                            sizeof(unsigned long long);
  std::size_t free_bytes = 0, total_bytes = 0;
  APSP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < keep_free || free_bytes - keep_free < bytes) return false;
  second_queues_ = DeviceBuffer<vertex_t>(queue_cells);
  second_bitmaps_ = DeviceBuffer<unsigned>(bitmap_words);
  second_next_source_ = DeviceBuffer<unsigned long long>(1);
  second_stream_ = stream;
  return true;
}

template <class D>
void BasicSparseInstance<D>::run_on(int lane, std::int64_t first, std::int64_t count, D* dist, vertex_t* pred,
                                    std::int64_t ld) {
  if (lane == 0) return run(first, count, dist, pred, ld);
  if (lane != 1 || second_stream_ == nullptr)
    throw UsageError("SparseInstance::run_on: lane " + std::to_string(lane) + " was never opened");
  launch_on(first, count, dist, pred, ld, second_queues_.get(), second_bitmaps_.get(), second_next_source_.get(),
            second_stream_);
}

template <class D>
void BasicSparseInstance<D>::run(std::int64_t first, std::int64_t count, D* dist, vertex_t* pred, std::int64_t ld) {
  launch_on(first, count, dist, pred, ld, launch_.queues, launch_.bitmaps, launch_.next_source, stream_);
}

template <class D>
void BasicSparseInstance<D>::launch_on(std::int64_t first, std::int64_t count, D* dist, vertex_t* pred, std::int64_t ld,
                                       vertex_t* queues, unsigned* bitmaps, unsigned long long* next_source,
                                       cudaStream_t stream) {
  const std::int64_t n = launch_.out.n;
  if (first < 0 || count < 0 || first + count > n || ld < n || (count > 0 && dist == nullptr))
    throw UsageError("SparseInstance::run: rows " + std::to_string(first) + "+" + std::to_string(count) + " of a " +
                     std::to_string(n) + "-vertex graph into rows of " + std::to_string(ld));
  if (pred != nullptr && launch_.in.row_start == nullptr)
    throw UsageError("SparseInstance::run: predecessors asked of an instance built without them", "predecessors");
  BasicSparseRowsLaunch<D> a = launch_;
  a.first_source = first;
  a.sources = count;
  a.dist = dist;
  a.pred = pred;
  a.ld = ld;
  a.queues = queues;
  a.bitmaps = bitmaps;
  a.next_source = next_source;
  launch_sparse_rows(a, stream);
}

template <class D>
bool BasicSparseInstance<D>::range_escaped() {
  return range_escaped_on(0);
}

template <class D>
bool BasicSparseInstance<D>::range_escaped_on(int lane) {
  if (lane != 0 && (lane != 1 || second_stream_ == nullptr))
    throw UsageError("SparseInstance::range_escaped_on: lane " + std::to_string(lane) + " was never opened");
  const cudaStream_t stream = lane == 0 ? stream_ : second_stream_;
  int host = 0;
  APSP_CUDA_CHECK(cudaMemcpyAsync(&host, range_escaped_.get(), sizeof(int), cudaMemcpyDeviceToHost, stream));
  APSP_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host != 0;
}

template struct SparseHostGraph<std::int32_t>;
template struct SparseHostGraph<float>;
template struct SparseHostGraph<double>;
template class BasicSparseInstance<std::int32_t>;
template class BasicSparseInstance<float>;
template class BasicSparseInstance<double>;

void solve_sparse(const Graph& g, const SolveOptions& opts, SparseVariant variant, Sink& sink, SolveSummary& out,
                  ProgressSpan progress) {
  solve_rows(g, opts, sparse_rows<std::int32_t>(variant), sink, out, progress);
}
void solve_sparse(const GraphF32& g, const SolveOptions& opts, SparseVariant variant, Sink& sink, SolveSummary& out,
                  ProgressSpan progress) {
  solve_rows(g, opts, sparse_rows<float>(variant), sink, out, progress);
}
void solve_sparse(const GraphF64& g, const SolveOptions& opts, SparseVariant variant, Sink& sink, SolveSummary& out,
                  ProgressSpan progress) {
  solve_rows(g, opts, sparse_rows<double>(variant), sink, out, progress);
}

}  // namespace apsp::cuda
