// The rule behind the GPU range certificate, shared by its kernels
// (kernels/certificate/range.cuh) and the host tests. Host-safe.
//
// Every GPU algorithm computes in a width whose infinity INF leaves room for
// the sum of two stored values (int32: kInf = 2^30 - 1; int16: 16383; tagged
// words: 2^22 - 1 in distance units), on non-negative weights, and stores
// min(candidate, current) with current <= INF. So an entry is min(D', INF),
// where D' is a length of a real path: a pair whose true distance D is below
// INF comes out exact (every prefix of its shortest path is shorter still and
// never clamped), and a pair with D >= INF comes out as INF, like an
// unreachable one. The result is in range exactly when no pair of the second
// kind exists, and that is checked after the fact:
//  - quick: if every finite entry lies below INF - max_weight, no edge can
//    lead from a finite entry past INF, so every INF entry is unreachable;
//  - exact (when the quick check cannot decide): if d[i][u] is finite and an
//    edge u -> x has d[i][x] = INF, then x is reachable with D(i, x) >= INF
//    (out of range). Conversely, on a path to an out-of-range pair the last
//    vertex u in range has such an edge, and D(i, u) >= INF - w(u, x), so
//    only cells with d[i][u] >= INF - max_weight need their edges scanned.
// Two operands below 2^30 never overflow an int32 sum, so the computation
// itself needs no bound before it runs: graphs are refused only when a true
// (reweighted) distance does not fit.
#pragma once

#include <cstdint>

#include "apsp/graph.hpp"
#include "core/ceil_div.hpp"  // APSP_HOST_DEVICE
#include "cuda/algorithm.hpp"

namespace apsp::cuda {

// A square matrix as the certificate reads it: entries of T with leading
// dimension ld, the top-left n x n block in use. An entry's distance is its
// value >> shift (tagged words keep a tag in the low bits); a distance at or
// above `infinity` means "no path the width can hold".
template <class T>
struct RangeView {
  const T* data = nullptr;
  std::int64_t n = 0;
  std::int64_t ld = 0;
  int shift = 0;
  int infinity = kInf;

  APSP_HOST_DEVICE int distance(std::int64_t i, std::int64_t j) const {
    return static_cast<int>(data[i * ld + j]) >> shift;
  }
};

// The quick check: with every finite distance below infinity - max_weight,
// no edge reaches past infinity. `largest_finite` is the largest distance
// below infinity (INT_MIN or any negative value when there is none).
APSP_HOST_DEVICE inline bool range_holds_below(int largest_finite, int infinity, weight_t max_weight) {
  return static_cast<std::int64_t>(largest_finite) < static_cast<std::int64_t>(infinity) - max_weight;
}

// The exact check of one cell (i, u): true when d[i][u] is finite, close
// enough to infinity for one edge to cross it, and some out-edge u -> x of
// `edges` has d[i][x] at infinity (x is reachable beyond the width's range).
template <class T>
APSP_HOST_DEVICE bool cell_escapes_range(const RangeView<T>& view, const DeviceCsr& edges, weight_t max_weight,
                                         std::int64_t i, std::int64_t u) {
  const int d = view.distance(i, u);
  if (d >= view.infinity || range_holds_below(d, view.infinity, max_weight)) return false;
  for (std::int64_t e = edges.row_start[u]; e < edges.row_start[u + 1]; ++e)
    if (view.distance(i, edges.col[e]) >= view.infinity) return true;
  return false;
}

}  // namespace apsp::cuda
