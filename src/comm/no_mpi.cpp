// Builds without MPI: the mpi communicator is refused with a clear error.
#include "apsp/comm.hpp"
#include "apsp/error.hpp"
#include "comm/features.hpp"
#include "comm/shared_staging.hpp"

namespace apsp {

std::unique_ptr<Communicator> make_mpi_communicator(int) {
  throw ResourceError("this build of apsp has no MPI (install an MPI library, e.g. libopenmpi-dev, and rebuild)");
}

namespace comm {

std::string mpi_library_version() { return {}; }
bool mpi_is_cuda_aware() { return false; }

namespace testing {

void stage_host_broadcasts(bool) {}
void set_shared_staging_piece_bytes(std::int64_t) {}
void fail_ipc_staging_on_rank(int) {}
SharedStagingCounts shared_staging_counts() { return {}; }
std::int64_t shared_staging_min_bytes() { return 0; }

}  // namespace testing

}  // namespace comm
}  // namespace apsp
