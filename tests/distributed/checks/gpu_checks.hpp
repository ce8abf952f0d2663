// GPU checks of the communicators and the distributed solver, for every rank
// of one group (thread harness and mpirun harness). Each skips (returns
// false) without a CUDA build or device; collective otherwise.
#pragma once

#include <cstdint>

#include "apsp/comm.hpp"
#include "distributed/checks/dist_checks.hpp"

namespace apsp::test {

// True when this process can run the GPU checks.
bool gpu_available();

// broadcast, all_reduce (min, sum; int32, int64, float64) and a send/receive
// chain on device buffers of comm.device() (or device 0), on `stream`-less
// (default) ordering: results read back and compared on the host.
void check_device_collectives(Communicator& comm);

// The distributed GPU solver (backend cuda, this rank on comm.device() or
// device 0) against the single-process fw-blocked distances on `c`.
void check_gpu_matches_fw_blocked(Communicator& comm, const Case& c, const DistConfig& config);

// The distributed GPU solver against the single-GPU production solver ("fw",
// int32) on an R-MAT graph of n vertices with negative weights: every row
// equal. Every rank computes the single-GPU result itself.
void check_gpu_matches_single_gpu(Communicator& comm, std::int64_t n, const DistConfig& config);

// Distances the GPU's int32 cannot hold, refused on every rank with an
// agreed OverflowError and the sink discarded, never committed: a chain of
// 129 edges of 2e7 (its far end 2.58e9 away: the one-GPU certificate finds
// finite values below the infinity), and the same chain with -2e7 (the
// reweighted distances are 0, the real ones below -2^30).
void check_gpu_output_range(Communicator& comm, const DistConfig& config);

// int16 on the GPU: the distributed solver asked for `asked` (automatic or
// int16) on `g` against the single-GPU fw in int32: every row equal, the
// result reported in `expected_used` (int16 when the attempt is certified
// on every rank, int32 when it reran), finite and unreachable entries both
// present.
void check_gpu_precision(Communicator& comm, const std::string& name, const Graph& g, const DistConfig& config,
                         Precision asked, Precision expected_used);

// Predecessors on the GPU on `c`: distances equal fw-blocked's, every row's
// predecessors arrive with it, and verify (each rank checks its rows as
// verify_predecessors does: every chain a path of tight edges back to the
// source) passes.
void check_gpu_predecessors(Communicator& comm, const Case& c, const DistConfig& config, Precision precision);

// Graphs for the int16 checks, with isolated vertices added so that some
// pairs are unreachable: small weights (the int16 attempt certifies), and a
// heavy chain whose distances pass the int16 infinity though every weight is
// small enough to attempt it (the certificate fails and int32 reruns).
Graph int16_friendly_graph(std::int64_t n);
Graph int16_overflowing_graph(std::int64_t n);

}  // namespace apsp::test
