# Optional transports of the communicators (src/comm): MPI from CMake's
# FindMPI (Debian's OpenMPI: libopenmpi-dev openmpi-bin), NCCL from the CUDA
# toolkit. Without them everything else still builds: the single and local
# communicators are always there, and `apsp info` says what is in.
option(APSP_ENABLE_MPI "Build the mpi communicator (and nccl, which bootstraps over MPI) when MPI is found" ON)
option(APSP_ENABLE_NCCL "Build NCCL device transport when the CUDA toolkit has it" ON)

set(APSP_WITH_MPI OFF)
if(APSP_ENABLE_MPI)
  set(MPI_CXX_SKIP_MPICXX ON CACHE BOOL "apsp uses the C API of MPI only")
  find_package(MPI COMPONENTS CXX QUIET)
  if(MPI_CXX_FOUND)
    set(APSP_WITH_MPI ON)
  endif()
endif()
message(STATUS "apsp: MPI ${APSP_WITH_MPI}")

set(APSP_WITH_NCCL OFF)
if(APSP_WITH_CUDA AND APSP_ENABLE_NCCL)
  find_path(APSP_NCCL_INCLUDE nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
  find_library(APSP_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
  if(APSP_NCCL_INCLUDE AND APSP_NCCL_LIBRARY)
    set(APSP_WITH_NCCL ON)
  endif()
endif()
message(STATUS "apsp: NCCL ${APSP_WITH_NCCL}")
