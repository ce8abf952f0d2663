// The supernodal GPU solver ("supernodal" on Backend::cuda): the ordering
// and symbolic analysis on the host (supernodal/symbolic.hpp, METIS), the
// min-plus factor of the reweighted graph on the device (fronts of one etree
// level batched per launch, large fronts through the dense fw rounds), and
// the rows by forward and backward passes against the factor, B sources at a
// time, streamed to the sink by solve_rows (row_solver.hpp). Host-only
// declarations.
#pragma once

#include <cuda_runtime.h>

#include "apsp/graph.hpp"
#include "apsp/sink.hpp"
#include "apsp/solver.hpp"
#include "core/progress.hpp"

namespace apsp::cuda {

// Solves the normalized graph and streams every row into the sink (begun;
// its commit is the caller's), as solve_sparse does (sparse_solver.hpp):
// negative weights through Johnson potentials (NegativeCycleError for a
// negative cycle), int32 distances beyond int32 refused, predecessors,
// --verify, progress. Stages: "ordering", "symbolic", "factor", then the
// row stages. int32 graphs with Precision::int16: the solve's working rows
// in int16 (refused as fw refuses int16: with predecessors, or a reweighted
// weight of kInf16 / 2 or more), certified, int32 rows again when the
// certificate fails; the summary's precision is int16 when every row
// certified. Throws UsageError naming METIS when the build has no ordering
// library, ResourceError when the factor does not fit on the device.
void solve_supernodal(const Graph& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out,
                      ProgressSpan progress);
void solve_supernodal(const GraphF32& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out,
                      ProgressSpan progress);
void solve_supernodal(const GraphF64& normalized, const SolveOptions& opts, Sink& sink, SolveSummary& out,
                      ProgressSpan progress);

}  // namespace apsp::cuda
