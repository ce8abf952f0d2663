// Host side of the production solver ("fw"): precision choice, the round
// loop, and the int16 attempt with its a-posteriori certificate.
#include <algorithm>

#include "algorithm.cuh"
#include "apsp/error.hpp"
#include "check.cuh"
#include "core/ceil_div.hpp"
#include "kernels/fw_production.cuh"
#include "matrix_setup.cuh"
#include "memory.cuh"

namespace apsp::cuda {
namespace {

using Traits = kernels::ProductionTraits;
using Persistent = kernels::PersistentTraits;
static_assert(Traits::kTile == kProductionPad, "the registry pads to the production tile");
static_assert(Persistent::kTile == Traits::kTile, "both phase-3 versions share the pivot kernel");

// Which phase-3 kernel the rounds use (the kernel ladder, docs/perf.md).
enum class Phase3 { tile_per_block, persistent };

constexpr std::size_t kUpdateRestSharedBytes = sizeof(std::int32_t) * Traits::kStages * Traits::kChunk * 2 * Traits::kTile;
constexpr std::size_t kPersistentSharedBytes =
    sizeof(std::int32_t) * (Persistent::kStages * Persistent::kChunk * 2 * Persistent::kTile + Persistent::kTile * Persistent::kTile);
// int16 C tiles span two column tiles, so its matrix is padded to 256.
constexpr std::int64_t kInt16Pad = 2 * Traits::kTile;
constexpr std::size_t kPivotSharedBytes = sizeof(std::int32_t) * 2 * Traits::kTile * Traits::kPivotStride;

// Blocks of the persistent kernel that fit the whole device at once.
template <class W>
int persistent_grid() {
  int device = 0, sms = 0, per_sm = 0;
  APSP_CUDA_CHECK(cudaGetDevice(&device));
  APSP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  APSP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernels::update_rest_persistent<Persistent, W>,
                                                                Persistent::kThreads, kPersistentSharedBytes));
  if (per_sm < 1) throw ResourceError("the persistent FW kernel does not fit on this device");
  return sms * per_sm;
}

template <class W>
void configure_kernels() {
  APSP_CUDA_CHECK(cudaFuncSetAttribute(kernels::update_rest<Traits, W>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(kUpdateRestSharedBytes)));
  if constexpr (!W::kTagged)
    APSP_CUDA_CHECK(cudaFuncSetAttribute(kernels::update_rest_persistent<Persistent, W>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(kPersistentSharedBytes)));
  APSP_CUDA_CHECK(cudaFuncSetAttribute(kernels::update_panels<Traits, W>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(kPivotSharedBytes)));
}

// All rounds of blocked FW on `d` (n_pad x n_pad storage_t, in place).
// mid and row_tagged are used in predecessor mode (W::kTagged) only.
template <class W>
void run_rounds(typename W::storage_t* d, std::int64_t n_pad, const GpuProblem& p, Phase3 phase3,
                std::int32_t* mid = nullptr, std::int32_t* row_tagged = nullptr) {
  configure_kernels<W>();
  int grid_persistent = 0;
  if constexpr (!W::kTagged)
    if (phase3 == Phase3::persistent) grid_persistent = persistent_grid<W>();
  const int nb = static_cast<int>(n_pad / Traits::kTile);
  DeviceBuffer<std::int32_t> panel_t(static_cast<std::size_t>(Traits::kTile) * static_cast<std::size_t>(n_pad));
  const int progress_every = std::max(1, nb / 64);
  for (int kb = 0; kb < nb; ++kb) {
    kernels::close_diagonal<Traits, W><<<1, Traits::kThreads, 0, p.stream>>>(d, n_pad, kb, mid);
    APSP_CUDA_CHECK_LAUNCH("close_diagonal");
    if (nb > 1) {
      kernels::update_panels<Traits, W><<<2 * (nb - 1), Traits::kThreads, kPivotSharedBytes, p.stream>>>(
          d, panel_t.get(), n_pad, kb, nb, mid, row_tagged);
      APSP_CUDA_CHECK_LAUNCH("update_panels");
    }
    const int tiles_x = W::kPerWord == 1 ? nb - 1 : nb / 2;
    if (nb > 1 && phase3 == Phase3::tile_per_block) {
      const dim3 grid(tiles_x, nb - 1);
      const std::int32_t* b_rows = W::kTagged ? row_tagged
                                              : reinterpret_cast<const std::int32_t*>(d) +
                                                    std::int64_t{kb} * Traits::kTile * (n_pad / W::kPerWord);
      kernels::update_rest<Traits, W><<<grid, Traits::kThreads, kUpdateRestSharedBytes, p.stream>>>(
          d, panel_t.get(), b_rows, n_pad, kb, mid);
      APSP_CUDA_CHECK_LAUNCH("update_rest");
    } else if (nb > 1) {
      if constexpr (!W::kTagged) {  // the persistent kernel has no predecessor mode
        const int tiles_total = tiles_x * (nb - 1);
        kernels::update_rest_persistent<Persistent, W>
            <<<std::min(grid_persistent, tiles_total), Persistent::kThreads, kPersistentSharedBytes, p.stream>>>(
                d, panel_t.get(), n_pad, kb, tiles_x, tiles_total);
        APSP_CUDA_CHECK_LAUNCH("update_rest_persistent");
      }
    }
    if (p.progress && (kb + 1) % progress_every == 0) {
      APSP_CUDA_CHECK(cudaStreamSynchronize(p.stream));
      p.progress(static_cast<double>(kb + 1) / nb);
    }
  }
}

// The int16 attempt succeeds when every finite result lies below
// kInf16 - max_weight: with non-negative weights a true distance >= kInf16
// would leave a prefix of its path with a distance in [kInf16 - max_weight,
// kInf16), which int16 holds exactly.
bool try_int16(GpuProblem& p, Phase3 phase3) {
  const std::int64_t n_pad16 = round_up(p.n_pad, kInt16Pad);
  const std::int64_t cells = n_pad16 * n_pad16;
  require_device_memory(static_cast<std::size_t>(cells) * sizeof(std::int16_t), "the int16 copy of the matrix");
  DeviceBuffer<std::int16_t> narrow(static_cast<std::size_t>(cells));
  constexpr int kThreads = 256;
  kernels::narrow_to_int16<<<grid_for(cells, kThreads), kThreads, 0, p.stream>>>(p.dist, p.n_pad, narrow.get(), n_pad16);
  APSP_CUDA_CHECK_LAUNCH("narrow_to_int16");
  run_rounds<kernels::Int16Words>(narrow.get(), n_pad16, p, phase3);
  if (max_finite_entry(narrow.get(), p.n, n_pad16, kernels::kInf16, p.stream) >= kernels::kInf16 - p.max_weight)
    return false;  // p.dist still holds the input
  kernels::widen_from_int16<<<grid_for(p.n_pad * p.n_pad, kThreads), kThreads, 0, p.stream>>>(narrow.get(), n_pad16,
                                                                                              p.dist, p.n_pad);
  APSP_CUDA_CHECK_LAUNCH("widen_from_int16");
  return true;
}

// Predecessor mode: distances carry the improving k in their low bits, so
// phase 3 keeps one DPX add-min per update; the per-round tags become a
// midpoint matrix, and pointer jumping along each column turns it into
// predecessors (pred[i][j] = pred[mid[i][j]][j]). Returns false, leaving
// p.dist and p.pred as they were, when the tagged range (22 bits) may not
// hold every distance.
bool try_predecessor_mode(GpuProblem& p) {
  if (p.max_weight >= kernels::kInfTagged / 2) return false;
  const std::int64_t cells = p.n_pad * p.n_pad;
  require_device_memory(static_cast<std::size_t>(cells + Traits::kTile * p.n_pad) * sizeof(std::int32_t),
                        "predecessor tracking");
  DeviceBuffer<std::int32_t> tagged(static_cast<std::size_t>(cells));
  DeviceBuffer<std::int32_t> row_tagged(static_cast<std::size_t>(Traits::kTile * p.n_pad));
  constexpr int kThreads = 256;
  const int grid = grid_for(cells, kThreads);
  kernels::pack_tagged<<<grid, kThreads, 0, p.stream>>>(p.dist, tagged.get(), p.pred, cells);
  APSP_CUDA_CHECK_LAUNCH("pack_tagged");
  run_rounds<kernels::TaggedWords>(tagged.get(), p.n_pad, p, Phase3::tile_per_block, p.pred, row_tagged.get());
  const int largest = max_finite_entry(tagged.get(), p.n, p.n_pad, kernels::TaggedWords::kInfinity, p.stream);
  if (largest >= 0 && (largest >> kernels::kTagBits) >= kernels::kInfTagged - p.max_weight) {
    kernels::pred_from_edges<<<grid, kThreads, 0, p.stream>>>(p.dist, p.pred, p.n_pad);
    APSP_CUDA_CHECK_LAUNCH("pred_from_edges");
    return false;
  }
  kernels::unpack_tagged<<<grid, kThreads, 0, p.stream>>>(tagged.get(), p.dist, p.pred, p.n_pad);
  APSP_CUDA_CHECK_LAUNCH("unpack_tagged");
  // Each pass halves every chain; chains are shorter than n, so 32 passes
  // suffice for any int32 n. More means the midpoints form a cycle.
  DeviceBuffer<int> changed(1);
  for (int pass = 0;; ++pass) {
    if (pass == 40) throw DeviceError("predecessor reconstruction", "midpoint chains did not converge", __FILE__, __LINE__);
    APSP_CUDA_CHECK(cudaMemsetAsync(changed.get(), 0, sizeof(int), p.stream));
    kernels::jump_links<<<grid_for(p.n * p.n, kThreads), kThreads, 0, p.stream>>>(p.pred, p.n, p.n_pad, changed.get());
    APSP_CUDA_CHECK_LAUNCH("jump_links");
    int host_changed = 0;
    APSP_CUDA_CHECK(cudaMemcpyAsync(&host_changed, changed.get(), sizeof(int), cudaMemcpyDeviceToHost, p.stream));
    APSP_CUDA_CHECK(cudaStreamSynchronize(p.stream));
    if (!host_changed) break;
  }
  kernels::links_to_pred<<<grid, kThreads, 0, p.stream>>>(p.pred, p.dist, p.n_pad);
  APSP_CUDA_CHECK_LAUNCH("links_to_pred");
  return true;
}

void run_blocked_production(GpuProblem& p, Phase3 phase3) {
  if (p.pred) {
    if (p.precision == Precision::int16)
      throw UsageError("--precision int16 cannot track predecessors; use --precision auto or int32");
    p.used_precision = Precision::int32;
    // Distances beyond the tagged range: the blocked kernel tracks
    // predecessors with a compare and select per update.
    if (!try_predecessor_mode(p)) run_blocked64(p);
    return;
  }
  const bool int16_possible = p.max_weight < kernels::kInf16 / 2;
  if (p.precision == Precision::int16 && !int16_possible)
    throw UsageError("--precision int16: the largest edge weight " + std::to_string(p.max_weight) +
                     " leaves no room below the int16 infinity " + std::to_string(kernels::kInf16));
  // auto tries int16 when the host's estimate of the largest distance fits.
  const bool attempt_int16 =
      p.precision == Precision::int16 ||
      (p.precision == Precision::automatic && int16_possible && p.distance_estimate < kernels::kInf16 / 2);
  if (attempt_int16 && try_int16(p, phase3)) {
    p.used_precision = Precision::int16;
    return;
  }
  run_rounds<kernels::Int32Words>(p.dist, p.n_pad, p, phase3);
  p.used_precision = Precision::int32;
}

}  // namespace

void run_fw_production(GpuProblem& p) { run_blocked_production(p, Phase3::tile_per_block); }
void run_fw_persistent(GpuProblem& p) { run_blocked_production(p, Phase3::persistent); }

}  // namespace apsp::cuda
