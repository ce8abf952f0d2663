// Device helpers shared by the seeds' kernel family.
// Every matrix is n_pad x n_pad row-major with leading dimension `ld`; weights
// are non-negative and kInf = 2^30 - 1, so a + b of two stored values never
// wraps in int32 and an infinite operand never undercuts a finite entry.
// With kTrackPred a predecessor follows only a strict improvement, so pred
// stays a shortest-path tree even across zero-weight cycles.
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"

namespace apsp::cuda::kernels {

// min(a + b, c) in one DPX instruction on sm_90 (emulated elsewhere).
__device__ __forceinline__ dist_t add_min(dist_t a, dist_t b, dist_t c) { return __viaddmin_s32(a, b, c); }

// cell = min(cell, d_ik + d_kj) for a value only this thread reads (a
// register); with kTrackPred, on_improve() runs on a strict improvement.
// V is dist_t, or with kTrackPred any totally ordered value whose + composes
// paths (the blocked kernels' (distance, hops) keys).
template <bool kTrackPred, typename V, typename OnImprove>
__device__ __forceinline__ void relax(V& cell, V d_ik, V d_kj, OnImprove&& on_improve) {
  if constexpr (kTrackPred) {
    if (d_ik + d_kj < cell) {
      cell = d_ik + d_kj;
      on_improve();
    }
  } else {
    cell = add_min(d_ik, d_kj, cell);
  }
}

// The same for a value other threads read (shared or global memory): it is
// written only on a strict improvement. Within pivot step k, row k and
// column k never improve (d[k][k] = 0), so their concurrent readers race with
// no write.
template <bool kTrackPred, typename V, typename OnImprove>
__device__ __forceinline__ void relax_in_place(V& cell, V d_ik, V d_kj, OnImprove&& on_improve) {
  const V current = cell;
  if constexpr (kTrackPred) {
    if (d_ik + d_kj < current) {
      cell = d_ik + d_kj;
      on_improve();
    }
  } else {
    const dist_t updated = add_min(d_ik, d_kj, current);
    if (updated < current) cell = updated;
  }
}

// Relaxes global cell (i, j) through pivot k, given d[i][k] and d[k][j].
template <bool kTrackPred>
__device__ __forceinline__ void relax_global(dist_t* dist, vertex_t* pred, std::int64_t ld, std::int64_t i,
                                             std::int64_t j, std::int64_t k, dist_t d_ik, dist_t d_kj) {
  const std::int64_t at = i * ld + j;
  relax_in_place<kTrackPred>(dist[at], d_ik, d_kj, [&] { pred[at] = pred[k * ld + j]; });
}

}  // namespace apsp::cuda::kernels
