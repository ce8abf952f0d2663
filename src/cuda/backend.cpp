// Host dispatch of the CUDA backend: device checks, Johnson reweighting,
// building the matrix on the device, running the chosen algorithm, the
// certificates of its result, and the chunked, pinned download. Contains no
// kernels and nothing particular to one algorithm.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <thread>

#include "apsp/cuda.hpp"
#include "apsp/error.hpp"
#include "apsp/registry.hpp"
#include "core/algorithm_checks.hpp"
#include "core/progress.hpp"
#include "cuda/algorithm.hpp"
#include "cuda/certificate.hpp"
#include "core/cuda_check.hpp"
#include "cuda/device_rows.hpp"
#include "cuda/dispatch.hpp"
#include "cuda/download.hpp"
#include "cuda/staging.hpp"
#include "cuda/gpu_verify.hpp"
#include "cuda/instance.hpp"
#include "cuda/out_of_core_solver.hpp"
#include "core/cuda_memory.hpp"
#include "cuda/sparse_solver.hpp"
#include "cuda/supernodal_solver.hpp"
#include "cuda/testing.hpp"
#include "core/graph_probe.hpp"
#include "core/csr.hpp"
#include "core/tight_edges.hpp"

namespace apsp::cuda {

// Twice the largest hop distance seen by breadth-first searches from two
// sources, times the largest weight: a cheap guess at the largest finite
// distance. Only a hint for choosing the int16 attempt; the GPU result is
// certified.
std::int64_t estimate_largest_distance(const std::vector<Edge>& sorted_edges, std::int64_t n, weight_t max_weight) {
  return 2 * core::largest_hop_depth(sorted_edges, n, {0, n / 2}) * std::int64_t{max_weight};
}

void require_row_split_honoured(const GpuAlgorithm& algo, const SolveOptions& opts) {
  if (opts.row_split != nullptr && !algo.supernodal && algo.sparse_variant < 0)
    throw UsageError(std::string(algo.info.name) + " computes the whole matrix at once; a row split is for sssp (and "
                                                   "its ladder) and supernodal on the GPU",
                     "algorithm");
}

const GpuAlgorithm& find_gpu_algorithm(const std::string& name) {
  const std::string wanted = name == "auto" ? gpu_auto_algorithm().info.name : name;
  for (const GpuAlgorithm& a : gpu_algorithm_table())
    if (wanted == a.info.name) return a;
  throw_unknown_algorithm(name, Backend::cuda, gpu_algorithm_infos());
}

namespace {

// Why the runtime listed no device (cudaGetDeviceCount's error, "no
// CUDA-capable device is detected", or an old or missing driver), or empty.
std::string& device_count_error() {
  static std::string error;
  return error;
}

}  // namespace

void use_device(const SolveOptions& opts) {
  const std::vector<DeviceInfo>& found = devices();
  if (found.empty())
    throw ResourceError(device_count_error().empty()
                            ? std::string("no CUDA device found")
                            : "no CUDA device found (the CUDA runtime says: " + device_count_error() + ")");
  if (opts.device < 0 || opts.device >= static_cast<int>(found.size()))
    throw UsageError("CUDA device " + std::to_string(opts.device) + " does not exist (found " +
                         std::to_string(found.size()) + ")",
                     "device");
  APSP_CUDA_CHECK(cudaSetDevice(opts.device));
}

void start_device(const SolveOptions& opts, StageTimes& times) {
  const auto start = std::chrono::steady_clock::now();
  use_device(opts);
  APSP_CUDA_CHECK(cudaFree(nullptr));  // the context, if cudaSetDevice did not create it
  times.add("device start", seconds_since(start));
}

cudaStream_t LazyDevice::stream() {
  if (!stream_) {
    start_device(opts_, times_);
    stream_ = std::make_unique<Stream>();
  }
  return stream_->get();
}

// The device is the calling thread's: a new thread's current device is 0, so
// the warm-up sets it before the staging pool (per device) is made.
HostWarmup::HostWarmup(Sink& sink, std::uint64_t result_bytes)
    : thread_([this, &sink, result_bytes, device = current_device()] {
        try {
          APSP_CUDA_CHECK(cudaSetDevice(device));
          // The buffers this result's download uses, not the whole set: a
          // part of a few MiB page-locks one 32 MiB buffer, not 192 MiB.
          prepare_staging(result_bytes);
          if (result_bytes >= kMinPreparedBytes || testing::hooks.prepare_every_sink) sink.prepare();
        } catch (...) {
          failure_ = std::current_exception();
        }
      }) {}

HostWarmup::~HostWarmup() {
  if (thread_.joinable()) thread_.join();
}

void HostWarmup::finish() {
  if (thread_.joinable()) thread_.join();
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

int current_device() {
  int device = 0;
  APSP_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

bool compiled_in() { return true; }

void create_context(int device) {
  const int count = static_cast<int>(devices().size());
  if (device < 0 || device >= count)
    throw UsageError("CUDA device " + std::to_string(device) + " does not exist (found " + std::to_string(count) + ")",
                     "device");
  APSP_CUDA_CHECK(cudaSetDevice(device));
  APSP_CUDA_CHECK(cudaFree(nullptr));
}

const std::vector<DeviceInfo>& devices() {
  // Properties only: enumerating creates no context on any device, and the
  // devices a process sees do not change, so once is enough.
  static const std::vector<DeviceInfo> found = [] {
    std::vector<DeviceInfo> out;
    int count = 0;
    if (const cudaError_t status = cudaGetDeviceCount(&count); status != cudaSuccess) {
      device_count_error() = cudaGetErrorString(status);
      cudaGetLastError();
      return out;
    }
    for (int d = 0; d < count; ++d) {
      cudaDeviceProp prop{};
      if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) {
        cudaGetLastError();
        continue;
      }
      DeviceInfo info;
      info.ordinal = d;
      info.name = prop.name;
      info.sm_major = prop.major;
      info.sm_minor = prop.minor;
      info.multiprocessors = prop.multiProcessorCount;
      info.total_memory = prop.totalGlobalMem;
      out.push_back(info);
    }
    return out;
  }();
  return found;
}

std::vector<std::string> algorithms() {
  std::vector<std::string> names;
  for (const GpuAlgorithm& a : gpu_algorithm_table()) names.emplace_back(a.info.name);
  return names;
}

std::string fw_device_shortfall(std::int64_t n, const SolveOptions& opts) {
  use_device(opts);
  return dense_shortfall(n, opts);
}

void solve(const Graph& g, const SolveOptions& opts, Sink& sink, SolveSummary& out) {
  const GpuAlgorithm& algo = find_gpu_algorithm(opts.algorithm);
  require_options_honoured(algo.info.name, Backend::cuda, opts, gpu_algorithm_infos());
  require_row_split_honoured(algo, opts);
  // The row solvers start the device themselves, after their host work (LazyDevice).
  const bool row_solver = algo.supernodal || algo.sparse_variant >= 0;
  if (!row_solver || g.n == 0) start_device(opts, out.times);
  out.algorithm = algo.info.name;
  out.backend = Backend::cuda;
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
  if (algo.sparse_variant >= 0) {
    // The batched single-source path: the graph and a chunk of rows on the device.
    solve_sparse(g, opts, static_cast<SparseVariant>(algo.sparse_variant), sink, out, meter.whole());
    meter.finish();
    return;
  }
  Stream stream;
  if (algo.out_of_core) {
    // The matrix in host memory, streamed through the device in super-rounds.
    solve_out_of_core(g, opts, sink, out, meter.whole());
    meter.finish();
    return;
  }
  if (opts.memory_budget > 0) {
    const std::string shortfall = dense_shortfall(n, opts);
    if (!shortfall.empty())
      throw ResourceError(shortfall + "; fw-ooc (--backend cuda) solves it out of core from host memory");
  }
  auto stage_start = std::chrono::steady_clock::now();
  DeviceInstance instance(g, algo, opts.predecessors, stream.get());
  out.times.add("host-to-device", seconds_since(stage_start));
  GpuProblem problem = instance.problem();
  problem.block = opts.block;
  problem.precision = opts.precision;
  problem.progress = meter.whole();
  problem.checkpoints = sink.round_checkpoints();
  Int16Result int16_result;
  problem.int16_result = &int16_result;
  if (opts.precision == Precision::automatic) {
    stage_start = std::chrono::steady_clock::now();
    problem.distance_estimate = estimate_largest_distance(instance.reweighted().edges, n, problem.max_weight);
    out.times.add("distance estimate", seconds_since(stage_start));
  }
  // Staging and the sink's pages while the device computes.
  HostWarmup warmup(sink, static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n) *
                              (sizeof(dist_t) + (opts.predecessors ? sizeof(vertex_t) : 0)));
  Event compute_begin, compute_end;
  compute_begin.record(stream.get());
  algo.run(problem);
  compute_end.record(stream.get());
  out.times.add("compute", elapsed_ms(compute_begin, compute_end) / 1000.0);
  warmup.finish();
  out.precision = problem.used_precision;

  // The range certificate (range_rule.hpp): every algorithm computed in
  // int32 with kInf as infinity, or certified a narrower width itself.
  stage_start = std::chrono::steady_clock::now();
  const Reweighted& rw = instance.reweighted();
  const std::int64_t n_pad = problem.n_pad;
  const bool narrow = int16_result.cells.get() != nullptr;  // certified by the int16 attempt itself
  const RangeView<dist_t> result{problem.dist, n, n_pad, 0, kInf};
  if (!narrow && !instance.certificate().holds(result)) throw_range_refusal(!rw.potential.empty());
  std::vector<std::int64_t> broken_rows = opts.predecessors
                                              ? rows_with_broken_predecessors(problem.pred, n, n_pad, stream.get())
                                              : std::vector<std::int64_t>{};
  out.times.add("range certificate", seconds_since(stage_start));

  stage_start = std::chrono::steady_clock::now();
  const DevicePotentials potentials(rw.potential, stream.get());
  const DeviceRows rows =
      narrow ? DeviceRows::of_int16(int16_result.cells.get(), n, int16_result.ld, int16_result.infinity)
             : DeviceRows::of_int32(problem.dist, n, n_pad);
  if (opts.verify) {
    // The O(n * m) certificate on the device-resident, still reweighted
    // result, before anything crosses the link.
    const VerifyReport report = DeviceVerifier(g, rw.edges, stream.get()).verify(rows, potentials, stream.get());
    if (!report.ok) throw VerifyError(report.first_violation);
    out.verified = true;
    out.times.add("verify (device)", seconds_since(stage_start));
    stage_start = std::chrono::steady_clock::now();
  }

  const std::uint64_t plane_bytes = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n) * sizeof(dist_t);
  download_to_sink(rows, Plane::distances, potentials, sink, DownloadOptions{}, stream.get());
  out.times.add("device-to-host", seconds_since(stage_start), plane_bytes);
  if (opts.predecessors) {
    stage_start = std::chrono::steady_clock::now();
    const std::vector<std::int64_t>& h = rw.potential;
    // A broken row's distances, fetched again from the device and
    // un-reweighted (the distances' download proved they fit int32).
    auto fetch_row = [&](std::int64_t i, dist_t* row) {
      APSP_CUDA_CHECK(cudaMemcpy(row, problem.dist + i * n_pad, static_cast<std::size_t>(n) * sizeof(dist_t),
                                 cudaMemcpyDeviceToHost));
      if (!h.empty())
        for (std::int64_t j = 0; j < n; ++j)
          if (row[j] != kInf) row[j] = static_cast<dist_t>(std::int64_t{row[j]} - h[i] + h[j]);
    };
    download_predecessors<weight_t, dist_t>(problem.pred, n, n_pad, std::move(broken_rows), g, fetch_row, 0.0, sink,
                                            stream.get());
    out.times.add("predecessors device-to-host", seconds_since(stage_start), plane_bytes);
  }
  meter.finish();
}

}  // namespace apsp::cuda
