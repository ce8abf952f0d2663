// The one home of what depends on the weight type beyond the graph itself:
// shortest round-trip text of a weight, reachability of a stored distance,
// and the rounding tolerance of real-valued distances (negative-cycle
// threshold, tight edges, verify). Host-only.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "apsp/graph.hpp"

namespace apsp::core {

// The shortest text that reads back as exactly `w` ("0.1", "1e+300", "inf",
// "-inf", "nan"); integers as plain decimals.
template <class W>
std::string format_weight(W w) {
  if constexpr (std::is_floating_point<W>::value) {
    if (std::isnan(w)) return "nan";
    if (std::isinf(w)) return w > 0 ? "inf" : "-inf";
    char text[64];
    const auto written = std::to_chars(text, text + sizeof text, w);
    return std::string(text, written.ptr);
  } else {
    return std::to_string(w);
  }
}

// Whether a stored distance means "reachable": below kInf for int32, finite
// (below +infinity) for float and double.
template <class D>
constexpr bool is_reachable(D d) {
  return d < kUnreachable<D>;
}

// Rounding tolerance of real-valued shortest-path distances, absolute: a
// distance is a sum of at most n - 1 edge weights, each partial sum at most
// `scale` in magnitude (the largest |w| or |d| involved), and every addition
// rounds by at most half an ulp: so n * epsilon(W) * scale bounds the error
// of any one entry. 0 for int32 (exact). The same bound is the slack of a
// tight edge, verify's tolerance, and a backstop threshold for diagonal
// entries; whether a cycle is negative is decided by the cycle's own edges
// (core/negative_cycle.hpp), not by this n-based bound.
template <class W>
double distance_tolerance(std::int64_t n, double scale) {
  if constexpr (std::is_integral<W>::value) {
    return 0;
  } else {
    const double hops = static_cast<double>(n > 1 ? n : 1);
    return hops * static_cast<double>(std::numeric_limits<W>::epsilon()) * scale;
  }
}

// The least improvement a label-correcting search (Bellman-Ford, Johnson's
// potentials) acts on for real weights: half the distance tolerance. A
// closed walk that rounding alone makes negative (above -tolerance) then
// cannot relax its vertices lap after lap and pass for a negative cycle,
// and every label stays within the slack of its relaxed value, inside
// verify's tolerance. 0 for int32 (every improvement counts).
template <class W>
double relaxation_slack(std::int64_t n, double max_abs_weight) {
  return distance_tolerance<W>(n, max_abs_weight) / 2;
}

// The Johnson-reduced weight w + h_u - h_v of a real-valued edge u -> v
// under potentials h (double): >= 0 in exact arithmetic, so a value that
// rounding made negative is clamped, and the result is never -0.0 (the GPU's
// atomicMin on float bits needs +0.0; cuda/sparse_input.hpp).
inline double reduced_weight(double w, double h_u, double h_v) {
  const double reduced = w + h_u - h_v;
  return reduced > 0 ? reduced : 0.0;
}

// The relative factor of distance_tolerance: n * epsilon(W), as stated in
// messages ("within 4.4e-14 relative").
template <class W>
double relative_tolerance(std::int64_t n) {
  return distance_tolerance<W>(n, 1.0);
}

// The largest |w| over the edges of a graph's Csr: the weights' part of a
// row's tolerance scale.
template <class W>
double max_abs_weight(const BasicCsr<W>& out) {
  double m = 0;
  for (const W w : out.weight) m = std::max(m, std::fabs(static_cast<double>(w)));
  return m;
}

// The absolute rounding tolerance of real-valued row `row` (n entries, the
// distances from one source): distance_tolerance over the largest |w| and
// |d| of the row; 0 for int32. verify and shortest_path test a row with it.
template <class W>
double row_tolerance(const BasicCsr<W>& out, const W* row, double max_abs_weight) {
  if constexpr (std::is_integral<W>::value) {
    (void)out, (void)row, (void)max_abs_weight;
    return 0;
  } else {
    double scale = max_abs_weight;
    for (std::int64_t j = 0; j < out.n; ++j)
      if (std::isfinite(row[j])) scale = std::max(scale, std::fabs(static_cast<double>(row[j])));
    return distance_tolerance<W>(out.n, scale);
  }
}

}  // namespace apsp::core
