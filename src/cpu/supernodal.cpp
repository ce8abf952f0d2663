// supernodal on the CPU: ordering and symbolic analysis (symbolic.hpp), the
// min-plus factor and the row solve (numeric.hpp), rows delivered in blocks
// (supernodal_rows.hpp). Registered in the CPU table (src/cpu/cpu.cpp).
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>

#include "apsp/error.hpp"
#include "core/negative_cycle.hpp"
#include "core/resources.hpp"
#include "core/stages.hpp"
#include "cpu/backend.hpp"
#include "cpu/supernodal_rows.hpp"
#include "supernodal/numeric.hpp"
#include "supernodal/symbolic.hpp"

namespace apsp::cpu::detail {
namespace {

// Bytes of the factor of `s` in D, plus the update matrices' and fronts'
// worst case (every update alive at once, a front per thread).
template <class D>
std::uint64_t factor_bytes(const supernodal::Symbolic& s, int threads) {
  std::uint64_t cells = static_cast<std::uint64_t>(s.diag_offset.back() + 2 * s.panel_offset.back());
  for (std::int32_t K = 0; K < s.count; ++K) {
    const auto sk = static_cast<std::uint64_t>(s.structure_size(K));
    cells += sk * sk;
  }
  const auto front = static_cast<std::uint64_t>(s.max_front);
  cells += static_cast<std::uint64_t>(threads) * front * front;
  return cells * sizeof(D) + 4 * static_cast<std::uint64_t>(threads) * static_cast<std::uint64_t>(s.n);
}

template <class D, class W>
void run_in(const BasicJob<W>& job, D inf, D negative_below) {
  StageClock clock(job.times);
  const std::int64_t n = job.graph.n;
  const BasicCsr<W> out = to_csr(job.graph);
  const BasicCsr<W> in = transpose(out);
  supernodal::AnalyseTimes analysis;
  const supernodal::Symbolic s = supernodal::analyse(out, &analysis);
  job.times.add("ordering", analysis.ordering);
  job.times.add("symbolic", analysis.symbolic);
  clock.restart();
  const auto threads = static_cast<std::uint64_t>(job.threads);
  // Per thread: a block of rows in new order (D) and deliver_rows' staging.
  const std::uint64_t rows_per_thread = sizeof(D) * static_cast<std::uint64_t>(block_rows(job) * n);
  resources::require_memory(factor_bytes<D>(s, job.threads) +
                                threads * (rows_per_thread + staging_bytes_per_thread(job)),
                            "supernodal's factor on " + std::to_string(n) + " vertices (" + std::to_string(s.count) +
                                " supernodes, fronts up to " + std::to_string(s.max_front) + ")");
  // Progress: the factor's share of the work, then the rows'.
  const double rows = static_cast<double>(job.sources.empty() ? n : static_cast<std::int64_t>(job.sources.size()));
  const double total = s.factor_ops + rows * s.solve_ops_per_source;
  const double factor_share = total > 0 ? s.factor_ops / total : 0;
  const supernodal::Factor<D> f = supernodal::factor(s, out, in, inf, negative_below, job.threads,
                                                     [&](double fraction) { job.report(fraction * factor_share); });
  clock.lap("factor");
  const std::function<void(double)> solve_progress = [&](double fraction) {
    job.report(factor_share + (1 - factor_share) * fraction);
  };
  const BasicJob<W> solve_job{job.graph,        job.stats,   job.int32_arithmetic,
                              job.predecessors, job.threads, solve_progress,
                              job.sources,      job.sink,    job.times,
                              job.precision,    nullptr,     job.split};
  supernodal::deliver_solved_rows(solve_job, s, f, inf, job.predecessors ? &out : nullptr,
                                  negative_cycle_threshold(job), /*report_progress=*/true);
  clock.lap("compute");
}

template <class W>
void run(const BasicJob<W>& job) {
  if constexpr (std::is_floating_point<W>::value) {
    // The one rule decides first (core/negative_cycle.hpp: the cycle's own
    // edges, not n); the fronts' n-based threshold is then a backstop.
    if (job.stats.has_negative())
      if (const std::int64_t on_cycle = core::vertex_on_negative_cycle(to_csr(job.graph)); on_cycle >= 0)
        throw NegativeCycleError(on_cycle);
    run_in<W>(job, kUnreachable<W>, static_cast<W>(-negative_cycle_threshold(job)));
  } else {
    // int32 while (n - 1) * max|w| < kInf / 4 (numeric.hpp's bound), else int64.
    const std::int64_t hops = job.graph.n > 0 ? job.graph.n - 1 : 0;
    const bool narrow = job.int32_arithmetic && hops * job.stats.max_abs < static_cast<std::int64_t>(kInf) / 4;
    if (narrow) {
      job.precision = Precision::int32;
      run_in<std::int32_t>(job, kInf, 0);
    } else {
      constexpr std::int64_t wide_inf = infinity<std::int64_t>();
      if (job.stats.max_abs > 0 && hops > wide_inf / 4 / job.stats.max_abs)
        throw OverflowError("supernodal on " + std::to_string(job.graph.n) + " vertices with |w| up to " +
                            std::to_string(job.stats.max_abs) + " could overflow int64");
      job.precision = Precision::int64;
      run_in<std::int64_t>(job, wide_inf, 0);
    }
  }
}

}  // namespace

void supernodal(const Job& job) { run(job); }
void supernodal(const JobF32& job) { run(job); }
void supernodal(const JobF64& job) { run(job); }

}  // namespace apsp::cpu::detail
