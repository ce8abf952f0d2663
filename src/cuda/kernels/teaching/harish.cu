// Harish and Narayanan's SSSP over CSR with frontier masks, run for a batch of
// sources at once (APSP = every vertex as a source). Per source s and vertex v:
//   cost[s][v]      settled tentative distance (C in the paper),
//   updating[s][v]  distance being gathered this iteration (U),
//   mask[s][v]      v improved last iteration and must relax its out-edges.
// Kernel 1 (relax) relaxes the out-edges of masked vertices into `updating`
// with atomicMin; kernel 2 (settle) moves strict improvements into `cost`,
// re-masks those vertices and raises `changed`. The host repeats both until
// nothing changes.
//
// Host launcher of Harish and Narayanan's SSSP, looped over batches of sources
// for APSP. The host reads a changed-flag after every iteration, as in the paper.
#include <algorithm>
#include <cstdint>
#include <string>

#include "apsp/graph.hpp"
#include "cuda/algorithm.hpp"
#include "core/cuda_check.hpp"
#include "cuda/family.hpp"
#include "cuda/launch.hpp"
#include "core/cuda_memory.hpp"

namespace apsp::cuda::kernels {

// A distance packed above the vertex that produced it, so one 64-bit atomicMin
// keeps the smaller distance and, among equal ones, the smaller predecessor.
using HarishKey = unsigned long long;

__device__ __forceinline__ HarishKey harish_key(dist_t d, vertex_t from) {
  return (static_cast<HarishKey>(static_cast<unsigned>(d)) << 32) | static_cast<unsigned>(from);
}
__device__ __forceinline__ dist_t key_distance(HarishKey key) { return static_cast<dist_t>(key >> 32); }
__device__ __forceinline__ vertex_t key_predecessor(HarishKey key) {
  return static_cast<vertex_t>(static_cast<unsigned>(key));  // no predecessor is stored as -1
}

// The batch's sources are first_source .. first_source + sources - 1; arrays
// are sources x n, row b belonging to source first_source + b.
struct HarishBatch {
  HarishKey* cost = nullptr;
  HarishKey* updating = nullptr;
  std::uint8_t* mask = nullptr;
  int* changed = nullptr;
  std::int64_t n = 0;
  std::int64_t first_source = 0;
  std::int64_t sources = 0;
};

// Calls f(item, b, v) for each (source row b, vertex v) of the batch, item =
// b * n + v, in a grid-stride loop.
template <typename F>
__device__ __forceinline__ void for_each_item(const HarishBatch& batch, F&& f) {
  const std::int64_t items = batch.sources * batch.n;
  for (std::int64_t item = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; item < items;
       item += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t b = item / batch.n;
    f(item, b, item - b * batch.n);
  }
}

__global__ void harish_start(HarishBatch batch) {
  for_each_item(batch, [&](std::int64_t item, std::int64_t b, std::int64_t v) {
    const bool is_source = batch.first_source + b == v;
    const HarishKey start = harish_key(is_source ? 0 : kInf, -1);
    batch.cost[item] = start;
    batch.updating[item] = start;
    batch.mask[item] = is_source ? 1 : 0;
  });
}

// Kernel 1. A masked vertex's cost is finite; a sum reaching kInf is no path
// the int32 output can hold, so it is not offered.
__global__ void harish_relax(HarishBatch batch, DeviceCsr graph) {
  for_each_item(batch, [&](std::int64_t item, std::int64_t b, std::int64_t v) {
    if (!batch.mask[item]) return;
    batch.mask[item] = 0;
    const dist_t from_cost = key_distance(batch.cost[item]);
    HarishKey* row = batch.updating + b * batch.n;
    for (std::int64_t e = graph.row_start[v]; e < graph.row_start[v + 1]; ++e) {
      const dist_t through = from_cost + graph.weight[e];
      if (through < kInf) atomicMin(row + graph.col[e], harish_key(through, static_cast<vertex_t>(v)));
    }
  });
}

// Kernel 2. Only a strictly smaller distance is taken: a vertex's predecessor
// then always settled in an earlier iteration than the vertex, so the
// predecessors form a tree even across zero-weight cycles.
__global__ void harish_settle(HarishBatch batch) {
  for_each_item(batch, [&](std::int64_t item, std::int64_t, std::int64_t) {
    const HarishKey gathered = batch.updating[item];
    if (key_distance(gathered) < key_distance(batch.cost[item])) {
      batch.cost[item] = gathered;
      batch.mask[item] = 1;
      *batch.changed = 1;
    } else {
      batch.updating[item] = batch.cost[item];
    }
  });
}

// Writes each source's distances (and predecessors when pred is not null)
// into its row of the n x n block of the ld-wide matrices.
__global__ void harish_store_rows(HarishBatch batch, dist_t* dist, vertex_t* pred, std::int64_t ld) {
  for_each_item(batch, [&](std::int64_t item, std::int64_t b, std::int64_t v) {
    const std::int64_t at = (batch.first_source + b) * ld + v;
    const HarishKey key = batch.cost[item];
    dist[at] = key_distance(key);
    if (pred != nullptr) pred[at] = key_predecessor(key);
  });
}

}  // namespace apsp::cuda::kernels

namespace apsp::cuda {
namespace {

constexpr int kHarishThreads = 256;
// Items (source, vertex) per batch: about 70 MiB of state, many sources per
// iteration so that one host round trip serves all of them.
constexpr std::int64_t kHarishBatchItems = std::int64_t{1} << 22;

}  // namespace

void run_harish(GpuProblem& problem) {
  using kernels::HarishKey;
  problem.used_precision = Precision::int32;
  const std::int64_t n = problem.n;
  const std::int64_t batch_sources = std::clamp<std::int64_t>(kHarishBatchItems / n, 1, n);
  const std::size_t items = static_cast<std::size_t>(batch_sources * n);
  require_device_memory(items * (2 * sizeof(HarishKey) + 1) + sizeof(int),
                        "harish's state for " + std::to_string(batch_sources) + " sources");
  DeviceBuffer<HarishKey> cost(items), updating(items);
  DeviceBuffer<std::uint8_t> mask(items);
  DeviceBuffer<int> changed(1);
  PinnedBuffer<int> changed_on_host(1);

  kernels::HarishBatch batch;
  batch.cost = cost.get();
  batch.updating = updating.get();
  batch.mask = mask.get();
  batch.changed = changed.get();
  batch.n = n;
  Progress progress(problem, n, 1);
  for (std::int64_t first = 0; first < n; first += batch_sources) {
    batch.first_source = first;
    batch.sources = std::min(batch_sources, n - first);
    const int grid = grid_for(batch.sources * n, kHarishThreads);
    kernels::harish_start<<<grid, kHarishThreads, 0, problem.stream>>>(batch);
    APSP_CUDA_CHECK_LAUNCH("harish_start");
    do {
      APSP_CUDA_CHECK(cudaMemsetAsync(changed.get(), 0, sizeof(int), problem.stream));
      kernels::harish_relax<<<grid, kHarishThreads, 0, problem.stream>>>(batch, problem.csr);
      APSP_CUDA_CHECK_LAUNCH("harish_relax");
      kernels::harish_settle<<<grid, kHarishThreads, 0, problem.stream>>>(batch);
      APSP_CUDA_CHECK_LAUNCH("harish_settle");
      APSP_CUDA_CHECK(
          cudaMemcpyAsync(changed_on_host.get(), changed.get(), sizeof(int), cudaMemcpyDeviceToHost, problem.stream));
      APSP_CUDA_CHECK(cudaStreamSynchronize(problem.stream));
    } while (*changed_on_host.get() != 0);
    kernels::harish_store_rows<<<grid, kHarishThreads, 0, problem.stream>>>(batch, problem.dist, problem.pred,
                                                                            problem.n_pad);
    APSP_CUDA_CHECK_LAUNCH("harish_store_rows");
    progress.reached(first + batch.sources);
  }
  // The batch state is freed on return: the last store must be done.
  APSP_CUDA_CHECK(cudaStreamSynchronize(problem.stream));
}

}  // namespace apsp::cuda
