// bellman-ford: a FIFO (round-by-round) Bellman-Ford per source, and the
// negative-cycle finder that also gives Johnson's potentials.
//
// Round r relaxes the out-edges of the vertices whose label changed in round
// r-1, so after round r every shortest path of at most r edges is labelled.
// Without a negative cycle no label changes after round (vertices - 1); a
// change in a later round proves a cycle. Any cycle of the parent pointers is
// a negative cycle (labels strictly decrease along it), which is how the
// finder names a vertex on one.
#include <algorithm>
#include <string>

#include "apsp/error.hpp"
#include "core/stages.hpp"
#include "cpu/backend.hpp"
#include "cpu/sources.hpp"

namespace apsp::cpu::detail {
namespace {

// The labelling state of one run: labels, parents and the two FIFO rounds.
struct Rounds {
  explicit Rounds(std::int64_t n)
      : label(static_cast<std::size_t>(n)), parent(static_cast<std::size_t>(n)), queued(static_cast<std::size_t>(n)) {
    current.reserve(static_cast<std::size_t>(n));
    next.reserve(static_cast<std::size_t>(n));
  }

  // Relaxes the out-edges of this round's vertices; the improved ones make up
  // the next round. Returns whether the next round is non-empty.
  bool relax_round(const Adjacency<weight_t>& g) {
    next.clear();
    for (const vertex_t u : current) {
      queued[u] = 0;
      const std::int64_t du = label[u];
      for (std::int64_t e = g.row_start[u]; e < g.row_start[u + 1]; ++e) {
        const vertex_t v = g.col[e];
        const std::int64_t candidate = du + g.weight[e];
        if (candidate >= label[v]) continue;
        label[v] = candidate;
        parent[v] = u;
        if (!queued[v]) {
          queued[v] = 1;
          next.push_back(v);
        }
      }
    }
    current.swap(next);
    return !current.empty();
  }

  std::vector<std::int64_t> label;
  std::vector<vertex_t> parent;
  std::vector<char> queued;
  std::vector<vertex_t> current, next;
};

// A vertex on a cycle of the parent pointers, or -1. O(n).
std::int64_t parent_cycle_vertex(const std::vector<vertex_t>& parent) {
  const std::int64_t n = static_cast<std::int64_t>(parent.size());
  std::vector<std::int64_t> walk(static_cast<std::size_t>(n), -1);  // id of the walk that visited each vertex
  for (std::int64_t start = 0; start < n; ++start) {
    std::int64_t v = start;
    while (v >= 0 && walk[v] < 0) {
      walk[v] = start;
      v = parent[v];
    }
    if (v >= 0 && walk[v] == start) return v;
  }
  return -1;
}

}  // namespace

std::int64_t find_negative_cycle(const Csr& c, std::vector<std::int64_t>* potentials) {
  const std::int64_t n = c.n;
  const Adjacency<weight_t> g = view(c);
  // A virtual source with a 0-weight edge to every vertex: its round is done
  // up front (every label 0, every vertex queued); n + 1 vertices in all.
  Rounds rounds(n);
  std::fill(rounds.label.begin(), rounds.label.end(), 0);
  std::fill(rounds.parent.begin(), rounds.parent.end(), -1);
  std::fill(rounds.queued.begin(), rounds.queued.end(), 1);
  for (std::int64_t v = 0; v < n; ++v) rounds.current.push_back(static_cast<vertex_t>(v));
  for (std::int64_t round = 2;; ++round) {
    if (!rounds.relax_round(g)) {
      if (potentials) *potentials = std::move(rounds.label);
      return -1;
    }
    const std::int64_t on_cycle = parent_cycle_vertex(rounds.parent);
    if (on_cycle >= 0) return on_cycle;
    // Past round n + 1 a negative cycle exists and the parent pointers close
    // one within about n further rounds; this bound only guards against a hang.
    if (round > 4 * (n + 1)) {
      std::int64_t v = rounds.current.front();
      for (std::int64_t step = 0; step <= n && rounds.parent[v] >= 0; ++step) v = rounds.parent[v];
      return v;
    }
  }
}

void bellman_ford(const Job& job) {
  StageClock clock(job.times);
  // Each thread's rounds: int64 labels, parents, queued flags, two queues.
  require_search_memory(job, "bellman-ford", 24, 0);
  const Csr csr = to_csr(job.graph);
  const Adjacency<weight_t> g = view(csr);
  const std::int64_t n = g.n;
  std::atomic<bool> cycle_seen{false};
  for_each_source(
      job, [&] { return Rounds(n); },
      [&](Rounds& r, vertex_t s, dist_t* dist_row, vertex_t* pred_row) {
        constexpr std::int64_t inf = infinity<std::int64_t>();
        std::fill(r.label.begin(), r.label.end(), inf);
        std::fill(r.parent.begin(), r.parent.end(), -1);
        r.current.assign(1, s);
        r.queued[s] = 1;
        r.label[s] = 0;
        for (std::int64_t round = 1; r.relax_round(g); ++round) {
          if (round >= n) cycle_seen = true;
          if (cycle_seen) {
            for (const vertex_t v : r.current) r.queued[v] = 0;
            return;
          }
        }
        for (std::int64_t t = 0; t < n; ++t)
          if (r.label[t] != inf) dist_row[t] = to_output(r.label[t], s, t);
        if (pred_row) std::copy(r.parent.begin(), r.parent.end(), pred_row);
      });
  if (cycle_seen) {
    const std::int64_t on_cycle = find_negative_cycle(csr, nullptr);
    if (on_cycle < 0) throw Error("bellman-ford: a negative cycle was seen but not found again");
    throw NegativeCycleError(on_cycle);
  }
  clock.lap("compute");
}

}  // namespace apsp::cpu::detail
