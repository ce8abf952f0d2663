// The production solver ("fw", and "fw-persistent" for the kernel ladder):
// blocked Floyd-Warshall whose round kb on an n_pad x n_pad matrix (n_pad a
// multiple of kTile) is three launches:
//   close_diagonal: one block closes the diagonal tile (kb,kb), in registers.
//   update_panels:  each block updates one row-panel or column-panel tile as
//                   a single min-plus product with the closed diagonal.
//                   Column-panel tiles are also written transposed into
//                   `panel_t` (kTile x n_pad words) so that phase 3 reads its
//                   A operand with 16-byte loads.
//   update_rest:    every other tile C(i,j) = min(C, A(i,kb) (x) B(kb,j)),
//                   with C held in registers (8x8 words per thread), A and B
//                   streamed through shared memory in k-chunks by cp.async,
//                   double-buffered, and one DPX add-min per word.
// Storage is int32 (one distance per word) or int16 (two adjacent columns
// per word, packed add-min). Phase 3 works on 128 x 128-word C tiles either
// way: 128 columns in int32, 256 columns (two column tiles) in int16. In
// int16 the pair holding column tile kb is updated too, harmlessly: that
// tile already equals A (x) D*, and D* is closed, so a second product leaves
// it unchanged (and phase 3 reads A from panel_t, not from that tile).
//
// This file is the host side: the precision choice, the round loop, and the
// attempts in a narrower width (int16; tagged words for predecessors), each
// certified after the fact, with their fallbacks.
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/graph.hpp"
#include "cuda/algorithm.hpp"
#include "cuda/certificate.hpp"
#include "cuda/device_checkpoints.hpp"
#include "core/cuda_check.hpp"
#include "cuda/device_rows.hpp"
#include "cuda/fw_real.hpp"
#include "cuda/family.hpp"
#include "cuda/kernels/dense/close_diagonal.cuh"
#include "cuda/kernels/dense/int16_conversion.cuh"
#include "cuda/kernels/dense/tagged_predecessors.cuh"
#include "cuda/kernels/dense/tight_predecessors.cuh"
#include "cuda/kernels/dense/traits.cuh"
#include "cuda/kernels/dense/update_panels.cuh"
#include "cuda/kernels/dense/update_rest.cuh"
#include "cuda/kernels/dense/update_rest_persistent.cuh"
#include "cuda/launch.hpp"
#include "core/cuda_memory.hpp"
#include "cuda/testing.hpp"
#include "core/ceil_div.hpp"

namespace apsp::cuda {
namespace {

using Traits = kernels::ProductionTraits;
using Persistent = kernels::PersistentTraits;
static_assert(Traits::kTile == kProductionPad, "the registry pads to the production tile");
static_assert(real_fw_pad<float>() == Traits::kTile, "the float32 matrix is padded to the production tile");
static_assert(Persistent::kTile == Traits::kTile, "both phase-3 versions share the pivot kernel");

// Which phase-3 kernel the rounds use (the kernel ladder, docs/perf.md).
// tile_per_block_wide is tile_per_block with WideRegisterTraits (float32),
// tile_per_block_fold_c with FoldCTraits and tile_per_block_fold_c_l1 with
// FoldCL1Traits (float32 only).
enum class Phase3 { tile_per_block, tile_per_block_wide, tile_per_block_fold_c, tile_per_block_fold_c_l1, persistent };
using Wide = kernels::WideRegisterTraits;
using FoldC = kernels::FoldCTraits;
using FoldCL1 = kernels::FoldCL1Traits;

constexpr std::size_t kUpdateRestSharedBytes = sizeof(std::int32_t) * Traits::kStages * Traits::kChunk * 2 *
                                               Traits::kTile;
constexpr std::size_t kPersistentSharedBytes =
    sizeof(std::int32_t) *
    (Persistent::kStages * Persistent::kChunk * 2 * Persistent::kTile + Persistent::kTile * Persistent::kTile);
// int16 C tiles span two column tiles, so its matrix is padded to 256.
constexpr std::int64_t kInt16Pad = 2 * Traits::kTile;
constexpr std::size_t kPivotSharedBytes = sizeof(std::int32_t) * 2 * Traits::kTile * Traits::kPivotStride;

// The share of the progress bar an attempt that may be abandoned covers:
// its cost over the cost of attempt plus rerun, so that a failed attempt
// leaves the bar where the rerun's work begins (a certified one jumps to the
// end). int16 rounds run at about twice the int32 rate (docs/perf.md), so
// they are 1/3 of int16 + int32; tagged rounds cost about what int32 rounds
// do, and the fallback is int32 rounds plus the tight-edge pass.
constexpr double kInt16AttemptShare = 1.0 / 3.0;
constexpr double kTaggedAttemptShare = 0.5;

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
  APSP_CUDA_CHECK(cudaFuncSetAttribute(kernels::update_rest<Wide, W>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(kUpdateRestSharedBytes)));
  if constexpr (std::is_same<W, kernels::Float32Words>::value) {
    APSP_CUDA_CHECK(cudaFuncSetAttribute(kernels::update_rest<FoldC, W>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(kUpdateRestSharedBytes)));
    APSP_CUDA_CHECK(cudaFuncSetAttribute(kernels::update_rest<FoldCL1, W>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(kUpdateRestSharedBytes)));
  }
  if constexpr (!W::kTagged)
    APSP_CUDA_CHECK(cudaFuncSetAttribute(kernels::update_rest_persistent<Persistent, W>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(kPersistentSharedBytes)));
  APSP_CUDA_CHECK(cudaFuncSetAttribute(kernels::update_panels<Traits, W>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(kPivotSharedBytes)));
}

// Phase 3 of round kb with FoldCTraits (FoldCL1Traits when `l1`): float32
// only (Float32Words' infinity and min); other word types never ask for it.
template <class W>
void launch_fold_c(bool l1, dim3 grid, typename W::storage_t* d, const std::int32_t* panel_t,
                   const std::int32_t* b_rows, std::int64_t n_pad, int kb, cudaStream_t stream) {
  if constexpr (std::is_same<W, kernels::Float32Words>::value) {
    if (l1)
      kernels::update_rest<FoldCL1, W>
          <<<grid, FoldCL1::kThreads, kUpdateRestSharedBytes, stream>>>(d, panel_t, b_rows, n_pad, kb, nullptr);
    else
      kernels::update_rest<FoldC, W>
          <<<grid, FoldC::kThreads, kUpdateRestSharedBytes, stream>>>(d, panel_t, b_rows, n_pad, kb, nullptr);
  } else {
    throw Error("the fold-C phase 3 is float32 only");
  }
}

// The rounds of blocked FW on `d` (n_pad x n_pad storage_t, in place) on
// `stream`, reporting into `span` after each round that ends a 1/64 of them
// and after the last: all n_pad / kTile of them, or the first `pivot_rounds`
// (pivots 0 .. pivot_rounds * kTile - 1 eliminated, as the supernodal
// factor's fronts need). mid and row_tagged are used in predecessor mode
// (W::kTagged) only. `workspace`, when given, holds the kTile x n_pad words
// of panel_t (a caller running many matrices allocates it once).
// Round checkpoints of a whole run of rounds (apsp/sink.hpp): `words` names
// the working matrix's words in the checkpoint's layout; `restore`: the run
// continues from a checkpoint of that layout if one is held (false for a
// run after a failed narrower attempt, whose checkpoint is the attempt's).
struct RoundSaving {
  RoundCheckpoints* checkpoints = nullptr;
  const char* words = "";
  bool restore = true;
};

// The layout of a run of rounds on an n_pad matrix of `words` (RoundState::layout).
std::string gpu_fw_layout(const char* words, std::int64_t n_pad) {
  return std::string("gpu fw ") + words + " tiles " + std::to_string(Traits::kTile) + " n_pad " + std::to_string(n_pad);
}

// Whether `checkpoints` hold a checkpoint of the int32 rounds on p's matrix
// (with p's midpoints in predecessor mode).
bool holds_int32_rounds(const GpuProblem& p) {
  if (p.checkpoints == nullptr) return false;
  RoundState state;
  state.layout = gpu_fw_layout("int32", p.n_pad);
  state.rounds = p.n_pad / Traits::kTile;
  state.planes.push_back({nullptr, static_cast<std::size_t>(p.n_pad * p.n_pad) * sizeof(std::int32_t)});
  return p.checkpoints->holds(state);
}

template <class W>
void run_rounds(typename W::storage_t* d, std::int64_t n_pad, cudaStream_t stream, ProgressSpan span, Phase3 phase3,
                std::int32_t* mid = nullptr, std::int32_t* row_tagged = nullptr, std::int64_t pivot_rounds = -1,
                std::int32_t* workspace = nullptr, RoundSaving saving = {}) {
  configure_kernels<W>();
  int grid_persistent = 0;
  if constexpr (!W::kTagged)
    if (phase3 == Phase3::persistent) grid_persistent = persistent_grid<W>();
  const int nb = static_cast<int>(n_pad / Traits::kTile);
  DeviceBuffer<std::int32_t> owned_panel_t(
      workspace ? 0 : static_cast<std::size_t>(Traits::kTile) * static_cast<std::size_t>(n_pad));
  std::int32_t* const panel_t = workspace ? workspace : owned_panel_t.get();
  const int last = pivot_rounds < 0 ? nb : static_cast<int>(std::min<std::int64_t>(pivot_rounds, nb));
  // Checkpoints of whole runs only (not of the supernodal fronts' first
  // rounds, which pay nothing for them).
  RoundCheckpoints* const checkpoints = pivot_rounds < 0 ? saving.checkpoints : nullptr;
  std::vector<DeviceRoundCheckpoints::Plane> planes;
  if (checkpoints != nullptr) {
    const std::size_t cells = static_cast<std::size_t>(n_pad) * static_cast<std::size_t>(n_pad);
    planes.push_back({d, cells * sizeof(typename W::storage_t)});
    if constexpr (W::kTagged) planes.push_back({mid, cells * sizeof(std::int32_t)});
  }
  DeviceRoundCheckpoints saved(checkpoints, checkpoints != nullptr ? gpu_fw_layout(saving.words, n_pad) : std::string(),
                               nb, std::move(planes), stream);
  const int first = saving.restore ? static_cast<int>(saved.restore()) : 0;
  // Each report waits for the rounds so far: the bar shows finished work.
  Progress progress(stream, span, last, std::max(1, last / 64), /*wait_for_work=*/true);
  for (int kb = first; kb < last; ++kb) {
    kernels::close_diagonal<Traits, W><<<1, Traits::kThreads, 0, stream>>>(d, n_pad, kb, mid);
    APSP_CUDA_CHECK_LAUNCH("close_diagonal");
    if (nb > 1) {
      kernels::update_panels<Traits, W>
          <<<2 * (nb - 1), Traits::kThreads, kPivotSharedBytes, stream>>>(d, panel_t, n_pad, kb, nb, mid, row_tagged);
      APSP_CUDA_CHECK_LAUNCH("update_panels");
    }
    const int tiles_x = W::kPerWord == 1 ? nb - 1 : nb / 2;
    if (nb > 1 && phase3 != Phase3::persistent) {
      const dim3 grid(tiles_x, nb - 1);
      const std::int32_t* b_rows = W::kTagged ? row_tagged
                                              : reinterpret_cast<const std::int32_t*>(d) +
                                                    std::int64_t{kb} * Traits::kTile * (n_pad / W::kPerWord);
      if (phase3 == Phase3::tile_per_block_wide)
        kernels::update_rest<Wide, W>
            <<<grid, Wide::kThreads, kUpdateRestSharedBytes, stream>>>(d, panel_t, b_rows, n_pad, kb, mid);
      else if (phase3 == Phase3::tile_per_block_fold_c || phase3 == Phase3::tile_per_block_fold_c_l1)
        launch_fold_c<W>(phase3 == Phase3::tile_per_block_fold_c_l1, grid, d, panel_t, b_rows, n_pad, kb, stream);
      else
        kernels::update_rest<Traits, W>
            <<<grid, Traits::kThreads, kUpdateRestSharedBytes, stream>>>(d, panel_t, b_rows, n_pad, kb, mid);
      APSP_CUDA_CHECK_LAUNCH("update_rest");
    } else if (nb > 1) {
      if constexpr (!W::kTagged) {  // the persistent kernel has no predecessor mode (the registry says so)
        const int tiles_total = tiles_x * (nb - 1);
        kernels::update_rest_persistent<Persistent, W>
            <<<std::min(grid_persistent, tiles_total), Persistent::kThreads, kPersistentSharedBytes, stream>>>(
                d, panel_t, n_pad, kb, tiles_x, tiles_total);
        APSP_CUDA_CHECK_LAUNCH("update_rest_persistent");
      }
    }
    progress.reached(kb + 1);
    saved.round_done(kb + 1);
  }
  saved.finish();
}

// The problem with its progress narrowed to `span`.
GpuProblem reporting_into(const GpuProblem& p, ProgressSpan span) {
  GpuProblem narrowed = p;
  narrowed.progress = span;
  return narrowed;
}

// The int16 attempt: the rounds on an int16 copy, then the range certificate
// on that copy (kInf16 as infinity). Returns false, p.dist still holding the
// input, when it fails.
bool try_int16(const GpuProblem& p, Phase3 phase3) {
  const std::int64_t n_pad16 = round_up(p.n_pad, kInt16Pad);
  const std::int64_t cells = n_pad16 * n_pad16;
  require_device_memory(static_cast<std::size_t>(cells) * sizeof(std::int16_t), "the int16 copy of the matrix");
  DeviceBuffer<std::int16_t> narrow(static_cast<std::size_t>(cells));
  constexpr int kThreads = 256;
  kernels::narrow_to_int16<<<grid_for(cells, kThreads), kThreads, 0, p.stream>>>(p.dist, p.n_pad, narrow.get(),
                                                                                 n_pad16);
  APSP_CUDA_CHECK_LAUNCH("narrow_to_int16");
  run_rounds<kernels::Int16Words>(narrow.get(), n_pad16, p.stream, p.progress, phase3, nullptr, nullptr, -1, nullptr,
                                  {p.checkpoints, "int16"});
  const RangeView<std::int16_t> view{narrow.get(), p.n, n_pad16, 0, kernels::kInf16};
  if (testing::hooks.fail_int16_certificate || !p.certificate->holds(view)) return false;
  if (p.int16_result != nullptr) {
    p.int16_result->cells = std::move(narrow);
    p.int16_result->ld = n_pad16;
    p.int16_result->infinity = kernels::kInf16;
    return true;
  }
  kernels::widen_from_int16<<<grid_for(p.n_pad * p.n_pad, kThreads), kThreads, 0, p.stream>>>(narrow.get(), n_pad16,
                                                                                              p.dist, p.n_pad);
  APSP_CUDA_CHECK_LAUNCH("widen_from_int16");
  return true;
}

// Predecessor mode: distances carry the improving k in their low bits, so
// phase 3 keeps one DPX add-min per update; the per-round tags become a
// midpoint matrix, and pointer jumping along each column turns it into
// predecessors (pred[i][j] = pred[mid[i][j]][j]). Returns false, leaving
// p.dist as it was (and p.pred overwritten), when the tagged range (22 bits
// of distance) does not hold every distance: its certificate fails.
bool try_predecessor_mode(const GpuProblem& p) {
  if (p.max_weight >= kernels::kInfTagged / 2) return false;  // the range could hardly hold a path
  const std::int64_t cells = p.n_pad * p.n_pad;
  require_device_memory(static_cast<std::size_t>(cells + Traits::kTile * p.n_pad) * sizeof(std::int32_t),
                        "predecessor tracking");
  DeviceBuffer<std::int32_t> tagged(static_cast<std::size_t>(cells));
  DeviceBuffer<std::int32_t> row_tagged(static_cast<std::size_t>(Traits::kTile * p.n_pad));
  constexpr int kThreads = 256;
  const int grid = grid_for(cells, kThreads);
  kernels::pack_tagged<<<grid, kThreads, 0, p.stream>>>(p.dist, tagged.get(), p.pred, cells);
  APSP_CUDA_CHECK_LAUNCH("pack_tagged");
  run_rounds<kernels::TaggedWords>(tagged.get(), p.n_pad, p.stream, p.progress, Phase3::tile_per_block, p.pred,
                                   row_tagged.get(), -1, nullptr, {p.checkpoints, "tagged"});
  const RangeView<std::int32_t> view{tagged.get(), p.n, p.n_pad, kernels::kTagBits, kernels::kInfTagged};
  if (testing::hooks.fail_tagged_range || !p.certificate->holds(view)) return false;
  kernels::unpack_tagged<<<grid, kThreads, 0, p.stream>>>(tagged.get(), p.dist, p.pred, p.n_pad);
  APSP_CUDA_CHECK_LAUNCH("unpack_tagged");
  // Each pass halves every chain; chains are shorter than n, so 32 passes
  // suffice for any int32 n. More means the midpoints form a cycle.
  DeviceBuffer<int> changed(1);
  for (int pass = 0;; ++pass) {
    if (pass == 40)
      throw DeviceError("predecessor reconstruction", "midpoint chains did not converge", __FILE__, __LINE__);
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

// The fallback for distances beyond the tagged range: int32 rounds, then
// each predecessor read off a tight in-edge (kernels/dense/tight_predecessors.cuh).
void run_predecessors_from_tight_edges(const GpuProblem& p, bool restore) {
  run_rounds<kernels::Int32Words>(p.dist, p.n_pad, p.stream, p.progress, Phase3::tile_per_block, nullptr, nullptr, -1,
                                  nullptr, {p.checkpoints, "int32", restore});
  Graph reweighted;
  reweighted.n = p.n;
  reweighted.edges = *p.edges;
  const Csr in_edges = transpose(to_csr(reweighted));
  require_device_memory(in_edges.row_start.size() * sizeof(std::int64_t) + in_edges.col.size() * 8,
                        "the in-edge lists for predecessors");
  DeviceBuffer<std::int64_t> rows(in_edges.row_start.size());
  DeviceBuffer<vertex_t> cols(std::max<std::size_t>(1, in_edges.col.size()));
  DeviceBuffer<weight_t> weights(std::max<std::size_t>(1, in_edges.weight.size()));
  APSP_CUDA_CHECK(cudaMemcpyAsync(rows.get(), in_edges.row_start.data(),
                                  in_edges.row_start.size() * sizeof(std::int64_t), cudaMemcpyHostToDevice, p.stream));
  if (!in_edges.col.empty()) {
    APSP_CUDA_CHECK(cudaMemcpyAsync(cols.get(), in_edges.col.data(), in_edges.col.size() * sizeof(vertex_t),
                                    cudaMemcpyHostToDevice, p.stream));
    APSP_CUDA_CHECK(cudaMemcpyAsync(weights.get(), in_edges.weight.data(), in_edges.weight.size() * sizeof(weight_t),
                                    cudaMemcpyHostToDevice, p.stream));
  }
  constexpr int kThreads = 256;
  const DeviceCsr device_in_edges{rows.get(), cols.get(), weights.get(), p.n,
                                  static_cast<std::int64_t>(in_edges.col.size())};
  kernels::predecessors_from_tight_edges<<<grid_for(p.n * p.n, kThreads), kThreads, 0, p.stream>>>(
      p.dist, p.pred, p.n, p.n_pad, device_in_edges);
  APSP_CUDA_CHECK_LAUNCH("predecessors_from_tight_edges");
  // The edge lists (device and host) are freed on return: the pass must be done.
  APSP_CUDA_CHECK(cudaStreamSynchronize(p.stream));
}

void run_blocked_production(GpuProblem& p, Phase3 phase3) {
  if (p.pred) {
    // The registry refuses predecessors for fw-persistent before any work.
    if (phase3 != Phase3::tile_per_block) throw Error("the persistent phase 3 has no predecessor mode");
    if (p.precision == Precision::int16)
      throw UsageError("int16 cannot track predecessors (automatic or int32 can)", "precision");
    p.used_precision = Precision::int32;
    // A resumed solve whose checkpoint holds the fallback's rounds skips the
    // attempt: it failed before that checkpoint was written.
    const bool fallback_held = holds_int32_rounds(p);
    if (fallback_held || !try_predecessor_mode(reporting_into(p, p.progress.part(0, kTaggedAttemptShare))))
      run_predecessors_from_tight_edges(reporting_into(p, p.progress.rest()), fallback_held);
    return;
  }
  const bool int16_possible = p.max_weight < kernels::kInf16 / 2;
  if (p.precision == Precision::int16 && !int16_possible)
    throw UsageError("int16: the largest (reweighted) edge weight " + std::to_string(p.max_weight) +
                         " leaves no room below the int16 infinity " + std::to_string(kernels::kInf16),
                     "precision");
  // auto tries int16 when the host's estimate of the largest distance fits.
  // A resumed solve whose checkpoint holds int32 rounds skips the attempt,
  // as predecessors' does.
  const bool int32_held = p.precision != Precision::int16 && holds_int32_rounds(p);
  const bool attempt_int16 =
      !int32_held && (p.precision == Precision::int16 || (p.precision == Precision::automatic && int16_possible &&
                                                          p.distance_estimate < kernels::kInf16 / 2));
  if (attempt_int16 && try_int16(reporting_into(p, p.progress.part(0, kInt16AttemptShare)), phase3)) {
    p.used_precision = Precision::int16;
    return;
  }
  run_rounds<kernels::Int32Words>(p.dist, p.n_pad, p.stream, p.progress.rest(), phase3, nullptr, nullptr, -1, nullptr,
                                  {p.checkpoints, "int32", !attempt_int16});
  p.used_precision = Precision::int32;
}

}  // namespace

void run_fw_production(GpuProblem& p) { run_blocked_production(p, Phase3::tile_per_block); }

void fw_rounds_real(float* d, std::int64_t n_pad, cudaStream_t stream, ProgressSpan span, RealFwVariant variant,
                    std::int64_t pivot_rounds, std::int32_t* workspace, RoundCheckpoints* checkpoints) {
  if (n_pad % Traits::kTile != 0)
    throw UsageError("the float32 matrix must be padded to a multiple of " + std::to_string(Traits::kTile), "n_pad");
  const Phase3 phase3 = variant == RealFwVariant::one_block_per_sm ? Phase3::tile_per_block_wide
                        : variant == RealFwVariant::fold_c         ? Phase3::tile_per_block_fold_c
                        : variant == RealFwVariant::fold_c_l1      ? Phase3::tile_per_block_fold_c_l1
                                                                   : Phase3::tile_per_block;
  run_rounds<kernels::Float32Words>(d, n_pad, stream, span, phase3, nullptr, nullptr, pivot_rounds, workspace,
                                    {checkpoints, "float32"});
}

void fw_rounds_int32(std::int32_t* d, std::int64_t n_pad, cudaStream_t stream, ProgressSpan span,
                     std::int64_t pivot_rounds, std::int32_t* workspace) {
  if (n_pad % Traits::kTile != 0)
    throw UsageError("the int32 matrix must be padded to a multiple of " + std::to_string(Traits::kTile), "n_pad");
  run_rounds<kernels::Int32Words>(d, n_pad, stream, span, Phase3::tile_per_block, nullptr, nullptr, pivot_rounds,
                                  workspace);
}
void fw_rounds_int16(std::int16_t* d, std::int64_t n_pad, cudaStream_t stream, ProgressSpan span,
                     std::int32_t* workspace) {
  if (n_pad % kInt16Pad != 0)
    throw UsageError("the int16 matrix must be padded to a multiple of " + std::to_string(kInt16Pad), "n_pad");
  run_rounds<kernels::Int16Words>(d, n_pad, stream, span, Phase3::tile_per_block, nullptr, nullptr, -1, workspace);
}
void fw_rounds_tagged(std::int32_t* tagged, std::int64_t n_pad, cudaStream_t stream, std::int32_t* mid,
                      std::int32_t* row_tagged, std::int32_t* workspace) {
  if (n_pad % Traits::kTile != 0)
    throw UsageError("the tagged matrix must be padded to a multiple of " + std::to_string(Traits::kTile), "n_pad");
  run_rounds<kernels::TaggedWords>(tagged, n_pad, stream, ProgressSpan{}, Phase3::tile_per_block, mid, row_tagged, -1,
                                   workspace);
}
void run_fw_persistent(GpuProblem& p) { run_blocked_production(p, Phase3::persistent); }

}  // namespace apsp::cuda
