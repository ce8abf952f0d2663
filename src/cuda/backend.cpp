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
#include "check.cuh"
#include "instance.cuh"
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

// Twice the largest hop distance seen by breadth-first searches from two
// sources, times the largest weight: a cheap guess at the largest finite
// distance, O(n + m) per source over the (src, dst)-sorted edge list. Only a
// hint for choosing the int16 attempt; the GPU result is certified.
std::int64_t estimate_largest_distance(const std::vector<Edge>& sorted_edges, std::int64_t n, weight_t max_weight) {
  std::vector<std::int64_t> row_start(static_cast<std::size_t>(n) + 1, 0);
  for (const Edge& e : sorted_edges) ++row_start[static_cast<std::size_t>(e.src) + 1];
  for (std::size_t v = 0; v < static_cast<std::size_t>(n); ++v) row_start[v + 1] += row_start[v];
  std::int64_t hops_seen = 0;
  std::vector<std::int32_t> hops(static_cast<std::size_t>(n));
  std::vector<vertex_t> frontier, next;
  for (std::int64_t source : {std::int64_t{0}, n / 2}) {
    std::fill(hops.begin(), hops.end(), -1);
    hops[source] = 0;
    frontier.assign(1, static_cast<vertex_t>(source));
    for (std::int32_t level = 1; !frontier.empty(); ++level) {
      next.clear();
      for (vertex_t u : frontier)
        for (std::int64_t e = row_start[u]; e < row_start[u + 1]; ++e) {
          const vertex_t v = sorted_edges[static_cast<std::size_t>(e)].dst;
          if (hops[v] < 0) {
            hops[v] = level;
            next.push_back(v);
          }
        }
      if (!next.empty()) hops_seen = std::max<std::int64_t>(hops_seen, level);
      frontier.swap(next);
    }
  }
  return 2 * hops_seen * std::int64_t{max_weight};
}

// Downloads the top-left n x n block of a device matrix in row chunks through
// two pinned buffers; `finish(row0, rows, staged)` consumes each chunk on the host.
template <typename T, typename Finish>
void download_rows(const T* device, std::int64_t n, std::int64_t n_pad, cudaStream_t stream, Finish finish) {
  if (n == 0) return;
  // 4 Mi entries (16 MiB) per chunk: page-locking is slow, so the staging
  // stays small; two chunks keep the copy engine and the host busy at once.
  const std::int64_t rows_per_chunk = std::min(n, std::max<std::int64_t>(1, (std::int64_t{4} << 20) / n));
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

// Rebuilds pred row `source` as a breadth-first tree over tight edges
// (d[s][u] + w(u,v) == d[s][v]): every reachable vertex has a tight in-edge
// from its shortest path, and a BFS tree has no cycles whatever the ties.
void rebuild_predecessor_row(const Csr& csr, const HostVector<dist_t>& dist, std::int64_t source,
                             HostVector<vertex_t>& pred) {
  const std::int64_t n = csr.n;
  const dist_t* d = dist.data() + source * n;
  vertex_t* p = pred.data() + source * n;
  std::fill(p, p + n, -1);
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  std::vector<vertex_t> queue{static_cast<vertex_t>(source)};
  seen[source] = 1;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const vertex_t u = queue[head];
    for (std::int64_t e = csr.row_start[u]; e < csr.row_start[u + 1]; ++e) {
      const vertex_t v = csr.col[e];
      if (seen[v] || d[u] == kInf || std::int64_t{d[u]} + csr.weight[e] != d[v]) continue;
      seen[v] = 1;
      p[v] = u;
      queue.push_back(v);
    }
  }
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
  if (opts.precision == Precision::int16 && !algo.has_int16)
    throw UsageError(std::string("--precision int16: '") + algo.name + "' computes in int32 only (the fw solver has int16)");
  if ((opts.block.x != 0 || opts.block.y != 0) && !algo.takes_block)
    throw UsageError(std::string("--block: '") + algo.name + "' has a fixed block shape (only naive takes --block)");
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

  Stream stream;
  const auto upload_start = std::chrono::steady_clock::now();
  DeviceInstance instance(g, algo, opts.predecessors, stream.get());
  out.times.add("host-to-device", seconds_since(upload_start));
  GpuProblem problem = instance.problem();
  problem.block = opts.block;
  problem.precision = opts.precision;
  problem.progress = opts.progress;
  if (opts.precision == Precision::automatic)
    problem.distance_estimate = estimate_largest_distance(instance.reweighted().edges, n, problem.max_weight);
  Event compute_begin, compute_end;
  compute_begin.record(stream.get());
  algo.run(problem);
  compute_end.record(stream.get());
  out.times.add("compute", elapsed_ms(compute_begin, compute_end) / 1000.0);
  out.precision = problem.used_precision;

  // Non-negative weights: a true distance >= kInf would leave some prefix of
  // its path with a distance in [kInf - max_weight, kInf), so none there
  // proves every finite entry exact and every kInf entry unreachable.
  const Reweighted& rw = instance.reweighted();
  const std::int64_t n_pad = problem.n_pad;
  const int largest = max_finite_entry(problem.dist, n, n_pad, stream.get());
  if (largest >= kInf - rw.max_weight)
    throw OverflowError("a shortest-path distance may reach " + std::to_string(largest) +
                        ", beyond the GPU's int32 range; use --backend cpu");

  const std::vector<std::int64_t> broken_rows =
      opts.predecessors ? rows_with_broken_predecessors(problem.pred, n, n_pad, stream.get()) : std::vector<std::int64_t>{};

  const auto download_start = std::chrono::steady_clock::now();
  out.dist.resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
  const std::vector<std::int64_t>& h = rw.potential;
  download_rows(problem.dist, n, n_pad, stream.get(), [&](std::int64_t row0, std::int64_t rows, const dist_t* staged) {
    dist_t* target = out.dist.data() + row0 * n;
    // Row-parallel: the copy also first-touches the result's pages.
    if (h.empty()) {
#pragma omp parallel for schedule(static)
      for (std::int64_t r = 0; r < rows; ++r)
        std::memcpy(target + r * n, staged + r * n, static_cast<std::size_t>(n) * sizeof(dist_t));
      return;
    }
    std::string overflow;
#pragma omp parallel for schedule(static)
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t i = row0 + r;
      for (std::int64_t j = 0; j < n; ++j) {
        const dist_t v = staged[r * n + j];
        if (v == kInf) {
          target[r * n + j] = kInf;
          continue;
        }
        const std::int64_t d = std::int64_t{v} - h[i] + h[j];
        if (d >= kInf || d <= -kInf) {
#pragma omp critical(apsp_download_overflow)
          if (overflow.empty())
            overflow = "distance " + std::to_string(i) + "->" + std::to_string(j) + " = " + std::to_string(d) +
                       " does not fit the int32 output";
          target[r * n + j] = kInf;
          continue;
        }
        target[r * n + j] = static_cast<dist_t>(d);
      }
    }
    if (!overflow.empty()) throw OverflowError(overflow);
  });
  if (opts.predecessors) {
    out.pred.resize(out.dist.size());
    download_rows(problem.pred, n, n_pad, stream.get(), [&](std::int64_t row0, std::int64_t rows, const vertex_t* staged) {
#pragma omp parallel for schedule(static)
      for (std::int64_t r = 0; r < rows; ++r)
        std::memcpy(out.pred.data() + (row0 + r) * n, staged + r * n, static_cast<std::size_t>(n) * sizeof(vertex_t));
    });
    if (!broken_rows.empty()) {
      const Csr csr = to_csr(g);
#pragma omp parallel for schedule(dynamic)
      for (std::size_t r = 0; r < broken_rows.size(); ++r) rebuild_predecessor_row(csr, out.dist, broken_rows[r], out.pred);
    }
  }
  out.times.add("device-to-host", seconds_since(download_start));
}

}  // namespace apsp::cuda
