#include <algorithm>
#include <string>
#include <type_traits>

#include "core/cuda_check.hpp"
#include "kernels/verify/certify_rows.cuh"
#include "core/cuda_memory.hpp"
#include "verify_rows.hpp"

namespace apsp::cuda {
namespace {

using Traits = kernels::CertifyTraits;

template <typename S, bool kRowInShared, bool kZeroCycles, bool kPotentials>
void launch_certify(const DeviceRows& m, const DeviceInEdges& g, const std::int64_t* h, unsigned long long* first_bad,
                    std::size_t shared_bytes, cudaStream_t stream) {
  auto* kernel = kernels::certify_rows<S, kRowInShared, kZeroCycles, kPotentials>;
  APSP_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
  int device = 0, sms = 0, per_sm = 0;
  APSP_CUDA_CHECK(cudaGetDevice(&device));
  APSP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  APSP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, Traits::kThreads, shared_bytes));
  if (per_sm < 1) throw ResourceError("the GPU certificate kernel does not fit on this device");
  const int grid = static_cast<int>(std::min<std::int64_t>(m.n, std::int64_t{sms} * per_sm));
  kernel<<<grid, Traits::kThreads, shared_bytes, stream>>>(static_cast<const S*>(m.data), m.ld, m.n, m.int16_infinity,
                                                           g, h, first_bad);
  APSP_CUDA_CHECK_LAUNCH("certify_rows");
}

// Calls f with std::true_type or std::false_type, turning a run-time flag
// into a template argument.
template <class F>
void with_flag(bool flag, F f) {
  if (flag)
    f(std::true_type{});
  else
    f(std::false_type{});
}

}  // namespace

std::int64_t lowest_failing_row(const DeviceRows& matrix, const DeviceInEdges& edges, const std::int64_t* potentials,
                                cudaStream_t stream, RowPlacement placement) {
  if (matrix.n == 0) return -1;
  int device = 0, shared_limit = 0;
  APSP_CUDA_CHECK(cudaGetDevice(&device));
  APSP_CUDA_CHECK(cudaDeviceGetAttribute(&shared_limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const std::size_t bitset_bytes =
      static_cast<std::size_t>((matrix.n + Traits::kBitsPerWord - 1) / Traits::kBitsPerWord) * sizeof(std::uint32_t);
  const std::size_t row_bytes = static_cast<std::size_t>(matrix.n) * sizeof(std::int32_t);
  if (bitset_bytes > static_cast<std::size_t>(shared_limit))
    throw ResourceError("the GPU certificate of a " + std::to_string(matrix.n) + "-vertex matrix needs " +
                        std::to_string(bitset_bytes) + " bytes of shared memory; the device has " +
                        std::to_string(shared_limit));
  // The row in shared memory when it fits beside the bitset; else it is read
  // from global memory (through L1 / L2) at each use.
  const bool row_in_shared = placement == RowPlacement::automatic &&
                             bitset_bytes + row_bytes <= static_cast<std::size_t>(shared_limit);
  const std::size_t shared_bytes = bitset_bytes + (row_in_shared ? row_bytes : 0);

  DeviceBuffer<unsigned long long> first_bad(1);
  APSP_CUDA_CHECK(cudaMemsetAsync(first_bad.get(), 0xff, sizeof(unsigned long long), stream));
  with_flag(row_in_shared, [&](auto in_shared) {
    with_flag(edges.rep != nullptr, [&](auto zero_cycles) {
      with_flag(potentials != nullptr, [&](auto with_potentials) {
        constexpr bool kShared = decltype(in_shared)::value, kZero = decltype(zero_cycles)::value,
                       kPotentials = decltype(with_potentials)::value;
        if (matrix.stored == Stored::int16)
          launch_certify<std::int16_t, kShared, kZero, kPotentials>(matrix, edges, potentials, first_bad.get(),
                                                                    shared_bytes, stream);
        else
          launch_certify<std::int32_t, kShared, kZero, kPotentials>(matrix, edges, potentials, first_bad.get(),
                                                                    shared_bytes, stream);
      });
    });
  });
  unsigned long long lowest = 0;
  APSP_CUDA_CHECK(cudaMemcpyAsync(&lowest, first_bad.get(), sizeof lowest, cudaMemcpyDeviceToHost, stream));
  APSP_CUDA_CHECK(cudaStreamSynchronize(stream));
  return lowest == ~0ull ? -1 : static_cast<std::int64_t>(lowest);
}

}  // namespace apsp::cuda
