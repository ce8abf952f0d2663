// Checked CUDA calls: every runtime call and every launch goes through these,
// and a failure becomes an apsp::DeviceError (or ResourceError for memory).
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "apsp/error.hpp"

namespace apsp::cuda::detail {

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  // Clear the sticky-free error state so later calls in the process can work.
  cudaGetLastError();
  if (status == cudaErrorMemoryAllocation)
    throw ResourceError(std::string("out of device memory in ") + call + " (" + file + ":" + std::to_string(line) +
                        ")");
  throw DeviceError(call, cudaGetErrorString(status), file, line);
}

}  // namespace apsp::cuda::detail

#define APSP_CUDA_CHECK(call)                                                                                         \
  do {                                                                                                                \
    const cudaError_t apsp_status_ = (call);                                                                          \
    if (apsp_status_ != cudaSuccess) ::apsp::cuda::detail::throw_cuda_error(apsp_status_, #call, __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: catches bad configurations immediately (the launch
// itself is asynchronous; execution errors surface at the next checked sync).
#define APSP_CUDA_CHECK_LAUNCH(name)                                                               \
  do {                                                                                             \
    const cudaError_t apsp_status_ = cudaGetLastError();                                           \
    if (apsp_status_ != cudaSuccess)                                                               \
      ::apsp::cuda::detail::throw_cuda_error(apsp_status_, "launch of " name, __FILE__, __LINE__); \
  } while (0)
