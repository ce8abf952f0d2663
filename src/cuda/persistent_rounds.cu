// The host side of the persistent rounds (cuda/persistent_rounds.hpp): the
// fit, the grid (what the widest phase can use, at most what is co-resident)
// and the cooperative launch.
#include "cuda/persistent_rounds.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <string>

#include "apsp/error.hpp"
#include "core/ceil_div.hpp"
#include "core/cuda_check.hpp"
#include "cuda/kernels/supernodal/persistent_rounds.cuh"

namespace apsp::cuda {
namespace {

namespace sn = kernels::supernodal;
static_assert(sn::PersistentRounds128::kMaxPad == kPersistentRoundsMaxPad &&
                  sn::PersistentRounds64::kMaxPad == kPersistentRoundsMaxPad,
              "the header's bound is the kernels'");

// Co-resident blocks of the kernel on `device`, 0 when it cannot run there
// (no cooperative launch, or its shared memory does not fit).
template <class T, class W>
int query_coresident_blocks(int device) {
  int cooperative = 0, sms = 0, per_sm = 0, shared_optin = 0;
  APSP_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  if (!cooperative) return 0;
  APSP_CUDA_CHECK(cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (static_cast<std::size_t>(shared_optin) < T::kSharedBytes + T::kStaticSharedBytes) return 0;
  APSP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const auto kernel = sn::persistent_rounds<T, W>;
  APSP_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(T::kSharedBytes)));
  APSP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, T::kThreads, T::kSharedBytes));
  return sms * per_sm;
}

// The same on the current device, asked once per device (a factor asks per front).
template <class T, class W>
int coresident_blocks() {
  constexpr int kDevices = 64;
  static std::array<std::atomic<int>, kDevices> known{};  // blocks + 1; 0: not asked yet
  int device = 0;
  APSP_CUDA_CHECK(cudaGetDevice(&device));
  if (device < 0 || device >= kDevices) return query_coresident_blocks<T, W>(device);
  std::atomic<int>& slot = known[static_cast<std::size_t>(device)];
  if (slot.load() == 0) slot.store(query_coresident_blocks<T, W>(device) + 1);
  return slot.load() - 1;
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

}  // namespace apsp::cuda
