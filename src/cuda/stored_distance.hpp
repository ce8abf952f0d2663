// Reading a stored distance as the graph's int32 value: one rule for the
// download (device staging kernel and host widening) and the GPU certificate.
// Host and device code; compiles with the host compiler too.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "apsp/graph.hpp"

namespace apsp::cuda {

// int32 matrices store kInf itself, and any other value as it is, so a
// corrupt entry above kInf stays visible to the certificate.
__host__ __device__ inline std::int32_t stored_to_int32(std::int32_t v, std::int32_t /*int16_infinity*/) { return v; }
// int16 matrices store unreachable as any value >= their infinity.
__host__ __device__ inline std::int32_t stored_to_int32(std::int16_t v, std::int32_t int16_infinity) {
  return v >= int16_infinity ? kInf : static_cast<std::int32_t>(v);
}

// A finite distance (after undoing the potentials, in int64) that the int32
// output cannot hold: its range is (-kInf, kInf).
__host__ __device__ inline bool outside_int32_distances(std::int64_t d) { return d >= kInf || d <= -kInf; }

}  // namespace apsp::cuda
