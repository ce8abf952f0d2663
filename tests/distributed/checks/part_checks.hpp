// Checks of a part of the matrix through the distributed row split
// (DistributedOptions::sources, targets, cutoff; issue 23 across ranks),
// written for every rank of one group: the thread harness
// (test_row_split.cpp) and the mpirun harness run the same ones. Collective,
// and no rank skips a collective call when an expectation failed on it.
#pragma once

#include "apsp/comm.hpp"
#include "apsp/solver.hpp"

namespace apsp::test {

// solve_distributed_rows of a part (sources x targets with repeats, sources
// only, targets only) on a graph with negative weights, int32 and float64,
// against one process's solve of the same part: every row of the part
// reaches exactly one rank and equals one process's (CPU: bit for bit;
// cuda, sssp on the communicator's device: int32 bit for bit, float64
// within n * epsilon relative), with unreachable and finite entries both
// present. And the sparse results (a cutoff, the nearest targets, both on a
// part) gathered by SparseSink over `comm` on rank 0 equal one process's
// SparseSink result (the other ranks' are empty). cuda needs a device.
// `real`: float64 too (the mpirun harness, oversubscribed, runs int32 only).
void check_parts_match_one_process(Communicator& comm, Backend backend = Backend::cpu, bool real = true);

// A source or target outside the graph is refused on every rank with the
// same UsageError before any sink begins; verify with a part and the
// distributed Floyd-Warshall with one are refused too.
void check_part_errors(Communicator& comm);

}  // namespace apsp::test
