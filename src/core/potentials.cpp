#include "apsp/potentials.hpp"

#include <deque>

#include "apsp/error.hpp"

namespace apsp {
namespace {

// A vertex on a cycle of the parent graph, or -1 if it has none. Every cycle
// of the parent graph Bellman-Ford maintains is a negative cycle.
vertex_t vertex_on_parent_cycle(const std::vector<vertex_t>& parent) {
  const std::size_t n = parent.size();
  // 0 = unvisited, 1 = on the walk in progress, 2 = known acyclic.
  std::vector<char> state(n, 0);
  std::vector<vertex_t> walk;
  for (std::size_t start = 0; start < n; ++start) {
    if (state[start]) continue;
    walk.clear();
    vertex_t x = static_cast<vertex_t>(start);
    while (x >= 0 && state[x] == 0) {
      state[x] = 1;
      walk.push_back(x);
      x = parent[x];
    }
    if (x >= 0 && state[x] == 1) return x;
    for (vertex_t y : walk) state[y] = 2;
  }
  return -1;
}

}  // namespace

std::vector<std::int64_t> johnson_potentials(const Csr& g) {
  const std::int64_t n = g.n;
  std::vector<std::int64_t> h(static_cast<std::size_t>(n), 0);
  // hops[v]: edges on the best path found to v from the virtual source.
  std::vector<std::int64_t> hops(static_cast<std::size_t>(n), 0);
  std::vector<vertex_t> parent(static_cast<std::size_t>(n), -1);
  std::vector<char> queued(static_cast<std::size_t>(n), 1);
  std::deque<vertex_t> queue;
  std::int64_t relaxations = 0;
  for (std::int64_t v = 0; v < n; ++v) queue.push_back(static_cast<vertex_t>(v));
  while (!queue.empty()) {
    const vertex_t u = queue.front();
    queue.pop_front();
    queued[u] = 0;
    for (std::int64_t e = g.row_start[u]; e < g.row_start[u + 1]; ++e) {
      const vertex_t v = g.col[e];
      const std::int64_t candidate = h[u] + g.weight[e];
      if (candidate >= h[v]) continue;
      h[v] = candidate;
      parent[v] = u;
      hops[v] = hops[u] + 1;
      // A path of n or more edges repeats a vertex; also look every n
      // relaxations, which keeps the search amortised O(1) per relaxation.
      if (hops[v] >= n || ++relaxations % (n + 1) == 0) {
        const vertex_t on_cycle = vertex_on_parent_cycle(parent);
        if (on_cycle >= 0) throw NegativeCycleError(on_cycle);
      }
      if (!queued[v]) {
        queued[v] = 1;
        queue.push_back(v);
      }
    }
  }
  return h;
}

}  // namespace apsp
