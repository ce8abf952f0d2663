// Private to src/comm: what the optional transports of this build are, each
// answered by its own file (mpi.cpp / no_mpi.cpp, nccl.cpp / no_nccl.cpp).
#pragma once

#include <string>

namespace apsp::comm {

// "Open MPI v4.1.4, ..." as MPI_Get_library_version gives it (first line),
// or empty when the build has no MPI.
std::string mpi_library_version();
// True when the MPI library takes device pointers (CUDA-aware Open MPI).
bool mpi_is_cuda_aware();
// "2.28.9", or empty when the build has no NCCL.
std::string nccl_version();

}  // namespace apsp::comm
