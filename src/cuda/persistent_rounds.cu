// The host side of the persistent rounds, of the squaring closure and of the
// blocked closure (cuda/persistent_rounds.hpp): the fit, the grid (what the
// widest phase can use, at most what is co-resident) and the cooperative
// launch; the blocked closure's phases planned on the host and uploaded.
#include "cuda/persistent_rounds.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "apsp/error.hpp"
#include "core/ceil_div.hpp"
#include "core/cuda_check.hpp"
#include "cuda/kernels/supernodal/blocked_closure.cuh"
#include "cuda/kernels/supernodal/persistent_rounds.cuh"
#include "cuda/kernels/supernodal/squaring_closure.cuh"
#include "supernodal/blocked_closure_plan.hpp"

namespace apsp::cuda {
namespace {

namespace sn = kernels::supernodal;
static_assert(sn::PersistentRounds128::kMaxPad == kPersistentRoundsMaxPad &&
                  sn::PersistentRounds64::kMaxPad == kPersistentRoundsMaxPad,
              "the header's bound is the kernels'");

// A cooperative kernel's room on a device: its SMs and its co-resident
// blocks per SM (0 when it cannot run there: no cooperative launch, or its
// shared memory does not fit).
struct Residency {
  int sms = 0, per_sm = 0;
  int blocks() const { return sms * per_sm; }
};
Residency query_residency(const void* kernel, int threads, std::size_t dynamic_shared, std::size_t static_shared,
                          int device) {
  int cooperative = 0, shared_optin = 0;
  Residency r;
  APSP_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  if (!cooperative) return r;
  APSP_CUDA_CHECK(cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (static_cast<std::size_t>(shared_optin) < dynamic_shared + static_shared) return r;
  APSP_CUDA_CHECK(cudaDeviceGetAttribute(&r.sms, cudaDevAttrMultiProcessorCount, device));
  APSP_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dynamic_shared)));
  APSP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.per_sm, kernel, threads, dynamic_shared));
  return r;
}

// The same on the current device, asked once per device and kernel (a factor
// asks per front); Key names the kernel.
template <class Key>
Residency residency(const void* kernel, int threads, std::size_t dynamic_shared, std::size_t static_shared) {
  constexpr int kDevices = 64;
  static std::array<std::atomic<long long>, kDevices> known{};  // sms << 32 | per_sm, + 1; 0: not asked yet
  int device = 0;
  APSP_CUDA_CHECK(cudaGetDevice(&device));
  if (device < 0 || device >= kDevices) return query_residency(kernel, threads, dynamic_shared, static_shared, device);
  std::atomic<long long>& slot = known[static_cast<std::size_t>(device)];
  if (slot.load() == 0) {
    const Residency r = query_residency(kernel, threads, dynamic_shared, static_shared, device);
    slot.store((static_cast<long long>(r.sms) << 32 | r.per_sm) + 1);
  }
  const long long packed = slot.load() - 1;
  return Residency{static_cast<int>(packed >> 32), static_cast<int>(packed & 0xffffffff)};
}

template <class T, class W>
struct RoundsKernel {};
template <class T, class W>
int coresident_blocks() {
  return residency<RoundsKernel<T, W>>(reinterpret_cast<const void*>(sn::persistent_rounds<T, W>), T::kThreads,
                                       T::kSharedBytes, T::kStaticSharedBytes)
      .blocks();
}

using Squaring = sn::SquaringTraits;
static_assert(Squaring::kMaxK == kSquaringClosureMaxK && Squaring::kDefaultMaxK == kSquaringClosureDefaultMaxK &&
                  Squaring::kFlagWords == kSquaringClosureFlagWords,
              "the header's bounds are the kernel's");
Residency squaring_residency() {
  return residency<Squaring>(reinterpret_cast<const void*>(sn::squaring_closure<Squaring>), Squaring::kThreads,
                             Squaring::kSharedBytes, 0);
}

using Blocked = sn::BlockedClosureTraits;
static_assert(Blocked::kMaxK == kBlockedClosureMaxK && Blocked::kDefaultMaxK == kBlockedClosureDefaultMaxK &&
                  Blocked::kLeafMaxK == kBlockedClosureLeafMaxK,
              "the header's bounds are the kernel's");
static_assert(sizeof(sn::BlockedPhase) % sizeof(std::int32_t) == 0 && alignof(sn::BlockedPhase) <= 4,
              "a phase record is whole int32 words");
static_assert(supernodal::leaf_squarings(1) == sn::squarings_bound(1) &&
                  supernodal::leaf_squarings(704) == sn::squarings_bound(704) &&
                  supernodal::leaf_squarings(1024) == sn::squarings_bound(1024),
              "a leaf takes the squaring closure's bound");
struct BlockedKernel {};
Residency blocked_residency() {
  return residency<BlockedKernel>(reinterpret_cast<const void*>(sn::blocked_closure<Squaring>), Squaring::kThreads,
                                  Squaring::kSharedBytes, 0);
}

template <class T, class W>
void launch(typename W::storage_t* front, std::int64_t k, std::int64_t s, std::int64_t front_ld,
            typename W::storage_t* padded, std::int32_t* panels, cudaStream_t stream) {
  const std::int64_t n_pad = persistent_rounds_pad(k, s, T::kTile);
  if (front_ld < k + s)
    throw UsageError("the front's row stride " + std::to_string(front_ld) + " is below its order " +
                         std::to_string(k + s),
                     "front_ld");
  const int coresident = n_pad <= T::kMaxPad ? coresident_blocks<T, W>() : 0;
  if (coresident < 1)
    throw UsageError("the persistent rounds do not run a block of padded order " + std::to_string(n_pad) +
                         " on this device (at most " + std::to_string(T::kMaxPad) + ", and cooperative launches)",
                     "n_pad");
  if (k <= 0) return;  // no pivots: nothing changes
  const int nb = static_cast<int>(n_pad / T::kTile);
  const int work = std::max({1, 2 * (nb - 1), (nb - 1) * (nb - 1)});
  const int blocks = std::min(coresident, work);
  sn::PaddedFront shape{k, s, round_up(k, std::int64_t{T::kTile}), n_pad, front_ld};
  int rounds = static_cast<int>(shape.k_pad / T::kTile);
  void* args[] = {&front, &shape, &padded, &panels, &rounds};
  APSP_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(sn::persistent_rounds<T, W>), dim3(blocks),
                                              dim3(T::kThreads), args, T::kSharedBytes, stream));
  APSP_CUDA_CHECK_LAUNCH("persistent_rounds");
}

}  // namespace

std::int64_t persistent_rounds_pad(std::int64_t k, std::int64_t s, int tile) {
  if (tile != 128 && tile != 64) throw UsageError("the persistent rounds' tile is 128 or 64", "tile");
  return round_up(round_up(k, std::int64_t{tile}) + s, std::int64_t{tile});
}

bool persistent_rounds_fit(std::int64_t n_pad) {
  return n_pad <= kPersistentRoundsMaxPad && coresident_blocks<sn::PersistentRounds128, kernels::Int32Words>() >= 1 &&
         coresident_blocks<sn::PersistentRounds128, kernels::Float32Words>() >= 1 &&
         coresident_blocks<sn::PersistentRounds64, kernels::Int32Words>() >= 1;
}

void persistent_front_rounds(std::int32_t* front, std::int64_t k, std::int64_t s, std::int64_t front_ld,
                             std::int32_t* padded, std::int32_t* panels, cudaStream_t stream, int tile) {
  if (tile == 64)
    launch<sn::PersistentRounds64, kernels::Int32Words>(front, k, s, front_ld, padded, panels, stream);
  else if (tile == 128)
    launch<sn::PersistentRounds128, kernels::Int32Words>(front, k, s, front_ld, padded, panels, stream);
  else
    throw UsageError("the persistent rounds' tile is 128 or 64", "tile");
}
void persistent_front_rounds(float* front, std::int64_t k, std::int64_t s, std::int64_t front_ld, float* padded,
                             std::int32_t* panels, cudaStream_t stream) {
  launch<sn::PersistentRounds128, kernels::Float32Words>(front, k, s, front_ld, padded, panels, stream);
}

std::int64_t squaring_closure_pad(std::int64_t k) { return round_up(k, std::int64_t{Squaring::kTile}); }

bool squaring_closure_fit() { return squaring_residency().blocks() >= 1; }

void squaring_front_closure(std::int32_t* front, std::int64_t k, std::int64_t front_ld, std::int32_t* padded,
                            std::int32_t* flags, cudaStream_t stream) {
  if (k < 0 || k > Squaring::kMaxK)
    throw UsageError("the squaring closure takes blocks of at most " + std::to_string(Squaring::kMaxK) +
                         " vertices, not " + std::to_string(k),
                     "k");
  if (front_ld < k)
    throw UsageError("the front's row stride " + std::to_string(front_ld) + " is below the block's order " +
                         std::to_string(k),
                     "front_ld");
  const Residency room = squaring_residency();
  if (room.blocks() < 1)
    throw UsageError("the squaring closure needs cooperative launches and " + std::to_string(Squaring::kSharedBytes) +
                         " bytes of shared memory a block on this device",
                     "device");
  if (k == 0) return;
  const std::int64_t k_pad = squaring_closure_pad(k);
  sn::SquaringPlan plan{};
  plan.tiles_x = static_cast<int>(k_pad / Squaring::kTile);
  plan.stages = static_cast<int>(k_pad / Squaring::kChunk);
  plan.squarings = sn::squarings_bound(k);
  const int tiles = plan.tiles_x * plan.tiles_x;
  // The depth split until the items are about kItemsPerSm per SM (each
  // share at least one stage); the grid at most kBlocksPerSm per SM.
  plan.splits = std::clamp(Squaring::kItemsPerSm * room.sms / tiles, 1, plan.stages);
  const int blocks = std::min({room.blocks(), tiles * plan.splits, Squaring::kBlocksPerSm * room.sms});
  sn::PaddedFront shape{k, 0, k_pad, k_pad, front_ld};
  void* args[] = {&front, &shape, &padded, &flags, &plan};
  APSP_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(sn::squaring_closure<Squaring>),
                                              dim3(blocks), dim3(Squaring::kThreads), args, Squaring::kSharedBytes,
                                              stream));
  APSP_CUDA_CHECK_LAUNCH("squaring_closure");
}

bool blocked_closure_fit() { return blocked_residency().blocks() >= 1; }

BlockedClosure::BlockedClosure(std::int64_t k, std::int64_t leaf_max_k, cudaStream_t stream)
    : k_(k), leaf_(leaf_max_k == 0 ? kBlockedClosureLeafMaxK : leaf_max_k) {
  if (k < 1 || k > Blocked::kMaxK)
    throw UsageError("the blocked closure takes blocks of 1 to " + std::to_string(Blocked::kMaxK) + " vertices, not " +
                         std::to_string(k),
                     "k");
  if (leaf_ < Blocked::kAlign || leaf_ > Squaring::kMaxK)
    throw UsageError("the blocked closure's leaves take " + std::to_string(Blocked::kAlign) + " to " +
                         std::to_string(Squaring::kMaxK) + " vertices, not " + std::to_string(leaf_),
                     "leaf_max_k");
  const Residency room = blocked_residency();
  if (room.blocks() < 1)
    throw UsageError("the blocked closure needs cooperative launches and " + std::to_string(Squaring::kSharedBytes) +
                         " bytes of shared memory a block on this device",
                     "device");
  const supernodal::BlockedClosurePlan plan = supernodal::plan_blocked_closure(k, leaf_, Blocked::kAlign);
  leaves_ = plan.leaves;
  product_addmins_ = plan.product_addmins;
  // Ranges in tiles and depth stages (kTile == kChunk == kAlign), the depth
  // split as the squaring closure splits it.
  const std::vector<sn::BlockedPhase> phases =
      supernodal::tile_phases(plan, Squaring::kTile, room.sms, Squaring::kItemsPerSm);
  int most_items = 1;
  for (const sn::BlockedPhase& p : phases) most_items = std::max(most_items, supernodal::phase_items(p));
  count_ = static_cast<int>(phases.size());
  blocks_ = std::min({room.blocks(), most_items, Squaring::kBlocksPerSm * room.sms});
  std::vector<std::int32_t> words(phases.size() * sizeof(sn::BlockedPhase) / sizeof(std::int32_t));
  if (!phases.empty()) std::memcpy(words.data(), phases.data(), phases.size() * sizeof(sn::BlockedPhase));
  phases_ = upload(words, stream);
  APSP_CUDA_CHECK(cudaStreamSynchronize(stream));  // `words` goes out of scope
}

void BlockedClosure::run(std::int32_t* front, std::int64_t front_ld, std::int32_t* padded, std::int32_t* flags,
                         cudaStream_t stream) const {
  if (front_ld < k_)
    throw UsageError("the front's row stride " + std::to_string(front_ld) + " is below the block's order " +
                         std::to_string(k_),
                     "front_ld");
  const std::int64_t k_pad = squaring_closure_pad(k_);
  sn::PaddedFront shape{k_, 0, k_pad, k_pad, front_ld};
  const sn::BlockedPhase* phases = reinterpret_cast<const sn::BlockedPhase*>(phases_.get());
  int count = count_;
  void* args[] = {&front, &shape, &padded, &flags, &phases, &count};
  APSP_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(sn::blocked_closure<Squaring>),
                                              dim3(blocks_), dim3(Squaring::kThreads), args, Squaring::kSharedBytes,
                                              stream));
  APSP_CUDA_CHECK_LAUNCH("blocked_closure");
}

int squaring_closure_squarings(const std::int32_t* flags, cudaStream_t stream) {
  std::int32_t used = 0;
  APSP_CUDA_CHECK(cudaMemcpyAsync(&used, flags + Squaring::kUsedAt, sizeof(used), cudaMemcpyDeviceToHost, stream));
  APSP_CUDA_CHECK(cudaStreamSynchronize(stream));
  return used;
}

}  // namespace apsp::cuda
