// Private to src/comm (and its tests): the mpi communicator's staged
// broadcasts (mpi.cpp): through the ranks' device buffers over CUDA IPC
// (device buffers; APSP_STAGING=ipc, the default), through a node-shared
// host segment (APSP_STAGING=shared, and where IPC cannot be had), or
// through MPI_Bcast (`mpi`, as before shm8). Both staged kinds share one
// protocol; these hooks let CPU ranks exercise it with host buffers
// through the segment, force the IPC path's fallback, and show what each
// did.
#pragma once

#include <cstdint>

namespace apsp::comm::testing {

// Host-buffer broadcasts of the mpi communicators of this process take the
// shared segment too (when it applies: one node, at least
// shared_staging_min_bytes()). Set it the same on every rank, between
// collective calls. Builds without MPI: nothing.
void stage_host_broadcasts(bool on);

// Broadcasts longer than `bytes` go through the segment or the IPC buffers
// in pieces of `bytes` (and their halves grow no larger than that); 0
// restores the defaults (256 MiB for the segment, 64 MiB for IPC). For exercising the pieces with small messages; set
// it the same on every rank, between collective calls.
void set_shared_staging_piece_bytes(std::int64_t bytes);

// Makes the IPC buffers of the mpi communicators fail on the rank `rank`
// of the communicator making them (as if its allocation failed; -1:
// none), so that every rank falls back to the shared segment for that
// communicator's life. Set it the same on every rank before the
// communicator's first large device broadcast.
void fail_ipc_staging_on_rank(int rank);

// What the staging of this process's mpi communicators did: the
// broadcasts the shared segments carried, and the windows they allocated
// (the first, and one each time a larger broadcast grew them); the same
// for the IPC buffers (device broadcasts; one allocation on each rank
// counted once).
struct SharedStagingCounts {
  std::int64_t broadcasts = 0;
  std::int64_t windows = 0;
  std::int64_t ipc_broadcasts = 0;
  std::int64_t ipc_allocations = 0;
};
SharedStagingCounts shared_staging_counts();

// Broadcasts below this many bytes go through MPI_Bcast.
std::int64_t shared_staging_min_bytes();

}  // namespace apsp::comm::testing
