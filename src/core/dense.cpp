// Dense views (apsp/dense.hpp): the checking scan and the conversion to a
// normalized edge list. The solve that reads a view in place is in solve.cpp.
#include "apsp/dense.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/dense_cells.hpp"

namespace apsp {
namespace {

// Whether cells of T can hold a weight that is not an int32 one (float
// cells, and the integer types wider than int32: int64, uint32, uint64).
template <class T>
inline constexpr bool kMayBeReal = std::is_floating_point<T>::value ||
                                   (!std::is_same<T, bool>::value && sizeof(T) >= 4 &&
                                    !std::is_same<T, std::int32_t>::value);

// Whether an edge weight is not an integer with |w| <= kMaxAutoIntWeight
// (choose_weight_type's rule). Branch-free and without trunc(), which is a
// library call below SSE4.1: an in-range value round-trips through int32
// (cvttpd2dq, SSE2) exactly when it is an integer.
template <class Flag>
inline Flag fractional_weight(double w) {
  const bool in_range = std::fabs(w) <= kMaxAutoIntWeight;
  const double kept = in_range ? w : 0.0;
  return static_cast<Flag>(!in_range) | static_cast<Flag>(static_cast<double>(static_cast<std::int32_t>(kept)) != kept);
}

// The stats of a directed row's cells [from, to) (the diagonal excluded by
// the caller), `stride` elements apart: edge count, weight range and
// whether a weight is not an int32 one for auto (fractional or too large).
// Branch-free (kStride1: contiguous cells). GCC does not vectorize it yet
// (the double -> int32 round trip of fractional_weight mixes lane widths):
// about 5 ns a cell on one core of the dev machine, docs/perf.md.
template <class T, bool kStride1>
void directed_row(const T* row, std::int64_t stride, std::int64_t from, std::int64_t to, bool unweighted,
                  std::int64_t& count, double& lo, double& hi, int& fractional) {
  // Flags and the count as wide as the double lanes, so one vector width serves all.
  using Flag = std::int64_t;
  constexpr double kHuge = std::numeric_limits<double>::infinity();
  Flag c = 0, f = 0;
  double l = lo, h = hi;
  for (std::int64_t j = from; j < to; ++j) {
    const T x = row[kStride1 ? j : j * stride];
    const Flag stored = static_cast<Flag>(is_stored_cell(x));
    const double w = core::cell_value<double>(x, unweighted, 0.0);
    c += stored;
    const double low = stored ? w : kHuge, high = stored ? w : -kHuge;
    l = low < l ? low : l;
    h = high > h ? high : h;
    if constexpr (kMayBeReal<T>) f |= stored & fractional_weight<Flag>(w);
  }
  count += c;
  lo = l;
  hi = h;
  fractional |= static_cast<int>(f != 0);
}

#if defined(__SSE2__)
// directed_row for contiguous float64 cells with weights, in SSE2 (every
// x86-64 has it; the module is built for the baseline): two cells a step,
// the same results as the scalar loop. GCC does not vectorize that loop (the
// integrality round trip mixes lane widths, and a floating-point min/max
// reduction is not one it forms without -ffast-math), and this scan is all
// of the dense input's cost before the solve: 1 ns a cell instead of 3.
// Integrality without a conversion: for |w| <= kMaxAutoIntWeight (< 2^51),
// (w + 1.5 * 2^52) - 1.5 * 2^52 rounds w to an integer, so it equals w
// exactly when w is one.
inline void directed_row_f64_sse2(const double* row, std::int64_t from, std::int64_t to, std::int64_t& count,
                                  double& lo, double& hi, int& fractional) {
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  const __m128d zero = _mm_setzero_pd(), inf = _mm_set1_pd(kInfinity), minus_inf = _mm_set1_pd(-kInfinity);
  const __m128d smallest = _mm_set1_pd(kLargestAbsentCell);
  const __m128d magic = _mm_set1_pd(6755399441055744.0), largest = _mm_set1_pd(kMaxAutoIntWeight);
  const __m128d sign = _mm_set1_pd(-0.0);
  __m128i c = _mm_setzero_si128();
  __m128d l = inf, h = minus_inf, f = zero;
  std::int64_t j = from;
  for (; j + 2 <= to; j += 2) {
    const __m128d x = _mm_loadu_pd(row + j);
    const __m128d magnitude = _mm_andnot_pd(sign, x);  // NaN compares false below: not stored
    const __m128d stored = _mm_and_pd(_mm_cmpgt_pd(magnitude, smallest), _mm_cmplt_pd(magnitude, inf));
    c = _mm_sub_epi64(c, _mm_castpd_si128(stored));  // a stored lane is all ones: -1
    const __m128d rounded = _mm_sub_pd(_mm_add_pd(x, magic), magic);
    const __m128d not_integer = _mm_or_pd(_mm_cmpneq_pd(rounded, x), _mm_cmpnle_pd(magnitude, largest));
    f = _mm_or_pd(f, _mm_and_pd(stored, not_integer));
    l = _mm_min_pd(l, _mm_or_pd(_mm_and_pd(stored, x), _mm_andnot_pd(stored, inf)));
    h = _mm_max_pd(h, _mm_or_pd(_mm_and_pd(stored, x), _mm_andnot_pd(stored, minus_inf)));
  }
  alignas(16) std::int64_t cs[2];
  alignas(16) double ls[2], hs[2];
  _mm_store_si128(reinterpret_cast<__m128i*>(cs), c);
  _mm_store_pd(ls, l);
  _mm_store_pd(hs, h);
  count += cs[0] + cs[1];
  lo = std::min({lo, ls[0], ls[1]});
  hi = std::max({hi, hs[0], hs[1]});
  fractional |= static_cast<int>(_mm_movemask_pd(f) != 0);
  if (j < to) directed_row<double, true>(row, 1, j, to, false, count, lo, hi, fractional);
}
#endif

// One thread's share of a scan.
struct ScanPart {
  std::int64_t m = 0;
  double min_w = std::numeric_limits<double>::infinity();
  double max_w = -std::numeric_limits<double>::infinity();
  bool integral = true;  // every edge weight an integer with |w| <= kMaxAutoIntWeight
  std::exception_ptr error;
};

void check_view(const DenseView& v) {
  if (v.n < 0 || v.n > std::numeric_limits<vertex_t>::max())
    throw InputError("a dense graph's vertex count " + std::to_string(v.n) + " is outside 0.." +
                     std::to_string(std::numeric_limits<vertex_t>::max()));
  if (v.n > 0 && v.data == nullptr)
    throw InputError("a dense graph of " + std::to_string(v.n) + " vertices has no data");
}

// The scan of scan_dense; with `row_edges`, also each row's edge count (n entries).
DenseScan scan(const DenseView& v, std::vector<std::int64_t>* row_edges) {
  check_view(v);
  const std::int64_t n = v.n;
  if (row_edges) row_edges->assign(static_cast<std::size_t>(n), 0);
  const int threads = std::max(1, std::min<int>(omp_get_max_threads(), static_cast<int>(std::max<std::int64_t>(n, 1))));
  std::vector<ScanPart> parts(static_cast<std::size_t>(threads));
  core::visit_dense(v.element, [&](auto zero) {
    using T = decltype(zero);
    const core::Cells<T> a(v);
    const bool unweighted = v.unweighted, undirected = v.undirected;
#pragma omp parallel num_threads(threads)
    {
      ScanPart& part = parts[static_cast<std::size_t>(omp_get_thread_num())];
      const int t = omp_get_thread_num();
      const std::int64_t first = n * t / threads, last = n * (t + 1) / threads;
      try {
        for (std::int64_t i = first; i < last; ++i) {
          // Branch-free over the row: edges, their range and integrality.
          // Only a negative diagonal cell is an error (then the row is
          // walked again in order to name it).
          std::int64_t count = 0;
          double lo = std::numeric_limits<double>::infinity(), hi = -lo;
          int fractional = 0;
          const auto cells = [&](std::int64_t from, std::int64_t to) {
            if (!undirected) {
              const T* const row = a.base + i * a.row_stride;
#if defined(__SSE2__)
              if constexpr (std::is_same<T, double>::value)
                if (a.col_stride == 1 && !unweighted)
                  return directed_row_f64_sse2(row, from, to, count, lo, hi, fractional);
#endif
              if (a.col_stride == 1)
                directed_row<T, true>(row, 1, from, to, unweighted, count, lo, hi, fractional);
              else
                directed_row<T, false>(row, a.col_stride, from, to, unweighted, count, lo, hi, fractional);
              return;
            }
            for (std::int64_t j = from; j < to; ++j) {
              const T x = a(i, j);
              int stored = static_cast<int>(is_stored_cell(x));
              double w = core::cell_value<double>(x, unweighted, lo);
              if (undirected) {
                const T y = a(j, i);
                const int mirrored = static_cast<int>(is_stored_cell(y));
                w = std::min(w, core::cell_value<double>(y, unweighted, lo));
                stored |= mirrored;
              }
              count += stored;
              lo = std::min(lo, stored ? w : lo);
              hi = std::max(hi, stored ? w : hi);
              if (kMayBeReal<T>) fractional |= stored & fractional_weight<int>(w);
            }
          };
          cells(0, i);
          cells(i + 1, n);
          const T diagonal = a(i, i);
          if (!unweighted && is_stored_cell(diagonal) && diagonal < T{}) throw NegativeCycleError(i);
          part.m += count;
          part.min_w = std::min(part.min_w, lo);
          part.max_w = std::max(part.max_w, hi);
          part.integral = part.integral && !fractional;
          if (row_edges) (*row_edges)[static_cast<std::size_t>(i)] = count;
        }
      } catch (...) {
        part.error = std::current_exception();
      }
    }
  });
  DenseScan s;
  bool integral = true;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const ScanPart& part : parts) {
    if (part.error) std::rethrow_exception(part.error);
    s.m += part.m;
    lo = std::min(lo, part.min_w);
    hi = std::max(hi, part.max_w);
    integral = integral && part.integral;
  }
  if (s.m > 0) {
    s.min_w = lo;
    s.max_w = hi;
    s.max_abs = std::max(std::fabs(lo), std::fabs(hi));
  }
  s.weights = v.unweighted ? choose_weight_type(n, true, 1.0) : choose_weight_type(n, integral, s.max_abs);
  return s;
}

// The edges of a scanned view in W (its weight type), row i's at
// row_start[i] onwards, written by the rows' threads in place.
template <class W>
BasicGraph<W> edges_of(const DenseView& v, const std::vector<std::int64_t>& row_edges, std::int64_t m) {
  const std::int64_t n = v.n;
  std::vector<std::int64_t> row_start(static_cast<std::size_t>(n) + 1, 0);
  for (std::int64_t i = 0; i < n; ++i) row_start[i + 1] = row_start[i] + row_edges[static_cast<std::size_t>(i)];
  BasicGraph<W> g;
  g.n = n;
  g.edges.resize(static_cast<std::size_t>(m));
  core::visit_dense(v.element, [&](auto zero) {
    using T = decltype(zero);
    const core::Cells<T> a(v);
    const bool unweighted = v.unweighted, undirected = v.undirected;
    constexpr W none = std::numeric_limits<W>::max();
#pragma omp parallel
    {
      // The columns of row i's stored cells, gathered without a branch per
      // cell (most cells of a sparse graph's matrix are 0, at random places).
      std::vector<std::int64_t> stored(static_cast<std::size_t>(n));
#pragma omp for schedule(static)
      for (std::int64_t i = 0; i < n; ++i) {
        std::int64_t count = 0;
        for (std::int64_t j = 0; j < n; ++j) {
          stored[static_cast<std::size_t>(count)] = j;
          count +=
              static_cast<std::int64_t>((is_stored_cell(a(i, j)) || (undirected && is_stored_cell(a(j, i)))) && i != j);
        }
        BasicEdge<W>* out = g.edges.data() + row_start[i];
        for (std::int64_t k = 0; k < count; ++k) {
          const std::int64_t j = stored[static_cast<std::size_t>(k)];
          W w = core::cell_value<W>(a(i, j), unweighted, none);
          if (undirected) w = std::min(w, core::cell_value<W>(a(j, i), unweighted, none));
          out[k] = BasicEdge<W>{static_cast<vertex_t>(i), static_cast<vertex_t>(j), w};
        }
      }
    }
  });
  return g;
}

}  // namespace

std::size_t element_bytes(DenseElement e) {
  return core::visit_dense(e, [](auto zero) { return sizeof(zero); });
}

DenseScan scan_dense(const DenseView& v) { return scan(v, nullptr); }

AnyGraph dense_to_graph(const DenseView& v) {
  std::vector<std::int64_t> row_edges;
  const DenseScan s = core::scan_dense_rows(v, row_edges);
  return core::dense_edges(v, s, row_edges);
}

namespace core {

DenseScan scan_dense_rows(const DenseView& v, std::vector<std::int64_t>& row_edges) { return scan(v, &row_edges); }

AnyGraph dense_edges(const DenseView& v, const DenseScan& s, const std::vector<std::int64_t>& row_edges) {
  if (s.weights == WeightType::float64) return edges_of<double>(v, row_edges, s.m);
  return edges_of<weight_t>(v, row_edges, s.m);
}

}  // namespace core

}  // namespace apsp
