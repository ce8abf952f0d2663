#include "apsp/path.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "apsp/error.hpp"
#include "core/csr.hpp"
#include "core/tight_edges.hpp"

namespace apsp {
namespace {

std::string dcell(std::int64_t i, std::int64_t j) {
  return "d[" + std::to_string(i) + "][" + std::to_string(j) + "]";
}

void check_vertex(std::int64_t v, std::int64_t n, const char* role) {
  if (v < 0 || v >= n)
    throw InputError(std::string(role) + " vertex " + std::to_string(v) + " is outside 0.." + std::to_string(n - 1));
}

void check_shape(std::size_t entries, std::int64_t n, const char* what) {
  if (entries != static_cast<std::size_t>(n) * static_cast<std::size_t>(n))
    throw InputError(std::string(what) + " has " + std::to_string(entries) + " entries but the graph has " +
                     std::to_string(n) + " vertices");
}

// Follows pred[from][*] back from `to`. Every link must be an edge of the
// graph, the chain must reach `from` within n steps, and its weight must be
// d[from][to]. Returns the path from `from` to `to`.
std::vector<vertex_t> follow_predecessors(const Csr& out, Span<const dist_t> d, Span<const vertex_t> pred,
                                          vertex_t from, vertex_t to) {
  const std::int64_t n = out.n;
  const vertex_t* pred_row = pred.data() + static_cast<std::int64_t>(from) * n;
  std::vector<vertex_t> path{to};
  std::int64_t weight = 0;
  for (vertex_t v = to; v != from;) {
    const vertex_t u = pred_row[v];
    const std::string link = "pred[" + std::to_string(from) + "][" + std::to_string(v) + "] = " + std::to_string(u);
    if (u < 0 || u >= n) throw InputError(link + " is not a vertex");
    if (static_cast<std::int64_t>(path.size()) > n)
      throw InputError("predecessors of " + std::to_string(to) + " from " + std::to_string(from) + " loop");
    const weight_t* w = core::find_edge_weight(out, u, v);
    if (!w) throw InputError(link + " but the graph has no edge " + std::to_string(u) + "->" + std::to_string(v));
    weight += *w;
    path.push_back(u);
    v = u;
  }
  const dist_t expected = d[static_cast<std::int64_t>(from) * n + to];
  if (weight != expected)
    throw InputError("the predecessor path " + std::to_string(from) + " -> " + std::to_string(to) + " weighs " +
                     std::to_string(weight) + " but " + dcell(from, to) + " = " + std::to_string(expected));
  std::reverse(path.begin(), path.end());
  return path;
}

// Searches back from `to` over tight in-edges u->v (d[from][u] + w ==
// d[from][v]). Any chain of tight edges from `from` weighs exactly
// d[from][to], and the search visits each vertex once, so zero-weight cycles
// cannot trap it. Returns the path with the fewest edges.
std::vector<vertex_t> rebuild_from_distances(const Csr& in, Span<const dist_t> d, vertex_t from, vertex_t to) {
  const dist_t* row = d.data() + static_cast<std::int64_t>(from) * in.n;
  std::vector<vertex_t> next_on_path(static_cast<std::size_t>(in.n));  // the vertex after u, towards `to`
  core::TightEdgeSearch(in.n).run(in, core::Walk::in_edges, row, to, next_on_path.data(), from);
  if (next_on_path[from] == -1)
    throw InputError(dcell(from, to) + " = " + std::to_string(row[to]) +
                     " is not the weight of any path consistent with the distance matrix");
  std::vector<vertex_t> path{from};
  for (vertex_t v = from; v != to;) path.push_back(v = next_on_path[v]);
  return path;
}

}  // namespace

std::vector<vertex_t> shortest_path(const Graph& normalized, Span<const dist_t> d, Span<const vertex_t> pred,
                                    vertex_t from, vertex_t to) {
  check_normalized(normalized);
  const std::int64_t n = normalized.n;
  check_vertex(from, n, "source");
  check_vertex(to, n, "target");
  check_shape(d.size(), n, "the distance matrix");
  if (!pred.empty()) check_shape(pred.size(), n, "the predecessor matrix");
  const dist_t to_self = d[static_cast<std::int64_t>(from) * n + from];
  if (to_self != 0) throw InputError(dcell(from, from) + " = " + std::to_string(to_self) + ", expected 0");
  if (from == to) return {from};
  const dist_t distance = d[static_cast<std::int64_t>(from) * n + to];
  if (distance == kInf) {
    const vertex_t last = pred.empty() ? -1 : pred[static_cast<std::int64_t>(from) * n + to];
    if (last != -1)
      throw InputError("pred[" + std::to_string(from) + "][" + std::to_string(to) + "] = " + std::to_string(last) +
                       " but " + dcell(from, to) + " is INF");
    return {};
  }
  const Csr out = to_csr(normalized);
  if (!pred.empty()) return follow_predecessors(out, d, pred, from, to);
  return rebuild_from_distances(transpose(out), d, from, to);
}

}  // namespace apsp
