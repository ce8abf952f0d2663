// bellman-ford: the library's one Bellman-Ford (src/core/bellman_ford.hpp,
// FIFO, round by round) run once per source. A negative cycle seen from any
// source stops every thread; the whole graph is then searched once more, from
// a virtual source, so that the vertex named does not depend on which thread
// saw the cycle first.
#include <algorithm>
#include <atomic>

#include "apsp/error.hpp"
#include "apsp/potentials.hpp"
#include "core/bellman_ford.hpp"
#include "core/stages.hpp"
#include "cpu/backend.hpp"
#include "cpu/sources.hpp"

namespace apsp::cpu::detail {

void bellman_ford(const Job& job) {
  StageClock clock(job.times);
  // Each thread's rounds: int64 labels, parents, queued flags, two queues.
  require_search_memory(job, "bellman-ford", 24, 0);
  const Csr csr = to_csr(job.graph);
  const core::CsrView<weight_t> g = core::csr_view(csr);
  const std::int64_t n = g.n;
  std::atomic<bool> cycle_seen{false};
  for_each_source(
      job, [&] { return core::BellmanFord(n); },
      [&](core::BellmanFord& search, vertex_t s, dist_t* dist_row, vertex_t* pred_row) {
        if (cycle_seen.load(std::memory_order_relaxed)) return;
        if (!search.from_source(g, s)) {
          cycle_seen = true;
          return;
        }
        const std::vector<std::int64_t>& label = search.labels();
        for (std::int64_t t = 0; t < n; ++t)
          if (label[t] != core::BellmanFord::kUnreached) dist_row[t] = to_output(label[t], s, t);
        if (pred_row) std::copy(search.parents().begin(), search.parents().end(), pred_row);
      });
  if (cycle_seen) {
    johnson_potentials(csr);  // throws NegativeCycleError naming a vertex on a cycle
    throw Error("bellman-ford: a negative cycle was proven from one source but not found from all");
  }
  job.precision = Precision::int64;
  clock.lap("compute");
}

}  // namespace apsp::cpu::detail
