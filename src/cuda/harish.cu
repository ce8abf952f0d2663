// Host launcher of Harish and Narayanan's SSSP, looped over batches of sources
// for APSP. The host reads a changed-flag after every iteration, as in the paper.
#include <algorithm>
#include <cstdint>
#include <string>

#include "algorithm.cuh"
#include "check.cuh"
#include "family.cuh"
#include "kernels/harish.cuh"
#include "matrix_setup.cuh"
#include "memory.cuh"

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
