// What the sparse GPU solver ("sssp", cuda/sparse_solver.hpp) takes from the
// host besides the graph: the near-far bucket width, and for real-valued
// weights the Johnson-reweighted edges in the weight type with the
// potentials that undo the reweighting. Host-safe and header-only, so builds
// without CUDA compile it and the CPU tests check it
// (tests/cpu/test_sparse_input.cpp). The int32 reweighting is
// cuda::reweight (cuda/instance.hpp), which certifies the int32 range.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "apsp/error.hpp"
#include "apsp/graph.hpp"
#include "apsp/potentials.hpp"
#include "core/weights.hpp"

namespace apsp::cuda {

// The near-far bucket width is this many mean (reweighted) edge weights.
// Swept on the H100 (2D grid, n = 65536, production sssp; docs/perf.md,
// "Sparse graphs"): scale 2: 686 ms, 4: 646 ms, 8: 675 ms, 16: 808 ms.
inline constexpr double kNearFarDeltaScale = 4.0;

// The near-far bucket width for edges whose weights are all >= 0:
// `scale` times their mean weight (summed in double). int32: rounded up, in
// 1..kInf. float32 / float64: real-valued, at least the smallest normal
// value of W and at most its largest finite one; 1 when every weight is 0
// (every distance is then 0, and any width gives the same rows). 1 without edges.
template <class W>
W near_far_delta(const std::vector<BasicEdge<W>>& edges, double scale = kNearFarDeltaScale) {
  if (edges.empty()) return 1;
  double sum = 0;
  for (const BasicEdge<W>& e : edges) sum += e.w;
  const double delta = scale * sum / static_cast<double>(edges.size());
  if constexpr (std::is_integral<W>::value) {
    return static_cast<W>(std::clamp(std::ceil(delta), 1.0, static_cast<double>(kInf)));
  } else {
    if (!(delta > 0)) return 1;
    return static_cast<W>(std::clamp(delta, static_cast<double>(std::numeric_limits<W>::min()),
                                     static_cast<double>(std::numeric_limits<W>::max())));
  }
}

// A real-valued graph's edges as the sparse GPU solver runs on them.
template <class W>
struct RealReweighted {
  // The graph's edges in their order, every weight >= +0.0 (never -0.0):
  // w + h[src] - h[dst] computed in double, clamped at 0 where rounding dips
  // below (core::reduced_weight) and rounded to W; the weights as given
  // (-0.0 made +0.0) when none is negative.
  std::vector<BasicEdge<W>> edges;
  // Johnson potentials h, one per vertex; empty when no weight is negative.
  // A reweighted distance d from s to t is the graph's d + h[t] - h[s].
  std::vector<double> potential;
  W max_weight = 0;  // the largest weight of `edges`
};

// `normalized` reweighted for a non-negative search. Throws
// NegativeCycleError as the CPU's johnson does (johnson_potentials: a closed
// walk that rounding alone makes negative is no cycle), ArithmeticRangeError
// naming the edge when a reweighted weight exceeds the largest finite W.
template <class W>
RealReweighted<W> reweight_real(const BasicGraph<W>& normalized) {
  static_assert(std::is_floating_point<W>::value, "int32 graphs are reweighted by cuda::reweight");
  RealReweighted<W> r;
  const bool negative =
      std::any_of(normalized.edges.begin(), normalized.edges.end(), [](const BasicEdge<W>& e) { return e.w < 0; });
  if (negative) r.potential = johnson_potentials(to_csr(normalized));
  r.edges.reserve(normalized.edges.size());
  for (const BasicEdge<W>& e : normalized.edges) {
    W w = e.w > 0 ? e.w : W{0};
    if (negative) {
      w = static_cast<W>(core::reduced_weight(static_cast<double>(e.w), r.potential[static_cast<std::size_t>(e.src)],
                                              r.potential[static_cast<std::size_t>(e.dst)]));
      if (std::isinf(w))
        throw ArithmeticRangeError("edge " + std::to_string(e.src) + "->" + std::to_string(e.dst) +
                                   ": its Johnson-reweighted weight does not fit " + to_string(weight_type_of<W>) +
                                   " (the CPU backend's johnson reweights in float64)");
    }
    r.edges.push_back(BasicEdge<W>{e.src, e.dst, w});
    r.max_weight = std::max(r.max_weight, w);
  }
  return r;
}

}  // namespace apsp::cuda
