// Host dispatch of the CUDA backend: device checks, Johnson reweighting,
// building the matrix on the device, running the chosen algorithm, and the
// chunked, pinned download. Contains no kernels.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <string>

#include "algorithm.cuh"
#include "apsp/cuda.hpp"
#include "apsp/error.hpp"
#include "apsp/potentials.hpp"
#include "check.cuh"
#include "matrix_setup.cuh"
#include "memory.cuh"

namespace apsp::cuda {
namespace {

const GpuAlgorithm& find_algorithm(const std::string& name) {
  const std::string wanted = name == "auto" ? "fw" : name;
  for (const GpuAlgorithm& a : gpu_algorithm_table())
    if (wanted == a.name) return a;
  std::string known;
  for (const GpuAlgorithm& a : gpu_algorithm_table()) known += std::string(known.empty() ? "" : ", ") + a.name;
  throw UsageError("unknown CUDA algorithm '" + name + "' (expected auto, " + known + ")");
}

// Edges with Johnson-reweighted, non-negative weights, plus the potentials
// (empty when every weight is already non-negative).
struct Reweighted {
  std::vector<Edge> edges;
  std::vector<std::int64_t> potential;
  weight_t max_weight = 0;
};

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
      throw OverflowError("edge " + std::to_string(e.src) + "->" + std::to_string(e.dst) +
                          ": reweighted weight " + std::to_string(w) + " exceeds the GPU's int32 range; use --backend cpu");
    r.edges.push_back(Edge{e.src, e.dst, static_cast<weight_t>(w)});
    r.max_weight = std::max<weight_t>(r.max_weight, static_cast<weight_t>(w));
  }
  return r;
}

std::int64_t round_up(std::int64_t x, std::int64_t m) { return (x + m - 1) / m * m; }

// Copies edges to the device through two pinned staging buffers and scatters
// them into the matrix chunk by chunk.
void upload_edges(const std::vector<Edge>& edges, dist_t* dist, vertex_t* pred, std::int64_t n_pad,
                  cudaStream_t stream) {
  const std::size_t chunk = std::min<std::size_t>(edges.size(), std::size_t{1} << 22);
  if (chunk == 0) return;
  PinnedBuffer<Edge> staging[2] = {PinnedBuffer<Edge>(chunk), PinnedBuffer<Edge>(chunk)};
  DeviceBuffer<Edge> device[2] = {DeviceBuffer<Edge>(chunk), DeviceBuffer<Edge>(chunk)};
  Event staged[2];
  bool in_flight[2] = {false, false};
  for (std::size_t begin = 0, part = 0; begin < edges.size(); begin += chunk, part ^= 1) {
    const std::size_t count = std::min(chunk, edges.size() - begin);
    if (in_flight[part]) APSP_CUDA_CHECK(cudaEventSynchronize(staged[part].get()));
    std::memcpy(staging[part].get(), edges.data() + begin, count * sizeof(Edge));
    APSP_CUDA_CHECK(cudaMemcpyAsync(device[part].get(), staging[part].get(), count * sizeof(Edge),
                                    cudaMemcpyHostToDevice, stream));
    launch_scatter_edges(dist, pred, n_pad, device[part].get(), static_cast<std::int64_t>(count), stream);
    staged[part].record(stream);
    in_flight[part] = true;
  }
  APSP_CUDA_CHECK(cudaStreamSynchronize(stream));
}

// Downloads the top-left n x n block of a device matrix in row chunks through
// two pinned buffers; `finish(row0, rows, staged)` consumes each chunk on the host.
template <typename T, typename Finish>
void download_rows(const T* device, std::int64_t n, std::int64_t n_pad, cudaStream_t stream, Finish finish) {
  if (n == 0) return;
  const std::int64_t rows_per_chunk = std::max<std::int64_t>(1, (std::int64_t{16} << 20) / n);
  const std::size_t chunk_elems = static_cast<std::size_t>(rows_per_chunk * n);
  PinnedBuffer<T> staging[2] = {PinnedBuffer<T>(chunk_elems), PinnedBuffer<T>(chunk_elems)};
  Event copied[2];
  std::int64_t pending_row[2] = {-1, -1}, pending_rows[2] = {0, 0};
  auto drain = [&](int part) {
    if (pending_row[part] < 0) return;
    APSP_CUDA_CHECK(cudaEventSynchronize(copied[part].get()));
    finish(pending_row[part], pending_rows[part], staging[part].get());
    pending_row[part] = -1;
  };
  int part = 0;
  for (std::int64_t row = 0; row < n; row += rows_per_chunk, part ^= 1) {
    drain(part);
    const std::int64_t rows = std::min(rows_per_chunk, n - row);
    APSP_CUDA_CHECK(cudaMemcpy2DAsync(staging[part].get(), sizeof(T) * n, device + row * n_pad, sizeof(T) * n_pad,
                                      sizeof(T) * n, rows, cudaMemcpyDeviceToHost, stream));
    copied[part].record(stream);
    pending_row[part] = row;
    pending_rows[part] = rows;
  }
  drain(part);
  drain(part ^ 1);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

bool compiled_in() { return true; }

std::vector<DeviceInfo> devices() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return {};
  }
  std::vector<DeviceInfo> out;
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
    int previous = 0;
    if (cudaGetDevice(&previous) == cudaSuccess && cudaSetDevice(d) == cudaSuccess) {
      std::size_t free_bytes = 0, total_bytes = 0;
      if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) info.free_memory = free_bytes;
      cudaSetDevice(previous);
    }
    cudaGetLastError();
    out.push_back(info);
  }
  return out;
}

std::vector<std::string> algorithms() {
  std::vector<std::string> names;
  for (const GpuAlgorithm& a : gpu_algorithm_table()) names.emplace_back(a.name);
  return names;
}

void solve(const Graph& g, const SolveOptions& opts, SolveResult& out) {
  const GpuAlgorithm& algo = find_algorithm(opts.algorithm);
  const std::vector<DeviceInfo> found = devices();
  if (found.empty()) throw ResourceError("no CUDA device found");
  if (opts.device < 0 || opts.device >= static_cast<int>(found.size()))
    throw UsageError("CUDA device " + std::to_string(opts.device) + " does not exist (found " +
                     std::to_string(found.size()) + ")");
  APSP_CUDA_CHECK(cudaSetDevice(opts.device));
  out.algorithm = algo.name;
  out.backend = Backend::cuda;
  const std::int64_t n = g.n;
  out.n = n;
  out.dist.clear();
  out.pred.clear();
  if (n == 0) return;

  const Reweighted rw = reweight(g);
  const std::int64_t n_pad = round_up(n, algo.pad_multiple);
  const std::size_t cells = static_cast<std::size_t>(n_pad) * static_cast<std::size_t>(n_pad);
  const std::size_t csr_bytes =
      algo.needs_csr ? (static_cast<std::size_t>(n) + 1) * 8 + rw.edges.size() * 8 : 0;
  require_device_memory(cells * sizeof(dist_t) * (opts.predecessors ? 2 : 1) + csr_bytes + (std::size_t{96} << 20),
                        "a " + std::to_string(n) + "-vertex distance matrix" +
                            (opts.predecessors ? " with predecessors" : ""));

  Stream stream;
  const auto upload_start = std::chrono::steady_clock::now();
  DeviceBuffer<dist_t> dist(cells);
  DeviceBuffer<vertex_t> pred(opts.predecessors ? cells : 0);
  launch_init_matrix(dist.get(), pred.get(), n_pad, stream.get());
  upload_edges(rw.edges, dist.get(), pred.get(), n_pad, stream.get());

  GpuProblem problem;
  DeviceBuffer<std::int64_t> csr_rows;
  DeviceBuffer<vertex_t> csr_cols;
  DeviceBuffer<weight_t> csr_weights;
  if (algo.needs_csr) {
    Graph reweighted;
    reweighted.n = n;
    reweighted.edges = rw.edges;
    const Csr csr = to_csr(reweighted);
    csr_rows = DeviceBuffer<std::int64_t>(csr.row_start.size());
    csr_cols = DeviceBuffer<vertex_t>(std::max<std::size_t>(1, csr.col.size()));
    csr_weights = DeviceBuffer<weight_t>(std::max<std::size_t>(1, csr.weight.size()));
    APSP_CUDA_CHECK(cudaMemcpyAsync(csr_rows.get(), csr.row_start.data(), csr.row_start.size() * 8,
                                    cudaMemcpyHostToDevice, stream.get()));
    if (!csr.col.empty()) {
      APSP_CUDA_CHECK(cudaMemcpyAsync(csr_cols.get(), csr.col.data(), csr.col.size() * 4, cudaMemcpyHostToDevice,
                                      stream.get()));
      APSP_CUDA_CHECK(cudaMemcpyAsync(csr_weights.get(), csr.weight.data(), csr.weight.size() * 4,
                                      cudaMemcpyHostToDevice, stream.get()));
    }
    stream.synchronize();
    problem.csr = DeviceCsr{csr_rows.get(), csr_cols.get(), csr_weights.get(), n,
                            static_cast<std::int64_t>(csr.col.size())};
  }
  stream.synchronize();
  out.times.host_to_device = seconds_since(upload_start);

  problem.dist = dist.get();
  problem.pred = pred.get();
  problem.n = n;
  problem.n_pad = n_pad;
  problem.max_weight = rw.max_weight;
  problem.block = opts.block;
  problem.precision = opts.precision;
  problem.stream = stream.get();
  problem.progress = opts.progress;
  Event compute_begin, compute_end;
  compute_begin.record(stream.get());
  algo.run(problem);
  compute_end.record(stream.get());
  out.times.compute = elapsed_ms(compute_begin, compute_end) / 1000.0;
  out.precision = problem.used_precision;

  // Non-negative weights: a true distance >= kInf would leave some prefix of
  // its path with a distance in [kInf - max_weight, kInf), so none there
  // proves every finite entry exact and every kInf entry unreachable.
  const int largest = max_finite_entry(dist.get(), n, n_pad, stream.get());
  if (largest >= kInf - rw.max_weight)
    throw OverflowError("a shortest-path distance may reach " + std::to_string(largest) +
                        ", beyond the GPU's int32 range; use --backend cpu");

  const auto download_start = std::chrono::steady_clock::now();
  out.dist.resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
  const std::vector<std::int64_t>& h = rw.potential;
  download_rows(dist.get(), n, n_pad, stream.get(), [&](std::int64_t row0, std::int64_t rows, const dist_t* staged) {
    dist_t* target = out.dist.data() + row0 * n;
    if (h.empty()) {
      std::memcpy(target, staged, static_cast<std::size_t>(rows * n) * sizeof(dist_t));
      return;
    }
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t i = row0 + r;
      for (std::int64_t j = 0; j < n; ++j) {
        const dist_t v = staged[r * n + j];
        if (v == kInf) {
          target[r * n + j] = kInf;
          continue;
        }
        const std::int64_t d = std::int64_t{v} - h[i] + h[j];
        if (d >= kInf || d <= -kInf)
          throw OverflowError("distance " + std::to_string(i) + "->" + std::to_string(j) + " = " +
                              std::to_string(d) + " does not fit the int32 output");
        target[r * n + j] = static_cast<dist_t>(d);
      }
    }
  });
  if (opts.predecessors) {
    out.pred.resize(out.dist.size());
    download_rows(pred.get(), n, n_pad, stream.get(), [&](std::int64_t row0, std::int64_t rows, const vertex_t* staged) {
      std::memcpy(out.pred.data() + row0 * n, staged, static_cast<std::size_t>(rows * n) * sizeof(vertex_t));
    });
  }
  out.times.device_to_host = seconds_since(download_start);
}

}  // namespace apsp::cuda
