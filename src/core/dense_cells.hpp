// Private to the library: reading the cells of an apsp::DenseView (the
// element-type dispatch, the value of an edge), and filling a dense solver's
// working matrix straight from a view. The rules themselves (what a cell
// means, which cells are errors) are apsp/dense.hpp's; the functions here
// read views that scan_dense has already checked.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "apsp/dense.hpp"

namespace apsp::core {

// Calls f(T{}) with T the C++ type of `e`.
template <class F>
decltype(auto) visit_dense(DenseElement e, F&& f) {
  switch (e) {
    case DenseElement::boolean: return f(bool{});
    case DenseElement::int8: return f(std::int8_t{});
    case DenseElement::int16: return f(std::int16_t{});
    case DenseElement::int32: return f(std::int32_t{});
    case DenseElement::int64: return f(std::int64_t{});
    case DenseElement::uint8: return f(std::uint8_t{});
    case DenseElement::uint16: return f(std::uint16_t{});
    case DenseElement::uint32: return f(std::uint32_t{});
    case DenseElement::uint64: return f(std::uint64_t{});
    case DenseElement::float32: return f(float{});
    case DenseElement::float64: break;
  }
  return f(double{});
}

// The cells of a view as T: a(i, j).
template <class T>
struct Cells {
  const T* base;
  std::int64_t row_stride;
  std::int64_t col_stride;

  Cells(const DenseView& v) : base(static_cast<const T*>(v.data)), row_stride(v.row_stride), col_stride(v.col_stride) {}
  T operator()(std::int64_t i, std::int64_t j) const { return base[i * row_stride + j * col_stride]; }
};

// One cell of a checked view as D: its weight (1 when unweighted) when it
// holds an edge, else `none`. Branch-free (the stored value is masked before
// the conversion, so NaN and inf never convert to an integer type).
template <class D, class T>
[[gnu::always_inline]] inline D cell_value(T x, bool unweighted, D none) {
  const bool stored = is_stored_cell(x);
  T kept = stored ? x : T{};
  if constexpr (std::is_integral<D>::value && !std::is_same<T, bool>::value &&
                (std::is_floating_point<T>::value || sizeof(T) >= 4)) {
    // An undirected pair's heavier cell need not be an int32 weight (the
    // lighter one is the edge's): capped where it converts safely, above
    // every int32 weight a float or wide integer cell holds.
    constexpr T top = std::is_same<T, float>::value ? T(2147483520.0f) : T(2147483647);
    kept = std::min(kept, top);
  }
  const D w = unweighted ? D{1} : static_cast<D>(kept);
  return stored ? w : none;
}

// Fills a side x side working matrix (side >= v.n: rows and columns from n
// on are isolated padding vertices) from a checked view: the edge weight in
// D, `inf` where there is none, 0 on the whole diagonal. Row i's cells
// [j0, j0 + segment) are contiguous at out + at(i, j0) for every j0 that is
// a multiple of `segment` (side is one too). Rows split over `threads`
// OpenMP threads, so each thread first touches the rows it fills.
template <class D, class At>
void fill_from_dense(const DenseView& v, std::int64_t side, std::int64_t segment, At at, D* out, D inf, int threads) {
  visit_dense(v.element, [&](auto zero) {
    using T = decltype(zero);
    const Cells<T> a(v);
    const std::int64_t n = v.n, rs = v.row_stride, cs = v.col_stride;
    const bool unweighted = v.unweighted, undirected = v.undirected;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t i = 0; i < side; ++i) {
      for (std::int64_t j0 = 0; j0 < side; j0 += segment) {
        D* const o = out + at(i, j0);
        const std::int64_t len = i < n ? std::max<std::int64_t>(0, std::min(segment, n - j0)) : 0;
        const T* const row = len > 0 ? a.base + i * rs + j0 * cs : a.base;  // cells (i, j0 ...)
        if (len == 0) {
        } else if (!undirected && cs == 1) {
          for (std::int64_t k = 0; k < len; ++k) o[k] = cell_value<D>(row[k], unweighted, inf);
        } else if (!undirected) {
          for (std::int64_t k = 0; k < len; ++k) o[k] = cell_value<D>(row[k * cs], unweighted, inf);
        } else {
          const T* const column = a.base + j0 * rs + i * cs;  // cells (j0 ..., i)
          for (std::int64_t k = 0; k < len; ++k)
            o[k] =
                std::min(cell_value<D>(row[k * cs], unweighted, inf), cell_value<D>(column[k * rs], unweighted, inf));
        }
        std::fill(o + len, o + segment, inf);
      }
      out[at(i, i)] = 0;
    }
  });
}

// scan_dense that also records each row's edge count (n entries), so a
// caller that then needs the edge list (solve(view) on its edge path,
// dense_to_graph) builds it with dense_edges in one more pass, not two.
DenseScan scan_dense_rows(const DenseView& v, std::vector<std::int64_t>& row_edges);
// The edge list of a view that scan_dense_rows scanned into `s` and `row_edges`.
AnyGraph dense_edges(const DenseView& v, const DenseScan& s, const std::vector<std::int64_t>& row_edges);

}  // namespace apsp::core
