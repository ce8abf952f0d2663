// Host launcher of the download's device staging step
// (kernels/download/rows_to_int32.cuh). Host-only declarations.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "device_rows.hpp"

namespace apsp::cuda {

// Rows [first_row, first_row + rows) of `m` as int32 distances into `out`
// (rows x m.n, leading dimension m.n, device memory): unreachable becomes
// kInf, potentials (device, m.n entries, or nullptr) are undone, and the
// row-major index of an entry that leaves int32 lowers *first_overflow
// (device; the caller starts it at ~0ull). Asynchronous on `stream`.
void launch_rows_to_int32(const DeviceRows& m, std::int64_t first_row, std::int64_t rows,
                          const std::int64_t* potentials, std::int32_t* out, unsigned long long* first_overflow,
                          cudaStream_t stream);

}  // namespace apsp::cuda
