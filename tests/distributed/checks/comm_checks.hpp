// Checks of a communicator's calls, written for every rank of one group:
// run by the thread harness (local communicators, test_comm.cpp) and by the
// mpirun harness (tests/distributed/mpi) with the same expectations. Each check is
// collective: every rank calls it, and no rank skips a call when another
// rank's expectation failed (so a failure never turns into a hang).
#pragma once

#include "apsp/comm.hpp"

namespace apsp::test {

// broadcast from every root, each element type, counts 0, 1 and 1000.
void check_broadcast(Communicator& comm);
// all_reduce with min, max and sum on each type, in place and not.
void check_all_reduce(Communicator& comm);
// A chain rank r -> r + 1 of two messages each (order kept), and a message
// to itself.
void check_send_receive(Communicator& comm);
// split by rank parity with reversed keys: sub-ranks, sizes, and a broadcast
// and all_reduce inside each part.
void check_split(Communicator& comm);
// broadcast_graph from the last rank: every weight type, an empty graph,
// the edges in their order; the receivers' own graphs replaced.
void check_broadcast_graph(Communicator& comm);
// agree_from: rank 0's error thrown on every rank as Agreed<E> of origin -1
// with its message unprefixed, the step run on rank 0 only.
void check_agree_from(Communicator& comm);
// Arguments out of range are UsageError before any rank waits.
void check_bad_arguments(Communicator& comm);

}  // namespace apsp::test
