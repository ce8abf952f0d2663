#include "apsp/verify.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <atomic>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/csr.hpp"
#include "core/tight_edges.hpp"
#include "core/weights.hpp"
#include "core/verify_row.hpp"

namespace apsp {
namespace {

std::string cell(const char* matrix, std::int64_t i, std::int64_t j) {
  return std::string(matrix) + "[" + std::to_string(i) + "][" + std::to_string(j) + "]";
}
std::string dcell(std::int64_t i, std::int64_t j) { return cell("d", i, j); }

template <class D>
std::string value_text(D v) {
  if constexpr (std::is_integral<D>::value)
    return v == kInf ? std::string("INF") : std::to_string(v);
  else
    return core::format_weight(v);
}

// " (tolerance T: n * epsilon(float64) * the row's largest |w| or |d|)" for
// real rows, empty for int32.
template <class W>
std::string tolerance_note(double tolerance) {
  if constexpr (std::is_integral<W>::value) {
    (void)tolerance;
    return {};
  } else {
    return " (beyond the rounding tolerance " + core::format_weight(tolerance) + " = n * epsilon(" +
           to_string(weight_type_of<W>) + ") * the row's largest |w| or |d|)";
  }
}

// Why a matrix of `entries` values cannot be n x n; empty if it can.
std::string shape_problem(std::int64_t n, std::size_t entries, const char* what) {
  const auto expected = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  if (entries == expected) return {};
  return std::string(what) + " has " + std::to_string(entries) + " entries, expected " + std::to_string(n) + "*" +
         std::to_string(n) + " = " + std::to_string(expected);
}

// Runs `check(i, scratch)` for every row i in [first, first + rows) (all n
// rows by default), with one Scratch(n) per thread, and returns the violation
// of the lowest failing row, so the answer does not depend on the thread
// count. Rows after a known failure are skipped. Threads start only when the
// O(rows * (n + m)) work outweighs their start-up.
template <class Scratch, class Check>
std::string lowest_row_violation(std::int64_t n, std::size_t edges, Check check, std::int64_t first = 0,
                                 std::int64_t rows = -1) {
  const std::int64_t end = rows < 0 ? n : first + rows;
  const bool parallel = static_cast<double>(end - first) * static_cast<double>(n + static_cast<std::int64_t>(edges)) >
                        4e6;
  std::string violation;
  std::int64_t first_bad_row = std::numeric_limits<std::int64_t>::max();
#pragma omp parallel if (parallel)
  {
    Scratch scratch(n);
#pragma omp for schedule(dynamic, 16)
    for (std::int64_t i = first; i < end; ++i) {
      std::int64_t known_bad;
#pragma omp atomic read
      known_bad = first_bad_row;
      if (i > known_bad) continue;
      std::string problem = check(i, scratch);
      if (problem.empty()) continue;
#pragma omp critical(apsp_verify_first_violation)
      if (i < first_bad_row) {
        // Atomic as well as inside the critical section: other threads read
        // first_bad_row outside it (the atomic read above).
#pragma omp atomic write
        first_bad_row = i;
        violation = std::move(problem);
      }
    }
  }
  return violation;
}

// Counts checked rows (on any thread) and reports the fraction done from the
// calling thread, OpenMP thread 0 of the check's region, now and then.
class RowProgress {
 public:
  RowProgress(std::int64_t n, const std::function<void(double)>& progress)
      : n_(n), every_(n / 100 + 1), next_(every_), progress_(progress) {}
  void row_done() {
    const std::int64_t done = ++done_;
    if (progress_ && omp_get_thread_num() == 0 && done >= next_) {
      next_ = done + every_;
      progress_(static_cast<double>(done) / static_cast<double>(n_));
    }
  }
  void finish() const {
    if (progress_) progress_(1.0);
  }

 private:
  std::int64_t n_, every_, next_;
  std::atomic<std::int64_t> done_{0};
  const std::function<void(double)>& progress_;
};

VerifyReport report_of(std::string violation) {
  VerifyReport r;
  r.ok = violation.empty();
  r.first_violation = std::move(violation);
  return r;
}

// Per-thread scratch of the distance checks: the tight-edge search and its result.
struct TightSearch {
  explicit TightSearch(std::int64_t n) : search(n), via(static_cast<std::size_t>(n)) {}
  core::TightEdgeSearch search;
  std::vector<vertex_t> via;  // via[j] != -1: a tight chain from the row's source reaches j
};

// All checks of row i of d (distances from i); the first violation or empty.
// Real rows are checked within the row's rounding tolerance (row_tolerance):
// relaxed means d[v] <= d[u] + w + tolerance, attained and tight within it.
template <class W>
std::string check_distance_row(const BasicCsr<W>& out, const BasicCsr<W>& in, const W* row, std::int64_t i,
                               TightSearch& s, double max_abs_w) {
  const std::int64_t n = out.n;
  const double tolerance = core::row_tolerance(out, row, max_abs_w);
  if constexpr (std::is_integral<W>::value) {
    if (row[i] != 0) return dcell(i, i) + " = " + value_text(row[i]) + ", expected 0";
    for (std::int64_t j = 0; j < n; ++j)
      if (row[j] != kInf && (row[j] > kInf || row[j] <= -kInf))
        return dcell(i, j) + " = " + std::to_string(row[j]) + " is neither a distance nor INF (" +
               std::to_string(kInf) + ")";
  } else {
    for (std::int64_t j = 0; j < n; ++j)
      if (std::isnan(row[j]) || row[j] == -kUnreachable<W>)
        return dcell(i, j) + " = " + value_text(row[j]) + " is neither a distance nor inf";
    if (!(std::fabs(row[i]) <= tolerance))
      return dcell(i, i) + " = " + value_text(row[i]) + ", expected 0" + tolerance_note<W>(tolerance);
  }
  for (std::int64_t u = 0; u < n; ++u) {
    if (!core::is_reachable(row[u])) continue;
    for (std::int64_t k = out.row_start[u]; k < out.row_start[u + 1]; ++k) {
      const vertex_t v = out.col[k];
      if constexpr (std::is_integral<W>::value) {
        const std::int64_t through_u = static_cast<std::int64_t>(row[u]) + out.weight[k];
        if (row[v] == kInf || row[v] > through_u)
          return dcell(i, v) + " = " + value_text(row[v]) + " but " + dcell(i, u) + " + w(" + std::to_string(u) + "->" +
                 std::to_string(v) + ") = " + std::to_string(row[u]) + " + " + std::to_string(out.weight[k]) + " = " +
                 std::to_string(through_u);
      } else {
        const double through_u = static_cast<double>(row[u]) + static_cast<double>(out.weight[k]);
        if (!(static_cast<double>(row[v]) <= through_u + tolerance))
          return dcell(i, v) + " = " + value_text(row[v]) + " but " + dcell(i, u) + " + w(" + std::to_string(u) + "->" +
                 std::to_string(v) + ") = " + value_text(row[u]) + " + " + value_text(out.weight[k]) + " = " +
                 core::format_weight(through_u) + tolerance_note<W>(tolerance);
      }
    }
  }
  // Every finite entry must be the weight of a real path: search from i over
  // the tight edges (d[i][u] + w == d[i][v]). With relaxation this proves the
  // row exact; the in-edge test alone does not when values prop each other up
  // around a zero-weight cycle.
  s.search.run(out, core::Walk::out_edges, row, static_cast<vertex_t>(i), s.via.data(), -1, tolerance);
  for (std::int64_t j = 0; j < n; ++j) {
    if (!core::is_reachable(row[j]) || s.via[j] != -1) continue;
    bool has_tight_in_edge = false;
    for (std::int64_t k = in.row_start[j]; k < in.row_start[j + 1] && !has_tight_in_edge; ++k)
      has_tight_in_edge = core::is_tight(row[in.col[k]], in.weight[k], row[j], tolerance);
    if (!has_tight_in_edge)
      return dcell(i, j) + " = " + value_text(row[j]) + " is not attained: no in-edge u->" + std::to_string(j) +
             " has d[" + std::to_string(i) + "][u] + w == " + value_text(row[j]) + tolerance_note<W>(tolerance);
    return dcell(i, j) + " = " + value_text(row[j]) + " is not attained by any path from " + std::to_string(i) +
           " (its tight in-edges only close a zero-weight cycle)";
  }
  return {};
}

// Follows pred row i from every j. Each link u = pred[i][v] must be a tight
// edge u->v; the chain's weight then telescopes to d[i][j] once it reaches i,
// and a loop is the only way to miss i.
template <class W>
std::string check_predecessor_row(const BasicCsr<W>& out, const W* row, const vertex_t* pred_row, std::int64_t i,
                                  core::PredecessorChains& chains, double max_abs_w) {
  auto at = [&](std::int64_t j) { return cell("pred", i, j); };
  const double tolerance = core::row_tolerance(out, row, max_abs_w);
  const core::ChainProblem problem = chains.first_problem(row, pred_row, i, [&](vertex_t u, vertex_t v) {
    const W* edge = core::find_edge_weight(out, u, v);
    if (!edge) return std::to_string(u) + " but there is no edge " + std::to_string(u) + "->" + std::to_string(v);
    const W w = *edge;
    if (!core::is_tight(row[u], w, row[v], tolerance))
      return std::to_string(u) + " but " + dcell(i, u) + " + w = " + value_text(row[u]) + " + " + value_text(w) +
             " != " + dcell(i, v) + " = " + value_text(row[v]) + tolerance_note<W>(tolerance);
    return std::string();
  });
  const std::int64_t j = problem.target, v = problem.at;
  switch (problem.kind) {
    case core::ChainProblem::none: return {};
    case core::ChainProblem::unexpected:
      return at(v) + " = " + std::to_string(pred_row[v]) + ", expected -1 (" + dcell(i, v) + " = " +
             value_text(row[v]) + ")";
    case core::ChainProblem::loops: return at(j) + ": following predecessors loops at vertex " + std::to_string(v);
    case core::ChainProblem::not_a_vertex:
      return at(v) + " = " + std::to_string(pred_row[v]) + " is not a vertex (on the path to " + std::to_string(j) +
             ")";
    case core::ChainProblem::bad_link: return at(v) + " = " + problem.detail;
  }
  return {};
}

template <class W>
VerifyReport verify_typed(const BasicGraph<W>& normalized, Span<const W> d,
                          const std::function<void(double)>& progress) {
  check_normalized(normalized);
  const std::int64_t n = normalized.n;
  std::string shape = shape_problem(n, d.size(), "distance matrix");
  if (!shape.empty()) return report_of(std::move(shape));
  const BasicCsr<W> out = to_csr(normalized);
  const BasicCsr<W> in = transpose(out);
  const double max_abs_w = core::max_abs_weight(out);
  RowProgress rows(n, progress);
  VerifyReport report =
      report_of(lowest_row_violation<TightSearch>(n, normalized.edges.size(), [&](std::int64_t i, TightSearch& s) {
        std::string problem = check_distance_row(out, in, d.data() + i * n, i, s, max_abs_w);
        rows.row_done();
        return problem;
      }));
  rows.finish();
  report.relative_tolerance = core::relative_tolerance<W>(n);
  return report;
}

template <class W>
VerifyReport verify_predecessors_typed(const BasicGraph<W>& normalized, Span<const W> d, Span<const vertex_t> pred,
                                       const std::function<void(double)>& progress) {
  check_normalized(normalized);
  const std::int64_t n = normalized.n;
  std::string shape = shape_problem(n, d.size(), "distance matrix");
  if (shape.empty()) shape = shape_problem(n, pred.size(), "predecessor matrix");
  if (!shape.empty()) return report_of(std::move(shape));
  const BasicCsr<W> out = to_csr(normalized);
  const double max_abs_w = core::max_abs_weight(out);
  RowProgress rows(n, progress);
  VerifyReport report = report_of(lowest_row_violation<core::PredecessorChains>(
      n, normalized.edges.size(), [&](std::int64_t i, core::PredecessorChains& chains) {
        std::string problem = check_predecessor_row(out, d.data() + i * n, pred.data() + i * n, i, chains, max_abs_w);
        rows.row_done();
        return problem;
      }));
  rows.finish();
  report.relative_tolerance = core::relative_tolerance<W>(n);
  return report;
}

}  // namespace

VerifyReport verify(const Graph& normalized, Span<const dist_t> d, const std::function<void(double)>& progress) {
  return verify_typed(normalized, d, progress);
}
VerifyReport verify(const GraphF32& normalized, Span<const float> d, const std::function<void(double)>& progress) {
  return verify_typed(normalized, d, progress);
}
VerifyReport verify(const GraphF64& normalized, Span<const double> d, const std::function<void(double)>& progress) {
  return verify_typed(normalized, d, progress);
}

VerifyReport verify_predecessors(const Graph& normalized, Span<const dist_t> d, Span<const vertex_t> pred,
                                 const std::function<void(double)>& progress) {
  return verify_predecessors_typed(normalized, d, pred, progress);
}
VerifyReport verify_predecessors(const GraphF32& normalized, Span<const float> d, Span<const vertex_t> pred,
                                 const std::function<void(double)>& progress) {
  return verify_predecessors_typed(normalized, d, pred, progress);
}
VerifyReport verify_predecessors(const GraphF64& normalized, Span<const double> d, Span<const vertex_t> pred,
                                 const std::function<void(double)>& progress) {
  return verify_predecessors_typed(normalized, d, pred, progress);
}

std::string first_violation_in_row(const Graph& normalized, const dist_t* row, std::int64_t i) {
  const Csr out = to_csr(normalized);
  TightSearch scratch(normalized.n);
  return check_distance_row(out, transpose(out), row, i, scratch, 0);
}

template <class W>
BasicRowVerifier<W>::BasicRowVerifier(const BasicGraph<W>& normalized)
    : out_(to_csr(normalized)), in_(transpose(out_)), max_abs_w_(core::max_abs_weight(out_)) {}

template <class W>
VerifyReport BasicRowVerifier<W>::check(std::int64_t first_row, std::int64_t rows, const W* d,
                                        const vertex_t* pred) const {
  const std::int64_t n = out_.n;
  const std::size_t edges = out_.col.size();
  // Row i of the block is d + (i - first_row) * n.
  std::string violation = lowest_row_violation<TightSearch>(
      n, edges,
      [&](std::int64_t i, TightSearch& s) {
        return check_distance_row(out_, in_, d + (i - first_row) * n, i, s, max_abs_w_);
      },
      first_row, rows);
  if (violation.empty() && pred)
    violation = lowest_row_violation<core::PredecessorChains>(
        n, edges,
        [&](std::int64_t i, core::PredecessorChains& chains) {
          return check_predecessor_row(out_, d + (i - first_row) * n, pred + (i - first_row) * n, i, chains,
                                       max_abs_w_);
        },
        first_row, rows);
  VerifyReport report = report_of(std::move(violation));
  report.relative_tolerance = core::relative_tolerance<W>(n);
  return report;
}

template class BasicRowVerifier<weight_t>;
template class BasicRowVerifier<float>;
template class BasicRowVerifier<double>;

}  // namespace apsp
