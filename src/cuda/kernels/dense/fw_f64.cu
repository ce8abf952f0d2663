// Host side of the float64 blocked Floyd-Warshall (kernels/dense/fw_f64.cuh):
// the round loop.
#include <algorithm>
#include <string>

#include "apsp/error.hpp"
#include "core/cuda_check.hpp"
#include "cuda/family.hpp"
#include "cuda/fw_real.hpp"
#include "cuda/kernels/dense/fw_f64.cuh"
#include "cuda/launch.hpp"

namespace apsp::cuda {

using F64 = kernels::Float64Traits;
static_assert(real_fw_pad<double>() == F64::kTile, "the float64 matrix is padded to its tile");

void fw_rounds_real(double* d, std::int64_t n_pad, cudaStream_t stream, ProgressSpan span, std::int64_t pivot_rounds) {
  if (n_pad % F64::kTile != 0)
    throw UsageError("the float64 matrix must be padded to a multiple of " + std::to_string(F64::kTile), "n_pad");
  const std::int64_t nb = n_pad / F64::kTile;
  if (nb - 1 > 65535) throw ResourceError("float64 fw: " + std::to_string(n_pad) + " vertices exceed the grid limit");
  APSP_CUDA_CHECK(cudaFuncSetAttribute(kernels::f64_update_panels<F64>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(F64::kProductSharedBytes)));
  APSP_CUDA_CHECK(cudaFuncSetAttribute(kernels::f64_update_rest<F64>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(F64::kProductSharedBytes)));
  const std::int64_t last = pivot_rounds < 0 ? nb : std::min(pivot_rounds, nb);
  Progress progress(stream, span, last, std::max<std::int64_t>(1, last / 64), /*wait_for_work=*/true);
  for (int kb = 0; kb < static_cast<int>(last); ++kb) {
    kernels::f64_close_diagonal<F64><<<1, F64::kThreads, 0, stream>>>(d, n_pad, kb);
    APSP_CUDA_CHECK_LAUNCH("f64_close_diagonal");
    if (nb > 1) {
      kernels::f64_update_panels<F64>
          <<<static_cast<unsigned>(2 * (nb - 1)), F64::kThreads, F64::kProductSharedBytes, stream>>>(
              d, n_pad, kb, static_cast<int>(nb));
      APSP_CUDA_CHECK_LAUNCH("f64_update_panels");
      const dim3 grid(static_cast<unsigned>(nb - 1), static_cast<unsigned>(nb - 1));
      kernels::f64_update_rest<F64><<<grid, F64::kThreads, F64::kProductSharedBytes, stream>>>(d, n_pad, kb);
      APSP_CUDA_CHECK_LAUNCH("f64_update_rest");
    }
    progress.reached(kb + 1);
  }
}

}  // namespace apsp::cuda
