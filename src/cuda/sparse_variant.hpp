// The ladder of the batched single-source GPU solver (kernels/sparse/sssp.cu),
// selectable per registry entry and by the benchmark. Host-safe.
#pragma once

namespace apsp::cuda {

enum class SparseVariant {
  // v1: per-source frontier Bellman-Ford. Each round relaxes every vertex
  // improved in the round before; a high-diameter graph needs about as many
  // rounds as its hop diameter.
  frontier = 0,
  // v2: near-far buckets. Only improvements below a threshold join the
  // frontier; the rest wait in a far pile, which is split when the frontier
  // runs dry (threshold = smallest far distance + delta). Fewer re-relaxations
  // on weighted high-diameter graphs (grids, roads).
  near_far = 1,
  // v3: near-far, and the edges of a warp's light frontier vertices (degree
  // below the warp threshold) are relaxed by the whole warp in edge order
  // (a prefix sum of their degrees), so lanes read consecutive edges
  // (coalesced) instead of one vertex's list each.
  gather = 2,
};

inline const char* to_string(SparseVariant v) {
  return v == SparseVariant::frontier ? "frontier" : v == SparseVariant::near_far ? "near-far" : "near-far + gather";
}

}  // namespace apsp::cuda
