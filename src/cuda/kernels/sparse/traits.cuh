// Shapes and arithmetic of the batched single-source solver ("sssp",
// kernels/sparse/sssp.cu): threads per block for each row placement, the
// degree from which a warp shares a vertex's edges, and the distance policy.
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"
#include "cuda/sparse_variant.hpp"

namespace apsp::cuda::kernels {

// int32 distances with kInf as infinity: two stored values below 2^30 never
// overflow an int32 sum, so du + w is formed without a bound (range_rule.hpp).
// A float policy would supply its own infinity and atomic_min.
struct SparseInt32 {
  using dist_type = std::int32_t;
  static constexpr dist_type kInfinity = kInf;
  __device__ static dist_type atomic_min(dist_type* at, dist_type v) { return atomicMin(at, v); }
};

// kSharedRow: the source's distance row (and the queued/far bitmaps) live in
// shared memory, one large block per SM; otherwise the row is the output row
// itself in global memory (L2) and more, smaller blocks share an SM.
template <bool kSharedRow>
struct SparseTraits {
  static constexpr int kThreads = kSharedRow ? 1024 : 256;
  static constexpr int kWarp = 32;
  // A frontier vertex with at least this many out-edges is relaxed by its
  // whole warp (one edge per lane); lighter ones by their own lane, so hubs
  // do not serialize a lane while 31 wait.
  static constexpr int kWarpDegree = 32;
  static_assert(kThreads % kWarp == 0 && kThreads <= 1024, "whole warps, at most 1024 threads");
  static_assert(kWarpDegree >= 1, "a positive degree threshold");
};

}  // namespace apsp::cuda::kernels
