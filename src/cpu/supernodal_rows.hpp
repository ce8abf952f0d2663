// The supernodal solver's rows into a CPU job's sink: a range of result rows
// computed against the factor (numeric.hpp) in row blocks over OpenMP, in
// original ids, with predecessors rebuilt over tight edges. This is the unit
// a distributed row split hands out (rows are independent). Host-only.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/tight_edges.hpp"
#include "cpu/backend.hpp"
#include "cpu/deliver.hpp"
#include "supernodal/numeric.hpp"
#include "supernodal/symbolic.hpp"

namespace apsp::supernodal {

// Per-thread scratch of deliver_rows: the rows in new order, the solve's
// gather buffers, the sources of a block and a tight-edge search.
template <class D>
struct RowWorker {
  std::vector<D> x;
  SolveScratch<D> solve;
  std::vector<std::int32_t> sources;
  core::TightEdgeSearch search;
};

// Rows [first_row, first_row + row_count) (row_count < 0: through the last)
// of job's result (a row per vertex, or per job.sources entry) against
// factor f of job.graph on structure s, into job.sink. D is the factor's
// arithmetic with missing value `inf` (numeric.hpp); an int64 value outside
// the int32 output throws OverflowError naming the pair. With
// job.predecessors, `edges` is the graph's CSR and each row's predecessors
// are the breadth-first tree over its tight edges (within `slack` for real
// weights), so zero-weight cycles still give trees. Progress: job.report
// with the fraction of these rows done, when report_progress.
template <class D, class W>
void deliver_solved_rows(const cpu::detail::BasicJob<W>& job, const Symbolic& s, const Factor<D>& f, D inf,
                         const BasicCsr<W>* edges, double slack, bool report_progress, std::int64_t first_row = 0,
                         std::int64_t row_count = -1) {
  const std::int64_t n = job.graph.n;
  const bool subset = !job.sources.empty();
  cpu::detail::deliver_rows(
      job,
      [&] {
        return RowWorker<D>{{}, {}, {}, core::TightEdgeSearch(job.predecessors ? n : 0)};
      },
      [&](RowWorker<D>& worker, std::int64_t first, std::int64_t rows, W* dist, vertex_t* pred) {
        worker.x.resize(static_cast<std::size_t>(rows * n));
        worker.sources.resize(static_cast<std::size_t>(rows));
        for (std::int64_t r = 0; r < rows; ++r) {
          const vertex_t source = subset ? job.sources[static_cast<std::size_t>(first + r)]
                                         : static_cast<vertex_t>(first + r);
          worker.sources[r] = s.iperm[source];
        }
        solve_rows(s, f, worker.sources.data(), rows, worker.x.data(), inf, worker.solve);
        for (std::int64_t r = 0; r < rows; ++r) {
          const D* x = worker.x.data() + r * n;
          W* out = dist + r * n;
          const vertex_t source = s.perm[worker.sources[r]];
          for (std::int64_t j = 0; j < n; ++j) {
            const vertex_t t = s.perm[j];
            if (!is_distance(x[j], inf))
              out[t] = kUnreachable<W>;
            else if constexpr (std::is_same<D, W>::value)
              out[t] = x[j];
            else
              out[t] = cpu::detail::to_output(x[j], source, t);
          }
          if constexpr (std::is_floating_point<W>::value) out[source] = 0;
          if (pred) core::tight_predecessor_row(*edges, out, source, pred + r * n, worker.search, slack);
        }
      },
      report_progress, first_row, row_count);
}

}  // namespace apsp::supernodal
