#include "apsp/verify.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace apsp {
namespace {

std::string cell(const char* matrix, std::int64_t i, std::int64_t j) {
  return std::string(matrix) + "[" + std::to_string(i) + "][" + std::to_string(j) + "]";
}
std::string dcell(std::int64_t i, std::int64_t j) { return cell("d", i, j); }

std::string value_text(dist_t v) { return v == kInf ? std::string("INF") : std::to_string(v); }

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
  const bool parallel =
      static_cast<double>(end - first) * static_cast<double>(n + static_cast<std::int64_t>(edges)) > 4e6;
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
        first_bad_row = i;
        violation = std::move(problem);
      }
    }
  }
  return violation;
}

VerifyReport report_of(std::string violation) {
  VerifyReport r;
  r.ok = violation.empty();
  r.first_violation = std::move(violation);
  return r;
}

struct TightSearch {
  explicit TightSearch(std::int64_t n) : reached(static_cast<std::size_t>(n)), queue(static_cast<std::size_t>(n)) {}
  std::vector<char> reached;
  std::vector<vertex_t> queue;
};

// All checks of row i of d (distances from i); the first violation or empty.
std::string check_distance_row(const Csr& out, const Csr& in, const dist_t* row, std::int64_t i, TightSearch& s) {
  const std::int64_t n = out.n;
  if (row[i] != 0) return dcell(i, i) + " = " + value_text(row[i]) + ", expected 0";
  for (std::int64_t j = 0; j < n; ++j)
    if (row[j] != kInf && (row[j] > kInf || row[j] <= -kInf))
      return dcell(i, j) + " = " + std::to_string(row[j]) + " is neither a distance nor INF (" + std::to_string(kInf) + ")";
  for (std::int64_t u = 0; u < n; ++u) {
    if (row[u] == kInf) continue;
    for (std::int64_t k = out.row_start[u]; k < out.row_start[u + 1]; ++k) {
      const vertex_t v = out.col[k];
      const std::int64_t through_u = static_cast<std::int64_t>(row[u]) + out.weight[k];
      if (row[v] == kInf || row[v] > through_u)
        return dcell(i, v) + " = " + value_text(row[v]) + " but " + dcell(i, u) + " + w(" + std::to_string(u) + "->" +
               std::to_string(v) + ") = " + std::to_string(row[u]) + " + " + std::to_string(out.weight[k]) + " = " +
               std::to_string(through_u);
    }
  }
  // Every finite entry must be the weight of a real path: search from i over
  // the tight edges (d[i][u] + w == d[i][v]). With relaxation this proves the
  // row exact; the in-edge test alone does not when values prop each other up
  // around a zero-weight cycle.
  std::fill(s.reached.begin(), s.reached.end(), 0);
  std::size_t head = 0, tail = 0;
  s.reached[i] = 1;
  s.queue[tail++] = static_cast<vertex_t>(i);
  while (head < tail) {
    const vertex_t u = s.queue[head++];
    for (std::int64_t k = out.row_start[u]; k < out.row_start[u + 1]; ++k) {
      const vertex_t v = out.col[k];
      if (!s.reached[v] && static_cast<std::int64_t>(row[u]) + out.weight[k] == row[v]) {
        s.reached[v] = 1;
        s.queue[tail++] = v;
      }
    }
  }
  for (std::int64_t j = 0; j < n; ++j) {
    if (row[j] == kInf || s.reached[j]) continue;
    bool has_tight_in_edge = false;
    for (std::int64_t k = in.row_start[j]; k < in.row_start[j + 1] && !has_tight_in_edge; ++k) {
      const vertex_t u = in.col[k];
      has_tight_in_edge = row[u] != kInf && static_cast<std::int64_t>(row[u]) + in.weight[k] == row[j];
    }
    if (!has_tight_in_edge)
      return dcell(i, j) + " = " + std::to_string(row[j]) + " is not attained: no in-edge u->" + std::to_string(j) +
             " has d[" + std::to_string(i) + "][u] + w == " + std::to_string(row[j]);
    return dcell(i, j) + " = " + std::to_string(row[j]) + " is not attained by any path from " + std::to_string(i) +
           " (its tight in-edges only close a zero-weight cycle)";
  }
  return {};
}

struct ChainWalk {
  explicit ChainWalk(std::int64_t n) : state(static_cast<std::size_t>(n)) {}
  enum : char { unknown = 0, on_chain = 1, reaches_source = 2 };
  std::vector<char> state;
  std::vector<vertex_t> chain;
};

// Follows pred row i from every j. Each link u = pred[i][v] must be a tight
// edge u->v; the chain's weight then telescopes to d[i][j] once it reaches i,
// and a loop is the only way to miss i.
std::string check_predecessor_row(const Csr& out, const dist_t* row, const vertex_t* pred_row, std::int64_t i,
                                  ChainWalk& walk) {
  const std::int64_t n = out.n;
  auto at = [&](std::int64_t j) { return cell("pred", i, j); };
  std::fill(walk.state.begin(), walk.state.end(), ChainWalk::unknown);
  walk.state[i] = ChainWalk::reaches_source;
  for (std::int64_t j = 0; j < n; ++j) {
    const vertex_t p = pred_row[j];
    if (j == i || row[j] == kInf) {
      if (p != -1)
        return at(j) + " = " + std::to_string(p) + ", expected -1 (" + dcell(i, j) + " = " + value_text(row[j]) + ")";
      continue;
    }
    walk.chain.clear();
    std::int64_t v = j;
    while (walk.state[v] != ChainWalk::reaches_source) {
      if (walk.state[v] == ChainWalk::on_chain)
        return at(j) + ": following predecessors loops at vertex " + std::to_string(v);
      walk.state[v] = ChainWalk::on_chain;
      walk.chain.push_back(static_cast<vertex_t>(v));
      const vertex_t u = pred_row[v];
      if (u < 0 || u >= n)
        return at(v) + " = " + std::to_string(u) + " is not a vertex (on the path to " + std::to_string(j) + ")";
      const auto first = out.col.begin() + out.row_start[u], last = out.col.begin() + out.row_start[u + 1];
      const auto edge = std::lower_bound(first, last, static_cast<vertex_t>(v));
      if (edge == last || *edge != v)
        return at(v) + " = " + std::to_string(u) + " but there is no edge " + std::to_string(u) + "->" + std::to_string(v);
      const weight_t w = out.weight[static_cast<std::size_t>(edge - out.col.begin())];
      if (row[u] == kInf || static_cast<std::int64_t>(row[u]) + w != row[v])
        return at(v) + " = " + std::to_string(u) + " but " + dcell(i, u) + " + w = " + value_text(row[u]) + " + " +
               std::to_string(w) + " != " + dcell(i, v) + " = " + std::to_string(row[v]);
      v = u;
    }
    for (vertex_t x : walk.chain) walk.state[x] = ChainWalk::reaches_source;
  }
  return {};
}

}  // namespace

VerifyReport verify(const Graph& normalized, const std::vector<dist_t>& d) {
  const std::int64_t n = normalized.n;
  std::string shape = shape_problem(n, d.size(), "distance matrix");
  if (!shape.empty()) return report_of(std::move(shape));
  const Csr out = to_csr(normalized);
  const Csr in = transpose(out);
  return report_of(lowest_row_violation<TightSearch>(n, normalized.edges.size(), [&](std::int64_t i, TightSearch& s) {
    return check_distance_row(out, in, d.data() + i * n, i, s);
  }));
}

VerifyReport verify_predecessors(const Graph& normalized, const std::vector<dist_t>& d,
                                 const std::vector<vertex_t>& pred) {
  const std::int64_t n = normalized.n;
  std::string shape = shape_problem(n, d.size(), "distance matrix");
  if (shape.empty()) shape = shape_problem(n, pred.size(), "predecessor matrix");
  if (!shape.empty()) return report_of(std::move(shape));
  const Csr out = to_csr(normalized);
  return report_of(lowest_row_violation<ChainWalk>(n, normalized.edges.size(), [&](std::int64_t i, ChainWalk& walk) {
    return check_predecessor_row(out, d.data() + i * n, pred.data() + i * n, i, walk);
  }));
}

RowVerifier::RowVerifier(const Graph& normalized) : out_(to_csr(normalized)), in_(transpose(out_)) {}

VerifyReport RowVerifier::check(std::int64_t first_row, std::int64_t rows, const dist_t* d,
                                const vertex_t* pred) const {
  const std::int64_t n = out_.n;
  const std::size_t edges = out_.col.size();
  // Row i of the block is d + (i - first_row) * n.
  std::string violation = lowest_row_violation<TightSearch>(
      n, edges,
      [&](std::int64_t i, TightSearch& s) { return check_distance_row(out_, in_, d + (i - first_row) * n, i, s); },
      first_row, rows);
  if (violation.empty() && pred)
    violation = lowest_row_violation<ChainWalk>(
        n, edges,
        [&](std::int64_t i, ChainWalk& walk) {
          return check_predecessor_row(out_, d + (i - first_row) * n, pred + (i - first_row) * n, i, walk);
        },
        first_row, rows);
  return report_of(std::move(violation));
}

}  // namespace apsp
