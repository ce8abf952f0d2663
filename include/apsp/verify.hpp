// Certificate check of a distance matrix in O(n*m), without recomputing APSP.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "apsp/graph.hpp"
#include "apsp/matrix.hpp"

namespace apsp {

struct VerifyReport {
  bool ok = true;
  std::string first_violation;  // empty when ok; names i, j and the values
  // Real-valued checks allow rounding: each row's comparisons hold within
  // relative_tolerance * (the row's largest |w| or |d|), where
  // relative_tolerance = n * epsilon of the weight type (a distance sums at
  // most n - 1 weights). 0 for int32, which is checked exactly.
  double relative_tolerance = 0;
};

// Both functions throw InputError unless the graph is normalized
// (check_normalized); a matrix of the wrong shape is a failed report.
//
// The matrices are n*n row-major views (apsp/matrix.hpp): a std::vector, a
// SolveResult's HostVector, or a file mapped in place (io::MatrixFile).

// Checks: d[i][i] == 0; every edge is relaxed (d[i][v] <= d[i][u] + w);
// every finite d[i][j], i != j, is attained through some in-edge of j
// (d[i][j] == d[i][u] + w(u,j)); entries are finite or kInf. `progress`
// (may be empty) gets the fraction of rows checked, from the calling thread,
// non-decreasing and ending at 1.
// Real weights (float32, float64): the same checks within the rounding
// tolerance (VerifyReport::relative_tolerance), +inf for unreachable, and
// d[i][i] within the tolerance of 0; a violation's message states the
// tolerance it exceeded.
VerifyReport verify(const Graph& normalized, Span<const dist_t> d, const std::function<void(double)>& progress = {});
VerifyReport verify(const GraphF32& normalized, Span<const float> d, const std::function<void(double)>& progress = {});
VerifyReport verify(const GraphF64& normalized, Span<const double> d, const std::function<void(double)>& progress = {});

// Checks that following pred from j reaches i and that the path weight equals d[i][j].
VerifyReport verify_predecessors(const Graph& normalized, Span<const dist_t> d, Span<const vertex_t> pred,
                                 const std::function<void(double)>& progress = {});
VerifyReport verify_predecessors(const GraphF32& normalized, Span<const float> d, Span<const vertex_t> pred,
                                 const std::function<void(double)>& progress = {});
VerifyReport verify_predecessors(const GraphF64& normalized, Span<const double> d, Span<const vertex_t> pred,
                                 const std::function<void(double)>& progress = {});

// The same checks on rows of the matrices as they come (a distributed or
// streamed result): the graph's adjacency is built once. check() is const
// and may run on several threads.
template <class W>
class BasicRowVerifier {
 public:
  explicit BasicRowVerifier(const BasicGraph<W>& normalized);
  // Rows [first_row, first_row + rows): d (and pred, when not null) hold
  // them row-major, n values each. The first violation of the lowest row
  // (real weights: within verify()'s rounding tolerance).
  VerifyReport check(std::int64_t first_row, std::int64_t rows, const W* d, const vertex_t* pred = nullptr) const;

 private:
  BasicCsr<W> out_;
  BasicCsr<W> in_;
  double max_abs_w_ = 0;
};
using RowVerifier = BasicRowVerifier<weight_t>;
extern template class BasicRowVerifier<weight_t>;
extern template class BasicRowVerifier<float>;
extern template class BasicRowVerifier<double>;

}  // namespace apsp
