// dijkstra: one heap search per source. johnson: Bellman-Ford potentials,
// reweighting to non-negative weights, then dijkstra per source.
#include <algorithm>
#include <cmath>
#include <string>

#include "apsp/error.hpp"
#include "apsp/potentials.hpp"
#include "core/stages.hpp"
#include "core/weights.hpp"
#include "cpu/backend.hpp"
#include "cpu/sources.hpp"

namespace apsp::cpu::detail {
namespace {

// Per-thread scratch of a search in int64.
struct WideWorker {
  std::vector<std::int64_t> dist;
  RadixHeap<std::int64_t> heap;
};

WideWorker make_wide_worker(std::int64_t n) {
  WideWorker w;
  w.dist.resize(static_cast<std::size_t>(n));
  return w;
}

// Searches with int64 labels over `g`, then writes dist_row[t] =
// label[t] + shift(t) to the int32 output.
// Labels above `limit` (label_limit) are left unreachable.
template <class W, class Shift>
void wide_search(const core::CsrView<W>& g, WideWorker& w, vertex_t source, dist_t* dist_row, vertex_t* pred_row,
                 Shift shift, std::int64_t limit) {
  constexpr std::int64_t inf = infinity<std::int64_t>();
  std::fill(w.dist.begin(), w.dist.end(), inf);
  dijkstra_from(g, source, w.dist.data(), pred_row, w.heap, limit);
  for (std::int64_t t = 0; t < g.n; ++t)
    if (w.dist[t] <= limit && w.dist[t] != inf)
      dist_row[t] = to_output(w.dist[t] + shift(t), source, t);
    else if (pred_row && w.dist[t] != inf)
      pred_row[t] = -1;
}

// The smallest Johnson potential: a reduced label above cutoff + h[s] - it
// is a distance above the cutoff.
template <class H>
H lowest_potential(const std::vector<H>& h) {
  return h.empty() ? H{0} : *std::min_element(h.begin(), h.end());
}

// Searches in the weight type itself, straight in the output row (float32
// labels round like the float32 distances they are), with a radix heap of
// bucket_width: the labels a comparison heap would settle, in the same
// arithmetic (scipy's: each d[u] + w rounded to W).
template <class W>
void dijkstra_real(const BasicJob<W>& job) {
  StageClock clock(job.times);
  require_search_memory(job, "dijkstra", sizeof(W) + 8, 0);
  for (const BasicEdge<W>& e : job.graph.edges)
    if (e.w < 0)
      throw InputError("dijkstra needs non-negative weights (edge " + std::to_string(e.src) + "->" +
                       std::to_string(e.dst) + " has weight " + core::format_weight(e.w) + "); use johnson");
  const BasicCsr<W> csr = to_csr(job.graph);
  const core::CsrView<W> g = core::csr_view(csr);
  const double width = bucket_width(g);
  const W limit = label_limit<W>(job.cutoff);
  for_each_source(
      job,
      [width] {
        RadixHeap<W> heap;
        heap.set_bucket_width(width);
        return heap;
      },
      [&](RadixHeap<W>& heap, vertex_t s, W* dist_row, vertex_t* pred_row) {
        dijkstra_from(g, s, dist_row, pred_row, heap, limit);
        drop_beyond(dist_row, pred_row, g.n, limit);
      });
  clock.lap("compute");
}

// Johnson in double: potentials h, reweighted w + h[u] - h[v] (clamped at 0,
// where rounding dips below), Dijkstra, then label + h[t] - h[s] rounded to W.
template <class W>
void johnson_real(const BasicJob<W>& job) {
  StageClock clock(job.times);
  require_search_memory(job, "johnson", 24,
                        8 * static_cast<std::uint64_t>(job.graph.edges.size()) +
                            40 * static_cast<std::uint64_t>(job.graph.n));
  const BasicCsr<W> csr = to_csr(job.graph);
  const std::vector<double> h = johnson_potentials(csr);  // throws NegativeCycleError
  std::vector<double> reweighted(csr.weight.size());
  for (std::int64_t u = 0; u < csr.n; ++u)
    for (std::int64_t e = csr.row_start[u]; e < csr.row_start[u + 1]; ++e)
      reweighted[e] = core::reduced_weight(static_cast<double>(csr.weight[e]), h[u], h[csr.col[e]]);
  const core::CsrView<double> g{csr.n, csr.row_start.data(), csr.col.data(), reweighted.data()};
  clock.lap("potentials");
  struct Labels {
    std::vector<double> dist;
    RadixHeap<double> heap;
  };
  const double width = bucket_width(g);
  const double lowest = lowest_potential(h);
  const double spread = job.cutoff ? std::fabs(*job.cutoff) + std::fabs(lowest) : 0.0;
  for_each_source(
      job,
      [&] {
        Labels labels{std::vector<double>(static_cast<std::size_t>(g.n)), {}};
        labels.heap.set_bucket_width(width);
        return labels;
      },
      [&](Labels& w, vertex_t s, W* dist_row, vertex_t* pred_row) {
        constexpr double inf = kUnreachable<double>;
        std::fill(w.dist.begin(), w.dist.end(), inf);
        // Reduced labels round: a relative slack keeps every label of a kept distance.
        const double shift = h[s] - lowest;
        const double limit = label_limit<double>(job.cutoff, shift, 1e-9 * (std::fabs(shift) + spread));
        dijkstra_from(g, s, w.dist.data(), pred_row, w.heap, limit);
        for (std::int64_t t = 0; t < g.n; ++t)
          if (w.dist[t] <= limit && w.dist[t] != inf)
            dist_row[t] = static_cast<W>(w.dist[t] + h[t] - h[s]);
          else if (pred_row && w.dist[t] != inf)
            pred_row[t] = -1;
      });
  clock.lap("compute");
}

}  // namespace

void dijkstra(const JobF32& job) { dijkstra_real(job); }
void dijkstra(const JobF64& job) { dijkstra_real(job); }
void johnson(const JobF32& job) { johnson_real(job); }
void johnson(const JobF64& job) { johnson_real(job); }

void dijkstra(const Job& job) {
  StageClock clock(job.times);
  // Labels and heap entries: int32 in the row itself and 8-byte entries, or int64 labels and 16-byte entries.
  require_search_memory(job, "dijkstra", job.int32_arithmetic ? 8 : 24, 0);
  for (const Edge& e : job.graph.edges)
    if (e.w < 0)
      throw InputError("dijkstra needs non-negative weights (edge " + std::to_string(e.src) + "->" +
                       std::to_string(e.dst) + " has weight " + std::to_string(e.w) + "); use johnson");
  const Csr csr = to_csr(job.graph);
  const core::CsrView<weight_t> g = core::csr_view(csr);
  const std::int32_t limit32 = label_limit<std::int32_t>(job.cutoff);
  const std::int64_t limit64 = label_limit<std::int64_t>(job.cutoff);
  if (job.int32_arithmetic) {
    // Labels stay below (n-1) * max|w| < kInf / 2: search straight in the output row.
    for_each_source(
        job, [] { return RadixHeap<std::int32_t>{}; },
        [&](RadixHeap<std::int32_t>& heap, vertex_t s, dist_t* dist_row, vertex_t* pred_row) {
          dijkstra_from(g, s, dist_row, pred_row, heap, limit32);
          drop_beyond(dist_row, pred_row, g.n, limit32);
        });
  } else {
    for_each_source(
        job, [&] { return make_wide_worker(g.n); },
        [&](WideWorker& w, vertex_t s, dist_t* dist_row, vertex_t* pred_row) {
          wide_search(
              g, w, s, dist_row, pred_row, [](std::int64_t) { return std::int64_t{0}; }, limit64);
        });
  }
  job.precision = job.int32_arithmetic ? Precision::int32 : Precision::int64;
  clock.lap("compute");
}

void johnson(const Job& job) {
  StageClock clock(job.times);
  // int64 labels and heap entries per thread; the reweighted edges, the
  // potentials and the Bellman-Ford rounds that find them.
  require_search_memory(job, "johnson", 24,
                        8 * static_cast<std::uint64_t>(job.graph.edges.size()) +
                            40 * static_cast<std::uint64_t>(job.graph.n));
  const Csr csr = to_csr(job.graph);
  const std::vector<std::int64_t> h = johnson_potentials(csr);  // throws NegativeCycleError
  // w + h[u] - h[v] >= 0 for every edge; it may exceed int32, hence int64.
  std::vector<std::int64_t> reweighted(csr.weight.size());
  for (std::int64_t u = 0; u < csr.n; ++u)
    for (std::int64_t e = csr.row_start[u]; e < csr.row_start[u + 1]; ++e)
      reweighted[e] = csr.weight[e] + h[u] - h[csr.col[e]];
  const core::CsrView<std::int64_t> g{csr.n, csr.row_start.data(), csr.col.data(), reweighted.data()};
  const std::int64_t lowest = lowest_potential(h);
  clock.lap("potentials");
  for_each_source(
      job, [&] { return make_wide_worker(g.n); },
      [&](WideWorker& w, vertex_t s, dist_t* dist_row, vertex_t* pred_row) {
        // Integer labels are exact: no slack.
        const std::int64_t limit = label_limit<std::int64_t>(job.cutoff, static_cast<double>(h[s] - lowest));
        wide_search(
            g, w, s, dist_row, pred_row, [&](std::int64_t t) { return h[t] - h[s]; }, limit);
      });
  job.precision = Precision::int64;
  clock.lap("compute");
}

}  // namespace apsp::cpu::detail
