// A long sequence of broadcasts for the mpi communicator's node-shared
// staging (src/comm/mpi.cpp, issue 22 shm8): collective, for every rank of
// one group, on host or device buffers.
#pragma once

#include <cstdint>

#include "apsp/comm.hpp"

namespace apsp::test {

// Broadcasts of varying sizes from a root that changes every call: below,
// at and above `threshold` bytes (the shared path's smallest), each larger
// one growing the segment, then `back_to_back` calls in a row alternating
// large and small sizes (the halves' double-buffering under stress); every
// rank checks every byte it got. Device buffers live on the device of
// `comm` (0 when it names none), stream `stream`. Returns how many of the
// calls were at least `threshold` bytes.
std::int64_t check_staged_broadcasts(Communicator& comm, Memory memory, std::int64_t threshold, int back_to_back,
                                     void* stream = nullptr);

}  // namespace apsp::test
