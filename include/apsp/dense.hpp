// Dense adjacency matrices as input: a strided, read-only view of an n x n
// array of any numeric element type (a numpy array's buffer, in any memory
// order), read in place with scipy.sparse.csgraph's dense semantics, and the
// rules for one stored value that the sparse readers of the Python module
// share. Host-safe.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "apsp/error.hpp"
#include "apsp/graph.hpp"
#include "apsp/sink.hpp"
#include "apsp/solver.hpp"

namespace apsp {

// The element type of a dense view's cells.
enum class DenseElement { boolean, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64 };

// An n x n matrix read in place: cell (i, j) is
// static_cast<const T*>(data)[i * row_stride + j * col_stride], T the C++
// type of `element` (bool, std::int8_t ... std::uint64_t, float, double).
// Strides are in elements and may be anything, negative too (row-major,
// Fortran order, slices). The memory must stay valid and unchanged while a
// function below reads it.
//
// Semantics (scipy's dense input, csgraph_from_dense): a cell that is 0,
// NaN, +inf or -inf, or a float with |w| <= 1e-8 (kLargestAbsentCell: scipy
// masks the cells np.isclose to 0) is no edge; a negative diagonal cell is a
// NegativeCycleError, other diagonal cells are dropped (normalize()'s rule).
// `undirected`: edge (i, j) and (j, i) both weigh the lighter of the two
// cells that hold an edge. `unweighted`: every edge weighs 1 (no cell is then
// an error). The weight type is choose_weight_type's rule over the edges
// (weight 1 when `unweighted`): int32 when every weight is an integer with
// |w| <= kMaxAutoIntWeight and (n-1) * max|w| < kInf, float64 otherwise
// (integer cells beyond int32, int64 and uint64 ones, too: exact below 2^53).
struct DenseView {
  std::int64_t n = 0;
  const void* data = nullptr;  // may be null when n == 0
  DenseElement element = DenseElement::float64;
  std::int64_t row_stride = 0;  // elements from cell (i, j) to (i + 1, j)
  std::int64_t col_stride = 0;  // elements from cell (i, j) to (i, j + 1)
  bool undirected = false;
  bool unweighted = false;
};

// The DenseElement of a C++ cell type (bool, the fixed-width integers, float, double).
template <class T>
inline constexpr DenseElement dense_element_of = std::is_same<T, bool>::value            ? DenseElement::boolean
                                                 : std::is_same<T, std::int8_t>::value   ? DenseElement::int8
                                                 : std::is_same<T, std::int16_t>::value  ? DenseElement::int16
                                                 : std::is_same<T, std::int32_t>::value  ? DenseElement::int32
                                                 : std::is_same<T, std::int64_t>::value  ? DenseElement::int64
                                                 : std::is_same<T, std::uint8_t>::value  ? DenseElement::uint8
                                                 : std::is_same<T, std::uint16_t>::value ? DenseElement::uint16
                                                 : std::is_same<T, std::uint32_t>::value ? DenseElement::uint32
                                                 : std::is_same<T, std::uint64_t>::value ? DenseElement::uint64
                                                 : std::is_same<T, float>::value         ? DenseElement::float32
                                                                                         : DenseElement::float64;

// Bytes of one cell of `e`.
std::size_t element_bytes(DenseElement e);

// What one pass over a view finds: the normalized graph's edge count, its
// weight type (int32 or float64) and weight range (0s when m == 0).
struct DenseScan {
  std::int64_t m = 0;
  WeightType weights = WeightType::int32;
  double min_w = 0;
  double max_w = 0;
  double max_abs = 0;
};

// One parallel pass over the view (OpenMP, rows split over the threads):
// every check of the semantics above, the edge count and the weight type.
// Throws InputError for a malformed view (n outside 0..int32 max, null data)
// or cell, NegativeCycleError for a negative diagonal cell; with several bad
// cells, the first in row-major order is named.
DenseScan scan_dense(const DenseView& v);

// The normalized graph of the view (Graph or GraphF64, by the weight type
// above): edges sorted by (src, dst) by construction. Throws as scan_dense.
AnyGraph dense_to_graph(const DenseView& v);

// The backend solve(v, opts, sink) runs on (choose_backend's rule on the
// view's n and weight type; the weight type is scanned for only when the
// choice depends on it).
Backend choose_backend(const DenseView& v, const SolveOptions& opts);

// Solves APSP for the view's graph, as solve(graph, opts, sink) would for
// dense_to_graph(v) (same algorithm, backend, weight type, rows and errors).
// When the resolved algorithm is a CPU one that builds an n x n working
// matrix (the registry's Work::cubic CPU entries: fw-seq, fw-blocked) and no
// predecessors are asked for, no edge list is built: after the scan
// ("scan dense" stage), the algorithm's "initialize" stage fills its working
// matrix straight from the view. Otherwise the view becomes an edge list
// ("dense to edges" stage) and the edge path runs. Both passes are stages of
// the returned summary.
SolveSummary solve(const DenseView& v, const SolveOptions& opts, Sink& sink);

// The largest |w| of a float dense cell that is no edge: scipy's dense
// input masks the cells np.isclose(w, 0) (atol 1e-8).
inline constexpr double kLargestAbsentCell = 1e-8;

// Whether one dense cell holds an edge: not NaN, not infinite and, for a
// float, |v| > kLargestAbsentCell; an integer cell when not 0 (branch-free,
// for scans over every cell).
template <class T>
bool is_stored_cell(T v) {
  if constexpr (std::is_floating_point<T>::value) {
    const double magnitude = std::fabs(static_cast<double>(v));  // NaN compares false
    return static_cast<bool>(static_cast<int>(magnitude > kLargestAbsentCell) &
                             static_cast<int>(magnitude < std::numeric_limits<double>::infinity()));
  } else {
    return v != 0;
  }
}

// Whether `value` is an integer that W (a signed integer type) holds
// exactly. Compared in T's own arithmetic where T's range decides it (no
// check at all where every T fits, as int32 into int32), and floats against
// the powers of two that bound W, which double holds exactly: a sparse input's
// weights pass through this once per stored entry.
template <class W, class T>
constexpr bool holds_integer_of(T value) {
  static_assert(std::is_integral<W>::value && std::is_signed<W>::value, "W is a signed integer weight type");
  constexpr int kBits = std::numeric_limits<W>::digits;  // W holds [-2^kBits, 2^kBits)
  if constexpr (std::is_floating_point<T>::value) {
    constexpr double kBound = static_cast<double>(std::uint64_t{1} << kBits);
    const auto v = static_cast<double>(value);
    return v >= -kBound && v < kBound && value == static_cast<T>(static_cast<W>(value));
  } else if constexpr (std::is_signed<T>::value) {
    if constexpr (std::numeric_limits<T>::digits <= kBits)
      return true;
    else
      return value >= std::numeric_limits<W>::min() && value <= std::numeric_limits<W>::max();
  } else {
    if constexpr (std::numeric_limits<T>::digits <= kBits)
      return true;
    else
      return value <= static_cast<std::make_unsigned_t<W>>(std::numeric_limits<W>::max());
  }
}

// One stored entry (i, j) of a sparse input as a weight of type W (int32, or
// double for float input). Every stored entry is an edge, an explicit zero a
// zero-weight one, except +inf and NaN, which no path can use (false); with
// `unweighted` every stored entry weighs 1, +inf and NaN too (scipy's
// dijkstra, bellman_ford and johnson count them). Throws InputError naming
// (i, j) for -inf or, into int32, a value that is not an integer inside int32.
template <class W, class T>
bool cell_weight(T value, bool unweighted, std::int64_t i, std::int64_t j, W& w) {
  if (unweighted) return w = 1, true;
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(value) || value == std::numeric_limits<T>::infinity()) return false;
    if (value == -std::numeric_limits<T>::infinity())
      throw InputError("edge " + std::to_string(i) + " -> " + std::to_string(j) + " has weight -inf");
  }
  if constexpr (std::is_integral<W>::value && !std::is_same<T, bool>::value) {
    if (!holds_integer_of<W>(value))
      throw InputError("edge " + std::to_string(i) + " -> " + std::to_string(j) + " has weight " +
                       std::to_string(value) + ", outside the int32 weights of the exact engine");
  }
  w = static_cast<W>(value);
  return true;
}

}  // namespace apsp
