#include "apsp/path.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "apsp/error.hpp"
#include "core/csr.hpp"
#include "core/tight_edges.hpp"
#include "core/weights.hpp"

namespace apsp {
namespace {

std::string dcell(std::int64_t i, std::int64_t j) { return "d[" + std::to_string(i) + "][" + std::to_string(j) + "]"; }

void check_vertex(std::int64_t v, std::int64_t n, const char* role) {
  if (v < 0 || v >= n)
    throw InputError(std::string(role) + " vertex " + std::to_string(v) + " is outside 0.." + std::to_string(n - 1));
}

// " (rounding tolerance T)" for real rows, empty for int32 (tolerance 0).
std::string tolerance_note(double tolerance) {
  return tolerance > 0 ? " (rounding tolerance " + core::format_weight(tolerance) + ")" : std::string();
}

void check_shape(std::size_t entries, std::int64_t n, const char* what) {
  if (entries != static_cast<std::size_t>(n) * static_cast<std::size_t>(n))
    throw InputError(std::string(what) + " has " + std::to_string(entries) + " entries but the graph has " +
                     std::to_string(n) + " vertices");
}

// Follows pred[from][*] back from `to`. Every link must be an edge of the
// graph, the chain must reach `from` within n steps, and its weight must be
// d[from][to] (real weights: within the row's rounding tolerance). Returns the
// path from `from` to `to`.
template <class W>
std::vector<vertex_t> follow_predecessors(const BasicCsr<W>& out, Span<const W> d, Span<const vertex_t> pred,
                                          vertex_t from, vertex_t to, double tolerance) {
  const std::int64_t n = out.n;
  const vertex_t* pred_row = pred.data() + static_cast<std::int64_t>(from) * n;
  std::vector<vertex_t> path{to};
  // int32: exact in int64; real: summed in double, like the reference checks.
  std::conditional_t<std::is_integral<W>::value, std::int64_t, double> weight = 0;
  for (vertex_t v = to; v != from;) {
    const vertex_t u = pred_row[v];
    const std::string link = "pred[" + std::to_string(from) + "][" + std::to_string(v) + "] = " + std::to_string(u);
    if (u < 0 || u >= n) throw InputError(link + " is not a vertex");
    if (static_cast<std::int64_t>(path.size()) > n)
      throw InputError("predecessors of " + std::to_string(to) + " from " + std::to_string(from) + " loop");
    const W* w = core::find_edge_weight(out, u, v);
    if (!w) throw InputError(link + " but the graph has no edge " + std::to_string(u) + "->" + std::to_string(v));
    weight += *w;
    path.push_back(u);
    v = u;
  }
  const W expected = d[static_cast<std::int64_t>(from) * n + to];
  if (!(std::fabs(static_cast<double>(weight) - static_cast<double>(expected)) <= tolerance))
    throw InputError("the predecessor path " + std::to_string(from) + " -> " + std::to_string(to) + " weighs " +
                     core::format_weight(weight) + " but " + dcell(from, to) + " = " + core::format_weight(expected) +
                     tolerance_note(tolerance));
  std::reverse(path.begin(), path.end());
  return path;
}

// Searches back from `to` over tight in-edges u->v (d[from][u] + w ==
// d[from][v], real weights within `tolerance`). Any chain of tight edges from
// `from` weighs d[from][to], and the search visits each vertex once, so
// zero-weight cycles cannot trap it. Returns the path with the fewest edges.
template <class W>
std::vector<vertex_t> rebuild_from_distances(const BasicCsr<W>& in, Span<const W> d, vertex_t from, vertex_t to,
                                             double tolerance) {
  const W* row = d.data() + static_cast<std::int64_t>(from) * in.n;
  std::vector<vertex_t> next_on_path(static_cast<std::size_t>(in.n));  // the vertex after u, towards `to`
  core::TightEdgeSearch(in.n).run(in, core::Walk::in_edges, row, to, next_on_path.data(), from, tolerance);
  if (next_on_path[from] == -1)
    throw InputError(dcell(from, to) + " = " + core::format_weight(row[to]) +
                     " is not the weight of any path consistent with the distance matrix" + tolerance_note(tolerance));
  std::vector<vertex_t> path{from};
  for (vertex_t v = from; v != to;) path.push_back(v = next_on_path[v]);
  return path;
}

template <class W>
std::vector<vertex_t> shortest_path_typed(const BasicGraph<W>& normalized, Span<const W> d, Span<const vertex_t> pred,
                                          vertex_t from, vertex_t to) {
  check_normalized(normalized);
  const std::int64_t n = normalized.n;
  check_vertex(from, n, "source");
  check_vertex(to, n, "target");
  check_shape(d.size(), n, "the distance matrix");
  if (!pred.empty()) check_shape(pred.size(), n, "the predecessor matrix");
  const BasicCsr<W> out = to_csr(normalized);
  const W* row = d.data() + static_cast<std::int64_t>(from) * n;
  const double tolerance = core::row_tolerance(out, row, core::max_abs_weight(out));
  if (!(std::fabs(static_cast<double>(row[from])) <= tolerance))
    throw InputError(dcell(from, from) + " = " + core::format_weight(row[from]) + ", expected 0" +
                     tolerance_note(tolerance));
  if (from == to) return {from};
  if (!core::is_reachable(row[to])) {
    const vertex_t last = pred.empty() ? -1 : pred[static_cast<std::int64_t>(from) * n + to];
    if (last != -1)
      throw InputError("pred[" + std::to_string(from) + "][" + std::to_string(to) + "] = " + std::to_string(last) +
                       " but " + dcell(from, to) + (std::is_integral<W>::value ? " is INF" : " is inf"));
    return {};
  }
  if (!pred.empty()) return follow_predecessors(out, d, pred, from, to, tolerance);
  return rebuild_from_distances(transpose(out), d, from, to, tolerance);
}

}  // namespace

std::vector<vertex_t> shortest_path(const Graph& normalized, Span<const dist_t> d, Span<const vertex_t> pred,
                                    vertex_t from, vertex_t to) {
  return shortest_path_typed(normalized, d, pred, from, to);
}
std::vector<vertex_t> shortest_path(const GraphF32& normalized, Span<const float> d, Span<const vertex_t> pred,
                                    vertex_t from, vertex_t to) {
  return shortest_path_typed(normalized, d, pred, from, to);
}
std::vector<vertex_t> shortest_path(const GraphF64& normalized, Span<const double> d, Span<const vertex_t> pred,
                                    vertex_t from, vertex_t to) {
  return shortest_path_typed(normalized, d, pred, from, to);
}

}  // namespace apsp
