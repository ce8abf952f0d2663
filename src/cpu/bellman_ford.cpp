// bellman-ford: the library's one Bellman-Ford (src/core/bellman_ford.hpp,
// FIFO, round by round) run once per source. A negative cycle seen from any
// source stops every thread; the whole graph is then searched once more, from
// a virtual source, so that the vertex named does not depend on which thread
// saw the cycle first.
#include <algorithm>
#include <atomic>
#include <type_traits>

#include "apsp/error.hpp"
#include "apsp/potentials.hpp"
#include "core/bellman_ford.hpp"
#include "core/negative_cycle.hpp"
#include "core/stages.hpp"
#include "cpu/backend.hpp"
#include "cpu/sources.hpp"

namespace apsp::cpu::detail {

namespace {

// Labels in int64 (int32 weights, converted to the int32 output with a range
// check) or double (real weights, rounded to the weight type).
template <class W>
void bellman_ford_typed(const BasicJob<W>& job) {
  using Search = core::BasicBellmanFord<W>;
  StageClock clock(job.times);
  // Each thread's rounds: 8-byte labels, parents, queued flags, two queues.
  require_search_memory(job, "bellman-ford", 24, 0);
  const BasicCsr<W> csr = to_csr(job.graph);
  const core::CsrView<W> g = core::csr_view(csr);
  const std::int64_t n = g.n;
  // Real weights: the rule (core::vertex_on_negative_cycle) decides, once,
  // before the per-source searches, whose slack grows with n and could pass
  // over a small negative cycle.
  if constexpr (std::is_floating_point<W>::value)
    if (job.stats.has_negative())
      if (const std::int64_t on_cycle = core::vertex_on_negative_cycle(csr); on_cycle >= 0)
        throw NegativeCycleError(on_cycle);
  std::atomic<bool> cycle_seen{false};
  for_each_source(
      job, [&] { return Search(n, core::relaxation_slack<W>(n, static_cast<double>(job.stats.max_abs))); },
      [&](Search& search, vertex_t s, W* dist_row, vertex_t* pred_row) {
        if (cycle_seen.load(std::memory_order_relaxed)) return;
        if (!search.from_source(g, s)) {
          cycle_seen = true;
          return;
        }
        const auto& label = search.labels();
        for (std::int64_t t = 0; t < n; ++t) {
          if (label[t] == Search::kUnreached) continue;
          if constexpr (std::is_integral<W>::value)
            dist_row[t] = to_output(label[t], s, t);
          else
            dist_row[t] = static_cast<W>(label[t]);
        }
        if (pred_row) std::copy(search.parents().begin(), search.parents().end(), pred_row);
        // Real weights: a closed walk through s that rounding alone makes
        // negative may relax s itself; its distance is 0, with no predecessor.
        if constexpr (std::is_floating_point<W>::value) {
          dist_row[s] = 0;
          if (pred_row) pred_row[s] = -1;
        }
      });
  if (cycle_seen) {
    johnson_potentials(csr);  // throws NegativeCycleError naming a vertex on a cycle
    throw Error("bellman-ford: a negative cycle was proven from one source but not found from all");
  }
  if constexpr (std::is_integral<W>::value) job.precision = Precision::int64;
  clock.lap("compute");
}

}  // namespace

void bellman_ford(const Job& job) { bellman_ford_typed(job); }
void bellman_ford(const JobF32& job) { bellman_ford_typed(job); }
void bellman_ford(const JobF64& job) { bellman_ford_typed(job); }

}  // namespace apsp::cpu::detail
