// The target columns' gather on the device (SolveOptions::targets): the GPU
// row solvers cut each chunk of computed rows to the chosen columns before
// the download, so only s x t values cross the link and reach the host.
// Host-only declarations.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace apsp::cuda {

// out (count x width, leading dimension width) = the values at `columns`
// (device, width vertex ids, each in 0..ld-1: checked by the caller) of
// rows 0..count-1 of `rows` (leading dimension ld). Asynchronous on `stream`.
void gather_columns(const std::int32_t* rows, std::int64_t ld, std::int64_t count, const std::int32_t* columns,
                    std::int64_t width, std::int32_t* out, cudaStream_t stream);
void gather_columns(const float* rows, std::int64_t ld, std::int64_t count, const std::int32_t* columns,
                    std::int64_t width, float* out, cudaStream_t stream);
void gather_columns(const double* rows, std::int64_t ld, std::int64_t count, const std::int32_t* columns,
                    std::int64_t width, double* out, cudaStream_t stream);

}  // namespace apsp::cuda
