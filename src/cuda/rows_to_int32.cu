#include "rows_to_int32.hpp"

#include <algorithm>

#include "apsp/error.hpp"
#include "core/ceil_div.hpp"
#include "core/cuda_check.hpp"
#include "kernels/download/rows_to_int32.cuh"

namespace apsp::cuda {

void launch_rows_to_int32(const DeviceRows& m, std::int64_t first_row, std::int64_t rows,
                          const std::int64_t* potentials, std::int32_t* out, unsigned long long* first_overflow,
                          cudaStream_t stream) {
  if (m.real()) throw UsageError("rows_to_int32: real-valued rows are not widened to int32");
  if (rows <= 0 || m.n == 0) return;
  constexpr int kThreads = 256;
  // Enough blocks per row to cover it, and rows spread over the y dimension
  // (at most 65535) so a block of short rows still fills the device.
  const dim3 grid(static_cast<unsigned>(std::min<std::int64_t>(ceil_div(m.n, std::int64_t{kThreads}), 1024)),
                  static_cast<unsigned>(std::min<std::int64_t>(rows, 65535)));
  if (m.stored == Stored::int16) {
    kernels::rows_to_int32<<<grid, kThreads, 0, stream>>>(static_cast<const std::int16_t*>(m.data), m.ld, m.n,
                                                          first_row, rows, m.int16_infinity, potentials, out,
                                                          first_overflow);
  } else {
    kernels::rows_to_int32<<<grid, kThreads, 0, stream>>>(static_cast<const std::int32_t*>(m.data), m.ld, m.n,
                                                          first_row, rows, 0, potentials, out, first_overflow);
  }
  APSP_CUDA_CHECK_LAUNCH("rows_to_int32");
}

}  // namespace apsp::cuda
