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
// Semantics (scipy's dense input): a cell that is 0, NaN or +inf is no edge;
// -inf is an InputError naming the cell; a negative diagonal cell is a
// NegativeCycleError, other diagonal cells are dropped (normalize()'s rule).
// `undirected`: edge (i, j) and (j, i) both weigh the lighter of the two
// cells that hold an edge. `unweighted`: every edge weighs 1 (no cell is then
// an error). Integer cells must be inside int32 (InputError naming the cell).
// The weight type: int32 for integer and bool cells and for `unweighted`;
// for float cells int32 when every edge weight is an integer with |w| <=
// kMaxAutoIntWeight (choose_weight_type's rule), float64 otherwise.
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
inline constexpr DenseElement dense_element_of =
    std::is_same<T, bool>::value            ? DenseElement::boolean
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

// Whether one dense cell holds an edge: not 0, NaN or +inf (branch-free, for
// scans over every cell).
template <class T>
bool is_stored_cell(T v) {
  if constexpr (std::is_floating_point<T>::value)
    return static_cast<bool>(static_cast<int>(v != 0) & static_cast<int>(v == v) &
                             static_cast<int>(v != std::numeric_limits<T>::infinity()));
  else
    return v != 0;
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
    if constexpr (std::numeric_limits<T>::digits <= kBits) return true;
    else return value >= std::numeric_limits<W>::min() && value <= std::numeric_limits<W>::max();
  } else {
    if constexpr (std::numeric_limits<T>::digits <= kBits) return true;
    else return value <= static_cast<std::make_unsigned_t<W>>(std::numeric_limits<W>::max());
  }
}

// One stored value (entry (i, j) of a dense or sparse input) as a weight of
// type W (int32, or double for float input). Returns false for "no edge":
// +inf, NaN and, when `zero_is_absent` (dense input), 0. `unweighted` turns
// every edge into weight 1. Throws InputError naming (i, j) for -inf or,
// into int32, a value that is not an integer inside int32.
template <class W, class T>
bool cell_weight(T value, bool zero_is_absent, bool unweighted, std::int64_t i, std::int64_t j, W& w) {
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(value) || value == std::numeric_limits<T>::infinity()) return false;
  }
  if (zero_is_absent && value == 0) return false;
  if (unweighted) return w = 1, true;
  if constexpr (std::is_floating_point<T>::value) {
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
