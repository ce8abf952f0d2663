// Checks of the row split across ranks (Communicator::make_counter,
// solve_distributed_rows), written for every rank of one group: the thread
// harness (test_row_split.cpp) and the mpirun harness run the same ones.
// Collective, and no rank skips a collective call when an expectation
// failed on it.
#pragma once

#include <string>

#include "apsp/comm.hpp"

namespace apsp::test {

// Four threads per rank draw 1000 values each from one shared counter:
// every value 0 .. 4000 * ranks - 1 comes out exactly once over all ranks.
void check_shared_counter(Communicator& comm);

// solve_distributed_rows with `algorithm` (a CPU per-source algorithm or
// supernodal) on the standard cases (int32, and every fourth also float32
// and float64; dijkstra skips negative weights): every row reaches exactly
// one rank's sink and equals the single-process solve's row bit for bit,
// predecessors included on alternate cases (supernodal's real distances
// within n * epsilon relative: its blocks of rows round otherwise); both finite and unreachable
// entries occur; each sink sees one begin, one commit, no discard.
// `stride`: every stride-th case only (the mpirun harness oversubscribes
// its cores).
void check_rows_match_one_process(Communicator& comm, const std::string& algorithm, std::size_t stride = 1);

// The last rank fails halfway through its rows (its progress callback
// throws, as a device error would): every rank throws the agreed error
// naming that rank and every sink is discarded. A negative cycle is an
// agreed NegativeCycleError on every rank.
void check_row_split_failures(Communicator& comm);

// The GPU's row solvers (`algorithm`: sssp or supernodal) split over the
// ranks of `comm`, each on its communicator's device (ranks may share one):
// every row on exactly one rank and equal to one GPU's solve, int32 bit for
// bit, float32 and float64 within n * epsilon relative. Needs a device.
void check_gpu_rows_match_one_gpu(Communicator& comm, const std::string& algorithm);

// sssp's rows split over the ranks of `comm` with predecessors (verified as
// they pass), int32 and float32, each rank downloading every chunk once
// computed (per_chunk_download) or keeping them on its device until its last
// chunk or a full device: as check_gpu_rows_match_one_gpu, predecessors
// equal to one GPU's where the distances are integers. Needs a device.
void check_gpu_rows_with_predecessors(Communicator& comm, bool per_chunk_download);

// check_row_split_failures' failing last rank with sssp on the GPU (its
// rows' downloads deferred): every rank throws the agreed error, every sink
// is discarded. Needs a device.
void check_gpu_row_split_failure(Communicator& comm);

}  // namespace apsp::test
