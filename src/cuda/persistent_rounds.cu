// The host side of the persistent rounds (cuda/persistent_rounds.hpp): the
// fit, the grid (what phase 3 can use, at most what is co-resident) and the
// cooperative launch.
#include "cuda/persistent_rounds.hpp"

#include <algorithm>
#include <string>

#include "apsp/error.hpp"
#include "core/ceil_div.hpp"
#include "core/cuda_check.hpp"
#include "cuda/kernels/supernodal/persistent_rounds.cuh"

namespace apsp::cuda {
namespace {

using Traits = kernels::supernodal::PersistentRoundsTraits;
static_assert(Traits::kMaxPad == kPersistentRoundsMaxPad, "the header's bound is the kernel's");

// Co-resident blocks of the kernel on the current device, 0 when it cannot
// run there (no cooperative launch, or its shared memory does not fit).
template <class W>
int coresident_blocks() {
  int device = 0, cooperative = 0, sms = 0, per_sm = 0;
  APSP_CUDA_CHECK(cudaGetDevice(&device));
  APSP_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  if (!cooperative) return 0;
  int shared_optin = 0;
  APSP_CUDA_CHECK(cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (static_cast<std::size_t>(shared_optin) < Traits::kSharedBytes + Traits::kStaticSharedBytes) return 0;
  APSP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const auto kernel = kernels::supernodal::persistent_rounds<Traits, W>;
  APSP_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(Traits::kSharedBytes)));
  APSP_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, Traits::kThreads, Traits::kSharedBytes));
  return sms * per_sm;
}

template <class W>
void launch(typename W::storage_t* front, std::int64_t k, std::int64_t s, std::int64_t front_ld,
            typename W::storage_t* padded, std::int32_t* panels, cudaStream_t stream) {
  if (k <= 0) return;  // no pivots: nothing changes
  const std::int64_t n_pad = persistent_rounds_pad(k, s);
  if (front_ld < k + s)
    throw UsageError("the front's row stride " + std::to_string(front_ld) + " is below its order " +
                         std::to_string(k + s),
                     "front_ld");
  const int coresident = n_pad <= Traits::kMaxPad ? coresident_blocks<W>() : 0;
  if (coresident < 1)
    throw UsageError("the persistent rounds do not run a block of padded order " + std::to_string(n_pad) +
                         " on this device (at most " + std::to_string(Traits::kMaxPad) + ", and cooperative launches)",
                     "n_pad");
  const int nb = static_cast<int>(n_pad / Traits::kTile);
  const int work = std::max({1, 2 * (nb - 1), (nb - 1) * (nb - 1)});
  const int blocks = std::min(coresident, work);
  kernels::supernodal::PaddedFront shape{k, s, round_up(k, std::int64_t{Traits::kTile}), n_pad, front_ld};
  int rounds = static_cast<int>(shape.k_pad / Traits::kTile);
  void* args[] = {&front, &shape, &padded, &panels, &rounds};
  APSP_CUDA_CHECK(
      cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernels::supernodal::persistent_rounds<Traits, W>),
                                  dim3(blocks), dim3(Traits::kThreads), args, Traits::kSharedBytes, stream));
  APSP_CUDA_CHECK_LAUNCH("persistent_rounds");
}

}  // namespace

std::int64_t persistent_rounds_pad(std::int64_t k, std::int64_t s) {
  const std::int64_t k_pad = round_up(k, std::int64_t{Traits::kTile});
  return round_up(k_pad + s, std::int64_t{Traits::kTile});
}

bool persistent_rounds_fit(std::int64_t n_pad) {
  return n_pad <= Traits::kMaxPad && coresident_blocks<kernels::Int32Words>() >= 1 &&
         coresident_blocks<kernels::Float32Words>() >= 1;
}

void persistent_front_rounds(std::int32_t* front, std::int64_t k, std::int64_t s, std::int64_t front_ld,
                             std::int32_t* padded, std::int32_t* panels, cudaStream_t stream) {
  launch<kernels::Int32Words>(front, k, s, front_ld, padded, panels, stream);
}
void persistent_front_rounds(float* front, std::int64_t k, std::int64_t s, std::int64_t front_ld, float* padded,
                             std::int32_t* panels, cudaStream_t stream) {
  launch<kernels::Float32Words>(front, k, s, front_ld, padded, panels, stream);
}

}  // namespace apsp::cuda
