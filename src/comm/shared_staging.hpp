// Private to src/comm (and its tests): the mpi communicator's broadcasts
// through a node-shared segment (mpi.cpp), which device broadcasts take by
// default (APSP_STAGING=shared; `mpi` stages them through MPI_Bcast as
// before). These hooks let CPU ranks exercise the same path with host
// buffers, and show what it did.
#pragma once

#include <cstdint>

namespace apsp::comm::testing {

// Host-buffer broadcasts of the mpi communicators of this process take the
// shared segment too (when it applies: one node, at least
// shared_staging_min_bytes()). Set it the same on every rank, between
// collective calls. Builds without MPI: nothing.
void stage_host_broadcasts(bool on);

// Broadcasts longer than `bytes` go through the segment in pieces of
// `bytes` (and its halves grow no larger than that); 0 restores the
// default (256 MiB). For exercising the pieces with small messages; set
// it the same on every rank, between collective calls.
void set_shared_staging_piece_bytes(std::int64_t bytes);

// What the shared segments of this process's mpi communicators did: the
// broadcasts they carried, and the windows they allocated (the first, and
// one each time a larger broadcast grew them).
struct SharedStagingCounts {
  std::int64_t broadcasts = 0;
  std::int64_t windows = 0;
};
SharedStagingCounts shared_staging_counts();

// Broadcasts below this many bytes go through MPI_Bcast.
std::int64_t shared_staging_min_bytes();

}  // namespace apsp::comm::testing
