// The MPI world communicator of the mpirun harness (set up by its main()).
#pragma once

#include "apsp/comm.hpp"

namespace apsp::test {

Communicator& world();

}  // namespace apsp::test
