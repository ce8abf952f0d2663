// Builds without MPI: the mpi communicator is refused with a clear error.
#include "apsp/comm.hpp"
#include "apsp/error.hpp"
#include "comm/features.hpp"

namespace apsp {

std::unique_ptr<Communicator> make_mpi_communicator(int) {
  throw ResourceError("this build of apsp has no MPI (install an MPI library, e.g. libopenmpi-dev, and rebuild)");
}

namespace comm {

std::string mpi_library_version() { return {}; }
bool mpi_is_cuda_aware() { return false; }

}  // namespace comm
}  // namespace apsp
