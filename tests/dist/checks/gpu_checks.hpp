// GPU checks of the communicators and the distributed solver, for every rank
// of one group (thread harness and mpirun harness). Each skips (returns
// false) without a CUDA build or device; collective otherwise.
#pragma once

#include <cstdint>

#include "apsp/comm.hpp"
#include "dist/checks/dist_checks.hpp"

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

}  // namespace apsp::test
